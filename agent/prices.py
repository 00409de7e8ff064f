"""The one price table, and the one function that turns a run's recorded usage into dollars.

The run record (`spanproof ask`), the gate's cost table and the weekly report all price runs
here, from the same `Prices` model: the gate config's ``prices`` table
(``[tool.spanproof.gate.prices]``) is what both ``spanproof gate`` and ``spanproof ask`` read.

What costs nothing is decided here too: calls to an offline model (``scripted:``) and
searches of the local corpus index. A nominal per-search price is a price for a paid search
API; charging it for a bm25 lookup in a local SQLite file would report money nobody spent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from spanproof.core.specs import SpecError, parse_spec

if TYPE_CHECKING:
    from spanproof.core.tool_schema import ToolError


class _ToolCall(Protocol):
    """A trace entry as read here (agent.record imports this module: no import back)."""

    @property
    def error(self) -> ToolError | None: ...


# Search backends that read local files: their searches cost nothing, whatever search_usd says.
# Names as recorded in RunConfig.web (the backend's class name), so stored runs price the same.
LOCAL_SEARCH_BACKENDS: frozenset[str] = frozenset({"LocalIndex", "StaticSearch"})


class _Strict(BaseModel):
    # A price written as a string or a misspelt key is refused, never silently defaulted.
    model_config = ConfigDict(extra="forbid", validate_assignment=True, strict=True)


class ModelPrice(_Strict):
    input_per_mtok: float = Field(ge=0, description="USD per million input (prompt) tokens")
    output_per_mtok: float = Field(ge=0, description="USD per million output (completion) tokens")

    def usd(self, prompt_tokens: int, completion_tokens: int) -> float:
        # Counts come from servers; a negative one (a record from before they were checked)
        # is no refund.
        return (
            max(0, prompt_tokens) * self.input_per_mtok
            + max(0, completion_tokens) * self.output_per_mtok
        ) / 1e6


class Prices(_Strict):
    """USD per million tokens by model, and per search of a paid search backend.

    A model is priced by the first of: its exact name in ``models`` (an ``openai:`` prefix is
    ignored), the longest key it starts with (``gpt-4o-mini-2024-07-18`` -> ``gpt-4o-mini``),
    else the price of its role: ``research`` for the agent loop, ``small`` for the
    convergence check. Defaults are illustrative prices for planning.
    """

    search_usd: float = Field(
        0.01,
        ge=0,
        description="USD per search of a live search API; local corpus searches are free",
    )
    research: ModelPrice = Field(
        default_factory=lambda: ModelPrice(input_per_mtok=3.0, output_per_mtok=15.0),
        description="price of an unlisted model running the agent loop",
    )
    small: ModelPrice = Field(
        default_factory=lambda: ModelPrice(input_per_mtok=0.30, output_per_mtok=1.50),
        description="price of an unlisted model doing the convergence check",
    )
    models: dict[str, ModelPrice] = Field(
        default_factory=lambda: {
            "gpt-4o": ModelPrice(input_per_mtok=3.0, output_per_mtok=15.0),
            "gpt-4o-mini": ModelPrice(input_per_mtok=0.30, output_per_mtok=1.50),
        }
    )

    def price_for(self, model: str, role: str | None = None) -> ModelPrice:
        name = model.split(":", 1)[1] if model.startswith("openai:") else model
        for key in (model, name):
            if key in self.models:
                return self.models[key]
        prefixes = [k for k in self.models if name.startswith(k)]
        if prefixes:
            return self.models[max(prefixes, key=len)]
        return self.small if role == "small" else self.research

    @classmethod
    def from_legacy(cls, value: Any) -> Any:
        """Read the per-role table older run records carry (research_in, ..., per_search)."""
        if not isinstance(value, dict) or "research_in" not in value:
            return value
        return cls(
            search_usd=float(value.get("per_search", 0.01)),
            research=ModelPrice(
                input_per_mtok=float(value.get("research_in", 3.0)),
                output_per_mtok=float(value.get("research_out", 15.0)),
            ),
            small=ModelPrice(
                input_per_mtok=float(value.get("small_in", 0.30)),
                output_per_mtok=float(value.get("small_out", 1.50)),
            ),
        )


class Cost(BaseModel):
    research_usd: float = 0.0
    small_usd: float = 0.0
    search_usd: float = 0.0
    total_usd: float = 0.0
    # Verifier model tokens are not reported by the verifier; its calls are counted instead.
    verifier_model_calls: int = 0
    # What cost nothing and why (local corpus searches, offline models), shown beside $0.
    free: str = ""
    note: str = ""


def is_offline_model(spec: str | None) -> bool:
    """True for a model that runs on this machine (``scripted:``): its calls cost nothing.

    A model object whose id is no spec at all is priced: an unknown is never assumed free."""
    if not spec:
        return True
    try:
        return parse_spec(spec).kind != "openai"
    except SpecError:
        return False


def _refused(entry: _ToolCall) -> bool:
    err = entry.error
    return err is not None and err.error in ("BUDGET_EXCEEDED", "INVALID_ARGUMENTS")


def turn_usd(
    config: Any, prices: Prices, role: str, model_id: str | None, usage: Any
) -> float | None:
    """Dollars for one model turn of a run (``role`` "small" for the convergence check, else
    research); None for a call to an offline model, which costs nothing."""
    spec = (config.convergence_model or config.model) if role == "small" else config.model
    if is_offline_model(spec):
        return None
    return prices.price_for(model_id or spec or "", role).usd(
        usage.prompt_tokens, usage.completion_tokens
    )


def price_run(record: Any, prices: Prices | None = None) -> Cost:
    """Dollars for one run record: every model call by its model and role, every executed
    search of a paid backend. The run record's metrics and the gate's cost table both come
    from here, so the same tokens are always the same dollars."""
    config = record.config
    prices = prices or config.prices
    research = small = 0.0
    offline_calls = 0
    estimated = 0
    for e in record.trace:
        if e.usage is None:
            continue
        role = "small" if e.role == "small" else "research"
        usd = turn_usd(config, prices, role, e.model_id, e.usage)
        if usd is None:
            offline_calls += 1
            continue
        estimated += e.usage.estimated
        if role == "small":
            small += usd
        else:
            research += usd
    searches = sum(
        1 for e in record.trace if e.kind == "tool" and e.tool == "web_search" and not _refused(e)
    )
    local_search = config.web in LOCAL_SEARCH_BACKENDS
    search = 0.0 if local_search else searches * prices.search_usd
    free = []
    if local_search and searches:
        free.append(f"{searches} search(es) of the local corpus cost $0")
    if offline_calls:
        free.append(f"{offline_calls} call(s) to an offline model cost $0")
    if not any(e.usage is not None for e in record.trace):
        if record.ended_by == "model_error" and not is_offline_model(config.model):
            free.append("no model reply arrived (the model call failed), so no tokens are priced")
        else:
            free.append("no model was called")
    verifier_calls = sum(
        int(e.arguments.get("verifier_model_calls", 0)) for e in record.trace if e.kind == "verify"
    )
    return Cost(
        research_usd=round(research, 6),
        small_usd=round(small, 6),
        search_usd=round(search, 6),
        total_usd=round(research + small + search, 6),
        verifier_model_calls=verifier_calls,
        free="; ".join(free),
        note="verifier token cost not included (the verifier reports calls, not tokens); "
        "offline judges cost nothing"
        + (
            f"; {estimated} model repl(ies) had unusable token counts from the server, "
            "estimated from the text length"
            if estimated
            else ""
        ),
    )


class RunCost(BaseModel):
    """One run's cost row (the gate's cost table, the weekly report)."""

    run_id: str
    question_id: str | None = None
    tokens: int
    searches: int
    cost_usd: float
    cost_free: str = ""  # why some of it cost nothing (local corpus, offline models)
    phase_s: float
    verify_share_of_time: float | None = None
    verifier_calls: int = 0


def run_cost(record: Any, prices: Prices | None = None, question_id: str | None = None) -> RunCost:
    """One run's cost: dollars from `price_run`, tokens, searches and wall time by phase."""
    m = record.metrics
    cost = price_run(record, prices)
    phases = dict(m.wall_ms_by_phase)
    wall_s = sum(phases.values()) / 1000
    return RunCost(
        run_id=record.run_id,
        question_id=question_id,
        tokens=sum(u.prompt_tokens + u.completion_tokens for u in m.tokens_by_model.values()),
        searches=m.searches,
        cost_usd=cost.total_usd,
        cost_free=cost.free,
        phase_s=round(wall_s, 3),
        verify_share_of_time=round(phases.get("verify", 0) / 1000 / wall_s, 3) if wall_s else None,
        verifier_calls=m.cost.verifier_model_calls,
    )
