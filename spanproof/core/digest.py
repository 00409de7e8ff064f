"""One digest over the files of installed packages: what a judge's or the audit's version is.

A version that lists the files it covers goes stale the day someone adds a file to a package
it reads, and one that finds them by counting parent folders of ``__file__`` covers nothing in
a non-editable install, where the checkout's layout is gone. This walks the packages through
``importlib.resources``, as installed, code and data alike, so an edit to any module, lexicon or
parameter file of a covered package changes the digest wherever spanproof runs.

What a package reads also includes the third-party distributions it imports (pysbd cuts the
sentences, pint converts the units, pycountry names the places): ``dependency_digest`` covers
their installed files, so a dependency patched in place, its version unchanged, changes a
version that folds it in.
"""

from __future__ import annotations

import hashlib
import re
import sys
from functools import cache
from importlib import metadata, resources
from importlib.resources.abc import Traversable
from pathlib import Path

from spanproof.core.file_digests import FileDigests


def _files(root: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    out = []
    for entry in root.iterdir():
        name = f"{prefix}{entry.name}"
        if entry.name == "__pycache__" or entry.name.endswith((".pyc", ".pyo")):
            continue
        if entry.is_dir():
            out += _files(entry, name + "/")
        elif entry.is_file():
            out.append((name, entry))
    return out


def package_digest(*packages: str) -> str:
    """sha256 hex over every file under each package (subpackages and data included), by
    package-relative path; raises ModuleNotFoundError for a package that is not installed."""
    h = hashlib.sha256()
    for package in sorted(set(packages)):
        for name, entry in sorted(_files(resources.files(package))):
            h.update(f"{package}/{name}".encode() + b"\0" + entry.read_bytes() + b"\0")
    return h.hexdigest()


# ---------------------------------------------------------------- the dependencies

# ``import x`` / ``from x import`` at the start of a line: what a module imports by name. A
# dynamic import is missed, as it would be by any reader of the source; the distributions
# these require are covered anyway through their own requirements.
_IMPORT = re.compile(r"^\s*(?:from\s+([A-Za-z_]\w*)[\w.]*\s+import|import\s+([A-Za-z_]\w*))", re.M)


def _imported_top_levels(package: str) -> set[str]:
    """The top-level names the modules of ``package`` import (its subpackages included)."""
    names: set[str] = set()
    for name, entry in _files(resources.files(package)):
        if name.endswith(".py"):
            for match in _IMPORT.finditer(entry.read_text(encoding="utf-8")):
                names.add(match.group(1) or match.group(2))
    return names - set(sys.stdlib_module_names) - {"spanproof", "__future__"}


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _required(dist: metadata.Distribution) -> list[str]:
    """The distributions ``dist`` requires in this environment (extras not asked for are left
    out; without ``packaging`` to read markers, every requirement is kept: more to hash, never
    less)."""
    try:
        from packaging.requirements import InvalidRequirement, Requirement
    except ImportError:  # pragma: no cover - packaging ships with pip
        return [re.split(r"[\s;<>=!~\[(]", r, maxsplit=1)[0] for r in dist.requires or []]
    out = []
    for line in dist.requires or []:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            out.append(req.name)
    return out


def _closure(names: list[str]) -> dict[str, metadata.Distribution]:
    """The named distributions and every distribution they require, as installed (each the
    copy Python would load, the first on ``sys.path``)."""
    found: dict[str, metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = _normalised(todo.pop())
        if name in found:
            continue
        try:
            found[name] = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # an optional requirement that is not installed here
        todo += _required(found[name])
    return found


def _top_levels(dist: metadata.Distribution) -> set[str]:
    """The top-level import names a distribution installs (as packages_distributions reads
    them, for this one distribution rather than every one installed)."""
    listed = dist.read_text("top_level.txt")
    if listed:
        return set(listed.split())
    return {
        f.parts[0].removesuffix(".py") if len(f.parts) == 1 else f.parts[0]
        for f in dist.files or []
        if f.parts and not f.parts[0].endswith((".dist-info", ".egg-info", ".data", ".pth"))
    }


def imported_distributions(*packages: str) -> list[metadata.Distribution]:
    """The distributions spanproof requires whose modules the packages import, and every
    distribution those require, sorted by name."""
    imported = set().union(*(_imported_top_levels(p) for p in packages))
    candidates = _closure(_required(metadata.distribution("spanproof")))
    direct = [name for name, dist in candidates.items() if _top_levels(dist) & imported]
    found = _closure(direct)
    return [found[n] for n in sorted(found)]


@cache
def _file_digests() -> FileDigests:
    return FileDigests()


@cache
def _distribution_digest(location: str, name: str) -> str:
    """sha256 over every file the distribution installed (RECORD), by path and the sha256 of
    its bytes: an edit in place with the version unchanged changes it. Once per process; each
    file's sha256 is read again only when its size or modification time changed
    (``spanproof.core.file_digests``)."""
    dist = next(
        d
        for d in metadata.distributions(name=name)
        if str(d.locate_file("")) == location  # the copy Python loads, as found by the caller
    )
    h = hashlib.sha256(f"{name}=={dist.version}".encode())
    for file in sorted(dist.files or [], key=str):
        if "__pycache__" in file.parts or file.suffix in (".pyc", ".pyo"):
            continue
        body = _file_digests().digest(Path(str(dist.locate_file(file))))
        # a listed file gone is a change too
        h.update(str(file).encode() + b"\0" + (body or "<unreadable>").encode() + b"\0")
    return h.hexdigest()


def dependency_digest(*packages: str) -> str:
    """sha256 over the installed files of every third-party distribution the packages import
    (and those distributions' own requirements): a dependency patched in place, its version
    unchanged, is a new digest."""
    h = hashlib.sha256()
    for dist in imported_distributions(*packages):
        name = _normalised(dist.metadata["Name"])
        h.update(name.encode() + b"\0")
        h.update(_distribution_digest(str(dist.locate_file("")), name).encode())
    _file_digests().save()
    return h.hexdigest()
