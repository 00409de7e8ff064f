"""The built-in mutators. Each corrupts a SUPPORTED (claim, span) pair in one known way.

Claim mutators change only the claim; span mutators change only the span. A
mutator returns None when its kind does not apply to the pair (no number to
drift, no month to shift), so the planted set only holds real corruptions.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache

from spanproof.planted_failures.pages import page_for
from spanproof.planted_failures.registry import Edit, mutator

from spanproof.core.sentences import sentence_spans
from spanproof.core.verdict import Pair

# ---------------------------------------------------------------- helpers

_STOP = frozenset(
    """a an the of in on at to for from by with and or but is are was were be been being has have
    had it its this that these those as into than then also which who whom whose what when where
    not no he she they his her their them we our you your i s""".split()  # noqa: SIM905
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d[\d,.]*")


def content_words(text: str) -> set[str]:
    return set(_content_words(text))


@lru_cache(maxsize=4096)  # swap_source reads every span of the pool for every pair
def _content_words(text: str) -> frozenset[str]:
    return frozenset(w.lower().strip("'") for w in _WORD.findall(text) if w.lower() not in _STOP)


def _match_case(original: str, new: str) -> str:
    if original[:1].isupper() and new[:1].islower():
        return new[:1].upper() + new[1:]
    return new


def _pick(
    rng: random.Random, candidates: list[tuple[int, int, str]]
) -> tuple[int, int, str] | None:
    if not candidates:
        return None
    return candidates[rng.randrange(len(candidates))]


def _apply(text: str, cand: tuple[int, int, str]) -> Edit:
    start, end, new = cand
    return Edit(before=text[start:end], after=new, claim=text[:start] + new + text[end:])


def _lexicon_candidates(
    text: str, lexicon: dict[str, list[str]], rng: random.Random
) -> list[tuple[int, int, str]]:
    out = []
    for phrase, replacements in lexicon.items():
        for m in re.finditer(
            rf"(?<![\w-]){re.escape(phrase)}(?![\w'’-])", text, flags=re.IGNORECASE
        ):
            # "New York" inside "New York Times" or "the United States National Film Registry"
            # is part of a longer name; widening it would garble the claim, not creep its scope.
            if any(ch.isupper() for ch in phrase) and re.match(r"\s+[A-Z]", text[m.end() :]):
                continue
            new = rng.choice(replacements)
            prior = text[: m.start()].rstrip()
            sentence_start = not prior or prior.endswith((".", "!", "?"))
            if phrase[:1].islower() and m.group(0)[:1].isupper() and not sentence_start:
                continue  # "National" in "Democratic National Committee" is a name, not a scope
            if phrase[:1].isupper() and not re.search(
                r"\b(?:in|across|throughout)\s+$", text[: m.start()]
            ):
                continue  # a place widens only where it is the scope: "in Scotland", not "Scotland's"
            at_start = not text[: m.start()].strip() or text[: m.start()].rstrip().endswith(
                (".", "!", "?")
            )
            out.append(
                (
                    m.start(),
                    m.end(),
                    _match_case(m.group(0), new) if at_start or not new[:1].islower() else new,
                )
            )
    # Prefer the longest match at a position so "is expected to" beats "to".
    out.sort(key=lambda c: (c[0], -(c[1] - c[0])))
    kept: list[tuple[int, int, str]] = []
    for c in out:
        if not kept or c[0] >= kept[-1][1]:
            kept.append(c)
    return kept


# ---------------------------------------------------------------- swap_source


def _page_key(pair: Pair) -> str | None:
    src = pair.source or {}
    for key in ("url", "page_id", "doc_id", "title", "wice_id"):
        if src.get(key):
            return f"{key}:{src[key]}"
    return None


_PORT = Pair(
    id="example-port",
    claim="The port handled 2 million containers in 2023.",
    span="The port handled 2 million containers in 2023, its busiest year since it opened.",
    label="SUPPORTED",
)
_PORT_NEIGHBOUR = Pair(
    id="example-port-neighbour",
    claim="A second port on the coast handled fewer containers in 2023.",
    span="The coast's second port handled 800,000 containers in 2023 after a crane failure.",
    label="SUPPORTED",
)


@mutator(
    "swap_source", expected="NOT_SUPPORTED", target="span", example=_PORT,
    example_pool=[_PORT_NEIGHBOUR],
)  # fmt: skip
def swap_source(pair: Pair, rng: random.Random, pool: list[Pair]) -> Edit | None:
    """Keep the claim; take the span of the most topic-adjacent other pair (word overlap)."""
    claim_words = content_words(pair.claim)
    own_words = content_words(pair.span)
    key = _page_key(pair)
    best: list[Pair] = []
    best_score = -1.0
    for other in pool:
        if other.id == pair.id or other.span.strip() == pair.span.strip():
            continue
        if key is not None and _page_key(other) == key:
            continue  # another window of the same page may still support the claim
        other_words = content_words(other.span)
        # A candidate that shares most of the original span's words is the same text.
        if own_words and len(own_words & other_words) / len(own_words) > 0.6:
            continue
        score = len(claim_words & other_words) / (len(claim_words) or 1)
        if score > best_score:
            best, best_score = [other], score
        elif score == best_score:
            best.append(other)
    if not best:
        return None
    chosen = best[rng.randrange(len(best))]
    return Edit(before=pair.span, after=chosen.span, span=chosen.span)


# ---------------------------------------------------------------- drift_number

_NUM_WORDS = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty",
]  # fmt: skip
_FRACTION_WORDS = {
    "a third": 1 / 3, "one third": 1 / 3, "one-third": 1 / 3, "two thirds": 2 / 3,
    "two-thirds": 2 / 3, "a quarter": 0.25, "one quarter": 0.25, "three quarters": 0.75,
    "half": 0.5, "a fifth": 0.2, "one fifth": 0.2, "one in five": 0.2, "one in four": 0.25,
    "one in three": 1 / 3,
}  # fmt: skip
_NUMBER = re.compile(
    r"(?<![\w.,/–-])(?P<num>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?P<pct>\s?%|\s?percent|\s?per cent)?(?![\w/]|[.,]\d)"
)
_DIGIT_FRACTION = re.compile(r"(?<![\w/])(?P<n>\d)/(?P<d>\d{1,2})(?![\w/])")


def _is_year(token: str) -> bool:
    return bool(re.fullmatch(r"1[0-9]\d\d|20\d\d", token))


_MONTH_WORD = r"(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?"


def _names_a_thing(text: str, start: int) -> bool:
    m = re.search(r"(?:^|(?<=\s))([A-Z][\w'-]*)\s+$", text[max(0, start - 30) : start])
    if not m:
        return False
    word = m.group(1)
    prior = text[: start - len(m.group(0))].rstrip()
    at_sentence_start = not prior or prior.endswith((".", "!", "?"))
    return not at_sentence_start and word.lower() not in _STARTERS and word not in _MONTHS


def _next_to_month(text: str, start: int, end: int) -> bool:
    return bool(
        re.search(rf"{_MONTH_WORD}\s+$", text[max(0, start - 12) : start])
        or re.match(rf"(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_WORD}", text[end : end + 16])
    )


def _drift_int(n: int, rng: random.Random) -> int:
    if n < 10:
        return n + rng.choice([1, 2]) if n < 2 or rng.random() < 0.5 else n - 1
    # ~10-20% away, rounded to the number's own precision: 3,000 -> 3,400, 12 -> 14.
    magnitude = 10 ** max(0, len(str(n)) - 2)
    delta = max(magnitude, round(n * rng.choice([0.12, 0.13, 0.15, 0.2]) / magnitude) * magnitude)
    return n + delta if rng.random() < 0.7 or n - delta <= 0 else n - delta


def _drift_token(token: str, rng: random.Random) -> str:
    plain = token.replace(",", "")
    if "." in plain:
        whole, frac = plain.split(".")
        value = float(plain)
        step = 10 ** -len(frac)
        new = value + step * rng.choice([2, 3, 4]) * (1 if rng.random() < 0.7 else -1)
        if new <= 0:
            new = value + step * 3
        return f"{new:.{len(frac)}f}"
    new = _drift_int(int(plain), rng)
    return f"{new:,}" if "," in token or (new >= 10000 and "," in token) else str(new)


@mutator(
    "drift_number",
    expected="NOT_SUPPORTED",
    example=Pair(
        id="example-survey", claim="A third of the households surveyed own a car.",
        span="According to the survey, a third of the households own a car.", label="SUPPORTED",
    ),
)  # fmt: skip
def drift_number(pair: Pair, rng: random.Random, pool: list[Pair]) -> Edit | None:
    """Move one quantity: 12% -> 14%, 3,000 -> 3,400, twelve -> fourteen, a third / 1/3 -> 34%."""
    text = pair.claim
    cands: list[tuple[int, int, str]] = []
    for phrase, value in _FRACTION_WORDS.items():
        # Only as a quantity ("a third of", "fell by a third."), never an ordinal ("a fifth season").
        pattern = rf"(?<![\w-]){re.escape(phrase)}(?=\s+of\b|\s*[.,;]|\s*$)"
        for m in re.finditer(pattern, text, flags=re.IGNORECASE):
            cands.append((m.start(), m.end(), f"{round(value * 100) + rng.choice([1, 2])}%"))
    for m in _DIGIT_FRACTION.finditer(text):
        n, d = int(m.group("n")), int(m.group("d"))
        if 0 < n < d:
            cands.append((m.start(), m.end(), f"{round(100 * n / d) + rng.choice([1, 2])}%"))
    for m in _NUMBER.finditer(text):
        num = m.group("num")
        if not m.group("pct") and _is_year(num):
            continue  # years belong to wrong_period
        if not m.group("pct") and _names_a_thing(text, m.start("num")):
            continue  # "Series 4", "Cheez-It 355", "Part 2": the number is part of a name
        if not m.group("pct") and _next_to_month(text, m.start("num"), m.end("num")):
            continue  # "July 28" is a date: drifting it can make an impossible day
        new = _drift_token(num, rng)
        cands.append((m.start("num"), m.end("num"), new))
    for i, word in enumerate(_NUM_WORDS):
        if i < 2:
            continue  # "one"/"zero" are too often pronouns or idioms ("one of the")
        for m in re.finditer(rf"(?<![\w-]){word}(?![\w-])", text, flags=re.IGNORECASE):
            j = i + rng.choice([1, 2]) if i + 2 < len(_NUM_WORDS) else i - 1
            cands.append((m.start(), m.end(), _match_case(m.group(0), _NUM_WORDS[j])))
    # Fractions and their digits overlap ("1/3" vs "1"): keep the earliest, longest.
    cands.sort(key=lambda c: (c[0], -(c[1] - c[0])))
    kept: list[tuple[int, int, str]] = []
    for c in cands:
        if (not kept or c[0] >= kept[-1][1]) and c[2] != text[c[0] : c[1]]:
            kept.append(c)
    cand = _pick(rng, kept)
    return _apply(text, cand) if cand else None


# ---------------------------------------------------------------- wrong_period

_MONTHS = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
]  # fmt: skip
_QUARTER = re.compile(r"(?<![\w-])(Q|H)([1-4])(?![\w-])")
_YEAR = re.compile(r"(?<![\d,.])(1[0-9]\d\d|20\d\d)(?![\d,.]?\d)")
# "May" is also a modal verb; only a capitalised May next to a day or year is a month.
_MONTH = re.compile(
    r"(?<![\w-])(January|February|March|April|June|July|August|September|October|November|December"
    r"|May(?=\s+\d|\s*,?\s*\d{4}|\s+of\s))(?![\w-])"
)


@mutator(
    "wrong_period",
    expected="NOT_SUPPORTED",
    example=Pair(
        id="example-sales", claim="Sales rose 12% in Q2 2019.",
        span="In Q2 2019 the company's sales rose 12% on the year before.", label="SUPPORTED",
    ),
)  # fmt: skip
def wrong_period(pair: Pair, rng: random.Random, pool: list[Pair]) -> Edit | None:
    """Move one time reference: Q2 -> Q1, March -> January, 2019 -> 2017, since January -> since March."""
    text = pair.claim
    cands: list[tuple[int, int, str]] = []
    for m in _QUARTER.finditer(text):
        letter, n = m.group(1), int(m.group(2))
        top = 4 if letter == "Q" else 2
        if n > top:
            continue
        others = [k for k in range(1, top + 1) if k != n]
        cands.append((m.start(), m.end(), f"{letter}{rng.choice(others)}"))
    for m in _MONTH.finditer(text):
        months = [mo for mo in _MONTHS if mo != m.group(1) and mo != "May"]
        cands.append((m.start(), m.end(), rng.choice(months)))
    for m in _YEAR.finditer(text):
        year = int(m.group(1))
        cands.append((m.start(), m.end(), str(year + rng.choice([-2, -1, 1, 2, -3]))))
    cand = _pick(rng, cands)
    return _apply(text, cand) if cand else None


# ---------------------------------------------------------------- scope_creep

_SCOPE_LEXICON = {
    "manufacturers": ["importers", "manufacturers and importers"],
    "manufacturer": ["importer"],
    "importers": ["manufacturers"],
    "producers": ["distributors"],
    "retailers": ["wholesalers and retailers"],
    "small businesses": ["all businesses"],
    "small and medium-sized enterprises": ["all enterprises"],
    "large companies": ["all companies"],
    "employers": ["all employers and contractors"],
    "adults": ["adults and children"],
    "children": ["children and adults"],
    "women": ["women and men"],
    "men": ["men and women"],
    "new vehicles": ["all vehicles"],
    "new cars": ["all cars"],
    "residents": ["residents and visitors"],
    "citizens": ["citizens and residents"],
    "public sector": ["public and private sector"],
    "first-time buyers": ["all buyers"],
    "urban areas": ["urban and rural areas"],
    "the region": ["every region"],
    "one region": ["all regions"],
    "in the state": ["nationwide"],
    "nationally": ["worldwide"],
    "national": ["international"],
    "domestic": ["domestic and export"],
    "locally": ["nationally"],
    "member states": ["all member states"],
    "England": ["the United Kingdom"],
    "Scotland": ["the United Kingdom"],
    "Wales": ["the United Kingdom"],
    "California": ["the United States"],
    "Texas": ["the United States"],
    "New York": ["the United States"],
    "Ontario": ["Canada"],
    "Bavaria": ["Germany"],
    "Germany": ["the European Union"],
    "France": ["the European Union"],
    "the United States": ["North America"],
    "the UK": ["Europe"],
    "the EU": ["Europe"],
    "London": ["the United Kingdom"],
    "Paris": ["France"],
    "San Diego": ["California"],
    "Los Angeles": ["California"],
    "Chicago": ["Illinois"],
    "Sydney": ["Australia"],
    "Toronto": ["Canada"],
}
_PROPER = re.compile(
    r"(?<![\w'])(?:[A-Z][A-Za-z]*[a-z][A-Za-z]*|[A-Z]{2,})(?:\s+(?:of\s+(?:the\s+)?|the\s+)?(?:[A-Z][A-Za-z]*[a-z][A-Za-z]*|[A-Z]{2,}))*(?![\w'’])"
)


def _proper_names(text: str) -> list[tuple[int, int, str]]:
    """Capitalised names not at a sentence start (a crude but predictable entity finder)."""
    out = []
    for m in _PROPER.finditer(text):
        before = text[: m.start()].rstrip()
        if not before or before.endswith((".", "!", "?", ":", '"')):
            continue
        if m.group(0).lower() in _STOP or m.group(0) in _MONTHS:
            continue
        if re.search(r"(?:^|\s)(?:a|an)$", before, flags=re.IGNORECASE):
            continue  # "a Terrace": a capitalised common noun inside a title
        if re.match(r"\s*[A-Z]", text[m.end() :]) or re.search(
            r"[A-Z][\w.]*\s*$", text[: m.start()]
        ):
            continue  # touches another capitalised token: part of a longer name ("Melvin R. Seiden")
        if any(w.isupper() and len(w) > 4 for w in m.group(0).split()):
            continue  # page furniture such as "PUBLISHED DATETIME"
        out.append((m.start(), m.end(), m.group(0)))
    return out


_CALENDAR = frozenset(
    _MONTHS
    + ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", "Monday", "Tuesday", "Wednesday"]
    + ["Thursday", "Friday", "Saturday", "Sunday"]
)


_NAME_PARTICLES = frozenset(
    ["de", "da", "del", "della", "van", "von", "der", "la", "le", "du", "y"]
)


def _stands_alone(text: str, start: int, end: int) -> bool:
    """A whole name, not the start of "Chef de Mission" or "Cheez-It": widening it stays grammatical."""
    after = text[end:]
    if after and after[0] not in " ,.;:)!?":
        return False
    nxt = re.match(r"\s+(\S+)", after)
    return not (nxt and nxt.group(1).lower() in _NAME_PARTICLES)


def _plausible_name(name: str) -> bool:
    # Title-case headlines and sentence openers ("According", "However") are not entities.
    words = name.split()
    return len(words) <= 3 and words[0].lower() not in _STOP and words[0].lower() not in _STARTERS


@mutator(
    "scope_creep",
    expected="PARTIAL",
    example=Pair(
        id="example-labels", claim="Manufacturers must put the new labels on every box.",
        span="From March, manufacturers must put the new labels on every box they ship.",
        label="SUPPORTED",
    ),
)  # fmt: skip
def scope_creep(pair: Pair, rng: random.Random, pool: list[Pair]) -> Edit | None:
    """Widen or shift who/where the claim covers: manufacturers -> importers, Scotland -> the UK."""
    text = pair.claim
    cands = _lexicon_candidates(text, _SCOPE_LEXICON, rng)
    cands = [c for c in cands if c[2].lower() not in pair.span.lower()]
    if not cands:
        # Entity swap from the span: a name the claim uses -> another name on the same page,
        # widened with "and" so the claim now covers more than the span states for it.
        claim_names = [
            c
            for c in _proper_names(text)
            if c[2] in pair.span and _plausible_name(c[2]) and _stands_alone(text, c[0], c[1])
        ]
        claim_tokens = {w.lower() for _, _, n in _proper_names(text) for w in n.split()}
        span_names = {
            n
            for _, _, n in _proper_names(pair.span)
            if _plausible_name(n)
            and len(n.split()) >= 2  # one capitalised word on a page is too often not an entity
            and not any(w.isupper() and len(w) > 3 for w in n.split())
            and not set(n.split()) & _CALENDAR
            and n not in text
            and not ({w.lower() for w in n.split()} & claim_tokens)
        }
        if claim_names and span_names:
            start, end, name = claim_names[rng.randrange(len(claim_names))]
            other = sorted(span_names)[rng.randrange(len(span_names))]
            cands = [(start, end, f"{name} and {other}")]
    cand = _pick(rng, cands)
    return _apply(text, cand) if cand else None


# ---------------------------------------------------------------- modality_slip

_MODALITY_LEXICON = {
    "is expected to": ["must"],
    "are expected to": ["must"],
    "was expected to": ["had to"],
    "were expected to": ["had to"],
    "is likely to": ["will"],
    "are likely to": ["will"],
    "is set to": ["must"],
    "plans to": ["will"],
    "planned to": ["did"],
    "intends to": ["will"],
    "aims to": ["will"],
    "proposed": ["adopted"],
    "proposes": ["requires"],
    "recommended": ["required"],
    "recommends": ["requires"],
    "encouraged": ["required"],
    "may": ["will"],
    "might": ["will"],
    "could": ["will"],
    "can": ["must"],
    "should": ["must"],
    "is considering": ["has decided"],
    "are considering": ["have decided"],
    "reportedly": ["certainly"],
    "allegedly": ["certainly"],
    "voluntary": ["mandatory"],
    "optional": ["mandatory"],
}
_HEDGES = [
    "up to",
    "about",
    "around",
    "approximately",
    "nearly",
    "almost",
    "roughly",
    "at least",
    "more than",
    "over",
]


@mutator(
    "modality_slip",
    expected="NOT_SUPPORTED",
    example=Pair(
        id="example-fares", claim="Fares are expected to rise next year.",
        span="Fares are expected to rise next year, the operator said.", label="SUPPORTED",
    ),
)  # fmt: skip
def modality_slip(pair: Pair, rng: random.Random, pool: list[Pair]) -> Edit | None:
    """Harden the claim: "is expected to" -> "must", "may" -> "will"; or drop a hedge the span keeps."""
    text = pair.claim
    # "May" with a capital inside a sentence is the month, not the modal.
    cands = [
        c
        for c in _lexicon_candidates(text, _MODALITY_LEXICON, rng)
        if not (c[0] > 0 and text[c[0] : c[1]] == "May")
    ]
    span_low = pair.span.lower()
    for hedge in _HEDGES:
        if hedge not in span_low:
            continue  # dropping a hedge the span lacks could make the claim *more* supported
        for m in re.finditer(rf"(?<![\w-]){hedge}\s+(?=\S*\d)", text, flags=re.IGNORECASE):
            cands.append((m.start(), m.end(), ""))
    cand = _pick(rng, cands)
    return _apply(text, cand) if cand else None


# ---------------------------------------------------------------- quantifier_inflation

_QUANT_LEXICON = {
    "some": ["all"],
    "several": ["all"],
    "a few": ["many"],
    "few": ["most"],
    "many": ["most"],
    "most": ["all"],
    "a majority of": ["all"],
    "a number of": ["all"],
    "often": ["always"],
    "sometimes": ["always"],
    "usually": ["always"],
    "occasionally": ["regularly"],
    "one of the": ["the"],
    "among the": ["the"],
    "partly": ["entirely"],
    "partially": ["fully"],
    "largely": ["entirely"],
    "mostly": ["entirely"],
    "mainly": ["exclusively"],
    "primarily": ["exclusively"],
    "in part": ["entirely"],
    "including": ["only"],
}


@mutator(
    "quantifier_inflation",
    expected="PARTIAL",
    example=Pair(
        id="example-retailers", claim="Some retailers raised their prices in May.",
        span="Some retailers raised their prices in May, a trade body found.", label="SUPPORTED",
    ),
)  # fmt: skip
def quantifier_inflation(pair: Pair, rng: random.Random, pool: list[Pair]) -> Edit | None:
    """Inflate a quantifier: some -> all, many -> most, one of the largest -> the largest."""
    cand = _pick(rng, _lexicon_candidates(pair.claim, _QUANT_LEXICON, rng))
    return _apply(pair.claim, cand) if cand else None


# ---------------------------------------------------------------- negation_flip

_NEGATION_REMOVALS = {
    "not ": "",
    "never ": "",
    "no longer ": "still ",
    "n't": "",
}
_AUX = re.compile(
    r"(?<![\w-])(is|are|was|were|has|have|had|will|can|could|would|should|does|did|must)(?=\s)"
)
_ANTONYMS = {
    "increased": "decreased", "decreased": "increased", "rose": "fell", "fell": "rose",
    "grew": "shrank", "won": "lost", "lost": "won", "approved": "rejected", "rejected": "approved",
    "higher": "lower", "lower": "higher", "more": "fewer", "fewer": "more", "above": "below",
    "below": "above", "before": "after", "after": "before", "joined": "left", "left": "joined",
    "first": "last", "largest": "smallest", "best": "worst", "supported": "opposed",
    "opposed": "supported", "born": "died", "founded": "dissolved", "released": "cancelled",
    "positive": "negative", "allowed": "banned", "banned": "allowed",
}  # fmt: skip


@mutator(
    "negation_flip",
    expected="NOT_SUPPORTED",
    example=Pair(
        id="example-river", claim="The river is not navigable in winter.",
        span="Because of ice, the river is not navigable in winter.", label="SUPPORTED",
    ),
)  # fmt: skip
def negation_flip(pair: Pair, rng: random.Random, pool: list[Pair]) -> Edit | None:
    """Reverse the claim: drop or insert a "not", or swap a verb for its antonym (rose -> fell)."""
    text = pair.claim
    cands: list[tuple[int, int, str]] = []
    for m in re.finditer(r"(?<![\w-])(not|never|no longer)\s|n't(?![\w])", text):
        found = m.group(0)
        key = found if found == "n't" else f"{m.group(1)} "
        cands.append((m.start(), m.end(), _NEGATION_REMOVALS[key]))
    if not cands:
        auxes = list(_AUX.finditer(text))
        if auxes:
            m = auxes[0]  # the first auxiliary is almost always the main clause's
            cands.append((m.start(), m.end(), m.group(0) + " not"))
    if not cands:
        for word, opposite in _ANTONYMS.items():
            for m in re.finditer(rf"(?<![\w-]){word}(?![\w-])", text, flags=re.IGNORECASE):
                cands.append((m.start(), m.end(), _match_case(m.group(0), opposite)))
    cand = _pick(rng, cands)
    return _apply(text, cand) if cand else None


# ---------------------------------------------------------------- attribution_swap

_ATTRIBUTORS = [
    "the European Commission", "the Federal Reserve", "the World Health Organization",
    "the Ministry of Finance", "the Office for National Statistics", "the World Bank",
    "Reuters", "the Associated Press", "the company's chief executive", "an industry trade group",
]  # fmt: skip
_ATTRIBUTION = re.compile(
    r"(?:(?<![\w-])[Aa]ccording to\s+(?P<a>(?:the\s+)?[A-Z][\w.&'-]*(?:\s+(?:of\s+|for\s+|the\s+)?[A-Z][\w.&'-]*)*))"
    r"|(?P<b>(?:the\s+|The\s+)?[A-Z][\w.&'-]*(?:\s+(?:of\s+|for\s+)?[A-Z][\w.&'-]*)*)\s+(?:said|says|reported|reports|announced|stated|estimated|found)(?![\w-])"
)


@mutator(
    "attribution_swap",
    expected="NOT_SUPPORTED",
    example=Pair(
        id="example-exports", claim="Exports fell in the first quarter.",
        span="Exports fell in the first quarter, the statistics office said.", label="SUPPORTED",
    ),
)  # fmt: skip
def attribution_swap(pair: Pair, rng: random.Random, pool: list[Pair]) -> Edit | None:
    """Credit the claim to someone the span does not: swap "according to X", or add one."""
    text = pair.claim
    span_low = pair.span.lower()
    others = [
        a for a in _ATTRIBUTORS if a.lower() not in span_low and a.lower() not in text.lower()
    ]
    if not others:
        return None
    new = rng.choice(others)
    m = _ATTRIBUTION.search(text)
    if m:
        group = "a" if m.group("a") else "b"
        start, end = m.start(group), m.end(group)
        while end > start and text[end - 1] in ".,;:":
            end -= 1  # the sentence's own full stop is not part of the name
        return _apply(text, (start, end, _match_case(text[start:end], new)))
    body = text.rstrip()
    end_punct = body[-1] if body and body[-1] in ".!?" else ""
    core = body[: len(body) - len(end_punct)] if end_punct else body
    added = f", according to {new}"
    return Edit(before="", after=added.lstrip(", "), claim=f"{core}{added}{end_punct or '.'}")


# ---------------------------------------------------------------- citation_laundering


_STARTERS = frozenset(
    """about many most some more over nearly almost around approximately according during after
    before since while although however several few all each every both one two three four five
    six seven eight nine ten""".split()  # noqa: SIM905
)


def _clause(claim: str) -> str:
    clause = claim.strip().rstrip(".!?").strip()
    first, _, rest = clause.partition(" ")
    if first.lower() in _STOP or first.lower() in _STARTERS:
        clause = first.lower() + (" " + rest if rest else "")
    return clause


@mutator(
    "citation_laundering",
    expected="PARTIAL",
    example=_PORT,
    example_pool=[
        Pair(
            id="example-orchestra", claim="The orchestra toured Japan twice in the 1990s.",
            span="In the 1990s the orchestra toured Japan twice.", label="SUPPORTED",
        )
    ],
)  # fmt: skip
def citation_laundering(pair: Pair, rng: random.Random, pool: list[Pair]) -> Edit | None:
    """Append a clause from an unrelated pair's claim: the span supports only the first half."""
    words = content_words(pair.claim) | content_words(pair.span)
    candidates = []
    for other in pool:
        if other.id == pair.id or not other.claim.strip():
            continue
        other_words = content_words(other.claim)
        overlap = len(words & other_words) / (len(other_words) or 1)
        # Unrelated means the span shares little with the appended clause, so it cannot support it.
        if overlap <= 0.2 and 3 <= len(other.claim.split()) <= 40:
            candidates.append(other)
    if not candidates:
        return None
    other = candidates[rng.randrange(len(candidates))]
    added = _clause(other.claim)
    core = pair.claim.strip().rstrip(".!?").strip()
    return Edit(before="", after=f" and {added}", claim=f"{core}, and {added}.")


# ---------------------------------------------------------------- stale_page


def _supporting_offsets(pair: Pair) -> list[tuple[int, int]]:
    """The sentences of the span that carry the claim: the ones sharing the most claim words."""
    sents = sentence_spans(pair.span)
    claim_words = content_words(pair.claim)
    if not sents or not claim_words:
        return []
    scores = [len(claim_words & content_words(pair.span[s:e])) for s, e in sents]
    top = max(scores)
    if top == 0:
        return []
    # Remove every sentence that carries a real share of the claim, not only the best one,
    # so a claim spread over two sentences loses both.
    return [sents[i] for i, sc in enumerate(scores) if sc >= max(2, top / 2) or sc == top]


_WINDOW = 3  # sentences of page kept on each side of the removed ones


def _stale_from_page(pair: Pair) -> Edit | None:
    page = page_for(pair)
    if page is None or not page.supporting:
        return None
    drop = {i for group in page.supporting for i in group}
    claim_words = content_words(pair.claim)
    for i, sent in enumerate(page.sentences):
        # Also drop any sentence that repeats most of the claim: pages restate their facts.
        words = content_words(sent)
        if claim_words and len(claim_words & words) >= max(3, 0.6 * len(claim_words)):
            drop.add(i)
    # WiCE lists alternative supporting sets; some are empty. Centre on the first real one.
    first = next((group for group in page.supporting if group), None)
    if first is None:
        return None
    lo = max(0, min(first) - _WINDOW)
    hi = min(len(page.sentences), max(first) + _WINDOW + 1)
    kept = [
        s
        for i, s in enumerate(page.sentences[lo:hi], lo)
        if i not in drop and not s.startswith("(meta data)")
    ]
    remaining = " ".join(s.strip() for s in kept if s.strip())
    if len(content_words(remaining)) < 3:
        return None
    before = " ".join(page.sentences[i] for i in sorted(drop) if lo <= i < hi)
    return Edit(before=before, after="", span=remaining)


@mutator(
    "stale_page",
    expected="NOT_SUPPORTED",
    target="span",
    example=Pair(
        id="example-bridge", claim="The bridge reopened in May.",
        span="Work on the bridge began in 2021. The bridge reopened in May. Tolls were dropped "
        "for the first month of traffic.",
        label="SUPPORTED",
    ),
)  # fmt: skip
def stale_page(pair: Pair, rng: random.Random, pool: list[Pair]) -> Edit | None:
    """The same page window with the supporting sentence(s) removed, as if the page had changed."""
    from_page = _stale_from_page(pair)
    if from_page is not None:
        return from_page
    removed = _supporting_offsets(pair)
    if not removed:
        return None
    kept, cursor = [], 0
    for start, end in removed:
        kept.append(pair.span[cursor:start])
        cursor = end
    kept.append(pair.span[cursor:])
    remaining = re.sub(
        r"\s{2,}", " ", " ".join(part.strip() for part in kept if part.strip())
    ).strip()
    if len(content_words(remaining)) < 3:
        return None  # the window was only the supporting sentence: no page left to serve stale
    before = " ".join(pair.span[s:e] for s, e in removed)
    return Edit(before=before, after="", span=remaining)
