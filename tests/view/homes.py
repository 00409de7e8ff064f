"""Homes for the viewer's tests, built with the product's own commands and stores."""

from __future__ import annotations

import asyncio
from pathlib import Path

from click.testing import CliRunner

from spanproof.cli import cli

ASK_QUESTION = "When did former congresswoman Liz Patterson die, and how old was she?"
HOSTILE_MARKUP = (
    "<script>document.title='pwned'</script><img src=x onerror=\"document.title='pwned'\">"
)

# A gate restricted to a few checks keeps the suite fast; every check still runs for real.
GATE_CONFIG = """
checks = ["span_fidelity", "groundedness", "calibration", "sensitivity"]
required = ["span_fidelity", "groundedness", "calibration", "sensitivity"]
max_questions = 2
max_pairs = 40
"""


def invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.output


def ask_run(home: Path) -> str:
    """A real offline `spanproof ask`; returns the run id."""
    import json

    out = CliRunner().invoke(cli, ["ask", ASK_QUESTION, "--json", "--home", str(home)])
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)["run_id"]


def gate_runs(home: Path, config_dir: Path) -> None:
    """Three real gate runs on the same checks, one of each outcome: the rules judge (saved as
    the baseline: PASSED), the blind canary against it (REGRESSED), and the rules judge under a
    config that makes a target it misses a floor (FAILED)."""
    config = config_dir / "gate.toml"
    config.write_text(GATE_CONFIG, encoding="utf-8")
    strict = config_dir / "strict.toml"
    strict.write_text(GATE_CONFIG + 'floors = ["calibration_agreement"]\n', encoding="utf-8")
    baseline = config_dir / "baseline.json"
    runs = (
        ("rules", config, ["--save-baseline", str(baseline)], 0),
        ("blind", config, ["--baseline", str(baseline)], 1),
        ("rules", strict, [], 1),
    )
    for judge, cfg, extra, code in runs:
        res = CliRunner().invoke(
            cli, ["gate", "--config", str(cfg), "--judge", judge, "--home", str(home), "--json",
                  *extra],
        )  # fmt: skip
        assert res.exit_code == code, res.output


def hostile_run(home: Path) -> str:
    """A run whose page text and question hold markup, stored through the real stores."""
    from spanproof.agent.record import (
        AnswerClaim,
        DocumentRecord,
        PairVerdict,
        RunConfig,
        RunRecord,
    )
    from spanproof.agent.runstore import RunStore
    from spanproof.graders.judges import make_judge
    from spanproof.graders.verify import Verifier

    from spanproof.core.evidence import Span, make_span_id
    from spanproof.core.verdict import SpanRef
    from spanproof.web.env import SNAPSHOT_DIR
    from spanproof.web.snapshots import SnapshotStore

    body = (
        "The museum opened in 1901 and holds four thousand paintings.\n\n"
        f"A visitor wrote {HOSTILE_MARKUP} in the guest book.\n\n"
        "It is closed on Mondays."
    )
    store = SnapshotStore(home / SNAPSHOT_DIR)
    doc = store.put("https://museum.example/about", body.encode(), content_type="text/plain")
    sentence = f"A visitor wrote {HOSTILE_MARKUP} in the guest book."
    start = doc.text.index(sentence)
    span = Span(
        span_id=make_span_id(doc.doc_id, start, start + len(sentence)),
        doc_id=doc.doc_id,
        url=doc.url,
        text=doc.text[start : start + len(sentence)],
        char_start=start,
        char_end=start + len(sentence),
        retrieved_at=doc.retrieved_at,
    )
    verdict = asyncio.run(
        Verifier([make_judge("rules")]).verify(
            span.text, SpanRef(text=span.text, url=span.url, retrieved_at=span.retrieved_at)
        )
    )
    record = RunRecord(
        run_id="run_hostile_markup",
        question=f"What did the visitor write? {HOSTILE_MARKUP}",
        status="complete",
        config=RunConfig(policy="extractive", judges=["rules"]),
        documents=[
            DocumentRecord(
                doc_id=doc.doc_id,
                url=doc.url,
                final_url=doc.final_url,
                retrieved_at=doc.retrieved_at,
                sha256=doc.sha256,
            )
        ],  # fmt: skip
        spans=[span],
        verdicts=[PairVerdict(claim_index=0, span_id=span.span_id, verdict=verdict)],
    )
    record.answer.summary = f"Summary with {HOSTILE_MARKUP}"
    record.answer.claims = [
        AnswerClaim(index=0, text=span.text, draft_text=span.text, span_ids=[span.span_id],
                    supporting_span_id=span.span_id, verdict=verdict, status="published"),
    ]  # fmt: skip
    RunStore.default(home).save(record)
    return record.run_id
