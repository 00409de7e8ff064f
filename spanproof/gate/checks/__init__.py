"""The gate's checks, each declared once with ``spec.declare``: importing this package imports
every module of declarations, so ``declared_checks`` lists them all, and holds the gate
config's check names and thresholds to them (``spec.check_declarations``)."""

from __future__ import annotations

from typing import Any

from spanproof.gate.checks import judged, reviewed, runs  # noqa: F401  (they register)
from spanproof.gate.config import AGENT_CHECKS
from spanproof.gate.spec import GateCheck, check_declarations, registered


def declared_checks() -> list[GateCheck[Any]]:
    """Every declared check, in the gate's order (``CHECK_NAMES``)."""
    return registered()


check_declarations(
    declared_checks(), agent_checks=AGENT_CHECKS, agent_gather=runs.gather_agent_runs
)
