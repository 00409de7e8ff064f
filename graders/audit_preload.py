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
import signal

# Ctrl-C is the parent's to handle (it stops the pool and ends this server): here it would
# stop the imports below with a traceback on the user's terminal. Set before them, and before
# CPython's fork server sets the same after its preload.
signal.signal(signal.SIGINT, signal.SIG_IGN)

from spanproof.graders.audit_pool import load_everything  # noqa: E402 - after the signal

with contextlib.suppress(Exception):
    load_everything()
