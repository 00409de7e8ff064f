"""Samples of one pair (`--repeat`): each under its own cache key, and a scripted judge that
answers differently between samples, the same way on every machine."""

from __future__ import annotations

import json

from spanproof.graders.judges import make_judge
from spanproof.graders.judges.context import current_repeat

from spanproof.core.verdict import SpanRef


def test_scripted_samples_are_the_same_on_every_machine():
    import asyncio
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.json"
        path.write_text(json.dumps({"x": {"verdict": "SUPPORTED", "flip_rate": 0.5,
                                          "claim": "a", "span": "b"}}))  # fmt: skip
        judge = make_judge(f"scripted:{path}")

        async def sample(r: int) -> str:
            token = current_repeat.set(r)
            try:
                return (await judge.judge("a", SpanRef(text="b"))).verdict
            finally:
                current_repeat.reset(token)

        first = [asyncio.run(sample(r)) for r in range(40)]
        assert first == [asyncio.run(sample(r)) for r in range(40)]
        assert set(first) == {"SUPPORTED", "PARTIAL"}  # flips to the next label, sometimes
        assert 8 < first.count("PARTIAL") < 32


def test_a_script_with_bad_sampling_fields_is_refused(tmp_path):
    import pytest

    from spanproof.core.specs import SpecError

    for bad in ({"by_repeat": ["MAYBE"]}, {"by_repeat": []}, {"flip_rate": 2}, {"flip_to": "X"}):
        path = tmp_path / "bad.json"
        path.write_text(json.dumps({"p": {"verdict": "SUPPORTED", **bad}}))
        with pytest.raises(SpecError):
            make_judge(f"scripted:{path}")


def test_the_first_sample_keeps_the_key_a_single_judgement_always_had():
    import hashlib

    from spanproof.graders.cache import cache_key

    span = SpanRef(text="s", url="u")
    old = hashlib.sha256(json.dumps(["", "rules", "", "p", "", "c", "s", "u"]).encode()).hexdigest()
    assert cache_key("rules", None, "p", "c", span) == old
    assert cache_key("rules", None, "p", "c", span, repeat=0) == old
    assert len({cache_key("rules", None, "p", "c", span, repeat=r) for r in range(4)}) == 4
