"""`verify --repeat N --out` against a judge server that changes its mind between samples: the
verdict written is the least favourable sample's, never the first's, and the pair is marked
unstable."""

from __future__ import annotations

import json
from collections import Counter

from .conftest import run_cli, write_pairs
from .server import CONTEXT_MESSAGE, ChatServer, claim_and_span, error, verdict


def changing_judge(by_pair: dict[str, list[str]]):
    """Answers the n-th request about a pair with ``by_pair[item][n]`` (a label, or ERROR for
    an HTTP 400 that is that call's error); SUPPORTED for pairs it was not told about."""
    asked: Counter[str] = Counter()

    def behave(body, server):
        claim, _ = claim_and_span(body)
        item = claim.rsplit("(item ", 1)[1].rstrip(").")
        script = by_pair.get(f"p{item}", ["SUPPORTED"])
        said = script[min(asked[item], len(script) - 1)]
        asked[item] += 1
        if said == "ERROR":
            return error(400, CONTEXT_MESSAGE, code="context_length_exceeded")
        return verdict(body, said)

    return behave


def test_repeat_writes_the_least_favourable_sample_and_marks_the_pair_unstable(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 4)
    out = tmp_path / "verdicts.jsonl"
    judge = changing_judge({
        "p0": ["SUPPORTED", "NOT_SUPPORTED", "NOT_SUPPORTED"],
        "p1": ["SUPPORTED", "PARTIAL", "SUPPORTED"],
        "p2": ["SUPPORTED", "SUPPORTED", "ERROR"],
    })  # fmt: skip
    with ChatServer(judge) as server:
        result = run_cli("verify", "--pairs", str(pairs), "--judge", "openai:fake", "--base-url",
                         server.base_url, "--api-key", "local", "--home", str(tmp_path / "h"),
                         "--repeat", "3", "--concurrency", "1", "--out", str(out))  # fmt: skip
        assert server.count == 12
    assert result.exit_code == 1, result.output  # p2's third sample is an error
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["p0"]["samples"] == ["SUPPORTED", "NOT_SUPPORTED", "NOT_SUPPORTED"]
    assert rows["p0"]["verdict"] == "NOT_SUPPORTED" and rows["p0"]["unstable"] is True
    assert rows["p1"]["verdict"] == "PARTIAL" and rows["p1"]["unstable"] is True
    assert rows["p2"]["error"] and "maximum context length" in rows["p2"]["error"]
    assert rows["p2"]["verdict"] != "SUPPORTED" and rows["p2"]["unstable"] is True
    assert rows["p3"]["verdict"] == "SUPPORTED" and rows["p3"]["unstable"] is False
    assert rows["p3"]["error"] is None
