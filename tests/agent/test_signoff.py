"""The claim ledger's acceptance rule: a run is signed only when every claim left in its brief
is SUPPORTED without a flag or carries a decision; a later decision puts it back to waiting;
the signature travels into `runs show` and the ledger exports."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from click.testing import CliRunner
from spanproof.agent.ledger import ledger_markdown
from spanproof.agent.record import AnswerClaim, RunConfig, RunRecord
from spanproof.agent.runstore import RunStore
from spanproof.agent.signoff import SignRefused, sign, sign_off, signed_ledger, waiting_on

from spanproof.cli import cli
from spanproof.core.verdict import Flag, Verdict
from spanproof.store import open_store

FLAG = Flag(kind="number", reason="number the span does not state: 12")


def _claim(index: int, verdict: str, status: str, flags: list[Flag] | None = None) -> AnswerClaim:
    return AnswerClaim(index=index, text=f"claim {index}.", draft_text=f"claim {index}.",
                       span_ids=[], verdict=Verdict(verdict=verdict, judge="rules", flags=flags or []),
                       status=status)  # fmt: skip


def _record(*claims: AnswerClaim, status: str = "complete") -> RunRecord:
    rec = RunRecord(run_id="run_signoff", question="q", status=status,
                    config=RunConfig(policy="extractive"))  # fmt: skip
    rec.answer.claims = list(claims)
    return rec


def _stored(home, record: RunRecord):
    RunStore.default(home).save(record)
    return open_store(home=home)


# a dropped claim (not in the brief), a clean one, a flagged one, a PARTIAL one shown narrowed
PLANTED = (
    _claim(0, "NOT_SUPPORTED", "dropped"),
    _claim(1, "SUPPORTED", "published"),
    _claim(2, "SUPPORTED", "flagged", [FLAG]),
    _claim(3, "PARTIAL", "narrowed"),
)


def test_a_flagged_or_unsupported_claim_without_a_decision_blocks_the_signature(tmp_path):
    record = _record(*PLANTED)
    store = _stored(tmp_path, record)
    # numbered as the answer cites them: the dropped claim has no number, claim 2 is [2]
    assert waiting_on(record, []) == [
        "claim [2] has no decision (needs a look: number the span does not state: 12)",
        "claim [3] has no decision (PARTIAL, narrowed)",
    ]
    with pytest.raises(SignRefused, match=r"claim \[2\] has no decision"):
        sign(store, record, "ann")
    assert store.signatures([record.run_id]) == {}
    store.add_review(record.run_id, 2, "approve", reviewer="ann")
    with pytest.raises(SignRefused, match=r"claim \[3\]"):
        sign(store, record, "ann")
    # a refused edit kept for the bench decides nothing
    store.add_review(
        record.run_id, 3, "refused", reviewer="ann", edited_text="x", label="SUPPORTED"
    )
    with pytest.raises(SignRefused, match=r"claim \[3\]"):
        sign(store, record, "ann")
    store.add_review(record.run_id, 3, "cut", reviewer="ann", label="PARTIAL")
    signature = sign(store, record, " ann ")
    assert signature.reviewer == "ann"
    standing = sign_off(record, store.list_reviews(record.run_id), [signature])
    assert standing.state == "signed" and standing.signed_by == "ann"


def test_no_name_or_an_incomplete_run_is_never_signed(tmp_path):
    clean = _record(_claim(0, "SUPPORTED", "published"))
    store = _stored(tmp_path, clean)
    with pytest.raises(SignRefused, match="say who signs"):
        sign(store, clean, "  ")
    failed = _record(_claim(0, "SUPPORTED", "published"), status="interrupted")
    assert waiting_on(failed, []) == [
        "the run is interrupted, not complete: only a complete brief is signed"
    ]


def test_a_decision_after_the_signature_puts_the_run_back_to_waiting(tmp_path):
    record = _record(*PLANTED)
    store = _stored(tmp_path, record)
    store.add_review(record.run_id, 2, "approve", reviewer="ann")
    store.add_review(record.run_id, 3, "cut", reviewer="ann", label="PARTIAL")
    signature = sign(store, record, "ann")
    store.add_review(record.run_id, 1, "cut", reviewer="bob", label="NOT_SUPPORTED",
                     decided_at=signature.signed_at + timedelta(seconds=5))  # fmt: skip
    standing = sign_off(record, store.list_reviews(record.run_id), [signature])
    assert standing.state == "waiting" and standing.superseded_by_decision
    assert standing.signable  # every claim is still decided: it can be signed again


def test_the_signature_travels_into_runs_show_and_the_ledger_exports(tmp_path):
    record = _record(*PLANTED)
    store = _stored(tmp_path, record)
    runner = CliRunner()
    refused = runner.invoke(cli, ["runs", "sign", record.run_id, "--reviewer", "ann",
                                  "--home", str(tmp_path)])  # fmt: skip
    assert refused.exit_code == 2 and "claim [2] has no decision" in refused.output
    shown = runner.invoke(cli, ["runs", "show", record.run_id, "--home", str(tmp_path)])
    assert "Waiting for sign-off: claim [2] has no decision" in shown.output
    store.add_review(record.run_id, 2, "approve", reviewer="ann")
    store.add_review(record.run_id, 3, "cut", reviewer="ann", label="PARTIAL")
    ok = runner.invoke(cli, ["runs", "sign", record.run_id, "--reviewer", "ann",
                             "--home", str(tmp_path)])  # fmt: skip
    assert ok.exit_code == 0 and f"signed run {record.run_id} as ann" in ok.output
    shown = runner.invoke(cli, ["runs", "show", record.run_id, "--home", str(tmp_path)])
    assert "Signed by ann at " in shown.output
    payload = json.loads(runner.invoke(cli, ["runs", "show", record.run_id, "--json", "--home",
                                             str(tmp_path)]).stdout)  # fmt: skip
    assert payload["signoff"]["state"] == "signed" and payload["signoff"]["signed_by"] == "ann"
    assert {r["signed_by"] for r in payload["ledger"]} == {"ann"}
    # the ledger lists claims in review order, numbered as the answer cites them
    citations = [r["citation"] for r in payload["ledger"]]
    assert sorted(citations, key=lambda c: -1 if c is None else c) == [None, 1, 2, 3]
    brief = tmp_path / "brief.md"
    runner.invoke(cli, ["runs", "show", record.run_id, "--markdown", str(brief),
                        "--home", str(tmp_path)])  # fmt: skip
    assert "_Signed by ann at " in brief.read_text()
    rows, _ = signed_ledger(record, store.list_reviews(record.run_id),
                            store.signatures([record.run_id])[record.run_id])  # fmt: skip
    table = ledger_markdown(record, rows)
    # the ledger numbers claims as the answer does (rows in review order); the dropped claim is
    # marked, not numbered
    cells = sorted(line.split("|")[1].strip() for line in table.splitlines()[2:])
    assert cells == ["[1]", "[2]", "[3]", "dropped"]


def test_signed_at_is_utc_iso():
    record = _record(_claim(0, "SUPPORTED", "published"))

    class Sig:
        reviewer = "ann"
        signed_at = datetime(2026, 12, 2, 21, 0, 5)

    assert sign_off(record, [], [Sig()]).signed_at == "2026-12-02T21:00:05Z"
