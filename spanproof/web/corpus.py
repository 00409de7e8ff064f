"""Offline web corpora: built from WiCE pages, recorded from the live web, replayed over HTTP.

A corpus directory holds:

- ``corpus.warc.gz`` — gzip WARC: a ``warcinfo`` record, then one
  ``response`` record per page (HTTP status line, headers, HTML body).
- ``manifest.jsonl`` — one line per page: url, host, title, WiCE ids, sha256.
- ``README.md`` — what the pages are and whose they are (WiCE attribution).

``build_corpus_from_wice`` is deterministic: fixed WARC-Date, record ids
derived from content, gzip members without timestamps, pages in input
order. Same input, byte-identical output.

``ReplayTransport`` serves a WARC's recorded responses as an httpx transport,
so offline fetches take the same Fetcher -> egress -> snapshot path as live
ones. ``append_response`` is what ``record`` mode writes with.
"""

from __future__ import annotations

import fcntl
import hashlib
import html
import io
import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel
from warcio.archiveiterator import ArchiveIterator
from warcio.warcwriter import WARCWriter

from spanproof.core.evidence import utc_now_iso, warc_record_id

WARC_NAME = "corpus.warc.gz"
MANIFEST_NAME = "manifest.jsonl"
README_NAME = "README.md"
CORPUS_DATE = "2023-01-01T00:00:00Z"  # fixed so a rebuild is byte-identical

# Pages are spread over a few hosts under the reserved .example TLD, so
# allowlist tests have more than one host to reason about.
SITES = [
    ("news.wice.example", "The Daily Record"),
    ("reference.wice.example", "Reference Desk"),
    ("archive.wice.example", "Page Archive"),
    ("blog.wice.example", "Field Notes"),
]

ATTRIBUTION = """\
Page text comes from the WiCE development split: Kamoi, Goyal, Rodriguez,
Durrett, "WiCE: Real-World Entailment for Claims in Wikipedia" (EMNLP 2023),
repository ryokamoi/wice. The pages are web pages cited by Wikipedia
(CC BY-SA), archived by Common Crawl (Common Crawl terms of use); the
annotations are ODC-BY. Keep this attribution wherever the corpus is
redistributed. Only the development split is used; the test split is not.
"""


class PageEntry(BaseModel):
    url: str
    host: str
    title: str
    wice_ids: list[str]
    sha256: str
    bytes: int


class CorpusInfo(BaseModel):
    path: str
    pages: int
    hosts: list[str]
    warc_bytes: int
    html_bytes: int


def _slug(title: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return slug[:60].rstrip("-") or "page"


_META_LABELS = {
    "AUTHOR": "By {}",
    "PUBLISHER": "Publisher: {}",
    "PUBLISHED DATETIME": "Published: {}",
    "COPYRIGHT": "Copyright: {}",
}


def _title_of(evidence: list[str]) -> str:
    """The page's TITLE meta line, else its first heading, else its first line, shortened."""
    for line in evidence:
        if line.startswith("(meta data) TITLE:"):
            return line.split(":", 1)[1].strip()
    for line in evidence:
        if line.lstrip().startswith("#") and line.strip("# ").strip():
            return line.strip("# ").strip()
    first = next((e.strip() for e in evidence if e.strip() and not e.startswith("(meta data)")), "")
    return first if len(first) <= 80 else first[:80].rsplit(" ", 1)[0] + "…"


_SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*$")
_PARAGRAPH_SENTENCES = 4


def wice_page_html(title: str, sentences: list[str], site_name: str) -> str:
    """A realistic page: head, nav, article (headings and paragraphs), footer."""
    body: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            body.append("<p>" + " ".join(html.escape(s) for s in paragraph) + "</p>")
            paragraph.clear()

    for sentence in sentences:
        line = sentence.strip()
        if not line:
            continue
        heading = re.match(r"^(#{1,6})\s*(.*)$", line)
        meta = re.match(r"^\(meta data\) ([A-Z ]+):\s*(.*)$", line)
        if meta:  # page metadata the crawler kept: shown as a byline, as a site would
            flush()
            label = _META_LABELS.get(meta.group(1).strip(), meta.group(1).strip().title() + ": {}")
            if meta.group(2).strip():
                body.append(
                    f'<p class="byline">{html.escape(label.format(meta.group(2).strip()))}</p>'
                )
        elif heading:
            flush()
            level = min(6, len(heading.group(1)) + 1)  # h1 is the site's; '#' maps to h2
            if heading.group(2).strip():
                body.append(f"<h{level}>{html.escape(heading.group(2).strip())}</h{level}>")
        elif _SENTENCE_END.search(line):
            paragraph.append(line)
            if len(paragraph) >= _PARAGRAPH_SENTENCES:
                flush()
        else:  # a fragment (menu item, caption, byline): its own block
            flush()
            body.append(f"<p>{html.escape(line)}</p>")
    flush()
    t = html.escape(title)
    s = html.escape(site_name)
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{t}</title>\n'
        '<link rel="stylesheet" href="/static/site.css">\n</head>\n<body>\n'
        f'<header><nav><a href="/">{s}</a> | <a href="/archive/">Archive</a> | '
        '<a href="/about/">About</a></nav></header>\n'
        "<main>\n<article>\n" + "\n".join(body) + "\n</article>\n</main>\n"
        f"<footer><p>{s}. Archived page text from the WiCE development set.</p></footer>\n"
        "</body>\n</html>\n"
    )


def _response_record(
    writer: WARCWriter,
    url: str,
    body: bytes,
    *,
    status: int = 200,
    headers: list[tuple[str, str]] | None = None,
    date: str = CORPUS_DATE,
) -> Any:  # a warcio record (warcio has no types)
    from spanproof.web.snapshots import http_headers_for

    content_type = next(
        (v for k, v in headers or [] if k.lower() == "content-type"), "text/html; charset=utf-8"
    )
    return writer.create_warc_record(
        url,
        "response",
        payload=io.BytesIO(body),
        length=len(body),
        warc_headers_dict={
            "WARC-Record-ID": warc_record_id("response", url, body),
            "WARC-Date": date,
        },
        http_headers=http_headers_for(status, content_type, len(body), headers),
    )


def build_corpus_from_wice(
    jsonl_path: Path | str, out_dir: Path | str, progress: Callable[[str], None] | None = None
) -> CorpusInfo:
    """Turn each unique WiCE page into an HTML page in a deterministic WARC corpus."""
    jsonl_path, out_dir = Path(jsonl_path), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    pages: dict[str, dict[str, Any]] = {}  # content key -> page, in first-seen order
    with open(jsonl_path, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            row = json.loads(line)
            evidence: list[str] = row["evidence"]
            key = hashlib.sha256(
                json.dumps(evidence, ensure_ascii=False).encode("utf-8")
            ).hexdigest()
            wice_id = (row.get("meta") or {}).get("id", "")
            if key in pages:
                pages[key]["wice_ids"].append(wice_id)
                continue
            title = _title_of(evidence)
            sentences = [e for e in evidence if not e.startswith("(meta data) TITLE:")]
            pages[key] = {
                "key": key,
                "title": title or "Untitled page",
                "sentences": sentences,
                "wice_ids": [wice_id],
            }

    buf = io.BytesIO()
    writer = WARCWriter(buf, gzip=True, warc_version="1.1")
    info_fields = {
        "software": "spanproof corpus build",
        "format": "WARC File Format 1.1",
        "source": f"WiCE development split ({jsonl_path.name})",
        "attribution": " ".join(ATTRIBUTION.split()),
    }
    warcinfo = writer.create_warcinfo_record(WARC_NAME, info_fields)
    warcinfo.rec_headers.replace_header(
        "WARC-Record-ID", warc_record_id("warcinfo", json.dumps(info_fields))
    )
    warcinfo.rec_headers.replace_header("WARC-Date", CORPUS_DATE)
    writer.write_record(warcinfo)
    manifest: list[PageEntry] = []
    html_bytes = 0
    for n, page in enumerate(pages.values(), 1):
        host, site_name = SITES[int(page["key"][:8], 16) % len(SITES)]
        url = f"https://{host}/{_slug(page['title'])}-{page['key'][:8]}"
        body = wice_page_html(page["title"], page["sentences"], site_name).encode("utf-8")
        html_bytes += len(body)
        writer.write_record(_response_record(writer, url, body))
        manifest.append(
            PageEntry(
                url=url,
                host=host,
                title=page["title"],
                wice_ids=page["wice_ids"],
                sha256=hashlib.sha256(body).hexdigest(),
                bytes=len(body),
            )
        )
        if progress and n % 50 == 0:
            progress(f"{n}/{len(pages)} pages")
    _write_atomic(out_dir / WARC_NAME, buf.getvalue())
    _write_atomic(
        out_dir / MANIFEST_NAME,
        "".join(m.model_dump_json() + "\n" for m in manifest).encode("utf-8"),
    )
    readme = (
        "# Offline web corpus\n\n"
        f"{len(manifest)} HTML pages built by `spanproof corpus build --from-wice` from the WiCE "
        "development split, one page per unique cited web page, served offline by the replay "
        f"transport under {', '.join(sorted({h for h, _ in SITES}))}.\n\n"
        "Files: `corpus.warc.gz` (one response record per page), `manifest.jsonl` (url, title, "
        "WiCE ids, sha256 per page). The search index is built from the WARC on first use.\n\n"
        "## Attribution\n\n" + ATTRIBUTION
    )
    _write_atomic(out_dir / README_NAME, readme.encode("utf-8"))
    return corpus_info(out_dir)


def _write_atomic(path: Path, data: bytes) -> None:
    from spanproof.core.files import write_atomic

    write_atomic(path, data)


def warc_of(corpus: Path | str) -> Path:
    corpus = Path(corpus)
    return corpus / WARC_NAME if corpus.is_dir() else corpus


def iter_responses(corpus: Path | str) -> Iterator[tuple[str, int, list[tuple[str, str]], bytes]]:
    """(url, status, headers, body) of every response record, in file order."""
    with open(warc_of(corpus), "rb") as fh:
        for record in ArchiveIterator(fh):
            if record.rec_type != "response":
                continue
            url = record.rec_headers.get_header("WARC-Target-URI")
            status = int(record.http_headers.get_statuscode()) if record.http_headers else 200
            headers = list(record.http_headers.headers) if record.http_headers else []
            yield url, status, headers, record.content_stream().read()


def corpus_info(corpus_dir: Path | str) -> CorpusInfo:
    corpus_dir = Path(corpus_dir)
    entries = load_manifest(corpus_dir)
    warc = warc_of(corpus_dir)
    if entries:
        hosts = sorted({e.host for e in entries})
        pages, html_bytes = len(entries), sum(e.bytes for e in entries)
    else:
        seen = [(u, len(b)) for u, _, _, b in iter_responses(corpus_dir)]
        from spanproof.core.urls import host_of

        hosts = sorted({host_of(u) for u, _ in seen})
        pages, html_bytes = len(seen), sum(n for _, n in seen)
    return CorpusInfo(
        path=str(corpus_dir),
        pages=pages,
        hosts=hosts,
        warc_bytes=warc.stat().st_size,
        html_bytes=html_bytes,
    )


def load_manifest(corpus_dir: Path | str) -> list[PageEntry]:
    path = Path(corpus_dir) / MANIFEST_NAME
    if not path.exists():
        return []
    return [
        PageEntry.model_validate_json(line)
        for line in path.read_text("utf-8").splitlines()
        if line.strip()
    ]


def corpus_hosts(corpus_dir: Path | str) -> list[str]:
    return corpus_info(corpus_dir).hosts


def append_response(
    warc_path: Path | str,
    url: str,
    *,
    status: int,
    headers: list[tuple[str, str]],
    body: bytes,
    date: str | None = None,
) -> None:
    """Append one response record (record mode); one write + fsync under a file lock."""
    buf = io.BytesIO()
    writer = WARCWriter(buf, gzip=True, warc_version="1.1")
    writer.write_record(
        _response_record(
            writer, url, body, status=status, headers=headers, date=date or utc_now_iso()
        )
    )
    path = Path(warc_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            fh.write(buf.getvalue())
            fh.flush()
            os.fsync(fh.fileno())
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class ReplayTransport(httpx.AsyncBaseTransport):
    """Serves recorded responses from a WARC; unknown URLs get a 404.

    Requests are matched on the normalised URL (see agent.egress). Only
    offsets are kept in memory; bodies are read on demand. When a URL was
    recorded more than once, the last record wins.
    """

    def __init__(self, corpus: Path | str):
        from spanproof.core.urls import normalise_url

        self.path = warc_of(corpus)
        self._offsets: dict[str, int] = {}
        self.served: list[str] = []
        with open(self.path, "rb") as fh:
            iterator = ArchiveIterator(fh)
            for record in iterator:
                if record.rec_type == "response":
                    url = record.rec_headers.get_header("WARC-Target-URI")
                    try:
                        self._offsets[normalise_url(url)] = iterator.get_record_offset()
                    except ValueError:
                        continue

    def urls(self) -> list[str]:
        return list(self._offsets)

    def _load(self, offset: int) -> tuple[int, list[tuple[str, str]], bytes]:
        with open(self.path, "rb") as fh:
            fh.seek(offset)
            record = next(iter(ArchiveIterator(fh)))
            status = int(record.http_headers.get_statuscode())
            headers = list(record.http_headers.headers)
            return status, headers, record.content_stream().read()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        from spanproof.core.urls import normalise_url

        url = str(request.url)
        self.served.append(url)
        offset = self._offsets.get(normalise_url(url)) if request.method == "GET" else None
        if offset is None:
            return httpx.Response(
                404,
                headers={"content-type": "text/plain"},
                content=b"not in the offline corpus",
                request=request,
            )
        status, headers, body = self._load(offset)
        return httpx.Response(status, headers=headers, content=body, request=request)
