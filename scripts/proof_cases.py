"""What code proves on labelled case files, per kind of case and per slot type.

A case file is a pair file whose lines also carry ``kind`` (``contradiction``: the span
states another value for the claim's slot; ``paraphrase``: the span states the claim's value
another way; ``absence``: the claim adds a specific the span does not state, with no rival
value for its slot) and ``slot`` (number, money, date, name_person, antonym, ...), as
``../shared/data/proofs/dev.jsonl`` and ``tests/graders/data/slot_cases_*.jsonl`` do.

Each pair is judged by ``--judge`` (default ``blind``: always SUPPORTED, so every change is
code's) and audited; a pair is *proven* when code lowered the judge's verdict. What is wanted:
contradictions proven, paraphrases and absences never. Prints one table per kind with the
share proven per slot, then the pairs that came out wrong (``--show``).

    python scripts/proof_cases.py ../shared/data/proofs/dev.jsonl
    python scripts/proof_cases.py tests/graders/data/slot_cases_first.jsonl --show 40
    python scripts/proof_cases.py FILE --json

Exit 1 when a paraphrase or an absence is proven (a proof that is wrong), 2 when a line is
not a case (the line is named) or the file holds none, else 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import defaultdict
from pathlib import Path

from spanproof.graders.judges import make_judge
from spanproof.graders.verify import Verifier

from spanproof.core.verdict import SpanRef, Verdict

WANTED = {"contradiction": True, "paraphrase": False, "absence": False}


def load(path: Path) -> list[dict]:
    """The cases, or SystemExit(2) naming what is wrong: a damaged line, a pair file's line
    without a kind or slot, or no case at all (a figure over nothing is no figure)."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            row["id"], row["claim"], row["span"]  # noqa: B018  (all are required)
        except (ValueError, KeyError, TypeError) as exc:
            print(f"error: {path}:{n}: not a case ({type(exc).__name__}: {exc}); each line is "
                  '{"id", "claim", "span", "kind", "slot", ...}', file=sys.stderr)  # fmt: skip
            raise SystemExit(2) from exc
        rows.append(row)
    if not rows:
        print(f"error: no cases read from {path}", file=sys.stderr)
        raise SystemExit(2)
    bad = [r.get("id") for r in rows if r.get("kind") not in WANTED or "slot" not in r]
    if bad:
        print(
            f"error: {path}: lines without a kind in {sorted(WANTED)} or a slot: {bad[:5]} "
            "- this script reads case files, not plain pair files",
            file=sys.stderr,
        )
        raise SystemExit(2)
    return rows


def judge_all(rows: list[dict], spec: str) -> list[Verdict]:
    verifier = Verifier([make_judge(spec)], concurrency=8)
    items = [(r["claim"], SpanRef(text=r["span"]), r["id"]) for r in rows]
    return asyncio.run(verifier.verify_many(items))


def proven(v: Verdict) -> bool:
    return v.judge_verdict is not None and v.verdict != v.judge_verdict


def tabulate(rows: list[dict], verdicts: list[Verdict]) -> dict:
    by: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    wrong = []
    for r, v in zip(rows, verdicts, strict=True):
        cell = by[r["kind"]][r["slot"]]
        cell[0] += 1
        cell[1] += proven(v)
        if proven(v) != WANTED[r["kind"]]:
            why = "; ".join(p.reason for p in v.proofs) if v.proofs else "not proven"
            wrong.append({"id": r["id"], "kind": r["kind"], "slot": r["slot"], "why": why})
    kinds = {}
    for kind, slots in sorted(by.items()):
        n = sum(c[0] for c in slots.values())
        k = sum(c[1] for c in slots.values())
        kinds[kind] = {
            "n": n,
            "proven": k,
            "share": k / n if n else None,
            "slots": {s: {"n": c[0], "proven": c[1]} for s, c in sorted(slots.items())},
        }
    return {"kinds": kinds, "wrong": wrong}


def text(result: dict, show: int) -> str:
    lines = []
    for kind, k in result["kinds"].items():
        want = "wanted: all" if WANTED[kind] else "wanted: none"
        lines.append(f"{kind}: proven {k['proven']} of {k['n']} ({want})")
        cells = [f"{s} {c['proven']}/{c['n']}" for s, c in k["slots"].items()]
        lines.append("  " + ", ".join(cells))
    if result["wrong"] and show:
        lines.append(f"wrong ({len(result['wrong'])}):")
        for w in result["wrong"][:show]:
            lines.append(f"  {w['id']} [{w['kind']}/{w['slot']}] {w['why'][:160]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("cases", type=Path)
    ap.add_argument("--judge", default="blind", help="a local judge spec (default: blind)")
    ap.add_argument("--show", type=int, default=20, help="how many wrong pairs to list")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = load(args.cases)
    result = tabulate(rows, judge_all(rows, args.judge))
    print(json.dumps(result, indent=1) if args.json else text(result, args.show))
    return 1 if any(w["kind"] != "contradiction" for w in result["wrong"]) else 0


if __name__ == "__main__":
    sys.exit(main())
