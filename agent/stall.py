"""The stall detector: no new span in the last N tool calls.

Deterministic and in code (docs/architecture.md): the runtime decides that the run has
stalled; only the interpretation of a stall (draft, or one different next
action) is left to the convergence check.
"""

from __future__ import annotations


class StallDetector:
    def __init__(self, window: int):
        self.window = window
        self.streak = 0  # tool calls (a parallel fetch counts once) since the last new span
        self._fetched = False

    @property
    def stalled(self) -> bool:
        return self.streak >= self.window

    def call(self, tool: str, produced_span: bool) -> None:
        """Count one call that was not a fetch batch (refused and invalid calls count too)."""
        if tool == "draft_answer":
            return
        if produced_span:
            self.streak = 0
        elif self._fetched:
            # Before any page is fetched there is nothing to quote; a stall counts from then.
            self.streak += 1

    def fetch_batch(self, any_fetched: bool) -> None:
        """A parallel batch is one move; the first successful batch only opens the count."""
        counting = self._fetched
        self._fetched = self._fetched or any_fetched
        if counting:
            self.streak += 1

    def interpreted(self) -> None:
        """The convergence check has read this stall; count afresh."""
        self.streak = 0
