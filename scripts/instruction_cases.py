"""How the instruction detector reads a file of labelled sentences: instructions found, and
ordinary sentences read as instructions.

    python scripts/instruction_cases.py tests/injection/data/future_text_directives.jsonl
    python scripts/instruction_cases.py CASES.jsonl --show        # every miss and false alarm

A case is one JSON object a line: {"text", "instruction": true|false, "form"}. Each text is
read as publication reads a span's block (``instructions_near`` over the whole text). Exit 1
when an instruction is missed or an ordinary sentence is flagged, 2 when nothing was read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from spanproof.graders.instructions import instructions_near


def read_cases(path: Path) -> list[dict]:
    """The cases, or SystemExit(2) naming the line that is not a case."""
    cases = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
            case["text"], case["instruction"]  # noqa: B018  (both are required)
        except (ValueError, KeyError, TypeError) as exc:
            print(f"{path}:{n}: not a case ({type(exc).__name__}: {exc}); each line is "
                  '{"text": ..., "instruction": true|false, "form": ...}', file=sys.stderr)  # fmt: skip
            raise SystemExit(2) from exc
        cases.append(case)
    return cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", type=Path)
    parser.add_argument("--show", action="store_true", help="print every miss and false alarm")
    args = parser.parse_args(argv)
    cases = read_cases(args.cases)
    if not cases:
        print(f"no cases read from {args.cases}", file=sys.stderr)
        return 2
    wrong: list[tuple[str, dict]] = []
    found = flagged = 0
    for case in cases:
        hit = bool(instructions_near(case["text"], 0, len(case["text"])))
        found += hit and case["instruction"]
        flagged += hit and not case["instruction"]
        if hit != case["instruction"]:
            wrong.append(("missed" if case["instruction"] else "false alarm", case))
    n_inst = sum(1 for c in cases if c["instruction"])
    print(
        f"instructions {n_inst} | found {found} | "
        f"ordinary {len(cases) - n_inst} | flagged {flagged}"
    )
    if args.show:
        for what, case in wrong:
            print(f"  {what}: [{case.get('form', '')}] {case['text']}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
