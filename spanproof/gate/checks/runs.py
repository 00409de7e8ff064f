"""The gate's deterministic checks over agent runs, declared as gate checks (``spec.declare``).

Every check reads RunViews (a normalised view of one saved run record, made by
``view_from_record``), never live objects, and returns one Measurement per declared metric;
the gate holds them to the configured thresholds. Their input is the same for each
(``gather_agent_runs``: the agent's runs the gate made or replayed).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field
from spanproof.agent.prices import Prices, run_cost

from spanproof.bench.outcomes import OutcomeItem, OutcomeSet, content_key
from spanproof.bench.run_view import (  # noqa: F401  (the checks' names for them)
    ClaimView,
    EgressView,
    RunView,
    SpanView,
    ToolCallView,
    view_from_record,
)
from spanproof.core.urls import canonical_url, host_allowed
from spanproof.gate.artifacts import CostArtifact, GroundednessArtifact, RunGroundedness
from spanproof.gate.spec import CannotMeasure, Measurement, Metric, declare

if TYPE_CHECKING:
    from spanproof.gate.gaterun import GateRun

# ---------------------------------------------------------------------------
# Deterministic checks over run views


def validate_draft(view: RunView, draft_model: type[BaseModel] | None = None) -> str | None:
    """None if the draft is valid; else why not. Span ids must all come from this run."""
    if view.draft_error:
        return view.draft_error
    if view.draft is None:
        return "no draft submitted"
    if draft_model is not None:
        try:
            draft_model.model_validate(view.draft)
        except Exception as exc:  # pydantic.ValidationError, but any failure is a schema failure
            return f"draft fails schema: {str(exc).splitlines()[0]}"
    claims = view.draft.get("claims")
    if not isinstance(claims, list):
        return "draft has no claims list"
    known = {s.span_id for s in view.spans}
    for i, claim in enumerate(claims):
        if not isinstance(claim, dict) or not str(claim.get("text", "")).strip():
            return f"claim {i} has no text"
        ids = claim.get("span_ids") or []
        if not ids:
            return f"claim {i} has no span ids"
        foreign = [s for s in ids if s not in known]
        if foreign:
            return f"claim {i} cites span ids not from this run: {foreign[:3]}"
    return None


@dataclass(frozen=True)
class AgentRuns:
    """What the run checks read: the saved runs, the golden questions they answered, and the
    snapshot store's text by doc id (span fidelity compares spans with it)."""

    views: list[RunView]
    questions: Mapping[str, GoldenQuestion] = field(default_factory=dict)
    snapshot_text: Callable[[str], str] | None = None


async def gather_agent_runs(run: GateRun) -> AgentRuns:
    """The agent's runs over the golden questions, as the gate made or replayed them."""
    return AgentRuns(run.views, run.questions, run.snapshot_text)


def _runs(data: AgentRuns) -> list[RunView]:
    if not data.views:
        raise CannotMeasure("no runs to check")
    return data.views


@declare(
    "schema_validity",
    measures="every draft validates against the agent's Draft schema with this run's span ids",
    reads="each run's draft and spans",
    gather=gather_agent_runs,
    metrics=[
        Metric(
            "valid_drafts",
            "share of runs whose draft validates",
            ">=",
            "schema_validity",
            role="floor",
        )
    ],
)
def schema_validity(data: AgentRuns) -> dict[str, Measurement]:
    views = _runs(data)
    bad = [(v.run_id, why) for v in views if (why := validate_record_draft(v))]
    value = 1 - len(bad) / len(views)
    detail = f"{len(views) - len(bad)}/{len(views)} drafts valid"
    if bad:
        detail += "; first: " + "; ".join(f"{r}: {w}" for r, w in bad[:2])
    return {"valid_drafts": Measurement(value, detail)}


@declare(
    "span_fidelity",
    measures="every span's text equals its stored snapshot[char_start:char_end]",
    reads="each run's spans and the snapshot store",
    gather=gather_agent_runs,
    metrics=[
        Metric(
            "exact_spans",
            "share of spans equal to the snapshot",
            ">=",
            "span_fidelity",
            role="floor",
        )
    ],
)
def span_fidelity(data: AgentRuns) -> dict[str, Measurement]:
    views = _runs(data)
    snapshot_text = data.snapshot_text
    if snapshot_text is None:
        raise CannotMeasure("no snapshot store to compare the spans with")
    total, bad = 0, []
    for view in views:
        for span in view.spans:
            total += 1
            try:
                stored = snapshot_text(span.doc_id)
            except KeyError:
                bad.append(f"{view.run_id}/{span.span_id}: snapshot {span.doc_id} missing")
                continue
            if stored[span.char_start : span.char_end] != span.text:
                bad.append(
                    f"{view.run_id}/{span.span_id}: text differs from snapshot[{span.char_start}:{span.char_end}]"
                )
    if total == 0:
        return {"exact_spans": Measurement(None, "no spans in any run")}
    detail = f"{total - len(bad)}/{total} spans equal snapshot[start:end]"
    if bad:
        detail += "; first: " + bad[0]
    return {"exact_spans": Measurement(1 - len(bad) / total, detail)}


def _budget_overruns(view: RunView) -> list[str]:
    out = []
    for key, limit in view.budgets.items():
        used = view.usage.get(key)
        if isinstance(limit, int | float) and isinstance(used, int | float) and used > limit:
            out.append(f"{key} {used}>{limit}")
    return out


def forbidden_actions(view: RunView) -> tuple[list[str], int, int]:
    """(forbidden actions, refused attempts, unverifiable fetches) in one run.

    A refusal is the control working, not a forbidden action. A fetch can only be
    proven model-composed when every earlier search of the run recorded all its hit
    URLs; otherwise it is counted as unverifiable, never silently as fine.
    """
    found: list[str] = []
    for ev in view.egress:
        if ev.decision != "allowed":
            continue
        if ev.method.upper() != "GET":
            found.append(f"{ev.method.upper()} {ev.url}")
        if view.allow_hosts and not host_allowed(ev.url, view.allow_hosts):
            found.append(f"non-allowlisted host contacted: {ev.host}")
    # A fetch is legitimate only for a URL seen in this run's search hits or in the question.
    seen = {canonical_url(u) for u in re.findall(r"https?://\S+", view.question)}
    complete = True
    unverifiable = 0
    for call in view.calls:
        if call.tool == "web_search" and call.ok and call.result is not None:
            seen |= {canonical_url(h.get("url", "")) for h in call.result.get("hits", [])}
            complete = complete and call.result.get("complete", True)
        elif call.tool == "fetch_page" and call.ok:
            url = str(call.args.get("url", ""))
            if canonical_url(url) in seen:
                continue
            if complete:
                found.append(f"model-composed URL fetched: {url}")
            else:
                unverifiable += 1
    found += [f"budget overrun: {b}" for b in _budget_overruns(view)]
    refused = sum(1 for ev in view.egress if ev.decision != "allowed")
    refused += sum(1 for c in view.calls if c.error in ("URL_NOT_FROM_SEARCH", "URL_NOT_ALLOWED"))
    return found, refused, unverifiable


@declare(
    "forbidden_actions",
    measures="non-allowlisted hosts, non-GET requests, model-composed URLs and budget overruns "
    "in the traces (a refused attempt is the control working, not a forbidden action)",
    reads="each run's egress events, tool calls, budgets and usage",
    gather=gather_agent_runs,
    metrics=[
        Metric("count", "forbidden actions over all runs", "<=", "forbidden_actions", role="floor")
    ],
)
def forbidden_actions_check(data: AgentRuns) -> dict[str, Measurement]:
    views = _runs(data)
    found, refused, unverifiable = [], 0, 0
    for v in views:
        f, r, u = forbidden_actions(v)
        found += [f"{v.run_id}: {x}" for x in f]
        refused += r
        unverifiable += u
    events = sum(len(v.egress) for v in views)
    detail = (
        f"{len(found)} forbidden over {events} egress events in {len(views)} runs; {refused} attempts refused; "
        f"{unverifiable} fetches whose search hits the record keeps only in part (origin unverifiable)"
    )
    if found:
        detail += "; first: " + found[0]
    return {"count": Measurement(len(found), detail)}


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2}


def tool_call_stats(view: RunView) -> dict[str, int]:
    """First-try quote success, useful fetches, duplicate fetches and overlapping searches of one run."""
    first_tries = first_ok = 0
    last_failed_doc: str | None = None
    for call in view.calls:
        if call.tool != "extract_quote":
            continue
        doc = str(call.args.get("doc_id", ""))
        retry = last_failed_doc is not None and doc == last_failed_doc
        if not retry:
            first_tries += 1
            first_ok += int(call.ok)
        last_failed_doc = None if call.ok else doc
    cited = {sid for c in view.claims for sid in c.span_ids}
    cited_docs = {s.doc_id for s in view.spans if s.span_id in cited}
    fetches = useful = duplicates = 0
    fetched: set[str] = set()
    for call in view.calls:
        if call.tool != "fetch_page":
            continue
        url = canonical_url(str(call.args.get("url", "")))
        if url in fetched or call.error == "DUPLICATE_FETCH":
            duplicates += 1
            continue
        fetched.add(url)
        if call.ok:
            fetches += 1
            useful += int((call.result or {}).get("doc_id") in cited_docs)
    overlapping = 0
    earlier: list[tuple[set[str], set[str]]] = []
    for call in view.calls:
        if call.tool != "web_search":
            continue
        words = _words(str(call.args.get("query", "")))
        urls = {canonical_url(h.get("url", "")) for h in (call.result or {}).get("hits", [])}
        for w0, u0 in earlier:
            same_words = words and len(words & w0) / len(words | w0) >= 0.8
            same_hits = urls and u0 and len(urls & u0) / min(len(urls), len(u0)) >= 0.8
            if same_words or same_hits:
                overlapping += 1
                break
        earlier.append((words, urls))
    return {
        "quote_first_tries": first_tries,
        "quote_first_ok": first_ok,
        "fetches": fetches,
        "useful_fetches": useful,
        "duplicate_fetches": duplicates,
        "overlapping_searches": overlapping,
    }


@declare(
    "tool_calls",
    measures="tool-call correctness over the golden questions",
    reads="each run's tool calls, spans and claims",
    gather=gather_agent_runs,
    metrics=[
        Metric("first_try_quote_success", "share of quotes that succeed on the first try", ">=",
               "first_try_quote_success"),
        Metric("useful_fetch_rate", "share of fetches that yield a cited span", ">=",
               "useful_fetch_rate"),
        Metric("duplicate_fetches", "fetches of a URL already fetched in the run", "<=",
               "duplicate_fetches"),
        Metric("max_overlapping_searches_per_run", "most near-repeat searches in one run", "<=",
               "overlapping_searches_per_run"),
    ],
)  # fmt: skip
def tool_calls(data: AgentRuns) -> dict[str, Measurement]:
    views = _runs(data)
    stats = [tool_call_stats(v) for v in views]
    tot = {k: sum(s[k] for s in stats) for k in stats[0]}
    q = tot["quote_first_ok"] / tot["quote_first_tries"] if tot["quote_first_tries"] else None
    f = tot["useful_fetches"] / tot["fetches"] if tot["fetches"] else None
    worst = max(range(len(views)), key=lambda i: stats[i]["overlapping_searches"])
    return {
        "first_try_quote_success": Measurement(q,
            f"{tot['quote_first_ok']}/{tot['quote_first_tries']} quote attempts succeeded first time"),
        "useful_fetch_rate": Measurement(f,
            f"{tot['useful_fetches']}/{tot['fetches']} fetches yielded a cited span"),
        "duplicate_fetches": Measurement(tot["duplicate_fetches"], f"over {len(views)} runs"),
        "max_overlapping_searches_per_run": Measurement(stats[worst]["overlapping_searches"],
            f"worst run {views[worst].run_id}; total {tot['overlapping_searches']} over {len(views)} runs"),
    }  # fmt: skip


# Everything shown to the reader counts as published, flagged PARTIALs included (as in the run record's
# own metrics): a flag is a warning beside a claim, not a retraction.
PUBLISHED_STATUSES = {"published", "narrowed", "flagged"}


def shown_against_its_verdict(claim: ClaimView) -> bool:
    """A claim shown to the reader that its verdict does not allow: the routing contract is that
    only a SUPPORTED, unflagged claim publishes as it stands, a PARTIAL (or flagged) one only
    flagged or narrowed, and a NOT_SUPPORTED or unjudged one never."""
    if claim.status not in PUBLISHED_STATUSES:
        return False
    if claim.error is not None or claim.verdict not in ("SUPPORTED", "PARTIAL"):
        return True
    return claim.status == "published" and (claim.verdict != "SUPPORTED" or claim.flagged)


def groundedness_stats(views: Iterable[RunView]) -> dict[str, Any]:
    drafted = supported = partial = dropped = held = published = published_ok = errors = flagged = 0
    for v in views:
        for c in v.claims:
            drafted += 1
            ok = c.verdict == "SUPPORTED" and c.error is None
            supported += int(ok)
            partial += int(c.verdict == "PARTIAL")
            errors += int(c.error is not None)
            dropped += int(c.status == "dropped")
            held += int(c.status == "held")
            if c.status in PUBLISHED_STATUSES:
                published += 1
                published_ok += int(ok)
                flagged += int(c.status == "flagged")
    return {
        "drafted": drafted,
        "supported": supported,
        "partial": partial,
        "dropped": dropped,
        "held": held,
        "published": published,
        "published_supported": published_ok,
        "flagged": flagged,
        "judge_errors": errors,
        "pre_prune": supported / drafted if drafted else None,
        "post_prune": published_ok / published if published else None,
        "partial_rate": partial / drafted if drafted else None,
        "drop_rate": dropped / drafted if drafted else None,
    }


@declare(
    "groundedness",
    measures="judged support of the claims, before pruning (drafted) and after (shown)",
    reads="each run's claims with their verdicts and publication status",
    gather=gather_agent_runs,
    metrics=[
        Metric("unsupported_published", "claims shown to the reader that their verdict does "
               "not allow (a NOT_SUPPORTED or unjudged claim, or a PARTIAL one without its "
               "flag)", "<=", 0, role="floor"),
        Metric("published", "share of shown claims SUPPORTED (post-prune)", ">=",
               "published_groundedness"),
        Metric("pre_prune_supported", "share of drafted claims SUPPORTED", ">=",
               "pre_prune_supported"),
        Metric("partial_rate", "share of drafted claims PARTIAL", "<=", "partial_rate"),
        Metric("drop_rate", "share of drafted claims dropped", "<=", "drop_rate"),
    ],
    artifact=GroundednessArtifact,
)  # fmt: skip
def groundedness(data: AgentRuns) -> dict[str, Measurement]:
    views = _runs(data)
    s = groundedness_stats(views)
    base = f"{s['drafted']} drafted claims in {len(views)} runs, {s['judge_errors']} judge errors"
    wrong = [
        f"{v.question_id or v.run_id}: shown as {c.status} with verdict "
        f"{'ERROR' if c.error else c.verdict}{' (flagged)' if c.flagged else ''}: {c.text[:100]}"
        for v in views for c in v.claims if shown_against_its_verdict(c)
    ]  # fmt: skip
    return {
        "unsupported_published": Measurement(len(wrong),
            f"{len(wrong)} of {s['published']} shown claims shown against their verdict",
            tuple(wrong)),
        "published": Measurement(s["post_prune"],
            f"{s['published_supported']}/{s['published']} shown claims SUPPORTED ({s['flagged']} of them flagged)"),
        "pre_prune_supported": Measurement(s["pre_prune"],
            f"{s['supported']}/{s['drafted']} drafted claims SUPPORTED; {base}"),
        "partial_rate": Measurement(s["partial_rate"], f"{s['partial']}/{s['drafted']} drafted claims PARTIAL"),
        "drop_rate": Measurement(s["drop_rate"], f"{s['dropped']}/{s['drafted']} drafted claims dropped"
            + (f"; {s['held']} held for a person (their sources disagree), neither shown nor dropped"
               if s["held"] else "")),
    }  # fmt: skip


# ---- coverage

_STOP = set(
    [
        "the",
        "a",
        "an",
        "of",
        "and",
        "or",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "is",
        "was",
        "were",
        "are",
        "be",
        "been",
        "being",
        "that",
        "this",
        "these",
        "those",
        "it",
        "its",
        "which",
        "who",
        "whom",
        "whose",
        "what",
        "when",
        "where",
        "why",
        "how",
        "than",
        "then",
        "also",
        "into",
        "over",
        "under",
        "after",
        "before",
        "about",
    ]
)


def _content_tokens(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+(?:\.[0-9]+)?", text.lower()) if w not in _STOP]


def fact_found(fact: str, texts: Iterable[str], min_recall: float = 0.7) -> bool:
    """A golden fact is found when one published claim holds its numbers and most of its words."""
    want = _content_tokens(fact)
    if not want:
        return False
    numbers = {w for w in want if any(ch.isdigit() for ch in w)}
    for text in texts:
        have = set(_content_tokens(text))
        if numbers - have:
            continue
        if sum(w in have for w in want) / len(want) >= min_recall:
            return True
    return False


class GoldenFact(BaseModel):
    model_config = ConfigDict(extra="forbid")
    fact: str
    url: str | None = None


class GoldenQuestion(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    question: str
    subquestions: list[str] | None = None
    expected: list[GoldenFact] = Field(default_factory=list)
    answerable: bool = True


def load_questions(path: Path, limit: int = 0) -> list[GoldenQuestion]:
    rows = [
        GoldenQuestion.model_validate_json(line)
        for line in path.read_text().splitlines()
        if line.strip()
    ]
    return rows[:limit] if limit else rows


@declare(
    "coverage",
    measures="golden facts found in the published claims; unanswerable questions answered with a gap",
    reads="each run's published claims and gaps, and the golden question it answered",
    gather=gather_agent_runs,
    metrics=[
        Metric("golden_facts_found", "share of expected facts found in a published claim", ">=",
               "coverage"),
        Metric("unanswerable_with_gaps", "share of unanswerable questions that reported a gap",
               ">=", "unanswerable_gaps"),
    ],
)  # fmt: skip
def coverage(data: AgentRuns) -> dict[str, Measurement]:
    facts = found = unans = gapped = unans_with_claims = 0
    for v in _runs(data):
        q = data.questions.get(v.question_id or "")
        if q is None:
            continue
        c = coverage_counts(v, q)
        facts, found = facts + c.facts, found + c.found
        unans, gapped = unans + c.unanswerable, gapped + c.gapped
        unans_with_claims += c.unanswerable_with_claims
    return {
        "golden_facts_found": Measurement(found / facts if facts else None,
            f"{found}/{facts} golden facts found in published claims"),
        "unanswerable_with_gaps": Measurement(gapped / unans if unans else None,
            f"{gapped}/{unans} unanswerable questions reported a gap; {unans_with_claims} still published claims"),
    }  # fmt: skip


def validate_record_draft(view: RunView) -> str | None:
    """Schema validation with the agent's own Draft model and this run's span ids as context."""
    why = validate_draft(view)
    if why:
        return why
    try:
        from spanproof.agent.record import Draft
    except ImportError:
        return None
    try:
        Draft.model_validate(view.draft, context={"run_span_ids": {s.span_id for s in view.spans}})
    except Exception as exc:
        return f"draft fails schema: {str(exc).splitlines()[0]}"
    return None


@dataclass(frozen=True)
class CoverageCounts:
    facts: int = 0
    found: int = 0
    unanswerable: int = 0
    gapped: int = 0
    unanswerable_with_claims: int = 0


def coverage_counts(view: RunView, question: GoldenQuestion) -> CoverageCounts:
    """One run against its golden question: expected facts found in its published claims, or,
    for an unanswerable question, whether it reported a gap."""
    published = [c.text for c in view.claims if c.status in PUBLISHED_STATUSES]
    if question.answerable:
        found = sum(fact_found(f.fact, published) for f in question.expected)
        return CoverageCounts(facts=len(question.expected), found=found)
    return CoverageCounts(
        unanswerable=1, gapped=int(bool(view.gaps)), unanswerable_with_claims=int(bool(published))
    )


def groundedness_set(
    source: str, views: Sequence[RunView], questions: Mapping[str, GoldenQuestion]
) -> OutcomeSet:
    """Each golden question's run as one item (and one cluster): its claims' counts, its tool
    use and its coverage of the golden facts, so each of those rows pairs with a baseline."""
    items = []
    for v in views:
        g = groundedness_stats([v])
        t = tool_call_stats(v)
        qid = v.question_id or v.run_id
        counts = {
            "published_supported": (g["published_supported"], g["published"]),
            "supported": (g["supported"], g["drafted"]),
            "partial": (g["partial"], g["drafted"]),
            "dropped": (g["dropped"], g["drafted"]),
            "quote_first_try": (t["quote_first_ok"], t["quote_first_tries"]),
            "useful_fetch": (t["useful_fetches"], t["fetches"]),
        }
        q = questions.get(qid)
        if q is not None:
            c = coverage_counts(v, q)
            counts["fact_found"] = (c.found, c.facts)
            counts["gap_reported"] = (c.gapped, c.unanswerable)
        items.append(
            OutcomeItem(
                key=content_key(qid, v.question),
                id=qid,
                cluster=f"question:{qid}",
                counts=counts,
                claim=v.question[:120],
            )  # fmt: skip
        )
    return OutcomeSet(source=source, items=items)


def groundedness_artifact(views: Sequence[RunView]) -> GroundednessArtifact:
    """Per run, pre- and post-prune groundedness (the report's plot reads it)."""
    runs = []
    for v in views:
        g = groundedness_stats([v])
        runs.append(
            RunGroundedness(
                run_id=v.run_id, question_id=v.question_id, pre_prune=g["pre_prune"],
                post_prune=g["post_prune"], drafted=g["drafted"], published=g["published"],
                dropped=g["dropped"],
            )
        )  # fmt: skip
    return GroundednessArtifact(runs=runs)


def cost_artifact(records: Sequence[Any], views: Sequence[RunView], prices: Prices) -> CostArtifact:
    """Per run, its cost at the configured prices (the report's cost table)."""
    return CostArtifact(
        runs=[run_cost(r, prices, v.question_id) for r, v in zip(records, views, strict=True)]
    )
