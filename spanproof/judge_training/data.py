"""The offline judge's training data: the WiCE development pairs plus synthetic pairs made
from the offline corpus's pages, each row in a fold grouped by page.

Sources, in this order (deterministic: same inputs, same rows, same hash):

- ``goldens/wice_dev_pairs.jsonl``: 349 real claims with the cited page's sentences and
  crowd labels (SUPPORTED / PARTIAL / NOT_SUPPORTED).
- synthetic pairs from ``goldens/wice_dev_pages.jsonl.gz`` (the sentences of the same 349
  pages the offline corpus serves), labelled by construction to the definitions of docs/architecture.md:
  SUPPORTED: a sentence of the page (``sentence``), one of its clauses (``clause``), two
  neighbouring sentences joined (``joined``), each against a window of the page around it;
  PARTIAL: a supported sentence plus a clause of another page (``foreign_clause``) or of a
  distant sentence of the same page (``distant_clause``); the planted-failure mutators that
  expect PARTIAL (``scope_creep``, ``quantifier_inflation``);
  NOT_SUPPORTED: a sentence of another page on the same topic (``other_page``), a distant
  sentence of the same page (``distant_sentence``), the window with the sentence removed
  (``removed``), and the mutators that expect NOT_SUPPORTED (``drift_number``,
  ``wrong_period``, ``negation_flip``, ``attribution_swap``, ``modality_slip``).

``goldens/judge_calibration.jsonl`` is never read here: it measures the judge, it does not
train it.

Groups and folds. A row's group is the Wikipedia article its page was cited from (so all
pages of one article, and every synthetic pair made from them, share a group); groups are
dealt into ``N_FOLDS`` folds in the order of their sha256. Pairs that borrow text from
another page borrow only from pages in the same fold, so no held-out fold's text is seen
in training. Every figure reported for the judge is cross-validated over these folds.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
from pathlib import Path

from pydantic import BaseModel
from spanproof.graders.clauses import split_clauses
from spanproof.graders.rules.lexical import coverage, is_breadcrumb, key_set

from spanproof.bench.pairs import load_pairs
from spanproof.core.text import STOPWORDS
from spanproof.core.verdict import Label, Pair

N_FOLDS = 5


def _goldens() -> Path:
    from spanproof import goldens

    return Path(goldens.__file__).resolve().parent


GOLDENS = _goldens()
WICE_PAIRS = GOLDENS / "wice_dev_pairs.jsonl"
WICE_PAGES = GOLDENS / "wice_dev_pages.jsonl.gz"
# The mutators that make synthetic near-misses, with the label they expect.
MUTATOR_KINDS = (
    "drift_number", "wrong_period", "negation_flip", "attribution_swap", "modality_slip",
    "scope_creep", "quantifier_inflation",
)  # fmt: skip


class Row(BaseModel):
    id: str
    claim: str
    span: str
    label: Label
    origin: str  # "wice" or "synthetic:<kind>"
    group: str
    fold: int


def _load_pages(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def assign_folds(groups: list[str], n: int = N_FOLDS) -> dict[str, int]:
    order = sorted(set(groups), key=lambda g: hashlib.sha256(g.encode()).hexdigest())
    return {g: i % n for i, g in enumerate(order)}


# ---------------------------------------------------------------- synthetic pairs


def _usable(sentence: str) -> bool:
    s = sentence.strip()
    words = s.split()
    if not 8 <= len(words) <= 45 or s.startswith(("(meta data)", "#")) or is_breadcrumb(s):
        return False
    # headings, menus, captions and cut-off fragments are not claims
    return sum(w[:1].islower() for w in words) >= 4 and s.endswith((".", '"', "”"))


def _window(sentences: list[str], i: int, radius: int = 1, skip: set[int] | None = None) -> str:
    lo, hi = max(0, i - radius), min(len(sentences), i + radius + 1)
    kept = [
        sentences[j].strip()
        for j in range(lo, hi)
        if j not in (skip or set()) and not sentences[j].startswith("(meta data)")
    ]
    return " ".join(s for s in kept if s)


def _lower_first(text: str, page_words: frozenset[str]) -> str:
    """Lower a capitalised first word the page also writes in lower case ("The", "Players"),
    so joining two sentences does not make a common word look like a name."""
    first = text.split(" ", 1)[0]
    bare = first.strip("\"“'(")
    if bare[:1].isupper() and bare[1:].islower() and bare.lower() in page_words:
        return text.replace(bare, bare.lower(), 1)
    return text


def _join(a: str, b: str, page_words: frozenset[str]) -> str:
    return a.rstrip().rstrip(".") + ", and " + _lower_first(b.strip(), page_words)


def _clause_of(sentence: str, rng: random.Random) -> str | None:
    parts = [p for p in split_clauses(sentence) if len(p.split()) >= 5]
    if len(parts) < 2:
        return None
    part = parts[rng.randrange(len(parts))].strip()
    return part if part.endswith(".") else part + "."


class _Page(BaseModel):
    wice_id: str
    group: str
    fold: int
    sentences: list[str]
    usable: list[int]
    words: frozenset[str] = frozenset()  # content keys of the usable sentences


def _synthetic_for(page: _Page, same_fold: list[_Page], pool: list[Pair]) -> list[Row]:
    from spanproof.planted_failures import MUTATORS

    rng = random.Random(f"synthetic|{page.wice_id}")
    sents = page.sentences
    out: list[Row] = []

    def add(kind: str, claim: str, span: str, label: Label) -> None:
        if claim.strip() and span.strip() and claim.strip() != span.strip():
            out.append(
                Row(
                    id=f"syn-{page.wice_id}-{len(out)}-{kind}",
                    claim=claim.strip(),
                    span=span.strip(),
                    label=label,
                    origin=f"synthetic:{kind}",
                    group=page.group,
                    fold=page.fold,
                )
            )

    if not page.usable:
        return out
    lower_words = (
        frozenset(w for s in sents for w in re.findall(r"\b[a-z][a-z'-]*\b", s)) | STOPWORDS
    )
    picks = rng.sample(page.usable, min(2, len(page.usable)))
    others = [p for p in same_fold if p.wice_id != page.wice_id and p.usable]
    for n, i in enumerate(picks):
        sentence, window = sents[i], _window(sents, i)
        add("sentence", sentence, window, "SUPPORTED")
        if n:
            continue  # the rest are made around the first pick only
        base = Pair(id=f"syn-{page.wice_id}", claim=sentence, span=window, label="SUPPORTED")
        for kind in MUTATOR_KINDS:
            mutator = MUTATORS[kind]
            planted = mutator(base, random.Random(f"synthetic|{page.wice_id}|{kind}"), pool)
            if planted is not None:
                add(kind, planted.claim, planted.span, mutator.expected)
        clause = _clause_of(sentence, rng)
        if clause:
            add("clause", clause, window, "SUPPORTED")
        if i + 1 < len(sents) and i + 1 in page.usable:
            add("joined", _join(sentence, sents[i + 1], lower_words), _window(sents, i, 2),
                "SUPPORTED")  # fmt: skip
        distant = [
            j for j in page.usable if abs(j - i) >= 3 and coverage(sents[j], window)[0] < 0.5
        ]
        if distant:
            j = distant[rng.randrange(len(distant))]
            add("distant_clause", _join(sentence, _clause_of(sents[j], rng) or sents[j], lower_words),
                window,
                "PARTIAL")  # fmt: skip
            add("distant_sentence", sents[j], window, "NOT_SUPPORTED")
        removed = _window(sents, i, 2, skip={i})
        if coverage(sentence, removed)[0] < 0.6:
            add("removed", sentence, removed, "NOT_SUPPORTED")
        if others:
            donor = others[rng.randrange(len(others))]
            k = donor.usable[rng.randrange(len(donor.usable))]
            clause = _clause_of(donor.sentences[k], rng) or donor.sentences[k]
            add("foreign_clause", _join(sentence, clause, lower_words), window, "PARTIAL")
            # the other page's sentence that shares most words with this window
            wanted = key_set(window)
            near = sorted(others, key=lambda p: (-len(wanted & p.words), p.wice_id))[:5]
            best = max(
                ((len(wanted & key_set(p.sentences[k2])), p.wice_id, k2, p) for p in near
                 for k2 in p.usable),
                key=lambda t: (t[0], t[1], -t[2]),
            )  # fmt: skip
            add("other_page", best[3].sentences[best[2]], window, "NOT_SUPPORTED")
    return out


# ---------------------------------------------------------------- the training set


def training_rows(
    pairs_path: Path = WICE_PAIRS, pages_path: Path = WICE_PAGES, *, synthetic: bool = True
) -> list[Row]:
    pairs = load_pairs(pairs_path)
    group_of = {
        (p.source or {}).get("wice_id", p.id): ((p.source or {}).get("title") or p.id)
        for p in pairs
    }
    folds = assign_folds(list(group_of.values()))
    rows = [
        Row(
            id=p.id,
            claim=p.claim,
            span=p.span,
            label=p.label or "NOT_SUPPORTED",
            origin="wice",
            group=group_of[(p.source or {}).get("wice_id", p.id)],
            fold=folds[group_of[(p.source or {}).get("wice_id", p.id)]],
        )
        for p in pairs
        if p.label is not None
    ]
    if not synthetic:
        return rows
    pages = []
    for raw in _load_pages(pages_path):
        group = group_of.get(raw["wice_id"], raw["wice_id"])
        sents = [re.sub(r"\s+", " ", s).strip() for s in raw["sentences"]]
        pages.append(
            _Page(
                wice_id=raw["wice_id"],
                group=group,
                fold=folds.get(group, 0),
                sentences=sents,
                usable=(usable := [i for i, s in enumerate(sents) if _usable(s)]),
                words=frozenset().union(*(key_set(sents[i]) for i in usable)),
            )
        )
    by_fold: dict[int, list[_Page]] = {}
    for p in pages:
        by_fold.setdefault(p.fold, []).append(p)
    for page in pages:
        # The mutators' pool: pairs of this fold only (a swapped source never crosses folds).
        pool = [
            Pair(id=f"pool-{p.wice_id}", claim=p.sentences[p.usable[0]],
                 span=_window(p.sentences, p.usable[0]), label="SUPPORTED")
            for p in by_fold[page.fold] if p.usable and p.wice_id != page.wice_id
        ]  # fmt: skip
        rows += _synthetic_for(page, by_fold[page.fold], pool)
    return rows


def data_sha256(rows: list[Row]) -> str:
    """sha256 of the rows as canonical JSON lines: what the fitted parameters were fitted on."""
    h = hashlib.sha256()
    for r in rows:
        h.update(json.dumps(r.model_dump(), sort_keys=True, ensure_ascii=False).encode() + b"\n")
    return h.hexdigest()
