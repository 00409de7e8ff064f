"""Planted failures: mutators that corrupt good (claim, span) pairs in known ways.

A grader that has only seen passing answers has never shown it can say no.
Each mutator takes a SUPPORTED pair and breaks it in one documented way,
declaring the verdict the broken pair must now get (PARTIAL or NOT_SUPPORTED):

    from spanproof.planted_failures import plant, mutators
    planted = plant(pairs, seed=0)              # every applicable kind on every SUPPORTED pair
    mutators()["drift_number"](pair, rng, pool) # one mutator -> PlantedPair | None

The kinds, with what each plants and its worked example: ``spanproof sensitivity
--list-kinds`` (read from this registry). `plant` is deterministic under its seed: each
(seed, pair id, kind) gets its own `random.Random`, so adding a pair or a kind never changes
the others.

Adding a kind when a real defect reaches a human
------------------------------------------------
When a reviewer finds a bad claim that the judge passed, turn the defect into
a mutator so every future judge is measured against it:

1. One function in `planted_failures/mutators.py` (or, from another distribution, a module
   named by an entry point of the ``spanproof.planted_kinds`` group), registered with its
   kind, expected verdict, target and a worked example (the reviewer's real pair)::

       @mutator("unit_swap", expected="NOT_SUPPORTED", target="claim",
                example=Pair(id="unit", claim="It weighs 3 tonnes.",
                             span="The statue weighs 3 tonnes.", label="SUPPORTED"))
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

2. One test in `tests/bench/test_mutators.py` asserting the exact edit on the example. The
   generic tests plant every registered kind on its own example, run it over generated pairs
   (the output differs, the verdict is not SUPPORTED, the other field is untouched) and show
   the rules judge catching it; `spanproof sensitivity`, the gate and `spanproof grade
   --plant` (claim kinds) pick the kind up by themselves.
"""

from spanproof.planted_failures import mutators as _mutators  # noqa: F401  (registers the built-ins)
from spanproof.planted_failures import name_swap as _name_swap  # noqa: F401  (registers swap_name)
from spanproof.planted_failures.registry import (
    ENTRY_POINT_GROUP,
    MUTATORS,
    Change,
    Edit,
    Mutator,
    PlantedKindError,
    PlantedPair,
    mutator,
    mutators,
    plant,
    rng_for,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "MUTATORS",
    "Change",
    "Edit",
    "Mutator",
    "PlantedKindError",
    "PlantedPair",
    "mutator",
    "mutators",
    "plant",
    "rng_for",
]
