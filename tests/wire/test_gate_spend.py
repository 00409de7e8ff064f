"""The gate with a model says what it may spend before spending it, and --max-cost bounds every
model call of the gate together."""

from __future__ import annotations

import json
from pathlib import Path

from spanproof.agent.prices import ModelPrice, Prices

from spanproof.gate.config import AGENT_CHECKS, GateConfig
from spanproof.gate.estimate import estimate
from spanproof.gate.store import GateStore

from .conftest import run_cli
from .research_server import research_model
from .server import ChatServer

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "goldens" / "corpus"


def _config(tmp_path: Path, n: int) -> Path:
    cfg = tmp_path / "gate.toml"
    cfg.write_text(
        f'corpus_dir = "{CORPUS}"\nmax_questions = {n}\npolicy = "llm"\n'
        f'model = "openai:research"\nchecks = {json.dumps(list(AGENT_CHECKS))}\n'
        f"required = {json.dumps(list(AGENT_CHECKS))}\n"
    )
    return cfg


def test_the_estimate_is_said_before_the_agent_runs(tmp_path):
    with ChatServer(research_model) as server:
        result = run_cli("gate", "--config", str(_config(tmp_path, 2)), "--home",
                         str(tmp_path / "h"), "--base-url", server.base_url, "--api-key", "local")  # fmt: skip
    lines = result.stderr.splitlines()
    (said,) = [i for i, ln in enumerate(lines) if "cost estimate:" in ln]
    assert said < lines.index("[gate] agent runs …")
    # 2 runs x 14 turns (and as many convergence checks); the token budget of each run,
    # 200000, at the research price's dearer rate of $15 per million
    assert "at most 56 model calls, $6.00 by the price table" in lines[said], lines[said]
    (stored,) = GateStore.default(tmp_path / "h").list()
    assert stored.artifacts.cost_estimate.agent_calls == 56


def test_no_estimate_offline(tmp_path):
    cfg = tmp_path / "gate.toml"
    cfg.write_text(f'corpus_dir = "{CORPUS}"\nmax_questions = 1\nchecks = ["schema_validity"]\n'
                   'required = ["schema_validity"]\n')  # fmt: skip
    result = run_cli("gate", "--config", str(cfg), "--home", str(tmp_path / "h"))
    assert result.exit_code == 0, result.output
    assert "cost estimate" not in result.stderr


def test_max_cost_stops_every_model_call_of_the_gate(tmp_path):
    # each reply is 1500 prompt and 60 completion tokens: $0.0054 at the research price; four
    # questions would take about 24 replies ($0.13). Each request holds its worst case (its
    # prompt's bytes, its max_tokens) against the cap before it is sent, so the replies of the
    # runs side by side never take the spend past $0.06.
    home = tmp_path / "h"
    with ChatServer(research_model) as server:
        result = run_cli("gate", "--config", str(_config(tmp_path, 4)), "--home", str(home),
                         "--base-url", server.base_url, "--api-key", "local", "--json",
                         "--max-cost", "0.06")  # fmt: skip
    assert result.exit_code == 2, result.output
    rows = json.loads(result.stdout)["checks"]
    assert {r["status"] for r in rows} == {"ERROR"}
    assert all("--max-cost 0.06 was reached" in r["detail"] for r in rows), rows[0]["detail"]
    assert 0 < server.count * 0.0054 <= 0.06, server.count
    (stored,) = GateStore.default(home).list()
    assert stored.exit_code == 2


def test_the_judge_estimate_counts_every_pair_and_repeat():
    prices = Prices(models={"judge": ModelPrice(input_per_mtok=1.0, output_per_mtok=2.0)})
    cfg = GateConfig(judge="openai:judge", repeat=3, prices=prices, checks=["calibration"])
    pairs = [("c" * 40, "s" * 400)] * 5
    found = estimate(cfg, questions=10, pages=66, pairs=pairs)
    assert found.judge_calls == 15 and found.agent_calls == 0 and found.usefulness_calls == 0
    more = estimate(cfg, questions=10, pages=66, pairs=pairs * 2)
    assert more.judge_usd > found.judge_usd > 0
