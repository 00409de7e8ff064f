"""Lazy package surfaces: a package names its public objects without importing them all.

`import spanproof.core.evidence` must stay cheap (no HTML parser, no HTTP client); PEP 562's
module `__getattr__` lets `from spanproof.agent import run_question` work all the same.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_exports(package: str, exports: dict[str, str]) -> Callable[[str], object]:
    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    return __getattr__
