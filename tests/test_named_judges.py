"""Judges by a name of their own (`--judge NAME=SPEC`): parsing, building, the cache."""

from __future__ import annotations

import json

import pytest

from spanproof.core.specs import SpecError, parse_named_spec
from spanproof.core.verdict import SpanRef


@pytest.mark.parametrize(
    "text,name,spec",
    [
        ("t5=scripted:/tmp/a.jsonl", "t5", "scripted:/tmp/a.jsonl"),
        ("anli-wice.v2=openai:org/m:7b", "anli-wice.v2", "openai:org/m:7b"),
        ("rules", None, "rules"),
        # an "=" after the colon belongs to the argument (a path may hold one)
        ("scripted:/tmp/a=b.jsonl", None, "scripted:/tmp/a=b.jsonl"),
    ],
)
def test_named_spec_reads_the_name_before_the_first_colon(text, name, spec):
    got = parse_named_spec(text)
    assert (got.name, str(got.spec)) == (name, spec)
    assert got.label == (name or spec)


@pytest.mark.parametrize("text", ["=rules", "my judge=rules", "a/b=rules", "x" * 41 + "=rules"])
def test_a_bad_name_says_how_to_write_one(text):
    with pytest.raises(SpecError, match="NAME=SPEC"):
        parse_named_spec(text)


def test_a_named_spec_still_needs_a_judge_after_the_name():
    from spanproof.graders.judges import check_judge_spec

    with pytest.raises(SpecError, match="not a judge"):
        check_judge_spec("mine=nosuch")
    assert str(check_judge_spec("mine=rules")[0]) == "rules"


async def test_a_named_judge_says_its_name_and_shares_the_cache_with_its_spec(tmp_path):
    from spanproof.graders.cache import VerdictCache, cache_key_for
    from spanproof.graders.judges import make_judge, spec_of, unwrap
    from spanproof.graders.judges.scripted import ScriptedJudge
    from spanproof.graders.verify import Verifier

    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"id": "p1", "verdict": "NOT_SUPPORTED"}) + "\n")
    named = make_judge(f"t5=scripted:{script}")
    plain = make_judge(f"scripted:{script}")
    assert named.id == "t5" and spec_of(named) == plain.id
    assert isinstance(unwrap(named), ScriptedJudge)
    span = SpanRef(text="The span.")
    assert cache_key_for(named, "c", span) == cache_key_for(plain, "c", span)

    cache = VerdictCache(tmp_path / "cache.sqlite")
    first = await Verifier([plain], cache=cache).verify("c", span, pair_id="p1")
    assert first.judge == plain.id
    verifier = Verifier([named], cache=cache)
    again = await verifier.verify("c", span, pair_id="p1")
    # answered from the cache filled under the spec, yet under the name it has now
    assert verifier.cache_hits == 1 and again.judge == "t5"
