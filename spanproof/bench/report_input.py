"""Read another agent's cited report into sentences, each with the URLs that cite it.

Two input shapes are accepted:

- Markdown (read by markdown-it-py as CommonMark, with GFM tables and the footnotes of
  mdit-py-plugins: a link inside a code span is code, an indented block is code, a setext
  heading is a heading, ``[a](<url with space>)`` is one link), cited with inline links
  ``[text](url)``, reference links ``[text][ref]``
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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, ValidationError

from spanproof.core.sentences import sentence_spans

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

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
# Block and inline structure come from markdown-it-py (CommonMark, GFM tables, footnotes from
# mdit-py-plugins): code spans, indented code, setext headings and <url with spaces> are read
# as CommonMark reads them. What is ours is only which URLs a sentence cites and how far a
# citation reaches (_sentences_of_paragraph).

_DEF_RE = re.compile(r"^\s{0,3}\[(\^?[^\]\s][^\]]*)\]:\s*(.*)$")  # [ref]: url / [^1]: text
_NUMBERED_DEF_RE = re.compile(r"^\s{0,3}\[(\d+)\]\s+(<?https?://\S+?>?)\s*(?:\s.*)?$")  # [1] url
_URL_IN_TEXT_RE = re.compile(r"https?://[^\s<>\[\]]+")
_FENCE_RE = re.compile(r"^\s{0,3}(```|~~~)")
_SOURCES_HEADING_RE = re.compile(
    r"^(sources|references|bibliography|citations|works cited|notes|footnotes|further reading|links)\b",
    re.IGNORECASE,
)
# Citation forms markdown-it leaves as text: number lists and ranges "[1, 2]", "[1-3]", bare
# URLs (GFM autolinks), and the broken forms we name in an error.
_TEXT_CITATION_RE = re.compile(
    r"""
    \[(?P<num>\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3})*)\](?!\()
  | (?P<bare>https?://[^\s<>\[\]()]+[^\s<>\[\]().,;:!?'"])
  | \[\^(?P<fn>[^\]\s]+)\]
  | \[(?P<rtext>[^\]]+)\]\[(?P<rref>[^\]]*)\]
    """,
    re.VERBOSE,
)
_UNCLOSED_LINK_RE = re.compile(r"\[[^\]]*\]\((?![^)]*\))")


@dataclass
class _Marker:
    pos: int  # offset in the flattened paragraph text
    citations: list[Citation] = field(default_factory=list)


def _markdown_parser() -> MarkdownIt:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.footnote import footnote_plugin

    md = MarkdownIt("commonmark").enable("table").use(footnote_plugin)
    link_rule = next(r.fn for r in md.inline.ruler.__rules__ if r.name == "link")

    def link_keeping_source(state: StateInline, silent: bool) -> bool:
        # Keep each link's source text ("[x](u)", "[x][r]", "[1]") on its link_open token:
        # which form was written decides the citation style, and tokens do not say it.
        start, first = state.pos, len(state.tokens)
        matched = link_rule(state, silent)
        if matched and not silent:
            opening = next((t for t in state.tokens[first:] if t.type == "link_open"), None)
            if opening is not None:
                opening.meta = {**(opening.meta or {}), "source": state.src[start : state.pos]}
        return matched

    md.inline.ruler.at("link", link_keeping_source)
    return md


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
    """Reference and footnote definitions: key (lower-cased, '^' kept) -> (url, line), and the
    lines of ``[1] url`` definitions (not markdown; blanked before parsing)."""
    defs: dict[str, tuple[str, int]] = {}
    numbered_lines: set[int] = set()
    in_fence = False
    for number, line in enumerate(lines, start=1):
        if _FENCE_RE.match(line):
            in_fence = not in_fence
            continue
        if in_fence or line.startswith(("    ", "\t")):
            continue
        m = _DEF_RE.match(line)
        numbered = None if m else _NUMBERED_DEF_RE.match(line)
        found = m or numbered
        if found is None:
            continue
        key, body = found.group(1), found.group(2)
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
        if numbered:
            numbered_lines.add(number)
    return defs, numbered_lines


def _prose_blocks(tokens: Sequence[Token]) -> list[tuple[int, list[Token]]]:
    """(first line, inline children) of every paragraph that is prose: not a heading, table,
    code, HTML, footnote definition or anything under a "Sources" heading."""
    out: list[tuple[int, list[Token]]] = []
    skip_depth = 0  # inside a table or footnote block
    in_sources = False
    pending_heading = False
    in_paragraph = False
    for tok in tokens:
        if tok.type in ("table_open", "footnote_block_open"):
            skip_depth += 1
        elif tok.type in ("table_close", "footnote_block_close"):
            skip_depth -= 1
        elif tok.type == "heading_open":
            pending_heading = True
        elif tok.type == "paragraph_open":
            in_paragraph = True
        elif tok.type == "paragraph_close":
            in_paragraph = False
        elif tok.type == "inline":
            if pending_heading:
                # A "Sources" / "References" section lists where claims came from; not prose.
                in_sources = bool(_SOURCES_HEADING_RE.match(tok.content.strip()))
                pending_heading = False
            elif in_paragraph and not skip_depth and not in_sources and tok.map:
                rows = tok.content.splitlines()
                if rows and all(row.lstrip().startswith("|") for row in rows):
                    continue  # a table without a delimiter row is still a table to a reader
                out.append((tok.map[0] + 1, tok.children or []))
    return out


class _Flattener:
    """One paragraph's inline tokens to text, the line of each character, and citation markers."""

    def __init__(
        self,
        defs: dict[str, tuple[str, int]],
        references: dict[str, dict[str, str]],
        source: str,
        counter: list[int],
        first_line: int,
    ) -> None:
        self.defs = defs
        self.references = references  # markdown-it's: LABEL (upper) -> {href}
        self.source = source
        self.counter = counter
        self.line = first_line
        self.parts: list[str] = []
        self.char_lines: list[int] = []
        self.markers: list[_Marker] = []
        self.length = 0

    def emit(self, text: str) -> None:
        self.parts.append(text)
        self.char_lines.extend([self.line] * len(text))
        self.length += len(text)

    def cite(self, found: list[tuple[str, str, CitationStyle]]) -> None:
        citations = []
        for url, marker, style in found:
            self.counter[0] += 1
            citations.append(
                Citation(
                    url=url,
                    marker=marker,
                    style=style,
                    line=self.line,
                    occurrence=f"c{self.counter[0]}",
                )
            )
        self.markers.append(_Marker(pos=self.length, citations=citations))

    def fail(self, message: str) -> None:
        raise ReportFormatError(message, self.line, self.source)

    def check_url(self, url: str, written: str) -> None:
        if not _is_absolute_http(url):
            self.fail(
                f"the link {written!r} points at {url!r}, which is not an absolute http(s) URL; "
                "a grader can only fetch full URLs"
            )

    def text(self, content: str) -> None:
        unclosed = _UNCLOSED_LINK_RE.search(content)
        if unclosed:
            self.fail(
                f"the link starting {content[unclosed.start() : unclosed.start() + 30]!r} is never "
                "closed; write it as [text](https://...)"
            )
        pos = 0
        for m in _TEXT_CITATION_RE.finditer(content):
            self.emit(content[pos : m.start()])
            pos = m.end()
            if m.group("bare") is not None:
                self.cite([(m.group("bare"), m.group(0), "autolink")])
            elif m.group("num") is not None:
                numbers = _expand_numbers(m.group("num"))
                numeric = {k for k in self.defs if k.isdigit()}
                numeric |= {k for k in self.references if k.isdigit()}
                if not numeric:
                    self.emit(m.group(0))  # no numbered sources at all: just text
                    continue
                missing = [n for n in numbers if str(n) not in numeric]
                if missing:
                    self.fail(
                        f"the citation {m.group(0)!r} refers to source [{missing[0]}], which is "
                        f"never defined; add a line '[{missing[0]}]: https://...'"
                    )
                self.cite([(self._numbered_url(n), f"[{n}]", "footnote") for n in numbers])
            elif m.group("fn") is not None:
                # A definition CommonMark read as the continuation of the one above it still
                # defines its key for a reader: the pre-scan found it.
                key = "^" + m.group("fn").lower()
                if key not in self.defs:
                    self.fail(
                        f"the footnote {m.group(0)!r} has no definition; add a line "
                        f"'{m.group(0)}: https://...'"
                    )
                self.cite([(self.defs[key][0], m.group(0), "footnote")])
            else:
                ref = m.group("rref") or m.group("rtext")
                if ref.lower() not in self.defs:
                    self.fail(
                        f"the reference link {m.group(0)!r} has no definition; add a line "
                        f"'[{ref}]: https://...'"
                    )
                label = m.group("rtext")
                if not _is_source_label(label, "".join(self.parts).rstrip(), content[m.end() :]):
                    self.emit(label)
                self.cite([(self.defs[ref.lower()][0], m.group(0), "reference")])
        self.emit(content[pos:])

    def _numbered_url(self, n: int) -> str:
        if str(n) in self.defs:
            return self.defs[str(n)][0]
        return self.references[str(n)]["href"]

    def run(self, children: list[Token]) -> tuple[str, list[int], list[_Marker]]:
        i = 0
        while i < len(children):
            tok = children[i]
            kind = tok.type
            if kind in ("softbreak", "hardbreak"):
                self.line += 1
                self.emit(" ")
            elif kind == "text":
                self.text(tok.content)
            elif kind == "code_inline":
                self.emit(tok.content)  # words of the sentence; a link in code is not a citation
            elif kind == "image":
                pass  # an image is not a citation, and its alt text is not prose
            elif kind == "footnote_ref":
                label = tok.meta["label"]
                key = "^" + label.lower()
                if key not in self.defs:
                    self.fail(
                        f"the footnote [^{label}] has no URL in its definition; write it as '[^{label}]: https://...'"
                    )
                self.cite([(self.defs[key][0], f"[^{label}]", "footnote")])
            elif kind == "link_open":
                i = self._link(children, i)
            i += 1
        return _tidy("".join(self.parts), self.char_lines, self.markers)

    def _link(self, children: list[Token], i: int) -> int:
        opening = children[i]
        url = str(opening.attrGet("href") or "")
        j = i + 1
        label_parts: list[str] = []
        while j < len(children) and children[j].type != "link_close":
            if children[j].type in ("text", "code_inline"):
                label_parts.append(children[j].content)
            j += 1
        label = "".join(label_parts)
        if opening.info == "auto":
            self.check_url(url, f"<{url}>")
            self.cite([(url, f"<{url}>", "autolink")])
            return j
        written = (opening.meta or {}).get("source", f"[{label}]({url})")
        inline = written.endswith(")") and "](" in written
        if not inline and label.strip().isdigit() and re.fullmatch(r"\[\d+\](?:\[\])?", written):
            self.check_url(url, written)
            self.cite([(url, f"[{label.strip()}]", "footnote")])  # "[1]" with "[1]: url"
            return j
        self.check_url(url, written)
        before = "".join(self.parts).rstrip()
        after = "".join(c.content for c in children[j + 1 :] if c.type == "text")
        if not _is_source_label(label, before, after.split("\n", 1)[0]):
            self.emit(label)
        self.cite([(url, written, "inline" if inline else "reference")])
        return j


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
        defs, numbered_lines = _collect_definitions(lines, source)
        # "[1] https://..." lines are definitions to us and prose to CommonMark: blank them,
        # keeping every other line where it was.
        kept = "\n".join("" if n in numbered_lines else line for n, line in enumerate(lines, 1))
        env: dict[str, Any] = {}
        tokens = _markdown_parser().parse(kept, env)
        references = {k.lower(): v for k, v in env.get("references", {}).items()}
        counter = [0]
        sentences: list[ReportSentence] = []
        for p_index, (first_line, children) in enumerate(_prose_blocks(tokens)):
            flat, char_lines, markers = _Flattener(
                defs, references, source, counter, first_line
            ).run(children)
            sentences.extend(
                _sentences_of_paragraph(flat, char_lines, markers, p_index, len(sentences))
            )
    except ReportFormatError as exc:
        if line_offset and exc.line is not None:
            raise ReportFormatError(
                str(exc).split(": ", 1)[-1], exc.line + line_offset, source
            ) from None
        raise
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
