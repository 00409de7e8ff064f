"""When two words say the same thing: the same lemma, a synonym or a derived form, by WordNet.

The slot reader aligns a claim with its span through the words around each value. Literal
identity misses the paraphrases writers use ("won the title" / "captured the championship",
"distributed by" / "distribution was handled by", "held" / "holds"), so a word is read as a
set of *keys*: its own light stem, and the WordNet concepts it takes part in
(``lexicons/wordnet_concepts.tsv.gz``, built from WordNet 3.0 by
``scripts/build_wordnet_concepts.py``: the first four senses of a word, the synsets they are
in and the words derived from them; irregular forms carry their base's; and one step down
WordNet's verb hierarchy, a join of a verb to the verbs whose first sense is one step
narrower than one of its own, "rose" / "climbed", "fell" / "dropped", never between two
narrower verbs, an antonym or from a root sense). Two words *match* when their keys meet.

A maintained lexical resource rather than a list of our own: the pairs it joins and the pairs
it keeps apart ("revenue" / "profit", "rose" / "fell", "founded" / "closed") are WordNet's.
"""

from __future__ import annotations

import gzip
from functools import cache, lru_cache
from importlib import resources

from spanproof.core.text import STOPWORDS, stem

_PACKAGE = "spanproof.graders.specifics"
_FILE = "wordnet_concepts.tsv.gz"
# regular inflections tried against the table when a form is not in it ("stores" -> "store")
_ENDINGS = (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("ing", ""), ("ing", "e"))
# what a word ends with when any ending of _ENDINGS (or the doubled consonant's "ed"/"ing") does
_ENDING_TAILS = ("s", "ed", "ing")


@cache
def _table() -> dict[str, str]:
    """word -> its row as written ("ids<TAB>pos"), read by ``_row`` when the word is looked
    up: a text asks for a few hundred of the table's words, so parsing every row at start-up
    would cost more than all the look-ups of an audit."""
    raw = resources.files(_PACKAGE).joinpath("lexicons", _FILE).read_bytes()
    return dict(line.split("\t", 1) for line in gzip.decompress(raw).decode().splitlines())


@lru_cache(maxsize=65536)
def _row(word: str) -> tuple[tuple[int, ...], str] | None:
    """(the concepts of ``word``, the parts of speech WordNet knows it as: n, v or nv), or
    None when the table lacks it."""
    row = _table().get(word)
    if row is None:
        return None
    ids, pos = row.split("\t")
    return tuple(int(i) for i in ids.split()), pos


def load() -> None:
    """Read the table now, once per process, rather than at the first word looked up."""
    _table()


def _entry(low: str) -> tuple[tuple[tuple[int, ...], str], str] | None:
    """(the table's entry for ``low`` or for the base it inflects, the ending stripped)."""
    row = _row(low)
    if row is not None:
        return row, ""
    if not low.endswith(_ENDING_TAILS):
        return None  # no ending below can be stripped: one test instead of nine
    for ending, repl in _ENDINGS:
        if low.endswith(ending) and len(low) - len(ending) >= 3:
            row = _row(low[: -len(ending)] + repl)
            if row is not None:
                return row, ending
    # a doubled consonant before -ed/-ing ("stopped", "planning")
    for ending in ("ed", "ing"):
        if low.endswith(ending) and len(low) > len(ending) + 3:
            base = low[: -len(ending)]
            if base[-1] == base[-2] and (row := _row(base[:-1])) is not None:
                return row, ending
    return None


def _concepts(low: str) -> tuple[int, ...]:
    found = _entry(low)
    return found[0][0] if found else ()


@lru_cache(maxsize=65536)  # asked for every content word of every claim and span
def keys(word: str) -> frozenset[str | int]:
    """The keys of one word (empty for a stopword): its 5-letter stem and its concepts."""
    low = word.lower().replace("’", "'")
    if low.endswith("'s"):
        low = low[:-2]
    if low in STOPWORDS or len(low) < 2:
        return frozenset()
    return frozenset((stem(low)[:5], *_concepts(low)))


# the adverbial particles the table joins to a verb (scripts/build_wordnet_concepts.py)
PARTICLES = frozenset(["up", "down", "out", "off", "over", "away", "back"])


@lru_cache(maxsize=16384)
def phrase_keys(verb: str, particle: str) -> frozenset[str | int]:
    """The keys of a verb and its particle read as the one verb WordNet lists ("set up":
    found; "turned down": reject; "took over"), with the phrase itself as a key, which marks
    the word a verb; empty when WordNet lists no such phrase."""
    low, part = verb.lower(), particle.lower()
    if part not in PARTICLES:
        return frozenset()
    # the verb as written ("took_over" is listed whole), then its regular bases
    bases = [low] + [low[: -len(e)] + r for e, r in _ENDINGS if low.endswith(e)]
    for e in ("ed", "ing"):  # a doubled consonant ("setting" -> "set")
        stem_ = low[: -len(e)]
        if low.endswith(e) and len(stem_) >= 3 and stem_[-1] == stem_[-2]:
            bases.append(stem_[:-1])
    for base in bases:
        phrase = f"{base}_{part}"
        row = _row(phrase)
        if row is not None:
            return frozenset((phrase, *row[0]))
    return frozenset()


def phrase_concepts(keys: frozenset) -> frozenset[int]:
    """The concepts of the verb phrase a word's keys hold (``phrase_keys``), not its own."""
    out: set[int] = set()
    for k in keys:
        if isinstance(k, str) and "_" in k and (row := _row(k)) is not None:
            out.update(row[0])
    return frozenset(out)


def phrase_verb(keys: frozenset) -> bool:
    """Whether a word's keys hold a verb phrase's (``phrase_keys``): the word is its verb."""
    return any(isinstance(k, str) and "_" in k for k in keys)


def same(a: str, b: str) -> bool:
    """Whether two words say the same thing (module docstring)."""
    return bool(keys(a) & keys(b))


@lru_cache(maxsize=16384)
def verb_form(word: str, *, after_noun: bool = False, irregular: bool = False) -> bool:
    """Whether ``word`` is a verb as written: WordNet knows it only as a verb ("consists",
    "began"), it inflects a verb with -ed or -ing ("raised", "announcing"), or, right after
    a noun (``after_noun``), with -s ("the trail runs", "the fleet numbers") or, when asked
    (``irregular``), as an irregular form WordNet also lists as a noun ("the senator won")."""
    found = _entry(word.lower())
    if found is None:
        return False
    (_, pos), ending = found
    if pos.replace("x", "") == "v" or ("v" in pos and ending in ("ed", "ing")):
        return True
    if irregular and after_noun and "x" in pos and not ending:
        return True  # an irregular past form after its subject ("the Lakers won", "Smith led")
    return after_noun and "v" in pos and ending in ("s", "es", "ies")


@lru_cache(maxsize=16384)
def verb_sense(word: str) -> bool:
    """Whether WordNet knows ``word`` as a verb in some form: itself ("beat", "won") or the
    base it inflects ("beating", whose own entry is the noun). Whether it is one where it
    stands is the caller's to read from the words around it."""
    low = word.lower()
    found = _entry(low)
    if found is not None and "v" in found[0][1]:
        return True
    for ending, repl in _ENDINGS:
        if low.endswith(ending) and len(low) - len(ending) >= 3:
            base = _row(low[: -len(ending)] + repl)
            if base is not None and "v" in base[1]:
                return True
    return False


@lru_cache(maxsize=16384)
def noun_form(word: str) -> bool:
    """Whether WordNet knows ``word`` (or the base it inflects) as a noun ("piers", "titles";
    not "across")."""
    found = _entry(word.lower())
    return found is not None and "n" in found[0][1]


def common_word(word: str) -> bool:
    """Whether WordNet knows ``word`` as a common noun or verb ("population", "directed")."""
    return bool(_concepts(word.lower()))
