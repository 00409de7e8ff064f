"""Plots as inline PNG data URIs, so an HTML report is one self-contained file."""

from __future__ import annotations

import base64
import io
import math
from typing import Any

import matplotlib

matplotlib.use("Agg")  # headless: CI has no display
import matplotlib.pyplot as plt  # noqa: E402


def _to_data_uri(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def confusion_matrix(
    labels: list[str], matrix: list[list[int]], title: str, columns: list[str] | None = None
) -> str:
    """Rows are the human label, columns the judge's verdict (possibly with an ERROR column)."""
    columns = columns or labels
    fig, ax = plt.subplots(figsize=(3.8, 3.4))
    ax.imshow(matrix, cmap="Blues")

    def short(names: list[str]) -> list[str]:
        return [n.replace("NOT_SUPPORTED", "NOT_SUP") for n in names]

    ax.set_xticks(range(len(columns)), short(columns), rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(labels)), short(labels), fontsize=8)
    ax.set_xlabel("judge verdict")
    ax.set_ylabel("human label")
    peak = max((max(r) for r in matrix if r), default=0) or 1
    for i, row in enumerate(matrix):
        for j, n in enumerate(row):
            ax.text(
                j, i, str(n), ha="center", va="center", color="white" if n > peak / 2 else "black"
            )
    ax.set_title(title, fontsize=9)
    return _to_data_uri(fig)


def hbars(values: dict[str, float], title: str, xlabel: str, threshold: float | None = None) -> str:
    names = list(values)
    fig, ax = plt.subplots(figsize=(6, 0.35 * len(names) + 1.2))
    colors = [
        "#c0392b" if threshold is not None and values[n] < threshold else "#2e86c1" for n in names
    ]
    ax.barh(names, [values[n] for n in names], color=colors)
    if threshold is not None:
        ax.axvline(
            threshold, color="black", linestyle="--", linewidth=1, label=f"threshold {threshold}"
        )
        ax.legend(fontsize=8, loc="lower right")
    ax.set_xlim(0, max(1.0, max(values.values(), default=0) * 1.05))
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.tick_params(axis="y", labelsize=8)
    ax.invert_yaxis()
    return _to_data_uri(fig)


def paired_bars(
    groups: list[str], series: dict[str, list[float | None]], title: str, ylabel: str
) -> str:
    fig, ax = plt.subplots(figsize=(max(5, 0.5 * len(groups) + 2), 3.2))
    width = 0.8 / max(1, len(series))
    for k, (name, vals) in enumerate(series.items()):
        xs = [i + k * width for i in range(len(groups))]
        ax.bar(xs, [v if v is not None else 0 for v in vals], width=width, label=name)
    ax.set_xticks(
        [i + width * (len(series) - 1) / 2 for i in range(len(groups))],
        groups,
        rotation=60,
        ha="right",
        fontsize=7,
    )
    for i in range(len(groups)):  # say so where there is nothing to draw, rather than leave a gap
        if all(vals[i] is None for vals in series.values()):
            ax.text(i + width * (len(series) - 1) / 2, 0.02, "no claims", rotation=90, ha="center", va="bottom",
                    fontsize=6, color="#777")  # fmt: skip
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    return _to_data_uri(fig)


def pre_post_by_day(
    days: list[str],
    *,
    pre: list[float | None],
    post: list[float | None],
    runs: list[int],
    title: str,
) -> str:
    """Pre- and post-prune groundedness, one point per day. Each series has its own colour,
    line style and marker, and the two sit a little apart on each day, so one that equals the
    other stays visible beside it rather than hidden under it; each day says how many runs."""
    return _to_data_uri(pre_post_figure(days, pre=pre, post=post, runs=runs, title=title))


def pre_post_figure(
    days: list[str],
    *,
    pre: list[float | None],
    post: list[float | None],
    runs: list[int],
    title: str,
) -> Any:
    """The figure `pre_post_by_day` draws (its lines are what a test reads)."""
    fig, ax = plt.subplots(figsize=(max(5.5, 0.7 * len(days) + 2.5), 3.2))
    xs = list(range(len(days)))
    nudge = 0.08 if len(days) > 1 else 0.03

    def line(vals: list[float | None], shift: float, **style: Any) -> None:
        ax.plot([x + shift for x in xs], [math.nan if v is None else v for v in vals], **style)

    line(
        pre,
        -nudge,
        color="#d35400",
        linestyle="--",
        marker="s",
        markersize=7,
        markerfacecolor="white",
        markeredgewidth=1.8,
        label="pre-prune: share of drafted claims SUPPORTED",
    )
    line(post, nudge, color="#1f618d", linestyle="-", marker="o", markersize=6,
         label="post-prune: share of published claims SUPPORTED")  # fmt: skip
    for x, n in zip(xs, runs, strict=True):
        ax.text(x, 0.02, f"{n} run{'s' if n != 1 else ''}", ha="center", fontsize=7, color="#555")
    ax.set_xticks(xs, days, rotation=30 if len(days) > 4 else 0, ha="right" if len(days) > 4 else "center",
                  fontsize=8)  # fmt: skip
    ax.set_xlim(-0.5, len(days) - 0.5)
    ax.set_ylim(0, 1.12)
    ax.set_ylabel("share SUPPORTED (pooled per day)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="lower right", bbox_to_anchor=(1.0, 0.08))
    ax.grid(axis="y", color="#eee")
    return fig


def reliability(bins: list[dict[str, Any]], title: str, ece: float | None) -> str:
    """Reliability diagram: per confidence bin, how often the judge was right (bars) against
    the diagonal a perfectly calibrated judge would follow; bar labels give each bin's n."""
    fig, ax = plt.subplots(figsize=(4.2, 3.6))
    ax.plot([0, 1], [0, 1], color="#888", linestyle="--", linewidth=1, label="calibrated")
    xs = [(b["low"] + b["high"]) / 2 for b in bins if b["n"]]
    accs = [b["accuracy"] for b in bins if b["n"]]
    width = (bins[0]["high"] - bins[0]["low"]) * 0.9 if bins else 0.1
    ax.bar(xs, accs, width=width, color="#2e86c1", alpha=0.8, label="share right")
    for x, b in zip(xs, [b for b in bins if b["n"]], strict=True):
        ax.text(x, min(1.0, b["accuracy"]) + 0.02, str(b["n"]), ha="center", fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.08)
    ax.set_xlabel("stated confidence")
    ax.set_ylabel("share of verdicts right")
    ax.set_title(title + (f" (ECE {ece:.3f})" if ece is not None else ""), fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    return _to_data_uri(fig)
