"""False-positive rate of the instruction detector on ordinary web text.

Every sentence of the WiCE development pages (real pages cited by Wikipedia, none of them
written to attack a model) is run through ``find_instructions``; every sentence it flags is
a false positive. Prints the rate, the count per rule and the flagged sentences.

    python scripts/instruction_false_positives.py                      # shipped copy of the pages
    python scripts/instruction_false_positives.py --wice ../shared/data/wice/dev.jsonl --show 50

Both inputs hold the same sentences: goldens/wice_dev_pages.jsonl.gz is built from the
development split by scripts/build_wice_pairs.py. Exit 1 when the rate is above --max-rate.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter
from pathlib import Path

from spanproof.graders.instructions import find_instructions

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "goldens" / "wice_dev_pages.jsonl.gz"


def wice_sentences(path: Path | None = None) -> list[str]:
    """Unique sentences of the WiCE development pages, in first-seen order."""
    seen: dict[str, None] = {}
    if path is not None and path.suffix == ".jsonl":
        for line in path.read_text(encoding="utf-8").splitlines():
            for s in json.loads(line)["evidence"]:
                seen.setdefault(s, None)
    else:
        with gzip.open(path or SHIPPED, "rt", encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                sentences = row["sentences"]
                if isinstance(sentences, str):
                    import ast

                    sentences = ast.literal_eval(sentences)
                for s in sentences:
                    seen.setdefault(s, None)
    return [s for s in seen if s.strip()]


def measure(sentences: list[str]) -> tuple[int, Counter, list[tuple[str, str]]]:
    by_rule: Counter = Counter()
    flagged: list[tuple[str, str]] = []
    for s in sentences:
        findings = find_instructions(s)
        if findings:
            by_rule.update(f.rule for f in findings)
            flagged.append((findings[0].rule, s))
    return len(flagged), by_rule, flagged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--wice", type=Path, default=None, help="WiCE dev.jsonl (default: shipped copy)"
    )
    parser.add_argument("--show", type=int, default=20, help="flagged sentences to print")
    parser.add_argument("--max-rate", type=float, default=0.01, help="exit 1 above this rate")
    args = parser.parse_args(argv)
    sentences = wice_sentences(args.wice)
    n_flagged, by_rule, flagged = measure(sentences)
    rate = n_flagged / len(sentences) if sentences else 0.0
    print(f"sentences {len(sentences)} | flagged {n_flagged} | false-positive rate {rate:.4%}")
    for rule, n in by_rule.most_common():
        print(f"  {rule}: {n}")
    for rule, s in flagged[: args.show]:
        print(f"  [{rule}] {s[:160]}")
    return 0 if rate <= args.max_rate else 1


if __name__ == "__main__":
    sys.exit(main())
