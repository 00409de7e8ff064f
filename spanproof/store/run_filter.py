"""The SQL conditions a RunFilter stands for (``runs list`` and the viewer's run search)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from spanproof.store import schema as t
from spanproof.store.models import RunFilter
from spanproof.store.timeutil import utc_naive


def escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def run_conditions(f: RunFilter) -> list[Any]:
    """SQL conditions for a RunFilter, on the runs table's columns only."""
    c = t.runs.c
    where: list[Any] = []
    for word in f.question.split():
        where.append(sa.func.lower(c.question).like(f"%{escape_like(word.lower())}%", escape="\\"))
    for column, value in ((c.status, f.status), (c.policy, f.policy), (c.model, f.model)):
        if value:
            where.append(column == value)
    if f.judge:  # the judges column joins a run's judge specs with "+"
        j = escape_like(f.judge)
        where.append(sa.or_(c.judges == f.judge, c.judges.like(f"{j}+%", escape="\\"),
                            c.judges.like(f"%+{j}", escape="\\"),
                            c.judges.like(f"%+{j}+%", escape="\\")))  # fmt: skip
    if f.prompt_version:
        where.append(c.prompt_version.like(f"{escape_like(f.prompt_version)}%", escape="\\"))
    if f.since is not None:
        where.append(c.created_at >= utc_naive(f.since))
    if f.until is not None:
        where.append(c.created_at < utc_naive(f.until))
    if f.mix == "all_supported":
        where += [c.claims_published > 0, c.published_groundedness >= 1.0]
    elif f.mix == "some_published_unsupported":
        where.append(c.published_groundedness < 1.0)
    elif f.mix == "some_drafted_unsupported":
        where.append(c.pre_prune_supported_rate < 1.0)
    elif f.mix == "no_claims":
        where.append(sa.func.coalesce(c.claims_published, 0) == 0)
    return where
