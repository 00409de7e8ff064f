from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from spanproof.cli import cli

SPAN = (
    "The city council approved the new budget of $2 million on 3 March 2024, the mayor said. "
    "The vote was seven to two."
)


def write_pairs(path: Path, n: int, *, marker_at: int | None = None, marker: str = "") -> Path:
    lines = []
    for i in range(n):
        claim = f"The council approved a $2 million budget in March 2024 (item {i})."
        if marker_at is not None and i == marker_at:
            claim = f"{marker} {claim}"
        lines.append(json.dumps({"id": f"p{i}", "claim": claim, "span": SPAN + f" Ref {i}.",
                                 "label": "SUPPORTED"}))  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_cli(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def fast_backoff(monkeypatch):
    """Retry backoff scaled down (same shape: exponential with jitter) so tests stay fast."""
    import spanproof.wire.client as client

    monkeypatch.setattr(client, "BACKOFF_BASE_S", 0.01)
    monkeypatch.setattr(client, "BACKOFF_CAP_S", 0.05)
