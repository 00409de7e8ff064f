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


@lru_cache(maxsize=2048)
def extract(text: str) -> Specifics:
    low = text.lower().replace("’", "'")
    # "not only X but Y" asserts both: neither a negation nor an "only"
    low = re.sub(r"\bnot only\b", " ", low)
    return Specifics(
        numbers=extract_numbers(text),
        dates=extract_dates(text),
        entities=extract_entities(text),
        quantifiers={g for g, ws in QUANTIFIER_GROUPS.items() if phrase_in(low, ws)},
        strong_modal=phrase_in(low, STRONG_MODALS),
        # "May" the month is not "may" the modal
        hedged_modal=phrase_in(re.sub(r"\bMay\b", " ", text).lower(), HEDGED_MODALS),
        negated=phrase_in(low, NEGATIONS) or "n't" in low,
        attributions=attributions_in(text),
        tokens=token_set(text),
    )
