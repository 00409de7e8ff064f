"""The gate against an openai: judge: a warm rerun gives the same exit code and figures as the
cold run, with 0 model calls; "could not run" means no call reached the judge (cache hits
count), so a judge error among cached verdicts is a measured figure, warm or cold."""

from __future__ import annotations

import json

from .conftest import SPAN, run_cli
from .server import ChatServer, context_400_for


def calibration_set(path, n: int = 6, marker_at: int | None = None):
    lines = []
    for i in range(n):
        claim = f"The council approved a $2 million budget in March 2024 (item {i})."
        if i == marker_at:
            claim = "LONGLONG " + claim
        lines.append(json.dumps({"id": f"c{i}", "claim": claim, "span": SPAN + f" Ref {i}.",
                                 "label": "SUPPORTED", "near_miss": i % 2 == 0}))  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def gate(tmp_path, base_url: str, cal):
    cfg = tmp_path / "gate.toml"
    cfg.write_text(f'checks = ["calibration"]\ncalibration_set = "{cal}"\n'
                   'judge = "openai:fake"\nrequired = ["calibration"]\n'
                   # a production judge's config: the calibration targets are floors
                   'floors = ["calibration_agreement", "calibration_near_miss"]\n')  # fmt: skip
    result = run_cli("gate", "--config", str(cfg), "--json", "--home", str(tmp_path / "home"),
                     "--base-url", base_url, "--api-key", "local")  # fmt: skip
    data = json.loads(result.stdout)
    figures = [(c["name"], c["value"], c["status"]) for c in data["checks"]]
    return result.exit_code, figures, data


def test_warm_rerun_same_exit_code_and_figures_with_zero_model_calls(tmp_path):
    cal = calibration_set(tmp_path / "cal.jsonl")
    with ChatServer() as server:
        cold = gate(tmp_path, server.base_url, cal)
        requests_after_cold = server.count
        warm = gate(tmp_path, server.base_url, cal)
    assert cold[0] == warm[0] == 0
    assert cold[1] == warm[1] and cold[1][0] == ("calibration.agreement", 1.0, "PASS")
    assert cold[2]["model_calls"] == 6 and warm[2]["model_calls"] == 0
    assert warm[2]["cache_hits"] == 6 and server.count == requests_after_cold == 6


def test_a_judge_error_among_cached_verdicts_is_measured_warm_or_cold(tmp_path):
    # One pair's call is refused (context too long); the others are answered and cached. The
    # rerun happens with the server gone: the cached verdicts reached the judge, so the figure
    # is measured (exit 1, the same agreement), not "could not run" (exit 2).
    cal = calibration_set(tmp_path / "cal.jsonl", marker_at=3)
    with ChatServer(context_400_for("LONGLONG")) as server:
        cold = gate(tmp_path, server.base_url, cal)
        url = server.base_url
    warm = gate(tmp_path, url, cal)  # nothing listens there any more
    assert cold[0] == warm[0] == 1
    assert cold[1] == warm[1]
    agreement = dict((n, v) for n, v, _ in cold[1])["calibration.agreement"]
    assert agreement == 5 / 6
    detail = next(c["detail"] for c in warm[2]["checks"] if c["name"] == "calibration.agreement")
    assert "1 judge errors" in detail
    assert warm[2]["model_calls"] == 1 and warm[2]["cache_hits"] == 5


def test_a_judge_that_no_call_reached_is_could_not_run(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cal = calibration_set(tmp_path / "cal.jsonl")
    code, figures, data = gate(tmp_path, f"http://127.0.0.1:{port}/v1", cal)
    assert code == 2 and figures[0][2] == "ERROR"
    assert (
        "never reached" in data["checks"][0]["detail"] or "reached" in data["checks"][0]["detail"]
    )
