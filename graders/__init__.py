"""Judges, the code audit, the verdict cache, calibration, sensitivity, the injection suite,
the gate and report grading.

    from spanproof.graders import Verifier, make_judge
    verdicts = await Verifier([make_judge("rules")]).verify_many([(claim, SpanRef(text=span))])
"""

from spanproof.lazy import lazy_exports

_EXPORTS = {
    "Verdict": "spanproof.graders.verdict",
    "Pair": "spanproof.graders.verdict",
    "SpanRef": "spanproof.graders.verdict",
    "Judge": "spanproof.graders.verdict",
    "make_judge": "spanproof.graders.judges",
    "Verifier": "spanproof.graders.verify",
    "VerdictCache": "spanproof.graders.cache",
    "audit": "spanproof.graders.audit",
    "run_sensitivity": "spanproof.graders.sensitivity",
    "calibrate": "spanproof.graders.calibration",
    "run_suite": "spanproof.graders.injection",
    "run_gate": "spanproof.graders.gate",
    "load_config": "spanproof.graders.gate_config",
    "grade_report": "spanproof.graders.grade_report",
    "parse_report": "spanproof.graders.report_input",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
