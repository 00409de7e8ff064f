"""A quick loop: ``spanproof gate --only CHECK`` / ``--skip CHECK`` runs some of the checks.

A subset is for iterating locally, never a verdict on the change: every check it left out is
a NOT TESTED row saying so (in every output), the outcome is "PASSED A SUBSET" rather than
PASSED, the exit code is ``SUBSET_EXIT`` rather than 0, the run is recorded as not passed (so
``--baseline last-passed`` never picks it), and it can neither be saved as a baseline nor
serve as one. A subset that fails still fails (exit 1): what it measured is real.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from spanproof.gate.config import GateConfig, GateConfigError
from spanproof.gate.rows import CheckRow

# Every check a subset ran passed, but the gate has not: not 0, and neither 1 (nothing
# failed) nor 2 (nothing was unable to run).
SUBSET_EXIT = 3


class Subset(BaseModel):
    """Which configured checks a gate run left out, and the options that said so."""

    left_out: list[str]
    asked: str  # "--only calibration", "--skip injection --skip usefulness"

    def rows(self) -> list[CheckRow]:
        """One NOT TESTED row per check left out."""
        why = f"left out by {self.asked}: the gate did not run it"
        return [
            CheckRow(name=f"{c}.left_out", check=c, role="info", status="not_tested", why=why,
                     detail=why, threshold="not run")
            for c in self.left_out
        ]  # fmt: skip

    def note(self) -> str:
        return (
            f"ran a subset ({self.asked}); left out {', '.join(self.left_out)}. Not a full "
            f"gate: it exits {SUBSET_EXIT} when every check it ran passed, and is never a baseline"
        )


def choose(
    cfg: GateConfig, only: Sequence[str] = (), skip: Sequence[str] = ()
) -> tuple[GateConfig, Subset | None]:
    """The config with ``checks`` narrowed, and what was left out (None: nothing was)."""
    if only and skip:
        raise GateConfigError("give --only or --skip, not both")
    configured = list(cfg.checks)
    named = list(only) or list(skip)
    if unknown := [c for c in named if c not in configured]:
        raise GateConfigError(
            f"{', '.join(unknown)}: not among this gate's checks ({', '.join(configured)}); "
            "--only and --skip name checks the config runs"
        )
    ran = [c for c in configured if c in only] if only else [c for c in configured if c not in skip]
    if not ran:
        raise GateConfigError(
            "--skip left no check to run; skip fewer, or use --only CHECK to run one"
        )
    left_out = [c for c in configured if c not in ran]
    if not left_out:
        return cfg, None
    asked = " ".join(f"--{'only' if only else 'skip'} {c}" for c in named)
    return cfg.model_copy(update={"checks": ran}), Subset(left_out=left_out, asked=asked)
