"""One run's runtime: the state every policy acts through, and the record it keeps.

A policy (extractive or model-led) decides what to do next; the runtime holds
what the run has done so far and enforces what it may do: its tool calls go
through one dispatcher (`agent.dispatch`) behind the budget meter
(`agent.budget`), the stall detector (`agent.stall`) counts calls without a
new span, and every step is traced (`agent.trace`) and saved, so a run killed
midway leaves a readable record. Budgets, duplicate refusal, the stall
detector and the drafting phase live in code; the prompt states them too, but
nothing depends on the model obeying them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from spanproof.agent.budget import BudgetMeter
from spanproof.agent.chat import ChatModel, ModelTurn
from spanproof.agent.convergence import (
    Attempt,
    ConvergenceState,
    SpanBrief,
    answering,
    decompose_question,
    llm_decision,
    names_subject,
    overlap,
    question_subject,
    rules_decision,
)
from spanproof.agent.dispatch import Dispatcher, Origin
from spanproof.agent.record import (
    Budgets,
    ConvergenceDecision,
    DocumentRecord,
    Draft,
    RunRecord,
    TraceEntry,
)
from spanproof.agent.stall import StallDetector
from spanproof.agent.trace import RunTrace

from spanproof.core.evidence import SearchHit

if TYPE_CHECKING:
    from spanproof.agent.tools import Toolbox


class Runtime:
    """The run's tools behind its budgets, with a trace and an incremental record."""

    def __init__(
        self,
        toolbox: Toolbox,
        budgets: Budgets,
        record: RunRecord,
        store=None,
        progress: Callable[[str], None] | None = None,
    ):
        self.tb = toolbox
        self.budgets = budgets
        self.record = record
        self.store = store
        self.progress = progress or (lambda _msg: None)
        self.meter = BudgetMeter(budgets, lambda: len(toolbox.spans))
        self.stall = StallDetector(budgets.stall_window)
        self.trace = RunTrace(record, toolbox)
        self.tools = Dispatcher(self)
        self.queries: list[str] = []
        self.hits: list[tuple[str, SearchHit]] = []  # (query, hit), in order
        self.attempts: list[Attempt] = []
        # URLs whose fetch was refused for good (egress, redirect off the allowlist, not from
        # search, duplicate): no policy and no convergence suggestion may try them again.
        self.refused_urls: set[str] = set()
        self.subquestions: list[str] = []
        self.claim_subquestions: dict[int, int] = {}  # draft claim index -> sub-question index
        # the record field the round's draft goes in: "supplementary_draft" in the targeted round
        self.draft_slot: Literal["draft", "supplementary_draft"] = "draft"
        self.record.pid = os.getpid()

    def current_draft(self) -> Draft | None:
        """The draft of the round running now (the first, or the targeted round's)."""
        if self.draft_slot == "supplementary_draft":
            return self.record.supplementary_draft
        return self.record.draft

    @property
    def drafted(self) -> bool:
        return self.current_draft() is not None

    def ensure_subquestions(self) -> None:
        if not self.subquestions:
            self.subquestions = decompose_question(
                self.record.question, self.budgets.max_subquestions
            )

    def start_targeted_round(self) -> None:
        """One more bounded round after pruning: its draft is the supplementary one."""
        self.draft_slot = "supplementary_draft"
        self.meter.draft_forced = None

    # -- the record -----------------------------------------------------------------------

    def sync(self, *, save: bool = True) -> None:
        """Copy the toolbox's evidence into the record and save it (status stays interrupted).

        ``save=False`` only copies: for a step whose caller saves the record again before
        anything is awaited, so that write could never be the last one a stop leaves."""
        rec = self.record
        rec.subquestions = list(self.subquestions)
        rec.spans = list(self.tb.spans.values())
        rec.documents = [
            DocumentRecord(
                doc_id=d.doc_id,
                url=d.url,
                final_url=d.final_url,
                title=d.title,
                retrieved_at=d.retrieved_at,
                sha256=d.sha256,
            )
            for d in self.tb.documents.values()
        ]
        rec.egress = list(self.tb.events)
        if save and self.store is not None:
            self.store.save(rec)

    def note_model_turn(
        self,
        turn: ModelTurn,
        ms: float,
        role: str = "research",
        kind: str = "model",
        *,
        save: bool = True,
    ) -> TraceEntry:
        from spanproof.agent.prices import turn_usd

        config = self.record.config
        usd = turn_usd(config, config.prices, role, turn.model_id, turn.usage) or 0.0
        spent_last = self.meter.add_tokens(turn.usage.total, usd)
        exhausted = self.meter.exhausted  # set when this turn spent the last of a budget
        flags = (
            [f"budget_exceeded:{exhausted.split(':', 1)[1]}"] if spent_last and exhausted else []
        )
        if turn.usage.estimated:
            flags.append("usage_estimated")
        summary = f"{len(turn.tool_calls)} tool call(s)" + (
            f"; text: {turn.content[:160]!r}" if turn.content else ""
        )
        entry = self.trace.add(
            kind=kind,
            usage=turn.usage,
            model_id=turn.model_id,
            ms=ms,
            role=role,
            result_summary=summary,
            flags=flags,
        )
        self.record.model_ids.setdefault(role, turn.model_id)
        self.sync(save=save)
        return entry

    def accept_draft(self, draft: Draft, origin: Origin | Literal["runtime_fallback"]) -> None:
        """Record the run's one draft (or, in the targeted round, its supplementary one)."""
        if self.draft_slot == "supplementary_draft":
            self.record.supplementary_draft = draft
        else:
            self.record.draft = draft
            self.record.draft_origin = origin

    # -- convergence ------------------------------------------------------------------------

    def convergence_state(self) -> ConvergenceState:
        fetched = [d.final_url for d in self.tb.documents.values()] + [
            d.url for d in self.tb.documents.values()
        ]
        # Never suggest a URL of the run again: fetched, or refused for good.
        fetched += sorted(self.refused_urls)
        unfetched: dict[int, list[str]] = {}
        subject = question_subject(self.record.question)
        for query, hit in self.hits:
            if hit.url in fetched or not self.subquestions:
                continue
            # The snippet only chooses what to fetch; it is never evidence. A hit worth a
            # fetch names most of the question's subject (two of its words when it has two).
            if not names_subject(f"{hit.title} {hit.snippet}", subject):
                continue
            scores = [overlap(sq, query) for sq in self.subquestions]
            i = scores.index(max(scores))
            if hit.url not in unfetched.setdefault(i, []):
                unfetched[i].append(hit.url)
        return ConvergenceState(
            subquestions=self.subquestions,
            spans=[SpanBrief(span_id=s.span_id, head=s.text[:120]) for s in self.tb.spans.values()],
            attempts=self.attempts,
            remaining=self.meter.remaining(),
            reserve=self.budgets.draft_reserve,
            stalled=self.stall.stalled,
            fetched_urls=sorted(set(fetched)),
            unfetched_hits=unfetched,
            subject=sorted(question_subject(self.record.question)),
            answering=answering(
                self.subquestions, {s.span_id: s.text for s in self.tb.spans.values()}
            ),
        )

    async def converge(
        self, mode: str, model: ChatModel | None, trigger: str
    ) -> ConvergenceDecision:
        """Ask the convergence check (rules, or a small model held to them) whether to go on."""
        state = self.convergence_state()
        t0 = time.perf_counter()
        if mode == "llm" and model is not None:
            outcome = await llm_decision(model, state, trigger)
            decision = outcome.decision
            if outcome.turn is not None:
                self.note_model_turn(
                    outcome.turn,
                    (time.perf_counter() - t0) * 1000,
                    role="small",
                    kind="convergence",
                    save=False,  # saved with the decision below, nothing awaited between
                )
            if outcome.error:
                self.record.errors.append(f"convergence: {outcome.error}")
        else:
            decision = rules_decision(state, trigger)
        self.record.convergence.append(decision)
        self.trace.add(
            kind="stall" if trigger == "stall" else "convergence",
            ms=(time.perf_counter() - t0) * 1000,
            result_summary=f"{decision.decision} ({decision.source}): {decision.reason}"
            + (f"; next: {decision.next_action}" if decision.next_action else ""),
            budget_after=self.meter.remaining(),
        )
        if trigger == "stall":
            self.stall.interpreted()
        if decision.decision != "CONTINUE" and self.meter.draft_forced is None:
            self.meter.draft_forced = f"convergence:{decision.decision}"
        self.progress(f"converge {decision.decision}: {decision.reason}")
        self.sync()
        return decision
