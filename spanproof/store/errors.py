"""Storage errors: each says what is wrong, where, and how to recover.

The CLI turns any ``StoreError`` into its message on stderr and exit status 2 ("could not
run"), never a traceback: a damaged or unreachable store is not a finding about the runs.
"""

from __future__ import annotations


class StoreError(Exception):
    """Base class: the storage layer could not do what was asked; ``str()`` says how to fix it."""

    exit_code = 2


class HomeError(StoreError):
    """The spanproof home cannot be used (a regular file, not writable, ...)."""


class StoreUnavailable(StoreError):
    """The database cannot be opened or reached (read-only, locked too long, server down)."""


class StoreCorrupt(StoreError):
    """The database file is damaged or is not a spanproof store."""


class RecordCorrupt(StoreError):
    """One stored record cannot be read back; the rest of the store is fine."""


class RunIdConflict(StoreError):
    """A new run was saved under an id another run already holds; nothing was overwritten."""


class RunNotFound(StoreError, KeyError):
    """No run has this id (or id prefix). A KeyError too, for callers that look ids up.
    Exit 2, as for any argument that names nothing: 1 is kept for a run found wanting (a
    recheck whose quote is gone), which a script must be able to tell from a typo."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""
