"""The review queue: proofs, then flags, then the judge's confidence; and the figure that says
how many of the truly unsupported pairs its first 10% and 20% hold."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from spanproof.graders import Verifier, make_judge
from spanproof.graders.review_queue import review_key, review_order

from spanproof.bench import queue_figures as qf
from spanproof.bench.pairs import load_pairs
from spanproof.core.verdict import Flag, Proof, SpanRef, Verdict

ROOT = Path(__file__).resolve().parents[2]


def v(label: str, confidence: float | None = None, *, proof: bool = False, flag: bool = False):
    return Verdict(
        verdict="NOT_SUPPORTED" if proof else label,
        judge_verdict=label,
        confidence=confidence,
        proofs=[Proof(kind="contradiction", reason="750 against 800")] if proof else [],
        flags=[Flag(kind="number", reason="number the span does not state: 800")] if flag else [],
    )


def test_proofs_come_before_flags_and_flags_before_the_judges_reading():
    clean_ns = v("NOT_SUPPORTED", 0.99)
    flagged = v("SUPPORTED", 0.99, flag=True)
    proven = v("SUPPORTED", 0.99, proof=True)
    assert review_order([clean_ns, flagged, proven]) == [2, 1, 0]


def test_errors_and_claims_without_a_verdict_are_first():
    error = Verdict(verdict="NOT_SUPPORTED", error="TimeoutError: no reply")
    proven = v("NOT_SUPPORTED", 0.99, proof=True)
    assert review_order([proven, error, None]) == [1, 2, 0]


def test_within_a_tier_the_least_supported_and_least_sure_support_come_first():
    queue = [
        v("SUPPORTED", 0.95),  # 0: a sure SUPPORTED: last
        v("SUPPORTED", 0.55),  # 1: a hesitant SUPPORTED
        v("PARTIAL", 0.6),  # 2
        v("NOT_SUPPORTED", 0.6),  # 3: a hesitant NOT_SUPPORTED
        v("NOT_SUPPORTED", 0.9),  # 4: a sure NOT_SUPPORTED: first
    ]
    assert review_order(queue) == [4, 3, 2, 1, 0]


def test_ties_keep_the_input_order_and_no_confidence_reads_as_even():
    assert review_order([v("SUPPORTED"), v("SUPPORTED"), v("SUPPORTED")]) == [0, 1, 2]
    assert review_key(v("SUPPORTED")) == review_key(v("SUPPORTED", 0.5))


def test_the_figure_counts_unsupported_pairs_in_each_cut():
    labels = ["NOT_SUPPORTED", "SUPPORTED"] * 5  # 5 unsupported of 10
    verdicts = [v("NOT_SUPPORTED" if lab != "SUPPORTED" else "SUPPORTED", 0.9) for lab in labels]
    f = qf.queue_figures(labels, verdicts, cuts=(0.1, 0.2, 0.5))
    assert f.unsupported == 5
    assert [(c.reviewed, c.found) for c in f.cuts] == [(1, 1), (2, 2), (5, 5)]
    assert [c.recall for c in f.cuts] == [0.2, 0.4, 1.0] == [c.best for c in f.cuts]
    assert [c.random for c in f.cuts] == [0.1, 0.2, 0.5]
    assert qf.queue_figures(["SUPPORTED"], [v("SUPPORTED")]).cuts[0].recall is None


@pytest.fixture(scope="module")
def wice_rules():
    pairs = load_pairs(ROOT / "goldens" / "wice_dev_pairs.jsonl")
    items = [(p.claim, SpanRef(text=p.span), p.id) for p in pairs]
    verdicts = asyncio.run(Verifier([make_judge("rules")]).verify_many(items))
    return [p.label for p in pairs], verdicts


def test_the_queue_puts_unsupported_wice_pairs_first_and_its_reverse_fails(wice_rules, monkeypatch):
    labels, verdicts = wice_rules
    f = qf.queue_figures(labels, verdicts)
    for cut in f.cuts:  # better than a random order by a third or more, at both cuts
        assert cut.recall is not None and cut.random is not None
        assert cut.recall >= 1.3 * cut.random, cut
    # the same figure on the order turned round: the check fails
    monkeypatch.setattr(qf, "review_order", lambda vs: review_order(vs)[::-1])
    reversed_cuts = qf.queue_figures(labels, verdicts).cuts
    assert all(c.recall is not None and c.recall < c.random for c in reversed_cuts)
