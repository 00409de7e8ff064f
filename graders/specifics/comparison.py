"""Claim against span: which specifics the span does not establish, or states more weakly.
``compare`` is what the audit flags (docs/architecture.md, check 4); which values the span
states *otherwise* is the slot reader's (``graders.specifics.slot_reader``), the one reader
of slots."""

from __future__ import annotations

import re
from dataclasses import dataclass

from spanproof.graders.specifics import lexicon
from spanproof.graders.specifics.attribution import (
    CLAIM_HEDGED,
    OPINION,
    SPAN_ATTRIBUTES,
    claim_attributions,
)
from spanproof.graders.specifics.dates import _YEAR_RANGE, DateMention, date_established
from spanproof.graders.specifics.extract import Specifics, extract
from spanproof.graders.specifics.identifiers import missing_identifiers
from spanproof.graders.specifics.names import (
    distinctive_tokens,
    entity_present,
    entity_tokens,
    first_name_mentioned,
    only_generic,
    refers_back,
    spelled_variant,
    token_present,
)
from spanproof.graders.specifics.numbers import (
    Quantity,
    alpha2digit_safe,
    hedge_before,
    quantities_match,
    within_stated_precision,
)
from spanproof.graders.specifics.wording import (
    BOOSTERS,
    OBLIGATION,
    STRONG_QUANTIFIERS,
    has_phrase,
    hedges_dropped,
    negation_conflicts,
    opposites,
)

from spanproof.core.memo import memo_list
from spanproof.core.prefilter import guarded
from spanproof.core.text import STOPWORDS, fold, stem


@dataclass
class Mismatch:
    kind: str  # number | date | entity | quantifier | modality | negation | attribution | ...
    element: str  # the claim's words that the span does not establish

    def __str__(self) -> str:
        return f"{self.kind}: {self.element}"


# ---------------------------------------------------------------- where a value stands


def _occurrences(text: str, surface: str) -> list[int]:
    """Where ``surface`` stands as a whole token ("2" in "Two ... 2 of", not in "5.25%")."""
    if not surface:
        return []
    rx = rf"(?<![\w.,]){re.escape(surface)}(?![\w]|[.,]\d)"
    return [m.start() for m in re.finditer(rx, text)] or (
        [text.find(surface)] if surface in text else []
    )


def word_after(text: str, surface: str) -> str | None:
    for i in _occurrences(text, surface):
        m = re.match(r"\s*([A-Za-z]+)", text[i + len(surface) :])
        if m:
            return stem(m.group(1).lower())
    return None


def century_established(q: Quantity, claim: str, s: Specifics) -> bool:
    """ "the fifteenth century" is a period: any year of it in the span establishes it."""
    if q.kind != "ordinal" or word_after(claim, q.surface) != stem("century"):
        return False
    lo, hi = (q.value - 1) * 100 + 1, q.value * 100
    return any(
        (d.year is not None and lo <= d.year <= hi)
        or (d.decade is not None and lo <= d.decade + 1 <= hi)
        for d in s.dates
    )


# ---------------------------------------------------------------- comparison


# ---------------------------------------------------------------- established at the precision stated

_ITEM = (
    r"(?:\"[^\"]{1,80}\"|“[^”]{1,80}”|'[^']{1,80}'"
    r"|[A-Z][\w.'’&-]*(?:\s+(?:[A-Z][\w.'’&-]*|of|the|de|van|von))*)"
)
_LIST = re.compile(rf"{_ITEM}(?:\s*,\s*{_ITEM})*,?\s+(?:and|or|&)\s+{_ITEM}")
_PLURAL_NOUN = re.compile(r"\s+(?:[a-z]+\s+)?([a-z]{3,}s)\b")


def enumerated_sizes(span: str) -> set[int]:
    """How many things the span lists: "A, B and C" -> 3; a span naming three dates -> 3."""
    sizes = {
        len(re.split(r"\s*,\s*|,?\s+(?:and|or|&)\s+", m.group(0))) for m in _LIST.finditer(span)
    }
    dated = {(d.year, d.month, d.day) for d in extract(span).dates if d.day is not None}
    if dated:
        sizes.add(len(dated))
    return sizes


def _count_enumerated(q: Quantity, claim: str, span: str) -> bool:
    """ "three dates", "one of three applicants": a count the span shows by listing."""
    if q.kind != "number" or q.unit is not None or not (2 <= q.value <= 20) or q.value % 1:
        return False
    text = claim if q.surface in claim else alpha2digit_safe(claim)
    at = text.find(q.surface)
    if at < 0 or not _PLURAL_NOUN.match(text[at + len(q.surface) :]):
        return False
    return int(q.value) in enumerated_sizes(span)


def number_established(q: Quantity, claim: str, span: str, s: Specifics) -> bool:
    if century_established(q, claim, s):
        return True
    if any(quantities_match(q, sq) for sq in s.numbers):
        return True
    # a number the span spells as a year-like 4-digit figure ("1,200" vs "1200")
    if q.kind == "number" and any(d.year == q.value for d in s.dates):
        return True
    hedge = hedge_before(claim if q.surface in claim else alpha2digit_safe(claim), q.surface)
    if any(within_stated_precision(q, sq, hedge) for sq in s.numbers):
        return True
    return _count_enumerated(q, claim, span)


def _year_range(claim: str, d: DateMention) -> tuple[int, int] | None:
    m = _YEAR_RANGE.fullmatch(d.surface.strip())
    if not m:
        return None
    start, end_raw = int(m.group(1)), m.group(2)
    end = int(end_raw) if len(end_raw) == 4 else start // 100 * 100 + int(end_raw)
    return (start, end) if start < end else None


def date_established_loosely(d: DateMention, span_dates: list[DateMention]) -> bool:
    """``date_established``, plus: a claimed range ("1491–1510", "the 1999–2000 season") is
    met by a year inside it (the claim is the looser statement)."""
    if date_established(d, span_dates):
        return True
    rng = _year_range("", d)
    if rng is None:
        return False
    lo, hi = rng
    return any(x.year is not None and lo <= x.year <= hi for x in span_dates) or any(
        x.decade is not None and x.decade <= hi and x.decade + 9 >= lo for x in span_dates
    )


_QUOTED = re.compile(r"\"([^\"]{2,200})\"|“([^”]{2,200})”")
_LEADING_PHRASE = re.compile(
    r"^(?:(?:in|on|by|during|since|after|before|at|from|as of)\s+)?[\w .’']{0,40}\d{4},?$", re.I
)


def _subject(claim: str, entities: list[str]) -> str | None:
    """The entity the claim is about: the one opening it, perhaps after a leading phrase
    ("In 2013, White recorded ...", "On March 1, 2017 Powell was ...")."""
    if not entities:
        return None
    first = entities[0]
    if only_generic(first) and claim.lstrip().lower().startswith(("the ", "while the ")):
        return first
    at = claim.find(first.split()[0])
    prefix = claim[:at].strip() if at >= 0 else "x"
    if not prefix or (prefix.endswith(",") and len(prefix.split()) <= 8):
        return first
    return first if _LEADING_PHRASE.match(prefix) else None


def _in_quoted_title(claim: str, entity: str, span_tokens: set[str]) -> bool:
    """A name inside a quoted title ("Maiden Heaven: A Tribute to Iron Maiden") is the title's
    word: the title is present when most of its distinctive words are."""
    for m in _QUOTED.finditer(claim):
        title = m.group(1) or m.group(2)
        if entity not in title:
            continue
        words_ = list(dict.fromkeys(distinctive_tokens(title)))
        if words_:
            found = sum(token_present(t, span_tokens) for t in words_)
            return found * 2 >= len(words_) + 1 or found == len(words_)
    return False


def entity_established(
    e: str, claim: str, span: str, s: Specifics, *, strict: bool, subject: str | None
) -> bool:
    if entity_present(e, s.tokens, strict=strict):
        return True
    if strict:
        return False
    if first_name_mentioned(e, span):
        return True
    heads = distinctive_tokens(e) or [t for t in entity_tokens(e) if len(t) > 1]
    if heads and all(
        spelled_variant(t, s.tokens) or token_present(t, s.tokens) for t in heads[-1:]
    ):
        return True
    if _in_quoted_title(claim, e, s.tokens):
        return True
    # the claim's subject, which the span names by pronoun ("Horodecki went mad" / "the
    # architect went crazy ... his daughter"), or a capitalised common noun referring back
    # ("While the Park area remains open" / "It is always open")
    if _in_address(e, span):
        return True
    return e == subject and refers_back(span) and not _other_full_names(claim, span, s)


def _other_full_names(claim: str, span: str, s: Specifics) -> bool:
    """The span names someone the claim does not (a two-word name outside quotation marks,
    which hold titles): then its pronoun may be theirs."""
    claim_tokens = extract(claim).tokens
    quoted = " ".join(m.group(0) for m in _QUOTED_ANY.finditer(span))
    return any(
        len(distinctive_tokens(e)) >= 2
        and not entity_present(e, claim_tokens, strict=False)
        and e not in quoted
        for e in s.entities
    )


_QUOTED_ANY = re.compile(r"\"[^\"]{2,200}\"|“[^”]{2,200}”|(?<!\w)'[^']{2,200}'(?!\w)")


def _in_address(entity: str, span: str) -> bool:
    """A name written inside a web address or handle ("The A.V. Club" in avclub.com)."""
    letters = "".join(c for c in fold(entity) if c.isalnum())
    if letters.startswith("the") and len(letters) > 8:
        letters = letters[3:]
    return len(letters) >= 5 and any(
        letters in tok.lower() for tok in re.findall(r"\S*[./@#]\S*", span)
    )


@memo_list()
def unestablished(
    claim: str, span: str, *, strict_entities: bool = False, ordinal_words: bool = False
) -> list[Mismatch]:
    """The claim's numbers, dates and names the span does not establish (docs/architecture.md, check 4),
    each compared at the precision the claim states it."""
    c, s = extract(claim), extract(span)
    out: list[Mismatch] = []
    for q in c.numbers:
        if not ordinal_words and q.kind == "ordinal" and not q.surface[:1].isdigit():
            continue  # "first", "third": too often idiom ("first time") to overrule a judge
        if not number_established(q, claim, span, s):
            out.append(Mismatch("number", q.surface))
    for d in c.dates:
        if not date_established_loosely(d, s.dates):
            out.append(Mismatch("date", d.surface))
    subject = _subject(claim, c.entities)
    for e in c.entities:
        if not entity_established(e, claim, span, s, strict=strict_entities, subject=subject):
            out.append(Mismatch("entity", e))
    # a reference code, web address or file name names one thing exactly ("PELICAN-417",
    # "example.org/x"): a claim carrying one the span never states is about something else
    for ident in missing_identifiers(claim, span):
        out.append(Mismatch("identifier", ident))
    return out


def named_only_by_pronoun(claim: str, span: str) -> list[str]:
    """The claim's subject, which the span never names but refers to by pronoun ("Horodecki
    went mad" / "the architect ... his daughter"): established for ``compare``, but a careful
    reader's inference, so the audit flags it for a person."""
    c, s = extract(claim), extract(span)
    subject = _subject(claim, c.entities)
    if subject is None:
        return []
    with_pronoun = entity_established(subject, claim, span, s, strict=False, subject=subject)
    without = entity_established(subject, claim, span, s, strict=False, subject=None)
    return [subject] if with_pronoun and not without else []


def compare(
    claim: str, span: str, *, soft: bool = False, strict_entities: bool = False
) -> list[Mismatch]:
    """The claim's specifics the span does not establish.

    Default (the audit, docs/architecture.md check 4): numbers (ordinal *words* excepted), dates and named
    entities (head rule, see ``entity_present``). ``soft=True`` (the rules judge) adds
    ordinal words, quantifiers, modality, negation and attribution; ``strict_entities``
    requires every token of a name.
    """
    c, s = extract(claim), extract(span)
    out = unestablished(claim, span, strict_entities=strict_entities, ordinal_words=soft)
    if not soft:
        return out
    for g in STRONG_QUANTIFIERS:
        if g in c.quantifiers and g not in s.quantifiers:
            out.append(Mismatch("quantifier", g))
    if c.strong_modal and s.hedged_modal and not s.strong_modal:
        out.append(Mismatch("modality", "must/will (span hedges)"))
    # an obligation or a certainty the span does not state at all ("must be made" where the
    # span says "are made"; "certainly grew" where it says "grew")
    c_low, s_low = claim.lower(), span.lower()
    for group in (OBLIGATION, BOOSTERS):
        said = has_phrase(c_low, group)
        if said and not has_phrase(s_low, group):
            out.append(Mismatch("modality", f"{said} (span does not say it)"))
            break
    conflicts = negation_conflicts(claim, span)
    if c.negated and not s.negated and not any(claim_neg for _, claim_neg in conflicts):
        out.append(Mismatch("negation", "not"))  # the claim denies; the span denies nothing
    for word, claim_neg in conflicts:
        out.append(
            Mismatch("negation", f"not {word}" if claim_neg else f"{word} (span: not {word})")
        )
    for hedge, word in hedges_dropped(claim, span):
        out.append(Mismatch("modality", f"{word} (span: {hedge} {word})"))
    for a in c.attributions:
        if not entity_present(a, s.tokens, strict=False):
            out.append(Mismatch("attribution", a))
    for x, y in opposites(claim, span):
        out.append(Mismatch("direction", f"{x} (span: {y})"))
    for word in scope_widened(claim, span, s.tokens):
        out.append(Mismatch("scope", word))
    return out


_COORD = re.compile(
    r"(?<![\w.'’/-])([A-Za-z][\w-]+)\s+(?:and|or|&)\s+([A-Za-z][\w-]+)(?![\w.'’/-]*\w)"
)
_SHARE_OF = re.compile(
    r"(\d[\d.,]*\s?(?:%|percent|per cent))\s+of\s+(?:the\s+|all\s+)?([A-Za-z][\w-]+)", re.I
)


def scope_widened(claim: str, span: str, span_tokens: set[str]) -> list[str]:
    """Words by which the claim covers more than the span (docs/architecture.md: "importers vs
    manufacturers" is PARTIAL): a noun coordinated with one the span names ("manufacturers
    and importers" where the span has only manufacturers), and another base for the same
    share ("64% of the population" where the span says "64% of adults"). Verbs (-ed/-ing)
    are left out: on the WiCE development pairs coordinated verbs fired on 4 SUPPORTED
    pairs and nouns on 2 PARTIAL ones."""
    out = []
    for m in _COORD.finditer(claim):
        a, b = fold(m.group(1)), fold(m.group(2))
        if {a, b} & STOPWORDS or any(w.endswith(("ed", "ing")) for w in (a, b)):
            continue
        if not (m.group(2).islower() and (m.group(1).islower() or not claim[: m.start()].strip())):
            continue  # names are the entity check's; this is about kinds of things
        has_a, has_b = token_present(a, span_tokens), token_present(b, span_tokens)
        if has_a != has_b:
            out.append(m.group(2) if has_a else m.group(1))
    span_bases = {
        m.group(1).replace(" ", "").lower(): m.group(2).lower() for m in _SHARE_OF.finditer(span)
    }
    for m in _SHARE_OF.finditer(claim):
        base = span_bases.get(m.group(1).replace(" ", "").lower())
        word = m.group(2).lower()
        if base and stem(base) != stem(word) and not token_present(word, span_tokens):
            out.append(f"{m.group(2)} (span: {m.group(1)} of {base})")
    return out


# ---------------------------------------------------------------- stronger than the span
# Findings here make the claim a different claim, not a narrower one: the rules judge
# answers NOT_SUPPORTED (docs/architecture.md: "different attribution", "opinion stated as fact",
# modality "must" vs "is expected to").

_COMPLETED = re.compile(
    # present perfect or "already"; a past perfect ("had joined") is usually reported
    # speech about a plan, so it is not counted (two WiCE PARTIAL pairs)
    r"\b(?:has|have)\s+(?:already\s+|now\s+|just\s+|recently\s+|finally\s+)?"
    r"(?:been\s+)?\w+(?:ed|en|wn|ne|ht|lt|un|ld|de)\b|\balready\b",
    re.I,
)
_FUTURE_OR_PLAN = guarded(
    re.compile(
        r"\b(?:will|shall|plans? to|planning to|planned to|(?:is|are) set to|intends? to|"
        r"(?:is|are) going to|(?:is|are) expected to|(?:is|are) scheduled to|aims? to|proposes? to|"
        r"proposed|would)\b",
        re.I,
    )
)
# Opposite verbs of change or decision: the claim says one, the span the other about the
# same thing. (before/after, open/closed, join/leave are left PARTIAL: on the WiCE
# development pairs they fired on 3 pairs, none a contradiction.)
_CHANGE_OPPOSITES = lexicon.words("change_opposites")
_MODAL_HEDGES = {"may", "might", "could", "can", "expected to", "believed to", "thought to",
                 "said to", "likely", "possibly", "probably"}  # fmt: skip


@memo_list()
def stronger_than_span(claim: str, span: str) -> list[Mismatch]:
    """What makes the claim a different assertion from the span's: a speaker the span does
    not name while it names another, an opinion in the span stated as fact, an obligation or
    certainty the span only proposes or hedges, a done deed the span only plans."""
    c, s = extract(claim), extract(span)
    out: list[Mismatch] = []
    for said, answered in opposites(claim, span):
        if said in _CHANGE_OPPOSITES and answered in _CHANGE_OPPOSITES:
            out.append(Mismatch("direction", f"{said} (span: {answered})"))
    if SPAN_ATTRIBUTES.search(span):
        for who in claim_attributions(claim):
            if entity_tokens(who) and not entity_present(who, s.tokens, strict=False):
                out.append(Mismatch("attribution", f"{who} (span attributes it to another)"))
                break
    op = OPINION.search(span)
    if op and not CLAIM_HEDGED.search(claim):
        out.append(Mismatch("attribution", f"stated as fact (span: {op.group(0)})"))
    if c.strong_modal and s.hedged_modal and not s.strong_modal:
        out.append(Mismatch("modality", "must/will (span: hedged or proposed)"))
    else:
        for hedge, word in hedges_dropped(claim, span):
            if hedge in _MODAL_HEDGES:
                out.append(Mismatch("modality", f"{word} (span: {hedge} {word})"))
                break
    if (
        _COMPLETED.search(claim)
        and _FUTURE_OR_PLAN.search(span)
        and not _COMPLETED.search(span)
        and not _FUTURE_OR_PLAN.search(claim)
    ):
        out.append(Mismatch("modality", "done (span: planned or future)"))
    return out
