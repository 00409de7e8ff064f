"""Pair files from anyone: every bad line is a line-numbered error, never a traceback, and one
loader reads them for every command."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from spanproof.bench.pairs import PairSetError, load_pairs, read_pair_lines
from spanproof.cli import cli

GOOD = {
    "id": "a",
    "claim": "The council met.",
    "span": "The council met on Monday.",
    "label": "SUPPORTED",
}


def _file(tmp_path, payload: bytes):
    f = tmp_path / "pairs.jsonl"
    f.write_bytes(payload)
    return f


def test_non_utf8_bytes_are_a_numbered_line_error(tmp_path):
    f = _file(
        tmp_path,
        (json.dumps(GOOD) + "\n").encode() + b'{"id": "b", "claim": "caf\xe9", "span": "x"}\n',
    )
    pairs, problems = read_pair_lines(f)
    assert [p.id for _, p in pairs] == ["a"]
    assert problems == ["line 2: not UTF-8 text (byte 0xe9 at column 26); save the file as UTF-8"]


def test_a_binary_file_is_refused_with_what_it_is(tmp_path):
    f = _file(tmp_path, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(PairSetError, match="not a text file"):
        load_pairs(f)


def test_json_nested_100k_deep_is_a_numbered_line_error(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    f = _file(tmp_path, (json.dumps(GOOD) + "\n" + deep + "\n").encode())
    pairs, problems = read_pair_lines(f)
    assert len(pairs) == 1 and problems[0].startswith("line 2: JSON nested more than")


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (123, "source must be an object"),
        ({"url": 5}, "source.url must be a string"),
        ({"url": ["https://a.example/"]}, "source.url must be a string"),
        ({"retrieved_at": {"t": 1}}, "source.retrieved_at must be a string"),
    ],
)
def test_a_source_of_the_wrong_type_is_a_numbered_line_error(tmp_path, source, message):
    f = _file(tmp_path, (json.dumps({**GOOD, "source": source}) + "\n").encode())
    with pytest.raises(PairSetError, match=rf"pairs.jsonl:1: {message}"):
        load_pairs(f)


@pytest.mark.parametrize(
    "payload",
    [
        b'{"id": "b", "claim": "caf\xe9", "span": "x"}\n',
        ("[" * 100_000 + "]" * 100_000 + "\n").encode(),
        (json.dumps({**GOOD, "source": {"url": 5}}) + "\n").encode(),
        (json.dumps({**GOOD, "claim": "x" * 1_000_000}) + "\n").encode(),
    ],
)
def test_verify_calibrate_and_sensitivity_report_bad_lines_and_exit_2(tmp_path, payload):
    f = _file(tmp_path, payload)
    home = ["--home", str(tmp_path / "h")]
    commands = (["verify", "--pairs", str(f)], ["calibrate", "--set", str(f)],
                ["sensitivity", "--pairs", str(f)])  # fmt: skip
    for args in commands:
        result = CliRunner().invoke(cli, [*args, *home])
        assert result.exit_code == 2, (args, result.output)
        assert "line 1" in result.output or "pairs.jsonl:1" in result.output
        assert "Traceback" not in result.output


def test_one_loader_serves_calibration_and_verify():
    from spanproof.bench import calibration, pairs
    from spanproof.bench.verify import scan as verify

    assert calibration.load_pairs is pairs.load_pairs
    assert calibration.PairSetError is pairs.PairSetError
    assert verify.iter_pair_lines is pairs.iter_pair_lines
