"""One sub-question analysed: the answer types and kind noun its wording expects (the types are
listed in the package docstring), its own terms, the names it is about and the numbered
things it names."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from spanproof.agent.question.words import AUX, IRREGULAR, fold, term, terms, word_set
from spanproof.graders.specifics.dates import MONTHS, WEEKDAYS

from spanproof.core.text import STOPWORDS

CHECKABLE = frozenset(
    {"date", "number", "person", "place", "entity", "role", "reason", "statement", "relation", "colour"}
)  # fmt: skip


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
