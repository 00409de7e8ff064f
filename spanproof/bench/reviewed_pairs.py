"""Reviewer decisions as labelled pairs: each defect a human caught becomes a test case.

A reviewer in ``spanproof view`` who cuts a published claim as not supported by its span
(saying whether the span supports part of it or none), cuts a flagged claim (confirming its
flag), or keeps an edit the verifier refused because the span does support it, has labelled a
(claim, span) pair the grader got wrong. A cut as "not an answer / off-topic" labels nothing:
the claim may be exactly what its span says, so it never becomes a pair; nor does a refused
edit that reads as instructions (the bench judges every pair on every gate run). ``spanproof goldens add-from-reviews`` writes those decisions into the repository
(goldens/reviewed_pairs.jsonl), and the gate's ``reviewed`` check judges them on every run,
so a defect that reached a human stays caught.

A line is a pair in the pair-file format (spanproof/bench/pairs.py) with the reviewer's verdict as its
label, the note as ``rationale``, and where it came from in ``source``::

    {"id": "rev-<review id>", "claim", "span", "label", "near_miss", "kind",
     "rationale": "<the reviewer's note>",
     "source": {"url", "retrieved_at", "doc_id", "span_id", "char_start", "char_end",
                "run_id", "claim_index",
                "review": {"id", "decision", "reviewer", "decided_at", "run_verdict",
                           "judges"}}}

``kind`` is ``reviewer_cut``, ``flag_confirmed`` (a cut of a claim the run flagged or
narrowed) or ``refused_edit``; ``near_miss`` is true for every pair the reviewer says is not
SUPPORTED (it reached publication looking supported: a near miss by definition).

Only decisions in force are exported: a cut a reviewer later overturned (approved or edited the
claim again) is not, and a line exported from it earlier is removed on the next export. Lines
whose id does not start with ``rev-`` are never touched; neither is a line whose run is not in
the store being exported (another reviewer's store).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from spanproof.bench.pairs import PairSetError, read_pair_lines

if TYPE_CHECKING:
    from spanproof.agent.record import RunRecord

    from spanproof.store import Store
    from spanproof.store.models import Review

PREFIX = "rev-"
DEFAULT_PATH = "goldens/reviewed_pairs.jsonl"


class ExportResult(BaseModel):
    path: str
    added: list[str] = Field(default_factory=list)
    updated: list[str] = Field(default_factory=list)
    unchanged: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)  # overturned since they were exported
    skipped: list[str] = Field(default_factory=list)  # "<review id>: why"
    written: bool = False


REVIEWED_SET = Path("goldens") / "reviewed_pairs.jsonl"


class NoRepository(ValueError):
    """No repository with a goldens/ folder at or above the working directory."""


def repository_reviewed_set(start: Path) -> Path:
    """The reviewed set of the repository ``start`` is in: ``goldens/reviewed_pairs.jsonl`` at
    the root of the nearest enclosing git repository, which must keep a ``goldens/`` folder.
    Never a ``goldens/`` made where one happens to stand: NoRepository says what to do."""
    here = start.resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            if (folder / "goldens").is_dir():
                return folder / REVIEWED_SET
            raise NoRepository(
                f"the repository at {folder} has no goldens/ folder: run this in the checkout "
                "whose gate reads the reviewed set, or say where to write it with --out FILE"
            )
    raise NoRepository(
        f"{here} is not inside a git repository, so there is no repository goldens/ to add to: "
        "run this in the checkout whose gate reads the reviewed set, or say where to write it "
        "with --out FILE"
    )


def _when(dt: datetime) -> str:
    return dt.isoformat(timespec="seconds") + ("Z" if dt.tzinfo is None else "")


def _kind(decision: str, claim_status: str) -> str:
    if decision == "refused":
        return "refused_edit"
    return "flag_confirmed" if claim_status in ("flagged", "narrowed") else "reviewer_cut"


def pair_of(record: RunRecord, review: Review) -> dict[str, Any]:
    """The labelled pair a review makes of its claim (KeyError / ValueError when it cannot)."""
    claim = next((c for c in record.answer.claims if c.index == review.claim_index), None)
    if claim is None:
        raise KeyError(f"run {record.run_id} has no claim {review.claim_index}")
    span_id = claim.supporting_span_id or (claim.span_ids[0] if claim.span_ids else None)
    span = record.span(span_id) if span_id else None
    if span is None:
        raise ValueError(f"claim {claim.index} of run {record.run_id} cites no stored span")
    text = review.edited_text if review.decision == "refused" else claim.text
    if not text:
        raise ValueError("the refused edit has no text")
    if review.label is None or review.cut_reason == "not_an_answer":
        # "not an answer" says nothing of the span's support: never a labelled pair
        raise ValueError("the cut says the claim is not an answer, not that its span fails it")
    if review.decision == "refused":
        from spanproof.graders.instructions import find_instructions

        found = find_instructions(text)
        if found:  # the bench judges its pairs on every gate run: screened like any span
            raise ValueError(
                f"the refused edit reads as instructions ({found[0].rule}: {found[0].text!r}); "
                "not exported"
            )
    return {
        "id": PREFIX + review.id.replace("-", "")[:16],
        "claim": text,
        "span": span.text,
        "label": review.label,
        "near_miss": review.label != "SUPPORTED",
        "kind": _kind(review.decision, claim.status),
        "rationale": review.note or None,
        "source": {
            "url": span.url, "retrieved_at": span.retrieved_at, "doc_id": span.doc_id,
            "span_id": span.span_id, "char_start": span.char_start, "char_end": span.char_end,
            "run_id": record.run_id, "claim_index": claim.index,
            "review": {
                "id": review.id, "decision": review.decision, "reviewer": review.reviewer,
                "decided_at": _when(review.decided_at), "run_verdict": claim.verdict.verdict,
                "judges": list(record.config.judges),
            },
        },
    }  # fmt: skip


def collect(
    store: Store, since: datetime | None = None
) -> tuple[list[dict[str, Any]], set[str], list[str]]:
    """(pairs from the labelled decisions in force, ids of overturned ones, skipped reasons)."""
    from spanproof.agent.runstore import parse_record

    from spanproof.store.errors import RecordCorrupt, RunNotFound

    labelled = store.labelled_reviews(since)
    pairs: list[dict[str, Any]] = []
    overturned: set[str] = set()
    skipped: list[str] = []
    by_run: dict[str, list[Review]] = {}
    for r in labelled:
        by_run.setdefault(r.run_id, []).append(r)
    for run_id, reviews in by_run.items():
        try:
            stored = store.get_run(run_id)
            record = parse_record(run_id, stored.record)
        except (RunNotFound, RecordCorrupt) as exc:  # a run gone from the store, a damaged record
            skipped += [f"{r.id}: run {run_id} cannot be read ({exc})" for r in reviews]
            continue
        in_force: dict[int, str] = {}
        for r in store.list_reviews(run_id):  # oldest first: the last publishing one wins
            if r.decision != "refused":
                in_force[r.claim_index] = r.id
        for r in reviews:
            if r.decision == "cut" and in_force.get(r.claim_index) != r.id:
                overturned.add(PREFIX + r.id.replace("-", "")[:16])
                continue
            try:
                pairs.append(pair_of(record, r))
            except (KeyError, ValueError) as exc:
                skipped.append(f"{r.id}: {exc}")
    return pairs, overturned, skipped


def _line(pair: dict[str, Any]) -> str:
    return json.dumps(pair, ensure_ascii=False, sort_keys=False)


def merge(path: Path, pairs: Sequence[dict[str, Any]], overturned: Iterable[str], *,
          dry_run: bool = False) -> ExportResult:  # fmt: skip
    """Add new pairs to the reviewed set at ``path``, update changed ones, drop overturned
    ones; every other line is kept as it is. A damaged file is refused, never rewritten."""
    from spanproof.core.files import write_atomic

    result = ExportResult(path=str(path))
    lines: list[tuple[str | None, str]] = []  # (id, text) in file order
    if path.exists():
        good, problems = read_pair_lines(path)
        if problems:
            raise PairSetError(
                f"{path} has bad lines ({problems[0]}{' ...' if len(problems) > 1 else ''}); fix "
                "them before adding reviewed pairs (nothing was written)"
            )
        raw = path.read_text(encoding="utf-8").splitlines()
        by_line = {n: p.id for n, p in good}
        lines = [(by_line.get(n), text) for n, text in enumerate(raw, start=1) if text.strip()]
    gone = set(overturned)
    fresh: dict[str, dict[str, Any]] = {p["id"]: p for p in pairs}
    out: list[str] = []
    for pid, text in lines:
        if pid in gone and pid not in fresh:
            result.removed.append(pid)
            continue
        if pid in fresh:
            new = _line(fresh.pop(pid))
            (result.unchanged if new == text else result.updated).append(pid)
            out.append(new)
        else:
            out.append(text)
    seen = {json.loads(t).get("claim", "") + "\x00" + json.loads(t).get("span", "") for t in out}
    for pid, pair in fresh.items():
        key = pair["claim"] + "\x00" + pair["span"]
        if key in seen:
            result.skipped.append(f"{pid}: the same claim and span are already in {path.name}")
            continue
        seen.add(key)
        out.append(_line(pair))
        result.added.append(pid)
    if not dry_run and (result.added or result.updated or result.removed):
        write_atomic(path, "".join(line + "\n" for line in out))
        result.written = True
    return result
