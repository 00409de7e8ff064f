"""Reports built from run records and gate results, never from live objects."""

from spanproof.reports.html import write_report
from spanproof.reports.junit import write_junit
from spanproof.reports.markdown import markdown_summary
from spanproof.reports.weekly import build_weekly, write_weekly

__all__ = [
    "build_weekly",
    "markdown_summary",
    "write_junit",
    "write_report",
    "write_weekly",
]
