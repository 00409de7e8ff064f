"""The one reader of pair files (calibration sets, sensitivity sets, `verify --pairs`).

A pair file is JSONL, one ``Pair`` per line (docs/architecture.md, file formats). It may come from anyone, so
every way a line can be wrong is a line-numbered problem, never a traceback: bytes that are
not UTF-8 (or a binary file), JSON nested deeper than any pair needs, a line that is not an
object, a ``source.url`` that is not a string, an unknown label, a span over the cap, a
duplicate id.

``read_pair_lines`` returns the good pairs with their line numbers and one message per bad
line (``verify --skip-invalid`` judges the good ones); ``load_pairs`` refuses the file when
any line is bad (the gate and `calibrate` must not measure on part of a set).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from spanproof.core.verdict import LABELS, Pair

# Deeper than any pair needs (a pair is an object holding strings and one small object).
MAX_DEPTH = 32
# A span is at most what extract_quote returns; a claim is one sentence. Without a cap a
# megabyte claim took half a minute to judge and a 50 MB one never finished.
MAX_SPAN_CHARS = 4000
MAX_CLAIM_CHARS = 2000
PAIR_FIELDS = '{"id", "claim", "span", "label": "SUPPORTED|PARTIAL|NOT_SUPPORTED", "near_miss", "kind", "source"?}'


class PairSetError(ValueError):
    """A pair file that cannot be read; the message names the line and the fix."""


def _too_deep(line: str, limit: int = MAX_DEPTH) -> bool:
    """Does the JSON text nest brackets deeper than ``limit``? (strings skipped)"""
    if line.count("[") + line.count("{") <= limit:
        return False  # no deeper than its brackets in all (the walk below is per character)
    depth = 0
    in_string = escaped = False
    for ch in line:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def _problem_in(
    data: dict[str, Any], max_span_chars: int | None, max_claim_chars: int | None = None
) -> str | None:
    bad = [k for k in ("claim", "span") if not isinstance(data.get(k), str) or not data[k].strip()]
    if bad:
        return f"missing or empty {' and '.join(repr(k) for k in bad)} (strings are required)"
    if max_claim_chars is not None and len(data["claim"]) > max_claim_chars:
        return (
            f"claim is {len(data['claim'])} characters, over the {max_claim_chars}-character "
            "limit - a claim is one sentence; split it into atomic claims"
        )
    if max_span_chars is not None and len(data["span"]) > max_span_chars:
        return (
            f"span is {len(data['span'])} characters, over the {max_span_chars}-character limit "
            "- cite the narrowest span that holds the claim"
        )
    label = data.get("label")
    if label is not None and label not in LABELS:
        return f"label {label!r} is not one of {', '.join(LABELS)}"
    if "id" in data and not isinstance(data["id"], (str, int)):
        return f"id must be a string, not {type(data['id']).__name__}"
    source = data.get("source")
    if source is not None and not isinstance(source, dict):
        return f'source must be an object like {{"url": ...}}, not {type(source).__name__}'
    for holder, where in ((source or {}, "source."), (data, "")):
        for key in ("url", "retrieved_at"):
            if holder.get(key) is not None and not isinstance(holder[key], str):
                return f"{where}{key} must be a string, not {type(holder[key]).__name__}"
    return None


def _pair_from(data: dict[str, Any], line_no: int) -> Pair:
    """The Pair of a checked line: a missing id is ``line-N``; a top-level url/retrieved_at
    (accepted by `verify`) moves into ``source``."""
    fields = {k: v for k, v in data.items() if k in Pair.model_fields}
    fields["id"] = str(data.get("id") or f"line-{line_no}")
    moved = {k: data[k] for k in ("url", "retrieved_at") if data.get(k) is not None}
    if moved:
        fields["source"] = {**moved, **(data.get("source") or {})}
    return Pair.model_validate(fields)


class DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _no_duplicate_keys(items: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in items:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def iter_pair_lines(
    path: str | Path,
    *,
    max_span_chars: int | None = MAX_SPAN_CHARS,
    max_claim_chars: int | None = MAX_CLAIM_CHARS,
) -> Iterator[tuple[int, Pair | None, str | None]]:
    """``(line number, pair, None)`` for each good line and ``(line number, None, "line N: what
    is wrong")`` for each bad one, read one line at a time: a file of any size is read in the
    memory of one line (and the ids seen, for duplicates)."""
    path = Path(path)
    if not path.is_file():
        raise PairSetError(
            f"Pair file {str(path)!r} not found - pass a JSONL file of pairs (docs/architecture.md, file formats)."
        )
    with path.open("rb") as f:
        if b"\x00" in f.read(8192):
            raise PairSetError(
                f"{path} is not a text file (it holds NUL bytes); a pair file is UTF-8 JSONL, one "
                f"{PAIR_FIELDS} per line."
            )
        f.seek(0)
        seen: dict[str, int] = {}
        for n, chunk in enumerate(f, start=1):
            pair, problem = _read_line(
                chunk.removesuffix(b"\n"), n, max_span_chars, max_claim_chars
            )
            if pair is not None and pair.id in seen:
                problem = f"duplicate id {pair.id!r} (first on line {seen[pair.id]})"
                pair = None
            if problem is not None:
                yield n, None, f"line {n}: {problem}"
            elif pair is not None:
                seen[pair.id] = n
                yield n, pair, None


def _read_line(
    chunk: bytes, n: int, max_span_chars: int | None, max_claim_chars: int | None
) -> tuple[Pair | None, str | None]:
    """The pair on one line, or what is wrong with it; (None, None) for a blank line."""
    try:
        line = chunk.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, (
            f"not UTF-8 text (byte 0x{chunk[exc.start]:02x} at column {exc.start + 1}); "
            "save the file as UTF-8"
        )
    if not line.strip():
        return None, None
    if _too_deep(line):
        return None, f"JSON nested more than {MAX_DEPTH} levels deep; a pair is one flat object"
    try:
        data = json.loads(line, object_pairs_hook=_no_duplicate_keys)
    except DuplicateKey as exc:
        # json keeps the last value silently: a line whose "claim" or "label" appears twice
        # would be judged on whichever came last, not on what a reader of the line sees.
        return None, f"key {exc.key!r} appears twice; keep one"
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON ({exc.msg} at column {exc.colno})"
    except RecursionError:
        return None, "JSON nested too deeply; a pair is one flat object"
    if not isinstance(data, dict):
        return None, f"expected a JSON object, got {type(data).__name__}"
    problem = _problem_in(data, max_span_chars, max_claim_chars)
    if problem is not None:
        return None, problem
    try:
        return _pair_from(data, n), None
    except ValidationError as exc:
        err = exc.errors()[0]
        return None, f"{'.'.join(map(str, err['loc'])) or 'line'}: {err['msg']}"


def read_pair_lines(
    path: str | Path,
    *,
    max_span_chars: int | None = MAX_SPAN_CHARS,
    max_claim_chars: int | None = MAX_CLAIM_CHARS,
) -> tuple[list[tuple[int, Pair]], list[str]]:
    """(line number, pair) for every good line, and ``"line N: what is wrong"`` for each bad one."""
    pairs: list[tuple[int, Pair]] = []
    problems: list[str] = []
    for n, pair, problem in iter_pair_lines(
        path, max_span_chars=max_span_chars, max_claim_chars=max_claim_chars
    ):
        if problem is not None:
            problems.append(problem)
        elif pair is not None:
            pairs.append((n, pair))
    return pairs, problems


def load_pairs(path: str | Path) -> list[Pair]:
    """Every pair of the file, or PairSetError naming the bad lines (the first five) and the fix."""
    pairs, problems = read_pair_lines(path)
    if problems:
        located = [re.sub(r"^line (\d+): ", rf"{path}:\1: ", p) for p in problems[:5]]
        more = f"\n... and {len(problems) - 5} more bad lines" if len(problems) > 5 else ""
        raise PairSetError("\n".join(located) + more + f"\nEach line needs {PAIR_FIELDS}.")
    if not pairs:
        raise PairSetError(f"{path} holds no pairs; each line needs {PAIR_FIELDS}.")
    return [pair for _, pair in pairs]
