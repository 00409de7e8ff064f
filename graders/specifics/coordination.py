"""Elements a claim joins with "and" that its span never joins.

Widening a claim by coordination is how scope creeps in writing: "two children" becomes
"two children and adults", "elected to the Seattle City Council" becomes "... the Council
and Teresa Mosqueda". Two findings, for "A and B" in the claim (no comma before "and": a
comma usually starts a new clause, "..., and Castle Cove has been ..."):

- ``unstated``: B is a common noun ending the phrase ("and adults.", "and visitors in")
  whose words the span never states. A lower-case word followed by more words is left
  alone: "went mad and built this house" is a verb phrase, not a list. A name B the span
  lacks is the entity check's (graders.specifics.comparison).
- ``apart``: both A and B are in the span, but the span never puts them together: no
  coordinator ("and", "or", "&", a comma, "with", "plus") between them within
  ``MAX_GAP`` words. "Velvet Revolver and Alice in Chains" is met by "Velvet Revolver and
  the remaining members of Alice in Chains"; "Savatage and Dave Mustaine" is not met by a
  span that names Mustaine in one sentence and Savatage in another.

For a capitalised A, any distinctive word of the name before "and" counts ("Impulse!
Records and Decca Records" is met by "Impulse! (John Coltrane, Charles Mingus) and Decca").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spanproof.graders.specifics.names import GENERIC_NAME_WORDS

from spanproof.core.text import STOPWORDS, fold, stem

# Words allowed between two elements the span joins ("Velvet Revolver and the remaining
# members of Alice in Chains": 5). Chosen on the WiCE development pairs (never on the
# calibration set): no SUPPORTED pair fires at 6.
MAX_GAP = 6
_NAME = r"[A-Z][\w'’.!-]*(?:\s+(?:of\s+|the\s+|de\s+)?[A-Z][\w'’.!-]*)*"
_COORD = re.compile(rf"([\w'’.!-]+)\s+(?:and|&)\s+({_NAME}|[a-z][\w'’-]+)")
_NAME_BEFORE = re.compile(r"((?:[A-Z][\w'’.!-]*\s+(?:of\s+|the\s+)?)*[A-Z][\w'’.!-]*)$")
_TOKEN = re.compile(r"[\w'’.!-]+|[,&/|]")
_JOINERS = {"and", "or", "&", ",", "with", "plus", "nor", "/", "|", "both", "as", "well", "along"}
# a common noun ends its phrase before one of these (or punctuation): "and adults in ..."
_PHRASE_ENDS = {
    "of", "in", "for", "at", "from", "to", "with", "on", "by", "during", "across", "who",
    "that", "which", "and", "or", "between", "under", "over", "as",
}  # fmt: skip


@dataclass(frozen=True)
class Coordination:
    kind: str  # "unstated" | "apart"
    element: str  # "A and B" as the claim writes it

    def __str__(self) -> str:
        return (
            f"{self.element} (the span never states {self.element.split(' and ', 1)[1]!r})"
            if self.kind == "unstated"
            else f"{self.element} (the span never joins them)"
        )


def _bare(token: str) -> str:
    return fold(token).strip(".'’-!")


def _norm(token: str) -> str:
    return stem(_bare(token).replace("-", ""))


def _words(text: str) -> list[str]:
    return [t for t in re.findall(r"[\w'’.!-]+", text) if _bare(t) not in STOPWORDS]


def coordination_departures(claim: str, span: str) -> list[Coordination]:
    coordinated = list(_COORD.finditer(claim))
    if not coordinated:
        return []  # nothing the claim joins: the span's words are not read for it
    raw = [t.lower() for t in _TOKEN.findall(span)]
    norm = [_norm(t) for t in raw]
    present = set(norm)
    span_text = " ".join(fold(span).lower().split())
    out: list[Coordination] = []
    for m in coordinated:
        a, b = m.group(1), m.group(2)
        if " ".join(fold(m.group(0)).lower().split()) in span_text:
            continue  # the span joins them in these very words (however they tokenise)
        b_words = _words(b)
        if _bare(a) in STOPWORDS or not _bare(a) or _bare(a).isdigit() or not b_words:
            continue
        if len(_bare(b_words[0])) < 2:
            continue
        element = f"{a} and {b}"
        if b[:1].islower():
            if _bare(b).endswith(("ed", "ing")) or a[:1].isupper() or "'" in b or "’" in b:
                continue  # a verb, a contraction, or a common noun after a name
            # the pattern's parts are all optional, so it matches wherever it starts
            next_word = re.match(r"\s*([\w'’-]+|[^\w\s])?", claim[m.end() :])
            after = (next_word.group(1) if next_word else None) or "."
            if after[:1].isalnum() and after.lower() not in _PHRASE_ENDS:
                continue  # "mad and built this", "art-making and music lessons"
            if not all(_norm(w) in present for w in b_words):
                out.append(Coordination("unstated", element))
            continue
        if not all(_norm(w) in present for w in b_words):
            continue  # a name the span lacks: the entity check's finding
        if a[:1].isupper():
            run = _NAME_BEFORE.search(claim[: m.start(1) + len(a)])
            names = _words(run.group(1)) if run else [a]
            a_words = [w for w in names if _bare(w) not in GENERIC_NAME_WORDS] or names
        else:
            a_words = [a]
        # "African-Americans" is written "African Americans" as often: its parts count too
        a_keys = {_norm(w) for w in a_words} | {
            _norm(p) for w in a_words for p in w.split("-") if len(p) >= 3
        }
        b_key = _norm(b_words[0])
        if not a_keys & present:
            continue
        ia = [i for i, x in enumerate(norm) if x in a_keys]
        ib = [i for i, x in enumerate(norm) if x == b_key]
        joined = any(
            0 < abs(i - j) <= MAX_GAP + 1
            and any(t in _JOINERS for t in raw[min(i, j) + 1 : max(i, j)])
            for i in ia
            for j in ib
        )
        if not joined:
            out.append(Coordination("apart", element))
    return out
