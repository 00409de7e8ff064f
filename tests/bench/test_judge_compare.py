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


# ------------------------------------------------- judges named, covering, SUPPORTED vs rest


def _binary_files(tmp_path, a_lacks=(), b_lacks=()):
    """Ten pairs, four SUPPORTED and six PARTIAL/NOT_SUPPORTED; two binary judges: A says
    SUPPORTED on everything (TPR 1, TNR 0), B on the SUPPORTED ones and one other (TPR 1,
    TNR 5/6). Three-way agreement cannot tell them apart on the PARTIAL pairs."""
    labels = ["SUPPORTED"] * 4 + ["PARTIAL"] * 4 + ["NOT_SUPPORTED"] * 2
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(
        json.dumps({"id": f"p{i}", "claim": s, "span": s, "label": labels[i]}) + "\n"
        for i, s in enumerate(SENTENCES)
    ))  # fmt: skip
    a = {f"p{i}": {"verdict": "SUPPORTED", "quote_used": s}
         for i, s in enumerate(SENTENCES) if f"p{i}" not in a_lacks}  # fmt: skip
    b = {f"p{i}": {"verdict": "SUPPORTED" if i < 5 else "NOT_SUPPORTED", "quote_used": s}
         for i, s in enumerate(SENTENCES) if f"p{i}" not in b_lacks}  # fmt: skip
    (tmp_path / "a.json").write_text(json.dumps(a))
    (tmp_path / "b.json").write_text(json.dumps(b))
    return pairs, f"all-yes=scripted:{tmp_path / 'a.json'}", f"b=scripted:{tmp_path / 'b.json'}"


def test_binary_judges_are_compared_on_balanced_accuracy_with_tpr_and_tnr(tmp_path):
    pairs, a, b = _binary_files(tmp_path)
    data = _run(tmp_path, "--set", str(pairs), "--judge", a, "--judge", b)
    (c,) = data["comparisons"]
    assert (c["a"], c["b"]) == ("all-yes", "b")  # the names, not the specs
    assert [(r["judge"], r["spec"]) for r in data["judges"]] == [
        ("all-yes", a.split("=", 1)[1]),
        ("b", b.split("=", 1)[1]),
    ]  # the spec beside the name, for provenance
    assert c["a_binary"] and c["b_binary"]
    ba = c["binary"]["balanced_accuracy"]
    # A: (1 + 0) / 2; B: (1 + 5/6) / 2, as the per-judge table's balanced accuracy says
    assert ba["baseline"] == pytest.approx(0.5) and ba["current"] == pytest.approx(11 / 12)
    by_judge = {r["judge"]: r["balanced_accuracy"] for r in data["judges"]}
    assert by_judge == pytest.approx({"all-yes": 0.5, "b": 11 / 12})
    # B gains five "rest" pairs, loses none: weights 6 (SUPPORTED) and 4 (rest), /gcd 2 -> 3
    # and 2; every gain is +2, so the exact sign-flip test is 2 * (1/2)^5
    assert ba["p_two_sided"] == pytest.approx(2 / 32) and "exact" in ba["test"]
    tpr, tnr = c["binary"]["tpr"], c["binary"]["tnr"]
    assert tpr["diff"] == 0 and tpr["n_items"] == 4
    assert tnr["diff"] == pytest.approx(5 / 6) and tnr["test"] == "exact McNemar"
    assert c["binary"]["n_supported"] == 4 and c["binary"]["n_rest"] == 6


def test_the_headline_of_binary_judges_is_balanced_accuracy(tmp_path):
    pairs, a, b = _binary_files(tmp_path)
    res = CliRunner().invoke(calibrate, ["--set", str(pairs), "--judge", a, "--judge", b,
                                         "--home", str(tmp_path / "h")])  # fmt: skip
    text = res.stdout
    assert "all-yes and b never said PARTIAL here (binary judges)" in text
    head = text.index("balanced accuracy (final): all-yes 0.500, b 0.917")
    assert head < text.index("agreement (three-way)")
    assert "TNR on 6 other pairs: 0.000 -> 0.833" in text
    assert "scripted:" not in text.split("paired comparison")[1]  # named everywhere


def test_a_three_way_judge_keeps_agreement_as_the_headline(tmp_path):
    pairs, a, b = _files(tmp_path, b_wrong={1})  # B says PARTIAL once: not binary
    data = _run(tmp_path, "--set", str(pairs), "--judge", a, "--judge", b)
    (c,) = data["comparisons"]
    assert c["a_binary"] and not c["b_binary"]
    res = CliRunner().invoke(calibrate, ["--set", str(pairs), "--judge", a, "--judge", b,
                                         "--home", str(tmp_path / "h")])  # fmt: skip
    assert f"{a} never said PARTIAL here (a binary judge)" in res.stdout


def test_a_judge_that_lacks_pairs_stops_before_judging_unless_cover(tmp_path):
    pairs, a, b = _binary_files(tmp_path, a_lacks={"p8"}, b_lacks={"p8", "p9"})
    res = CliRunner().invoke(calibrate, ["--set", str(pairs), "--judge", a, "--judge", b,
                                         "--home", str(tmp_path / "h")])  # fmt: skip
    assert res.exit_code == 2
    assert "the judge all-yes" in res.stderr and "1 of the 10 labelled pairs" in res.stderr
    assert "--cover" in res.stderr and "8 pairs every judge covers" in res.stderr
    assert "Add an entry" not in res.stderr and "judging" not in res.stderr  # nothing judged

    data = _run(tmp_path, "--set", str(pairs), "--judge", a, "--judge", b, "--cover")
    (cov,) = data["coverage"]
    assert (cov["n"], cov["kept"]) == (10, 8)
    assert cov["left_out"] == [{"id": "p8", "missing_from": ["all-yes", "b"]},
                               {"id": "p9", "missing_from": ["b"]}]  # fmt: skip
    assert {r["n"] for r in data["judges"]} == {8} and data["comparisons"][0]["n"] == 8


def test_cover_with_no_pair_every_judge_covers_is_an_error(tmp_path):
    pairs, a, b = _binary_files(tmp_path, a_lacks={f"p{i}" for i in range(5)},
                                b_lacks={f"p{i}" for i in range(5, 10)})  # fmt: skip
    res = CliRunner().invoke(calibrate, ["--set", str(pairs), "--judge", a, "--judge", b,
                                         "--cover", "--home", str(tmp_path / "h")])  # fmt: skip
    assert res.exit_code == 2 and "nothing to compare them on" in res.stderr


def test_two_judges_of_one_name_are_refused(tmp_path):
    pairs, a, b = _binary_files(tmp_path)
    res = CliRunner().invoke(calibrate, ["--set", str(pairs), "--judge", "x=rules", "--judge",
                                         "x=blind", "--home", str(tmp_path / "h")])  # fmt: skip
    assert res.exit_code == 2 and "two judges are called 'x'" in res.stderr


def test_the_html_report_shows_the_comparison_and_the_pairs_that_differ(tmp_path):
    pairs, a, b = _binary_files(tmp_path, b_lacks={"p9"})
    out = tmp_path / "report"
    res = CliRunner().invoke(calibrate, ["--set", str(pairs), "--judge", a, "--judge", b,
                                         "--cover", "--report", str(out),
                                         "--home", str(tmp_path / "h")])  # fmt: skip
    assert res.exit_code == 0, res.output
    page = (out / "index.html").read_text()
    assert "9 of 10 labelled pairs kept" in page and "b has no verdict for 1" in page
    assert "b minus all-yes on pairs (9 pairs)" in page
    assert page.index("balanced accuracy (SUPPORTED vs rest)") < page.index("agreement (three-way)")
    assert "Pairs where the verdicts differ (4)" in page  # p5..p8: B said NOT_SUPPORTED
    for pid in ("p5", "p6", "p7", "p8"):
        assert f"<td>{pid}</td>" in page


def test_judges_that_both_say_partial_keep_three_way_agreement_as_the_headline(tmp_path):
    pairs, a, b = _files(tmp_path, b_wrong={1})
    script = json.loads((tmp_path / "a.json").read_text())
    script["p2"]["verdict"] = "PARTIAL"
    (tmp_path / "a.json").write_text(json.dumps(script))
    res = CliRunner().invoke(calibrate, ["--set", str(pairs), "--judge", a, "--judge", b,
                                         "--home", str(tmp_path / "h")])  # fmt: skip
    assert "never said PARTIAL" not in res.stdout
    assert res.stdout.index("agreement (three-way)") < res.stdout.index("balanced accuracy")
