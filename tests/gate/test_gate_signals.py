"""SIGTERM (how CI cancels a job) and Ctrl-C in each phase of the offline gate stop it at once
and leave the JUnit file, the markdown summary and the stored record with the rows that
finished.

A real gate in a subprocess and a real signal, sent when the phase's own progress line appears
on stderr (so each test stops the phase it names, whatever the machine's speed). A CI runner
kills a job a few seconds after SIGTERM: a gate that goes on computing until the end of a phase
leaves nothing, so the stop is held to ``STOP_WITHIN_S``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from spanproof.gate.store import GateStore

# The phases in the order the offline gate runs them, with the checks that finished before
# each began (their rows must keep their figures).
PHASES = {
    "judge setup": set(),
    "agent runs": set(),
    "calibration": {"groundedness", "coverage", "span_fidelity"},
    "sensitivity": {"groundedness", "calibration"},
    "injection": {"groundedness", "calibration", "sensitivity"},
}
# From the signal to the record and the files: the gate yields to its signal handler at least
# once a judged pair or a tool call. A CI runner gives a cancelled job a few seconds.
STOP_WITHIN_S = 5.0
CASES = [(phase, signal.SIGTERM) for phase in PHASES] + [
    ("judge setup", signal.SIGINT),
    ("sensitivity", signal.SIGINT),
]
# signal -> (the stop's reason, exit code, what the rows and the progress line say)
HOW = {
    signal.SIGTERM: ("terminate", 143, "stopped by SIGTERM"),
    signal.SIGINT: ("interrupt", 130, "interrupted (Ctrl-C)"),
}


def _gate(tmp_path: Path) -> tuple[subprocess.Popen[str], Path, Path, Path]:
    home, junit, md = tmp_path / "home", tmp_path / "out" / "gate.xml", tmp_path / "gate.md"
    proc = subprocess.Popen(
        [sys.executable, "-c", "from spanproof.cli import main; main()", "gate",
         "--max-questions", "3", "--junit", str(junit), "--markdown", str(md)],
        cwd=tmp_path, env=dict(os.environ, SPANPROOF_HOME=str(home)),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # as a terminal starts it: a background job of a non-interactive shell inherits SIGINT
        # ignored, and the gate then rightly ignores it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    return proc, home, junit, md


def _signal_in(proc: subprocess.Popen[str], phase: str, sig: int) -> tuple[float | None, str]:
    """Send ``sig`` when ``phase`` starts; the seconds until the gate said it recorded the run
    (None: it never did), and everything it wrote on stderr."""
    assert proc.stderr is not None
    seen: list[str] = []
    sent = recorded = None
    for line in proc.stderr:
        seen.append(line)
        if sent is None and line.startswith(f"[gate] {phase} …"):
            proc.send_signal(sig)
            sent = time.monotonic()
        elif sent is not None and line.startswith(f"[gate] {HOW[sig][2]}; recorded "):
            recorded = time.monotonic() - sent
            break
        if sent is not None and time.monotonic() - sent > STOP_WITHIN_S:
            break
    assert sent is not None, f"the gate never started {phase!r}:\n{''.join(seen)[-3000:]}"
    return recorded, "".join(seen)


@pytest.mark.slow
@pytest.mark.parametrize(("phase", "sig"), CASES, ids=[f"{p}-{s.name}" for p, s in CASES])
def test_a_signal_in_each_phase_leaves_junit_markdown_and_the_record(tmp_path, phase, sig):
    reason, code, said = HOW[sig]
    proc, home, junit, md = _gate(tmp_path)
    try:
        recorded, err = _signal_in(proc, phase, sig)
        if recorded is None or recorded > STOP_WITHIN_S:
            proc.kill()  # what a CI runner does to a job that does not stop in time
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert recorded is not None and recorded <= STOP_WITHIN_S, (
        f"the gate did not record the run within {STOP_WITHIN_S} s of {signal.Signals(sig).name} in {phase}:\n"
        + err[-2000:]
    )
    assert proc.returncode == code, err[-2000:]
    (stored,) = GateStore.default(home).list()
    assert stored.exit_code == code and stored.artifacts.stopped.reason == reason
    stopped = {r.check for r in stored.checks if r.status == "error"}
    finished = {r.check for r in stored.checks} - stopped
    assert PHASES[phase] <= finished, (phase, finished)  # the rows that finished keep figures
    assert stopped, "a check after the stop must be marked"
    # the files: one testcase per row, the stopped ones as errors; the markdown says why
    cases = {c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")}
    assert set(cases) == {r.name for r in stored.checks}
    assert all(cases[r.name].find("error") is not None for r in stored.checks if r.check in stopped)
    summary = md.read_text()
    assert "gate STOPPED" in summary and f"{said} before this check finished" in summary
