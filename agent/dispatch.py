"""The one way a tool call runs, whichever policy makes it.

The model-led policy's tool calls, the extractive policy's searches, fetches,
quotes and drafts, and both policies' targeted rounds all go through
`Dispatcher.run`. For every call, in this order, it:

1. answers a call it cannot read (arguments that are not JSON, an unknown tool)
   with INVALID_ARGUMENTS and how to fix it;
2. checks the budgets (tool calls, then the tool's own budget, then the drafting
   phase, in which only draft_answer runs) and refuses with BUDGET_EXCEEDED;
3. validates the arguments against the tool's schema (the pydantic models in
   `agent.tool_schema`; for draft_answer, `record.Draft` against this run's span
   ids) and refuses with the schema's own words;
4. runs the tool and traces the call, its result or refusal, and the egress it
   caused.

A refusal is never a crash: it is traced and answered with the ToolError's JSON,
so the caller (a model or a policy) can act on it. Calls after the accepted
draft do not run: a run drafts exactly once.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ValidationError
from spanproof.agent.chat import ToolCall
from spanproof.agent.convergence import Attempt, content_words
from spanproof.agent.record import Draft, RunRecord, TraceEntry

from spanproof.core.evidence import SearchHit
from spanproof.core.tool_schema import (
    READ_TOOL_ARGS,
    FetchPageArgs,
    FetchPageResult,
    ToolError,
    ToolFailure,
    validation_text,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from spanproof.agent.budget import BudgetMeter
    from spanproof.agent.stall import StallDetector
    from spanproof.agent.tools import Toolbox
    from spanproof.agent.trace import RunTrace

Origin = Literal["model", "policy"]


class RunState(Protocol):
    """What the dispatcher reads and changes of a run: the runtime provides it. Declared here
    so that the dispatcher does not import the runtime that holds it."""

    tb: Toolbox
    meter: BudgetMeter
    stall: StallDetector
    trace: RunTrace
    record: RunRecord
    progress: Callable[[str], None]
    queries: list[str]
    hits: list[tuple[str, SearchHit]]
    attempts: list[Attempt]
    refused_urls: set[str]

    @property
    def drafted(self) -> bool: ...

    def sync(self) -> None: ...

    def accept_draft(self, draft: Draft, origin: Origin | Literal["runtime_fallback"]) -> None: ...


TOOL_NAMES = (*READ_TOOL_ARGS, "draft_answer")
# The budget each read tool spends besides a tool call (extract_quote's spans are counted
# by the toolbox, which refuses the span beyond its cap with SPAN_BUDGET_EXCEEDED).
OWN_BUDGET = {"web_search": "searches", "fetch_page": "fetches", "extract_quote": None}
NEAR_DUPLICATE = 0.8  # Jaccard of content words between consecutive queries
AFTER_THE_DRAFT = json.dumps({"ignored": "the draft was already accepted"})


@dataclass
class Call:
    """One tool call as a policy asks for it."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    call_id: str | None = None
    unreadable: str | None = None  # why the model's arguments could not be read as JSON

    @classmethod
    def from_model(cls, call: ToolCall) -> Call:
        if call.arguments_error:
            return cls(call.name, {}, call.id, call.arguments_error)
        return cls(call.name, call.arguments, call.id)


@dataclass
class ToolOutcome:
    """One tool call's result: what the caller is told and what the trace records."""

    tool: str
    call_id: str | None
    result: Any = None
    error: ToolError | None = None
    text: str = ""  # what the model is told
    entry: TraceEntry | None = None  # None when the call did not run (after the draft)

    @property
    def ok(self) -> bool:
        return self.error is None and self.entry is not None


def _err(code: str, message: str, retryable: bool = False) -> ToolError:
    return ToolError(error=code, message=message, retryable=retryable)


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


class Dispatcher:
    """The tools of one run behind its budgets, schemas and trace."""

    def __init__(self, rt: RunState):
        self.rt = rt
        self._batches = 0

    async def run(self, calls: list[Call], *, origin: Origin) -> list[ToolOutcome]:
        """Run one turn's calls in order; one outcome per call.

        Every fetch_page of the turn runs concurrently, at the place of the first; the
        previews of a parallel fetch reach the model together, in that call's result.
        `origin` says who drafts: a policy's own draft_answer costs no tool call.
        """
        outcomes: list[ToolOutcome | None] = [None] * len(calls)
        fetches = [i for i, c in enumerate(calls) if c.name == "fetch_page" and not c.unreadable]
        fetched = False
        for i, call in enumerate(calls):
            if self.rt.drafted:
                outcomes[i] = ToolOutcome(call.name, call.call_id, text=AFTER_THE_DRAFT)
            elif i in fetches:
                if not fetched:
                    fetched = True
                    batch = await self._fetch_batch([calls[j] for j in fetches])
                    for j, outcome in zip(fetches, batch, strict=True):
                        outcomes[j] = outcome
            else:
                outcomes[i] = await self._one(call, origin)
        return [o for o in outcomes if o is not None]

    async def call(self, name: str, arguments: dict[str, Any], *, origin: Origin) -> ToolOutcome:
        return (await self.run([Call(name, arguments)], origin=origin))[0]

    # -- the checks, in order ------------------------------------------------------------

    async def _one(self, call: Call, origin: Origin) -> ToolOutcome:
        # Offline, a tool answers without suspending: yield to the event loop once a call, so
        # a signal or a deadline stops a run between two calls.
        await asyncio.sleep(0)
        if call.unreadable:
            return self._invalid(call, call.unreadable)
        if call.name not in TOOL_NAMES:
            return self._invalid(
                call,
                f"unknown tool {call.name!r}; the tools are {', '.join(TOOL_NAMES)}",
            )
        if call.name == "draft_answer":
            return self._draft(call, origin)
        admitted = self._admit(call)
        if isinstance(admitted, ToolOutcome):
            return admitted
        if call.name == "web_search":
            return await self._search(call, admitted)
        return self._quote(call, admitted)

    def _admit(self, call: Call) -> BaseModel | ToolOutcome:
        """A read tool's budget checks and schema: its parsed arguments, or the refusal."""
        meter = self.rt.meter
        if meter.remaining()["tool_calls"] <= 0:
            return self._refuse_budget(call, "tool_calls")
        own = OWN_BUDGET[call.name]
        if own and meter.remaining()[own] <= 0:
            return self._refuse_budget(call, own)
        if meter.draft_only:
            meter.spend("tool_calls")
            error = _err(
                "BUDGET_EXCEEDED",
                "Only draft_answer is available now: draft with the spans you have.",
            )
            return self._refused(
                call, error, "refused: drafting phase", flags=["refused_in_draft_phase"]
            )
        try:
            parsed = READ_TOOL_ARGS[call.name].model_validate(call.arguments)
        except ValidationError as exc:
            return self._invalid(call, validation_text(exc))
        meter.spend("tool_calls")
        if own:
            meter.spend(own)
        return parsed

    def _refused(self, call: Call, error: ToolError, summary: str, **extra) -> ToolOutcome:
        """A call that did not run: traced with its error, answered with the error's JSON."""
        entry = self.rt.trace.add(
            kind="tool",
            tool=call.name,
            call_id=call.call_id,
            arguments=call.arguments,
            ok=False,
            error=error,
            result_summary=summary,
            budget_after=self.rt.meter.remaining(),
            **extra,
        )
        return ToolOutcome(
            call.name, call.call_id, error=error, text=error.model_dump_json(), entry=entry
        )

    def _refuse_budget(self, call: Call, name: str) -> ToolOutcome:
        self.rt.meter.spend("tool_calls")
        self.rt.meter.exceed(name)
        error = _err(
            "BUDGET_EXCEEDED",
            f"The {name} budget is spent. The run is now drafting: call draft_answer with the "
            "spans you have and mark what you could not source.",
        )
        outcome = self._refused(
            call, error, f"refused: {name} budget spent", flags=[f"budget_exceeded:{name}"]
        )
        self.rt.stall.call(call.name, False)
        return outcome

    def _invalid(self, call: Call, detail: str) -> ToolOutcome:
        self.rt.meter.spend("tool_calls")
        error = _err(
            "INVALID_ARGUMENTS",
            f"{call.name} arguments rejected: {detail}. Fix them and call again.",
            True,
        )
        outcome = self._refused(call, error, "invalid arguments")
        self.rt.stall.call(call.name, False)
        return outcome

    # -- the tools --------------------------------------------------------------------------

    async def _search(self, call: Call, parsed) -> ToolOutcome:
        rt = self.rt
        flags = []
        if (
            rt.queries
            and _jaccard(content_words(parsed.query), content_words(rt.queries[-1]))
            >= NEAR_DUPLICATE
        ):
            flags.append("near_duplicate_search")
        rt.queries.append(parsed.query)
        t0 = time.perf_counter()
        error = None
        hits: list[SearchHit] = []
        try:
            hits = (await rt.tb.web_search(parsed)).hits
        except ToolFailure as failure:
            error = failure.detail
        ms = (time.perf_counter() - t0) * 1000
        rt.hits.extend((parsed.query, h) for h in hits)
        rt.attempts.append(Attempt(tool="web_search", detail=parsed.query, ok=error is None))
        payload: dict[str, Any] = {
            "hits": [h.model_dump() for h in hits],
            "note": "Snippets are NOT evidence. Fetch a page and extract_quote before stating anything.",
        }
        if flags:
            payload["warning"] = (
                "This query is nearly identical to the previous one; change the terms, not the length."
            )
        summary = f"{len(hits)} hits" + (": " + ", ".join(h.url for h in hits) if hits else "")
        entry = rt.trace.add(
            kind="tool",
            tool="web_search",
            call_id=call.call_id,
            arguments=call.arguments,
            ok=error is None,
            error=error,
            result_summary=summary if error is None else error.error,
            ms=ms,
            egress=rt.trace.new_egress(),
            budget_after=rt.meter.remaining(),
            flags=flags,
            hit_urls=[h.url for h in hits],
        )
        rt.stall.call("web_search", False)
        rt.progress(f"search  {parsed.query!r}: {len(hits)} hits")
        rt.sync()
        text = json.dumps(payload, ensure_ascii=False) if error is None else error.model_dump_json()
        return ToolOutcome(
            "web_search", call.call_id, result=hits, error=error, text=text, entry=entry
        )

    async def _fetch_batch(self, calls: list[Call]) -> list[ToolOutcome]:
        """Fetch concurrently; one outcome per call, in order, sharing a batch number."""
        rt = self.rt
        self._batches += 1
        batch = self._batches if len(calls) > 1 else None
        outcomes: list[ToolOutcome | None] = [None] * len(calls)
        todo: list[tuple[int, Call, FetchPageArgs]] = []
        for i, call in enumerate(calls):
            admitted = self._admit(call)
            if isinstance(admitted, ToolOutcome):
                outcomes[i] = admitted
            elif isinstance(admitted, FetchPageArgs):
                todo.append((i, call, admitted))
            else:  # _admit parses a fetch_page call's arguments as FetchPageArgs, always
                raise TypeError(f"fetch_page arguments parsed as {type(admitted).__name__}")
        if todo:
            t0 = time.perf_counter()
            results = await rt.tb.fetch_pages([parsed for _, _, parsed in todo])
            ms = (time.perf_counter() - t0) * 1000
            events = rt.trace.new_egress()
            for n, ((i, call, parsed), res) in enumerate(zip(todo, results, strict=True)):
                outcomes[i] = self._fetched(call, parsed, res, batch, ms, events if n == 0 else [])
            rt.stall.fetch_batch(any(isinstance(r, FetchPageResult) for r in results))
        rt.sync()
        done = [o for o in outcomes if o is not None]
        if len(done) > 1:
            # All previews of a parallel fetch arrive together, in the first call's result.
            combined = [
                {"url": c.arguments.get("url"), **json.loads(o.text)}
                for c, o in zip(calls, done, strict=True)
            ]
            done[0].text = json.dumps({"parallel_fetch": combined}, ensure_ascii=False)
            for o in done[1:]:
                o.text = json.dumps({"see": f"combined result of call {calls[0].call_id}"})
        return done

    def _fetched(
        self, call: Call, parsed: FetchPageArgs, res: FetchPageResult | ToolError,
        batch: int | None, ms: float, egress: list,
    ) -> ToolOutcome:  # fmt: skip
        rt = self.rt
        if isinstance(res, FetchPageResult):
            error = None
            summary = f"{res.doc_id} {res.title[:80]!r} ({len(res.preview)} chars preview{', truncated' if res.truncated else ''})"
        else:
            error = res
            summary = f"{error.error}: {parsed.url}"
        entry = rt.trace.add(
            kind="tool",
            tool="fetch_page",
            call_id=call.call_id,
            batch=batch,
            arguments=call.arguments,
            ok=error is None,
            error=error,
            result_summary=summary,
            ms=ms,
            egress=egress,
            budget_after=rt.meter.remaining(),
            flags=["duplicate_fetch"] if error is not None and error.error == "DUPLICATE_FETCH" else [],
        )  # fmt: skip
        rt.attempts.append(Attempt(tool="fetch_page", detail=parsed.url, ok=error is None))
        if error is not None and not error.retryable:
            rt.refused_urls.add(parsed.url)
        rt.progress(f"fetch   {parsed.url}: {'ok' if error is None else error.error}")
        return ToolOutcome(
            "fetch_page",
            call.call_id,
            result=res if error is None else None,
            error=error,
            text=res.model_dump_json(),
            entry=entry,
        )

    def _quote(self, call: Call, parsed) -> ToolOutcome:
        rt = self.rt
        before = set(rt.tb.spans)
        t0 = time.perf_counter()
        error = None
        result = None
        try:
            result = rt.tb.extract_quote(parsed)
        except ToolFailure as failure:
            error = failure.detail
        ms = (time.perf_counter() - t0) * 1000
        new = [s for s in rt.tb.spans if s not in before]
        if result is not None:
            span = rt.tb.spans[result.span_id]
            head = json.dumps({k: v for k, v in result.model_dump().items() if k != "text"})
            text = head + "\n" + rt.tb.render_span(span)
            summary = (
                f"{result.span_id} [{result.char_start}:{result.char_end}] {result.text[:80]!r}"
            )
        elif error is not None:  # the quote failed (one of the two is always set)
            text = error.model_dump_json()
            summary = error.error
        entry = rt.trace.add(
            kind="tool",
            tool="extract_quote",
            call_id=call.call_id,
            arguments=call.arguments,
            ok=error is None,
            error=error,
            result_summary=summary,
            ms=ms,
            new_span_ids=new,
            budget_after=rt.meter.remaining(),
        )
        rt.attempts.append(
            Attempt(
                tool="extract_quote", detail=parsed.doc_id, new_spans=len(new), ok=error is None
            )
        )
        rt.stall.call("extract_quote", bool(new))
        rt.sync()
        return ToolOutcome(
            "extract_quote", call.call_id, result=result, error=error, text=text, entry=entry
        )

    def _draft(self, call: Call, origin: Origin) -> ToolOutcome:
        """Validate a draft against this run's spans; an accepted draft is recorded once."""
        rt = self.rt
        if origin == "model":
            if rt.meter.remaining()["tool_calls"] <= 0:
                return self._refuse_budget(call, "tool_calls")
            rt.meter.spend("tool_calls")
        try:
            draft = Draft.model_validate(call.arguments, context={"run_span_ids": set(rt.tb.spans)})
        except ValidationError as exc:
            detail = validation_text(exc)
            error = _err(
                "INVALID_ARGUMENTS",
                f"draft_answer rejected by the schema: {detail}. Fix and call again.",
                True,
            )
            rt.record.rejected_drafts.append({"arguments": call.arguments, "error": detail})
            outcome = self._refused(call, error, "schema rejected the draft")
            rt.sync()
            return outcome
        rt.accept_draft(draft, origin)
        rec = rt.record
        rec.injection_observed = rec.injection_observed or draft.injection_observed
        rec.needs_human = rec.needs_human or draft.needs_human
        rec.needs_human_reason = rec.needs_human_reason or draft.needs_human_reason
        entry = rt.trace.add(
            kind="tool",
            tool="draft_answer",
            call_id=call.call_id,
            arguments=call.arguments,
            ok=True,
            result_summary=f"accepted: {len(draft.claims)} claim(s) ({origin})",
            budget_after=rt.meter.remaining(),
        )
        rt.sync()
        return ToolOutcome(
            "draft_answer",
            call.call_id,
            result=draft,
            text=json.dumps({"accepted": True}),
            entry=entry,
        )
