"""Build goldens/wice_dev_pairs.jsonl from the WiCE development split, reproducibly.

    python scripts/build_wice_pairs.py [--src ../shared/data/wice/dev.jsonl]
                                       [--out goldens/wice_dev_pairs.jsonl]

Same input, byte-identical output: rows keep the input order, keys are written in a fixed
order, no timestamps, no randomness, UTF-8 without escaping, "\\n" line endings.

One pair per WiCE row, in the pair format of docs/architecture.md:

- ``id``: ``wice-<WiCE meta id>`` (e.g. ``wice-dev02986``).
- ``claim``: the WiCE claim, unchanged.
- ``label``: supported -> SUPPORTED, partially_supported -> PARTIAL,
  not_supported -> NOT_SUPPORTED.
- ``span`` for SUPPORTED / PARTIAL: the sentences of the first supporting set, in document
  order (sorted indices), joined with one space, text unchanged (including WiCE's
  ``(meta data) TITLE: ...`` / ``PUBLISHED DATETIME`` lines when annotators cited them).
- ``span`` for NOT_SUPPORTED: a topic-adjacent window of the cited page, so a judge cannot
  win by noticing the span is off-topic. Candidates are the page's sentences except the
  ``(meta data)`` lines. Score = number of distinct claim content stems
  (lower-case words minus a fixed stopword list, with
  a fixed light suffix strip — frozen here so that tuning the judges never changes the data) the sentence contains. Take the best sentence (ties:
  earliest); then add the neighbour (previous or next, the one adding more new claim stems;
  ties: previous) if it adds at least one new claim stem. So the window is 1 or 2 sentences.
- Cap: a span over 4000 characters (the verifier's input limit) is not truncated — cutting
  sentences could remove the support and make the label wrong. A SUPPORTED / PARTIAL row
  falls back to the next supporting set (in WiCE's order) that fits; a row with no set that
  fits is left out and counted on stderr. (On the development split as shipped, no span
  exceeds the cap: the longest is 2175 characters.)
- ``near_miss``: false; ``kind``: "wice"; ``source``: {"wice_id", "title"} where ``title``
  is the Wikipedia article the claim comes from (WiCE ``meta.claim_title``).

WiCE: Kamoi et al., EMNLP 2023 (ryokamoi/wice). Page text: Wikipedia (CC BY-SA) and Common
Crawl archives; annotations ODC-BY.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

DEFAULT_SRC = ROOT.parent / "shared" / "data" / "wice" / "dev.jsonl"
DEFAULT_OUT = ROOT / "goldens" / "wice_dev_pairs.jsonl"
# The pages the pairs were cut from (sentences + WiCE supporting sets), shipped so the
# stale_page mutator plants the same variants on every machine, with or without shared/.
PAGES_NAME = "wice_dev_pages.jsonl.gz"
MAX_SPAN_CHARS = 4000
LABELS = {
    "supported": "SUPPORTED",
    "partially_supported": "PARTIAL",
    "not_supported": "NOT_SUPPORTED",
}


_STOP_WORDS = (
    "a an and are as at be been by for from has have he her his in is it its of on or she that "
    "the their they this to was were which who will with also after before into than then "
    "there these those over under about more most other such only not no can"
)
_STOP = frozenset(_STOP_WORDS.split())


def content_stems(text: str) -> list[str]:
    out = []
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        if w in _STOP or len(w) < 2:
            continue
        for suffix in ("ing", "ed", "es", "s"):
            if w.endswith(suffix) and len(w) - len(suffix) >= 3:
                w = w[: -len(suffix)]
                break
        out.append(w)
    return out


def supported_span(evidence: list[str], sets: list[list[int]]) -> str | None:
    for s in sets:
        if not s:
            continue
        text = " ".join(evidence[i] for i in sorted(set(s)))
        if len(text) <= MAX_SPAN_CHARS:
            return text
    return None


def adjacent_window(claim: str, evidence: list[str]) -> str | None:
    wanted = set(content_stems(claim))
    cands = [i for i, s in enumerate(evidence) if not s.startswith("(meta data)") and s.strip()]
    if not cands:
        return None
    stems = {i: wanted & set(content_stems(evidence[i])) for i in cands}
    best = max(cands, key=lambda i: (len(stems[i]), -i))
    window = [best]
    gains = []
    for j in (best - 1, best + 1):  # previous first, so it wins ties
        if j in stems:
            gains.append((len(stems[j] - stems[best]), -abs(j - best) if j < best else -2, j))
    if gains:
        gain, _, j = max(gains)
        if gain > 0:
            window = sorted([best, j])
    text = " ".join(evidence[i] for i in window)
    if len(text) > MAX_SPAN_CHARS:
        text = evidence[best]
    return text if len(text) <= MAX_SPAN_CHARS else None


def build(src: Path) -> tuple[list[dict], list[str]]:
    pairs, skipped = [], []
    for line in src.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        label = LABELS[row["label"]]
        meta = row["meta"]
        if label == "NOT_SUPPORTED":
            span = adjacent_window(row["claim"], row["evidence"])
        else:
            span = supported_span(row["evidence"], row["supporting_sentences"])
        if span is None:
            skipped.append(meta["id"])
            continue
        pairs.append(
            {
                "id": f"wice-{meta['id']}",
                "claim": row["claim"],
                "span": span,
                "label": label,
                "near_miss": False,
                "kind": "wice",
                "source": {"wice_id": meta["id"], "title": meta.get("claim_title", "")},
            }
        )
    return pairs, skipped


def write_pages(src: Path, out: Path) -> None:
    """{wice_id, sentences, supporting} per page, gzip with a fixed header: byte-identical reruns."""
    lines = []
    for line in src.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            page = {
                "wice_id": row["meta"]["id"],
                "sentences": row["evidence"],
                "supporting": row["supporting_sentences"],
            }
            lines.append(json.dumps(page, ensure_ascii=False) + "\n")
    with open(out, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        gz.write("".join(lines).encode("utf-8"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, default=DEFAULT_SRC, help="WiCE dev.jsonl")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output pair set (JSONL)")
    args = ap.parse_args(argv)
    if not args.src.is_file():
        print(f"error: {args.src} not found - pass --src path/to/wice/dev.jsonl", file=sys.stderr)
        return 2
    pairs, skipped = build(args.src)
    body = "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pairs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(body.encode("utf-8"))
    write_pages(args.src, args.out.parent / PAGES_NAME)
    counts: dict[str, int] = {}
    for p in pairs:
        counts[p["label"]] = counts.get(p["label"], 0) + 1
    print(
        f"wrote {len(pairs)} pairs to {args.out} {counts}; skipped {len(skipped)} "
        f"(no span within {MAX_SPAN_CHARS} chars){': ' + ', '.join(skipped) if skipped else ''}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
