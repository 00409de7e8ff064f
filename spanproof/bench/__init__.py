"""The bench: calibration, sensitivity, the injection suite, report grading, metrics and
statistics the gate and the CLI share."""

from spanproof.core.lazy import lazy_exports

_EXPORTS = {
    "run_sensitivity": "spanproof.bench.sensitivity",
    "calibrate": "spanproof.bench.calibration",
    "run_suite": "spanproof.bench.injection",
    "grade_report": "spanproof.bench.grade_report",
    "parse_report": "spanproof.bench.report_input",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
