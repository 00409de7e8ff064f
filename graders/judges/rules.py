"""``rules``: the offline, deterministic judge and the embedded default (graders.rules: measured
signals combined by a fitted model; its code, lexicons and parameters are its version)."""

from __future__ import annotations

from spanproof.graders.judges.registry import judge

from spanproof.core.specs import EndpointSettings
from spanproof.core.verdict import Judge


@judge(
    "rules",
    summary="the offline judge: measured signals and a small fitted model (reads words only)",
    local=True,
    deterministic=True,
)
def build_rules(argument: str, endpoint: EndpointSettings) -> Judge:
    # imported when built: the fitted model and the audit's readers are a heavier import
    from spanproof.graders.rules import RulesJudge

    return RulesJudge()
