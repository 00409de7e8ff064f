"""What a gate with models may spend, said before it spends it, and what it has spent so far.

The estimate is a ceiling from what bounds each call, priced by the gate's price table:

- each agent run (a golden question, a hostile page) makes at most its tool-call budget of
  model turns plus as many convergence checks, and reads and writes at most its token budget;
- each judged pair (calibration, reviewed, sensitivity originals and planted failures, every
  repeat) is one judge call of the judge's prompt, the claim and the span, and a verdict;
  the claims of the agent runs are judged too, at most the span budget of each run;
- each answer scored for usefulness is one call.

Verdicts already in the cache cost nothing, so a warm gate spends far less than this.
``spent_usd`` prices the tokens every model client of the process has counted, the figure
``--max-cost`` holds the whole gate to (``spanproof.wire.spend``).
"""

from __future__ import annotations

from importlib import resources

from pydantic import BaseModel
from spanproof.agent.prices import Prices, is_offline_model
from spanproof.agent.record import Budgets

from spanproof.gate.config import AGENT_CHECKS, GateConfig
from spanproof.wire.client import CHARS_PER_TOKEN

# A verdict's reply, in tokens (the judge asks for at most this many; they are usually fewer).
VERDICT_TOKENS = 200
# A rubric score's prompt and reply, in tokens (the answer, its claims and the rubric).
USEFULNESS_TOKENS = (3000, 200)


class SpendEstimate(BaseModel):
    """The most a gate's model calls may cost (module doc)."""

    agent_runs: int = 0
    agent_calls: int = 0
    agent_usd: float = 0.0
    judge_calls: int = 0
    judge_usd: float = 0.0
    usefulness_calls: int = 0
    usefulness_usd: float = 0.0

    @property
    def calls(self) -> int:
        return self.agent_calls + self.judge_calls + self.usefulness_calls

    @property
    def usd(self) -> float:
        return self.agent_usd + self.judge_usd + self.usefulness_usd

    def line(self, max_cost: float | None) -> str:
        parts = []
        if self.agent_calls:
            parts.append(f"{self.agent_runs} agent runs, up to {self.agent_calls} calls, "
                         f"${self.agent_usd:.2f}")  # fmt: skip
        if self.judge_calls:
            parts.append(f"up to {self.judge_calls} judge calls, ${self.judge_usd:.2f}")
        if self.usefulness_calls:
            parts.append(f"{self.usefulness_calls} usefulness scores, ${self.usefulness_usd:.2f}")
        cap = f"; --max-cost {max_cost:g} stops the gate there" if max_cost else (
            "; --max-cost USD bounds it")  # fmt: skip
        return (f"cost estimate: at most {self.calls} model calls, ${self.usd:.2f} by the price "
                f"table ({'; '.join(parts)}); cached verdicts cost nothing{cap}")  # fmt: skip


def _judge_prompt_tokens() -> int:
    text = resources.files("spanproof.graders").joinpath("prompts/verifier.txt").read_text()
    return len(text) // CHARS_PER_TOKEN


def estimate(
    cfg: GateConfig, *, questions: int, pages: int, pairs: list[tuple[str, str]]
) -> SpendEstimate:
    """The ceiling for ``cfg`` over ``questions`` golden questions, ``pages`` hostile pages and
    the judged ``pairs`` (claim, span) of the checks that judge sets."""
    prices, budgets, out = cfg.prices, Budgets(), SpendEstimate()
    checks = set(cfg.checks)
    runs = (questions if checks & {*AGENT_CHECKS, "usefulness"} else 0) + (
        pages if "injection" in checks else 0
    )
    if cfg.policy == "llm" and cfg.model and not is_offline_model(cfg.model):
        price = prices.price_for(cfg.model)
        out.agent_runs = runs
        out.agent_calls = runs * 2 * budgets.tool_calls
        # a run's token budget, all of it at the dearer rate (a run stops within one turn of it)
        dearer = max(price.input_per_mtok, price.output_per_mtok)
        out.agent_usd = runs * budgets.tokens * dearer / 1e6
    if not is_offline_model(cfg.judge):
        price = prices.price_for(cfg.judge)
        prompt = _judge_prompt_tokens()
        claims = runs * budgets.spans
        out.judge_calls = len(pairs) * cfg.repeat + claims
        tokens_in = sum(prompt + (len(c) + len(s)) // CHARS_PER_TOKEN for c, s in pairs)
        longest = max(((len(c) + len(s)) // CHARS_PER_TOKEN for c, s in pairs), default=300)
        tokens_in = tokens_in * cfg.repeat + claims * (prompt + longest)
        out.judge_usd = price.usd(tokens_in, out.judge_calls * VERDICT_TOKENS)
    rubric = cfg.usefulness_model or cfg.model
    if rubric and "usefulness" in checks and not is_offline_model(rubric):
        out.usefulness_calls = questions
        out.usefulness_usd = questions * prices.price_for(rubric).usd(*USEFULNESS_TOKENS)
    return out


def spent_usd(prices: Prices) -> float:
    """Dollars for the tokens every model client of this process has counted so far."""
    from spanproof.wire import clients

    return sum(
        prices.price_for(c.model).usd(c.counters.prompt_tokens, c.counters.completion_tokens)
        for c in clients()
    )
