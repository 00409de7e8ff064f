"""The word lists and tables the specifics are read with, loaded from ``lexicons/``.

Lexicons are data, not code: ``*.txt`` holds one entry a line (``#`` starts a comment,
order kept), ``*.json`` a table. Editing one changes the audit and the rules judge, so both
hash this folder into their version (``graders.audit.AUDIT_VERSION``).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

_PACKAGE = "spanproof.graders.specifics"


def _read(name: str) -> str:
    return resources.files(_PACKAGE).joinpath("lexicons", name).read_text(encoding="utf-8")


@cache
def entries(name: str) -> tuple[str, ...]:
    """The entries of ``lexicons/<name>.txt``, in file order."""
    out = []
    for line in _read(f"{name}.txt").splitlines():
        line = line.split("#", 1)[0].strip() if not line.lstrip().startswith("#") else ""
        if line:
            out.append(line)
    return tuple(out)


def words(name: str) -> frozenset[str]:
    return frozenset(entries(name))


@cache
def table(name: str) -> Any:
    """The JSON value of ``lexicons/<name>.json``."""
    return json.loads(_read(f"{name}.json"))


def files() -> list[tuple[str, bytes]]:
    """(name, bytes) of every lexicon file, sorted: what a version hash covers."""
    folder = resources.files(_PACKAGE).joinpath("lexicons")
    return sorted((p.name, p.read_bytes()) for p in folder.iterdir() if p.is_file())
