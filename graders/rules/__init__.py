"""The offline ``rules`` judge: measured signals combined by a fitted model (see ``judge``).

from spanproof.graders.rules import RulesJudge
verdict = RulesJudge().decide(claim, span_text)   # verdict, confidence, quote_used, ...

The names below are imported when first asked for (PEP 562): a module that needs only a light
part of the package (``rules.fitted``'s records, for a run's summary) does not import the
judge, its signals and the audit's readers with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from spanproof.core.lazy import lazy_exports

if TYPE_CHECKING:
    from spanproof.graders.quoting import best_window
    from spanproof.graders.rules.judge import RulesJudge
    from spanproof.graders.rules.lexical import coverage

__all__ = ["RULES_VERSION", "RulesJudge", "best_window", "coverage"]

_exported, __dir__ = lazy_exports(
    globals(),
    {
        "RulesJudge": "spanproof.graders.rules.judge",
        "best_window": "spanproof.graders.quoting",
        "coverage": "spanproof.graders.rules.lexical",
    },
)


def __getattr__(name: str) -> Any:
    # the version is computed when first read and read afresh each time (see
    # spanproof.graders.rules.judge), so it is not kept here as the other names are
    if name == "RULES_VERSION":
        from spanproof.graders.rules.judge import rules_version

        return rules_version()
    return _exported(name)
