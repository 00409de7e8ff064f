"""spanproof installs beside packages that already own the names `agent`, `graders`, `reports`.

The repository's folders are called agent/, graders/, reports/ ..., but they install as
spanproof.agent, spanproof.graders, ...: a CI environment that already holds a package named
`agent` must keep it, and spanproof must keep working. Shown here with a real, non-editable
install into a fresh virtual environment that already has three such packages.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CLAIMED = ("agent", "graders", "reports", "planted_failures", "goldens", "adversarial_fixtures")


def test_no_module_imports_a_folder_by_its_bare_name():
    # Inside the repository `import agent` would find the folder and hide the mistake; an
    # installed spanproof has no top-level `agent`, so such an import would break for users.
    offenders = []
    for folder in ("spanproof", *CLAIMED, "tests", "benchmarks", "scripts"):
        for path in (REPO / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                offenders += [
                    f"{path.relative_to(REPO)}:{node.lineno} imports {name}"
                    for name in names
                    if name.split(".")[0] in CLAIMED
                ]
    assert offenders == []


def _fake_distribution(site: Path, name: str) -> None:
    """A minimal installed distribution that owns the top-level package `name`."""
    (site / name).mkdir()
    (site / name / "__init__.py").write_text(f"OWNER = 'not spanproof: {name}'\n")
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "top_level.txt").write_text(f"{name}\n")
    (info / "INSTALLER").write_text("test\n")
    (info / "RECORD").write_text(
        f"{name}/__init__.py,,\n{info.name}/METADATA,,\n{info.name}/RECORD,,\n"
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path, Path]:
    """A real, non-editable install into a fresh virtual environment that already holds
    packages named agent, graders and reports: (venv python, its site-packages, a work dir)."""
    tmp_path = tmp_path_factory.mktemp("install")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    )  # fmt: skip
    # spanproof's dependencies (and pip, setuptools) come from the environment running the
    # tests, listed after the venv's own site-packages, so nothing is downloaded. A path line
    # in a .pth file does not run that directory's own .pth files: the editable spanproof of
    # the test environment stays invisible, and only the installed copy can be imported.
    deps = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    (site / "test-environment.pth").write_text("\n".join(deps) + "\n")
    for name in ("agent", "graders", "reports"):
        _fake_distribution(site, name)

    # Built from a copy: an in-tree build would leave build/ and *.egg-info in the checkout.
    source = tmp_path / "source"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "out"))  # fmt: skip
    install = subprocess.run(
        [py, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
         str(source)],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr[-2000:]
    return py, site, tmp_path


@pytest.mark.slow
def test_a_real_install_beside_packages_named_agent_graders_reports_runs_the_gate(installed):
    py, site, tmp_path = installed
    probe = (
        "import agent, graders, reports, spanproof.agent.runtime, spanproof.gate.run, "
        "spanproof.reports.html, pathlib;"
        "print(agent.OWNER, graders.OWNER, reports.OWNER, sep='|');"
        "print(pathlib.Path(spanproof.gate.run.__file__).resolve())"
    )
    out = subprocess.run([py, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    owners, gate_file = out.stdout.strip().splitlines()
    assert owners == "not spanproof: agent|not spanproof: graders|not spanproof: reports"
    assert Path(gate_file).is_relative_to(site)  # the installed copy, not the repository

    # The installed copy runs every check to a verdict and, held to the repository's committed
    # baseline of the same code, passes: no floor broken, no trend worse, nothing unmeasured.
    baseline = Path(__file__).resolve().parents[1] / "goldens" / "gate_baseline.json"
    gate = subprocess.run(
        [py.parent / "spanproof", "gate", "--json", "--home", str(tmp_path / "home"),
         "--baseline", str(baseline)],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert gate.returncode == 0, gate.stdout[-3000:] + gate.stderr[-3000:]
    result = json.loads(gate.stdout)
    assert result["exit_code"] == 0 and result["outcome"] == "PASSED"
    statuses = {c["status"] for c in result["checks"]}
    assert statuses <= {"PASS", "NOT TESTED", "INFO"}, statuses
    tested = [c for c in result["checks"] if c["status"] == "PASS"]
    assert len(tested) >= 20
    assert all(isinstance(c["value"], int | float) for c in tested), tested


_VERSIONS = (
    "from spanproof.graders.rules.judge import RULES_VERSION;"
    "from spanproof.graders.audit import AUDIT_VERSION;"
    "print(RULES_VERSION, AUDIT_VERSION)"
)


@pytest.mark.slow
@pytest.mark.parametrize(
    "installed_file",
    [
        "spanproof/core/text.py",  # the shared text machinery the judge reads through
        "spanproof/core/data/stopwords.txt",  # its word list
        "spanproof/graders/specifics/lexicons/opposites.json",  # a lexicon
        "spanproof/graders/rules/params.json",  # the fitted parameters
        "spanproof/graders/speech_acts/en.toml",  # the instruction detector's words
    ],
)
def test_an_installed_judges_version_covers_every_file_it_reads(installed, installed_file):
    # The verdict cache keys on these versions: one that missed a file would serve verdicts
    # computed before that file changed. Edited in the installed copy, where the checkout's
    # folders are gone; restored afterwards for the other cases.
    py, site, tmp_path = installed
    target = site / installed_file
    assert target.is_file(), f"{installed_file} is not installed"

    def versions() -> list[str]:
        out = subprocess.run([py, "-c", _VERSIONS], capture_output=True, text=True, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        return out.stdout.split()

    before = versions()
    original = target.read_bytes()
    try:
        target.write_bytes(original + b"\n")
        after = versions()
    finally:
        target.write_bytes(original)
    assert after[0] != before[0], f"RULES_VERSION does not cover {installed_file}"
    assert after[1] != before[1], f"AUDIT_VERSION does not cover {installed_file}"
    assert versions() == before
