"""Whether one place may lie inside another, by ISO 3166 (``pycountry``).

"Born in Manchester" against "born in England" is not a contradiction: one place holds the
other. Two different names in a place slot prove something only when neither can hold the
other: two countries, two regions of which neither is the other's parent, or two names no
ISO list knows (two towns). A name the lists know against one they do not (a country against
a city) may be containment, so it proves nothing.
"""

from __future__ import annotations

from functools import cache


@cache
def _places() -> dict[str, frozenset[str]]:
    """Lower-case name -> the ISO codes of the place and of everything holding it."""
    import pycountry  # loaded only when two place names are compared

    out: dict[str, set[str]] = {}
    for c in pycountry.countries:
        for attr in ("name", "common_name", "official_name"):
            name = getattr(c, attr, None)
            if name:
                out.setdefault(name.lower(), set()).add(c.alpha_2)
    parents = {s.code: s.parent_code for s in pycountry.subdivisions}
    for s in pycountry.subdivisions:
        chain = {s.code, s.country_code}
        parent = s.parent_code
        while parent and parent not in chain:
            chain.add(parent)
            parent = parents.get(parent)
        out.setdefault(s.name.lower(), set()).update(chain)
    return {k: frozenset(v) for k, v in out.items()}


def _codes(name: str) -> frozenset[str] | None:
    low = name.lower().removeprefix("the ")
    return _places().get(low)


def known_place(name: str) -> bool:
    """Whether ISO 3166 names a country or region so ("France", "Leeds", "New Brunswick")."""
    return _codes(name) is not None


def may_hold(a: str, b: str) -> bool:
    """Whether one of two differently named places may lie inside the other (module doc)."""
    ca, cb = _codes(a), _codes(b)
    if ca is None and cb is None:
        return False  # two names no list knows: two towns, two venues
    if ca is None or cb is None:
        return True  # a country or region against a name no list knows: maybe inside it
    own_a = {c for c in ca if _own(a, c)}
    own_b = {c for c in cb if _own(b, c)}
    return bool(own_a & cb) or bool(own_b & ca)


def _own(name: str, code: str) -> bool:
    """Whether ``code`` is the place ``name`` names (not one holding it)."""
    import pycountry

    low = name.lower().removeprefix("the ")
    if len(code) == 2:
        c = pycountry.countries.get(alpha_2=code)
        return c is not None and low in {
            str(getattr(c, a, "")).lower() for a in ("name", "common_name", "official_name")
        }
    s = pycountry.subdivisions.get(code=code)
    return s is not None and s.name.lower() == low
