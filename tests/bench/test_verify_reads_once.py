"""`verify` opens its pair file once and reads it in one pass, whichever way it judges: a file
read twice can change between the readings (the pairs judged would not be the pairs checked)
and costs its parsing again. Every open and every read of the file in this process is counted
through Python's audit hooks (``open``) and a counting reader (``read``, ``readline``, which
iterating over lines calls)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from spanproof.cli import cli

WICE = Path(__file__).resolve().parents[2] / "goldens" / "wice_dev_pairs.jsonl"

# The audit hook stays for the whole session (a hook cannot be removed): it counts only while a
# test has put a path in WATCHED.
WATCHED: dict[str, int] = {}


def _count_opens(event: str, args: tuple) -> None:
    if event == "open" and WATCHED and isinstance(args[0], str | bytes | Path):
        name = str(Path(args[0] if not isinstance(args[0], bytes) else args[0].decode()))
        if name in WATCHED:
            WATCHED[name] += 1


sys.addaudithook(_count_opens)


@pytest.fixture
def pair_file(tmp_path):
    """The first 40 WiCE pairs (the rules judge was fitted on them: verify counts the overlap)
    and a bad line; its opens are counted from here on."""
    path = tmp_path / "pairs.jsonl"
    lines = WICE.read_text(encoding="utf-8").splitlines()[:40]
    path.write_text("\n".join(lines) + "\n{not json\n", encoding="utf-8")
    WATCHED[str(path)] = 0
    yield path
    WATCHED.clear()


class _CountingReader(io.BufferedReader):
    read_bytes = 0

    def read(self, size=-1):
        data = super().read(size)
        _CountingReader.read_bytes += len(data)
        return data

    def readline(self, size=-1):
        data = super().readline(size)
        _CountingReader.read_bytes += len(data)
        return data


@pytest.fixture
def bytes_read(pair_file, monkeypatch):
    """Every byte read from the pair file through ``Path.open`` in binary mode."""
    original = Path.open

    def counting_open(self, mode="r", *args, **kwargs):
        handle = original(self, mode, *args, **kwargs)
        if str(self) == str(pair_file) and "b" in mode:
            return _CountingReader(handle.detach() if hasattr(handle, "detach") else handle)
        return handle

    _CountingReader.read_bytes = 0
    monkeypatch.setattr(Path, "open", counting_open)
    return lambda: _CountingReader.read_bytes


CASES = {
    "streamed in this process": ["--judge", "rules", "--workers", "1"],
    "streamed through worker processes": ["--judge", "blind", "--workers", "2"],
    "every sample kept (--repeat)": ["--judge", "blind", "--repeat", "2"],
}


@pytest.mark.parametrize("args", CASES.values(), ids=CASES.keys())
def test_the_pair_file_is_opened_once_and_read_in_one_pass(tmp_path, pair_file, bytes_read, args):
    home = ["--home", str(tmp_path / "home")]
    res = CliRunner().invoke(
        cli, ["verify", "--pairs", str(pair_file), *args, "--skip-invalid", "--json", *home]
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["pairs"] == 40 and len(doc["results"]) == 40 and len(doc["invalid_lines"]) == 1
    assert WATCHED[str(pair_file)] == 1
    # one pass: each byte once, but for the first 8 KiB, read twice to tell text from binary
    size = pair_file.stat().st_size
    assert size <= bytes_read() <= size + 8192


def test_the_counters_see_a_second_reading(pair_file, bytes_read):
    """What the test above measures: a second reading of the file is counted by both."""
    from spanproof.bench.pairs import read_pair_lines

    read_pair_lines(pair_file)
    read_pair_lines(pair_file)
    assert WATCHED[str(pair_file)] == 2 and bytes_read() > 2 * pair_file.stat().st_size
