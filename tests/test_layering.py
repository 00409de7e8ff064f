"""The layering contract (pyproject's [tool.importlinter]) holds on the real tree, fails when a
lower layer imports a higher one, sees the folders mapped into the namespace, and places
every module of spanproof.* in exactly one layer."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "lint_imports.py"
sys.path.insert(0, str(SCRIPT.parent))
from lint_imports import package_dirs  # noqa: E402

pytestmark = pytest.mark.skipif(
    shutil.which("lint-imports") is None, reason="import-linter is in the test extra"
)


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(root)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def _analysed(output: str) -> int:
    found = re.search(r"Analyzed (\d+) files", output)
    assert found, output
    return int(found.group(1))


def _source_copy(tmp_path: Path) -> Path:
    """The packages' .py files and pyproject.toml, laid out as in the repository."""
    root = tmp_path / "src"
    for src in package_dirs(REPO).values():
        dest = root / src.relative_to(REPO)
        dest.mkdir(parents=True, exist_ok=True)
        for py in src.glob("*.py"):
            shutil.copy2(py, dest / py.name)
    shutil.copy2(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


def _modules() -> set[str]:
    out = set()
    for package, src in package_dirs(REPO).items():
        out.add(package)
        out |= {f"{package}.{py.stem}" for py in src.glob("*.py") if py.stem != "__init__"}
    return out


def _layers() -> list[list[str]]:
    cfg = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [c for c in cfg["contracts"] if c["type"] == "layers"]
    return [[m.strip() for m in layer.split(":") if m.strip()] for layer in contract["layers"]]


def test_the_real_tree_keeps_the_contract_over_every_mapped_folder():
    done = _lint(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 kept, 0 broken" in done.stdout
    # The graph holds the folders installed into the namespace (agent/, graders/, ...), not
    # only spanproof/: a contract over modules the linter never saw would pass vacuously.
    assert _analysed(done.stdout) == len(_modules()) > 100


@pytest.mark.parametrize(
    ("file", "upward"),
    [
        ("spanproof/store/provenance.py", "spanproof.agent.sanitise"),  # infrastructure -> agent
        ("graders/verdict.py", "spanproof.graders.gate"),  # shared types -> bench
        ("graders/verify.py", "spanproof.agent.run"),  # verifier -> agent
        ("agent/run.py", "spanproof.graders.sensitivity"),  # agent -> bench
        ("reports/markdown.py", "spanproof.cli.gate"),  # bench -> CLI
    ],
)
def test_a_lower_layer_importing_a_higher_one_breaks_the_contract(tmp_path, file, upward):
    root = _source_copy(tmp_path)
    assert _lint(root).returncode == 0  # the copy itself keeps it
    target = root / file
    target.write_text(target.read_text() + f"\nimport {upward}  # planted upward import\n")
    done = _lint(root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 broken" in done.stdout and upward in done.stdout


def test_every_module_is_in_exactly_one_layer():
    layers = _layers()
    entries = [m for layer in layers for m in layer]
    assert len(entries) == len(set(entries))
    missing, doubled = [], []
    for module in sorted(_modules()):
        covering = [e for e in entries if module == e or module.startswith(e + ".")]
        is_container = any(e.startswith(module + ".") for e in entries)
        if not covering and not is_container:
            missing.append(module)
        elif len(covering) > 1:
            doubled.append(module)
    assert not missing, f"modules in no layer (add them to [tool.importlinter]): {missing}"
    assert not doubled, f"modules in more than one layer: {doubled}"
