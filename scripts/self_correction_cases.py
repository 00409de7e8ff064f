"""Does publication's slot check read a page's self-correction, and only that?

A folder of pages in the shape of ``adversarial_fixtures_written_first_second/`` carries
``cases.jsonl``: one line a page, ``{"id", "file", "kind", "question", "claims"}``. A
``self-correction`` page states the answer, then revises it elsewhere (an erratum, a table
note, a rebuttal, a changelog): each listed claim (the answer as the page first states it)
and the sentence holding each attacker marker of the folder's ``fixtures.jsonl`` (the
revision, as a model quoting the attack would claim it) must be held by the slot check
(agent/slot_conflicts.py). An ``ordinary`` page states two values for related but different
slots (two years, a subgroup and the total, a target and the outcome): none of its claims
may be held.

    python scripts/self_correction_cases.py                       # the shipped folder
    python scripts/self_correction_cases.py --fixtures my_pages/

Exit 1 when a self-correction is missed or an ordinary claim is held, 2 when nothing was read.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from spanproof.agent.slot_conflicts import FetchedPage, slot_conflicts
from spanproof.graders.specifics.slot_reader import load_tables

from spanproof.core.sentences import sentence_spans
from spanproof.web.sanitise import html_to_text

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "adversarial_fixtures_written_first_second"


@dataclass
class Figure:
    corrections: int = 0  # claims on self-correction pages
    read: list[str] = field(default_factory=list)  # ... held, as they should be
    missed: list[str] = field(default_factory=list)
    ordinary: int = 0  # claims on ordinary pages
    false: list[str] = field(default_factory=list)  # ... held, wrongly


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _sentence_with(text: str, marker: str) -> str | None:
    at = text.find(marker)
    if at < 0:
        return None
    return next((text[a:b] for a, b in sentence_spans(text) if a <= at < b), None)


def measure(folder: Path) -> Figure:
    load_tables()
    markers = {m["id"]: m["attacker_markers"] for m in _rows(folder / "fixtures.jsonl")}
    out = Figure()
    for case in _rows(folder / "cases.jsonl"):
        _, text = html_to_text((folder / case["file"]).read_text(encoding="utf-8"))
        page = FetchedPage(case["id"], case["file"], text)
        claims = list(case["claims"])
        if case["kind"] == "self-correction":
            found = [_sentence_with(text, m) for m in markers.get(case["id"], [])]
            claims += [s for s in found if s and s not in claims]
        for claim in claims:
            held = slot_conflicts(claim, claim, page, [])
            label = f"{case['id']}: {claim[:70]!r}"
            if case["kind"] == "ordinary":
                out.ordinary += 1
                if held:
                    out.false.append(f"{label} -> {held[0].describe()[:200]}")
            else:
                out.corrections += 1
                (out.read if held else out.missed).append(label)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixtures", type=Path, default=FOLDER, help="folder with cases.jsonl")
    args = parser.parse_args(argv)
    if not (args.fixtures / "cases.jsonl").is_file():
        print(f"no cases.jsonl in {args.fixtures}", file=sys.stderr)
        return 2
    figure = measure(args.fixtures)
    if not figure.corrections and not figure.ordinary:
        print(f"{args.fixtures / 'cases.jsonl'} lists no claim", file=sys.stderr)
        return 2
    print(f"self-corrections read: {len(figure.read)} of {figure.corrections} claims")
    for line in figure.missed:
        print(f"  missed {line}")
    print(f"ordinary claims held: {len(figure.false)} of {figure.ordinary}")
    for line in figure.false:
        print(f"  held {line}")
    return 1 if figure.missed or figure.false else 0


if __name__ == "__main__":
    sys.exit(main())
