"""False-conflict rate of publication's slot check on ordinary web pages.

Publication holds back a claim whose own page states another value for one of its slots
elsewhere (agent/slot_conflicts.py: an erratum, a footnote, a revision). The WiCE development
pages are real pages cited by Wikipedia, none written to contradict itself on purpose, so
every claim the check would hold there is counted as a false conflict (the printed cases
show what a reader would check by hand). Each pair's claim is read with its span (the
annotated supporting sentences) against its whole page, each WiCE sentence one block.

    python scripts/slot_conflict_false_positives.py                   # shipped copy of the pairs
    python scripts/slot_conflict_false_positives.py --pairs my.jsonl --pages my_pages.jsonl.gz

Pairs: goldens/wice_dev_pairs.jsonl ({"id", "claim", "span", "label", "source": {"wice_id"}});
pages: goldens/wice_dev_pages.jsonl.gz ({"wice_id", "sentences"}), both built from the
development split by scripts/build_wice_pairs.py. Exit 1 when the rate is above --max-rate,
2 when nothing was read.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from spanproof.agent.slot_conflicts import FetchedPage, slot_conflicts
from spanproof.graders.specifics.slot_reader import load_tables

ROOT = Path(__file__).resolve().parents[1]
PAIRS = ROOT / "goldens" / "wice_dev_pairs.jsonl"
PAGES = ROOT / "goldens" / "wice_dev_pages.jsonl.gz"


@dataclass
class Figure:
    pairs: int = 0
    held: list[tuple[str, str]] = field(default_factory=list)  # (pair id, what was found)

    @property
    def rate(self) -> float:
        return len(self.held) / self.pairs if self.pairs else 0.0


def read_pages(path: Path) -> dict[str, list[str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return {row["wice_id"]: row["sentences"] for row in map(json.loads, fh) if row}


def measure(pairs: list[dict], pages: dict[str, list[str]]) -> Figure:
    """Pairs whose claim the slot check would hold against its own page."""
    load_tables()
    out = Figure()
    for pair in pairs:
        sentences = pages.get(pair["source"]["wice_id"])
        if sentences is None:
            continue
        text = "\n\n".join(s for s in sentences if s.strip())
        out.pairs += 1
        found = slot_conflicts(pair["claim"], pair["span"], FetchedPage("page", "page", text), [])
        if found:
            out.held.append((pair["id"], found[0].describe()))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=Path, default=PAIRS, help="JSONL of WiCE pairs")
    parser.add_argument("--pages", type=Path, default=PAGES, help="JSONL(.gz) of WiCE pages")
    parser.add_argument("--show", type=int, default=20, help="held pairs to print")
    parser.add_argument("--max-rate", type=float, default=0.01, help="exit 1 above this rate")
    args = parser.parse_args(argv)
    pairs = [json.loads(line) for line in args.pairs.read_text(encoding="utf-8").splitlines()]
    figure = measure([p for p in pairs if p], read_pages(args.pages))
    if not figure.pairs:
        print(f"no pair of {args.pairs} has its page in {args.pages}", file=sys.stderr)
        return 2
    print(
        f"pairs {figure.pairs} | held as conflicting {len(figure.held)} | "
        f"false-conflict rate {figure.rate:.2%} (max {args.max_rate:.2%})"
    )
    for pid, what in figure.held[: args.show]:
        print(f"  {pid}: {what[:300]}")
    return 1 if figure.rate > args.max_rate else 0


if __name__ == "__main__":
    sys.exit(main())
