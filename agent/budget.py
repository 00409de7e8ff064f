"""What a run has spent against its budgets, and whether it is now only drafting.

The prompt states the budgets too, but nothing depends on the model obeying:
the dispatcher asks this meter before every call, and once a budget is spent
(or the convergence check ended research) only draft_answer is available.
"""

from __future__ import annotations

from collections.abc import Callable

from spanproof.agent.record import Budgets

COUNTED = ("searches", "fetches", "tool_calls")


class BudgetMeter:
    """Counts searches, fetches, tool calls and tokens; spans are counted by the toolbox."""

    def __init__(self, budgets: Budgets, spans_made: Callable[[], int]):
        self.budgets = budgets
        self._spans_made = spans_made
        self.used = dict.fromkeys(COUNTED, 0)
        self.tokens_used = 0
        self.usd_used = 0.0
        self.exhausted: str | None = None  # "budget:<name>" once a call went beyond a budget
        self.draft_forced: str | None = None  # why the run moved to drafting early

    def remaining(self) -> dict[str, int]:
        b = self.budgets
        return {
            "searches": b.searches - self.used["searches"],
            "fetches": b.fetches - self.used["fetches"],
            "tool_calls": b.tool_calls - self.used["tool_calls"],
            "spans": b.spans - self._spans_made(),
            "tokens": b.tokens - self.tokens_used,
        }

    def spend(self, name: str) -> None:
        self.used[name] += 1

    def exceed(self, name: str) -> None:
        """A call went beyond the `name` budget: the run drafts from now on."""
        if self.exhausted is None:
            self.exhausted = f"budget:{name}"

    def add_tokens(self, n: int, usd: float = 0.0) -> bool:
        """Count a model turn's tokens and dollars; True when this turn spent the last of
        either budget (tokens, or ``cost_usd`` when one is set)."""
        self.tokens_used += n
        self.usd_used += max(0.0, usd)
        if self.exhausted is None:
            if self.tokens_exhausted:
                self.exhausted = "budget:tokens"
                return True
            if self.cost_exhausted:
                self.exhausted = "budget:cost"
                return True
        return False

    @property
    def tokens_exhausted(self) -> bool:
        return self.tokens_used >= self.budgets.tokens

    @property
    def cost_exhausted(self) -> bool:
        limit = self.budgets.cost_usd
        return limit is not None and self.usd_used >= limit

    @property
    def spend_exhausted(self) -> bool:
        """No more model calls: the token or the dollar budget is spent."""
        return self.tokens_exhausted or self.cost_exhausted

    @property
    def draft_only(self) -> bool:
        return (
            self.exhausted is not None
            or self.draft_forced is not None
            or self.remaining()["tool_calls"] <= self.budgets.draft_reserve
        )

    def line(self) -> str:
        """The remaining budget as the model is shown it after every call."""
        r = self.remaining()
        line = (
            f"[remaining budget] searches {r['searches']}/{self.budgets.searches}, "
            f"fetches {r['fetches']}/{self.budgets.fetches}, "
            f"tool calls {r['tool_calls']}/{self.budgets.tool_calls}, "
            f"spans {r['spans']}/{self.budgets.spans}, tokens {max(0, r['tokens'])}"
        )
        if self.budgets.cost_usd is not None:
            line += f", dollars {max(0.0, self.budgets.cost_usd - self.usd_used):.4f}"
        if self.draft_only:
            line += ". Only draft_answer is available now: call it with the spans you have."
        elif r["tool_calls"] <= self.budgets.draft_reserve + 1:
            line += ". Next call should be your last before draft_answer."
        return line
