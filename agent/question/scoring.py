"""How well a text answers a sub-question (``Match``): the share of its own words and names the
text holds and the best answer of the expected type in it; the score is also the claim's
confidence."""

from __future__ import annotations

import re
from dataclasses import dataclass

from spanproof.agent.question.mentions import Mention, answer_mentions, nearness
from spanproof.agent.question.subquestion import CHECKABLE, SubQuestion
from spanproof.agent.question.words import matched, terms


@dataclass
class Match:
    """How a text relates to a sub-question: its words, its names, and the answer it holds."""

    focus: float  # weighted share of the sub-question's own terms present (two count as all)
    entity: float  # share of the names it is about present (two count as all)
    strength: float  # the best answer mention's strength; 0 when none
    near: float  # 1 when that answer sits near one of the sub-question's own terms
    answers: bool  # holds an answer of the expected type(s), about this sub-question
    mention: Mention | None = None
    context: float = 0.0  # share of the other names the sub-question writes

    @property
    def score(self) -> float:
        # weights sum to 1: the score is also the claim's confidence
        return (
            0.3 * self.focus
            + 0.45 * self.strength
            + 0.1 * self.entity
            + 0.1 * self.near
            + 0.05 * self.context
        )


def _share(want: set[str], have: set[str], weights: dict[str, float] | None = None) -> float:
    """Share of `want` found in `have`; the best two terms found count as all of it. With
    `weights` (how rare each term is on the page) a rare term counts more than a common one."""
    if not want:
        return 0.0
    if weights:
        # Only terms the page holds at all set the bar: a term no sentence of the page has
        # cannot be missing from one sentence more than from another.
        w = weights
        on_page = [t for t in want if t in w] or list(want)
    else:
        w, on_page = {}, list(want)
    got = sorted((w.get(t, 1.0) for t in matched(want, have)), reverse=True)
    top = sorted((w.get(t, 1.0) for t in on_page), reverse=True)[:2]
    return min(1.0, sum(got[:2]) / sum(top)) if sum(top) else 0.0


def term_weights(sq: SubQuestion, sentences: list[str]) -> dict[str, float]:
    """How telling each of the sub-question's own terms is on one page: a term in few of its
    sentences picks the answer out; one in most of them ("driver" on a racing page) does not."""
    import math

    bags = [terms(s) for s in sentences]
    n = len(bags) or 1
    out = {}
    for t in sq.focus:
        df = sum(1 for bag in bags if matched({t}, bag))
        if df:
            out[t] = math.log(1 + n / df)
    return out


def match(sq: SubQuestion, text: str, weights: dict[str, float] | None = None) -> Match:
    have = terms(text)
    focus = _share(sq.focus, have, weights)
    entity = _share(sq.entity, have)
    if not entity and re.match(r"\W*(he|she|it|they|his|her|its|their)\b", text, re.I):
        entity = 0.5  # "She was 78." speaks of the subject without naming it
    mentions = answer_mentions(sq, text)
    if sq.kind and "number" in sq.answer_types:
        # A question that names what it counts or measures ("how many votes", "how old",
        # "what share") is not answered by a figure of something else ("three rivers").
        mentions = [m for m in mentions if m.type != "number" or m.strength >= 0.8]
    best = max(mentions, key=lambda m: m.strength, default=None)
    near = 0.0
    if best is not None and best.start >= 0:
        near = nearness(sq.focus, text, best)
        # an answer written beside the names the question is about ("X and Alice in Chains
        # will be joining forces") is next best to one beside its own words
        near = max(near, 0.5 * nearness(sq.entity, text, best))
    if sq.checkable:
        want = {t for t in sq.answer_types if t in CHECKABLE}
        typed = want <= {m.type for m in mentions}
        answers = typed and (focus > 0 or (best is not None and best.strength >= 1.0))
    else:
        answers = focus >= 0.5
    context = _share(sq.context, have)
    return Match(focus, entity, best.strength if best else 0.0, near, answers, best, context)
