"""The slot reader's comparison of two values of one slot: whether names, numbers, dates and
groups of values agree, beyond the precision either side writes."""

from __future__ import annotations

import re
from functools import lru_cache

from spanproof.graders.specifics.names import GENERIC_NAME_WORDS
from spanproof.graders.specifics.places import known_place, may_hold
from spanproof.graders.specifics.readings import agrees, comparable

# the reader's internals, split by concern: one package, one reader
from spanproof.graders.specifics.slot_frames import Frame
from spanproof.graders.specifics.slots import CONTRASTS, Value

from spanproof.core.text import fold


def distinctive(name: tuple[str, ...]) -> set[str]:
    return {fold(t).strip(".'") for t in name if len(t.strip(".")) > 1} - GENERIC_NAME_WORDS


def _initials(name: tuple[str, ...]) -> str:
    return "".join(t[0] for t in name if t and t not in ("of", "the", "and", "for"))


def _acronym_of(short: str, name: tuple[str, ...]) -> bool:
    letters = short.replace(".", "").lower()
    return len(letters) >= 2 and letters == _initials(name)


# a word written in capitals, dotted or not ("WHO", "U.N.", "NATO"), possessive aside
_CAPITALS = re.compile(r"\b[A-Z](?:\.?[A-Z]){1,6}\.?(?=['’]s\b|[^\w'’]|$)")


def acronym_in(name: tuple[str, ...], text: str) -> bool:
    """Whether ``text`` writes ``name`` as its initials in capitals ("The WHO's latest
    report" names the World Health Organization)."""
    initials = _initials(name)
    return len(initials) >= 2 and initials in _capitals(text)


@lru_cache(maxsize=4096)  # asked for each of a claim's names against the same span
def _capitals(text: str) -> frozenset[str]:
    return frozenset(m.group(0).replace(".", "").lower() for m in _CAPITALS.finditer(text))


def _may_abbreviate(short: Value, full: Value) -> bool:
    """A name written in capitals whose letters run, in order, through the other name from its
    first letter may be its short form, however that was made ("GSK" / "GlaxoSmithKline",
    "Intl" would be too): letters the name's words no longer show apart, once folded, so
    the test cannot ask for initials. It only keeps a proof from being made."""
    letters = short.text.replace(".", "")
    if len(short.name) != 1 or not 2 <= len(letters) <= 6 or not letters.isupper():
        return False
    rest = iter("".join(full.name))
    return letters[0].lower() == full.name[0][:1] and all(ch in rest for ch in letters.lower())


def name_agrees(c: Value, s: Value, one_kind: bool = False) -> bool | None:
    """True: one name; False: two names of one kind, neither of which may be the other;
    None: cannot tell. ``one_kind``: the slot says both are of one kind, whatever their
    words say (``_names_of_one_kind``)."""
    if c.name == s.name:
        return True
    if len(c.name) == len(s.name):
        diff = [(p, q) for p, q in zip(c.name, s.name, strict=True) if p != q]
        if len(diff) == 1 and any(diff[0][0] in g and diff[0][1] in g for g in CONTRASTS):
            return False  # "North Carolina" / "South Carolina"
    dc, ds = distinctive(c.name), distinctive(s.name)
    if dc & ds or not dc or not ds:
        return True if dc & ds else None
    for short, full in ((c.name, s.name), (s.name, c.name)):
        if len(short) == 1 and (_acronym_of(short[0], full) or _acronym_of(short[0], full[:-1])):
            return True
        # "J. R. Tolley" / "John Robert Tolley": initials for the given names
        if len(short) == len(full) and all(
            a.rstrip(".") == b[: len(a.rstrip("."))] for a, b in zip(short, full, strict=True)
        ):
            return True
    if _may_abbreviate(c, s) or _may_abbreviate(s, c):
        return None
    kinds = {c.name_type, s.name_type}
    if (
        one_kind
        and None in kinds
        and "place" not in kinds
        and not any(known_place(" ".join(n)) for n in (c.name, s.name))
    ):
        return False  # two names the slot makes one kind of, sharing no word: two fillers
    if c.name_type is None or c.name_type != s.name_type:
        return None  # two names of unknown or different kinds: maybe one thing named twice
    if "place" in (c.name_type, s.name_type) and may_hold(" ".join(c.name), " ".join(s.name)):
        return None  # "Manchester" / "England": one may hold the other
    if c.name_type == "person" and (len(dc) < 2 or len(ds) < 2):
        return None  # "Smith" / "Marion": one person goes by a first, last or married name
    return False


def _value_agrees(c: Frame, s: Frame) -> bool | None:
    """True: ``s`` states ``c``'s value; False: another value on one measure; None: the two
    cannot be compared."""
    if c.value.kind == "name" or s.value.kind == "name":
        return name_agrees(c.value, s.value) if c.value.kind == s.value.kind else None
    results = [agrees(x, y) for x in c.readings for y in s.readings]
    if any(r is True for r in results):
        return True
    if results and all(r is False for r in results):
        return False
    return None


def measure(f: Frame) -> set[str]:
    return {r.dim.split(":")[0] for r in f.readings} or {f.value.kind}


def comparable_frames(c: Frame, s: Frame) -> bool:
    if c.value.kind == "name" or s.value.kind == "name":
        return c.value.kind == s.value.kind
    return any(comparable(x, y) for x in c.readings for y in s.readings)


def number_of(f: Frame) -> tuple[float, float] | None:
    r = f.readings[0] if f.readings else None
    if r is None or r.dim in ("weekday", "calendar"):
        return None
    return (r.value, r.end if r.end is not None else r.value)


def odd_member(c_group: list[Frame], s_group: list[Frame]) -> int | None:
    """The one place where two lists of one length, in one order, differ: every other member
    of the claim's list is the span's at the same place, and the claim's member there is no
    member of the span's ("December 2020 and January 2020" / "December 2019 and January 2020").
    A list shares members with another list without stating each of them: only the member the
    span states otherwise at its place is another value. None for anything else (a range, a
    reordered list, two members changed)."""
    if len(c_group) < 2 or len(c_group) != len(s_group):
        return None
    if any(f.value.in_range for f in (*c_group, *s_group)):
        return None
    places = [_value_agrees(c, s) for c, s in zip(c_group, s_group, strict=True)]
    if places.count(False) != 1 or places.count(True) != len(places) - 1:
        return None
    k = places.index(False)
    if any(_value_agrees(c_group[k], s) is not False for s in s_group):
        return None
    return k


def group_agrees(c_group: list[Frame], s_group: list[Frame]) -> bool | None:
    """Whether the span's list or range states the claim's value (or its range)."""
    results = [_value_agrees(c, s) for c in c_group for s in s_group]
    if any(r is True for r in results):
        return True
    for inner, outer in ((c_group, s_group), (s_group, c_group)):
        if len(outer) >= 2 and outer[0].value.in_range:
            spans = [number_of(f) for f in outer]
            points = [number_of(f) for f in inner]
            if (
                all(spans)
                and all(points)
                and {r.dim for f in inner + outer for r in f.readings[:1]}
                and len({f.readings[0].dim for f in inner + outer}) == 1
            ):
                lo = min(a for a, _ in spans)  # type: ignore[misc]
                hi = max(b for _, b in spans)  # type: ignore[misc]
                if all(lo <= a and b <= hi for a, b in points):  # type: ignore[misc]
                    return True
    return False if any(r is False for r in results) else None


_AGE_OR_COUNT = frozenset({"age", "count"})


def same_figure(c_group: list[Frame], f: Frame) -> bool:
    """A bare figure and an age of the same number ("her debut at 17" / "capped as a
    seventeen-year-old"): not one reading, but enough that the claim's figure is stated and a
    rival elsewhere proves nothing."""
    return any(
        rc.dim != rs.dim and {rc.dim, rs.dim} <= _AGE_OR_COUNT and rc.value == rs.value
        for c in c_group
        for rc in c.readings[:1]
        for rs in f.readings[:1]
    )
