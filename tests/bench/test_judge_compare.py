"""Judges compared pair by pair: `calibrate --judge A --judge B` and its arithmetic."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from spanproof.cli.bench import calibrate

SENTENCES = [f"The committee approved plan number {w} for the eastern district." for w in
             ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")]  # fmt: skip


def _files(tmp_path, b_wrong: set[int], b_flaky: int | None = None):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(
        json.dumps({"id": f"p{i}", "claim": s, "span": s, "label": "SUPPORTED",
                    "near_miss": i % 2 == 0, "kind": "even" if i % 2 == 0 else "odd"}) + "\n"
        for i, s in enumerate(SENTENCES)
    ))  # fmt: skip
    a = {f"p{i}": {"verdict": "SUPPORTED", "quote_used": s} for i, s in enumerate(SENTENCES)}
    b = {f"p{i}": {"verdict": "PARTIAL" if i in b_wrong else "SUPPORTED", "quote_used": s}
         for i, s in enumerate(SENTENCES)}  # fmt: skip
    if b_flaky is not None:
        b[f"p{b_flaky}"]["by_repeat"] = ["SUPPORTED", "NOT_SUPPORTED"]
    (tmp_path / "a.json").write_text(json.dumps(a))
    (tmp_path / "b.json").write_text(json.dumps(b))
    return pairs, f"scripted:{tmp_path / 'a.json'}", f"scripted:{tmp_path / 'b.json'}"


def _run(tmp_path, *args):
    res = CliRunner().invoke(calibrate, [*args, "--home", str(tmp_path / "h"), "--json"])
    assert res.exit_code in (0, 1), res.output
    return json.loads(res.stdout)


def test_calibrate_two_judges_gives_the_paired_difference_its_interval_and_test(tmp_path):
    pairs, a, b = _files(tmp_path, b_wrong={0, 2, 4, 5})
    data = _run(tmp_path, "--set", str(pairs), "--judge", a, "--judge", b)
    (c,) = data["comparisons"]
    assert (c["a"], c["b"], c["n"]) == (a, b, 10)
    d = c["agreement"]
    # B loses 4 pairs A gets right and gains none: exact McNemar, by hand 2 * (1/2)^4
    assert d["diff"] == pytest.approx(-0.4) and d["test"] == "exact McNemar"
    assert d["p_two_sided"] == pytest.approx(2 / 16)
    # plain paired SE, every pair its own page: sd(d_i) / sqrt(10), d = four -1s and six 0s
    import statistics

    se = statistics.stdev([-1] * 4 + [0] * 6) / 10**0.5
    assert d["se"] == pytest.approx(se) and d["ci_low"] == pytest.approx(
        -0.4 - 1.959963984540054 * se
    )
    nm = c["near_miss"]  # the even pairs: B lost three of five
    assert nm["diff"] == pytest.approx(-0.6) and nm["p_two_sided"] == pytest.approx(2 / 8)
    assert (c["only_a_right"], c["only_b_right"]) == (4, 0)
    kinds = {k["kind"]: k for k in c["by_kind"]}
    assert kinds["even"]["only_a_right"] == 3 and kinds["odd"]["only_a_right"] == 1
    assert sorted(p["id"] for p in c["differing"]) == ["p0", "p2", "p4", "p5"]
    assert {p["b"] for p in c["differing"]} == {"PARTIAL"}


def test_calibrate_table_prints_the_comparison(tmp_path):
    pairs, a, b = _files(tmp_path, b_wrong={1})
    res = CliRunner().invoke(calibrate, ["--set", str(pairs), "--judge", a, "--judge", b,
                                         "--home", str(tmp_path / "h")])  # fmt: skip
    assert "paired comparison on pairs (10 pairs)" in res.stdout
    assert "-0.100" in res.stdout and "exact McNemar p=1" in res.stdout
    assert "pairs where the verdicts differ (1)" in res.stdout


def test_calibrate_repeat_reports_spread_and_unstable_pairs(tmp_path):
    pairs, a, b = _files(tmp_path, b_wrong=set(), b_flaky=3)
    data = _run(tmp_path, "--set", str(pairs), "--judge", b, "--repeat", "2")
    (j,) = data["judges"]
    assert j["repeats"] == 2 and j["agreement"] == pytest.approx(19 / 20)
    assert j["spread"]["agreement"]["values"] == [1.0, 0.9]
    assert [u["id"] for u in j["unstable"]] == ["p3"]
    plain = _run(tmp_path, "--set", str(pairs), "--judge", a)
    assert "repeats" not in plain["judges"][0] and "comparisons" not in plain
