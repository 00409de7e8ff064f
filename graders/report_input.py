"""Read another agent's cited report into sentences, each with the URLs that cite it.

Two input shapes are accepted:

- Markdown, cited with inline links ``[text](url)``, reference links ``[text][ref]``
  plus ``[ref]: url``, footnotes ``[^1]`` / ``[1]`` mapped to URLs by definition
  lines (``[^1]: ...url...``, ``[1]: url`` or ``[1] url``), or angle-bracket autolinks
  ``<https://...>``.
- JSON, ``{"claims": [{"text": ..., "citations": [url, ...]}]}`` or
  ``{"report": "...markdown..."}``.

A citation that ends a paragraph is applied to every sentence of that paragraph that
carries no citation of its own, and is marked ``scope="paragraph"``: readers take it
that way, and it is how one real source lends its authority to sentences it never
said. The grader keeps that scope visible instead of pretending each sentence was
cited on its own.

Malformed input raises ``ReportFormatError`` naming the line and how to fix it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from spanproof.sentences import sentence_spans

CitationStyle = Literal["inline", "reference", "footnote", "autolink", "json"]
ReportFormat = Literal["md", "json"]


class ReportFormatError(ValueError):
    """The report cannot be read; the message names the line and the fix."""

    def __init__(self, message: str, line: int | None = None, source: str = "") -> None:
        where = f"{source}:" if source else ""
        where += f"line {line}: " if line is not None else ""
        super().__init__(where + message)
        self.line = line
        self.source = source


class Citation(BaseModel):
    url: str
    marker: str  # as written: "[^1]", "[3]", "[text](url)", "<url>", "[text][ref]", "json"
    style: CitationStyle
    # "sentence": written on this sentence; "paragraph": written once at the end of a
    # paragraph and taken to cover sentences that cite nothing themselves.
    scope: Literal["sentence", "paragraph"] = "sentence"
    line: int  # where the marker was written
    occurrence: str  # one written marker; sentences sharing a marker share this id


class ReportSentence(BaseModel):
    index: int
    paragraph: int
    text: str  # link markup flattened, citation markers removed
    line: int  # first line of the sentence in the input
    citations: list[Citation] = Field(default_factory=list)


class ParsedReport(BaseModel):
    source: str
    format: ReportFormat
    sentences: list[ReportSentence]

    @property
    def cited_urls(self) -> list[str]:
        seen: dict[str, None] = {}
        for sentence in self.sentences:
            for citation in sentence.citations:
                seen.setdefault(citation.url, None)
        return list(seen)


# --- markdown ---------------------------------------------------------------------------

_DEF_RE = re.compile(r"^\s{0,3}\[(\^?[^\]\s][^\]]*)\]:\s*(.*)$")  # [ref]: url / [^1]: text
_NUMBERED_DEF_RE = re.compile(r"^\s{0,3}\[(\d+)\]\s+(<?https?://\S+?>?)\s*(?:\s.*)?$")  # [1] url
_URL_IN_TEXT_RE = re.compile(r"https?://[^\s<>\[\]]+")
_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s")
_SOURCES_HEADING_RE = re.compile(
    r"^\s{0,3}#{1,6}\s+(sources|references|bibliography|citations|works cited|notes|footnotes|"
    r"further reading|links)\b",
    re.IGNORECASE,
)
_RULE_RE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_FENCE_RE = re.compile(r"^\s{0,3}(```|~~~)")
_LIST_ITEM_RE = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+")
_TABLE_RE = re.compile(r"^\s*\|")

# Order matters: the first alternative that matches at a position wins.
_INLINE_RE = re.compile(
    r"""
    (?P<image>!\[[^\]]*\]\([^)]*\))                               # images are not citations
  | \[(?P<itext>[^\]]*)\]\((?P<iurl>[^)\s]*)(?:\s+"[^"]*")?\)       # [text](url "title")
  | \[(?P<rtext>[^\]]+)\]\[(?P<rref>[^\]]*)\]                       # [text][ref] / [text][]
  | \[\^(?P<fn>[^\]\s]+)\]                                        # [^1]
  | \[(?P<num>\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3})*)\](?!\()          # [1], [1, 2], [1-3]
  | <(?P<auto>https?://[^>\s]+)>                                  # <https://...>
  | (?P<bare>https?://[^\s<>\[\]()]+[^\s<>\[\]().,;:!?'"])                # bare URL (GFM)
    """,
    re.VERBOSE,
)
_UNCLOSED_LINK_RE = re.compile(r"\[[^\]]*\]\((?![^)]*\))")


@dataclass
class _Paragraph:
    lines: list[tuple[int, str]]  # (line number, text)


@dataclass
class _Marker:
    pos: int  # offset in the flattened paragraph text
    citations: list[Citation] = field(default_factory=list)


def _is_absolute_http(url: str) -> bool:
    return bool(
        re.match(r"^https?://[^/\s]+\.[^/\s]+", url)
        or re.match(r"^https?://(localhost|127\.0\.0\.1)(:\d+)?(/|$)", url)
    )


def _definition_url(body: str) -> str | None:
    body = body.strip()
    m = _URL_IN_TEXT_RE.search(body)
    if not m:
        return None
    url = m.group(0)
    # Trailing punctuation belongs to the sentence, not the URL; a ")" only when unbalanced.
    while url and (url[-1] in ".,;:!?'\"" or (url[-1] == ")" and url.count("(") < url.count(")"))):
        url = url[:-1]
    return url


def _collect_definitions(
    lines: list[str], source: str
) -> tuple[dict[str, tuple[str, int]], set[int]]:
    """Reference and footnote definitions: key (lower-cased, '^' kept) -> (url, line)."""
    defs: dict[str, tuple[str, int]] = {}
    def_lines: set[int] = set()
    in_fence = False
    for number, line in enumerate(lines, start=1):
        if _FENCE_RE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        m = _DEF_RE.match(line)
        numbered = None if m else _NUMBERED_DEF_RE.match(line)
        if not m and not numbered:
            continue
        key, body = (m.group(1), m.group(2)) if m else (numbered.group(1), numbered.group(2))
        url = _definition_url(body)
        if url is None:
            raise ReportFormatError(
                f"the definition of [{key}] has no URL; write it as '[{key}]: https://...'",
                number,
                source,
            )
        if not _is_absolute_http(url):
            raise ReportFormatError(
                f"the definition of [{key}] points at {url!r}, which is not an absolute "
                "http(s) URL; a grader can only fetch full URLs",
                number,
                source,
            )
        defs[key.lower()] = (url, number)
        def_lines.add(number)
    return defs, def_lines


def _paragraphs(lines: list[str], skip: set[int]) -> list[_Paragraph]:
    """Blocks of prose: blank lines, headings, list items, fences and tables separate them."""
    out: list[_Paragraph] = []
    current: list[tuple[int, str]] = []
    in_fence = False
    in_sources = False

    def close() -> None:
        nonlocal current
        if current:
            out.append(_Paragraph(current))
        current = []

    for number, raw in enumerate(lines, start=1):
        if _FENCE_RE.match(raw):
            close()
            in_fence = not in_fence
            continue
        if in_fence or number in skip:
            close()
            continue
        line = raw.rstrip()
        stripped = re.sub(r"^\s{0,3}(>\s?)+", "", line)  # block quotes read as prose
        if not stripped.strip():
            close()
            continue
        if _HEADING_RE.match(stripped):
            close()
            # A "Sources" / "References" section lists where claims came from; it is not prose.
            in_sources = bool(_SOURCES_HEADING_RE.match(stripped))
            continue
        if _RULE_RE.match(stripped) or _TABLE_RE.match(stripped):
            close()
            continue
        if in_sources:
            continue
        item = _LIST_ITEM_RE.match(stripped)
        if item:
            close()  # each list item is its own paragraph
            stripped = stripped[item.end() :]
        current.append((number, stripped.strip()))
    close()
    return out


def _flatten(
    paragraph: _Paragraph,
    defs: dict[str, tuple[str, int]],
    source: str,
    counter: list[int],
) -> tuple[str, list[int], list[_Marker]]:
    """Flatten a paragraph's markup; return text, the line of each char, and citation markers."""
    text_parts: list[str] = []
    char_lines: list[int] = []
    markers: list[_Marker] = []
    length = 0

    def emit(s: str, line: int) -> None:
        nonlocal length
        text_parts.append(s)
        char_lines.extend([line] * len(s))
        length += len(s)

    def cite(url: str, marker: str, style: CitationStyle, line: int) -> Citation:
        counter[0] += 1
        return Citation(url=url, marker=marker, style=style, line=line, occurrence=f"c{counter[0]}")

    for i, (line_no, line) in enumerate(paragraph.lines):
        if i:
            emit(" ", line_no)
        unclosed = _UNCLOSED_LINK_RE.search(line)
        if unclosed and not _INLINE_RE.match(line, unclosed.start()):
            raise ReportFormatError(
                f"the link starting {line[unclosed.start() : unclosed.start() + 30]!r} is never "
                "closed; write it as [text](https://...)",
                line_no,
                source,
            )
        pos = 0
        for m in _INLINE_RE.finditer(line):
            emit(line[pos : m.start()], line_no)
            pos = m.end()
            found: list[Citation] = []
            if m.group("image") is not None:
                continue
            if m.group("iurl") is not None:
                url = m.group("iurl")
                if not _is_absolute_http(url):
                    raise ReportFormatError(
                        f"the link {m.group(0)!r} points at {url!r}, which is not an absolute "
                        "http(s) URL; a grader can only fetch full URLs",
                        line_no,
                        source,
                    )
                label = m.group("itext")
                # A link that is only a source label ("(Reuters)", "[source]") is a citation,
                # not words of the sentence; a link over prose keeps its words.
                before = "".join(text_parts).rstrip()
                if not _is_source_label(label, before, line[m.end() :]):
                    emit(label, line_no)
                found.append(cite(url, m.group(0), "inline", line_no))
            elif m.group("rtext") is not None:
                ref = (m.group("rref") or m.group("rtext")).lower()
                if ref not in defs:
                    raise ReportFormatError(
                        f"the reference link {m.group(0)!r} has no definition; add a line "
                        f"'[{m.group('rref') or m.group('rtext')}]: https://...'",
                        line_no,
                        source,
                    )
                label = m.group("rtext")
                before = "".join(text_parts).rstrip()
                if not _is_source_label(label, before, line[m.end() :]):
                    emit(label, line_no)
                found.append(cite(defs[ref][0], m.group(0), "reference", line_no))
            elif m.group("fn") is not None:
                key = "^" + m.group("fn").lower()
                if key not in defs:
                    raise ReportFormatError(
                        f"the footnote {m.group(0)!r} has no definition; add a line "
                        f"'{m.group(0)}: https://...'",
                        line_no,
                        source,
                    )
                found.append(cite(defs[key][0], m.group(0), "footnote", line_no))
            elif m.group("num") is not None:
                numbers = _expand_numbers(m.group("num"))
                if not all(str(n) in defs for n in numbers):
                    if not any(k.isdigit() for k in defs):
                        emit(m.group(0), line_no)  # no numbered sources at all: just text
                        continue
                    missing = next(n for n in numbers if str(n) not in defs)
                    raise ReportFormatError(
                        f"the citation {m.group(0)!r} refers to source [{missing}], which is "
                        f"never defined; add a line '[{missing}]: https://...'",
                        line_no,
                        source,
                    )
                for n in numbers:
                    found.append(cite(defs[str(n)][0], f"[{n}]", "footnote", line_no))
            elif m.group("auto") is not None:
                found.append(cite(m.group("auto"), m.group(0), "autolink", line_no))
            elif m.group("bare") is not None:
                found.append(cite(m.group("bare"), m.group(0), "autolink", line_no))
            if found:
                markers.append(_Marker(pos=length, citations=found))
        emit(line[pos:], line_no)

    text = "".join(text_parts)
    text, char_lines, markers = _tidy(text, char_lines, markers)
    return text, char_lines, markers


def _expand_numbers(spec: str) -> list[int]:
    out: list[int] = []
    for part in re.split(r"\s*,\s*", spec):
        bounds = re.split(r"\s*[\u2013-]\s*", part)
        if len(bounds) == 2:
            lo, hi = int(bounds[0]), int(bounds[1])
            out.extend(range(lo, hi + 1) if 0 < hi - lo < 20 else [lo, hi])
        else:
            out.append(int(bounds[0]))
    return out


def _is_source_label(label: str, before: str, after: str) -> bool:
    """A link is a bare citation when it sits in its own parentheses or after the full stop."""
    label = label.strip()
    if not label:
        return True
    if before.endswith("(") and after.lstrip().startswith(")"):
        return True
    if before.endswith((".", "!", "?")) and len(label.split()) <= 4:
        # "Sales rose. [Reuters](u)" is a label; "Sales rose. [Reuters](u) reported ..." is prose.
        rest = after.lstrip()
        return not rest or rest[0] in "[(<.,;" or rest[0].isupper()
    return bool(re.fullmatch(r"(source|link|here|ref|\d+)", label, re.IGNORECASE))


def _tidy(
    text: str, char_lines: list[int], markers: list[_Marker]
) -> tuple[str, list[int], list[_Marker]]:
    """Drop what removing markers left behind ('()', doubled spaces, space before a stop)."""
    drop: set[int] = set()
    for m in re.finditer(r"\(\s*(?:[,;]\s*)*\)", text):
        drop.update(range(m.start(), m.end()))
    out_chars: list[str] = []
    out_lines: list[int] = []
    new_pos = [0] * (len(text) + 1)
    for i, c in enumerate(text):
        new_pos[i] = len(out_chars)
        if i in drop:
            continue
        if c.isspace():
            if out_chars and out_chars[-1] != " ":
                out_chars.append(" ")
                out_lines.append(char_lines[i])
            continue
        if c in ".,;:!?" and out_chars and out_chars[-1] == " ":
            out_chars.pop()  # "12% [1]." leaves "12% ." behind
            out_lines.pop()
            new_pos[i] = len(out_chars)
        out_chars.append(c)
        out_lines.append(char_lines[i])
    new_pos[len(text)] = len(out_chars)
    while out_chars and out_chars[-1] == " ":
        out_chars.pop()
        out_lines.pop()
    size = len(out_chars)
    moved = [_Marker(pos=min(new_pos[m.pos], size), citations=m.citations) for m in markers]
    return "".join(out_chars), out_lines, moved


def _sentences_of_paragraph(
    text: str,
    char_lines: list[int],
    markers: list[_Marker],
    paragraph_index: int,
    first_index: int,
) -> list[ReportSentence]:
    spans = sentence_spans(text)
    if not spans:
        if markers:
            line = markers[0].citations[0].line
            return (
                []
                if not text.strip()
                else [
                    ReportSentence(
                        index=first_index, paragraph=paragraph_index, text=text.strip(), line=line
                    )
                ]
            )
        return []
    # A marker belongs to the sentence it ends: ties at a boundary go to the left.
    owned: list[list[_Marker]] = [[] for _ in spans]
    for marker in markers:
        chosen = next((k for k, (_, end) in enumerate(spans) if marker.pos <= end), len(spans) - 1)
        owned[chosen].append(marker)
    sentences = [
        ReportSentence(
            index=first_index + k,
            paragraph=paragraph_index,
            text=text[start:end],
            line=char_lines[start] if start < len(char_lines) else char_lines[-1],
            citations=[c for mk in owned[k] for c in mk.citations],
        )
        for k, (start, end) in enumerate(spans)
    ]
    # The paragraph-final citation covers every sentence that cites nothing itself.
    last = sentences[-1]
    end_markers = [mk for mk in owned[-1] if mk.pos >= spans[-1][1] - 1]
    bare = [s for s in sentences[:-1] if not s.citations]
    if end_markers and bare:
        shared = [c for mk in end_markers for c in mk.citations]
        for s in bare:
            s.citations = [c.model_copy(update={"scope": "paragraph"}) for c in shared]
        shared_ids = {c.occurrence for c in shared}
        last.citations = [
            c.model_copy(update={"scope": "paragraph"}) if c.occurrence in shared_ids else c
            for c in last.citations
        ]
    return sentences


def parse_markdown(text: str, source: str = "<markdown>", line_offset: int = 0) -> ParsedReport:
    lines = text.splitlines()
    try:
        defs, def_lines = _collect_definitions(lines, source)
    except ReportFormatError as exc:
        if line_offset and exc.line is not None:
            raise ReportFormatError(
                str(exc).split(": ", 1)[-1], exc.line + line_offset, source
            ) from None
        raise
    counter = [0]
    sentences: list[ReportSentence] = []
    for p_index, paragraph in enumerate(_paragraphs(lines, def_lines)):
        flat, char_lines, markers = _flatten(paragraph, defs, source, counter)
        sentences.extend(
            _sentences_of_paragraph(flat, char_lines, markers, p_index, len(sentences))
        )
    if not sentences:
        raise ReportFormatError(
            "the report has no prose sentences to grade (only headings, tables or definitions)",
            None,
            source,
        )
    if not any(s.citations for s in sentences):
        raise ReportFormatError(
            "the report cites nothing: no [text](url) links, [ref] / [^1] footnotes with "
            "definitions, or <https://...> links were found",
            None,
            source,
        )
    return ParsedReport(source=source, format="md", sentences=sentences)


# --- JSON -------------------------------------------------------------------------------


class _JsonClaim(BaseModel):
    text: str = Field(min_length=1)
    citations: list[str | dict[str, str]]


class _JsonClaims(BaseModel):
    claims: list[_JsonClaim] = Field(min_length=1)


def _line_of(raw: str, needle: str, default: int = 1) -> int:
    at = raw.find(needle)
    return raw.count("\n", 0, at) + 1 if at >= 0 else default


def parse_json(raw: str, source: str = "<json>") -> ParsedReport:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ReportFormatError(
            f"not valid JSON ({exc.msg}, column {exc.colno})", exc.lineno, source
        ) from None
    if isinstance(data, dict) and isinstance(data.get("report"), str):
        line = _line_of(raw, '"report"')
        parsed = parse_markdown(data["report"], source=source, line_offset=line - 1)
        return parsed.model_copy(update={"format": "json"})
    if not isinstance(data, dict) or "claims" not in data:
        raise ReportFormatError(
            'expected {"claims": [{"text": ..., "citations": [url, ...]}]} or '
            '{"report": "...markdown..."}',
            1,
            source,
        )
    claims_raw = data["claims"]
    try:
        model = _JsonClaims.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = err["loc"]
        line = 1
        if (
            len(loc) >= 2
            and loc[0] == "claims"
            and isinstance(loc[1], int)
            and isinstance(claims_raw, list)
        ):
            item = claims_raw[loc[1]]
            if isinstance(item, dict) and isinstance(item.get("text"), str) and item["text"]:
                line = _line_of(raw, json.dumps(item["text"])[1:-1], line)
        path = ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in loc).replace(".[", "[")
        raise ReportFormatError(
            f'{path}: {err["msg"]}; each claim needs "text" (a string) and "citations" '
            "(a list of URLs)",
            line,
            source,
        ) from None
    sentences: list[ReportSentence] = []
    counter = 0
    for index, claim in enumerate(model.claims):
        line = _line_of(raw, json.dumps(claim.text)[1:-1])
        citations: list[Citation] = []
        for entry in claim.citations:
            url = entry if isinstance(entry, str) else entry.get("url", "")
            if not _is_absolute_http(url):
                raise ReportFormatError(
                    f"claims[{index}].citations: {url!r} is not an absolute http(s) URL",
                    _line_of(raw, url, line) if url else line,
                    source,
                )
            counter += 1
            citations.append(
                Citation(url=url, marker="json", style="json", line=line, occurrence=f"c{counter}")
            )
        parts = [claim.text[a:b] for a, b in sentence_spans(claim.text)] or [claim.text.strip()]
        # A claim of several sentences with one citation list is a cited paragraph: its
        # citations cover every sentence, and the grader must see that they are shared.
        scope = "paragraph" if len(parts) > 1 and citations else "sentence"
        for part in parts:
            sentences.append(
                ReportSentence(
                    index=len(sentences),
                    paragraph=index,
                    text=part,
                    line=line,
                    citations=[c.model_copy(update={"scope": scope}) for c in citations],
                )
            )
    return ParsedReport(source=source, format="json", sentences=sentences)


def detect_format(path: Path, text: str) -> ReportFormat:
    if path.suffix.lower() == ".json":
        return "json"
    if path.suffix.lower() in {".md", ".markdown", ".txt"}:
        return "md"
    return "json" if text.lstrip().startswith(("{", "[")) else "md"


def parse_report(path: str | Path, fmt: ReportFormat | None = None) -> ParsedReport:
    """Read a report file; ``fmt`` overrides detection by suffix / first character."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReportFormatError(f"no such report file: {p}") from None
    except UnicodeDecodeError as exc:
        line = p.read_bytes()[: exc.start].count(b"\n") + 1
        raise ReportFormatError("the file is not UTF-8 text", line, str(p)) from None
    return parse_text(text, fmt or detect_format(p, text), source=str(p))


def parse_text(text: str, fmt: ReportFormat, source: str = "<report>") -> ParsedReport:
    if not text.strip():
        raise ReportFormatError("the report is empty", None, source)
    return parse_json(text, source) if fmt == "json" else parse_markdown(text, source)
