"""Counting the calls a piece of work makes, for the tests that hold work skipped.

    asked = record_calls(monkeypatch, slot_reader, "_anchor", lambda cf, sf: sf.value.text)
    slot_reader.contradictions(claim, span)
    assert "2019" not in asked

Replaces ``owner.name`` (undone with the test) by a wrapper that appends ``key(*args)`` of
each call (its first argument by default) to the list it returns, and then calls what it
replaced, so the answers are the real ones. A key of ``None`` records nothing for that call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


def _first(*args: Any, **_: Any) -> Any:
    return args[0]


def record_calls(
    monkeypatch: pytest.MonkeyPatch,
    owner: object,
    name: str,
    key: Callable[..., Any] = _first,
    *,
    real: Callable[..., Any] | None = None,
) -> list[Any]:
    """``real``: what the wrapper calls, when not ``owner.name`` itself (an lru_cache's
    ``__wrapped__``, so every call is seen rather than only the first of each argument)."""
    calls: list[Any] = []
    target = real if real is not None else getattr(owner, name)

    def recording(*args: Any, **kwargs: Any) -> Any:
        seen = key(*args, **kwargs)
        if seen is not None:
            calls.append(seen)
        return target(*args, **kwargs)

    monkeypatch.setattr(owner, name, recording)
    return calls


class _RecordingPattern:
    """A compiled pattern's stand-in: records each method called on it, then answers as the
    pattern does."""

    def __init__(self, rx: Any, calls: list[str], label: str | None) -> None:
        self._rx, self._calls, self._label = rx, calls, label

    def __getattr__(self, method: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            self._calls.append(method if self._label is None else f"{self._label}.{method}")
            return getattr(self._rx, method)(*args, **kwargs)

        return call


def record_pattern_calls(
    monkeypatch: pytest.MonkeyPatch,
    owner: object,
    name: str,
    *,
    calls: list[str] | None = None,
    label: str | None = None,
) -> list[str]:
    """Replace the compiled pattern ``owner.name`` (undone with the test) by one that appends
    each method called on it ("search", or "LABEL.search") to ``calls`` (a new list unless
    given, so several patterns can share one), returned."""
    calls = [] if calls is None else calls
    monkeypatch.setattr(owner, name, _RecordingPattern(getattr(owner, name), calls, label))
    return calls
