"""The presence-only grader: the straw man spanproof ships so its weakness can be watched.

It passes a claim when a citation is attached, the cited URL resolves, and the URL's
host is on the allowlist — and checks nothing else. It never reads the page. This is
the grader many pipelines actually run ("every sentence has a link"), and it scores a
report whose links go to the right site but say something else exactly as highly as a
faithful one. `spanproof grade --plant --judge presence --judge rules` puts the two
side by side on the same planted variants.

It is a report-level grader, not a Judge: a Judge sees a claim and a span, and the
whole point of this grader is that it looks at no span.
"""

from __future__ import annotations

from spanproof.core.verdict import CheckResult, Verdict
from spanproof.web.egress import EgressPolicy

PRESENCE_ID = "presence"


class PresenceGrader:
    id = PRESENCE_ID

    def __init__(self, allow_hosts: list[str]) -> None:
        self.policy = EgressPolicy(allow_hosts=allow_hosts)

    def grade(self, url: str | None, resolved: bool, reason: str = "") -> Verdict:
        """``resolved``: the fetch at grading time returned a page (no error, no redirect away)."""
        attached = url is not None
        host_reason = self.policy.check_url(url) if url is not None else "no citation"
        allowed = attached and host_reason is None
        checks = [
            CheckResult(name="presence.citation_attached", fired=not attached, detail=url or ""),
            CheckResult(
                name="presence.resolves",
                fired=attached and not resolved,
                detail=reason if attached and not resolved else "",
            ),
            CheckResult(
                name="presence.host_allowed",
                fired=attached and not allowed,
                detail=host_reason or "",
            ),
        ]
        if not attached:
            element = "no citation attached"
        elif not resolved:
            element = (
                f"cited URL does not resolve: {reason}" if reason else "cited URL does not resolve"
            )
        elif not allowed:
            element = f"cited host not allowed: {host_reason}"
        else:
            return Verdict(verdict="SUPPORTED", judge=self.id, checks=checks)
        return Verdict(
            verdict="NOT_SUPPORTED", judge=self.id, unsupported_element=element, checks=checks
        )
