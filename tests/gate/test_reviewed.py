"""Reviewer decisions exported as labelled pairs, and the gate's `reviewed` row that measures them."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from spanproof.agent.runstore import RunStore

from spanproof.bench.pairs import PairSetError
from spanproof.bench.reviewed_pairs import collect, merge
from spanproof.cli import cli
from spanproof.store import open_store


def _stored(tmp_path, real_run):
    rec, _, _ = real_run
    home = tmp_path / "home"
    store = open_store(home=home)
    RunStore(store).save(rec)
    shown = [c for c in rec.answer.claims if c.status != "dropped"]
    return home, store, rec, shown


def test_cuts_and_refused_edits_become_labelled_pairs_and_overturned_cuts_go(tmp_path, real_run):
    home, store, rec, shown = _stored(tmp_path, real_run)
    first = shown[0]
    cut = store.add_review(rec.run_id, first.index, "cut", reviewer="ann", note="overclaims",
                           label="PARTIAL")  # fmt: skip
    refused = store.add_review(rec.run_id, first.index, "refused", reviewer="ann",
                               note="the span says exactly this", edited_text="A narrower claim.",
                               label="SUPPORTED")  # fmt: skip
    pairs, overturned, skipped = collect(store)
    assert not skipped and not overturned
    by_kind = {p["kind"]: p for p in pairs}
    made = by_kind["reviewer_cut"]
    span = rec.span(first.supporting_span_id)
    assert (made["claim"], made["span"], made["label"]) == (first.text, span.text, "PARTIAL")
    assert made["near_miss"] is True and made["rationale"] == "overclaims"
    assert made["source"]["run_id"] == rec.run_id and made["source"]["span_id"] == span.span_id
    assert made["source"]["review"]["id"] == cut.id
    assert made["source"]["review"]["run_verdict"] == first.verdict.verdict
    kept = by_kind["refused_edit"]
    assert kept["claim"] == "A narrower claim." and kept["label"] == "SUPPORTED"
    assert kept["near_miss"] is False and kept["source"]["review"]["id"] == refused.id

    out = tmp_path / "repo" / "goldens" / "reviewed_pairs.jsonl"
    out.parent.mkdir(parents=True)
    out.write_text(
        json.dumps({"id": "hand-1", "claim": "c", "span": "s", "label": "PARTIAL"}) + "\n"
    )
    res = merge(out, pairs, overturned)
    assert sorted(res.added) == sorted(p["id"] for p in pairs) and res.written
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["id"] == "hand-1" and len(lines) == 3  # a line made by hand is kept
    from spanproof.bench.calibration import load_pairs

    assert {p.label for p in load_pairs(out)} == {"PARTIAL", "SUPPORTED"}  # a pair file
    again = merge(out, *collect(store)[:2])
    assert not again.added and not again.written and len(again.unchanged) == 2

    # The reviewer changes their mind: the cut is no longer in force, its line goes.
    store.add_review(rec.run_id, first.index, "approve", reviewer="bob", note="fine after all")
    pairs, overturned, _ = collect(store)
    assert [p["kind"] for p in pairs] == ["refused_edit"] and made["id"] in overturned
    res = merge(out, pairs, overturned)
    assert res.removed == [made["id"]]
    assert [json.loads(x)["id"] for x in out.read_text().splitlines()] == ["hand-1", kept["id"]]


def test_a_damaged_reviewed_set_is_never_rewritten(tmp_path):
    out = tmp_path / "reviewed.jsonl"
    out.write_text('{"id": "x", "claim": "c"\n')
    before = out.read_text()
    with pytest.raises(PairSetError, match="bad lines"):
        merge(out, [{"id": "rev-1", "claim": "a", "span": "b", "label": "PARTIAL"}], [])
    assert out.read_text() == before


def test_add_from_reviews_command(tmp_path, real_run):
    home, store, rec, shown = _stored(tmp_path, real_run)
    out = tmp_path / "reviewed.jsonl"
    empty = CliRunner().invoke(cli, ["goldens", "add-from-reviews", "--home", str(home),
                                     "--out", str(out)])  # fmt: skip
    assert empty.exit_code == 0 and "no reviewer decision carries a verdict yet" in empty.stderr
    assert not out.exists()
    store.add_review(rec.run_id, shown[0].index, "cut", reviewer="ann", note="no",
                     label="NOT_SUPPORTED")  # fmt: skip
    dry = CliRunner().invoke(cli, ["goldens", "add-from-reviews", "--home", str(home), "--out",
                                   str(out), "--dry-run"])  # fmt: skip
    assert dry.exit_code == 0 and "would add 1" in dry.stdout and not out.exists()
    res = CliRunner().invoke(cli, ["goldens", "add-from-reviews", "--home", str(home), "--out",
                                   str(out), "--json"])  # fmt: skip
    assert res.exit_code == 0 and len(json.loads(res.stdout)["added"]) == 1
    out.write_text(out.read_text() + "not json\n")
    bad = CliRunner().invoke(cli, ["goldens", "add-from-reviews", "--home", str(home), "--out",
                                   str(out)])  # fmt: skip
    assert bad.exit_code == 2 and "bad lines" in bad.stderr


# ---------------------------------------------------------------- the gate's reviewed row


def _gate(tmp_path, body: str):
    cfg = tmp_path / "gate.toml"
    cfg.write_text('checks = ["calibration", "reviewed"]\nrequired = ["calibration", "reviewed"]\n'
                   + body)  # fmt: skip
    res = CliRunner().invoke(cli, ["gate", "--config", str(cfg), "--home", str(tmp_path / "h"),
                                   "--json"])  # fmt: skip
    data = json.loads(res.stdout) if res.stdout.strip() else None
    return res, data and {c["name"]: c for c in data["checks"]}


def test_no_reviewed_set_yet_is_unscored_a_configured_missing_one_could_not_run(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # the default path does not exist here (nor in the repository)
    res, rows = _gate(tmp_path, 'reviewed_set = "no/such/dir/reviewed.jsonl"\n')
    assert res.exit_code == 2 and rows["reviewed.run"]["status"] == "ERROR"
    assert "does not exist" in rows["reviewed.run"]["detail"]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    res, rows = _gate(tmp_path, f'reviewed_set = "{empty}"\n')
    assert rows["reviewed.agreement"]["status"] == "NOT TESTED"
    assert "holds no reviewed pairs yet" in rows["reviewed.agreement"]["detail"]
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text('{"id": "x", "claim": "c", "span": "s", "label": "MAYBE"}\n')
    res, rows = _gate(tmp_path, f'reviewed_set = "{damaged}"\n')
    assert res.exit_code == 2 and rows["reviewed.run"]["status"] == "ERROR"


def test_the_gate_measures_each_reviewed_pair(tmp_path):
    span = "The ministry said the new rail line would open in 2027, two years later than planned."
    pairs = [
        # a reviewer cut: the claim drops the delay and the attribution (PARTIAL), the judge
        # let it through; and one the judge gets right
        {"id": "rev-a", "claim": "The new rail line would open in 2027.", "span": span,
         "label": "PARTIAL", "near_miss": True, "kind": "reviewer_cut"},
        {"id": "rev-b", "claim": "The rail line opened in 2020.", "span": span,
         "label": "NOT_SUPPORTED", "near_miss": True, "kind": "reviewer_cut"},
    ]  # fmt: skip
    path = tmp_path / "reviewed.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in pairs))
    res, rows = _gate(tmp_path, f'reviewed_set = "{path}"\n')
    row = rows["reviewed.agreement"]
    import asyncio

    from spanproof.graders.judges import make_judge
    from spanproof.graders.verify import Verifier

    from spanproof.core.verdict import SpanRef

    verifier = Verifier([make_judge("rules")])
    judged = [asyncio.run(verifier.verify(p["claim"], SpanRef(text=span))) for p in pairs]
    expected = (
        sum(v.supported == (p["label"] == "SUPPORTED") for p, v in zip(pairs, judged, strict=True))
        / 2
    )
    assert row["value"] == pytest.approx(expected)
    # two pairs cannot see a drop: the row reports, never gates, and says how many it needs
    assert row["status"] == "NOT TESTED"
    res, rows = _gate(tmp_path, f'reviewed_set = "{path}"\nfloors = ["reviewed_agreement"]\n')
    row = rows["reviewed.agreement"]
    assert row["status"] == "NOT TESTED" and "it needs" in row["why"], row
    assert "reviewed pairs published as the reviewer decided" in row["detail"]
    data = json.loads(CliRunner().invoke(cli, ["gate", "--config", str(tmp_path / "gate.toml"),
                                               "--home", str(tmp_path / "h"), "--json"]).stdout)  # fmt: skip
    assert data["model_calls"] == 0  # judged through the gate's cached verifier
