"""The question's words: tokens with accents folded, and the matching form of each word
(``term``: irregular forms mapped, the project's light stem, the synonym group it belongs to),
so that a question's wording meets a page's ("gigs" meets "tour")."""

from __future__ import annotations

import re
from functools import lru_cache

from spanproof.core import text as project_text
from spanproof.core.text import STOPWORDS, stem


def word_set(text: str) -> frozenset[str]:
    """A word list written as one string, for lexicons long enough to read that way."""
    return frozenset(text.split())


# Irregular forms that a suffix stripper cannot bring together, and that questions ask with.
IRREGULAR = {
    "died": "die", "dies": "die", "dying": "die", "death": "die", "dead": "die", "deaths": "die",
    "born": "born", "birth": "born", "married": "marry", "marries": "marry", "marriage": "marry",
    "wed": "marry", "wedding": "marry", "won": "win", "wins": "win", "winning": "win",
    "winner": "win", "winners": "win", "began": "begin", "begun": "begin", "beginning": "begin",
    "led": "lead", "leads": "lead", "leading": "lead", "leader": "lead", "bought": "buy",
    "sold": "sell", "sells": "sell", "sale": "sell", "sales": "sell", "paid": "pay", "made": "make",
    "took": "take", "taken": "take", "became": "become", "held": "hold", "built": "build",
    "met": "meet", "wrote": "write", "written": "write", "gave": "give", "given": "give",
    "ran": "run", "rose": "rise", "risen": "rise", "grew": "grow", "grown": "grow",
    "chose": "choose", "chosen": "choose", "fell": "fall", "fallen": "fall", "spent": "spend",
    "sang": "sing", "sung": "sing", "drove": "drive", "driven": "drive", "struck": "strike",
    "shot": "shoot", "told": "tell", "said": "say", "says": "say", "saw": "see", "seen": "see",
    "went": "go", "gone": "go", "came": "come", "knew": "know", "known": "know",
    "killed": "kill", "kills": "kill", "opened": "open", "opening": "open", "opens": "open",
    "cost": "cost", "costs": "cost", "costing": "cost", "lived": "live", "living": "live",
    "lives": "live", "resident": "live", "residents": "live", "renewal": "renew",
    "renewed": "renew", "appointment": "appoint", "appointed": "appoint", "elected": "elect",
    "election": "elect", "released": "release", "releases": "release", "premiered": "premiere",
    "premieres": "premiere", "premiering": "premiere", "debuted": "debut", "debuts": "debut",
    "founded": "found", "founder": "found", "founders": "found", "founding": "found",
    "designed": "design", "designer": "design", "designers": "design", "got": "get",
    "gets": "get", "getting": "get", "withdrew": "withdraw", "withdrawn": "withdraw",
    "drew": "draw", "drawn": "draw", "threw": "throw", "thrown": "throw", "flew": "fly",
    "flown": "fly", "lost": "lose", "loses": "lose", "broke": "break", "broken": "break",
    "spoke": "speak", "spoken": "speak", "stood": "stand", "wore": "wear", "worn": "wear",
    "hid": "hide", "hidden": "hide", "sent": "send", "lent": "lend", "bore": "bear",
    "fought": "fight", "caught": "catch", "taught": "teach", "brought": "bring",
    "thought": "think", "sought": "seek", "felt": "feel", "kept": "keep", "slept": "sleep",
    "swam": "swim", "swum": "swim", "understood": "understand", "forgot": "forget",
    "forgotten": "forget", "beaten": "beat", "beats": "beat",
}  # fmt: skip

# Words a question asks with and the words a page answers with instead. Each group meets
# under its first word. General news paraphrase, not any one page's wording.
_SYNONYM_GROUPS = (
    ("tour", "gig", "gigs", "concert", "concerts", "trek", "shows"),
    ("marry", "wed", "wedding", "married", "marriage", "spouse"),
    ("attention", "impress", "impressed", "notice", "noticed", "spot", "spotted", "scout",
     "scouted"),
    ("start", "begin", "began", "launch", "launched", "commence", "kick"),
    ("air", "aired", "airing", "broadcast", "screen", "screened", "screening", "televise"),
    ("join", "joined", "sign", "signed", "signing", "transfer", "move"),
    ("award", "prize", "honour", "honor", "title", "trophy", "medal", "accolade", "cup",
     "shield", "plate", "bowl"),
    ("song", "songs", "track", "tracks", "single", "singles"),
    ("band", "bands", "group", "act"),
    ("live", "reside", "resided", "settle", "settled"),
    ("found", "establish", "established", "create", "created", "set"),
    ("select", "choose", "chose", "chosen", "pick", "picked", "nominate", "nominated",
     "shortlist", "shortlisted"),
    ("renew", "renewed", "renewal", "extend", "extended", "order", "ordered"),
    ("compete", "competed", "competing", "participate", "participated", "contest"),
    ("appoint", "appointed", "name", "named", "hire", "hired"),
    ("withdraw", "withdrew", "pull", "pulled", "skip", "skipped", "miss", "missed"),
    ("kill", "killed", "die", "died", "death", "dead", "fatal", "fatally"),
    ("cost", "costs", "spend", "spent", "price", "priced", "budget", "funded"),
    ("release", "released", "publish", "published", "issue", "issued", "out"),
    ("premiere", "premiered", "debut", "debuted", "unveil", "unveiled"),
    ("win", "won", "victory", "beat", "defeat", "defeated", "triumph", "claim", "claimed"),
    ("say", "said", "says", "state", "stated", "announce", "announced", "tell", "told"),
    ("decorate", "decorated", "adorn", "adorned", "ornament", "ornamented"),
    ("parent", "parents", "father", "mother"),
)  # fmt: skip
_CANON: dict[str, str] = {}

# Words a question is phrased with that no answer repeats.
_QUESTION_ONLY = word_set(
    "tell give list name describe explain according happen happened exactly "
    "approximately roughly around also ever first-ever actually many much"
)  # fmt: skip
AUX = word_set(
    "is are was were be been being am do does did has have had will would can could shall "
    "should may might must"
)
_WH = word_set("who whom whose what which when where why how")
_PRONOUNS = word_set("it its they them their he him his she her hers theirs this these those")


def fold(word: str) -> str:
    """Lower-cased, accents stripped, possessive dropped: "Lancôme's" -> "lancome"."""
    return project_text.fold(word).removesuffix("'s")


def words(text: str) -> list[str]:
    """The project's word tokens (spanproof.core.text), read after accents are folded so that
    "Lancôme" is one word, "lancome"."""
    return project_text.words(project_text.fold(text))


@lru_cache(maxsize=65536)
def _base(word: str) -> str:
    w = fold(word)
    return IRREGULAR.get(w) or stem(w)


@lru_cache(maxsize=65536)
def term(word: str) -> str:
    """One word's matching form: irregular forms mapped, the project's light stem, then the
    group a synonym belongs to ("gigs" meets "tour")."""
    if not _CANON:
        for group in _SYNONYM_GROUPS:
            for w in group:
                _CANON.setdefault(_base(w), _base(group[0]))
    b = _base(word)
    return _CANON.get(b, b)


def terms(text: str) -> set[str]:
    """Content terms of a text: its words less stopwords, wh-words and question phrasing."""
    return set(_terms(text))


NOT_TAKING_PART = re.compile(
    r"\b(?:not|n't|never)\s+(?:to\s+)?(?:start|race|play|compete|participate|take part|run|"
    r"appear|attend|travel|return)\b",
    re.I,
)


@lru_cache(maxsize=8192)
def _terms(text: str) -> frozenset[str]:
    out = set()
    if NOT_TAKING_PART.search(text):
        out.add(term("withdraw"))  # "would not start the race" says the same as "withdrew"
    for w in words(text):
        if w in STOPWORDS or w in AUX or w in _WH or w in _QUESTION_ONLY or len(w) < 2:
            continue
        if any(ch.isdigit() for ch in w):
            continue  # figures are compared as figures, never as words
        out.add(term(w))
    return frozenset(out)


def same_term(a: str, b: str) -> bool:
    """Equal, or one the other's stem-length prefix ("implement" / "implementation")."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= 4 and long_.startswith(short) and len(long_) - len(short) <= 4


def matched(want: set[str], have: set[str]) -> set[str]:
    """The terms of `want` that `have` holds (allowing `same_term`)."""
    return set(_matched(frozenset(want), frozenset(have)))


@lru_cache(maxsize=16384)  # the same sub-question against the same sentences, run after run
def _matched(want: frozenset[str], have: frozenset[str]) -> frozenset[str]:
    return frozenset(w for w in want if w in have or any(same_term(w, h) for h in have))
