"""A value read into a typed, normalised quantity, and whether two readings state one value.

``read(text, value)`` turns a value found by ``slots.values_of`` into a ``Reading``: what it
measures (``dim``) and where it lies on that measure, in one unit per measure, at the
precision its writer gave it:

- counts (what they count is the slot's business, not the reading's), ordinals, ages;
- shares: a percentage, a fraction, "one in five" all lie on one scale (0.2);
- money: an amount in one currency ("£3 million" is not "$3 million");
- physical quantities through ``pint``: the words after a figure are read as a unit
  ("3.2 km", "3,200 metres", "30 square kilometres", "500 hectares", "300 kilometres per
  hour") and converted to base units, so "5 km" meets "5,000 m" and not "500 m";
- lengths of time: "three decades", "30 years", "a quarter of a century", "11 weeks";
- dates at every granularity as the interval of days they cover (a day, a month, a year, a
  decade, a century), a date in figures both ways it can be read; a month or a day without
  a year as a point of the calendar; weekdays, and the weekday a full date falls on.

``agrees(c, s)``: True when ``s`` states ``c``'s value at the precision either side writes
(a rounding either way, a hedge's range, a date inside the claim's period), False when it
states another value beyond that precision, None when the two cannot be compared.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from typing import Any

from spanproof.graders.specifics.numbers import (
    NEAR_SHARE,
    Quantity,
    rounding_unit,
)
from spanproof.graders.specifics.slots import Value, values_of
from spanproof.graders.specifics.unit_names import names_no_unit

# one unit per measure: base units of pint; the length of a year in days for dates
_YEARS = {"year": 1.0, "decade": 10.0, "century": 100.0, "millennium": 1000.0}
_UNIT_WORDS = re.compile(r"[\s-]*((?:square|sq\.?|cubic)\s+)?([A-Za-z/²³]+(?:\s+per\s+[A-Za-z]+)?)")
# dimensions a figure's unit may have; any other pint reading of a word ("a", "in", "point")
# is a word, not a unit
_DIMENSIONS = frozenset(
    ["[length]", "[length] ** 2", "[length] ** 3", "[mass]", "[time]", "[length] / [time]",
     "[mass] * [length] ** 2 / [time] ** 3", "[mass] * [length] ** 2 / [time] ** 2"]
)  # fmt: skip
# words pint reads as units that are English words first ("a" is a year, "in" an inch)
_NOT_UNITS = frozenset(
    [
        "a",
        "at",
        "in",
        "min",
        "h",
        "s",
        "g",
        "t",
        "b",
        "c",
        "d",
        "e",
        "point",
        "line",
        "turn",
        "count",
        "bit",
        "byte",
        "degree",
        "degrees",
        "stone",
        "stones",
        "sheet",
        "sheets",
        "round",
        "rounds",
    ]
)


@dataclass(frozen=True)
class Reading:
    dim: str  # count | share | money:<code> | age | ordinal | <pint dimensionality> | date | calendar | weekday | direction[:from]
    value: float  # in the measure's one unit (a date: the first day's ordinal)
    unit: float  # the rounding unit the figure is written to, in the same unit
    hedge: str | None = None
    end: float | None = None  # a date: the last day's ordinal (the interval the text covers)
    weekday: int | None = None  # a weekday, or the weekday a full date falls on
    month: int | None = None  # a date without a year: its month and day
    day: int | None = None


@cache
def _units() -> Any:
    import pint  # 0.4 s to load its definitions: once per process (``load_units``)

    return pint.UnitRegistry()


def load_units() -> None:
    """Load pint's unit definitions now rather than at the first figure with a word after it."""
    _units()


@lru_cache(maxsize=4096)
def _pint_unit(words: str) -> tuple[str, float] | None:
    """(dimensionality, base units per one) of a unit written in words, or None."""
    low = words.lower().strip()
    if low in _NOT_UNITS or not low:
        return None
    low = low.replace("sq ", "square ").replace("sq. ", "square ")
    low = low.replace("metres", "meters").replace("metre", "meter")
    low = low.replace("litres", "liters").replace("litre", "liter")
    expression = low.replace(" per ", " / ")
    if names_no_unit(_units(), expression):
        return None  # what pint's parser ends in for such a word, at a thirtieth of the cost
    try:
        q = _units().parse_expression(expression)
        base = q.to_base_units()
    except Exception:  # not a unit pint knows: a word
        return None
    dims = str(q.dimensionality)
    if dims not in _DIMENSIONS or not hasattr(base, "magnitude"):
        return None
    return dims, float(base.magnitude)


def _unit_after(text: str, end: int, given: str | None) -> tuple[str, float, int] | None:
    """The unit written right after a figure ending at ``end``: (dimensionality, factor to
    base units, where the unit's words end)."""
    m = _UNIT_WORDS.match(text, end)
    if not m:
        return None
    words = (m.group(1) or "") + m.group(2)
    for candidate, stop in ((words, m.end()), (m.group(2), m.end(2))):
        if " per " in candidate and candidate not in (words,):
            continue
        found = _pint_unit(candidate)
        if found is None and " per " in candidate:
            head = candidate.split(" per ")[0]
            found = _pint_unit((m.group(1) or "") + head)
            stop = m.start(2) + len(head)
        if found is not None:
            return found[0], found[1], stop
    return None


def _time_unit(word: str | None) -> float | None:
    if not word:
        return None
    low = word.lower().rstrip("s").replace("centurie", "century")
    return _YEARS.get(low)


def _quantity_reading(text: str, v: Value, q: Quantity) -> Reading | None:
    if q.kind == "ordinal":
        return Reading("ordinal", q.value, 0.0, v.hedge)
    if q.kind == "age":
        return Reading("age", q.value, 1.0, v.hedge)
    unit = rounding_unit(q.surface, q.value) if q.kind not in ("fraction",) else 0.0
    if q.kind in ("percent", "fraction"):
        return Reading("share", q.comparable(), unit / 100 if q.kind == "percent" else 0.0, v.hedge)
    if q.kind == "currency":
        return Reading(f"money:{q.unit}", q.value, unit, v.hedge)
    years = _time_unit(q.unit)
    if years is not None:  # "three decades", "30 years": a length of time, in seconds
        per = years * 365.25 * 86400
        return Reading("[time]", q.value * per, (unit or 1.0) * per, v.hedge)
    found = _unit_after(text, _figure_end(text, v), q.unit)
    if found is not None:
        dims, factor, _ = found
        return Reading(dims, q.value * factor, unit * factor, v.hedge)
    if q.unit is not None and q.unit not in ("people", "persons"):
        return Reading("count", q.value, unit, v.hedge)  # "7 albums": what it counts is the slot's
    return Reading("count", q.value, unit, v.hedge)


# compiled once: asked for every quantity of every text, several times (``unit_end``)
_FIGURE = re.compile(
    r"[^\d]*\d[\d,.]*(?:\s?(?:thousand|million|billion|trillion|bn|mn|k)\b)?", re.I
)
_WORDS_BEFORE_UNIT = re.compile(r"[A-Za-z -]+?(?=\s+[a-z]+$)")


def _figure_end(text: str, v: Value) -> int:
    """Where the figure of a quantity ends (before any unit word it was read with)."""
    return _figure_end_of(v.start, v.text)


def _figure_end_of(start: int, surface: str) -> int:
    m = _FIGURE.match(surface)
    if m and any(ch.isdigit() for ch in surface):
        return start + m.end()
    m = _WORDS_BEFORE_UNIT.match(surface)  # "three decades" -> after "three"
    return start + (m.end() if m else len(surface))


def _days(y: int, m: int = 1, d: int = 1) -> int:
    return dt.date(y, m, d).toordinal()


def _last_day(y: int, m: int) -> int:
    return _days(y + (m == 12), m % 12 + 1) - 1


def _date_reading(v: Value, d: Any) -> Reading | None:
    if d.since:
        return None  # a period from a point: its own slot
    if d.century is not None:
        lo = (d.century - 1) * 100 + 1
        return Reading("date", _days(max(lo, 1)), 0.0, None, _days(min(lo + 99, 9999), 12, 31))
    if d.decade is not None:
        return Reading("date", _days(d.decade), 0.0, None, _days(d.decade + 9, 12, 31))
    if d.year is None:
        if d.quarter is not None:
            return Reading("quarter", d.quarter, 0.0)
        if d.month is None:
            return None
        return Reading("calendar", d.month, 0.0, None, month=d.month, day=d.day)
    if d.quarter is not None and d.month is None:
        m0 = 3 * (d.quarter - 1) + 1
        return Reading("date", _days(d.year, m0), 0.0, None, _last_day(d.year, m0 + 2))
    if d.month is None:
        return Reading("date", _days(d.year), 0.0, None, _days(d.year, 12, 31))
    if d.day is None:
        return Reading("date", _days(d.year, d.month), 0.0, None, _last_day(d.year, d.month))
    try:
        day = _days(d.year, d.month, d.day)
    except ValueError:
        return None
    return Reading("date", day, 0.0, None, day, weekday=dt.date.fromordinal(day).weekday(),
                   month=d.month, day=d.day)  # fmt: skip


def in_year(r: Reading, year: int) -> Reading | None:
    """A month (and day) without a year, read in ``year`` ("April" of "April-June 2017")."""
    if r.dim != "calendar" or r.month is None:
        return None
    if r.day is None:
        return Reading("date", _days(year, r.month), 0.0, None, _last_day(year, r.month))
    try:
        day = _days(year, r.month, r.day)
    except ValueError:
        return None
    return Reading("date", day, 0.0, None, day, weekday=dt.date.fromordinal(day).weekday(),
                   month=r.month, day=r.day)  # fmt: skip


def year_of(r: Reading) -> int | None:
    """The year a date reading lies in (None for anything else)."""
    return dt.date.fromordinal(int(r.value)).year if r.dim == "date" else None


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def read(text: str, v: Value) -> tuple[Reading, ...]:
    """Every way ``v`` can be read (one, or two for a date in figures such as "7/1/2018")."""
    return _read(text, v)


@lru_cache(maxsize=16384)
def _read(text: str, v: Value) -> tuple[Reading, ...]:
    if v.kind == "quantity" and v.quantity is not None:
        r = _plain(text, v)
        if r is not None and r.dim.startswith("["):
            return _compound(text, v, r)
        return (r,) if r else ()
    if v.kind == "weekday" and v.weekday:
        return (
            Reading("weekday", _WEEKDAYS.index(v.weekday), 0.0, weekday=_WEEKDAYS.index(v.weekday)),
        )
    if v.kind == "direction" and v.bearing is not None:
        sense = "direction:from" if v.coming_from else "direction"
        return (Reading(sense, v.bearing, 0.0),)
    if v.kind == "date" and v.date is not None:
        out = [r for d in (v.date, v.alt_date) if d is not None and (r := _date_reading(v, d))]
        return tuple(out)
    return ()


_COMPOUND_GAP = re.compile(r"\s+(?:and\s+)?")


@lru_cache(maxsize=16384)
def _plain(text: str, v: Value) -> Reading | None:
    """``v``'s reading alone, before a compound joins it (read once: its neighbours ask too)."""
    return _quantity_reading(text, v, v.quantity) if v.quantity is not None else None


def _measured(text: str, w: Value, dim: str) -> tuple[Reading, float] | None:
    """``w``'s reading on the measure ``dim`` and the size of its unit, or None."""
    if w.kind != "quantity" or w.quantity is None or not w.quantity.value:
        return None
    r = _plain(text, w)
    return (r, r.value / w.quantity.value) if r is not None and r.dim == dim else None


def _compound(text: str, v: Value, r: Reading) -> tuple[Reading, ...]:
    """A measure written in two units, "3 hours 52 minutes", "6 feet 2 inches", "2 years and
    3 months", is one value: the larger unit's part carries the smaller's, at its precision,
    and the smaller part alone is no value (52 minutes is not how long it took)."""
    own = _measured(text, v, r.dim)
    if own is None:
        return (r,)
    values = values_of(text)
    at = next((i for i, w in enumerate(values) if (w.start, w.end) == (v.start, v.end)), None)
    if at is None:
        return (r,)  # a value read apart from its text's reading (no neighbours to join)
    if at > 0 and _COMPOUND_GAP.fullmatch(text[unit_end(text, values[at - 1]) : v.start]):
        larger = _measured(text, values[at - 1], r.dim)
        if larger is not None and larger[1] > own[1]:
            return ()
    total, unit, per = r.value, r.unit, own[1]
    for before, w in zip(values[at:], values[at + 1 :], strict=False):
        if not _COMPOUND_GAP.fullmatch(text[unit_end(text, before) : w.start]):
            break
        smaller = _measured(text, w, r.dim)
        if smaller is None or not smaller[1] < per:
            break
        total, unit, per = total + smaller[0].value, smaller[0].unit, smaller[1]
    return (replace(r, value=total, unit=unit),)


def unit_end(text: str, v: Value) -> int:
    """Where the unit words written after a quantity end (the value's own end when none)."""
    if v.kind != "quantity" or v.quantity is None:
        return v.end
    return _unit_end(text, v.start, v.end, v.text, v.quantity.unit)


# asked of each quantity by the layout, by its frame (twice) and by the words a slot rests on:
# what it reads of the value (where it stands, its words, its unit) is the key
@lru_cache(maxsize=16384)
def _unit_end(text: str, start: int, end: int, surface: str, unit: str | None) -> int:
    found = _unit_after(text, _figure_end_of(start, surface), unit)
    return max(end, found[2]) if found else end


# ---------------------------------------------------------------- do two readings agree


def comparable(c: Reading, s: Reading) -> bool:
    if c.dim == s.dim:
        return True
    if {c.dim, s.dim} == {"date", "weekday"}:
        return True
    if {c.dim, s.dim} == {"date", "calendar"}:
        return True
    return c.dim.startswith("money:") and s.dim.startswith("money:")


def _in_hedged_range(x: float, around: float, hedge: str, unit: float) -> bool:
    if hedge == "near":
        return abs(x - around) <= max(NEAR_SHARE * abs(around), unit / 2) + 1e-9
    if hedge == "just_below":
        return around * (1 - NEAR_SHARE) - 1e-9 <= x <= around + 1e-9
    if hedge in ("above", "at_least"):
        return x >= around - 1e-9
    if hedge in ("below", "at_most"):
        return x <= around + 1e-9
    return False


# "more than", "at least", "fewer than": a bound, which a figure beyond it also meets; not
# "up to" or "as many as", which state the cap itself ("up to 900 jobs" / "up to 600 jobs")
_LOWER_BOUNDS = frozenset({"above", "at_least"})
_UPPER_BOUNDS = frozenset({"below"})


def _number_agrees(c: Reading, s: Reading) -> bool | None:
    a, b = c.value, s.value
    exact = abs(a - b) < max(c.unit, s.unit) / 2 or abs(a - b) <= 1e-9 * max(1.0, abs(a))
    if c.dim == "share" and 0.0 in (c.unit, s.unit):
        # "a third" is written "33%": a fraction meets a percentage rounded to the point
        exact = exact or abs(a - b) <= 0.005 + 1e-9
    if c.hedge == s.hedge:
        if c.hedge in _LOWER_BOUNDS or c.hedge in _UPPER_BOUNDS:
            # two bounds the same way: "over 11 years" states "more than a decade"; "over 9"
            # neither states nor denies "more than 10"
            within = b >= a if c.hedge in _LOWER_BOUNDS else b <= a
            return True if exact or within else None
        return exact
    if c.hedge and not s.hedge:
        return exact or _in_hedged_range(b, a, c.hedge, c.unit)
    if s.hedge and not c.hedge:
        return exact or _in_hedged_range(a, b, s.hedge, s.unit)
    return None  # two different hedges: two ranges


def _date_agrees(c: Reading, s: Reading) -> bool | None:
    if c.dim == "weekday" or s.dim == "weekday":
        if c.weekday is None or s.weekday is None:
            return None
        return c.weekday == s.weekday
    if c.dim == "calendar" or s.dim == "calendar":
        # a month (and day) without a year against any date: compare what both state
        if c.month is None or s.month is None:
            return None
        if c.month != s.month:
            return False
        if c.day is not None and s.day is not None:
            return c.day == s.day
        return True if c.day is None else None
    c_end = c.end if c.end is not None else c.value
    s_end = s.end if s.end is not None else s.value
    if c.value <= s.value and s_end <= c_end:
        return True  # the span states a point inside the claim's period (or the same one)
    if s_end < c.value or c_end < s.value:
        return False
    return None  # the claim is more precise than the span, or the two overlap


def agrees(c: Reading, s: Reading) -> bool | None:
    """Whether ``s`` states ``c``'s value (module docstring)."""
    if not comparable(c, s):
        return None
    if c.dim.startswith("money:") and c.dim != s.dim:
        return False  # another currency: another amount
    if c.dim in ("date", "weekday", "calendar") or s.dim in ("weekday", "calendar"):
        return _date_agrees(c, s)
    if c.dim in ("ordinal", "age", "quarter"):
        return c.value == s.value
    if c.dim.startswith("direction"):
        # one compass point, or a quarter turn or more apart ("north-east" / "north" is a
        # coarser reading of one direction, not another)
        turn = abs(c.value - s.value) % 360
        turn = min(turn, 360 - turn)
        return True if turn == 0 else (False if turn >= 90 else None)
    return _number_agrees(c, s)
