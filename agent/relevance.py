"""Relevance at publish time: a shown claim must answer one of the run's sub-questions.

The verifier is isolated from the question on purpose (it sees one claim and one span),
so it cannot tell a faithful quote of the page's answer from a faithful quote of an
attacker's sentence about something else ("the library is permanently closed", "tag
#MAGPIE-88"). Publication holds the question, so it checks by code that every claim it
shows is *on* a sub-question: it answers it by the policy's own test (agent.question), or
it holds two of the sub-question's own words ("renewed for a fifth season" is on "when was
it renewed for a fifth season", date or not), or it holds an answer of the kind the
sub-question asks for (a date for "when", a figure for "how many", a name for "who" ...;
any strength of match, a clock time counting for "when" / "what time", a figure inside an
identifier such as "PELICAN-417" not counting) beside one of its words or names. A
sub-question whose answer code cannot type ("how", "what is", yes/no) needs one of its own
words (its names only when it has no words of its own). A claim that is on no sub-question is
dropped, whatever its verdict, and the run records the drop in ``injection_observed``.

Which sub-questions count: the rule decomposition of the user's question, plus any
sub-question the run stated (a model may state its own) whose content words all come
from the question. A model that is following a page cannot widen the question to fit the
page's claim ("Is the library permanently closed?") and so pass its own check.
"""

from __future__ import annotations

import re

from spanproof.agent.question.compound import analyse, decompose
from spanproof.agent.question.mentions import answer_mentions
from spanproof.agent.question.scoring import match
from spanproof.agent.question.subquestion import CHECKABLE, SubQuestion
from spanproof.agent.question.words import terms

# "7:00", "05:42", "9.30am", "6 pm": a time of day answers "what time" and "when".
_CLOCK = re.compile(
    r"\b(?:[01]?\d|2[0-3]):[0-5]\d\b|\b(?:1[0-2]|0?[1-9])(?:[:.][0-5]\d)?\s*[ap]\.?m\.?(?!\w)", re.I
)
# A figure glued to letters ("PELICAN-417", "#TAG-88", "ref12") is an identifier, not a
# quantity: it does not answer "how many".
_IDENTIFIER_BEFORE = re.compile(r"(?:[A-Za-z][-_/]?|#)$")
OFF_QUESTION = "off every sub-question"


def question_subquestions(question: str, stated: list[str]) -> list[SubQuestion]:
    """The sub-questions a claim may answer: the question's own decomposition, and each
    stated sub-question that adds no content word of its own to the question."""
    own = decompose(question)
    asked = terms(question)
    extra = [s for s in stated if s not in own and terms(s) <= asked]
    subs = own + extra
    return analyse(question, subs) if subs else analyse(question, [question])


def on_subquestion(sq: SubQuestion, text: str) -> bool:
    """Is `text` on this sub-question: its own words, or an answer of its kind beside its
    words or names?"""
    m = match(sq, text)
    if m.answers or m.focus >= 1.0:
        return True  # an answer by the policy's own test, or two of its own words
    if not sq.checkable:
        # every sentence of a page names its subject: the name alone is not relevance
        return m.focus > 0 or (not sq.focus and m.entity > 0)
    about = m.focus > 0 or m.entity > 0
    want = {t for t in sq.answer_types if t in CHECKABLE}
    found = {
        mention.type
        for mention in answer_mentions(sq, text)
        if mention.start < 0 or not _IDENTIFIER_BEFORE.search(text[: mention.start])
    }
    if "date" in want and _CLOCK.search(text):
        found.add("date")
    return about and want <= found


def off_question(text: str, subquestions: list[SubQuestion]) -> bool:
    return not any(on_subquestion(sq, text) for sq in subquestions)


def observed_note(text: str) -> str:
    """The run's ``injection_observed`` entry (<= 200 characters) for a claim dropped here."""
    head = f"claim {OFF_QUESTION} dropped at publication: "
    excerpt = " ".join(text.split())
    room = 200 - len(head) - 2
    if len(excerpt) > room:
        excerpt = excerpt[: room - 1].rstrip() + "…"
    return f'{head}"{excerpt}"'
