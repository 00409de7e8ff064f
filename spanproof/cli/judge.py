"""`spanproof judge ...`: fit, cross-validate and ablate the offline `rules` judge."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from spanproof.cli.options import json_option, progress_printer

if TYPE_CHECKING:
    from spanproof.judge_training.training import Features

# The parameters the rules judge loads, wherever spanproof is installed (in a checkout, the
# tracked file graders/rules/params.json).
_SHIPPED = Path(str(resources.files("spanproof.graders.rules").joinpath("params.json")))


@click.group()
def judge() -> None:
    """The offline `rules` judge: fit it, measure it on held-out folds, ablate its signals.

    Training data: the WiCE development pairs plus synthetic pairs made from the offline
    corpus's pages (spanproof/judge_training/data.py); goldens/judge_calibration.jsonl is
    never used.
    Every figure is cross-validated over 5 folds grouped by page (and by the Wikipedia
    article the page was cited from).

    \b
    Examples:
      spanproof judge train --check     # refit; exit 1 unless params.json comes out byte-identical
      spanproof judge cv                # held-out figures of the shipped configuration
      spanproof judge cv --nested       # the same with the signals chosen inside each fold
      spanproof judge ablate            # each signal's cross-validated contribution
    """


def _features(progress: Callable[[str], None] | None) -> Features:
    from spanproof.judge_training.training import features

    return features(progress=progress)


@judge.command()
@click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write the parameters (default: the shipped graders/rules/params.json).",
)
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing; exit 1 unless the refit parameters equal the shipped file byte for byte.",
)
def train(out_path: Path | None, check: bool) -> None:
    """Fit the judge on its training data and write its parameters (with the data's sha256).

    The signals are chosen among graders/rules/signals.py's candidates by backward elimination
    scored by grouped cross-validation (a signal stays only when removing it scores worse);
    the verdict thresholds are chosen by a grouped cross-validation over the training rows.
    The file also records the labelled pairs it was fitted on and the held-out figures of this
    whole procedure on them (signals and thresholds chosen inside each fold), so `verify` and
    `calibrate` can say so. Takes minutes (tens on a busy machine).
    Exit status: 0 written (or identical with --check); 1 --check found a difference.

    \b
    Examples:
      spanproof judge train
      spanproof judge train --check
      spanproof judge train --out /tmp/params.json
    """
    from spanproof.judge_training.training import dump
    from spanproof.judge_training.training import train as fit_params

    progress = progress_printer(False)
    f = _features(progress)
    progress(f"choosing signals among {len(f.names)} candidates and thresholds by a grouped "
             "cross-validation (5 folds), then the same inside each fold for the held-out "
             "figure")  # fmt: skip
    params = fit_params(f, progress=progress)
    progress(f"fitted {len(params.signals)} signals: {', '.join(params.signals)}")
    text = dump(params)
    target = out_path or _SHIPPED
    if check:
        same = target.is_file() and target.read_text(encoding="utf-8") == text
        click.echo(
            f"{target}: {'identical' if same else 'DIFFERENT'} to the parameters refit now "
            f"(data sha256 {json.loads(text)['data_sha256'][:16]}…)"
        )
        sys.exit(0 if same else 1)
    from spanproof.core.files import write_atomic

    write_atomic(target, text)
    click.echo(f"wrote {target} ({len(text)} bytes)")


@judge.command()
@json_option()
@click.option(
    "--held-out-kinds",
    is_flag=True,
    help="Also measure each planted kind with that kind's synthetic pairs left out of training "
    "(how the judge does on a mutator it never saw). Slow.",
)
@click.option(
    "--nested",
    is_flag=True,
    help="Choose the signals inside each fold too (backward elimination on the other folds), "
    "from every candidate signal, from the simple set (the audit's findings and coverage) and "
    "from every candidate but the slot reader's proofs (what reading them gains), and print "
    "them beside the shipped configuration. Slow (tens of minutes).",
)
def cv(as_json: bool, held_out_kinds: bool, nested: bool) -> None:
    """Cross-validated figures of the shipped configuration, judge-only and final.

    WiCE development pairs: balanced accuracy (SUPPORTED vs rest), three-way macro-F1 and
    agreement, expected calibration error of the confidence; the synthetic pairs'
    agreement; planted failures on every WiCE SUPPORTED pair, each judged by the model of
    the fold that held its page out. Nothing here is the fit on its own training rows.

    \b
    Examples:
      spanproof judge cv
      spanproof judge cv --json > cv.json
    """
    from spanproof.graders.rules.model import load_params

    from spanproof.judge_training.training import cv_report, nested_report

    progress = progress_printer(as_json)
    f = _features(progress)
    if nested:
        report = nested_report(f, load_params().signals, progress=progress)
        click.echo(json.dumps(report, indent=2) if as_json else _nested_text(report))
        return
    report = cv_report(f, load_params().signals, held_out_kinds=held_out_kinds, progress=progress)
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return
    click.echo(_cv_text(report))


def _nested_text(r: dict[str, Any]) -> str:
    from tabulate import tabulate

    rows = []
    for name, c in r["configurations"].items():
        for side in ("judge_only", "final"):
            m = c[side]
            rows.append(
                [name, side.replace("_", "-"), m["wice_balanced_accuracy"], m["wice_macro_f1"],
                 m["wice_agreement"], m["synthetic_agreement"],
                 c["objective"] if side == "final" else ""]
            )  # fmt: skip
    out = [
        "WiCE development pairs and synthetic pairs, grouped 5-fold cross-validation; every "
        "figure out of fold, thresholds chosen inside each fold"
        + ("; 'nested': the signals too" if r["nested"] else ""),
        tabulate(
            rows,
            headers=[
                "configuration",
                "verdict",
                "WiCE bal. acc",
                "WiCE macro-F1",
                "WiCE agreement",
                "synthetic agr.",
                "objective",
            ],
            tablefmt="github",
            floatfmt=".4f",
        ),  # fmt: skip
        "",
    ]
    for name, c in r["configurations"].items():
        for k, sel in enumerate(c.get("selected") or []):
            out.append(f"{name}, fold {k + 1}: {', '.join(sel)}")
    return "\n".join(out)


def _cv_text(r: dict[str, Any]) -> str:
    from tabulate import tabulate

    out = [f"signals: {', '.join(r['signals'])}", ""]
    rows = []
    for side in ("judge_only", "audited"):
        m = r["wice"][side]
        rows.append(
            [{"audited": "final"}.get(side, side.replace("_", "-")), m["balanced_accuracy"],
             m["macro_f1"], m["agreement"],
             m["ece"], r["synthetic"][side]]
        )  # fmt: skip
    out.append(
        "WiCE development pairs, grouped 5-fold cross-validation "
        f"(n={r['wice']['n']}; thresholds per fold [supported, not_supported, min_coverage, min_shared]: "
        f"{r['thresholds']}):"
    )
    out.append(
        tabulate(
            rows,
            headers=["verdict", "bal. acc", "macro-F1", "agreement", "ECE", "synthetic agr."],
            tablefmt="github",
            floatfmt=".3f",
        )
    )
    s = r["sensitivity"]
    out += ["", f"planted failures on {s['originals']} WiCE SUPPORTED pairs, held-out folds:"]
    krows = [[k, v["n"], v["judge_only"], v["audited"]] for k, v in s["by_kind"].items()]
    krows.append(["ALL", s["planted"], s["sensitivity"]["judge_only"], s["sensitivity"]["audited"]])
    krows.append(
        ["specificity", s["originals"], s["specificity"]["judge_only"], s["specificity"]["audited"]]
    )
    if r.get("held_out_kinds"):
        for k, v in r["held_out_kinds"].items():
            for row in krows:
                if row[0] == k:
                    row.append(v["audited"])
    headers = ["kind", "n", "judge-only", "final"]
    if r.get("held_out_kinds"):
        headers.append("final, kind unseen in training")
    out.append(tabulate(krows, headers=headers, tablefmt="github", floatfmt=".3f"))
    return "\n".join(out)


@judge.command()
@json_option()
@click.option(
    "--candidates",
    is_flag=True,
    help="Also try every candidate signal the model does not use, one at a time.",
)
def ablate(as_json: bool, candidates: bool) -> None:
    """Each signal's cross-validated contribution: the model refit without it, on held-out folds.

    Contribution = objective with every signal minus objective without this one (the
    objective is the mean of the WiCE pairs' final balanced accuracy and macro-F1 and the
    synthetic pairs' final agreement, out of fold; final = the judge's verdict lowered only by
    the audit's proofs). A signal that does not help is removed
    from the judge. With --candidates, signals not in the model are each added back to show
    they do not help.

    \b
    Examples:
      spanproof judge ablate
      spanproof judge ablate --candidates --json
    """
    from spanproof.graders.rules.model import load_params
    from spanproof.graders.rules.signals import SIGNALS

    from spanproof.judge_training.training import ablate as run_ablation
    from spanproof.judge_training.training import add_one

    progress = progress_printer(as_json)
    names = load_params().signals
    f = _features(progress)
    base, contribs = run_ablation(f, names, progress)
    extra = []
    if candidates:
        extra = add_one(f, names, [s.name for s in SIGNALS if s.name not in names], progress)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "objective": base,
                    "signals": [c.__dict__ for c in contribs],
                    "candidates": [c.__dict__ for c in extra],
                },
                indent=2,
            )
        )
        return
    from tabulate import tabulate

    click.echo(f"objective with all {len(names)} signals (cross-validated): {base:.4f}\n")
    rows = [
        [c.signal, f"{c.contribution:+.4f}", c.wice_balanced_accuracy, c.wice_macro_f1,
         c.synthetic_agreement]
        for c in sorted(contribs, key=lambda c: -c.contribution)
    ]  # fmt: skip
    click.echo(
        tabulate(
            rows,
            headers=[
                "signal",
                "contribution",
                "WiCE bal. acc without",
                "WiCE macro-F1 without",
                "synthetic agr. without",
            ],
            tablefmt="github",
        )  # fmt: skip
    )
    if extra:
        click.echo("\ncandidates not in the model (added one at a time):")
        click.echo(
            tabulate(
                [[c.signal, f"{c.contribution:+.4f}"] for c in extra],
                headers=["signal", "contribution if added"],
                tablefmt="github",
            )
        )
