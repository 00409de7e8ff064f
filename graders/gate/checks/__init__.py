"""The gate's checks, each declared once with ``spec.declare``: importing this package imports
every module of declarations, so ``declared_checks`` lists them all."""

from __future__ import annotations

from typing import Any

from spanproof.graders.gate.checks import judged, reviewed, runs  # noqa: F401  (they register)
from spanproof.graders.gate.spec import GateCheck, registered


def declared_checks() -> list[GateCheck[Any]]:
    """Every declared check, in the gate's order (``CHECK_NAMES``)."""
    return registered()
