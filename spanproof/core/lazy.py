"""Names a package exports but imports only when first used.

A package's ``__init__`` that imports every part it exports puts all of them on the start-up
of any command that needs one (``spanproof verify`` takes the agent's ``Services``, not its
loop; it reads the store's errors, not SQLAlchemy). ``lazy_exports`` gives such a package a
module ``__getattr__`` and ``__dir__`` (PEP 562) that import a name's module on first use and
keep the name in the package, so the next use is a plain lookup.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    namespace: dict[str, Any], where: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for the package whose globals are ``namespace``;
    ``where``: each lazy name -> the module it is imported from."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *where})

    return __getattr__, __dir__
