"""The bench's data as shipped: calibration triples, golden questions, WiCE development pairs
and pages, the offline corpus. Read through ``shipped`` so the same names work in a checkout
and in any install."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def shipped(*parts: str) -> Path:
    """The path of a shipped data file (``shipped("questions.jsonl")``, ``shipped("corpus",
    NAME)``); the file may not exist, which the caller reports as it would any missing path."""
    return Path(str(resources.files(__name__).joinpath(*parts)))
