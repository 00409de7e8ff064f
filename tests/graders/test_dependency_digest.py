"""A dependency patched in place, its version unchanged, is another judge: the rules judge's
version (what the verdict cache keys on) and the gate memo's key both cover the installed files
of the distributions the readers import (spanproof.core.digest.dependency_digest).

Shown with a real installed distribution: a copy of pysbd and its dist-info put first on the
path of a fresh interpreter, which imports it and finds its metadata there, as a site-packages
copy patched by hand would be."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, pysbd
from spanproof.core.verdict import SpanRef
from spanproof.gate import memo
from spanproof.graders.cache import cache_key_for
from spanproof.graders.rules import RULES_VERSION, RulesJudge
print(json.dumps({
    "loaded": pysbd.__file__,
    "rules": RULES_VERSION,
    "cache_key": cache_key_for(RulesJudge(), "Output rose 5% in 2020.", SpanRef(text="It rose.")),
    "memo": memo.dependencies_sha256(),
}))
"""


def _patched_pysbd(root: Path) -> Path:
    """A copy of the installed pysbd, code and dist-info, under ``root``; returns its segmenter."""
    dist = importlib.metadata.distribution("pysbd")
    site = Path(str(dist.locate_file("")))
    shutil.copytree(site / "pysbd", root / "pysbd", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(Path(str(dist._path)), root / Path(str(dist._path)).name)  # type: ignore[attr-defined]
    return root / "pysbd" / "segmenter.py"


def _probe(first_on_path: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(first_on_path), "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=False
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_readers_dependencies_include_what_they_import_and_what_that_requires():
    from spanproof.core.digest import imported_distributions

    names = {
        d.metadata["Name"].lower()
        for d in imported_distributions("spanproof.graders", "spanproof.core")
    }
    assert {"pysbd", "pint", "pycountry", "text2num", "pydantic"} <= names  # imported
    assert {"pydantic-core", "flexparser"} <= {n.replace("_", "-") for n in names}  # required
    assert not {"matplotlib", "pandas", "sqlalchemy"} & names  # the readers never import them


def test_a_dependency_edited_in_place_changes_the_judge_version_cache_key_and_memo_key(tmp_path):
    segmenter = _patched_pysbd(tmp_path)
    before = _probe(tmp_path)
    assert Path(before["loaded"]).is_relative_to(tmp_path)  # the copy is what the readers use
    assert _probe(tmp_path) == before  # nothing changed: the same keys in a new process
    segmenter.write_text(segmenter.read_text() + "\n# patched in place, version unchanged\n")
    after = _probe(tmp_path)
    assert after["rules"] != before["rules"]
    assert after["cache_key"] != before["cache_key"]  # a cached verdict is not served
    assert after["memo"] != before["memo"]  # a memo of the old files is not replayed


def test_a_same_size_edit_is_read_again_although_each_files_digest_is_kept(tmp_path):
    # each installed file's sha256 is kept between processes by (path, size, mtime_ns)
    # (spanproof.core.file_digests): an edit that keeps the size still moves the mtime
    segmenter = _patched_pysbd(tmp_path / "site")
    before = _probe(tmp_path / "site")
    store = Path(os.environ["SPANPROOF_CACHE_DIR"]) / "file-digests-v1.json"
    kept = json.loads(store.read_text(encoding="utf-8"))
    assert kept[str(segmenter)][2] == hashlib.sha256(segmenter.read_bytes()).hexdigest()
    assert _probe(tmp_path / "site") == before  # read from the kept digests: the same keys
    text = segmenter.read_text()
    edited = text.replace("into an list of sentences", "into a  list of sentences", 1)
    assert edited != text
    stat = segmenter.stat()
    segmenter.write_text(edited)
    os.utime(segmenter, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert segmenter.stat().st_size == stat.st_size
    after = _probe(tmp_path / "site")
    assert after["rules"] != before["rules"] and after["memo"] != before["memo"]


def test_a_damaged_digest_cache_is_an_empty_one(tmp_path):
    from spanproof.core.file_digests import FileDigests

    body = tmp_path / "module.py"
    body.write_text("x = 1\n")
    store = tmp_path / "cache" / "digests.json"
    fresh = FileDigests(store).digest(body)
    assert fresh == hashlib.sha256(b"x = 1\n").hexdigest()
    for damage in ("{not json", '["a list"]', json.dumps({str(body): [1, 2]})):
        store.parent.mkdir(exist_ok=True)
        store.write_text(damage)
        assert FileDigests(store).digest(body) == fresh
    lying = FileDigests(store)
    lying.entries[str(body)] = [body.stat().st_size, body.stat().st_mtime_ns + 1, "0" * 64]
    assert lying.digest(body) == fresh  # another mtime: read again, not trusted
    assert FileDigests(store).digest(tmp_path / "gone.py") is None
