"""For each signal of the shipped rules judge, one training pair that shows it load-bearing:
the judge is right on it, and wrong once that signal's weights are taken out of the model.

tests/graders/test_rules_model.py holds one such pair per signal (``LOAD_BEARING``); after a
refit (``spanproof judge train``) the signals and weights change, and this script prints a
fresh table to paste there. WiCE development pairs are tried first (real claims), then the
synthetic pairs; the shortest pair that shows it wins, so the table stays readable.

    python scripts/load_bearing_cases.py > /tmp/load_bearing.txt

Exit 1 when some signal has no such pair (the signal then carries nothing a test can show:
say so, or drop it by refitting without it).
"""

from __future__ import annotations

import sys

from spanproof.graders.instructions import find_instructions
from spanproof.graders.rules.lexical import coverage, shared_words
from spanproof.graders.rules.model import load_params
from spanproof.graders.rules.signals import measure

from spanproof.judge_training.data import Row, training_rows


def main() -> int:
    params = load_params()
    reduced = {s: params.without(s) for s in params.signals}
    rows = sorted(training_rows(), key=lambda r: (r.origin != "wice", len(r.claim) + len(r.span)))
    found: dict[str, Row] = {}
    for r in rows:
        if len(found) == len(reduced):
            break
        if find_instructions(r.span):
            continue  # the judge answers these before any signal is read
        values = measure(r.claim, r.span, params.signals)
        cov, shared = coverage(r.claim, r.span)[0], shared_words(r.claim, r.span)
        if params.decide(params.probabilities(values), cov, shared) != r.label:
            continue
        for signal, other in reduced.items():
            if (
                signal not in found
                and other.decide(other.probabilities(values), cov, shared) != r.label
            ):
                found[signal] = r
    for signal in params.signals:
        if signal in found:
            r = found[signal]
            print(f"    ({signal!r}, {r.claim!r},\n     {r.span!r}, {r.label!r}),  # {r.origin}")
        else:
            print(f"no pair shows {signal} load-bearing", file=sys.stderr)
    return 0 if len(found) == len(reduced) else 1


if __name__ == "__main__":
    raise SystemExit(main())
