"""Should the run keep going? Sub-questions, coverage, and the convergence decision.

The decision sees only sub-questions, span ids with their first 120 characters,
what was tried, and the remaining budget — never full text. The `rules` form
computes the design's rules deterministically (used offline and as the
fallback when a model's answer is unusable); the `llm` form asks a small model
with agent/prompts/convergence.txt and then holds it to the same rules where
they are checkable (CONTINUE needs a next action that is not a re-fetch).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, Field
from spanproof.agent.chat import ChatModel, ChatModelError, ModelTurn, SystemMessage, UserMessage
from spanproof.agent.question.compound import analyse, decompose
from spanproof.agent.question.scoring import match
from spanproof.agent.record import ConvergenceDecision, SubquestionStatus, load_prompt

from spanproof.core.text import STOPWORDS, stem, words
from spanproof.wire.chat import Message
from spanproof.wire.structured import MalformedReply, structured

# Words a question is phrased with that carry no content of their own, beyond the project's
# stopwords (spanproof.core.text).
_QUESTION_PHRASING = frozenset(
    ["tell", "give", "list", "name", "describe", "explain", "according", "much", "many",
     "yes", "vs", "also", "just", "may", "might", "must", "shall", "can", "could", "would",
     "should", "will", "other", "each", "all", "any", "more", "most", "again", "very"]
)  # fmt: skip

COVERED = 0.6  # share of a sub-question's content words a span must contain
THIN = 0.3


def content_words(text: str) -> set[str]:
    """Stems of a text's content words (spanproof.core.text), question phrasing left out."""
    return {
        stem(w)
        for w in words(text)
        if w not in STOPWORDS and w not in _QUESTION_PHRASING and len(w) > 1
    }


def question_subject(question: str) -> set[str]:
    """Content words of the names in a question (capitalised runs after the first word)."""
    body = re.sub(r"^\W*\w+", "", question)
    names = re.findall(r"\b[A-Z][\w'’.-]*(?:\s+(?:of\s+|the\s+)?[A-Z][\w'’.-]*)*", body)
    return set().union(*(content_words(n) for n in names)) if names else set()


def names_subject(text: str, subject: set[str]) -> bool:
    """Does `text` name the question's subject: two of its words, or all when it has fewer?"""
    if not subject:
        return True
    return len(subject & content_words(text)) >= min(2, len(subject))


NUMBER = "#number"
_EXPECTS_NUMBER = re.compile(
    r"\b(how (old|many|much|long|far|tall|high|big|large|deep)|what (year|date|age|share|percentage|score|fee))\b",
    re.I,
)


def expects_number(subquestion: str) -> bool:
    """Is the sub-question answered by a figure (how old / many / much ..., what year ...)?"""
    return bool(_EXPECTS_NUMBER.search(subquestion))


def relevance(subquestion: str, text: str, subject: set[str] | None = None) -> float:
    """How well `text` answers a sub-question: its focus words matter most.

    The subject (the names the whole question is about) appears in most sentences of
    a relevant page, so a sentence that only repeats it scores 0; one that has the
    sub-question's own words (founded, designed, population, ...) scores high.
    """
    want = content_words(subquestion)
    if not want:
        return 0.0
    have = content_words(text)
    # "How old / how many / when ..." is answered by a number: a figure counts as a focus word.
    if _EXPECTS_NUMBER.search(subquestion):
        want = want | {NUMBER}
        if re.search(r"\d", text):
            have = have | {NUMBER}
    subject = (subject or set()) & want
    focus = want - subject
    if not focus:
        return len(want & have) / len(want)
    # An answer sentence rarely repeats every word of the question: two focus words
    # (or all of them, when there are fewer) count as full focus.
    focus_share = min(1.0, len(focus & have) / min(2, len(focus)))
    if NUMBER in focus and NUMBER in have:
        focus_share = max(focus_share, 1.0 if len(focus) <= 2 else 0.5)  # the figure is the answer
    if focus_share == 0:
        return 0.0
    subject_share = min(1.0, len(subject & have) / min(2, len(subject))) if subject else 1.0
    if (
        subject
        and not subject_share
        and re.match(r"\W*(he|she|it|they|his|her|its|their)\b", text, re.I)
    ):
        subject_share = 0.5  # "She was 78." speaks of the subject without naming it
    return 0.7 * focus_share + 0.3 * subject_share


def overlap(subquestion: str, text: str) -> float:
    want = content_words(subquestion)
    if not want:
        return 0.0
    return len(want & content_words(text)) / len(want)


# --- sub-questions ------------------------------------------------------------------------


def decompose_question(question: str, max_subquestions: int = 3) -> list[str]:
    """Rule-based decomposition (see `question.decompose`)."""
    return decompose(question, max_subquestions)


def subquestions_from_text(text: str | None, max_subquestions: int = 3) -> list[str]:
    """Sub-questions a model stated: lines ending in '?', list markers stripped."""
    if not text:
        return []
    found = []
    for line in text.splitlines():
        line = re.sub(r"^\s*(?:[-*•]|\d+[.)]|Q\d+[:.)])\s*", "", line).strip()
        if line.endswith("?") and len(content_words(line)) >= 1:
            found.append(line)
    return found[:max_subquestions]


# --- state the decision sees ---------------------------------------------------------------


class SpanBrief(BaseModel):
    span_id: str
    head: str  # first 120 characters, never more


class Attempt(BaseModel):
    tool: str
    detail: str  # the query, the URL, or the locator's doc id
    new_spans: int = 0
    ok: bool = True


class ConvergenceState(BaseModel):
    subquestions: list[str]
    spans: list[SpanBrief] = Field(default_factory=list)
    attempts: list[Attempt] = Field(default_factory=list)
    remaining: dict[str, int] = Field(default_factory=dict)
    reserve: int = 2
    stalled: bool = False
    fetched_urls: list[str] = Field(default_factory=list)
    unfetched_hits: dict[int, list[str]] = Field(default_factory=dict)  # subq index -> urls
    subject: list[str] = Field(default_factory=list)  # the question's name words
    # span id -> indices of the sub-questions whose expected answer code found in the span's
    # full text (`question.match`); a span not listed is judged on its head. Never shown to a
    # model: it is the runtime's own reading, not page text.
    answering: dict[str, list[int]] = Field(default_factory=dict)

    def prompt_payload(self) -> dict[str, Any]:
        return {
            "subquestions": self.subquestions,
            "spans": [s.model_dump() for s in self.spans],
            "tried": [a.model_dump() for a in self.attempts[-12:]],
            "fetched_urls": self.fetched_urls,
            "remaining_budget": self.remaining,
            "reserve": self.reserve,
            "stalled": self.stalled,
        }


def answering(subquestions: list[str], texts: dict[str, str]) -> dict[str, list[int]]:
    """span id -> the sub-questions (indices) that span answers: it holds an answer of the
    type each expects (a date for "when", a number of students for "how many students" ...)
    and is about it (`question.match`)."""
    analysed = analyse("", subquestions) if subquestions else []
    return {
        sid: [i for i, sq in enumerate(analysed) if match(sq, text).answers]
        for sid, text in texts.items()
    }


def coverage(state: ConvergenceState) -> list[SubquestionStatus]:
    """covered: a span answers the sub-question (for a sub-question whose answer type code
    can check -- a date, a number, a name, a place, a reason ... -- only a span holding such
    an answer does; sharing its words is not enough); thin: a span is about it; empty: none."""
    out = []
    subject = set(state.subject)
    subs = analyse("", state.subquestions) if state.subquestions else []
    for i, (sq, analysed) in enumerate(zip(state.subquestions, subs, strict=True)):
        scored = [(relevance(sq, s.head, subject), s.span_id) for s in state.spans]
        ids = [sid for x, sid in scored if x >= THIN]
        if analysed.checkable:
            answers = [
                s.span_id
                for s in state.spans
                if (
                    i in state.answering[s.span_id]
                    if s.span_id in state.answering
                    else match(analysed, s.head).answers
                )
            ]
            status = "covered" if answers else "thin" if ids else "empty"
            ids = answers + [sid for sid in ids if sid not in answers]
        else:
            best = max((x for x, _ in scored), default=0.0)
            status = "covered" if best >= COVERED else "thin" if best >= THIN else "empty"
        out.append(SubquestionStatus(subquestion=sq, status=status, span_ids=ids))
    return out


def searches_for(state: ConvergenceState, index: int) -> int:
    """How many searches were aimed at sub-question `index` (its best-overlapping one)."""
    n = 0
    for a in state.attempts:
        if a.tool != "web_search":
            continue
        scores = [relevance(sq, a.detail, set(state.subject)) for sq in state.subquestions]
        if scores and max(scores) > 0 and scores.index(max(scores)) == index:
            n += 1
    return n


def rules_decision(state: ConvergenceState, trigger: str = "iteration") -> ConvergenceDecision:
    subs = coverage(state)

    def decide(decision: str, reason: str, next_action: str | None = None) -> ConvergenceDecision:
        return ConvergenceDecision(
            subquestions=subs,
            decision=decision,
            next_action=next_action,
            reason=reason,
            source="rules",
            trigger=trigger,
        )

    if all(s.status == "covered" for s in subs):
        # Said before verification: a span that looks like an answer, not a published claim.
        return decide("DRAFT", "each sub-question has a span that may answer it; verification "
                      "decides what is published")  # fmt: skip
    if state.remaining.get("tool_calls", 0) <= state.reserve:
        return decide("DRAFT_WITH_GAPS", "remaining tool calls at or under the reserve")
    if state.stalled:
        return decide("DRAFT_WITH_GAPS", "the last tool calls produced no new span")
    open_subs = [i for i, s in enumerate(subs) if s.status != "covered"]
    for i in open_subs:
        if searches_for(state, i) >= 2:
            return decide(
                "DRAFT_WITH_GAPS", f"sub-question {i + 1} had two search rounds without cover"
            )
    # One next action, materially different from what was tried.
    action = None
    for i in open_subs:
        if searches_for(state, i) == 0 and state.remaining.get("searches", 0) > 0:
            action = f"search for sub-question {i + 1}: {subs[i].subquestion}"
            break
        urls = [u for u in state.unfetched_hits.get(i, []) if u not in state.fetched_urls]
        if urls and state.remaining.get("fetches", 0) > 0:
            action = f"fetch {urls[0]} for sub-question {i + 1}"
            break
    thin = [s for s in subs if s.status == "thin"]
    if action is None:
        if len(thin) >= 2:
            return decide("DRAFT_WITH_GAPS", "two sub-questions thin and no distinct next action")
        return decide("DRAFT_WITH_GAPS", "no next action different from what was tried")
    return decide("CONTINUE", "an open sub-question has an untried action", action)


# --- llm form -------------------------------------------------------------------------------


class ConvergenceOutcome(BaseModel):
    decision: ConvergenceDecision
    turn: ModelTurn | None = None
    error: str | None = None


JSON_OBJECT = {"type": "json_object"}
_FETCH_URL = re.compile(r"https?://\S+")


async def llm_decision(
    model: ChatModel, state: ConvergenceState, trigger: str = "iteration"
) -> ConvergenceOutcome:
    """Ask a small model; fall back to the rules when its reply breaks the contract."""
    prompt, _ = load_prompt("convergence.txt")
    messages: list[Message] = [
        SystemMessage(content=prompt),
        UserMessage(content=json.dumps(state.prompt_payload(), ensure_ascii=False)),
    ]
    turn = None
    try:
        # No re-ask: a reply that is not a decision falls back to the rules at once.
        got = await structured(
            model, messages, ConvergenceDecision, reasks=0, response_format=JSON_OBJECT
        )
    except (ChatModelError, MalformedReply) as exc:
        cause = exc.cause if isinstance(exc, MalformedReply) else exc
        turn = exc.turn if isinstance(exc, MalformedReply) else None
        fallback = rules_decision(state, trigger).model_copy(update={"source": "rules_fallback"})
        return ConvergenceOutcome(
            decision=fallback, turn=turn, error=f"{type(cause).__name__}: {cause}"
        )
    turn = got.turn
    decision = got.output.model_copy(update={"source": "llm", "trigger": trigger})
    problem = None
    if decision.decision == "CONTINUE":
        if not (decision.next_action or "").strip():
            problem = "CONTINUE without a next action"
        else:
            refetch = [
                u
                for u in _FETCH_URL.findall(decision.next_action or "")
                if u.rstrip(".,") in state.fetched_urls
            ]
            if refetch:
                problem = f"CONTINUE proposes re-fetching {refetch[0]}"
        if state.remaining.get("tool_calls", 0) <= state.reserve:
            problem = "CONTINUE with the budget at the reserve"
    if problem:
        fallback = rules_decision(state, trigger).model_copy(update={"source": "rules_fallback"})
        return ConvergenceOutcome(decision=fallback, turn=turn, error=problem)
    return ConvergenceOutcome(decision=decision, turn=turn)
