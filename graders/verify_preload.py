"""Imported once by the fork server the local judges' workers are forked from
(graders.verify_pool): the judges' modules, the audit's tables and the rules judge's version
(a digest of its code and of its dependencies' installed files) are then loaded once, before
the first worker exists, and every worker starts with them (copy-on-write), instead of each
worker importing, loading and hashing them again (more than a second of CPU per worker).

Best effort on purpose: the fork server swallows an ``ImportError`` of a preloaded module, and
anything else raised here would end it. So a failure here is left for each worker's own
start-up (``verify_pool._start_worker``), which builds its judges and verifier the same way
and, failing, stops the run with the error.
"""

from __future__ import annotations

import contextlib

from spanproof.graders.audit_pool import load_everything
from spanproof.graders.rules.judge import rules_version


def load_judging() -> None:
    """What a worker judging with the local judges reads before its first pair."""
    load_everything()
    rules_version()


with contextlib.suppress(Exception):
    load_judging()
