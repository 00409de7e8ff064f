"""Tables a process loads once and keeps are set aside from the cyclic garbage collector.

The audit's tables (WordNet's concepts, pint's unit registry, the place and name lists) are
some hundred thousand objects that live as long as the process. Python's collector walks
every object it tracks on each full collection, and a process auditing pairs, whose caches
keep growing, makes one every few hundred pairs: each walked the tables again, a sizeable
share of the audit's CPU per pair that bought nothing (the tables are never garbage).
``gc.freeze`` moves every object alive at that moment to a generation the collector never
walks. In the audit workers' fork server it also keeps the collector from writing to the
tables' pages, which the workers then share with it instead of copying.

Only the first call freezes: a later one (a second verifier made in the same process) would
also freeze whatever short-lived objects and uncollected cycles are alive then, for good."""

from __future__ import annotations

import gc

_frozen = False


def freeze_loaded() -> None:
    """Freeze what is alive now, once per process (module doc)."""
    global _frozen
    if not _frozen:
        gc.freeze()
        _frozen = True
