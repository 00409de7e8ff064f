"""The WiCE development pair set is rebuilt byte-for-byte by its script."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spanproof.core.verdict import Pair
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT.parent / "shared" / "data" / "wice" / "dev.jsonl"
GOLDEN = ROOT / "goldens" / "wice_dev_pairs.jsonl"


@pytest.mark.skipif(not SRC.is_file(), reason="WiCE development split not present")
def test_build_is_reproducible_and_matches_the_shipped_file(tmp_path):
    mod = load_script("build_wice_pairs")
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert mod.main(["--src", str(SRC), "--out", str(a)]) == 0
    assert mod.main(["--src", str(SRC), "--out", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() == GOLDEN.read_bytes()
    # The pages stale_page plants from are rebuilt byte-for-byte too.
    shipped_pages = GOLDEN.parent / mod.PAGES_NAME
    assert (tmp_path / mod.PAGES_NAME).read_bytes() == shipped_pages.read_bytes()


def test_golden_pairs_are_valid_pair_format():
    rows = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]
    pairs = [Pair.model_validate(r) for r in rows]
    assert len({p.id for p in pairs}) == len(pairs) == 349
    assert {p.label for p in pairs} == {"SUPPORTED", "PARTIAL", "NOT_SUPPORTED"}
    for p in pairs:
        assert 0 < len(p.span) <= 4000 and p.kind == "wice" and not p.near_miss
        assert set(p.source) == {"wice_id", "title"}


def test_not_supported_window_is_topic_adjacent_and_short():
    mod = load_script("build_wice_pairs")
    evidence = [
        "(meta data) TITLE: Zoo news",
        "The zoo opened in 1990.",
        "Its elephants came from Kenya.",
        "The elephants arrived by ship in 1991.",
        "Parking costs five dollars.",
    ]
    window = mod.adjacent_window("Elephants from Kenya arrived by ship in 1991.", evidence)
    assert window == "Its elephants came from Kenya. The elephants arrived by ship in 1991."
    assert (
        mod.adjacent_window("Parking costs five dollars.", evidence)
        == "Parking costs five dollars."
    )
