"""Ctrl-C before a command's own handling starts (its imports, opening its input) exits 130,
as a command stopped while it works does, with one line and no traceback: click alone would
print "Aborted!" and exit 1, which a script or CI cannot tell from a failure."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path


def test_ctrl_c_while_the_command_waits_for_its_input_exits_130(tmp_path: Path):
    fifo = tmp_path / "pairs.jsonl"
    os.mkfifo(fifo)  # reading it blocks until a writer writes: the command waits there
    env = {**os.environ, "HOME": str(tmp_path), "SPANPROOF_HOME": str(tmp_path / "home")}
    entry = "from spanproof.cli import main; main()"
    cmd = [sys.executable, "-c", entry, "verify", "--pairs", str(fifo), "--judge", "blind"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    opened = threading.Event()
    writer: list[int] = []

    def open_for_writing() -> None:
        writer.append(os.open(fifo, os.O_WRONLY))  # returns once the command opens it to read
        opened.set()

    threading.Thread(target=open_for_writing, daemon=True).start()
    try:
        while not opened.wait(0.1):
            assert proc.poll() is None, proc.communicate()  # it ended before reading its input
        time.sleep(0.5)  # inside its read, which no line will end
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        for fd in writer:
            os.close(fd)
    assert proc.returncode == 130, err
    assert "interrupted (Ctrl-C)" in err
    assert "Traceback" not in err and "Aborted!" not in err
