"""Reports built from run records and gate results, never from live objects."""

from spanproof.lazy import lazy_exports

_EXPORTS = {
    "write_junit": "reports.junit",
    "write_report": "reports.html",
    "markdown_summary": "reports.markdown",
    "build_weekly": "reports.weekly",
    "write_weekly": "reports.weekly",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
