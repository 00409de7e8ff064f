"""The offline ``rules`` judge: measured signals combined by a fitted model (see ``judge``).

from spanproof.graders.rules import RulesJudge
verdict = RulesJudge().decide(claim, span_text)   # verdict, confidence, quote_used, ...
"""

from __future__ import annotations

from typing import Any

__all__ = ["RULES_VERSION", "RulesJudge", "best_window", "coverage"]


def __getattr__(name: str) -> Any:
    # Each public name is imported when first asked for (PEP 562): a module that needs only a
    # light part of the package (rules.fitted's records, for a run's summary) does not import
    # the judge, its signals and the audit's readers with it. The version is computed when
    # first read (see spanproof.graders.rules.judge).
    if name == "RULES_VERSION":
        from spanproof.graders.rules.judge import rules_version

        return rules_version()
    if name == "RulesJudge":
        from spanproof.graders.rules.judge import RulesJudge

        return RulesJudge
    if name == "best_window":
        from spanproof.graders.quoting import best_window

        return best_window
    if name == "coverage":
        from spanproof.graders.rules.lexical import coverage

        return coverage
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
