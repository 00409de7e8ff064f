"""A compound question split into its sub-questions by rule, each then analysed; a later part
that names nothing of its own borrows the first part's names."""

from __future__ import annotations

import re

from spanproof.agent.question.subquestion import SubQuestion, analyse_subquestion, name_words
from spanproof.agent.question.words import AUX, term, terms

from spanproof.core.text import STOPWORDS

_SPLIT_AND = re.compile(
    r",?\s+(?:and|as well as|plus|but)\s+(?=(?:(?:in|on|at|from|for|by|to|with|of|since|until|"
    r"after|before|during|under|against|between|among|over)\s+)?(?:who|whom|whose|what|when|"
    r"where|why|how|which|is|are|was|were|did|does|do|has|have)\b)",
    re.I,
)


def decompose(question: str, max_subquestions: int = 3) -> list[str]:
    """Rule-based decomposition: split on question marks, semicolons, and ' and <wh-word>'
    (with a preposition allowed before it: "..., and from how many?").

    "When was X founded and who founded it?" -> ["When was X founded?", "who founded it?"].
    A part with no content words ("When" in "When and where ...") joins the next part. A
    later part that names nothing of its own borrows the first part's names, in brackets.
    """
    parts: list[str] = []
    for chunk in re.split(r"(?<=\?)\s+|;\s*", question.strip()):
        parts.extend(p for p in _SPLIT_AND.split(chunk) if p and p.strip())
    cleaned: list[str] = []
    pending = ""  # "When" of "When and where did ...": joins the part that follows
    for part in parts:
        p = part.strip().rstrip("?.! ").strip()
        if not p:
            continue
        if not terms(p) and not re.search(r"\b(many|much|old|long|far)\b", p, re.I):
            pending += p + " and "
            continue
        cleaned.append(pending + p + "?")
        pending = ""
    if pending and cleaned:
        cleaned[-1] = cleaned[-1].rstrip("?") + " " + pending.removesuffix(" and ").strip() + "?"
    if not cleaned:
        cleaned = [question.strip()]
    if len(cleaned) > max_subquestions:
        head = cleaned[: max_subquestions - 1]
        tail = " ".join(c.rstrip("?") for c in cleaned[max_subquestions - 1 :]) + "?"
        cleaned = head + [tail]
    first = re.sub(r"^\W*\w+", "", cleaned[0])  # the sentence-initial capital is not a name
    # A year written before the name belongs to it: "(2019 World Snooker Championship)".
    names = re.findall(
        r"(?:\b\d{4}\s+)?\b[A-Z][\w'’.|-]*(?:\s+(?:of\s+|the\s+|in\s+)?[A-Z][\w'’.|-]*)*", first
    )
    subject = (
        names[0]
        if names
        else " ".join(
            w
            for w in re.findall(r"\w+", first)
            if w.lower() not in STOPWORDS and w.lower() not in AUX
        )
    )
    out = []
    for i, c in enumerate(cleaned):
        if i and subject:
            own_name = re.search(r"\s[A-Z]", re.sub(r"^\W*\w+", "", c))
            pronoun = re.search(r"\b(it|its|they|them|their|he|him|his|she|her)\b", c, re.I)
            named = (own_name and not pronoun) or bool(terms(subject) & terms(c))
            if not named:
                c = c.rstrip("?") + " (" + subject + ")?"
        out.append(c)
    return out


def question_subject(question: str) -> set[str]:
    """Terms of the names a question is about (capitalised words after the first)."""
    return {term(w) for w in name_words(question)}


def analyse(
    question: str, subquestions: list[str] | None = None, max_subquestions: int = 3
) -> list[SubQuestion]:
    """Every sub-question of `question` analysed (decomposed by rule unless given)."""
    subs = subquestions or decompose(question, max_subquestions)
    subject = question_subject(subs[0]) if subs else set()
    out: list[SubQuestion] = []
    for s in subs:
        out.append(analyse_subquestion(s, subject, out[-1] if out else None))
    return out
