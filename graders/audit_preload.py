"""Imported once by the fork server the audit workers are forked from (graders.audit_pool):
the audit's modules and tables are then loaded once, before the first worker exists, and
every worker starts with them (copy-on-write), instead of each worker importing and loading
them again (about a second of CPU per worker).

Best effort on purpose: the fork server swallows an ``ImportError`` of a preloaded module, and
anything else raised here would end it. So a failure here is left for each worker's own
start-up (``audit_pool._start_worker``), which loads the same tables and, failing, stops the
run with the error instead of a verdict without its audit.
"""

from __future__ import annotations

import contextlib

from spanproof.graders.audit_pool import load_everything

with contextlib.suppress(Exception):
    load_everything()
