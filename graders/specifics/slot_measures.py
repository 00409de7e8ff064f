"""What a value measures, apart from the words that state it: the slot reader's frames,
read for the one thing a restated or revised figure keeps.

The slot reader aligns two values through the words around them, so a statement that
restates its subject ("the total number of homes", "the corrected total", "first-dose
coverage for two-year-olds") is another slot to it, rightly for ordinary text. A statement
that marks itself as revising a figure of its page is aligned by less
(``agent.self_correction``): the measure (a count of one noun, a share, money in a
currency, a physical dimension) and what is counted. This module gives those, from the same
frames and readings the reader uses, so both read values alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from spanproof.graders.specifics.slot_agreement import comparable_frames, group_agrees
from spanproof.graders.specifics.slot_frames import Frame, counted_noun, layout
from spanproof.graders.specifics.slot_reader import _frames
from spanproof.graders.specifics.slots import Value

# dimensions whose unit names what is measured (a length, a volume, a mass...): a count, a
# share and money say nothing of what they measure without the words around them
_WORDLESS = frozenset({"count", "ordinal", "percent", "share", "ratio", "currency", "money"})


@dataclass(frozen=True)
class Measured:
    """A quantity a text states, with what it measures."""

    value: Value
    sentence: tuple[int, int]
    clause: tuple[int, int]
    counted: frozenset | None  # the keys of the noun it counts ("visits", "routes"), if any
    dims: frozenset[str]  # its readings' dimensions
    frame: Frame = field(compare=False, repr=False)

    @property
    def physical(self) -> bool:
        """Its unit says what it measures ("kilometres", "cubic metres"); a length of time
        does not ("married for three years", "20 years in the business")."""
        return bool(self.dims) and not any(
            d.split(":")[0] in _WORDLESS or d == "age" or "[time]" in d for d in self.dims
        )


@lru_cache(maxsize=256)
def measured_values(text: str) -> tuple[Measured, ...]:
    """Every quantity of ``text`` the reader reads (dates, names and directions aside)."""
    out = []
    for f in _frames(layout(text)):
        if f.value.kind != "quantity" or not f.readings:
            continue
        dims = frozenset(r.dim for r in f.readings)
        # only a plain count counts a noun here: a share or a sum of money of it is another measure
        counted = (counted_noun(text, f) or None) if dims == {"count"} else None
        out.append(Measured(f.value, f.sentence, f.clause, counted, dims, f))
    return tuple(out)


def same_measure(a: Measured, b: Measured) -> bool:
    """Read on one measure: both counts, both shares, money in one currency, one dimension."""
    return comparable_frames(a.frame, b.frame)


def agrees(a: Measured, b: Measured) -> bool | None:
    """Whether ``b`` states ``a``'s value at the precision written (the reader's agreement)."""
    return group_agrees([a.frame], [b.frame])


def word_keys(text: str, span: tuple[int, int]) -> frozenset:
    """The keys (stem and WordNet concepts) of the content words of ``text`` within ``span``,
    figures aside."""
    out: set = set()
    for t in layout(text).toks:
        if span[0] <= t.start < span[1] and not any(ch.isdigit() for ch in t.word):
            out |= t.keys
    return frozenset(out)
