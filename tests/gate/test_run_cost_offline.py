"""An offline run (local corpus, extractive policy, rules judge) costs $0 and says why."""

from __future__ import annotations

from spanproof.agent.prices import run_cost

from spanproof.gate.config import GateConfig


def test_offline_run_costs_nothing(real_run):
    rec, _, _ = real_run
    assert rec.metrics.searches > 0  # searched the local corpus, which is not a cost
    assert rec.metrics.cost.total_usd == 0
    row = run_cost(rec, GateConfig().prices)
    assert row.cost_usd == 0
    assert "local corpus cost $0" in row.cost_free and "no model was called" in row.cost_free
