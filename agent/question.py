"""Question analysis by code: what each sub-question asks for, about what, and whether a text
holds an answer of that kind.

A sentence that shares a question's words is about the same thing; it answers the question
only when it also holds the kind of thing asked for: "when" wants a date, "how many
students" a number of students, "who" a name the question does not already give, "where" a
place, "which club" a named club. This module works that out from the question's wording
(no model, no word lists fitted to particular questions) and finds such answers in a text
with the project's parsers of dates, numbers and names (graders.specifics), so the offline
policy can rank sentences by whether they answer, and convergence can refuse to call a
sub-question covered by a span that merely mentions its subject.

Answer types a sub-question may expect:
- date: when / what year / which month ... ("died Saturday", "on 24 January 1957", "in 2014")
- number: how many / much / old / long / far ..., what score / fee / share / total ...
- person: who / whom / whose / which player ... (a name the question does not give)
- place: where / which city / in what country ... (a name after in/at/from/near ...)
- entity: which/what X for any other X (a name or title the question does not give, or X
  itself with its modifiers: "public and private sector unions")
- role: what post / position / title (a job or office: curator, chairman, head coach ...)
- reason: why / what was the cause (because, after, due to, following ...)
- statement: what did X say / announce (said, told, according to, a quotation)
- relation: how is X related to Y (cousin, daughter, brother-in-law ...)
- colour: what colour
- manner, description, yesno: how did X ..., what is X, is/was/did X ...? -- no type can be
  checked by code; relevance alone ranks them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from spanproof.graders import specifics
from spanproof.graders.specifics.dates import MONTHS, WEEKDAYS

from spanproof.core import text as project_text
from spanproof.core.text import STOPWORDS, stem


# The same sentence is read for every sub-question and every ranking pass: parse it once.
@lru_cache(maxsize=4096)
def extract_dates(text: str) -> list:
    return specifics.extract_dates(text)


@lru_cache(maxsize=4096)
def extract_numbers(text: str) -> list:
    return specifics.extract_numbers(text)


@lru_cache(maxsize=4096)
def extract_entities(text: str) -> list[str]:
    return specifics.extract_entities(text)


CHECKABLE = frozenset(
    {"date", "number", "person", "place", "entity", "role", "reason", "statement", "relation", "colour"}
)  # fmt: skip


def word_set(text: str) -> frozenset[str]:
    """A word list written as one string, for lexicons long enough to read that way."""
    return frozenset(text.split())


# --- words ---------------------------------------------------------------------------------

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


# --- what the sub-question expects ---------------------------------------------------------

NUMBER_KINDS = word_set(
    "score scores scoreline result fee fees price prices cost costs amount amounts number total "
    "totals percentage percent share proportion fraction ratio rate rates age population height "
    "length weight distance size capacity turnover revenue revenues budget attendance crowd "
    "salary salaries sum figure figures margin value worth temperature speed gross earnings "
    "profit profits loss losses deficit debt maximum minimum average count tally record "
    "majority lead depth area duration sentence fine bail valuation funding investment "
    "donation prize money"
)  # fmt: skip
_DATE_KINDS = word_set(
    "year years date dates day days month months decade century time period season era week weekend"
)
_PLACE_KINDS = word_set(
    "city cities country countries state states town towns village venue venues stadium "
    "arena place places location locations region county province island islands continent "
    "street neighbourhood neighborhood site sites capital hometown district area countryside "
    "river mountain lake address port airport hospital prison court"
)  # fmt: skip
_PERSON_KINDS = word_set(
    "person people man woman men women player players coach coaches manager managers actor "
    "actors actress singer singers artist artists author authors writer writers director "
    "directors driver drivers candidate candidates applicants applicant judge judges member "
    "members leader leaders founder founders owner owners president chairman chair ceo "
    "architect architects designer designers striker goalkeeper pitcher footballer "
    "politician politicians minister ministers official officials officer officers child "
    "children son sons daughter daughters wife husband parents parent brother sister "
    "victim victims winner winners champion champions musician musicians scientist "
    "scientists nurse doctor doctors rider riders"
)  # fmt: skip
_ROLE_KINDS = word_set("post position role title job office rank occupation profession")
_REASON_KINDS = word_set("reason reasons cause causes motive explanation purpose")
_COLOUR_KINDS = word_set("colour color colours colors")

_ROLE_WORDS = word_set(
    "curator director chairman chairwoman chairperson chair president vice ceo chief head "
    "editor manager coach captain keeper officer ambassador founder member minister "
    "secretary governor mayor senator professor lecturer dean principal commissioner "
    "commander general admiral treasurer trustee fellow advisor adviser consultant "
    "partner analyst producer presenter host anchor correspondent reporter columnist "
    "publisher executive deputy assistant associate lead leader commandant superintendent "
    "inspector judge justice attorney counsel spokesman spokeswoman spokesperson "
    "administrator coordinator officer conductor composer architect engineer designer "
    "curatorship directorship chairmanship presidency"
)  # fmt: skip
_KINSHIP = word_set(
    "cousin cousins son daughter brother sister father mother parent parents grandson "
    "granddaughter grandfather grandmother grandparent niece nephew uncle aunt husband wife "
    "spouse widow widower sibling siblings stepson stepdaughter stepfather stepmother "
    "half-brother half-sister brother-in-law sister-in-law son-in-law daughter-in-law "
    "great-granddaughter great-grandson great-grandfather great-grandmother descendant "
    "descendants relative relatives related"
)  # fmt: skip
_COLOURS = word_set(
    "black white red green blue yellow orange purple pink brown grey gray olive silver gold "
    "golden crimson scarlet maroon navy violet beige tan cream ivory turquoise teal"
)
_REASON_MARKERS = re.compile(
    r"\b(because|due to|owing to|as a result of|as a result|in order to|so that|caused by|"
    r"cause[sd]?|reasons?|since|after|following|amid|in protest|to protest|out of|thanks to|"
    r"led to|leading to|was blamed on|blamed|for fear)\b",
    re.I,
)
_STRONG_REASON = re.compile(
    r"\b(because|due to|owing to|as a result|caused by|cause|reasons?|in protest|blamed)\b", re.I
)
_STATEMENT_MARKERS = re.compile(
    r"\b(said|says|say|told|tells|stated|states|announced|announces|according to|wrote|writes|"
    r"added|explained|noted|argued|called|described|insisted|claimed|warned|declared)\b|[\"“”]",
    re.I,
)
_LOCATIVE = word_set("in at from near on to inside outside across throughout into")
_PLACE_WORDS = word_set(
    "city county state province stadium arena park street avenue road square hall centre "
    "center theatre theater university college school church cathedral museum gallery "
    "island islands valley river lake mountain bay coast beach airport station hospital "
    "republic kingdom district borough village town"
)  # fmt: skip
_RELATIVE_DATE = re.compile(
    r"\b(today|yesterday|tonight|tomorrow|this (?:week|month|year|weekend|spring|summer|autumn|"
    r"fall|winter|season)|last (?:week|month|year|night|weekend|spring|summer|autumn|fall|"
    r"winter|season)|next (?:week|month|year|weekend|season)|earlier this (?:week|month|year)|"
    r"later this (?:week|month|year)|(?:\w+ )?(?:days|weeks|months|years) (?:ago|later|earlier))\b",
    re.I,
)
_WEEKDAY = re.compile(r"\b(" + "|".join(sorted(WEEKDAYS)) + r")s?\b", re.I)
_AGE = re.compile(
    r"\b(?:aged|age of|at age|at the age of)\s+\d{1,3}\b|\b\d{1,3}[- ]years?[- ]old\b|"
    r"\b(?:was|is|died at|turned|turns)\s+\d{1,3}\b(?!\s*(?:%|percent|per cent|[a-z]))|"
    r",\s*\d{1,3},",
    re.I,
)
_SCORE = re.compile(r"\b\d{1,3}\s?[-–]\s?\d{1,3}\b(?!\s?(?:%|percent))")

# Question openers, tried in order on the lower-cased sub-question (leading "and"/prepositions
# dropped). Each gives the answer types and, when the question names it, the kind noun.
_WHEN_AND_WHERE = re.compile(r"^when and where\b|^where and when\b")
_OPENERS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^how long ago\b"), "date"),
    (re.compile(r"^how (?:many|much)\b"), "number"),
    (re.compile(r"^how (?:old|long|far|tall|high|big|large|deep|wide|heavy|fast|often|short|"
                r"much longer|many more)\b"), "number"),
    (re.compile(r"^(?:since )?when\b|^what time\b|^how long ago\b"), "date"),
    (re.compile(r"^(?:who|whom|whose)\b"), "person"),
    (re.compile(r"^where\b"), "place"),
    (re.compile(r"^why\b|^for what reason\b"), "reason"),
    (re.compile(r"^how (?:is|are|was|were) .+ related\b"), "relation"),
    (re.compile(r"^how (?:close|good|bad|well|badly)\b"), "description"),
    (re.compile(r"^how\b"), "manner"),
]  # fmt: skip
_WHICH_WHAT = re.compile(r"^(?:which|what)\s+(.*)$")
_STARTS_AUX = re.compile(r"^(?:" + "|".join(sorted(AUX)) + r")\b")
_LEADING = re.compile(
    r"^(?:and|but|also|plus|or|then)?\s*(?:(?:in|on|at|from|for|by|to|with|of|since|until|"
    r"after|before|during|under|against|between|among|into|over)\s+)?(?=(?:which|what|who|whom|"
    r"whose|when|where|why|how)\b)"
)
_TRAILING_PAREN = re.compile(r"\s*\(([^()]*)\)\s*\??\s*$")


@dataclass
class SubQuestion:
    """One sub-question, analysed: what answers it and what it is about."""

    text: str
    answer_types: list[str]
    kind: str | None = None  # the noun the question names: "students", "club", "score"
    focus: set[str] = field(default_factory=set)  # its own terms: not the names, not wh-words
    entity: set[str] = field(default_factory=set)  # terms of the names it is about
    # terms of the other names it writes ("come to Netflix", "when he left Reading")
    context: set[str] = field(default_factory=set)
    # numbered things it names: "season 2" -> {"season": "2"}
    numbered: dict[str, str] = field(default_factory=dict)
    given_numbers: set[str] = field(default_factory=set)  # figures it states ("2019", "8")
    given_names: set[str] = field(default_factory=set)  # every name token it states, folded

    @property
    def checkable(self) -> bool:
        return any(t in CHECKABLE for t in self.answer_types)


def _kind_type(kind: str) -> str:
    k = kind.lower()
    if k in _DATE_KINDS:
        return "date"
    if k in NUMBER_KINDS:
        return "number"
    if k in _PLACE_KINDS:
        return "place"
    if k in _PERSON_KINDS:
        return "person"
    if k in _ROLE_KINDS:
        return "role"
    if k in _REASON_KINDS:
        return "reason"
    if k in _COLOUR_KINDS:
        return "colour"
    return "entity"


_DETERMINERS = word_set("the a an his her its their our my your this that these those")
_PHRASE_BREAKS = word_set(
    "of for by with about that in at from near on to into over under between among against "
    "during after before since than like as when where while who which whom"
)


def _head_noun(phrase: str) -> str | None:
    """The head of the noun phrase that opens `phrase`: its last word before a verb, a
    preposition or a determiner ("volleyball trophy did ..." -> "trophy"; "share of the vote"
    -> "share"; "solidarity and bonus money was ..." -> "money"; "bands joined ..." -> "bands")."""
    head = None
    for w in re.findall(r"[\w'’-]+", phrase.lower()):
        if w in _DETERMINERS and head is None:
            continue
        if (
            w in AUX
            or w in _PHRASE_BREAKS
            or w in _DETERMINERS
            or w in IRREGULAR
            or (w.endswith("ed") and len(w) > 4)
        ):
            break
        head = w
    return head


def expected_answer(subquestion: str) -> tuple[list[str], str | None]:
    """(answer types, kind noun) of one sub-question, from its wording."""
    q = _TRAILING_PAREN.sub("", subquestion.strip()).strip().rstrip("?").strip()
    low = re.sub(r"\s+", " ", q.lower())
    low = _LEADING.sub("", low)
    # "According to legend, why ...", "In 2019, who ...": the wh-word may follow a lead-in.
    m = re.search(r"\b(which|what|who|whom|whose|when|where|why|how)\b", low)
    if m and not _STARTS_AUX.match(low):
        low = low[m.start() :]
    if _WHEN_AND_WHERE.match(low):
        return ["date", "place"], None
    count = re.match(r"^how (?:many|much)\b(?:\s+more\b)?(.*)$", low)
    for rx, kind in _OPENERS:
        if rx.match(low):
            noun = None
            if kind == "number" and count:
                # "how many vehicles cross it": the counted noun is the plural that comes first
                plural = low.startswith("how many") and re.match(
                    r"\s*((?:[\w'’-]+\s+){0,2}?[\w'’-]+s)\b", count.group(1)
                )
                noun = _head_noun(plural.group(1)) if plural else _head_noun(count.group(1))
                if noun is None:
                    # "how much did it cost / raise / receive": the verb says it is money
                    verb = re.search(
                        r"\b(cost|pay|paid|raise|spend|spent|earn|receive|sell|"
                        r"sold|buy|bought|worth|charge|fetch|gross)\w*",
                        low,
                    )
                    noun = verb.group(1) if verb and low.startswith("how much") else None
            elif kind == "number":
                noun = low.split()[1]  # old / long / far ...
            return [kind], noun
    m = _WHICH_WHAT.match(low)
    if m:
        rest = m.group(1)
        verb_next = re.match(
            r"(?:is|are|was|were|will be|has been|had been)\s+(?:the|a|an|his|her|its|their)\s+(.*)$",
            rest,
        )
        if verb_next:
            # "what was the score of ...", "what is the maximum for ...", "what was her role"
            noun = _head_noun(verb_next.group(1))
            if noun:
                t = _kind_type(noun)
                return ([t] if t != "entity" else ["description"]), noun
            return ["description"], None
        first = rest.split()[0] if rest.split() else ""
        if first in AUX:
            # "what did X say", "what did X do", "what happened"
            if re.search(
                r"\b(say|said|announce|tell|claim|argue|write|state|respond|reply)\b", rest
            ):
                return ["statement"], None
            return ["description"], None
        noun = _head_noun(rest)
        if noun:
            return [_kind_type(noun)], noun
        return ["description"], None
    if _STARTS_AUX.match(low):
        return ["yesno"], None
    return ["description"], None


_NAME_RUN = re.compile(r"\b[A-Z][\w'’.|-]*(?:\s+(?:of\s+|the\s+|de\s+|in\s+)?[A-Z][\w'’.|-]*)*")


def _name_runs(text: str) -> list[list[str]]:
    """The names in a sub-question, each as its words, the one it is about first: the name
    in its trailing brackets (borrowed from the question), else the first it writes. The
    sentence-initial capital, month and weekday names are not names."""
    paren = _TRAILING_PAREN.search(text)
    body = re.sub(r"^\W*\w+", "", _TRAILING_PAREN.sub("", text))
    runs = []
    for chunk in ([paren.group(1)] if paren else []) + _NAME_RUN.findall(body):
        run = [
            w
            for w in re.findall(r"[\w'’-]+", chunk)
            if w.lower() not in STOPWORDS
            and w.lower() != "i"
            and w.lower() not in MONTHS
            and w.lower() not in WEEKDAYS
        ]
        if run:
            runs.append(run)
    return runs


def name_words(text: str) -> list[str]:
    """Every word of every name in a sub-question."""
    return [w for run in _name_runs(text) for w in run]


# Verbs a question is built on that say little about the answer ("come to Netflix", "get in
# the race"); dropped from the focus when the question has other terms of its own.
_WEAK_VERBS = word_set("come get make take go put do have give keep bring see become")


_NUMBERED = re.compile(r"\b([A-Za-z][\w'’-]+)\s+(\d{1,3})\b(?![.,]?\d)")


def _numbered(text: str) -> dict[str, str]:
    """Numbered things a text names: "season 2", "Position 8", "Game 6" -> term: number."""
    return {
        term(m.group(1)): m.group(2)
        for m in _NUMBERED.finditer(text)
        if m.group(1).lower() not in STOPWORDS and m.group(1).lower() not in MONTHS
    }


def numbered_conflict(sq: SubQuestion, text: str) -> bool:
    """Does the text name one of the sub-question's numbered things with another number
    ("season 1" for a question about season 2)? Then it is about something else."""
    if not sq.numbered:
        return False
    return any(t in sq.numbered and sq.numbered[t] != n for t, n in _numbered(text).items())


def numbers_in(text: str) -> set[str]:
    return set(re.findall(r"\d+(?:\.\d+)?", text))


# "the nurse Marion Leane Smith", "former congresswoman Liz Patterson", "striker Jón Daði":
# the word before a name, after a determiner or an auxiliary, describes who is meant; it is
# part of what the question is about, not of what it asks.
_DESCRIPTOR = re.compile(
    r"\b(?:the|a|an|former|late|did|does|do|was|is|were|are|has|had|have)\s+"
    r"(?:former\s+|late\s+)?([a-z][\w-]+)\s+(?=[A-Z])"
)


def analyse_subquestion(
    text: str, subject: set[str] | None = None, previous: SubQuestion | None = None
) -> SubQuestion:
    """The answer types, kind, focus terms and entity of one sub-question.

    `subject`: terms of the names the whole question is about; a sub-question that names
    nothing of its own ("how old was she?") is about them. `previous`: the sub-question
    before it; an elliptical one ("and from how many?") asks about the same thing.
    """
    types, kind = expected_answer(text)
    runs = _name_runs(text)
    # The name it is about is its entity; any other name it writes ("come to Netflix",
    # "marry Ned RocknRoll", "when he left Reading") is part of what it asks.
    entity = {term(w) for w in runs[0]} if runs else set()
    others = {term(w) for run in runs[1:] for w in run} - entity
    if not entity and subject:
        entity = set(subject)
    descriptors = {
        term(m.group(1))
        for m in _DESCRIPTOR.finditer(text)
        if m.group(1) not in STOPWORDS and m.group(1) not in AUX
    } - {term(kind or "")}
    focus = terms(text) - entity - descriptors - others
    weak = {term(w) for w in _WEAK_VERBS}
    if focus - weak:
        focus -= weak
    entity |= descriptors
    if not focus and previous is not None:
        focus = set(previous.focus)
    if kind:
        focus.add(term(kind))
    return SubQuestion(
        text=text,
        answer_types=types,
        kind=kind,
        focus=focus,
        entity=entity,
        context=others,
        numbered=_numbered(text),
        given_numbers=numbers_in(text),
        given_names={fold(w) for w in re.findall(r"[\w'’-]+", text)},
    )


# --- splitting a compound question ---------------------------------------------------------

_SPLIT_AND = re.compile(
    r",?\s+(?:and|as well as|plus|but)\s+(?=(?:(?:in|on|at|from|for|by|to|with|of|since|until|"
    r"after|before|during|under|against|between|among|over)\s+)?(?:who|whom|whose|what|when|"
    r"where|why|how|which|is|are|was|were|did|does|do|has|have)\b)",
    re.I,
)


def decompose(question: str, max_subquestions: int = 3) -> list[str]:
    """Rule-based decomposition: split on question marks, semicolons, and ' and <wh-word>'
    (with a preposition allowed before it: "..., and from how many?").

    "When was X founded and who founded it?" -> ["When was X founded?", "who founded it?"].
    A part with no content words ("When" in "When and where ...") joins the next part. A
    later part that names nothing of its own borrows the first part's names, in brackets.
    """
    parts: list[str] = []
    for chunk in re.split(r"(?<=\?)\s+|;\s*", question.strip()):
        parts.extend(p for p in _SPLIT_AND.split(chunk) if p and p.strip())
    cleaned: list[str] = []
    pending = ""  # "When" of "When and where did ...": joins the part that follows
    for part in parts:
        p = part.strip().rstrip("?.! ").strip()
        if not p:
            continue
        if not terms(p) and not re.search(r"\b(many|much|old|long|far)\b", p, re.I):
            pending += p + " and "
            continue
        cleaned.append(pending + p + "?")
        pending = ""
    if pending and cleaned:
        cleaned[-1] = cleaned[-1].rstrip("?") + " " + pending.removesuffix(" and ").strip() + "?"
    if not cleaned:
        cleaned = [question.strip()]
    if len(cleaned) > max_subquestions:
        head = cleaned[: max_subquestions - 1]
        tail = " ".join(c.rstrip("?") for c in cleaned[max_subquestions - 1 :]) + "?"
        cleaned = head + [tail]
    first = re.sub(r"^\W*\w+", "", cleaned[0])  # the sentence-initial capital is not a name
    # A year written before the name belongs to it: "(2019 World Snooker Championship)".
    names = re.findall(
        r"(?:\b\d{4}\s+)?\b[A-Z][\w'’.|-]*(?:\s+(?:of\s+|the\s+|in\s+)?[A-Z][\w'’.|-]*)*", first
    )
    subject = (
        names[0]
        if names
        else " ".join(
            w
            for w in re.findall(r"\w+", first)
            if w.lower() not in STOPWORDS and w.lower() not in AUX
        )
    )
    out = []
    for i, c in enumerate(cleaned):
        if i and subject:
            own_name = re.search(r"\s[A-Z]", re.sub(r"^\W*\w+", "", c))
            pronoun = re.search(r"\b(it|its|they|them|their|he|him|his|she|her)\b", c, re.I)
            named = (own_name and not pronoun) or bool(terms(subject) & terms(c))
            if not named:
                c = c.rstrip("?") + " (" + subject + ")?"
        out.append(c)
    return out


def question_subject(question: str) -> set[str]:
    """Terms of the names a question is about (capitalised words after the first)."""
    return {term(w) for w in name_words(question)}


def analyse(
    question: str, subquestions: list[str] | None = None, max_subquestions: int = 3
) -> list[SubQuestion]:
    """Every sub-question of `question` analysed (decomposed by rule unless given)."""
    subs = subquestions or decompose(question, max_subquestions)
    subject = question_subject(subs[0]) if subs else set()
    out: list[SubQuestion] = []
    for s in subs:
        out.append(analyse_subquestion(s, subject, out[-1] if out else None))
    return out


# --- finding an answer of the expected type in a text --------------------------------------


@dataclass
class Mention:
    """An answer of some type found in a text: where, and how sure the match of kind is."""

    type: str
    start: int
    end: int
    strength: float  # 1.0: the kind matches too (a number of "students"); lower: type only
    surface: str


def _where(text: str, surface: str, start: int = 0) -> tuple[int, int]:
    i = text.find(surface, start)
    if i < 0:
        i = text.lower().find(surface.lower(), start)
    return (i, i + len(surface)) if i >= 0 else (-1, -1)


def _dates(sq: SubQuestion, text: str) -> list[Mention]:
    out = []
    given = sq.given_numbers
    for d in extract_dates(text):
        fields = [str(x) for x in (d.year, d.day, d.decade) if x is not None]
        if d.month is not None and not any(
            k for k, v in MONTHS.items() if v == d.month and k in sq.given_names
        ):
            fields.append(f"m{d.month}")
        new = [f for f in fields if f not in given]
        if not new:
            continue  # "in 2019" when the question says 2019 is not an answer
        a, b = _where(text, d.surface)
        strength = 0.8 if (d.day or d.month or d.decade) else 0.6
        out.append(Mention("date", a, b, strength, d.surface))
    for rx, strength in ((_WEEKDAY, 0.7), (_RELATIVE_DATE, 0.5)):
        for m in rx.finditer(text):
            if fold(m.group(1)) not in sq.given_names:
                out.append(Mention("date", m.start(), m.end(), strength, m.group(0)))
    return out


_MONEY_KINDS = word_set(
    "cost price fee fees money turnover revenue budget salary worth gross earnings profit "
    "funding investment donation prize valuation fine bail raise spend pay paid receive earn "
    "sell sold buy bought charge"
)
_PERCENT_KINDS = word_set("percentage percent share proportion rate fraction majority")
_LENGTH_UNITS = re.compile(
    r"^(?:m|km|cm|mm|ft|in|mi|metres?|meters?|kilometres?|kilometers?|centimetres?|"
    r"centimeters?|millimetres?|millimeters?|feet|foot|inch(?:es)?|miles?|yards?)\b",
    re.I,
)
_TIME_UNITS = re.compile(
    r"^(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|centuries|"
    r"nights?|innings|laps?|rounds?)\b",
    re.I,
)


def _is_year(q) -> bool:
    return (
        q.kind == "number" and q.unit is None and q.value.is_integer() and 1800 <= q.value <= 2100
    )


_NUMBER_WORDS = {
    1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
    9: "nine", 10: "ten", 11: "eleven", 12: "twelve", 13: "thirteen", 14: "fourteen",
    15: "fifteen", 16: "sixteen", 17: "seventeen", 18: "eighteen", 19: "nineteen",
    20: "twenty", 30: "thirty", 40: "forty", 50: "fifty", 60: "sixty", 70: "seventy",
    80: "eighty", 90: "ninety", 100: "hundred",
}  # fmt: skip


def _locate_number(text: str, q, taken: list[tuple[int, int]]) -> tuple[int, int]:
    """Where a parsed quantity is written: its surface as a whole token, else (a figure the
    parser read from words, "five awards") the word; never inside another number."""

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    candidates = [re.escape(q.surface)]
    if q.value.is_integer() and int(q.value) in _NUMBER_WORDS:
        candidates.append(_NUMBER_WORDS[int(q.value)])
    for pattern in candidates:
        for m in re.finditer(rf"(?<![\w.,]){pattern}(?![\d])", text, re.I):
            if free(m.start(), m.end()):
                return m.start(), m.end()
    return -1, -1


def _numbers(sq: SubQuestion, text: str) -> list[Mention]:
    out = []
    kind = (sq.kind or "").lower()
    kind_term = term(kind) if kind else ""
    taken: list[tuple[int, int]] = []
    for q in extract_numbers(text):
        surface = q.surface
        digits = numbers_in(surface)
        a, b = _locate_number(text, q, taken)
        if a >= 0:
            taken.append((a, b))
        if digits and digits <= sq.given_numbers:
            continue  # "Position 8", "season 2": the question's own figures
        if _is_year(q) and kind not in {"year", "age"}:
            continue
        if q.kind == "ordinal" and kind not in {"place", "position", "rank", "finish"}:
            continue
        after = text[b : b + 40].lstrip(" -–") if b >= 0 else ""
        # the unit the parser read with the figure ("230 meters"), else the word after it
        unit_text = q.unit or after.strip()
        after_words = [term(w) for w in re.findall(r"[A-Za-z][\w'’-]*", after)[:3]]
        before = text[max(0, a - 60) : a] if a >= 0 else ""
        before_words = [term(w) for w in re.findall(r"[A-Za-z][\w'’-]*", before)[-6:]]
        strength = 0.6
        if kind_term and (
            (q.unit and same_term(term(q.unit), kind_term))
            or any(same_term(w, kind_term) for w in after_words)
        ):
            strength = 1.0  # "400 students" for "how many students"
        elif (
            kind_term
            and kind not in {"old", "much", "many", "long", "far"}
            and any(same_term(w, kind_term) for w in before_words)
        ):
            strength = 1.0  # the figure the named thing is given: "the retirement age ... to 60"
        elif (
            kind in _MONEY_KINDS
            and q.kind == "currency"
            or kind in _PERCENT_KINDS
            and q.kind == "percent"
        ):
            strength = 1.0
        elif kind in {
            "far",
            "tall",
            "high",
            "deep",
            "wide",
            "long",
            "length",
            "height",
            "depth",
            "distance",
            "size",
            "big",
            "large",
            "short",
        } and _LENGTH_UNITS.match(unit_text):
            strength = 1.0  # fmt: skip
        elif kind in {"long", "duration", "often"} and _TIME_UNITS.match(unit_text):
            strength = 1.0
        elif kind in {
            "score",
            "scores",
            "scoreline",
            "result",
            "margin",
            "lead",
            "record",
            "tally",
        } and _SCORE.search(text[max(0, a - 4) : b + 6] if a >= 0 else ""):
            strength = 1.0  # fmt: skip
        elif kind in {"old", "age"}:
            strength = 0.4
        elif q.kind == "currency" and kind in NUMBER_KINDS:
            strength = 0.8
        out.append(Mention("number", a, b, strength, surface))
    if (sq.kind or "") in {"old", "age"}:
        for m in _AGE.finditer(text):
            if not (numbers_in(m.group(0)) <= sq.given_numbers):
                out.append(Mention("number", m.start(), m.end(), 1.0, m.group(0)))
    if (sq.kind or "") in {"score", "scores", "scoreline", "result", "margin", "lead", "record"}:
        for m in _SCORE.finditer(text):
            if not (numbers_in(m.group(0)) <= sq.given_numbers):
                out.append(Mention("number", m.start(), m.end(), 1.0, m.group(0)))
    return out


def _new_names(sq: SubQuestion, text: str) -> list[tuple[str, int, int]]:
    """Names (capitalised runs) in `text` with at least one word the question does not give."""
    out = []
    pos = 0
    for ent in extract_entities(text):
        toks = [fold(t) for t in re.findall(r"[\w'’-]+", ent)]
        toks = [t for t in toks if t and t not in STOPWORDS]
        if not toks or all(t in sq.given_names for t in toks):
            continue
        low = {t.strip(".").lower() for t in toks}
        if low <= set(MONTHS) | WEEKDAYS:
            continue
        a, b = _where(text, ent, pos)
        if a < 0:
            a, b = _where(text, ent)
        else:
            pos = b
        out.append((ent, a, b))
    return out


_TITLE_SMALL = word_set("a an the of and or in on at to for with by from")


def _quoted_titles(text: str) -> list[tuple[str, int, int]]:
    out = []
    for m in re.finditer(r"[\"“']([^\"“”']{2,80})[\"”']", text):
        inner = m.group(1).strip()
        words_ = re.findall(r"[^\W\d_][\w'’-]*", inner)
        capitalised = sum(1 for w in words_ if w[0].isupper() or w.lower() in _TITLE_SMALL)
        # a title is written in title case ("We Are Never Ever Getting Back Together");
        # a quotation is not
        if (
            words_
            and words_[0][0].isupper()
            and len(words_) <= 10
            and capitalised >= 0.7 * len(words_)
        ):
            out.append((inner, m.start(), m.end()))
    return out


def _preceded_by_locative(text: str, start: int) -> bool:
    before = re.findall(r"[\w'’]+", text[max(0, start - 25) : start])
    return bool(before) and (
        before[-1].lower() in _LOCATIVE
        or (len(before) > 1 and before[-2].lower() in _LOCATIVE and before[-1].lower() == "the")
    )


def _names_of_kind(sq: SubQuestion, text: str, type_: str) -> list[Mention]:
    out = []
    kind_term = term(sq.kind) if sq.kind else ""
    for ent, a, b in _new_names(sq, text):
        ent_words = {term(w) for w in re.findall(r"[\w'’-]+", ent)}
        if type_ == "place":
            if _preceded_by_locative(text, a) or ent_words & {term(w) for w in _PLACE_WORDS}:
                out.append(Mention("place", a, b, 0.8, ent))
            elif kind_term and (
                (a >= 0 and _kind_beside(text, a, b, kind_term))
                or any(same_term(w, kind_term) for w in ent_words)
            ):
                # the kind the question asks for beside or inside the name, as for any other
                # kind: "the Delhi high court" or "the Supreme Court" for "which court"
                out.append(Mention("place", a, b, 0.8, ent))
            continue
        strength = 0.6
        if kind_term and a >= 0 and _kind_beside(text, a, b, kind_term):
            strength = 1.0  # "the band Velvet Revolver", "the club Millwall"
        elif kind_term and any(same_term(w, kind_term) for w in ent_words):
            strength = 1.0  # the name says what it is: "... National Student Cup", "... FC"
        if type_ == "person" and len(ent.split()) >= 2:
            strength = max(strength, 0.8)
        if a >= 0 and sq.entity and _beside_the_entity(sq, text, a, b):
            strength = 1.0  # a peer of what it is about: "Velvet Revolver and ... Alice in Chains"
        out.append(Mention(type_, a, b, strength, ent))
    if sq.kind and sq.kind.endswith("s") and type_ in ("entity", "person"):
        # "which bands": a list of names the question does not give is the answer's shape
        run = _longest_list([m for m in out if m.type == type_ and m.start >= 0], text)
        if len(run) >= 2:
            strength = 1.0 if len(run) >= 3 else 0.8
            out.append(
                Mention(
                    type_, run[0].start, run[-1].end, strength, "; ".join(m.surface for m in run)
                )
            )
    if type_ == "entity":
        for title, a, b in _quoted_titles(text):
            if not all(fold(t) in sq.given_names for t in re.findall(r"[\w'’-]+", title)):
                out.append(Mention("entity", a, b, 0.9, title))
        if kind_term:
            for m in re.finditer(r"[A-Za-z][\w'’-]*", text):
                if same_term(term(m.group(0)), kind_term):
                    # the kind itself with what qualifies it ("public and private sector unions";
                    # not "joined the club": a determiner ends the qualifiers)
                    qualified = _qualifiers(text[max(0, m.start() - 60) : m.start()])
                    if qualified and not all(fold(w) in sq.given_names for w in qualified):
                        out.append(Mention("entity", m.start(), m.end(), 0.5, m.group(0)))
    return out


_LIST_GLUE = re.compile(
    r"^\s*(?:,|;|and|&|or|plus|as well as)(?:\s*(?:and|plus|or|as well as))?\s*$", re.I
)


def _longest_list(mentions: list[Mention], text: str) -> list[Mention]:
    """The longest run of names written as a list: "X, Y, Z and W" (only commas, "and",
    "plus" ... between them). A name that holds " and " counts as two."""
    parts: list[Mention] = []
    for m in sorted(mentions, key=lambda m: m.start):
        pieces = re.split(r"\s+and\s+", m.surface)
        pos = m.start
        for p in pieces:
            a = text.find(p, pos)
            if a < 0:
                continue
            parts.append(Mention(m.type, a, a + len(p), m.strength, p))
            pos = a + len(p)
    best: list[Mention] = []
    run: list[Mention] = []
    for m in parts:
        if run and _LIST_GLUE.match(text[run[-1].end : m.start]):
            run.append(m)
        else:
            run = [m]
        if len(run) > len(best):
            best = list(run)
    return best


_COORDINATION = word_set("and with alongside & plus joined by")


def _beside_the_entity(sq: SubQuestion, text: str, a: int, b: int) -> bool:
    """Is the name coordinated with the name the question is about -- "X and (the members
    of) E", "E with X" -- as the answer to "which band did E tour with" is?"""
    after = re.findall(r"[\w'’&-]+", text[b : b + 60])[:6]
    before = re.findall(r"[\w'’&-]+", text[max(0, a - 60) : a])[-6:]
    for side in (after, list(reversed(before))):
        if (
            side
            and side[0].lower() in _COORDINATION
            and any(term(w) in sq.entity for w in side[1:])
        ):
            return True
    return False


def _kind_beside(text: str, a: int, b: int, kind_term: str) -> bool:
    """Is the kind noun right next to the name: "the band X", "X band", "club X", "X, a club"?"""
    before = re.findall(r"[A-Za-z][\w'’-]*", text[max(0, a - 30) : a])[-2:]
    after = re.findall(r"[A-Za-z][\w'’-]*", text[b : b + 25])[:2]
    return any(same_term(term(w), kind_term) for w in before + after)


def _qualifiers(before: str) -> list[str]:
    """The words right before a noun that qualify it, back to a determiner or other stopword
    ("... applies to public and private sector" -> public, private, sector)."""
    out: list[str] = []
    for w in reversed(re.findall(r"[\w'’-]+", before)):
        low = w.lower()
        if low in {"and", "or", "&"}:
            continue
        if low in STOPWORDS or low in AUX or not w[0].isalpha():
            break
        out.append(w)
    return out


def _lexicon(
    text: str, lexicon: frozenset[str], type_: str, sq: SubQuestion, strength: float
) -> list[Mention]:
    out = []
    for m in re.finditer(r"[A-Za-z][\w'’-]*", text):
        w = m.group(0).lower()
        if (w in lexicon or w.rstrip("s") in lexicon) and fold(w) not in sq.given_names:
            out.append(Mention(type_, m.start(), m.end(), strength, m.group(0)))
    return out


def answer_mentions(sq: SubQuestion, text: str) -> list[Mention]:
    """Every answer of a type `sq` expects that `text` holds (nothing for unchecked types)."""
    out: list[Mention] = []
    for t in sq.answer_types:
        if t == "date":
            out += _dates(sq, text)
        elif t == "number":
            out += _numbers(sq, text)
        elif t in ("person", "place", "entity"):
            out += _names_of_kind(sq, text, t)
        elif t == "role":
            out += _lexicon(text, _ROLE_WORDS, "role", sq, 0.8)
            out += [
                Mention("role", a, b, 1.0, e)
                for e, a, b in _new_names(sq, text)
                if {w.lower() for w in e.split()} & _ROLE_WORDS
            ]
        elif t == "reason":
            for m in _REASON_MARKERS.finditer(text):
                strong = bool(_STRONG_REASON.fullmatch(m.group(0)))
                mention = Mention("reason", m.start(), m.end(), 0.9 if strong else 0.6, m.group(0))
                # a reason attaches to what it explains: "withdrew because ..." counts in
                # full, a "because" three clauses away from the question's terms less
                if sq.focus and nearness(sq.focus, text, mention) < 1.0:
                    mention.strength *= 0.6
                out.append(mention)
        elif t == "statement":
            out += [
                Mention("statement", m.start(), m.end(), 0.8, m.group(0))
                for m in _STATEMENT_MARKERS.finditer(text)
            ]
        elif t == "relation":
            out += _lexicon(text, _KINSHIP, "relation", sq, 1.0)
        elif t == "colour":
            out += _lexicon(text, _COLOURS, "colour", sq, 1.0)
    return out


_TYPE_WORDS = {
    "date": "date", "number": "figure", "person": "name", "place": "place", "entity": "name",
    "role": "post", "reason": "reason", "statement": "statement", "relation": "relation",
    "colour": "colour",
}  # fmt: skip


def missing_answer(sq: SubQuestion) -> str:
    """How a gap names what was not found: "a date", "a figure of students", "a name" ..."""
    kinds = [_TYPE_WORDS[t] for t in sq.answer_types if t in _TYPE_WORDS]
    what = " or ".join(kinds) or "an answer"
    if sq.kind and "number" in sq.answer_types and sq.kind.endswith("s"):
        what += f" of {sq.kind}"
    return what


def answered_types(sq: SubQuestion, text: str) -> set[str]:
    return {m.type for m in answer_mentions(sq, text)}


def holds_answer(sq: SubQuestion, text: str) -> bool:
    """Does `text` hold an answer of every checkable type `sq` expects? (True when none is.)"""
    want = {t for t in sq.answer_types if t in CHECKABLE}
    return want <= answered_types(sq, text)


# --- how well a sentence answers a sub-question --------------------------------------------

_WORD = re.compile(r"[\w'’-]+")


@dataclass
class Match:
    """How a text relates to a sub-question: its words, its names, and the answer it holds."""

    focus: float  # weighted share of the sub-question's own terms present (two count as all)
    entity: float  # share of the names it is about present (two count as all)
    strength: float  # the best answer mention's strength; 0 when none
    near: float  # 1 when that answer sits near one of the sub-question's own terms
    answers: bool  # holds an answer of the expected type(s), about this sub-question
    mention: Mention | None = None
    context: float = 0.0  # share of the other names the sub-question writes

    @property
    def score(self) -> float:
        # weights sum to 1: the score is also the claim's confidence
        return (
            0.3 * self.focus
            + 0.45 * self.strength
            + 0.1 * self.entity
            + 0.1 * self.near
            + 0.05 * self.context
        )


def _share(want: set[str], have: set[str], weights: dict[str, float] | None = None) -> float:
    """Share of `want` found in `have`; the best two terms found count as all of it. With
    `weights` (how rare each term is on the page) a rare term counts more than a common one."""
    if not want:
        return 0.0
    if weights:
        # Only terms the page holds at all set the bar: a term no sentence of the page has
        # cannot be missing from one sentence more than from another.
        w = weights
        on_page = [t for t in want if t in w] or list(want)
    else:
        w, on_page = {}, list(want)
    got = sorted((w.get(t, 1.0) for t in matched(want, have)), reverse=True)
    top = sorted((w.get(t, 1.0) for t in on_page), reverse=True)[:2]
    return min(1.0, sum(got[:2]) / sum(top)) if sum(top) else 0.0


def term_weights(sq: SubQuestion, sentences: list[str]) -> dict[str, float]:
    """How telling each of the sub-question's own terms is on one page: a term in few of its
    sentences picks the answer out; one in most of them ("driver" on a racing page) does not."""
    import math

    bags = [terms(s) for s in sentences]
    n = len(bags) or 1
    out = {}
    for t in sq.focus:
        df = sum(1 for bag in bags if matched({t}, bag))
        if df:
            out[t] = math.log(1 + n / df)
    return out


def nearness(want: set[str], text: str, mention: Mention) -> float:
    """1 within 40 characters of a word of `want`, 0.5 within 120, else 0."""
    anchors = [
        (m.start(), m.end()) for m in _WORD.finditer(text) if matched(want, {term(m.group(0))})
    ]
    if term("withdraw") in want:
        anchors += [m.span() for m in NOT_TAKING_PART.finditer(text)]
    if not anchors:
        return 0.0
    gap = min(max(0, max(a, mention.start) - min(b, mention.end)) for a, b in anchors)
    return 1.0 if gap <= 40 else 0.5 if gap <= 120 else 0.0


def match(sq: SubQuestion, text: str, weights: dict[str, float] | None = None) -> Match:
    have = terms(text)
    focus = _share(sq.focus, have, weights)
    entity = _share(sq.entity, have)
    if not entity and re.match(r"\W*(he|she|it|they|his|her|its|their)\b", text, re.I):
        entity = 0.5  # "She was 78." speaks of the subject without naming it
    mentions = answer_mentions(sq, text)
    if sq.kind and "number" in sq.answer_types:
        # A question that names what it counts or measures ("how many votes", "how old",
        # "what share") is not answered by a figure of something else ("three rivers").
        mentions = [m for m in mentions if m.type != "number" or m.strength >= 0.8]
    best = max(mentions, key=lambda m: m.strength, default=None)
    near = 0.0
    if best is not None and best.start >= 0:
        near = nearness(sq.focus, text, best)
        # an answer written beside the names the question is about ("X and Alice in Chains
        # will be joining forces") is next best to one beside its own words
        near = max(near, 0.5 * nearness(sq.entity, text, best))
    if sq.checkable:
        want = {t for t in sq.answer_types if t in CHECKABLE}
        typed = want <= {m.type for m in mentions}
        answers = typed and (focus > 0 or (best is not None and best.strength >= 1.0))
    else:
        answers = focus >= 0.5
    context = _share(sq.context, have)
    return Match(focus, entity, best.strength if best else 0.0, near, answers, best, context)
