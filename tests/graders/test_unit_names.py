"""A word after a figure that names no unit is told without pint's expression parser, with
pint's own answer: the two look-ups its parser ends in for one lower-case word."""

from __future__ import annotations

import re

import pytest
from spanproof.graders.specifics import concepts, readings
from spanproof.graders.specifics.unit_names import names_no_unit

from tests.recording import record_calls

# unit names and forms pint reads (plurals, prefixes, symbols) and the names its evaluation
# answers itself, beside words that are no unit
_WORDS = [
    "km", "kms", "metres", "meters", "kilometres", "miles", "hectares", "acres", "feet", "ft",
    "tonnes", "tons", "kg", "kilos", "mph", "gallons", "litres", "hours", "mins", "mm", "gb",
    "bytes", "dimensionless", "inf", "infinity", "nan", "in", "and", "print", "residents",
    "homes", "people", "percent", "points", "votes", "seats", "albums", "storeys",
]  # fmt: skip


def _pint_fails(registry, word: str) -> bool:  # type: ignore[no-untyped-def]
    try:
        registry.parse_expression(word)
    except Exception:
        return True
    return False


def test_a_word_told_to_name_no_unit_is_one_pint_cannot_parse():
    registry = readings._units()
    table = sorted(w for w in concepts._table() if re.fullmatch(r"[a-z]+", w))
    # every 40th single word of the WordNet table (all of them agree: 39,798 words)
    words = table[::40] + _WORDS
    told = [w for w in words if names_no_unit(registry, w)]
    assert len(told) > len(words) // 2  # most words are no unit: the check is not vacuous
    assert [w for w in told if not _pint_fails(registry, w)] == []
    # and the units pint reads are never told to be none
    assert not any(names_no_unit(registry, w) for w in ("km", "metres", "tons", "inf", "in"))


def test_only_one_lower_case_word_is_told_without_pint():
    registry = readings._units()
    for expression in ("new homes", "Homes", "homes2", "square feet", "m/s", "km²", ""):
        assert not names_no_unit(registry, expression)


def test_a_word_naming_no_unit_is_not_parsed(monkeypatch: pytest.MonkeyPatch):
    registry = readings._units()
    parsed = record_calls(monkeypatch, registry, "parse_expression")
    readings._pint_unit.cache_clear()
    assert readings._pint_unit("residents") is None
    assert parsed == []
    # a unit is still parsed, and read
    assert readings._pint_unit("metres") == ("[length]", 1.0)
    assert parsed == ["meters"]
    readings._pint_unit.cache_clear()
