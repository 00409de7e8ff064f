"""Named entities, found by capitalisation, and whether a text names them.

Entities are maximal runs of capitalised tokens, allowing lower-case connectors inside a run
("Bank of England", "Led Zeppelin", "Thomas K. Arnold"). The first token of a sentence is
dropped when its lower-case form is a common word ("The", "He", "In"), month and weekday
names are dates not entities, and possessive "'s" is removed. This misses entities written
in lower case and over-collects title-cased headings; both errors are visible in the audit's
``checks``.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from spanproof.graders.specifics import lexicon
from spanproof.graders.specifics.dates import _HOLIDAY, MONTHS, WEEKDAYS, blank

from spanproof.core.text import STOPWORDS, fold, stem

_CONNECTORS = lexicon.words("name_connectors")
COMMON_CAPITALISED = STOPWORDS | lexicon.words("common_capitalised")
GENERIC_NAME_WORDS = lexicon.words("generic_name_words")

_CAP_TOKEN = re.compile(r"[A-Z][\w’'.\-]*|[A-Z]\.|&")
# the first characters _CAP_TOKEN accepts (stripping a possessive keeps a token's first one)
_CAP_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ&")
_SPLIT_TOKENS = re.compile(r"[\w’'.\-&]+|[^\w\s]")
_NAME_TOKEN = re.compile(r"[\w’'.\-]+")
# Where a run of capitalised words must stop: a sentence break, but not after an initial
# ("Thomas K. Arnold", "R.-and-B.") or "U.S.". Not the shared splitter: a name run only
# needs to stop at a sentence end, pysbd costs ~6x as much on every claim and span the audit
# reads, and on the 697 WiCE development texts the two give other names for 2, both from
# an initial pysbd ends a sentence after ("R.-and-B." read as "R.").
_NAME_RUN_BREAK = re.compile(r"(?<=[.!?])(?<![\s.][A-Z]\.)(?<!^[A-Z]\.)\s+(?=[A-Z\"“(])|\n+")
# Capitalised words dropped when they open a name mid-sentence ("The" of "The Beatles");
# not "New" of "New York", which COMMON_CAPITALISED drops only at a sentence start.
_RUN_OPENERS = COMMON_CAPITALISED - {"new", "first", "last", "one", "two", "three", "home", "news"}
# the common words that open a name wherever it stands ("New Zealand", "First Solar"): at a
# sentence start too when a capitalised word follows ("New Zealand won", not "New rules")
_NAME_OPENERS = COMMON_CAPITALISED - _RUN_OPENERS
_QUARTER_TOKEN = re.compile(r"^Q[1-4]$")


def _opens_name(toks: list[str], i: int) -> bool:
    nxt = toks[i + 1] if i + 1 < len(toks) else ""
    return bool(_CAP_TOKEN.match(nxt)) and nxt.lower() not in COMMON_CAPITALISED


_PRONOUN_CAPS = {"I", "I'm", "I’m", "I've", "I’ve", "I'd", "I’d", "I'll", "I’ll"}
PREFIX = 5  # demonyms and derived forms: "Libyan"/"Libya", "Canadians"/"Canada"


_POSSESSIVE = ("'s", "’s", "'", "’")


def strip_possessive(tok: str) -> str:
    tok = tok.rstrip(',;:!?"”)')
    if not tok.endswith(_POSSESSIVE):  # most words: one test of all four endings
        return tok
    for suffix in _POSSESSIVE:
        if tok.endswith(suffix):
            return tok[: -len(suffix)]
    return tok


@lru_cache(maxsize=4096)
def _extract_entities(text: str) -> tuple[str, ...]:
    entities: list[str] = []
    text = _HOLIDAY.sub(blank, text)  # "New Year's Day" is a date, not a name
    for sentence in _NAME_RUN_BREAK.split(text):
        toks = _SPLIT_TOKENS.findall(sentence)
        run: list[str] = []

        def flush(run: list[str] = run) -> None:
            while run and run[-1].lower() in _CONNECTORS:
                run.pop()
            if run:
                entities.append(" ".join(run))
            run.clear()

        for i, tok in enumerate(toks):
            if not run and tok[0] not in _CAP_FIRST:
                continue  # a word that neither starts nor continues a name (most words)
            clean = strip_possessive(tok)
            is_cap = bool(clean) and bool(_CAP_TOKEN.match(clean))
            low = clean.lower().strip(".")
            if is_cap and (low in MONTHS and len(low) > 2 or low in WEEKDAYS):
                flush()
                continue
            if (
                is_cap
                and i == 0
                and (low in COMMON_CAPITALISED or low.endswith(("ly", "ing")) or low == "a")
                and not (low in _NAME_OPENERS and _opens_name(toks, i))
            ):
                continue  # sentence-initial common word
            if clean in _PRONOUN_CAPS:
                flush()  # "I" is capitalised everywhere and names no one
                continue
            if is_cap and _QUARTER_TOKEN.match(clean):
                flush()
                continue
            if is_cap and low in _RUN_OPENERS and not run and (len(low) > 1 or clean == "A"):
                # a capitalised common word opening a run ("The" in "The Beatles") is dropped;
                # the content words that follow still form the entity
                continue
            if is_cap:
                if (
                    clean.endswith(".")
                    and len(clean) > 2
                    and not re.fullmatch(r"(?:[A-Z]\.)+", clean)
                ):
                    clean = clean[:-1]  # sentence-final period, not an initial or "U.S."
                run.append(clean)
                if clean != tok.rstrip(',;:!?"”)') or tok.endswith(
                    (",", ";", ":", ")", '"', "”", "!", "?")
                ):
                    flush()  # possessive or punctuation ends the name
            elif run and low in _CONNECTORS:
                run.append(low)
            else:
                flush()
        flush()
    seen: set[str] = set()
    out = []
    for e in entities:
        if e.lower() not in seen and any(c.isalpha() for c in e):
            seen.add(e.lower())
            out.append(e)
    return tuple(out)


def extract_entities(text: str) -> list[str]:
    """Capitalised runs, as described in the module docstring."""
    return list(_extract_entities(text))


def entity_tokens(entity: str) -> list[str]:
    out = []
    for t in re.findall(r"[\w’'.\-]+", entity):
        t = strip_possessive(fold(t).strip("'")).strip(".-")
        if t and t not in _CONNECTORS:
            out.append(t)
    return out


def token_present(t: str, text_tokens: set[str]) -> bool:
    if t in text_tokens or stem(t) in text_tokens:
        return True
    if "-" in t and all(token_present(p, text_tokens) for p in t.split("-") if p):
        return True
    return len(t) >= PREFIX + 1 and "pre:" + t[:PREFIX] in text_tokens


def entity_present(entity: str, text_tokens: set[str], *, strict: bool = True) -> bool:
    """Whether the text names this entity.

    Tokens match after accent folding, light stemming, hyphen splitting/joining, and on a
    shared 5-letter prefix for tokens of 6+ letters; initials ("K.") are optional, so
    "Thomas Arnold" is found in "Thomas K. Arnold".

    ``strict=True``: every content token must occur. ``strict=False`` (the audit): the
    entity's *head* must occur — its last distinctive token, i.e. the last one that is not a
    title or institution word (GENERIC_NAME_WORDS). So "Dave Filoni" is found in "Filoni
    revealed" (a surname alone is how reports name people), "United States Supreme Court" in
    "the Supreme Court", but "John Smith" is not found in "John Brown" nor "Bank of England"
    in "Bank of France". An entity made only of generic words needs one of them. In "X of Y"
    the head is X's last distinctive token when X has one ("Cavalry FC of the Canadian
    Premier League"), else Y's ("Bank of England"). Known gap: a head found alone passes, so
    "New York" is found in "York".
    """
    needed = [t for t in entity_tokens(entity) if len(t) > 1]
    if not needed:
        # Only single letters ("R&B", a stray "U"): nothing distinctive to look up, so the
        # letters themselves must occur.
        letters = entity_tokens(entity)
        return bool(letters) and all(t in text_tokens for t in letters)
    if strict:
        return all(token_present(t, text_tokens) for t in needed)
    raw = [t.lower() for t in re.findall(r"[\w’'.\-]+", entity)]
    before_of = entity_tokens(" ".join(raw[: raw.index("of")])) if "of" in raw else []
    for group in (before_of, needed):
        distinctive = [t for t in group if len(t) > 1 and t not in GENERIC_NAME_WORDS]
        if distinctive:
            return token_present(distinctive[-1], text_tokens)
    return any(token_present(t, text_tokens) for t in needed)


@lru_cache(maxsize=4096)
def _token_set(text: str) -> frozenset[str]:
    toks = {fold(t).strip(".'-") for t in _NAME_TOKEN.findall(text)}
    return frozenset(toks.union(*map(_lookup_forms, toks)))


@lru_cache(maxsize=65536)  # a token's forms, the same in every text that holds it
def _lookup_forms(t: str) -> frozenset[str]:
    base = strip_possessive(t)
    variants = {base}
    if "-" in base:
        variants.update(p for p in base.split("-") if p)
        variants.add(base.replace("-", ""))
    forms = set()
    for v in variants:
        forms.add(v)
        forms.add(stem(v))
        if len(v) >= PREFIX:
            forms.add("pre:" + v[:PREFIX])
    return frozenset(forms)


def token_set(text: str) -> set[str]:
    """The folded tokens of a text plus their stems, hyphen parts and 5-letter prefixes."""
    return set(_token_set(text))


# ---------------------------------------------------------------- how texts mention a name

_PRONOUN = re.compile(
    r"\b(?:he|she|him|his|her|hers|they|them|their|it|its|we|our|us|(?-i:I)|my|me)\b", re.I
)


def _edit1(a: str, b: str) -> bool:
    """One insertion, deletion or substitution apart ("Paterson" / "Patterson")."""
    if a == b or abs(len(a) - len(b)) > 1:
        return a == b
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i:] == b[i + 1 :] if len(a) < len(b) else a[i + 1 :] == b[i + 1 :]


MIN_VARIANT_LETTERS = (
    7  # shorter names differ by one letter too often ("Hanson"/"Hansen" stay apart)
)


def spelled_variant(token: str, text_tokens: set[str]) -> bool:
    """A long name written with one letter more, less or different ("Paterson"/"Patterson")."""
    if len(token) < MIN_VARIANT_LETTERS or not token.isalpha():
        return False
    return any(
        len(t) >= MIN_VARIANT_LETTERS - 1 and t[0] == token[0] and _edit1(token, t)
        for t in text_tokens
        if t.isalpha()
    )


def distinctive_tokens(entity: str) -> list[str]:
    return [t for t in entity_tokens(entity) if len(t) > 1 and t not in GENERIC_NAME_WORDS]


_CAPITALISED_NEXT = re.compile(r"\s+[A-Z]")


def first_name_mentioned(entity: str, span_text: str) -> bool:
    """A person's first name used alone ("Criss" for "Criss Oliva", "Lady Marina" for "Lady
    Marina Windsor"): the span writes the name's first distinctive word with no capitalised
    word after it (so "John Brown" is not "John Smith", nor "Sun Valley" the "Sun Valley
    Conference"). Names with connectors ("Libya and Nepal", "Bank of England") are not
    people's names and are left to the head rule."""
    raw = re.findall(r"[\w’'.\-&]+", entity)
    distinctive = distinctive_tokens(entity)
    if len(distinctive) < 2 or len(raw) > 4 or any(t.lower() in _CONNECTORS for t in raw):
        return False
    first = distinctive[0]
    for m in re.finditer(r"[\w’'.\-]+", span_text):
        if strip_possessive(fold(m.group(0))).strip(".'") != first:
            continue
        if not _CAPITALISED_NEXT.match(span_text, m.end()):
            return True
    return False


@cache
def _organisation_nouns() -> tuple[frozenset[str], frozenset[str]]:
    """(nouns of an organisation's kind, first words of a firm's two-word noun), from
    ``lexicons/organisation_nouns.txt`` (``scripts/build_organisation_nouns.py``)."""
    found: dict[str, set[str]] = {"kind": set(), "firm": set()}
    for line in lexicon.entries("organisation_nouns"):
        section, _, word = line.partition("\t")
        if section not in found or not word:
            raise ValueError(
                f"lexicons/organisation_nouns.txt: bad line {line!r}; rebuild it with "
                "scripts/build_organisation_nouns.py"
            )
        found[section].add(word)
    return frozenset(found["kind"]), frozenset(found["firm"])


def load() -> None:
    """Read the organisation nouns now, before the first pair (slot_reader.load_tables)."""
    _organisation_nouns()


# a plural's singular forms: "industries" -> "industry", "holdings" -> "holding"
_PLURALS = (("ies", "y"), ("es", ""), ("s", ""))


def organisation_ending(word: str) -> bool:
    """Whether a name ending with ``word`` names an organisation by its structure: a noun of
    an organisation's kind in WordNet ("Halden Construction", "Varley Industries"), or the
    plural of the first word of a firm's noun ("Northgate Holdings": a holding company)."""
    low = word.lower().strip(".")
    kinds, firms = _organisation_nouns()
    if low in kinds:
        return True
    singular = [
        low[: -len(e)] + r for e, r in _PLURALS if low.endswith(e) and len(low) > len(e) + 2
    ]
    return any(w in kinds or w in firms for w in singular)


def only_generic(entity: str) -> bool:
    """A capitalised common noun referring back ("the Park", "the Company"), not a name."""
    toks = [t for t in entity_tokens(entity) if len(t) > 1]
    return bool(toks) and all(t in GENERIC_NAME_WORDS for t in toks)


def refers_back(span_text: str) -> bool:
    """The span speaks of someone or something by pronoun ("he", "its", "I")."""
    return bool(_PRONOUN.search(span_text))
