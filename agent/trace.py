"""The run's trace: numbered entries written into the record as things happen.

The gate's deterministic checks (forbidden actions, budget overruns, duplicate
fetches, overlapping searches) read this trace, never live objects, so every
contact with the web is attached to the entry of the call that made it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spanproof.agent.record import RunRecord, TraceEntry

from spanproof.core.evidence import EgressEvent

if TYPE_CHECKING:
    from spanproof.agent.tools import Toolbox


class RunTrace:
    def __init__(self, record: RunRecord, toolbox: Toolbox):
        self.record = record
        self._tb = toolbox
        self._step = 0
        self._events_seen = 0

    def add(self, **fields) -> TraceEntry:
        self._step += 1
        entry = TraceEntry(step=self._step, **fields)
        self.record.trace.append(entry)
        return entry

    def new_egress(self) -> list[EgressEvent]:
        """The egress events recorded since the last call to this (attempts and refusals)."""
        events = list(self._tb.events[self._events_seen :])
        self._events_seen = len(self._tb.events)
        return events
