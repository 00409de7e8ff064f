"""The mutator registry: what a planted pair is, and how a mutator declares itself."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from spanproof.core.verdict import Label, Pair

Target = Literal["claim", "span"]


class Change(BaseModel):
    """One edit a mutator made: which field, and the exact text before and after."""

    field: Target
    before: str
    after: str


class PlantedPair(BaseModel):
    """A SUPPORTED pair corrupted in one known way, with the verdict it must now get."""

    id: str
    original_id: str
    kind: str
    expected: Label
    target: Target
    claim: str
    span: str
    changes: list[Change] = Field(default_factory=list)
    source: dict | None = None

    def as_pair(self) -> Pair:
        return Pair(
            id=self.id,
            claim=self.claim,
            span=self.span,
            label=self.expected,
            kind=self.kind,
            source={**(self.source or {}), "planted_from": self.original_id},
        )


@dataclass(frozen=True)
class Edit:
    """What a mutator body returns: the new claim and/or span plus the changed fragments."""

    before: str
    after: str
    claim: str | None = None
    span: str | None = None


MutatorBody = Callable[[Pair, random.Random, list[Pair]], Edit | None]
MutatorFn = Callable[[Pair, random.Random, list[Pair]], PlantedPair | None]


@dataclass(frozen=True)
class Mutator:
    kind: str
    expected: Label
    target: Target
    fn: MutatorFn
    doc: str = ""

    def __call__(self, pair: Pair, rng: random.Random, pool: list[Pair]) -> PlantedPair | None:
        return self.fn(pair, rng, pool)


MUTATORS: dict[str, Mutator] = {}


def mutator(kind: str, *, expected: Label, target: Target = "claim"):
    """Register a mutator body under `kind`.

    The body sees (pair, rng, pool) and returns an `Edit` or None when it does
    not apply. The registered function has the public signature
    ``(pair, rng, pool) -> PlantedPair | None`` and guarantees the invariants the
    bench relies on: the output differs from the input, and only the declared
    target field changed.
    """
    if expected == "SUPPORTED":
        raise ValueError(f"mutator {kind!r}: a planted failure cannot expect SUPPORTED")

    def register(body: MutatorBody) -> Mutator:
        if kind in MUTATORS:
            raise ValueError(f"mutator kind {kind!r} is already registered")

        def fn(pair: Pair, rng: random.Random, pool: list[Pair]) -> PlantedPair | None:
            edit = body(pair, rng, pool)
            if edit is None:
                return None
            claim = edit.claim if edit.claim is not None else pair.claim
            span = edit.span if edit.span is not None else pair.span
            changed = claim if target == "claim" else span
            original = pair.claim if target == "claim" else pair.span
            untouched_ok = (span == pair.span) if target == "claim" else (claim == pair.claim)
            if changed == original or not untouched_ok or not changed.strip():
                return None
            return PlantedPair(
                id=f"{pair.id}~{kind}",
                original_id=pair.id,
                kind=kind,
                expected=expected,
                target=target,
                claim=claim,
                span=span,
                changes=[Change(field=target, before=edit.before, after=edit.after)],
                source=pair.source,
            )

        m = Mutator(
            kind=kind, expected=expected, target=target, fn=fn, doc=(body.__doc__ or "").strip()
        )
        MUTATORS[kind] = m
        return m

    return register


def rng_for(seed: int, pair_id: str, kind: str) -> random.Random:
    # String seeds hash with SHA-512 inside `random`, so this is stable across
    # processes and PYTHONHASHSEED values: the same seed plants the same set.
    return random.Random(f"{seed}|{pair_id}|{kind}")


def plant(
    pairs: Iterable[Pair],
    *,
    seed: int = 0,
    kinds: Iterable[str] | None = None,
    originals: Iterable[Pair] | None = None,
    on_error: Callable[[str, Pair, Exception], None] | None = None,
) -> list[PlantedPair]:
    """Apply every applicable mutator to every SUPPORTED pair, deterministically under `seed`.

    With `originals`, plant on those only while the whole of `pairs` stays the mutators'
    pool, so each planted pair is the one planting on all of `pairs` makes. With
    `on_error`, a mutator that raises is reported there and its pair left unplanted.
    """
    pairs = list(pairs)
    chosen = list(kinds) if kinds is not None else list(MUTATORS)
    unknown = [k for k in chosen if k not in MUTATORS]
    if unknown:
        raise KeyError(f"unknown mutator kind(s) {unknown}; known: {sorted(MUTATORS)}")
    out: list[PlantedPair] = []
    for pair in pairs if originals is None else originals:
        if pair.label != "SUPPORTED":
            continue
        pool = [p for p in pairs if p.id != pair.id]
        for kind in chosen:
            try:
                planted = MUTATORS[kind](pair, rng_for(seed, pair.id, kind), pool)
            except Exception as exc:
                if on_error is None:
                    raise
                on_error(kind, pair, exc)
                continue
            if planted is not None:
                out.append(planted)
    return out
