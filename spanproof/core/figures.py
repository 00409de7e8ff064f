"""How a figure is written for reading: one precision in every table and message (terminal,
markdown, JUnit messages, grade), while JSON and stored results keep the value as computed."""

from __future__ import annotations


def format_value(value: float | int | None) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)
