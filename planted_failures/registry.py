"""The mutator registry: what a planted pair is, and how a mutator declares itself.

Built-in kinds are declared in ``planted_failures/mutators.py``; another distribution adds its
own through the entry-point group ``spanproof.planted_kinds`` (each entry point names a module
whose import declares kinds with ``@mutator``). ``mutators()`` is every kind, plug-ins
included; ``MUTATORS`` holds what has been declared so far.
"""

from __future__ import annotations

import importlib.metadata
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
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
    # A SUPPORTED pair the kind plants on (and the other pairs it may draw from): the kind's
    # worked example in ``spanproof sensitivity --list-kinds``, and the proof, in the tests,
    # that the kind applies at all.
    example: Pair
    example_pool: tuple[Pair, ...] = field(default=())
    doc: str = ""

    def plant_example(self) -> PlantedPair | None:
        return self(self.example, rng_for(0, self.example.id, self.kind), list(self.example_pool))

    def __call__(self, pair: Pair, rng: random.Random, pool: list[Pair]) -> PlantedPair | None:
        return self.fn(pair, rng, pool)


MUTATORS: dict[str, Mutator] = {}


def mutator(
    kind: str,
    *,
    expected: Label,
    example: Pair,
    target: Target = "claim",
    example_pool: Sequence[Pair] = (),
) -> Callable[[MutatorBody], Mutator]:
    """Register a mutator body under `kind`.

    The body sees (pair, rng, pool) and returns an `Edit` or None when it does
    not apply. The registered function has the public signature
    ``(pair, rng, pool) -> PlantedPair | None`` and guarantees the invariants the
    bench relies on: the output differs from the input, and only the declared
    target field changed. ``example``: a SUPPORTED pair the kind plants on
    (``example_pool``: the other pairs it may draw from, for kinds that need them).
    """
    if expected == "SUPPORTED":
        raise ValueError(f"mutator {kind!r}: a planted failure cannot expect SUPPORTED")
    if example.label != "SUPPORTED":
        raise ValueError(f"mutator {kind!r}: its example must be a SUPPORTED pair")

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
            kind=kind, expected=expected, target=target, fn=fn, example=example,
            example_pool=tuple(example_pool), doc=(body.__doc__ or "").strip(),
        )  # fmt: skip
        MUTATORS[kind] = m
        return m

    return register


ENTRY_POINT_GROUP = "spanproof.planted_kinds"
_plugins_loaded = False


class PlantedKindError(RuntimeError):
    """A planted-kind plug-in that cannot be loaded: what the bench plants would silently
    differ from what is installed, so nothing is planted until it is fixed."""


def mutators() -> dict[str, Mutator]:
    """Every planted kind: the built-ins and the installed plug-ins' (loaded once)."""
    global _plugins_loaded
    if not _plugins_loaded:
        _plugins_loaded = True
        for point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
            try:
                point.load()
            except Exception as exc:
                _plugins_loaded = False  # asked again, it fails again: never a partial set
                raise PlantedKindError(
                    f"the planted-kind plug-in {point.name!r} ({point.value}) failed to load: "
                    f"{type(exc).__name__}: {exc}. Reinstall or uninstall the distribution that "
                    "declares it."
                ) from exc
    return MUTATORS


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
    known = mutators()
    chosen = list(kinds) if kinds is not None else list(known)
    unknown = [k for k in chosen if k not in known]
    if unknown:
        raise KeyError(f"unknown mutator kind(s) {unknown}; known: {sorted(known)}")
    out: list[PlantedPair] = []
    for pair in pairs if originals is None else originals:
        if pair.label != "SUPPORTED":
            continue
        pool = [p for p in pairs if p.id != pair.id]
        for kind in chosen:
            try:
                planted = known[kind](pair, rng_for(seed, pair.id, kind), pool)
            except Exception as exc:
                if on_error is None:
                    raise
                on_error(kind, pair, exc)
                continue
            if planted is not None:
                out.append(planted)
    return out
