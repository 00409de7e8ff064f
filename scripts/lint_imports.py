"""Check the layering contract over the installed namespace ``spanproof.*`` with import-linter.

    python scripts/lint_imports.py                    # the contract in pyproject.toml
    python scripts/lint_imports.py --config FILE      # another contract file (tests plant one)
    python scripts/lint_imports.py --root DIR         # another source tree laid out like ours

The folders install under one namespace through setuptools ``package-dir`` (``agent/`` is
``spanproof.agent``, ...). import-linter's graph builder walks the directory of the top-level
package only, so in a checkout or an editable install it would see ``spanproof/`` and none of
the folders mapped into it, and every contract over them would pass having checked nothing.
This script lays the installed tree out in a temporary directory (a symlink per source file,
from pyproject's ``[tool.setuptools] packages`` and ``package-dir``), runs ``lint-imports``
there, and refuses a tree in which a layer named by the contract is missing.

Exit codes: 0 every contract kept; 1 a contract broken (lint-imports says which import, file
and line); 2 could not run (no pyproject, import-linter not installed).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def package_dirs(root: Path) -> dict[str, Path]:
    """Each installed package name -> the source folder it is built from."""
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


def lay_out(root: Path, dest: Path) -> list[str]:
    """Symlink every package's .py files under ``dest`` as installed; returns the packages."""
    packages = package_dirs(root)
    for package, src in packages.items():
        if not (src / "__init__.py").is_file():
            raise FileNotFoundError(f"package {package}: {src}/__init__.py not found")
        target = dest / Path(*package.split("."))
        target.mkdir(parents=True, exist_ok=True)
        for py in src.glob("*.py"):
            (target / py.name).symlink_to(py.resolve())
    return sorted(packages)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=REPO, help="source tree (default: this repo)")
    ap.add_argument("--config", type=Path, help="contract file (default: ROOT/pyproject.toml)")
    args = ap.parse_args(argv)
    root = args.root.resolve()
    config = (args.config or root / "pyproject.toml").resolve()
    exe = shutil.which("lint-imports")
    if exe is None:
        print("lint-imports not found: pip install -e '.[test]' (import-linter)", file=sys.stderr)
        return 2
    if not (root / "pyproject.toml").is_file() or not config.is_file():
        print(f"no pyproject.toml in {root} or no contract file {config}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="spanproof-layers-") as tmp:
        lay_out(root, Path(tmp))
        # Run from the laid-out tree (lint-imports puts its working directory first on the
        # path), with no cache that could answer for another tree.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        done = subprocess.run([exe, "--no-cache", str(config)], cwd=tmp, env=env)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
