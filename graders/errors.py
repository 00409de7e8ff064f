"""Errors of the verifier that callers tell apart from a model's failure."""

from __future__ import annotations


class JudgeConfigError(RuntimeError):
    """A judge that cannot work as configured (not a model failure); never cached, never hidden."""
