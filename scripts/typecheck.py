"""Type-check every package of the spanproof namespace, as it installs.

The folders mapped into the namespace (agent/ -> spanproof.agent, graders/, ...: pyproject's
[tool.setuptools.package-dir]) are not importable by mypy from a checkout. So this lays the
installed shape out in a temporary directory - ``spanproof/<package>``, a symlink to the
package's folder, for every top-level package pyproject declares - and runs mypy there on all of
them at once, with the checkout's pyproject.toml as its configuration. Which packages are held to
``--strict`` is said there too (the strict ``[[tool.mypy.overrides]]``), so a plain mypy run
over the same layout checks the same way. Error paths are printed as checkout paths.

    python scripts/typecheck.py                    # the checkout this script is in
    python scripts/typecheck.py --root DIR         # another checkout (the tests plant errors)

Exit status: 0 no type errors, 1 type errors (listed), 2 mypy could not run.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NAMESPACE = "spanproof"


class LayoutError(Exception):
    """pyproject.toml does not describe a layout this script can lay out."""


def top_level_packages(root: Path) -> dict[str, Path]:
    """Each top-level package of the namespace (``agent`` for spanproof.agent) -> the folder it
    is built from, read from pyproject's ``packages`` and ``package-dir`` (never hand-listed, so
    a package added there is checked without an edit here)."""
    try:
        setuptools = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
        packages: list[str] = setuptools["packages"]
    except (OSError, tomllib.TOMLDecodeError, KeyError) as exc:
        raise LayoutError(
            f"cannot read [tool.setuptools] packages in {root / 'pyproject.toml'}: {exc}"
        ) from exc
    mapped: dict[str, str] = setuptools.get("package-dir", {})
    out: dict[str, Path] = {}
    for package in packages:
        parts = package.split(".")
        if parts[0] != NAMESPACE or len(parts) != 2:
            continue  # subpackages come with their folder
        folder = root / mapped.get(package, "/".join(parts))
        if not (folder / "__init__.py").is_file():
            raise LayoutError(
                f"{package} is declared in pyproject.toml but {folder} holds no "
                "__init__.py: fix [tool.setuptools] packages or package-dir"
            )
        out[parts[1]] = folder
    if not out:
        raise LayoutError(f"no {NAMESPACE}.* package in [tool.setuptools] packages of {root}")
    return out


def lay_out(packages: dict[str, Path], dest: Path) -> None:
    """``dest/spanproof/<name>`` -> each package's folder. ``spanproof`` stays a namespace
    package (no ``__init__.py``), as installed."""
    namespace = dest / NAMESPACE
    namespace.mkdir()
    for name, folder in packages.items():
        (namespace / name).symlink_to(folder.resolve(), target_is_directory=True)


def checkout_paths(output: str, root: Path, packages: dict[str, Path]) -> str:
    """mypy's ``spanproof/agent/run.py:12: error`` as the checkout's ``agent/run.py:12:``."""
    folders = {
        name: folder.resolve().relative_to(root.resolve()).as_posix()
        for name, folder in packages.items()
    }
    pattern = re.compile(rf"^{NAMESPACE}/([A-Za-z0-9_]+)/", re.M)
    return pattern.sub(
        lambda m: f"{folders.get(m.group(1), NAMESPACE + '/' + m.group(1))}/", output
    )


def run_mypy(root: Path, cache_dir: Path) -> int:
    if importlib.util.find_spec("mypy") is None:
        print(
            "typecheck: mypy is not installed; it is in the test extra: pip install -e '.[test]'",
            file=sys.stderr,
        )
        return 2
    packages = top_level_packages(root)
    with tempfile.TemporaryDirectory(prefix="spanproof-typecheck-") as tmp:
        lay_out(packages, Path(tmp))
        command = [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(root / "pyproject.toml"),
            "--cache-dir",
            str(cache_dir),
        ]
        for name in sorted(packages):
            command += ["-p", f"{NAMESPACE}.{name}"]
        # mypy's search path starts at its working directory (the layout); a MYPYPATH or
        # PYTHONPATH naming the checkout would offer a second, unmapped spanproof/ beside it.
        env = {k: v for k, v in os.environ.items() if k not in ("MYPYPATH", "PYTHONPATH")}
        done = subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True)
    sys.stdout.write(checkout_paths(done.stdout, root, packages))
    sys.stderr.write(done.stderr)
    if done.returncode not in (0, 1):
        print("typecheck: mypy could not run (its message is above)", file=sys.stderr)
        return 2
    return done.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=REPO, help="the checkout to check")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help="mypy's incremental cache (default: ROOT/.mypy_cache)",
    )
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    try:
        return run_mypy(root, args.cache_dir or root / ".mypy_cache")
    except LayoutError as exc:
        print(f"typecheck: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
