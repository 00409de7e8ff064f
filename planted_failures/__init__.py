"""Planted failures: mutators that corrupt good (claim, span) pairs in known ways.

A grader that has only seen passing answers has never shown it can say no.
Each mutator takes a SUPPORTED pair and breaks it in one documented way,
declaring the verdict the broken pair must now get (PARTIAL or NOT_SUPPORTED):

    from spanproof.planted_failures import plant, MUTATORS
    planted = plant(pairs, seed=0)            # every applicable kind on every SUPPORTED pair
    MUTATORS["drift_number"](pair, rng, pool) # one mutator -> PlantedPair | None

Kinds: swap_source, stale_page (span mutators); drift_number, wrong_period,
scope_creep, modality_slip, quantifier_inflation, negation_flip,
attribution_swap, citation_laundering (claim mutators). `plant` is
deterministic under its seed: each (seed, pair id, kind) gets its own
`random.Random`, so adding a pair or a kind never changes the others.

Adding a variant when a real defect reaches a human
---------------------------------------------------
When a reviewer finds a bad claim that the judge passed, turn the defect into
a mutator so every future judge is measured against it:

1. One function in `planted_failures/mutators.py` (or a new module imported
   below), registered with its kind, expected verdict and target::

       @mutator("unit_swap", expected="NOT_SUPPORTED", target="claim")
       def unit_swap(pair, rng, pool):
           '''tonnes -> kilograms: the number stays, the unit changes.'''
           m = re.search(r"\\btonnes\\b", pair.claim)
           if not m:
               return None                      # not applicable to this pair
           return Edit(before="tonnes", after="kilograms",
                       claim=pair.claim[:m.start()] + "kilograms" + pair.claim[m.end():])

   Use `rng` for every choice (never `random` itself) so the set stays seeded.
   The registry enforces the invariants: an edit that changes nothing, or
   touches the field it did not declare, is discarded.

2. One test in `tests/bench/test_mutators.py`: the reviewer's real pair as the
   example (assert the exact `after`), and add the kind to the parametrised
   property test, which checks on generated pairs that the output differs,
   the declared verdict is not SUPPORTED and the other field is untouched.

`spanproof sensitivity` picks the new kind up automatically and reports it
per kind.
"""

from spanproof.planted_failures import mutators as _mutators  # noqa: F401  (registers the built-ins)
from spanproof.planted_failures.registry import (
    MUTATORS,
    Change,
    Edit,
    Mutator,
    PlantedPair,
    mutator,
    plant,
    rng_for,
)

CLAIM_KINDS = tuple(k for k, m in MUTATORS.items() if m.target == "claim")
SPAN_KINDS = tuple(k for k, m in MUTATORS.items() if m.target == "span")

__all__ = [
    "MUTATORS",
    "CLAIM_KINDS",
    "SPAN_KINDS",
    "Change",
    "Edit",
    "Mutator",
    "PlantedPair",
    "mutator",
    "plant",
    "rng_for",
]
