"""The layering contract (pyproject's [tool.importlinter]) holds on the real tree, fails when a
lower layer imports a higher one, sees the folders mapped into the namespace, and places
every module of spanproof.* in exactly one layer."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINT = shutil.which("lint-imports")

pytestmark = pytest.mark.skipif(LINT is None, reason="import-linter is in the test extra")


def package_dirs(root: Path) -> dict[str, Path]:
    """Each installed package name -> the source folder it is built from (pyproject's
    ``packages`` and ``package-dir``)."""
    setuptools = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapping: dict[str, str] = setuptools.get("package-dir", {})
    out = {}
    for package in setuptools["packages"]:
        parts = package.split(".")
        for i in range(len(parts), 0, -1):
            prefix = ".".join(parts[:i])
            if prefix in mapping:
                out[package] = root / mapping[prefix] / Path(*parts[i:])
                break
        else:
            out[package] = root / Path(*parts)
    return out


def _lint(cwd: Path) -> subprocess.CompletedProcess[str]:
    # lint-imports puts its working directory first on the path: from the repository the
    # editable install supplies the folders mapped into the namespace; from a laid-out copy the
    # copy's own spanproof/ portion is found first.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([LINT, "--no-cache"], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)  # fmt: skip


def _analysed(output: str) -> int:
    found = re.search(r"Analyzed (\d+) files", output)
    assert found, output
    return int(found.group(1))


def _installed_copy(tmp_path: Path) -> Path:
    """The packages' .py files laid out as installed (spanproof/agent/..., a real copy), with
    pyproject.toml beside them."""
    root = tmp_path / "installed"
    for package, src in package_dirs(REPO).items():
        dest = root / Path(*package.split("."))
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
    return [
        [m.strip() for m in re.split(r"[:|]", layer) if m.strip()] for layer in contract["layers"]
    ]


def test_plain_lint_imports_keeps_the_contract_over_every_mapped_folder():
    done = _lint(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout
    # The graph holds the folders installed into the namespace (agent/, graders/, ...), not
    # only spanproof/: a contract over modules the linter never saw would pass vacuously.
    assert _analysed(done.stdout) == len(_modules()) > 100


@pytest.mark.parametrize(
    ("file", "upward"),
    [
        ("spanproof/store/provenance.py", "spanproof.web.sanitise"),  # infrastructure -> web
        ("spanproof/core/verdict.py", "spanproof.gate.run"),  # shared types -> gate
        ("graders/verify.py", "spanproof.agent.run"),  # verifier -> agent
        ("graders/audit.py", "spanproof.web.egress"),  # verifier -> web (siblings)
        ("spanproof/web/egress.py", "spanproof.agent.tools"),  # web -> agent
        ("agent/run.py", "spanproof.bench.sensitivity"),  # agent -> bench
        ("spanproof/bench/calibration.py", "spanproof.gate.run"),  # bench -> gate
        ("reports/markdown.py", "spanproof.cli.gate"),  # reports -> CLI
    ],
)
def test_a_lower_layer_importing_a_higher_one_breaks_the_contract(tmp_path, file, upward):
    root = _installed_copy(tmp_path)
    assert _lint(root).returncode == 0  # the copy itself keeps it
    package = next(
        p
        for p, src in package_dirs(REPO).items()
        if (src / Path(file).name).resolve() == (REPO / file).resolve()
    )
    target = root / Path(*package.split(".")) / Path(file).name
    target.write_text(target.read_text() + f"\nimport {upward}  # planted upward import\n")
    done = _lint(root)
    assert done.returncode == 1, done.stdout + done.stderr
    layers = re.search(r"^CLI > viewer.*?(KEPT|BROKEN)$", done.stdout, re.M | re.S)
    assert layers and layers.group(1) == "BROKEN" and upward in done.stdout


@pytest.mark.parametrize(
    ("file", "back"),
    [
        ("spanproof/gate/spec.py", "spanproof.gate.run"),  # the runner imports spec
        ("spanproof/core/memo.py", "spanproof.core.text"),  # text reads through memo
        ("agent/runtime.py", "spanproof.agent.run"),  # the loop imports its runtime
    ],
)
def test_an_import_circle_breaks_the_contract(tmp_path, file, back):
    root = _installed_copy(tmp_path)
    package = next(p for p, src in package_dirs(REPO).items()
                   if (src / Path(file).name).resolve() == (REPO / file).resolve())  # fmt: skip
    target = root / Path(*package.split(".")) / Path(file).name
    target.write_text(target.read_text() + f"\nimport {back}  # planted circle\n")
    done = _lint(root)
    assert done.returncode == 1, done.stdout + done.stderr
    circles = re.search(r"^No import circles.*? (KEPT|BROKEN)$", done.stdout, re.M)
    assert circles and circles.group(1) == "BROKEN", done.stdout


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
