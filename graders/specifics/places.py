"""Whether one place may lie inside another: ISO 3166 (``pycountry``) for countries and
regions, GeoNames' towns of 15,000 people or more for towns (``lexicons/name_types.tsv.gz``,
built by ``scripts/build_name_types.py``).

"Born in Manchester" against "born in England" is not a contradiction: one place holds the
other. Two different names in a place slot prove something only when neither can hold the
other: two countries, two regions of which neither is the other's parent, a town and a
country it does not lie in, two towns whose centres lie further apart than any town spreads
(``TOWN_REACH_KM``: "Brooklyn" against "New York" may be containment, "Leeds" against
"Lyon" is not). A town against a region of its own country may be containment (the lists do
not say which region holds which town), and a name no list knows against any place may be
too: neither proves anything. The same table lists the census given names by which
``slots.name_type`` knows a person's name ("Sarah Lund").
"""

from __future__ import annotations

import gzip
import math
import unicodedata
from functools import cache, lru_cache
from importlib import resources

_PACKAGE = "spanproof.graders.specifics"
# No town's centre lies further than this from a district or suburb it holds (Greater London
# reaches about 25 km from its centre, Greater Tokyo further, but not as one GeoNames town).
TOWN_REACH_KM = 40.0


# letters Unicode does not decompose into a base letter and a mark
_LETTERS = str.maketrans({"ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "đ": "d", "ł": "l", "þ": "th",
                          "ı": "i", "ð": "d"})  # fmt: skip


def fold(name: str) -> str:
    """A place name as the lists key it: lower case, without diacritics ("Győr" -> "gyor",
    "Tromsø" -> "tromso", "Zürich" -> "zurich"). GeoNames' town names are keyed in ASCII, so
    a name written with its accents is the same town."""
    decomposed = unicodedata.normalize("NFKD", name.lower().translate(_LETTERS))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@cache
def _table() -> tuple[dict[str, str], frozenset[str]]:
    """(town name -> its places, ``CC:lat:lon ...``; the given names), lower case."""
    raw = resources.files(_PACKAGE).joinpath("lexicons", "name_types.tsv.gz").read_bytes()
    towns: dict[str, str] = {}
    given: set[str] = set()
    for line in gzip.decompress(raw).decode().splitlines():
        kind, _, rest = line.partition("\t")
        if kind == "city":
            name, _, where = rest.partition("\t")
            towns[name] = where
        else:
            given.add(rest)
    return towns, frozenset(given)


def given_names() -> frozenset[str]:
    """Given names of the 1990 US census, lower case ("sarah"; "paolo" is not one)."""
    return _table()[1]


@cache
def _regions() -> dict[str, tuple[set[str], set[str]]]:
    """ISO 3166: name, folded (``fold``) -> (the codes it names, the codes holding it)."""
    import pycountry  # loaded once, the first time a name might be a place

    out: dict[str, tuple[set[str], set[str]]] = {}
    for c in pycountry.countries:
        for attr in ("name", "common_name", "official_name"):
            name = getattr(c, attr, None)
            if name:
                out.setdefault(fold(name), (set(), set()))[0].add(c.alpha_2)
    parents = {s.code: s.parent_code for s in pycountry.subdivisions}
    for s in pycountry.subdivisions:
        chain = {s.country_code}
        parent = s.parent_code
        while parent and parent not in chain:
            chain.add(parent)
            parent = parents.get(parent)
        own, held = out.setdefault(fold(s.name), (set(), set()))
        own.add(s.code)
        held.update(chain)
    return out


@lru_cache(maxsize=16384)
def _place(name: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]] | None:
    """(the ids of what the name names, the ids of what holds it, the countries of the towns
    it names), or None for a name no list knows. A town's id is ``town:CC:lat:lon``."""
    low = fold(name).removeprefix("the ")
    region = _regions().get(low)
    where = _table()[0].get(low)
    if region is None and where is None:
        return None
    own, held = (set(region[0]), set(region[1])) if region else (set(), set())
    towns = where.split() if where else []
    own.update(f"town:{t}" for t in towns)
    countries = {t.split(":")[0] for t in towns}
    held.update(countries)
    return frozenset(own), frozenset(held), frozenset(countries)


def load() -> None:
    """Read the lists now (ISO 3166, the towns, the given names), once per process."""
    _table()
    _regions()


def known_place(name: str) -> bool:
    """Whether ISO 3166 or GeoNames names a country, region or town so ("France", "Leeds",
    "New Brunswick", "Lisbon")."""
    return _place(name) is not None


def may_hold(a: str, b: str) -> bool:
    """Whether one of two differently named places may lie inside the other (module doc)."""
    pa, pb = _place(a), _place(b)
    if pa is None and pb is None:
        return False  # two names no list knows: two venues, two villages
    if pa is None or pb is None:
        return True  # a place against a name no list knows: maybe inside it
    (own_a, in_a, towns_a), (own_b, in_b, towns_b) = pa, pb
    if own_a & (own_b | in_b) or own_b & (own_a | in_a):
        return True  # one is the other, or holds it
    # a town against a region of a country it lies in: which region holds it is not listed
    # (a region named as a town of its country, "Leeds" or "Sheffield", is that town)
    regions_a = {c.split("-")[0] for c in own_a if "-" in c and not c.startswith("town:")}
    regions_b = {c.split("-")[0] for c in own_b if "-" in c and not c.startswith("town:")}
    if towns_a & (regions_b - towns_b) or towns_b & (regions_a - towns_a):
        return True
    return any(_km(x, y) < TOWN_REACH_KM for x in own_a for y in own_b)


def _km(a: str, b: str) -> float:
    """How far apart two towns' centres are (``town:CC:lat:lon`` ids; other ids: infinitely)."""
    if not (a.startswith("town:") and b.startswith("town:")):
        return math.inf
    (lat1, lon1), (lat2, lon2) = (map(math.radians, map(float, x.split(":")[2:])) for x in (a, b))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * 6371.0 * math.asin(math.sqrt(h))
