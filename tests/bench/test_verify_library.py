"""`verify_pairs`, the verify pipeline as one library call: it prints nothing, says what
happens through events, refuses bad input with a VerifyFailed, and a run stopped half way
keeps its rows and says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spanproof.bench.verify import (
    BadLines,
    JudgingEnded,
    JudgingStarted,
    PairJudged,
    Stopped,
    VerifyFailed,
    VerifyRequest,
    verify_pairs,
)

WICE = Path(__file__).resolve().parents[2] / "goldens" / "wice_dev_pairs.jsonl"


def _pairs(tmp_path: Path, n: int, *extra: str) -> Path:
    path = tmp_path / "pairs.jsonl"
    lines = WICE.read_text(encoding="utf-8").splitlines()[:n]
    path.write_text("\n".join([*lines, *extra]) + "\n", encoding="utf-8")
    return path


def _request(tmp_path: Path, pairs: Path, **fields) -> VerifyRequest:
    return VerifyRequest(pairs=pairs, judges=("blind",), cache=False, home=str(tmp_path / "h"),
                         **fields)  # fmt: skip


@pytest.mark.parametrize("repeat", [1, 2])
def test_progress_is_events_and_nothing_is_printed(tmp_path, capfd, repeat):
    events = []
    request = _request(tmp_path, _pairs(tmp_path, 5), keep_rows=True, repeat=repeat)
    outcome = verify_pairs(request, on_event=events.append)
    assert [type(e) for e in events] == [JudgingStarted, *[PairJudged] * 5, JudgingEnded]
    assert events[0].total == 5
    assert capfd.readouterr() == ("", "")
    rows = [json.loads(r) for r in outcome.results() or []]
    assert [r["id"] for r in rows] == [
        json.loads(x)["id"] for x in WICE.read_text().splitlines()[:5]
    ]
    assert outcome.summary.pairs == 5 and outcome.summary.metrics.audited.n == 5 * repeat
    assert (outcome.summary.repeats is not None) == (repeat > 1)
    outcome.close()


def test_bad_lines_are_named_then_refused_unless_skipped(tmp_path):
    pairs = _pairs(tmp_path, 3, "{not json")
    events = []
    with pytest.raises(VerifyFailed, match=r"1 bad line\(s\) .* No pair was judged"):
        verify_pairs(_request(tmp_path, pairs), on_event=events.append)
    assert events == [BadLines(path=pairs, problems=["line 4: invalid JSON (Expecting property "
                                                     "name enclosed in double quotes at column 2)"])]  # fmt: skip
    outcome = verify_pairs(_request(tmp_path, pairs, skip_invalid=True))
    assert outcome.summary.pairs == 3 and len(outcome.summary.invalid_lines) == 1


def test_the_document_keeps_the_keys_a_run_has(tmp_path):
    """repeats and batch appear only in runs that have them; a repeat's agreement only with
    labels; the unstable pairs without the set name."""
    pairs = _pairs(tmp_path, 2)
    plain = verify_pairs(_request(tmp_path, pairs)).summary.document()
    assert "repeats" not in plain and "batch" not in plain and list(plain)[-1] == "out"
    first, second = (json.loads(line) for line in pairs.read_text().splitlines())
    script = tmp_path / "judge.json"
    script.write_text(json.dumps({
        first["id"]: {"verdict": "SUPPORTED", "quote_used": first["span"],
                      "by_repeat": ["SUPPORTED", "NOT_SUPPORTED"]},
        second["id"]: {"verdict": "PARTIAL", "quote_used": second["span"]},
    }))  # fmt: skip
    sampled = verify_pairs(
        _request(tmp_path, pairs, repeat=2).model_copy(update={"judges": (f"scripted:{script}",)})
    ).summary.document()
    assert list(sampled["repeats"]) == ["n", "unstable", "agreement"] and "batch" not in sampled
    (unstable,) = sampled["repeats"]["unstable"]
    assert list(unstable) == ["id", "claim", "label", "verdicts"] and unstable["id"] == first["id"]
    unlabelled = tmp_path / "unlabelled.jsonl"
    unlabelled.write_text(json.dumps({"id": "u", "claim": "A claim.", "span": "A span."}) + "\n")
    doc = verify_pairs(_request(tmp_path, unlabelled, repeat=2)).summary.document()
    assert doc["metrics"] is None and list(doc["repeats"]) == ["n", "unstable"]


def test_a_stopped_run_keeps_its_rows_and_says_so(tmp_path):
    out = tmp_path / "v.jsonl"
    events = []

    def stop_at_the_third(event):
        events.append(event)
        if events.count(PairJudged()) == 3 and event == PairJudged():
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        verify_pairs(_request(tmp_path, _pairs(tmp_path, 10), out=out), on_event=stop_at_the_third)
    assert events[-2:] == [
        JudgingEnded(),
        Stopped(judged=3, total=10, kept=tmp_path / "v.jsonl.partial", cached=False),
    ]
    assert not out.exists() and len((tmp_path / "v.jsonl.partial").read_text().splitlines()) == 3


@pytest.mark.parametrize(
    ("cached", "says"),
    [
        (True, "answered from the verdict cache"),
        (False, "with --no-cache every pair is judged again"),
    ],
)
def test_a_stopped_run_says_whether_a_rerun_reads_its_verdicts_from_the_cache(
    tmp_path, capsys, cached, says
):
    from spanproof.cli.verify_output import Terminal

    Terminal(progress=False)(Stopped(judged=3, total=10, kept=None, cached=cached))
    err = capsys.readouterr().err
    assert "verify stopped after 3 of 10 pairs: rerun to finish" in err and says in err
    assert ("verdict cache" in err) is cached


def test_an_out_file_that_is_the_input_is_refused_before_reading(tmp_path):
    pairs = _pairs(tmp_path, 2)
    with pytest.raises(VerifyFailed, match="would destroy the input"):
        verify_pairs(_request(tmp_path, pairs, out=pairs))
    assert len(pairs.read_text().splitlines()) == 2


@pytest.mark.parametrize("labelled", [True, False])
def test_the_figures_module_is_imported_while_a_labelled_file_is_judged(
    tmp_path, monkeypatch, labelled
):
    # its import came after the last verdict; only a labelled file has figures to compute
    import inspect

    from spanproof.bench.verify import streaming
    from spanproof.bench.verify.summary import label_metrics

    asked: list[str] = []
    monkeypatch.setattr(streaming, "_import_meanwhile", asked.append)
    pairs = _pairs(tmp_path, 3)
    if not labelled:
        rows = [json.loads(line) for line in pairs.read_text(encoding="utf-8").splitlines()]
        pairs.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "label"}) + "\n"
                                 for r in rows), encoding="utf-8")  # fmt: skip
    verify_pairs(_request(tmp_path, pairs))
    assert asked == ([streaming.FIGURES_MODULE] if labelled else [])
    # the module imported meanwhile is the one the summary computes the figures with
    assert f"from {streaming.FIGURES_MODULE} import" in inspect.getsource(label_metrics)
