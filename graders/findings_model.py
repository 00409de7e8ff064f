"""A pair's findings as they travel from where they are computed (``graders.findings``, in
this process or an audit worker's) to where a verdict is audited (``graders.audit``): the
record, and the names of the kinds of flag both sides read. Kept apart from both so that
the audit of a verdict imports none of the readers that compute the findings.
"""

from __future__ import annotations

from dataclasses import dataclass

from spanproof.core.verdict import Flag, Proof

# what each kind of specific the span does not state is called in a flag
SPECIFIC_FLAG = {"number": "number", "date": "date", "entity": "name", "identifier": "code"}


@dataclass(frozen=True, slots=True)
class PairFindings:
    """Everything the audit reads from a (claim, span) pair whatever the verdict: the costly
    part, computed once per pair, in this process or in a worker's (graders.audit_pool)."""

    proofs: tuple[Proof, ...]  # the contradictions code proves
    flags: tuple[Flag, ...]  # every flag found, shipped or not
    addressed: str | None  # the span's words addressed to a machine, by rule; None if none
    best_quote: str  # the span's best quote for the claim (graders.quoting.best_window)
