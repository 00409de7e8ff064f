"""Words pint cannot read as a unit, told without its expression parser.

The slot reader asks pint whether the word after a figure is a unit ("5 km", "42 homes"),
once per word; pint's ``parse_expression`` preprocesses the word, runs Python's tokenizer on
it, builds an expression tree and raises UndefinedUnitError when the word names no unit:
about half a millisecond a word, for the many words after figures that are not units. For
one lower-case ASCII word that path is fixed: the preprocessing leaves it as it is (its
rewrites need a space, a digit or a symbol), the tokenizer reads one name, and the name is
evaluated as a unit by ``get_name`` (unless it is one of the few names the evaluation answers
itself), which looks it up in the registry's units and then by ``parse_unit_name`` (prefixes
and plural endings), raising when both find nothing. The same two look-ups answer here.
tests/graders/test_unit_names.py holds the answer equal to pint's on every word of the
WordNet table and the guard pairs.
"""

from __future__ import annotations

import re
from typing import Any

_WORD = re.compile(r"[a-z]+")
# the names pint's token evaluation answers itself, before looking a unit up
_OWN_NAMES = frozenset({"dimensionless", "inf", "infinity", "nan"})


def names_no_unit(registry: Any, expression: str) -> bool:
    """Whether ``registry.parse_expression(expression)`` fails because ``expression`` is one
    lower-case word naming no unit of ``registry`` (False: unknown, pint must be asked)."""
    return (
        _WORD.fullmatch(expression) is not None
        and expression not in _OWN_NAMES
        and expression not in registry._units
        and not registry.parse_unit_name(expression)
    )
