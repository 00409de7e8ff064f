"""The verdict cache is keyed on the endpoint: verdicts one server gave are never reused for
another server that serves a model of the same name."""

from __future__ import annotations

import json

from .conftest import run_cli, write_pairs
from .server import ChatServer, verdict


def _says_not_supported(body, server):
    return verdict(body, "NOT_SUPPORTED")


def _verdicts(tmp_path, pairs, server, name):
    out = tmp_path / f"{name}.jsonl"
    result = run_cli("verify", "--pairs", str(pairs), "--judge", "openai:same-name",
                     "--base-url", server.base_url, "--api-key", "local",
                     "--home", str(tmp_path / "home"), "--out", str(out))  # fmt: skip
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    return result, [r["verdict"] for r in rows]


def test_a_verdict_from_one_endpoint_is_not_reused_for_another(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 3)
    with ChatServer() as hostile, ChatServer(_says_not_supported) as honest:
        _, first = _verdicts(tmp_path, pairs, hostile, "hostile")
        _, second = _verdicts(tmp_path, pairs, honest, "honest")
        _, again = _verdicts(tmp_path, pairs, hostile, "hostile-again")
        assert first == ["SUPPORTED"] * 3
        assert honest.count == 3  # asked, not answered from the other server's verdicts
        assert second == ["NOT_SUPPORTED"] * 3
        assert again == first and hostile.count == 3  # each endpoint's own cache still hits
