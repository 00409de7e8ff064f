"""The verdict cache's batches: one read for a set of pairs, one write at the end, the same
answers as a lookup per pair."""

from __future__ import annotations

import asyncio

import pytest
from spanproof.graders.cache import VerdictCache, cache_key_for
from spanproof.graders.judges import make_judge
from spanproof.graders.verify import Verifier

from spanproof.core.verdict import SpanRef, Verdict

SPAN = SpanRef(text="The council approved the budget of $2 million on 3 March 2024.")
CLAIMS = ["The council approved the budget.", "The council rejected the budget.",
          "The budget was $2 million.", "The council approved the budget."]  # fmt: skip


def _v(label: str = "SUPPORTED") -> Verdict:
    return Verdict(verdict=label, judge="rules", quote_used="approved the budget")


def test_a_batch_writes_once_at_its_end_and_answers_its_own_writes(tmp_path):
    cache = VerdictCache(tmp_path / "v.sqlite")
    with cache.batch(["a", "b"]):
        assert cache.get("a") is None
        cache.put("a", _v())
        assert len(cache) == 0  # held back
        assert cache.get("a") == _v()  # ... but answered
        with cache.batch(["c"]):  # an inner batch does not write on its own
            cache.put("c", _v("PARTIAL"))
        assert len(cache) == 0
    assert len(cache) == 2
    assert cache.get("c") == _v("PARTIAL")


def test_a_batch_writes_what_it_holds_when_the_work_fails(tmp_path):
    cache = VerdictCache(tmp_path / "v.sqlite")
    with pytest.raises(RuntimeError), cache.batch(["a"]):
        cache.put("a", _v())
        raise RuntimeError("interrupted")
    assert cache.get("a") == _v()


def test_a_batch_reads_every_key_once_up_front(tmp_path):
    cache = VerdictCache(tmp_path / "v.sqlite")
    cache.put("a", _v())
    with cache.batch(["a", "b"]):
        # the store changes under the batch: the batch answers from what it read
        cache.store.put_verdict("b", _v("PARTIAL").model_dump_json(), {"judge": "rules"})
        assert cache.get("a") == _v()
        assert cache.get("b") is None  # absent when read: judged again, as any miss
        assert cache.get("z") is None  # not in the batch: looked up as before
    assert cache.get("b") == _v("PARTIAL")


def test_batched_verify_many_gives_the_verdicts_and_counts_of_one_lookup_a_pair(tmp_path):
    judge = make_judge("rules")
    items = [(c, SPAN) for c in CLAIMS]

    def run(cache):
        verifier = Verifier([judge], cache=cache)
        verdicts = asyncio.run(verifier.verify_many(items))
        return [v.model_dump_json() for v in verdicts], verifier.model_calls, verifier.cache_hits

    batched = VerdictCache(tmp_path / "b.sqlite")
    first = run(batched)
    # the fourth claim repeats the first: a hit inside the batch, as it is pair by pair
    assert (first[1], first[2]) == (3, 1)
    assert len(batched) == 3
    again = run(batched)
    assert again[0] == first[0] and (again[1], again[2]) == (0, 4)
    # and the stored verdicts are the ones a lookup per pair stores
    keys = [cache_key_for(judge, c, SPAN) for c in CLAIMS[:3]]
    plain = VerdictCache(tmp_path / "p.sqlite")
    for c in CLAIMS[:3]:
        plain.put(cache_key_for(judge, c, SPAN), judge.decide(c, SPAN.text))
    assert [batched.store.get_verdict(k) for k in keys] == [
        plain.store.get_verdict(k) for k in keys
    ]
