"""What every gate run keeps item by item, so a later run can be compared with it pair by pair.

A headline figure cannot say whether a change made the grader worse: the same agreement can
hide four pairs lost and four gained. So the gate records, for each set it measures, every
item's outcome: which calibration pair the audited grader got right, which planted failure it
caught, which original it passed, how many claims of each golden question's answer were
SUPPORTED. The figures of the gate's rows are ratios of these counts (``RowSpec``), and
``spanproof gate --baseline`` compares two runs' counts item by item (spanproof/gate/baseline.py).

The format (``GateOutcomes``) is versioned and documented in docs/gate-baseline.md, because a
baseline file committed to a repository must still be readable by later versions:

- ``format`` "spanproof-gate-outcomes", ``version`` 1;
- ``sets``: set name -> ``{source, repeats, items}``; an item is ``{key, id, cluster,
  near_miss, kind, counts}``, ``counts`` mapping an outcome to ``[successes, trials]``
  (trials > 1 when the gate judged each pair several times, ``--repeat``);
- ``key`` is a hash of what was measured (a pair's id, claim, span and label; a question's id
  and text), so an item edited between two runs is never paired with its old self;
- ``cluster``: items that move together — pairs cut from one page (the WiCE page, the source
  URL or document, else the span text itself) and the planted variants of one original pair;
  one golden question is one cluster of claims.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from pydantic import BaseModel, Field

from spanproof.core.verdict import Pair, Verdict

FORMAT: Final = "spanproof-gate-outcomes"
VERSION: Final = 1


class OutcomeItem(BaseModel):
    key: str
    id: str
    cluster: str
    near_miss: bool = False
    kind: str = ""
    counts: dict[str, tuple[int, int]]  # outcome -> (successes, trials)
    # For a person reading what moved: the claim (or the question) and the start of the span
    # it was judged against, and the audited verdict of each sample (ERROR for an error).
    claim: str = ""
    span: str = ""
    verdicts: list[str] = Field(default_factory=list)
    judge_verdicts: list[str] = Field(default_factory=list)  # the judge's own, before the audit


class OutcomeSet(BaseModel):
    source: str  # what was measured, e.g. "judge_calibration.jsonl"
    repeats: int = 1
    items: list[OutcomeItem] = Field(default_factory=list)


class GateOutcomes(BaseModel):
    format: Literal["spanproof-gate-outcomes"] = FORMAT
    version: Literal[1] = VERSION
    sets: dict[str, OutcomeSet] = Field(default_factory=dict)


@functools.lru_cache(maxsize=65536)
def content_key(*parts: Any) -> str:
    blob = json.dumps(list(parts), ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:24]


def pair_cluster(pair: Pair) -> str:
    """Pairs cut from one page move together: the WiCE page, else the source document or URL,
    else (a pair written by hand) the span text it reads."""
    src = pair.source or {}
    for field, tag in (("wice_id", "wice"), ("doc_id", "doc"), ("url", "url")):
        if src.get(field):
            return f"{tag}:{src[field]}"
    return "span:" + hashlib.sha256(pair.span.encode("utf-8")).hexdigest()[:16]


def _tally(samples: Sequence[Verdict], ok: Callable[[Verdict], bool]) -> tuple[int, int]:
    return sum(1 for v in samples if ok(v)), len(samples)


def _by_pair(samples: Sequence[Sequence[Verdict]], n_pairs: int) -> list[list[Verdict]]:
    """Repeat-major samples (one list of verdicts per repeat) -> one list per pair."""
    if any(len(s) != n_pairs for s in samples):
        raise ValueError("every repeat must judge every pair")
    return [[s[i] for s in samples] for i in range(n_pairs)]


def _label_of(v: Verdict) -> str:
    return "ERROR" if v.error else v.verdict


def _shown(pair: Pair | Any, verdicts: Sequence[Verdict]) -> dict[str, Any]:
    """What a moved item shows: its claim, the start of its span and each sample's verdict."""
    return {"claim": pair.claim[:160], "span": pair.span[:100],
            "verdicts": [_label_of(v) for v in verdicts],
            "judge_verdicts": [_own_label(v) for v in verdicts]}  # fmt: skip


def _own_label(v: Verdict) -> str:
    """The judge's own label before the audit (an error is an error)."""
    return "ERROR" if v.error else (v.judge_verdict or v.verdict)


def labelled_set(
    source: str, pairs: Sequence[Pair], samples: Sequence[Sequence[Verdict]]
) -> OutcomeSet:
    """A labelled set (calibration, reviewed): ``correct`` = the audited verdict equals the
    label (an error is wrong), ``correct_judge_only`` the same for the judge's own label,
    ``publishes_right`` = SUPPORTED exactly when the label is."""
    items = []
    for pair, verdicts in zip(pairs, _by_pair(samples, len(pairs)), strict=True):
        items.append(
            OutcomeItem(
                key=content_key(pair.id, pair.claim, pair.span, pair.label),
                id=pair.id, cluster=pair_cluster(pair), near_miss=pair.near_miss,
                kind=pair.kind or "",
                counts=_labelled_counts(pair, verdicts),
                **_shown(pair, verdicts),
            )
        )  # fmt: skip
    return OutcomeSet(source=source, repeats=len(samples), items=items)


def _labelled_counts(pair: Pair, verdicts: Sequence[Verdict]) -> dict[str, tuple[int, int]]:
    return {
        "correct": _tally(verdicts, lambda v: _label_of(v) == pair.label),
        "correct_judge_only": _tally(verdicts, lambda v: _own_label(v) == pair.label),
        "publishes_right": _tally(
            verdicts,
            lambda v: v.error is None and (v.verdict == "SUPPORTED") == (pair.label == "SUPPORTED"),
        ),
    }


def planted_set(
    source: str, planted: Sequence[Any], samples: Sequence[Sequence[Verdict]],
    original_cluster: dict[str, str],
) -> OutcomeSet:  # fmt: skip
    """Planted failures: ``caught`` = not SUPPORTED and no error (as graders.sensitivity counts),
    ``caught_judge_only`` by the judge's own label; each variant sits in its original pair's
    cluster."""
    items = []
    for p, verdicts in zip(planted, _by_pair(samples, len(planted)), strict=True):
        pair = p.as_pair()
        items.append(
            OutcomeItem(
                key=content_key(p.id, p.claim, p.span, p.kind),
                id=p.id, cluster=original_cluster.get(p.original_id) or pair_cluster(pair),
                near_miss=True, kind=p.kind,
                counts={
                    "caught": _tally(verdicts, lambda v: _label_of(v) not in ("SUPPORTED", "ERROR")),
                    "caught_judge_only": _tally(
                        verdicts, lambda v: _own_label(v) not in ("SUPPORTED", "ERROR")
                    ),
                },
                **_shown(p, verdicts),
            )
        )  # fmt: skip
    return OutcomeSet(source=source, repeats=len(samples), items=items)


def originals_set(
    source: str, originals: Sequence[Pair], samples: Sequence[Sequence[Verdict]]
) -> OutcomeSet:
    """Untouched SUPPORTED originals: ``passed`` = judged SUPPORTED with no error (and
    ``passed_judge_only`` by the judge's own label)."""
    items = [
        OutcomeItem(
            key=content_key(p.id, p.claim, p.span, "original"), id=p.id, cluster=pair_cluster(p),
            kind=p.kind or "",
            counts={
                "passed": _tally(verdicts, lambda v: v.supported),
                "passed_judge_only": _tally(verdicts, lambda v: _own_label(v) == "SUPPORTED"),
            },
            **_shown(p, verdicts),
        )
        for p, verdicts in zip(originals, _by_pair(samples, len(originals)), strict=True)
    ]  # fmt: skip
    return OutcomeSet(source=source, repeats=len(samples), items=items)


# ---------------------------------------------------------------- rows over the sets


@dataclass(frozen=True)
class RowSpec:
    """A gate row's figure as a ratio of outcome counts over (a subset of) one set."""

    row: str  # the gate row's name, e.g. "calibration.agreement"
    set: str
    outcome: str
    higher_is_better: bool = True
    near_miss_only: bool = False
    kind: str | None = None
    # A figure of the judge's own verdicts before the audit: reported, never held to an absolute
    # threshold, but compared with a baseline (a judge drifting into agreement can hide behind
    # the audit on planted failures, never on the defects code cannot prove).
    judge_only: bool = False

    def selects(self, item: OutcomeItem) -> bool:
        return (
            self.outcome in item.counts
            and item.counts[self.outcome][1] > 0  # nothing to count: no part of the figure
            and (item.near_miss or not self.near_miss_only)
            and (self.kind is None or item.kind == self.kind)
        )


FIXED_ROWS: tuple[RowSpec, ...] = (
    RowSpec("calibration.agreement", "calibration", "correct"),
    RowSpec("calibration.near_miss_agreement", "calibration", "correct", near_miss_only=True),
    RowSpec(
        "calibration.agreement_judge_only", "calibration", "correct_judge_only", judge_only=True
    ),
    RowSpec("sensitivity.recall", "sensitivity_planted", "caught"),
    RowSpec("sensitivity.specificity", "sensitivity_originals", "passed"),
    RowSpec(
        "sensitivity.recall_judge_only", "sensitivity_planted", "caught_judge_only", judge_only=True
    ),
    RowSpec("groundedness.published", "groundedness", "published_supported"),
    RowSpec("groundedness.pre_prune_supported", "groundedness", "supported"),
    RowSpec("groundedness.partial_rate", "groundedness", "partial", higher_is_better=False),
    RowSpec("groundedness.drop_rate", "groundedness", "dropped", higher_is_better=False),
    RowSpec("tool_calls.first_try_quote_success", "groundedness", "quote_first_try"),
    RowSpec("tool_calls.useful_fetch_rate", "groundedness", "useful_fetch"),
    RowSpec("coverage.golden_facts_found", "groundedness", "fact_found"),
    RowSpec("coverage.unanswerable_with_gaps", "groundedness", "gap_reported"),
    RowSpec("reviewed.agreement", "reviewed", "publishes_right"),
)


def kind_row(kind: str) -> str:
    return f"sensitivity.recall[{kind}]"


def row_specs(outcomes: GateOutcomes) -> list[RowSpec]:
    """Every figure the outcomes can give: the fixed rows whose set was measured, and the
    sensitivity per planted kind."""
    specs = [s for s in FIXED_ROWS if s.set in outcomes.sets]
    planted = outcomes.sets.get("sensitivity_planted")
    if planted is not None:
        kinds = sorted({i.kind for i in planted.items})
        specs += [RowSpec(kind_row(k), "sensitivity_planted", "caught", kind=k) for k in kinds]
    return specs


def items_for(outcomes: GateOutcomes, spec: RowSpec) -> list[OutcomeItem]:
    s = outcomes.sets.get(spec.set)
    return [] if s is None else [i for i in s.items if spec.selects(i)]


def figure(outcomes: GateOutcomes, spec: RowSpec) -> float | None:
    items = items_for(outcomes, spec)
    trials = sum(i.counts[spec.outcome][1] for i in items)
    return None if not trials else sum(i.counts[spec.outcome][0] for i in items) / trials
