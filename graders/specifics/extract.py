"""Everything specific in one text, extracted once (cached): numbers, dates, names, the small
words that change meaning, named speakers, and the token set names are looked up in."""

from __future__ import annotations

import re
from functools import cached_property, lru_cache

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


class Specifics:
    """What is specific in one text, each part read when first asked for: the audit asks of a
    span only what the claim holds (its names' tokens; its numbers and dates when the claim
    states some), and never its modals, quantifiers or speakers."""

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def numbers(self) -> list[Quantity]:
        return extract_numbers(self.text)

    @cached_property
    def dates(self) -> list[DateMention]:
        return extract_dates(self.text)

    @cached_property
    def entities(self) -> list[str]:
        return extract_entities(self.text)

    @cached_property
    def quantifiers(self) -> set[str]:  # group names present
        low = _lowered(self.text)
        return {g for g, ws in QUANTIFIER_GROUPS.items() if phrase_in(low, ws)}

    @property
    def strong_modal(self) -> bool:
        return modals(self.text)[0]

    @property
    def hedged_modal(self) -> bool:
        return modals(self.text)[1]

    @property
    def negated(self) -> bool:
        return negates(self.text)

    @cached_property
    def attributions(self) -> list[str]:
        return attributions_in(self.text)

    @cached_property
    def tokens(self) -> set[str]:
        return token_set(self.text)


def _lowered(text: str) -> str:
    low = text.lower().replace("’", "'")
    # "not only X but Y" asserts both: neither a negation nor an "only"
    return re.sub(r"\bnot only\b", " ", low)


@lru_cache(maxsize=4096)
def negates(text: str) -> bool:
    """``extract(text).negated``: the polarity check asks it of every sentence of a span."""
    low = _lowered(text)
    return phrase_in(low, NEGATIONS) or "n't" in low


@lru_cache(maxsize=4096)
def modals(text: str) -> tuple[bool, bool]:
    """(``extract(text).strong_modal``, ``.hedged_modal``)."""
    return (
        phrase_in(_lowered(text), STRONG_MODALS),
        # "May" the month is not "may" the modal
        phrase_in(re.sub(r"\bMay\b", " ", text).lower(), HEDGED_MODALS),
    )


@lru_cache(maxsize=2048)
def extract(text: str) -> Specifics:
    return Specifics(text)
