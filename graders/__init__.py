"""Judges, the code audit, the verdict cache, calibration, sensitivity, the injection suite,
the gate and report grading.

    from spanproof.graders import Verifier, make_judge
    verdicts = await Verifier([make_judge("rules")]).verify_many([(claim, SpanRef(text=span))])
"""

from spanproof.core.lazy import lazy_exports

_EXPORTS = {
    "Verdict": "spanproof.core.verdict",
    "Pair": "spanproof.core.verdict",
    "SpanRef": "spanproof.core.verdict",
    "Judge": "spanproof.core.verdict",
    "make_judge": "spanproof.graders.verifier.judges",
    "Verifier": "spanproof.graders.verifier.verify",
    "VerdictCache": "spanproof.graders.verifier.cache",
    "audit": "spanproof.graders.verifier.audit",
    "run_sensitivity": "spanproof.bench.sensitivity",
    "calibrate": "spanproof.bench.calibration",
    "run_suite": "spanproof.bench.injection",
    "run_gate": "spanproof.gate.run",
    "load_config": "spanproof.gate.config",
    "grade_report": "spanproof.bench.grade_report",
    "parse_report": "spanproof.bench.report_input",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
