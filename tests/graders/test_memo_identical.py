"""The memoised reading of texts gives the verdicts the plain path gives, on real pairs.

The judge and the audit share answers through ``spanproof.core.memo`` (and the splitter's and the
tokeniser's caches). A memo that handed one caller's changes to the next, or answered for the
wrong arguments, would change verdicts only where pairs share a claim or a span: so the pairs
here are real WiCE and hand-labelled pairs plus planted failures, which share spans ten at a
time, judged in one warm process in two orders, against each pair judged alone with every
memo off and every cache emptied.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from spanproof.graders.audit import audit
from spanproof.graders.rules.judge import RulesJudge
from spanproof.graders.specifics import compare
from spanproof.graders.specifics.comparison import unestablished

from spanproof.bench.calibration import load_pairs
from spanproof.bench.sensitivity import plant_on
from spanproof.core import memo
from spanproof.core.verdict import SpanRef

ROOT = Path(__file__).resolve().parents[2]


def _real_pairs() -> list[tuple[str, str]]:
    wice = load_pairs(ROOT / "goldens" / "wice_dev_pairs.jsonl")[:30]
    cal = load_pairs(ROOT / "goldens" / "judge_calibration.jsonl")[:30]
    good = [p for p in cal if p.label == "SUPPORTED"][:4] + [
        p for p in wice if p.label == "SUPPORTED"
    ][:4]
    planted = [p.as_pair() for p in plant_on(cal + wice, good, seed=0)]
    return [(p.claim, p.span) for p in wice + cal + planted]


def _judge_and_audit(judge: RulesJudge, claim: str, span: str) -> str:
    raw = judge.decide(claim, span)
    return raw.model_dump_json() + audit(claim, SpanRef(text=span), raw).model_dump_json()


@pytest.fixture(scope="module")
def pairs() -> list[tuple[str, str]]:
    return _real_pairs()


def test_memoised_verdicts_equal_the_plain_path(pairs):
    judge = RulesJudge()
    assert len({span for _, span in pairs}) < len(pairs)  # spans are shared: memos are hit
    plain = []
    with memo.disabled():
        for claim, span in pairs:
            memo.clear_text_memos()
            plain.append(_judge_and_audit(judge, claim, span))
    memo.clear_text_memos()
    order = list(range(len(pairs)))
    for shuffle in (False, True):
        if shuffle:
            random.Random(22).shuffle(order)
        warm = {i: _judge_and_audit(judge, *pairs[i]) for i in order}
        assert [warm[i] for i in range(len(pairs))] == plain


def test_a_memoised_list_is_the_callers_own():
    claim = "Smith said the bridge opened in 1931 and cost $4 million."
    span = "The bridge opened in 1932."
    first = unestablished(claim, span)
    first.append("changed by a caller")
    assert "changed by a caller" not in unestablished(claim, span)
    # compare extends what unestablished returns: the memo must not carry that over either
    soft = compare(claim, span, soft=True)
    assert unestablished(claim, span) == first[:-1]
    assert len(soft) >= len(first) - 1


def test_one_answer_however_the_arguments_are_spelled():
    claim, span = "The third bridge opened in May.", "The bridge opened."
    unestablished.cache_clear()
    unestablished(claim, span)
    unestablished(claim, span, strict_entities=False, ordinal_words=False)
    unestablished(claim, span=span)
    info = unestablished.cache_info()
    assert (info.misses, info.hits) == (1, 2)
    # a different argument is a different answer
    assert unestablished(claim, span, ordinal_words=True) != unestablished(claim, span)


def test_clearing_keeps_loaded_data_and_empties_text_memos():
    from spanproof.graders.rules.model import load_params
    from spanproof.graders.specifics import lexicon

    from spanproof.core.text import fold

    fold("Bruzón")
    load_params()
    lexicon.entries("change_opposites")
    cleared = memo.clear_text_memos()
    assert cleared > 10
    assert fold.cache_info().currsize == 0
    # what is loaded once (parameters, lexicons) stays loaded
    assert load_params.cache_info().currsize == 1
    assert lexicon.entries.cache_info().currsize >= 1
