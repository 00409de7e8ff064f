"""What code did, against human labels (graders.audit_figures): the arithmetic, and that each
figure moves the wrong way on a planted bad input."""

from __future__ import annotations

from spanproof.bench.audit_figures import code_changes, flag_figures
from spanproof.core.verdict import Flag, Proof, Verdict


def _v(judge: str, final: str | None = None, *, flags=(), proof: str | None = None) -> Verdict:
    return Verdict(
        verdict=final or judge,
        judge_verdict=judge,
        proofs=[Proof(kind=proof, reason="r")] if proof else [],  # type: ignore[arg-type]
        flags=[Flag(kind=k, reason=f"{k} flag") for k in flags],
    )


def test_code_changes_count_only_verdicts_a_proof_moved_and_judge_them_by_the_label():
    labels = ["NOT_SUPPORTED", "PARTIAL", "SUPPORTED", "SUPPORTED"]
    good = [
        _v("SUPPORTED", "NOT_SUPPORTED", proof="contradiction"),
        _v("PARTIAL", "NOT_SUPPORTED", proof="quote_not_evidence"),
        _v("SUPPORTED"),
        _v("SUPPORTED"),
    ]
    c = code_changes(labels, good)
    assert (c.changed, c.right, c.precision, c.share) == (2, 2, 1.0, 0.5)
    assert (c.supported, c.supported_changed, c.supported_changed_share) == (2, 0, 0.0)
    assert c.by_proof == {"contradiction": 1, "quote_not_evidence": 1}
    # planted bad input: a proof that overrides a judge on a pair a human labelled SUPPORTED
    bad = [*good[:3], _v("SUPPORTED", "NOT_SUPPORTED", proof="contradiction")]
    b = code_changes(labels, bad)
    assert b.precision == 2 / 3 and b.supported_changed_share == 0.5
    # an error verdict is never a change, and nothing changed has no precision
    err = Verdict(verdict="NOT_SUPPORTED", error="timeout")
    assert code_changes(["SUPPORTED"], [err]).precision is None


def test_flag_figures_per_kind_and_flag_precision_falls_on_flags_of_supported_pairs():
    labels = ["PARTIAL", "NOT_SUPPORTED", "SUPPORTED", "SUPPORTED"]
    verdicts = [
        _v("SUPPORTED", flags=["name", "name"]),
        _v("NOT_SUPPORTED", flags=["date"]),
        _v("SUPPORTED"),
        _v("SUPPORTED"),
    ]
    f = flag_figures(labels, verdicts)
    assert (f.flagged, f.rate, f.right, f.precision, f.supported_flagged) == (2, 0.5, 2, 1.0, 1)
    assert f.by_kind["name"].flagged == 1 and f.by_kind["date"].precision == 1.0
    bad = [*verdicts[:3], _v("SUPPORTED", flags=["name"])]
    g = flag_figures(labels, bad)
    assert g.precision == 2 / 3 and g.by_kind["name"].precision == 0.5 and g.rate == 0.75
    assert flag_figures([], []).rate is None
