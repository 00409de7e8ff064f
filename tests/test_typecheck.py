"""scripts/typecheck.py checks every package as installed: a planted type error in a folder mapped
into the namespace fails it (so it cannot pass by checking nothing), the packages pyproject
holds to --strict are checked strictly and the others are not, and that strict override sets
exactly what mypy's own --strict sets."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.scripts import load_script

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "typecheck.py"

pytest.importorskip("mypy", reason="mypy is in the test extra")


def _mypy_config() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mypy"]


def _strict_override() -> dict:
    (override,) = [o for o in _mypy_config()["overrides"] if o.get("disallow_untyped_defs")]
    return override


def _copy_of_the_tree(tmp_path: Path) -> tuple[Path, int]:
    """The packages' .py files at their checkout paths, with pyproject.toml; and how many."""
    root = tmp_path / "checkout"
    count = 0
    for folder in load_script("typecheck").top_level_packages(REPO).values():
        for py in folder.rglob("*.py"):
            dest = root / py.relative_to(REPO)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(py, dest)
            count += 1
    shutil.copy2(REPO / "pyproject.toml", root / "pyproject.toml")
    return root, count


def _plant(file: Path, line: str) -> int:
    """Append ``line`` to ``file``; its line number."""
    text = file.read_text()
    file.write_text(text + ("" if text.endswith("\n") else "\n") + line + "\n")
    return len(file.read_text().splitlines())


def test_planted_errors_fail_the_check_where_they_are_and_only_there(tmp_path):
    root, files = _copy_of_the_tree(tmp_path)
    strict = set(_strict_override()["module"])
    lax = sorted(
        p
        for p in load_script("typecheck").top_level_packages(root)
        if f"spanproof.{p}" not in strict
    )
    assert lax, "every package is strict: plant the untyped function's twin elsewhere"
    lax_folder = load_script("typecheck").top_level_packages(root)[lax[0]].relative_to(root)
    untyped = "def planted_untyped(value): return value"
    bad = _plant(root / "agent" / "run.py", 'planted: int = "not a number"')  # a mapped folder
    strict_bad = _plant(root / "spanproof" / "core" / "text.py", untyped)
    _plant(root / lax_folder / "__init__.py", untyped)  # not strict there: no error

    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(root), "--cache-dir", str(tmp_path / "cache")],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip

    assert done.returncode == 1, done.stdout + done.stderr
    errors = sorted(line for line in done.stdout.splitlines() if ": error:" in line)
    assert errors == [
        f"agent/run.py:{bad}: error: Incompatible types in assignment (expression has type "
        '"str", variable has type "int")  [assignment]',
        f"spanproof/core/text.py:{strict_bad}: error: Function is missing a type annotation"
        "  [no-untyped-def]",
    ], done.stdout  # (sorted: mypy reports modules in no fixed order)
    # every file of every package was read, not only the two planted ones
    assert f"(checked {files} source files)" in done.stdout


def test_the_strict_override_sets_what_mypy_strict_sets(tmp_path):
    from mypy.main import process_options
    from mypy.options import PER_MODULE_OPTIONS

    empty = tmp_path / "mypy.ini"
    empty.write_text("[mypy]\n")  # so no configuration around the test leaks in
    _, plain = process_options(["--config-file", str(empty), "x.py"])
    _, strict = process_options(["--config-file", str(empty), "--strict", "x.py"])
    changed = {
        name: getattr(strict, name)
        for name in dir(plain)
        if not name.startswith("_")
        and not callable(getattr(plain, name))
        and getattr(plain, name) != getattr(strict, name)
    }
    assert len(changed) > 10, changed
    per_module = {k: v for k, v in changed.items() if k in PER_MODULE_OPTIONS}
    override = {k: v for k, v in _strict_override().items() if k != "module"}
    assert override == per_module
    whole_run = {k: v for k, v in changed.items() if k not in PER_MODULE_OPTIONS}
    assert {k: _mypy_config().get(k) for k in whole_run} == whole_run


def test_paths_are_reported_as_checkout_paths():
    packages = {"agent": REPO / "agent", "core": REPO / "spanproof" / "core"}
    output = "spanproof/agent/run.py:3: error: x\nspanproof/core/a.py:1: note: y\n"
    assert load_script("typecheck").checkout_paths(output, REPO, packages) == (
        "agent/run.py:3: error: x\nspanproof/core/a.py:1: note: y\n"
    )


def test_a_declared_package_without_its_folder_is_a_clear_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.setuptools]\npackages = ["spanproof.agent"]\n'
        '[tool.setuptools.package-dir]\n"spanproof.agent" = "agent"\n'
    )
    done = subprocess.run([sys.executable, str(SCRIPT), "--root", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2
    assert re.search(r"spanproof\.agent is declared .* holds no __init__\.py", done.stderr)
