"""One price table: the run record's cost and the gate's cost table agree, dollar for dollar."""

from __future__ import annotations

import pytest
from spanproof.agent.chat import Usage
from spanproof.agent.prices import LOCAL_SEARCH_BACKENDS, Prices, price_run, run_cost
from spanproof.agent.publish import compute_metrics
from spanproof.agent.record import RunConfig, RunRecord, TraceEntry

from spanproof.gate.config import GateConfig, load_config
from spanproof.web.search import LocalIndex, StaticSearch


def record(model: str = "openai:gpt-4o-mini", web: str = "SearxngSearch", **config) -> RunRecord:
    """Two research turns of a given model (1M prompt + 100k completion tokens each), one
    convergence call, and three searches (one refused by the budget, so not run)."""
    trace = [
        TraceEntry(step=1, kind="model", role="research", model_id="gpt-4o-mini-2024-07-18",
                   usage=Usage(prompt_tokens=1_000_000, completion_tokens=100_000)),
        TraceEntry(step=2, kind="tool", tool="web_search"),
        TraceEntry(step=3, kind="model", role="research", model_id="gpt-4o-mini-2024-07-18",
                   usage=Usage(prompt_tokens=1_000_000, completion_tokens=100_000)),
        TraceEntry(step=4, kind="tool", tool="web_search"),
        TraceEntry(step=5, kind="tool", tool="web_search", ok=False,
                   error={"error": "BUDGET_EXCEEDED", "message": "no searches left",
                          "retryable": False}),
        TraceEntry(step=6, kind="convergence", role="small", model_id="gpt-4o-mini-2024-07-18",
                   usage=Usage(prompt_tokens=200_000, completion_tokens=10_000)),
    ]  # fmt: skip
    rec = RunRecord(
        run_id="run_p", question="q",
        config=RunConfig(policy="llm", model=model, web=web, **config), trace=trace,
    )  # fmt: skip
    rec.metrics = compute_metrics(rec)
    return rec


def test_same_tokens_same_dollars_from_the_record_and_the_gate():
    rec = record()
    # gpt-4o-mini at $0.30 / $1.50 per 1M, whichever role it plays; 2 executed searches at $0.01.
    expected = (2.2e6 * 0.30 + 0.21e6 * 1.50) / 1e6 + 2 * 0.01
    assert rec.metrics.cost.total_usd == pytest.approx(expected)
    assert run_cost(rec, GateConfig().prices).cost_usd == pytest.approx(expected)
    assert rec.metrics.cost.search_usd == pytest.approx(0.02)


def test_a_price_table_from_config_prices_both_paths(tmp_path):
    cfg = tmp_path / "gate.toml"
    cfg.write_text(
        "[prices]\nsearch_usd = 0.5\n"
        "[prices.models.gpt-4o-mini]\ninput_per_mtok = 1\noutput_per_mtok = 2\n"
    )
    prices = load_config(cfg)[0].prices
    rec = record(prices=prices)
    expected = (2.2e6 * 1 + 0.21e6 * 2) / 1e6 + 2 * 0.5
    assert rec.metrics.cost.total_usd == pytest.approx(expected)
    assert run_cost(rec, prices).cost_usd == pytest.approx(expected)
    # The same record under the default table costs something else: the table is really used.
    assert run_cost(rec, Prices()).cost_usd != pytest.approx(expected)


def test_unlisted_models_are_priced_by_role():
    rec = record(model="openai:local-llama")
    for e in rec.trace:
        if e.model_id:
            e.model_id = "local-llama"
    cost = price_run(rec)
    assert cost.research_usd == pytest.approx(2 * (1e6 * 3 + 1e5 * 15) / 1e6)
    assert cost.small_usd == pytest.approx((2e5 * 0.30 + 1e4 * 1.50) / 1e6)


def test_offline_model_and_local_corpus_cost_nothing_and_say_so():
    rec = record(model="scripted:turns.json", web="LocalIndex")
    assert rec.metrics.cost.total_usd == 0
    assert run_cost(rec, Prices()).cost_usd == 0
    assert "search(es) of the local corpus cost $0" in rec.metrics.cost.free
    assert "offline model cost $0" in rec.metrics.cost.free


def test_local_search_backends_are_the_local_classes():
    # Records store the backend's class name; a rename must not start charging local searches.
    assert {LocalIndex.__name__, StaticSearch.__name__} == set(LOCAL_SEARCH_BACKENDS)


def test_records_with_the_old_per_role_table_still_load():
    old = {"research_in": 1.0, "research_out": 2.0, "small_in": 0.1, "small_out": 0.2,
           "per_search": 0.05}  # fmt: skip
    prices = RunConfig.model_validate({"policy": "extractive", "prices": old}).prices
    assert prices.research.input_per_mtok == 1.0 and prices.small.output_per_mtok == 0.2
    assert prices.search_usd == 0.05


def test_a_misspelt_price_key_is_refused(tmp_path):
    from spanproof.gate.config import GateConfigError

    cfg = tmp_path / "gate.toml"
    cfg.write_text("[prices]\nsearch_cost = 0\n")
    with pytest.raises(GateConfigError, match="search_usd"):
        load_config(cfg)
