"""The page a span was cut from, when the pair set knows it, so stale_page can serve the rest.

A span is usually only the supporting sentences; "the same page with the supporting
sentence removed" needs the neighbouring text. Two sources, tried in order:

- ``pair.source["page_sentences"]`` (list of sentences) and optionally
  ``pair.source["supporting"]`` (indices, or a list of alternative index sets);
- the WiCE development page named by ``pair.source["wice_id"]``, read from
  ``$SPANPROOF_WICE_DEV`` or ``../shared/data/wice/dev.jsonl`` next to the project.
  WiCE lists every alternative set of supporting sentences, so all of them can be removed.

Returns None when neither is available; stale_page then removes sentences inside the span.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

from pydantic import BaseModel

from graders.verdict import Pair

_DEFAULT_WICE = (
    Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "wice" / "dev.jsonl"
)


class Page(BaseModel):
    sentences: list[str]
    supporting: list[list[int]]  # alternative sets of sentence indices


@functools.lru_cache(maxsize=4)
def _wice_pages(path: str) -> dict[str, Page]:
    pages: dict[str, Page] = {}
    p = Path(path)
    if not p.is_file():
        return pages
    for line in p.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        pages[row["meta"]["id"]] = Page(
            sentences=row["evidence"], supporting=row["supporting_sentences"]
        )
    return pages


def page_for(pair: Pair) -> Page | None:
    src = pair.source or {}
    if isinstance(src.get("page_sentences"), list):
        sup = src.get("supporting") or []
        if sup and isinstance(sup[0], int):
            sup = [sup]
        return Page(sentences=src["page_sentences"], supporting=sup)
    if src.get("wice_id"):
        path = os.environ.get("SPANPROOF_WICE_DEV") or str(_DEFAULT_WICE)
        return _wice_pages(path).get(str(src["wice_id"]))
    return None
