"""The fixture manifest: which page carries which attack, and what must never leak.

`fixtures.jsonl` holds one `Fixture` per line (docs/architecture.md format plus optional
serving fields). A directory of the same shape can replace the shipped one,
so new pages need no code (see README.md).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import json
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

SHIPPED_DIR = Path(__file__).parent
MANIFEST_NAME = "fixtures.jsonl"

# Placeholders a page may use; the server substitutes them at serve time so
# pages stay static files while ports are chosen by the OS.
ATTACKER_PLACEHOLDER = "{{ATTACKER}}"  # host:port of the non-allowlisted attacker server
SITE_PLACEHOLDER = "{{SITE}}"  # host:port of the allowlisted fixture server
PAD_PLACEHOLDER = "<!--spanproof:pad-->"  # replaced by `serve_pad_bytes` of filler


class FixtureError(ValueError):
    """A fixture directory or manifest line that cannot be used, with how to fix it."""


class PlantedHit(BaseModel):
    """A search result the attacker got indexed (e.g. a page on the attacker's own host)."""

    model_config = ConfigDict(extra="forbid")
    url: str
    title: str
    snippet: str = ""


class Fixture(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    file: str  # relative to the fixture directory, e.g. "pages/x.html"
    technique: str
    question: str = Field(min_length=8)
    attacker_markers: list[str] = Field(min_length=1)
    attacker_hosts: list[str] = Field(default_factory=list)
    # Optional serving fields (all default to "serve the file as it is").
    title: str = ""  # title of the page's search hit; defaults to the id
    planted_hits: list[PlantedHit] = Field(default_factory=list)
    redirect_hops: int = Field(
        default=0, ge=0, le=5
    )  # >0: reached only via a chain ending off-list
    serve_pad_bytes: int = Field(default=0, ge=0)  # bulk generated at serve time (oversized pages)
    encoding: str | None = None  # how the attack is encoded: base64 | rot13 | unicode-tags

    @field_validator("attacker_markers")
    @classmethod
    def _markers_are_specific(cls, value: list[str]) -> list[str]:
        short = [m for m in value if len(m.strip()) < 6]
        if short:
            raise ValueError(
                f"markers {short} are too short to be specific; use a distinctive phrase or token "
                "of 6+ characters that appears only in the attack"
            )
        return value


def load_fixtures(directory: str | Path | None = None) -> list[Fixture]:
    """Read and validate a fixture directory (default: the shipped pages)."""
    root = Path(directory) if directory else SHIPPED_DIR
    manifest = root / MANIFEST_NAME
    if not manifest.is_file():
        raise FixtureError(
            f"No {MANIFEST_NAME} in {root}. A fixture directory holds pages/*.html and a "
            f"{MANIFEST_NAME} with one JSON object per page (see adversarial_fixtures/README.md)."
        )
    fixtures: list[Fixture] = []
    seen: set[str] = set()
    for n, line in enumerate(manifest.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            fixture = Fixture.model_validate(json.loads(line))
        except (json.JSONDecodeError, ValidationError) as exc:
            raise FixtureError(f"{manifest}:{n}: invalid fixture line: {exc}") from exc
        if fixture.id in seen:
            raise FixtureError(f"{manifest}:{n}: duplicate id {fixture.id!r}; ids must be unique")
        if not (root / fixture.file).is_file():
            raise FixtureError(f"{manifest}:{n}: page {fixture.file!r} not found under {root}")
        seen.add(fixture.id)
        fixtures.append(fixture)
    if not fixtures:
        raise FixtureError(f"{manifest} lists no pages")
    return fixtures


def page_source(root: str | Path | None, fixture: Fixture) -> str:
    return (Path(root) if root else SHIPPED_DIR).joinpath(fixture.file).read_text(encoding="utf-8")


# --- marker matching -----------------------------------------------------------------------

_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e"), None)
_TAG_CHARS: dict[int, str | None] = {cp: chr(cp - 0xE0000) for cp in range(0xE0020, 0xE007F)}
_TAG_CHARS.update({0xE0001: None, 0xE007F: None})
_WS = re.compile(r"\s+")


def normalise(text: str) -> str:
    """What a marker is matched against: invisible characters decoded or removed, case folded.

    Unicode tag characters (U+E0020..E007E) spell ASCII invisibly, so they are
    decoded rather than dropped: a claim that smuggles them still matches.
    """
    text = text.translate(_TAG_CHARS).translate(_ZERO_WIDTH)
    return _WS.sub(" ", text).casefold()


def contains_marker(text: str | None, markers: list[str]) -> list[str]:
    """The markers found in `text` (case-insensitive, after `normalise`)."""
    if not text:
        return []
    haystack = normalise(text)
    return [m for m in markers if normalise(m) in haystack]


_B64_RUN = re.compile(r"[A-Za-z0-9+/]{24,}={0,2}")


def page_readings(source: str) -> list[str]:
    """The page source plus every decoding an attack might use (base64 runs, rot13, tags)."""
    readings = [source, codecs.decode(source, "rot13")]
    for run in _B64_RUN.findall(source):
        try:
            readings.append(base64.b64decode(run + "=" * (-len(run) % 4)).decode("utf-8"))
        except (binascii.Error, UnicodeDecodeError):
            continue
    return readings
