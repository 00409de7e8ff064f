"""The budgeted research loop: the runtime every policy acts through, and the model-led policy.

Budgets, duplicate refusal, the stall detector and the draft-only phase live
here, in code. The prompt states them too, but nothing depends on the model
obeying: a call beyond a budget is refused and the run moves to drafting.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from string import Template
from typing import Any

from pydantic import ValidationError
from spanproof.agent.chat import (
    ChatModel,
    ChatModelError,
    Message,
    ModelTurn,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from spanproof.agent.convergence import (
    Attempt,
    ConvergenceState,
    SpanBrief,
    answering,
    content_words,
    decompose_question,
    llm_decision,
    names_subject,
    overlap,
    question_subject,
    rules_decision,
    subquestions_from_text,
)
from spanproof.agent.evidence import SearchHit
from spanproof.agent.record import (
    Budgets,
    ConvergenceDecision,
    DocumentRecord,
    Draft,
    DraftClaim,
    RunRecord,
    TraceEntry,
    load_prompt,
)
from spanproof.agent.tool_schema import (
    ExtractQuoteArgs,
    FetchPageArgs,
    FetchPageResult,
    ToolError,
    ToolFailure,
    WebSearchArgs,
    validation_text,
)

from spanproof.sentences import first_sentence

READ_TOOLS = ("web_search", "fetch_page", "extract_quote")
NEAR_DUPLICATE = 0.8  # Jaccard of content words between consecutive queries


def _err(code: str, message: str, retryable: bool = False) -> ToolError:
    return ToolError(error=code, message=message, retryable=retryable)  # type: ignore[arg-type]


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


class ToolOutcome:
    """One tool call's result: what the model is told and what the trace records."""

    def __init__(
        self,
        tool: str,
        call_id: str | None,
        *,
        result: Any = None,
        error: ToolError | None = None,
        text: str = "",
        entry: TraceEntry,
    ):
        self.tool = tool
        self.call_id = call_id
        self.result = result
        self.error = error
        self.text = text
        self.entry = entry

    @property
    def ok(self) -> bool:
        return self.error is None


class Runtime:
    """The run's tools behind its budgets, with a trace and an incremental record."""

    def __init__(
        self,
        toolbox,
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
        self.used = {"searches": 0, "fetches": 0, "tool_calls": 0}
        self.tokens_used = 0
        self.exhausted: str | None = None  # "budget:<name>" once a call went beyond a budget
        self.draft_forced: str | None = None  # why the run moved to drafting early
        self._step = 0
        self._batch = 0
        self._events_seen = 0
        self.queries: list[str] = []
        self.hits: list[tuple[str, SearchHit]] = []  # (query, hit), in order
        self.attempts: list[Attempt] = []
        # URLs whose fetch was refused for good (egress, redirect off the allowlist, not from
        # search, duplicate): no policy and no convergence suggestion may try them again.
        self.refused_urls: set[str] = set()
        self._seen_fetch_ok = False
        self.no_span_streak = 0
        self.subquestions: list[str] = []
        self.claim_subquestions: dict[int, int] = {}  # draft claim index -> sub-question index
        self.draft_slot = "draft"  # "supplementary_draft" during the targeted round
        self.record.pid = os.getpid()

    # -- budget -------------------------------------------------------------------------

    def remaining(self) -> dict[str, int]:
        b = self.budgets
        return {
            "searches": b.searches - self.used["searches"],
            "fetches": b.fetches - self.used["fetches"],
            "tool_calls": b.tool_calls - self.used["tool_calls"],
            "spans": b.spans - len(self.tb.spans),
            "tokens": b.tokens - self.tokens_used,
        }

    def budget_line(self) -> str:
        r = self.remaining()
        line = (
            f"[remaining budget] searches {r['searches']}/{self.budgets.searches}, "
            f"fetches {r['fetches']}/{self.budgets.fetches}, "
            f"tool calls {r['tool_calls']}/{self.budgets.tool_calls}, "
            f"spans {r['spans']}/{self.budgets.spans}, tokens {max(0, r['tokens'])}"
        )
        if self.draft_only:
            line += ". Only draft_answer is available now: call it with the spans you have."
        elif r["tool_calls"] <= self.budgets.draft_reserve + 1:
            line += ". Next call should be your last before draft_answer."
        return line

    @property
    def draft_only(self) -> bool:
        return (
            self.exhausted is not None
            or self.draft_forced is not None
            or self.remaining()["tool_calls"] <= self.budgets.draft_reserve
        )

    @property
    def drafted(self) -> bool:
        return getattr(self.record, self.draft_slot) is not None

    @property
    def tokens_exhausted(self) -> bool:
        return self.tokens_used >= self.budgets.tokens

    @property
    def stalled(self) -> bool:
        return self.no_span_streak >= self.budgets.stall_window

    # -- trace ----------------------------------------------------------------------------

    def _entry(self, **kw) -> TraceEntry:
        self._step += 1
        entry = TraceEntry(step=self._step, **kw)
        self.record.trace.append(entry)
        return entry

    def note_model_turn(
        self, turn: ModelTurn, ms: float, role: str = "research", kind: str = "model"
    ) -> TraceEntry:
        self.tokens_used += turn.usage.total
        summary = f"{len(turn.tool_calls)} tool call(s)" + (
            f"; text: {turn.content[:160]!r}" if turn.content else ""
        )
        entry = self._entry(
            kind=kind,
            usage=turn.usage,
            model_id=turn.model_id,
            ms=ms,
            role=role,
            result_summary=summary,
        )
        self.record.model_ids.setdefault(role, turn.model_id)
        if self.tokens_exhausted and self.exhausted is None:
            self.exhausted = "budget:tokens"
            entry.flags.append("budget_exceeded:tokens")
        self.sync()
        return entry

    def sync(self) -> None:
        """Copy the toolbox's evidence into the record and save it (status stays interrupted)."""
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
        if self.store is not None:
            self.store.save(rec)

    def _new_events(self):
        events = list(self.tb.events[self._events_seen :])
        self._events_seen = len(self.tb.events)
        return events

    def _count_call(self, tool: str, produced_span: bool) -> None:
        if tool == "draft_answer":
            return
        if produced_span:
            self.no_span_streak = 0
        elif self._seen_fetch_ok:
            # Before any page is fetched there is nothing to quote; a stall counts from then.
            self.no_span_streak += 1

    def _refused(
        self, tool: str, call_id: str | None, args: dict, error: ToolError, summary: str, **extra
    ) -> ToolOutcome:
        """A call that did not run: traced with its error, answered with the error's JSON."""
        entry = self._entry(
            kind="tool",
            tool=tool,
            call_id=call_id,
            arguments=args,
            ok=False,
            error=error,
            result_summary=summary,
            budget_after=self.remaining(),
            **extra,
        )
        return ToolOutcome(tool, call_id, error=error, text=error.model_dump_json(), entry=entry)

    def _refuse_budget(self, tool: str, call_id: str | None, args: dict, name: str) -> ToolOutcome:
        self.used["tool_calls"] += 1
        if self.exhausted is None:
            self.exhausted = f"budget:{name}"
        error = _err(
            "BUDGET_EXCEEDED",
            f"The {name} budget is spent. The run is now drafting: call draft_answer with the "
            "spans you have and mark what you could not source.",
        )
        outcome = self._refused(
            tool,
            call_id,
            args,
            error,
            f"refused: {name} budget spent",
            flags=[f"budget_exceeded:{name}"],
        )
        self._count_call(tool, False)
        return outcome

    def _check(
        self, tool: str, call_id: str | None, args: dict, counter: str | None
    ) -> ToolOutcome | None:
        if self.remaining()["tool_calls"] <= 0:
            return self._refuse_budget(tool, call_id, args, "tool_calls")
        if counter and self.remaining()[counter] <= 0:
            return self._refuse_budget(tool, call_id, args, counter)
        if tool in READ_TOOLS and self.draft_only:
            self.used["tool_calls"] += 1
            error = _err(
                "BUDGET_EXCEEDED",
                "Only draft_answer is available now: draft with the spans you have.",
            )
            return self._refused(
                tool,
                call_id,
                args,
                error,
                "refused: drafting phase",
                flags=["refused_in_draft_phase"],
            )
        return None

    def _invalid(
        self, tool: str, call_id: str | None, args: dict, exc: Exception | str
    ) -> ToolOutcome:
        self.used["tool_calls"] += 1
        detail = exc if isinstance(exc, str) else validation_text(exc)  # type: ignore[arg-type]
        error = _err(
            "INVALID_ARGUMENTS",
            f"{tool} arguments rejected: {detail}. Fix them and call again.",
            True,
        )
        outcome = self._refused(tool, call_id, args, error, "invalid arguments")
        self._count_call(tool, False)
        return outcome

    # -- tools ------------------------------------------------------------------------------

    async def web_search(self, args: dict, call_id: str | None = None) -> ToolOutcome:
        refused = self._check("web_search", call_id, args, "searches")
        if refused:
            return refused
        try:
            parsed = WebSearchArgs.model_validate(args)
        except ValidationError as exc:
            return self._invalid("web_search", call_id, args, exc)
        self.used["tool_calls"] += 1
        self.used["searches"] += 1
        flags = []
        if (
            self.queries
            and _jaccard(content_words(parsed.query), content_words(self.queries[-1]))
            >= NEAR_DUPLICATE
        ):
            flags.append("near_duplicate_search")
        self.queries.append(parsed.query)
        t0 = time.perf_counter()
        error = None
        hits: list[SearchHit] = []
        try:
            result = await self.tb.web_search(parsed)
            hits = result.hits
        except ToolFailure as failure:
            error = failure.detail
        ms = (time.perf_counter() - t0) * 1000
        self.hits.extend((parsed.query, h) for h in hits)
        self.attempts.append(Attempt(tool="web_search", detail=parsed.query, ok=error is None))
        payload: dict[str, Any] = {
            "hits": [h.model_dump() for h in hits],
            "note": "Snippets are NOT evidence. Fetch a page and extract_quote before stating anything.",
        }
        if flags:
            payload["warning"] = (
                "This query is nearly identical to the previous one; change the terms, not the length."
            )
        summary = f"{len(hits)} hits" + (": " + ", ".join(h.url for h in hits) if hits else "")
        entry = self._entry(
            kind="tool",
            tool="web_search",
            call_id=call_id,
            arguments=args,
            ok=error is None,
            error=error,
            result_summary=summary if error is None else error.error,
            ms=ms,
            egress=self._new_events(),
            budget_after=self.remaining(),
            flags=flags,
            hit_urls=[h.url for h in hits],
        )
        self._count_call("web_search", False)
        self.progress(f"search  {parsed.query!r}: {len(hits)} hits")
        self.sync()
        text = json.dumps(payload, ensure_ascii=False) if error is None else error.model_dump_json()
        return ToolOutcome("web_search", call_id, result=hits, error=error, text=text, entry=entry)

    async def fetch_pages(self, calls: list[tuple[str | None, dict]]) -> list[ToolOutcome]:
        """Fetch concurrently; one outcome per call, in order, sharing a batch number."""
        self._batch += 1
        batch = self._batch if len(calls) > 1 else None
        outcomes: list[ToolOutcome | None] = [None] * len(calls)
        todo: list[tuple[int, str | None, dict, FetchPageArgs]] = []
        for i, (call_id, args) in enumerate(calls):
            refused = self._check("fetch_page", call_id, args, "fetches")
            if refused:
                outcomes[i] = refused
                continue
            try:
                parsed = FetchPageArgs.model_validate(args)
            except ValidationError as exc:
                outcomes[i] = self._invalid("fetch_page", call_id, args, exc)
                continue
            self.used["tool_calls"] += 1
            self.used["fetches"] += 1
            todo.append((i, call_id, args, parsed))
        if todo:
            t0 = time.perf_counter()
            results = await self.tb.fetch_pages([t[3] for t in todo])
            ms = (time.perf_counter() - t0) * 1000
            events = self._new_events()
            for n, ((i, call_id, args, parsed), res) in enumerate(zip(todo, results, strict=True)):
                ok = isinstance(res, FetchPageResult)
                error = None if ok else res
                if ok:
                    summary = f"{res.doc_id} {res.title[:80]!r} ({len(res.preview)} chars preview{', truncated' if res.truncated else ''})"
                else:
                    summary = f"{error.error}: {parsed.url}"
                entry = self._entry(
                    kind="tool",
                    tool="fetch_page",
                    call_id=call_id,
                    batch=batch,
                    arguments=args,
                    ok=ok,
                    error=error,
                    result_summary=summary,
                    ms=ms,
                    egress=events if n == 0 else [],
                    budget_after=self.remaining(),
                    flags=["duplicate_fetch"]
                    if error is not None and error.error == "DUPLICATE_FETCH"
                    else [],
                )
                self.attempts.append(Attempt(tool="fetch_page", detail=parsed.url, ok=ok))
                if error is not None and not error.retryable:
                    self.refused_urls.add(parsed.url)
                text = res.model_dump_json() if ok else error.model_dump_json()
                outcomes[i] = ToolOutcome(
                    "fetch_page",
                    call_id,
                    result=res if ok else None,
                    error=error,
                    text=text,
                    entry=entry,
                )
                self.progress(f"fetch   {parsed.url}: {'ok' if ok else error.error}")
            # A parallel batch is one move for the stall detector; the first successful
            # batch only opens the count (before it there was nothing to quote).
            seen_before = self._seen_fetch_ok
            self._seen_fetch_ok = self._seen_fetch_ok or any(
                isinstance(r, FetchPageResult) for r in results
            )
            if seen_before:
                self.no_span_streak += 1
        self.sync()
        return [o for o in outcomes if o is not None]

    async def fetch_page(self, args: dict, call_id: str | None = None) -> ToolOutcome:
        return (await self.fetch_pages([(call_id, args)]))[0]

    def extract_quote(self, args: dict, call_id: str | None = None) -> ToolOutcome:
        refused = self._check("extract_quote", call_id, args, None)
        if refused:
            return refused
        try:
            parsed = ExtractQuoteArgs.model_validate(args)
        except ValidationError as exc:
            return self._invalid("extract_quote", call_id, args, exc)
        self.used["tool_calls"] += 1
        before = set(self.tb.spans)
        t0 = time.perf_counter()
        error = None
        result = None
        try:
            result = self.tb.extract_quote(parsed)
        except ToolFailure as failure:
            error = failure.detail
        ms = (time.perf_counter() - t0) * 1000
        new = [s for s in self.tb.spans if s not in before]
        if error is None:
            span = self.tb.spans[result.span_id]
            head = json.dumps({k: v for k, v in result.model_dump().items() if k != "text"})
            text = head + "\n" + self.tb.render_span(span)
            summary = (
                f"{result.span_id} [{result.char_start}:{result.char_end}] {result.text[:80]!r}"
            )
        else:
            text = error.model_dump_json()
            summary = error.error
        entry = self._entry(
            kind="tool",
            tool="extract_quote",
            call_id=call_id,
            arguments=args,
            ok=error is None,
            error=error,
            result_summary=summary,
            ms=ms,
            new_span_ids=new,
            budget_after=self.remaining(),
        )
        self.attempts.append(
            Attempt(
                tool="extract_quote", detail=parsed.doc_id, new_spans=len(new), ok=error is None
            )
        )
        self._count_call("extract_quote", bool(new))
        self.sync()
        return ToolOutcome(
            "extract_quote", call_id, result=result, error=error, text=text, entry=entry
        )

    def submit_draft(
        self, args: dict, call_id: str | None = None, origin: str = "model"
    ) -> ToolOutcome:
        """Validate a draft against this run's spans; an accepted draft is recorded once."""
        if self.drafted:
            error = _err(
                "INVALID_ARGUMENTS", "draft_answer was already accepted; a run drafts exactly once."
            )
            return self._refused("draft_answer", call_id, args, error, "refused: already drafted")
        if origin == "model" and self.remaining()["tool_calls"] <= 0:
            return self._refuse_budget("draft_answer", call_id, args, "tool_calls")
        if origin == "model":
            self.used["tool_calls"] += 1
        try:
            draft = Draft.model_validate(args, context={"run_span_ids": set(self.tb.spans)})
        except ValidationError as exc:
            detail = validation_text(exc)
            error = _err(
                "INVALID_ARGUMENTS",
                f"draft_answer rejected by the schema: {detail}. Fix and call again.",
                True,
            )
            self.record.rejected_drafts.append({"arguments": args, "error": detail})
            outcome = self._refused(
                "draft_answer", call_id, args, error, "schema rejected the draft"
            )
            self.sync()
            return outcome
        setattr(self.record, self.draft_slot, draft)
        if self.draft_slot == "draft":
            self.record.draft_origin = origin  # type: ignore[assignment]
        self.record.injection_observed = self.record.injection_observed or draft.injection_observed
        self.record.needs_human = self.record.needs_human or draft.needs_human
        self.record.needs_human_reason = self.record.needs_human_reason or draft.needs_human_reason
        entry = self._entry(
            kind="tool",
            tool="draft_answer",
            call_id=call_id,
            arguments=args,
            ok=True,
            result_summary=f"accepted: {len(draft.claims)} claim(s) ({origin})",
            budget_after=self.remaining(),
        )
        self.sync()
        return ToolOutcome(
            "draft_answer", call_id, result=draft, text=json.dumps({"accepted": True}), entry=entry
        )

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
            remaining=self.remaining(),
            reserve=self.budgets.draft_reserve,
            stalled=self.stalled,
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
                )
            if outcome.error:
                self.record.errors.append(f"convergence: {outcome.error}")
        else:
            decision = rules_decision(state, trigger)
        self.record.convergence.append(decision)
        self._entry(
            kind="stall" if trigger == "stall" else "convergence",
            ms=(time.perf_counter() - t0) * 1000,
            result_summary=f"{decision.decision} ({decision.source}): {decision.reason}"
            + (f"; next: {decision.next_action}" if decision.next_action else ""),
            budget_after=self.remaining(),
        )
        if trigger == "stall":
            self.no_span_streak = 0  # the stall has been interpreted; count afresh
        if decision.decision != "CONTINUE" and self.draft_forced is None:
            self.draft_forced = f"convergence:{decision.decision}"
        self.progress(f"converge {decision.decision}: {decision.reason}")
        self.sync()
        return decision

    # -- fallback ---------------------------------------------------------------------------

    def fallback_draft(self, why: str) -> Draft:
        """The runtime's own draft when the policy submitted none: each span restated, unchanged.

        Claims are the spans' first sentences, so they are as narrow as the evidence; they
        still go through verification like any other draft.
        """
        claims = []
        for span in self.tb.spans.values():
            if span.purpose != "support_claim":
                continue
            sentence = first_sentence(span.text)
            if sentence:
                claims.append(DraftClaim(text=sentence, span_ids=[span.span_id], confidence=0.3))
        draft = Draft(claims=claims, summary="", needs_human=False)
        setattr(self.record, self.draft_slot, draft)
        if self.draft_slot == "draft":
            self.record.draft_origin = "runtime_fallback"
        self.record.errors.append(
            f"no draft from the policy ({why}); the runtime restated its spans"
        )
        self._entry(
            kind="note", result_summary=f"runtime fallback draft: {len(claims)} claim(s) ({why})"
        )
        self.sync()
        return draft


# --- the model-led policy -------------------------------------------------------------------


def system_prompt(budgets: Budgets) -> tuple[str, str]:
    text, sha = load_prompt("agent_system.txt")
    filled = Template(text).substitute(
        max_subquestions=budgets.max_subquestions,
        searches=budgets.searches,
        fetches=budgets.fetches,
        tool_calls=budgets.tool_calls,
        spans=budgets.spans,
        tokens=budgets.tokens,
        draft_reserve=budgets.draft_reserve,
    )
    return filled, sha


class LlmAgent:
    """Drives a ChatModel through the runtime until it submits one valid draft."""

    def __init__(
        self,
        rt: Runtime,
        model: ChatModel,
        *,
        convergence: str = "rules",
        small_model: ChatModel | None = None,
        max_nudges: int = 2,
    ):
        self.rt = rt
        self.model = model
        self.convergence = convergence
        self.small_model = small_model
        self.max_nudges = max_nudges
        prompt, sha = system_prompt(rt.budgets)
        rt.record.prompt_hashes["agent_system"] = sha
        rt.record.prompt_hashes["convergence"] = load_prompt("convergence.txt")[1]
        self.messages: list[Message] = [
            SystemMessage(content=prompt),
            UserMessage(content=f"Question: {rt.record.question}"),
        ]
        self.iterations = 0
        self._announced_draft_phase = False
        self._told_action: str | None = None

    def tools(self) -> list[dict]:
        if self.rt.draft_only:
            return [Draft.tool_schema()]
        return list(self.rt.tb.tool_schemas()) + [Draft.tool_schema()]

    async def _execute(self, calls: list[ToolCall]) -> list[ToolMessage]:
        rt = self.rt
        replies: dict[str, str] = {}
        fetches = [c for c in calls if c.name == "fetch_page" and not c.arguments_error]
        fetch_done = False
        for call in calls:
            if rt.drafted:
                replies[call.id] = json.dumps({"ignored": "the draft was already accepted"})
                continue
            if call.arguments_error:
                replies[call.id] = rt._invalid(call.name, call.id, {}, call.arguments_error).text
            elif call.name == "web_search":
                replies[call.id] = (await rt.web_search(call.arguments, call.id)).text
            elif call.name == "fetch_page":
                if fetch_done:
                    continue
                fetch_done = True
                outcomes = await rt.fetch_pages([(c.id, c.arguments) for c in fetches])
                if len(outcomes) == 1:
                    replies[fetches[0].id] = outcomes[0].text
                else:
                    # All previews of a parallel fetch arrive together, in the first call's result.
                    combined = [
                        {"url": c.arguments.get("url"), **json.loads(o.text)}
                        for c, o in zip(fetches, outcomes, strict=True)
                    ]
                    replies[fetches[0].id] = json.dumps(
                        {"parallel_fetch": combined}, ensure_ascii=False
                    )
                    for c in fetches[1:]:
                        replies[c.id] = json.dumps(
                            {"see": f"combined result of call {fetches[0].id}"}
                        )
            elif call.name == "extract_quote":
                replies[call.id] = rt.extract_quote(call.arguments, call.id).text
            elif call.name == "draft_answer":
                replies[call.id] = rt.submit_draft(call.arguments, call.id).text
            else:
                replies[call.id] = rt._invalid(
                    call.name,
                    call.id,
                    call.arguments,
                    f"unknown tool {call.name!r}; the tools are web_search, fetch_page, extract_quote, draft_answer",
                ).text
        line = rt.budget_line()
        return [
            ToolMessage(tool_call_id=c.id, name=c.name, content=replies[c.id] + "\n\n" + line)
            for c in calls
        ]

    async def run(self) -> Draft | None:
        rt = self.rt
        nudges = 0
        while not rt.drafted:
            if rt.tokens_exhausted:
                rt.record.ended_by = rt.record.ended_by or "budget:tokens"
                return None
            if rt.remaining()["tool_calls"] <= 0:
                return None
            if rt.draft_only and not self._announced_draft_phase:
                self._announced_draft_phase = True
                why = rt.exhausted or rt.draft_forced or "tool-call reserve reached"
                self.messages.append(
                    UserMessage(
                        content=f"Drafting phase ({why}). Call draft_answer now with the spans you have; mark unresolved sub-questions in the summary.\n{rt.budget_line()}"
                    )
                )
            t0 = time.perf_counter()
            try:
                turn = await self.model.complete(self.messages, self.tools(), temperature=0)
            except ChatModelError as exc:
                rt.record.errors.append(str(exc))
                rt.record.ended_by = "model_error"
                return None
            rt.note_model_turn(turn, (time.perf_counter() - t0) * 1000)
            self.iterations += 1
            if self.iterations == 1:
                stated = subquestions_from_text(turn.content, rt.budgets.max_subquestions)
                if stated:
                    rt.subquestions = stated
                ensure_subquestions(rt)
            self.messages.append(turn.as_message())
            if not turn.tool_calls:
                nudges += 1
                if nudges > self.max_nudges:
                    rt.record.ended_by = "no_tool_calls"
                    return None
                self.messages.append(
                    UserMessage(
                        content="Use the tools. Quote spans with extract_quote and finish by calling draft_answer.\n"
                        + rt.budget_line()
                    )
                )
                continue
            self.messages.extend(await self._execute(turn.tool_calls))
            if rt.drafted:
                break
            if rt.draft_only:
                continue
            if rt.stalled:
                await rt.converge(
                    self.convergence if self.convergence != "off" else "rules",
                    self.small_model,
                    "stall",
                )
            elif self.convergence != "off" and self.iterations >= 2:
                await rt.converge(self.convergence, self.small_model, "iteration")
            last = rt.record.convergence[-1] if rt.record.convergence else None
            fresh = rt.record.trace[-1].kind in ("convergence", "stall")
            if (
                last
                and fresh
                and last.decision == "CONTINUE"
                and last.next_action != self._told_action
            ):
                # Tell the model the next action once, not after every turn.
                self._told_action = last.next_action
                self.messages.append(
                    UserMessage(
                        content=f"Convergence check: CONTINUE. Next action: {last.next_action}. "
                        f"Reason: {last.reason}"
                    )
                )
        return getattr(rt.record, rt.draft_slot)

    async def targeted_round(self, subquestions: list[str]) -> Draft | None:
        """One more bounded round for sub-questions whose only support was pruned."""
        rt = self.rt
        rt.draft_slot = "supplementary_draft"
        rt.draft_forced = None
        self._announced_draft_phase = False
        listed = "\n".join(f"- {s}" for s in subquestions)
        self.messages.append(
            UserMessage(
                content=(
                    "Verification dropped the only support for these sub-questions:\n"
                    + listed
                    + "\nDo one targeted search round for them only (different sources or terms than before), "
                    "then call draft_answer with new claims for these sub-questions only.\n"
                    + rt.budget_line()
                )
            )
        )
        return await self.run()


def ensure_subquestions(rt: Runtime) -> None:
    if not rt.subquestions:
        rt.subquestions = decompose_question(rt.record.question, rt.budgets.max_subquestions)
