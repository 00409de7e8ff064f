"""The offline ``rules`` judge: measured signals combined by a fitted model (see ``judge``).

from spanproof.graders.rules import RulesJudge
verdict = RulesJudge().decide(claim, span_text)   # verdict, confidence, quote_used, ...
"""

from spanproof.graders.quoting import best_window
from spanproof.graders.rules.judge import RulesJudge
from spanproof.graders.rules.lexical import coverage

__all__ = ["RULES_VERSION", "RulesJudge", "best_window", "coverage"]


def __getattr__(name: str) -> str:
    # the version is computed when first read (see spanproof.graders.rules.judge)
    if name == "RULES_VERSION":
        from spanproof.graders.rules.judge import rules_version

        return rules_version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
