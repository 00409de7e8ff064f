"""swap_name: a name of the claim swapped for another name of the same kind.

A claim that credits the deed to another person, sets it in another place or gives it to
another organisation is wrong, not merely unsupported: the span states the original name in
that slot. The kinds are the ones the audit's name typing tells apart (``slots.name_type``:
person, place, organisation), so the planted claim is one code could prove, and the new name
comes from the other pairs of the set, so it is a real name of that kind and not one the
mutator made up.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache

from spanproof.graders.specifics.names import entity_tokens, token_present, token_set
from spanproof.graders.specifics.slot_frames import layout
from spanproof.graders.specifics.slot_roles import SOURCE, roles
from spanproof.graders.specifics.slots import values_of
from spanproof.planted_failures.registry import Edit, mutator

from spanproof.core.verdict import Pair

# the kinds slots.name_type tells apart: a swap keeps the kind, so the slot stays the same
_KINDS = ("person", "place", "org")
_ARTICLE_BEFORE = re.compile(r"\bthe\s+$", re.I)


@lru_cache(maxsize=8192)  # the pool's texts are read once for every pair planted on
def _typed_names(text: str) -> tuple[tuple[int, int, str, str, bool], ...]:
    """(start, end, surface, kind, written after "the") of each typed name of ``text``."""
    out = []
    for v in values_of(text):
        if v.kind != "name" or v.name_type not in _KINDS:
            continue
        surface = " ".join(text[v.start : v.end].split())
        after_the = bool(_ARTICLE_BEFORE.search(text[max(0, v.start - 5) : v.start]))
        out.append((v.start, v.end, surface, v.name_type, after_the))
    return tuple(out)


def _tokens(name: str) -> set[str]:
    return {t for t in entity_tokens(name) if len(t) > 1}


def _stated(name: str, text_tokens: set[str]) -> bool:
    """Every word of the name is in the text (folded, stemmed): the text states it."""
    toks = _tokens(name)
    return bool(toks) and all(token_present(t, text_tokens) for t in toks)


def _mentioned(name: str, text_tokens: set[str]) -> bool:
    """Any word of the name is in the text: the text may speak of it."""
    return any(token_present(t, text_tokens) for t in _tokens(name))


_EXAMPLE = Pair(
    id="example-premiere",
    claim="The opera was first staged in Lisbon by Marta Quental.",
    span="Marta Quental staged the opera for the first time in Lisbon in 1998.",
    label="SUPPORTED",
)
_EXAMPLE_POOL = (
    Pair(
        id="example-premiere-neighbour",
        claim="The ballet opened in Porto.",
        span="Directed by Helena Vidal, the ballet opened in Porto the next spring.",
        label="SUPPORTED",
    ),
)


@mutator(
    "swap_name", expected="NOT_SUPPORTED", example=_EXAMPLE, example_pool=_EXAMPLE_POOL,
)  # fmt: skip
def swap_name(pair: Pair, rng: random.Random, pool: list[Pair]) -> Edit | None:
    """Swap a name the span states for another of the same kind from another pair: Lisbon ->
    Porto, Marta Quental -> Helena Vidal (never a name the span holds, nor one sharing a word;
    never the claim's source, which attribution_swap swaps)."""
    claim = pair.claim
    span_tokens = token_set(pair.span)
    claim_tokens = token_set(claim)
    lay = layout(claim)
    # who reports the claim ("X announced ...", "according to X") is attribution_swap's
    originals = [
        n
        for n in _typed_names(claim)
        if _stated(n[2], span_tokens) and not SOURCE & roles(lay, n[0], n[1])
    ]
    if not originals:
        return None
    by_kind: dict[str, dict[str, bool]] = {}
    for other in pool:
        if other.id == pair.id:
            continue
        for text in (other.claim, other.span):
            for _, _, surface, kind, after_the in _typed_names(text):
                by_kind.setdefault(kind, {}).setdefault(surface, after_the)
    # one rng draw per choice, over sorted lists: the same pool plants the same swap
    choices = []
    for start, end, surface, kind, after_the in originals:
        own = _tokens(surface)
        rivals = sorted(
            name
            for name in by_kind.get(kind, {})
            if not _mentioned(name, span_tokens)
            and not _mentioned(name, claim_tokens)
            and not own & _tokens(name)
        )
        # keep "the" grammatical: "the United States" -> "the Netherlands", "Lisbon" -> "Porto"
        same_article = [r for r in rivals if by_kind[kind][r] == after_the]
        if same_article or rivals:
            choices.append((start, end, same_article or rivals))
    if not choices:
        return None
    start, end, rivals = choices[rng.randrange(len(choices))]
    new = rivals[rng.randrange(len(rivals))]
    return Edit(before=claim[start:end], after=new, claim=claim[:start] + new + claim[end:])
