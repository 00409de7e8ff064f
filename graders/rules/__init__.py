"""The offline ``rules`` judge: measured signals combined by a fitted model (see ``judge``).

from spanproof.graders.rules import RulesJudge
verdict = RulesJudge().decide(claim, span_text)   # verdict, confidence, quote_used, ...
"""

from spanproof.graders.quoting import best_window
from spanproof.graders.rules.judge import RULES_VERSION, RulesJudge
from spanproof.graders.rules.lexical import coverage

__all__ = ["RULES_VERSION", "RulesJudge", "best_window", "coverage"]
