"""Make a large pair file for `spanproof verify` from the WiCE development pages and claims.

    python benchmarks/make_verify_pairs.py --n 100000 --out /tmp/pairs-100k.jsonl

Why not the 349 development pairs repeated: every repeat would be a verdict-cache hit, and
every repeated span would be answered from the splitter's and the audit's per-text caches, so
the figure would time lookups, not judging. Here every span is a different window of a WiCE
development page (1 to 6 consecutive sentences, drawn without replacement from all the windows
of the 349 pages, identical texts dropped), so no two pairs share a span and no pair is a cache
hit. The claim against each window is one of:

- ``restated``  a sentence of the window (SUPPORTED by construction);
- ``planted``   that sentence with one planted failure (graders' mutators: a drifted number, a
                flipped negation, a wrong period, ...; the mutator's expected label);
- ``foreign``   a sentence of another page (NOT_SUPPORTED by construction);
- ``wice``      the page's own WiCE claim against a window of its page (the WiCE label when
                the window holds one of its annotated supporting sets, else NOT_SUPPORTED).

Labels are by construction (like the rules judge's synthetic training pairs), so `verify`
reports its agreement figures over the whole file and exercises that code at full size; the
figure this file is for is time and memory, not agreement. Claims repeat (a sentence is in
many windows, a page has one WiCE claim; each window restates its least used sentence and
foreign sentences are dealt in turn); (claim, span) pairs never do. The file is deterministic for a given --seed.
Only the development split is read (goldens/), never the WiCE test split.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "goldens" / "wice_dev_pages.jsonl.gz"
PAIRS = ROOT / "goldens" / "wice_dev_pairs.jsonl"
MAX_WINDOW = 6
MAX_SPAN_CHARS = 4000  # the pair reader's cap (graders.pairs.MAX_SPAN_CHARS)
MIN_CLAIM_WORDS = 6
MIX = (("restated", 0.35), ("planted", 0.25), ("foreign", 0.30), ("wice", 0.10))


def _prose(sentence: str) -> bool:
    return (
        len(sentence.split()) >= MIN_CLAIM_WORDS
        and not sentence.startswith(("(meta data)", "#"))
        and sentence.rstrip()[-1:] in ".!\"”'"
        and len(sentence) <= 400
    )


def _load():
    with gzip.open(PAGES, "rt", encoding="utf-8") as f:
        pages = {row["wice_id"]: row for row in map(json.loads, f)}
    claims = {}
    for line in PAIRS.read_text(encoding="utf-8").splitlines():
        if line.strip():
            p = json.loads(line)
            claims[p["source"]["wice_id"]] = p
    return pages, claims


def _windows(pages: dict) -> list[tuple[str, int, int]]:
    out = []
    for wid, page in pages.items():
        n = len(page["sentences"])
        for size in range(1, MAX_WINDOW + 1):
            out += [(wid, start, start + size) for start in range(1, n - size + 1)]
    return out


def _planter():
    """One planted failure on a SUPPORTED (sentence, window) pair, or None."""
    from spanproof.planted_failures.registry import MUTATORS

    from spanproof.core.verdict import Pair

    kinds = sorted(k for k in MUTATORS if k not in ("swap_source", "stale_page"))

    def plant(claim: str, span: str, rng: random.Random, pair_id: str):
        pair = Pair(id=pair_id, claim=claim, span=span, label="SUPPORTED")
        for kind in rng.sample(kinds, len(kinds)):
            planted = MUTATORS[kind](pair, rng, [pair])
            if planted is not None:
                return planted.claim, planted.span, planted.expected, kind
        return None

    return plant


def generate(n: int, seed: int):
    pages, claims = _load()
    rng = random.Random(seed)
    windows = _windows(pages)
    rng.shuffle(windows)
    prose = {wid: [s for s in p["sentences"] if _prose(s)] for wid, p in pages.items()}
    all_prose = [(wid, s) for wid, ss in prose.items() for s in ss]
    rng.shuffle(all_prose)
    next_foreign = 0
    used: Counter[str] = Counter()  # a window's least used sentence is restated: fewer repeats
    plant = _planter()
    seen_spans: set[str] = set()
    kinds, weights = zip(*MIX, strict=True)
    made = 0
    for wid, start, end in windows:
        if made >= n:
            break
        sentences = pages[wid]["sentences"][start:end]
        span = " ".join(sentences)
        if not span.strip() or len(span) > MAX_SPAN_CHARS or span in seen_spans:
            continue
        inside = [s for s in sentences if _prose(s)]
        kind = rng.choices(kinds, weights)[0]
        if kind in ("restated", "planted") and not inside:
            continue  # a window of headings and captions: no sentence to restate
        if kind == "wice" and wid not in claims:
            kind = "foreign"
        pair_id = f"gen-{made + 1:06d}"
        if kind in ("restated", "planted"):
            least = min(used[s] for s in inside)
            sentence = rng.choice([s for s in inside if used[s] == least])
            used[sentence] += 1
        if kind == "restated":
            claim, label = sentence, "SUPPORTED"
        elif kind == "planted":
            got = plant(sentence, span, rng, pair_id)
            if got is None:
                continue
            claim, span, label, _ = got
            if span in seen_spans:
                continue
        elif kind == "foreign":
            other, claim = all_prose[next_foreign % len(all_prose)]
            next_foreign += 1
            while other == wid:
                other, claim = all_prose[next_foreign % len(all_prose)]
                next_foreign += 1
            label = "NOT_SUPPORTED"
        else:
            wice = claims[wid]
            claim = wice["claim"]
            sets = pages[wid].get("supporting") or []
            holds = any(s and all(start <= i < end for i in s) for s in sets)
            label = wice["label"] if holds else "NOT_SUPPORTED"
        seen_spans.add(span)
        made += 1
        yield {"id": pair_id, "claim": claim, "span": span, "label": label, "kind": kind,
               "source": {"wice_id": wid, "window": [start, end]}}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100_000, help="pairs to write")
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    kinds: Counter[str] = Counter()
    labels: Counter[str] = Counter()
    claims: set[str] = set()
    spans = 0
    with args.out.open("w", encoding="utf-8") as f:
        for row in generate(args.n, args.seed):
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            kinds[row["kind"]] += 1
            labels[row["label"]] += 1
            claims.add(row["claim"])
            spans += 1
    if spans < args.n:
        print(f"error: only {spans} distinct windows available, fewer than --n {args.n}",
              file=sys.stderr)  # fmt: skip
        return 2
    print(f"{spans} pairs -> {args.out} ({args.out.stat().st_size / 1e6:.1f} MB): {spans} "
          f"distinct spans, {len(claims)} distinct claims; kinds {dict(kinds)}; labels "
          f"{dict(labels)}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
