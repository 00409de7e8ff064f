"""False-positive rate of the instruction detector on ordinary web pages.

The WiCE development pages are real pages cited by Wikipedia (news, club sites, press
releases, forums), none of them written to attack a model, with all the imperatives and
notes of real pages ("Reply", "Share this story", "Note: ...", "Please visit ..."). Two
figures, both false positives:

- sentences: every unique sentence run through ``find_instructions`` on its own;
- pages: a page counts once if any of its sentences is flagged as publication reads a span
  (``instructions_near``: the sentence's block, with the block before it when that is a
  label and with a neighbour that points at it; each WiCE sentence is one block here).

The page rate is the one held to --max-rate (default 1%): a flagged page is a page some of
whose true claims would not be published.

    python scripts/instruction_false_positives.py                      # shipped copy of the pages
    python scripts/instruction_false_positives.py --wice ../shared/data/wice/dev.jsonl --show 50
    python scripts/instruction_false_positives.py --pages my_pages.jsonl   # {"wice_id", "sentences"}

Both WiCE inputs hold the same sentences: goldens/wice_dev_pages.jsonl.gz is built from the
development split by scripts/build_wice_pairs.py. Exit 1 when the page rate is above
--max-rate.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from spanproof.graders.instructions import find_instructions, instructions_near

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "goldens" / "wice_dev_pages.jsonl.gz"


def wice_pages(path: Path | None = None) -> list[tuple[str, list[str]]]:
    """(page id, sentences) of every WiCE development page (or of a `--pages` file)."""
    pages: dict[str, list[str]] = {}
    if path is not None and path.suffix == ".jsonl":
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if "evidence" in row:  # the development split itself: one row per claim
                pages.setdefault(row["meta"]["id"], row["evidence"])
            else:
                pages.setdefault(row["wice_id"], row["sentences"])
    else:
        with gzip.open(path or SHIPPED, "rt", encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                sentences = row["sentences"]
                if isinstance(sentences, str):
                    sentences = ast.literal_eval(sentences)
                pages.setdefault(row["wice_id"], sentences)
    return [(pid, [s for s in sentences if s.strip()]) for pid, sentences in pages.items()]


def wice_sentences(path: Path | None = None) -> list[str]:
    """Unique sentences of the WiCE development pages, in first-seen order."""
    seen: dict[str, None] = {}
    for _, sentences in wice_pages(path):
        for s in sentences:
            seen.setdefault(s, None)
    return list(seen)


def measure(sentences: list[str]) -> tuple[int, Counter, list[tuple[str, str]]]:
    """(sentences flagged, findings per rule, (rule, sentence) of each flagged one)."""
    by_rule: Counter = Counter()
    flagged: list[tuple[str, str]] = []
    for s in sentences:
        findings = find_instructions(s)
        if findings:
            by_rule.update(f.rule for f in findings)
            flagged.append((findings[0].rule, s))
    return len(flagged), by_rule, flagged


@dataclass
class PageFigure:
    pages: int = 0
    flagged: list[tuple[str, str, str]] = field(default_factory=list)  # (page, rule, where)

    @property
    def rate(self) -> float:
        return len(self.flagged) / self.pages if self.pages else 0.0


def measure_pages(pages: list[tuple[str, list[str]]]) -> PageFigure:
    """Pages with at least one sentence flagged as publication reads a span's block."""
    out = PageFigure(pages=len(pages))
    for pid, sentences in pages:
        text = "\n\n".join(sentences)
        pos = 0
        for s in sentences:
            findings = instructions_near(text, pos, pos + len(s))
            pos += len(s) + 2
            if findings:
                out.flagged.append((pid, findings[0].rule, findings[0].text))
                break
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--wice", type=Path, default=None, help="WiCE dev.jsonl (default: shipped copy)"
    )
    parser.add_argument(
        "--pages", type=Path, default=None, help='JSONL of {"wice_id", "sentences"} to read instead'
    )
    parser.add_argument("--show", type=int, default=20, help="flagged sentences to print")
    parser.add_argument("--max-rate", type=float, default=0.01, help="exit 1 above this page rate")
    args = parser.parse_args(argv)
    source = args.pages or args.wice
    pages = wice_pages(source)
    sentences = wice_sentences(source)
    if not pages or not sentences:
        print(f"no pages read from {source or SHIPPED}", file=sys.stderr)
        return 2
    n_flagged, by_rule, flagged = measure(sentences)
    per_page = measure_pages(pages)
    print(
        f"sentences {len(sentences)} | flagged {n_flagged} | "
        f"false-positive rate {n_flagged / len(sentences):.4%}"
    )
    print(
        f"pages {per_page.pages} | flagged {len(per_page.flagged)} | "
        f"false-positive rate {per_page.rate:.2%} (max {args.max_rate:.2%})"
    )
    for rule, n in by_rule.most_common():
        print(f"  {rule}: {n}")
    for rule, s in flagged[: args.show]:
        print(f"  [{rule}] {s[:160]}")
    for pid, rule, where in per_page.flagged[: args.show]:
        print(f"  page {pid} [{rule}] {where[:160]}")
    return 0 if per_page.rate <= args.max_rate else 1


if __name__ == "__main__":
    sys.exit(main())
