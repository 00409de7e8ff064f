"""The page a span was cut from, when the pair set knows it, so stale_page can serve the rest.

A span is usually only the supporting sentences; "the same page with the supporting
sentence removed" needs the neighbouring text. Two sources, tried in order:

- ``pair.source["page_sentences"]`` (list of sentences) and optionally
  ``pair.source["supporting"]`` (indices, or a list of alternative index sets);
- the WiCE development page named by ``pair.source["wice_id"]``, read from
  ``goldens/wice_dev_pages.jsonl.gz`` (shipped, written by scripts/build_wice_pairs.py), or
  from a WiCE ``dev.jsonl`` named by ``$SPANPROOF_WICE_DEV``. Shipping the pages makes the
  planted set the same on every machine. WiCE lists every alternative set of supporting
  sentences, so all of them can be removed.

Returns None when neither is available; stale_page then removes sentences inside the span.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
from pathlib import Path

from pydantic import BaseModel
from spanproof.goldens import shipped

from spanproof.core.verdict import Pair

_SHIPPED_PAGES = shipped("wice_dev_pages.jsonl.gz")


class Page(BaseModel):
    sentences: list[str]
    supporting: list[list[int]]  # alternative sets of sentence indices


@functools.lru_cache(maxsize=4)
def _wice_pages(path: str) -> dict[str, Page]:
    """Pages by WiCE id, from the shipped .jsonl.gz or a WiCE dev.jsonl."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(
            f"{p} not found: rebuild it with `python scripts/build_wice_pairs.py`, or point "
            "SPANPROOF_WICE_DEV at a WiCE dev.jsonl"
        )
    text = (
        gzip.decompress(p.read_bytes()).decode("utf-8")
        if p.suffix == ".gz"
        else p.read_text(encoding="utf-8")
    )
    pages: dict[str, Page] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if "meta" in row:  # a WiCE dev.jsonl row
            pages[row["meta"]["id"]] = Page(
                sentences=row["evidence"], supporting=row["supporting_sentences"]
            )
        else:
            pages[row["wice_id"]] = Page(sentences=row["sentences"], supporting=row["supporting"])
    return pages


def page_for(pair: Pair) -> Page | None:
    src = pair.source or {}
    if isinstance(src.get("page_sentences"), list):
        sup = src.get("supporting") or []
        if sup and isinstance(sup[0], int):
            sup = [sup]
        return Page(sentences=src["page_sentences"], supporting=sup)
    if src.get("wice_id"):
        path = os.environ.get("SPANPROOF_WICE_DEV") or str(_SHIPPED_PAGES)
        return _wice_pages(path).get(str(src["wice_id"]))
    return None
