"""The openai judge's confidence comes from the token logprobs a real server returns; without
them it is None, and calibrate says why."""

from __future__ import annotations

import json

import pytest
from spanproof.graders.openai_judge import OpenAIJudge

from spanproof.core.specs import EndpointSettings
from spanproof.core.verdict import SpanRef

from .conftest import SPAN, run_cli
from .server import ChatServer, honest_judge, logprob_judge, refuses_logprobs

CLAIM = "The council approved a $2 million budget in March 2024."


def judge_for(server: ChatServer) -> OpenAIJudge:
    return OpenAIJudge("fake", endpoint=EndpointSettings(base_url=server.base_url, api_key="k"))


@pytest.mark.parametrize(
    "label,probs,expected",
    [("SUPPORTED", (0.8, 0.9), 0.72), ("PARTIAL", (0.6, 0.5), 0.30),
     ("NOT_SUPPORTED", (0.55, 1.0, 0.9, 1.0), 0.495)],
)  # fmt: skip
async def test_confidence_is_the_probability_of_the_label_tokens(label, probs, expected):
    with ChatServer(logprob_judge(label, probs)) as server:
        v = await judge_for(server).judge(CLAIM, SpanRef(text=SPAN))
    assert server.bodies[0]["logprobs"] is True
    assert v.error is None and v.judge_verdict in (None, label)
    # product over the tokens that spell the label (every other token has probability 1)
    assert v.confidence == pytest.approx(expected)


async def test_no_logprobs_in_the_reply_means_no_confidence():
    with ChatServer(honest_judge) as server:
        v = await judge_for(server).judge(CLAIM, SpanRef(text=SPAN))
    assert v.error is None and v.confidence is None


async def test_a_server_that_refuses_logprobs_is_asked_without_them_once():
    with ChatServer(refuses_logprobs()) as server:
        judge = judge_for(server)
        first = await judge.judge(CLAIM, SpanRef(text=SPAN))
        second = await judge.judge(CLAIM + " Again.", SpanRef(text=SPAN))
    assert first.error is None and second.error is None
    assert first.confidence is None and second.confidence is None
    # one refused request, then every request goes without logprobs
    assert [bool(b.get("logprobs")) for b in server.bodies] == [True, False, False]
    assert any("refused logprobs" in n for n in judge.client.notices)


def test_calibrate_reports_the_ece_of_a_logprob_judge_and_none_otherwise(tmp_path):
    pairs = tmp_path / "cal.jsonl"
    rows = [{"id": f"p{i}", "claim": CLAIM, "span": SPAN + f" Ref {i}.", "label": "SUPPORTED",
             "near_miss": False, "kind": "paraphrase"} for i in range(6)]  # fmt: skip
    pairs.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = {}
    for name, behaviour in (("logprobs", logprob_judge()), ("none", honest_judge)):
        with ChatServer(behaviour) as server:
            result = run_cli("calibrate", "--set", str(pairs), "--judge", "openai:fake",
                             "--base-url", server.base_url, "--api-key", "k", "--home",
                             str(tmp_path / name), "--json")  # fmt: skip
        out[name] = result.output
    assert '"ece"' in out["logprobs"] and "no token probabilities" not in out["logprobs"]
    assert "no token probabilities (logprobs)" in out["none"]
