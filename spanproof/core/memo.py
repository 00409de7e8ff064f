"""Memoised reading of texts: one answer per text (or per claim and span), however many readers ask.

The rules judge and the code audit read the same (claim, span) pair through the same
functions: the span's instructions, the claim's stronger wording, its dropped hedges, its
opposite words are each asked for two to six times per pair, and every planted failure of
the gate's sensitivity check asks again about a span it shares with nine others. These
functions are pure functions of their text arguments, so their answers are kept, by value,
in a bounded least-recently-used cache.

``memo_list`` is for the functions that answer with a list: the cache holds a tuple and each
caller gets a new list, because callers extend the lists they are given (``compare`` appends
to what ``unestablished`` returns); a shared list would carry one caller's additions into
the next answer. The items themselves are shared: they must not be changed in place (the
findings are never edited after they are made).
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache, wraps
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

_enabled = True


@contextmanager
def disabled() -> Iterator[None]:
    """Every ``memo_list`` function computes afresh inside this block: the plain path, which
    tests compare the memoised one with."""
    global _enabled
    before, _enabled = _enabled, False
    try:
        yield
    finally:
        _enabled = before


def clear_text_memos(prefix: str = "spanproof") -> int:
    """Empty every bounded cache of the loaded ``spanproof`` modules (``functools.lru_cache``
    with a maxsize, ``memo_list``); returns how many were emptied. Unbounded caches (``functools.cache``:
    lexicons and parameters loaded once) are kept.

    A long stream of distinct texts fills every cache to its bound, and the texts they hold
    alive add up to hundreds of megabytes; ``verify`` on a large file empties them between
    chunks, which keeps what pairs next to each other share."""
    seen: set[int] = set()
    cleared = 0
    for name, module in list(sys.modules.items()):
        if module is None or not (name == prefix or name.startswith(prefix + ".")):
            continue
        for value in list(vars(module).values()):
            # only functools' caches (and ours) have cache_parameters: any other value has not
            parameters = getattr(value, "cache_parameters", None)
            if id(value) in seen or not callable(parameters):
                continue
            seen.add(id(value))
            if parameters().get("maxsize") is not None:
                value.cache_clear()
                cleared += 1
    return cleared


def memo_list(maxsize: int = 4096) -> Callable[[Callable[P, list[T]]], Callable[P, list[T]]]:
    """Cache a pure function of hashable arguments that returns a list; each call gets a copy."""

    def decorate(fn: Callable[P, list[T]]) -> Callable[P, list[T]]:
        signature = inspect.signature(fn)
        params = list(signature.parameters.values())
        n_positional = sum(p.kind is p.POSITIONAL_OR_KEYWORD for p in params)
        keyword_only = [p.name for p in params if p.kind is p.KEYWORD_ONLY]
        if n_positional + len(keyword_only) != len(params):
            raise TypeError(f"memo_list: {fn.__name__} takes *args or positional-only arguments")

        n_params = len(params)
        call: Callable[..., list[T]] = fn  # called with the cache key's arguments

        @lru_cache(maxsize=maxsize)
        def cached(*key: Any) -> tuple[T, ...]:
            if not keyword_only:  # most are: the key is the positional arguments as given
                return tuple(call(*key))
            kwargs = dict(zip(keyword_only, key[n_positional:], strict=True))
            return tuple(fn(*key[:n_positional], **kwargs))

        @wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> list[T]:
            if not _enabled:
                return fn(*args, **kwargs)
            key: tuple[Any, ...] = args
            if kwargs or len(args) != n_params:
                # one key however the arguments are spelled: f(a, b) and f(a, b, strict=False)
                bound = signature.bind(*args, **kwargs)
                bound.apply_defaults()
                key = tuple(bound.arguments.values())
            return list(cached(*key))

        # functools' own cache API on the wrapper (a function has no such attributes to mypy)
        wrapper.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        wrapper.cache_info = cached.cache_info  # type: ignore[attr-defined]
        wrapper.cache_parameters = cached.cache_parameters  # type: ignore[attr-defined]
        wrapper.uncached = fn  # type: ignore[attr-defined]
        return wrapper

    return decorate
