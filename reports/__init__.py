"""Reports built from run records and gate results, never from live objects."""

from spanproof.core.lazy import lazy_exports

_EXPORTS = {
    "write_junit": "spanproof.reports.junit",
    "write_report": "spanproof.reports.html",
    "markdown_summary": "spanproof.reports.markdown",
    "build_weekly": "spanproof.reports.weekly",
    "write_weekly": "spanproof.reports.weekly",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
