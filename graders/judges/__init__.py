"""Judges by name: the registry (``judge``, ``make_judge``, ``judge_kinds``) and the built-in
judges, one module each (blind, openai, rules, scripted). Adding a judge: a module here (or in
another distribution, through the ``spanproof.judges`` entry points) with a class that meets the
``Judge`` protocol (``spanproof.core.verdict``) and its factory decorated with ``@judge``."""

from spanproof.graders.judges.registry import (
    ENTRY_POINT_GROUP,
    JudgeKind,
    NamedJudge,
    check_judge_spec,
    judge,
    judge_kind,
    judge_kinds,
    judge_usage,
    make_judge,
    spec_of,
    unwrap,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "JudgeKind",
    "NamedJudge",
    "check_judge_spec",
    "judge",
    "judge_kind",
    "judge_kinds",
    "judge_usage",
    "make_judge",
    "spec_of",
    "unwrap",
]
