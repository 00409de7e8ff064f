"""Times in the store are naive UTC datetimes (the same on SQLite and PostgreSQL)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import overload

_AGE_RE = re.compile(r"^\s*(\d{1,12})\s*([hdw])\s*$")
MAX_AGE = timedelta(days=365 * 200)


@overload
def utc_naive(value: datetime) -> datetime: ...
@overload
def utc_naive(value: str | datetime | None) -> datetime | None: ...
def utc_naive(value: str | datetime | None) -> datetime | None:
    """An ISO string or datetime as naive UTC; None or an unparseable string gives None."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value


def now_naive() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def iso_z(value: datetime | None) -> str | None:
    """Naive UTC back to the records' ISO form ("2026-01-01T00:00:00Z")."""
    if value is None:
        return None
    return value.replace(microsecond=0).isoformat() + "Z"


def parse_age(text: str, option: str = "--since") -> timedelta:
    """'24h', '7d', '2w', '90d' -> timedelta. Anything else, or more than 200 years, is a
    ValueError whose message shows the accepted forms."""
    m = _AGE_RE.match(text or "")
    if not m:
        raise ValueError(f"{option} {text!r} not understood; use a number and a unit: 24h, 7d, 2w")
    n, unit = int(m.group(1)), m.group(2)
    hours = n * {"h": 1, "d": 24, "w": 24 * 7}[unit]
    if hours > MAX_AGE.days * 24:
        raise ValueError(
            f"{option} {text!r} reaches back more than 200 years; use at most "
            f"{MAX_AGE.days}d (e.g. {option} 3650d for ten years)"
        )
    return timedelta(hours=hours)
