"""Services: one home, store and endpoint give the verifier, cache, run store and web."""

from __future__ import annotations

import pytest
from spanproof.agent.record import RunConfig, RunRecord
from spanproof.agent.services import Services
from spanproof.graders.judges import make_judge

from spanproof.core.verdict import SpanRef
from spanproof.store.errors import HomeError


async def test_the_verifier_judges_through_the_homes_verdict_cache(tmp_path):
    parts = Services(tmp_path)
    verifier = parts.verifier(["rules"])
    assert verifier.cache is parts.cache is not None
    pair = ("Liz Patterson died in 2018.", SpanRef(text="Liz Patterson died on June 4, 2018."))
    first = await verifier.verify_many([pair])
    # A second process on the same home answers from the store, with no judge call.
    again = Services(tmp_path).verifier(["rules"])
    second = await again.verify_many([pair])
    assert again.cache_hits == 1 and again.model_calls == 0
    assert second[0].verdict == first[0].verdict


def test_no_cache_means_no_cache_and_no_store_opened(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the home should be")
    parts = Services(blocker, cache_verdicts=False)
    # Nothing needs the home: no error yet, and the verifier judges uncached.
    assert parts.verifier([make_judge("rules")]).cache is None
    with pytest.raises(HomeError, match="regular file"):
        parts.runs()


def test_the_run_store_stamps_its_kind(tmp_path):
    runs = Services(tmp_path).runs("gate")
    record = RunRecord(run_id="r1", question="q?", config=RunConfig(policy="extractive"))
    runs.save(record)
    assert runs.get("r1").kind == "gate"


def test_an_offline_web_without_a_corpus_says_how_to_build_one(tmp_path):
    with pytest.raises(FileNotFoundError, match="spanproof corpus build"):
        Services(tmp_path).offline_web(tmp_path / "no-corpus")


async def test_the_offline_web_allows_exactly_the_corpus_hosts(tmp_path):
    env = Services(tmp_path).offline_web()
    try:
        assert env.allow_hosts and all("." in h for h in env.allow_hosts)
        assert env.store.root == tmp_path / "snapshots"
    finally:
        await env.aclose()
