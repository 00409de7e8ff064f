"""Judges, the code audit, the verdict cache, calibration, sensitivity, the injection suite,
the gate and report grading.

    from graders import Verifier, make_judge
    verdicts = await Verifier([make_judge("rules")]).verify_many([(claim, SpanRef(text=span))])
"""

from spanproof.lazy import lazy_exports

_EXPORTS = {
    "Verdict": "graders.verdict",
    "Pair": "graders.verdict",
    "SpanRef": "graders.verdict",
    "Judge": "graders.verdict",
    "make_judge": "graders.judges",
    "Verifier": "graders.verify",
    "VerdictCache": "graders.cache",
    "audit": "graders.audit",
    "run_sensitivity": "graders.sensitivity",
    "calibrate": "graders.calibration",
    "run_suite": "graders.injection",
    "run_gate": "graders.gate",
    "load_config": "graders.gate_config",
    "grade_report": "graders.grade_report",
    "parse_report": "graders.report_input",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
