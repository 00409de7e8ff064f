"""Everything specific in one text, extracted once (cached): numbers, dates, names, the small
words that change meaning, named speakers, and the token set names are looked up in."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from spanproof.graders.specifics.attribution import attributions_in
from spanproof.graders.specifics.dates import DateMention, extract_dates
from spanproof.graders.specifics.names import extract_entities, token_set
from spanproof.graders.specifics.numbers import Quantity, extract_numbers
from spanproof.graders.specifics.wording import (
    HEDGED_MODALS,
    NEGATIONS,
    QUANTIFIER_GROUPS,
    STRONG_MODALS,
    phrase_in,
)


@dataclass
class Specifics:
    numbers: list[Quantity] = field(default_factory=list)
    dates: list[DateMention] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    quantifiers: set[str] = field(default_factory=set)  # group names present
    strong_modal: bool = False
    hedged_modal: bool = False
    negated: bool = False
    attributions: list[str] = field(default_factory=list)
    tokens: set[str] = field(default_factory=set)


def _lowered(text: str) -> str:
    low = text.lower().replace("’", "'")
    # "not only X but Y" asserts both: neither a negation nor an "only"
    return re.sub(r"\bnot only\b", " ", low)


@lru_cache(maxsize=4096)
def negated(text: str) -> bool:
    """``extract(text).negated`` without the rest of ``extract``: the polarity check asks it
    of every sentence of a span, and reads nothing else of most of them."""
    low = _lowered(text)
    return phrase_in(low, NEGATIONS) or "n't" in low


@lru_cache(maxsize=4096)
def modals(text: str) -> tuple[bool, bool]:
    """(``extract(text).strong_modal``, ``.hedged_modal``) without the rest of ``extract``."""
    return (
        phrase_in(_lowered(text), STRONG_MODALS),
        # "May" the month is not "may" the modal
        phrase_in(re.sub(r"\bMay\b", " ", text).lower(), HEDGED_MODALS),
    )


@lru_cache(maxsize=2048)
def extract(text: str) -> Specifics:
    low = _lowered(text)
    strong_modal, hedged_modal = modals(text)
    return Specifics(
        numbers=extract_numbers(text),
        dates=extract_dates(text),
        entities=extract_entities(text),
        quantifiers={g for g, ws in QUANTIFIER_GROUPS.items() if phrase_in(low, ws)},
        strong_modal=strong_modal,
        hedged_modal=hedged_modal,
        negated=negated(text),
        attributions=attributions_in(text),
        tokens=token_set(text),
    )
