"""The role a name (or a kinship word) fills in its clause, read from the words around it:
who did the deed (``agent``: "Merck manufactures", "manufactured by Pfizer", "the company's
founder was"), what the deed was done to (``object``: "managed Celtic", "Celtic were beaten"),
where or for whom (the preposition after the deed: "died in Madrid", "signed for Everton"),
or whose word it is (``source``: "according to Reuters", "Reuters said"). Read from the
structure around the name: a role noun it opens with ("Composer Giorgio Baldini"), a deed noun
it possesses ("Gregory Rabassa's translation"), a relative clause said of it ("Castlemere
Group, which bought the brewery"), the object of a verb after a subject ("the Harriers beat
the Falcons", "the team left Oakland"), the giver of what "came from" it, a move's destination
as where the thing now is ("moved its headquarters from Rotterdam to Utrecht"), a name
``displaced`` from the role ("held in Madrid instead of Lisbon"), an apposition on either
side ("Eleanor Whitcombe, the prosecuting barrister,"; "the trial judge, Howard Pemberton,"),
the subject of a clause a preposition opens ("a year after Helen Osei had founded the firm")
and the head of a subject before a copula ("the referee of the final was X"). A role the
name's own phrase gives it (``bound_roles``: an apposition, a role noun it opens with, a
relative clause said of it, a passive's agent in a relative clause, such a subject) holds
whoever the sentence around it is about ("Nadia Rousseau, a curator, worked under its
director, Pierre Lambert").

The slot reader aligns two values by the words next to them; a name is often written away
from its deed ("Tomas Adler wrote the libretto" / "the libretto was written by Clara Venn"),
so two names fill one slot when they fill the same role of the same deed (the same lemma, a
synonym or a derived form: "founder" / "founded"). ``slot_reader`` proves a contradiction
from two such names only when they are of one kind, share no word, and the span names the
claim's name nowhere in the claim's role: a mention whose role is read and is another one (a
move's origin, a name displaced, the loser a winner beat) states nothing about who filled it,
and a mention whose role is unread counts as stated."""

from __future__ import annotations

import re
from typing import NamedTuple

from spanproof.graders.specifics import lexicon
from spanproof.graders.specifics.concepts import keys as word_keys
from spanproof.graders.specifics.concepts import noun_form, phrase_verb, verb_form, verb_sense
from spanproof.graders.specifics.places import given_names
from spanproof.graders.specifics.slot_agreement import name_agrees as _name_agrees
from spanproof.graders.specifics.slot_frames import PREPS as _PREPS
from spanproof.graders.specifics.slot_frames import Layout as _Layout
from spanproof.graders.specifics.slot_frames import Tok as _Tok
from spanproof.graders.specifics.slot_frames import around as _around
from spanproof.graders.specifics.slots import Value

# a copula joins a name to the noun that says its role ("the founder was X", "X is the owner")
_COPULA = frozenset(
    ["is", "was", "are", "were", "be", "been", "being", "became", "becomes", "remains", "remained"]
)
# words between a subject and its verb that do not change the role ("has since moved")
_AUX = frozenset(
    [
        "has",
        "have",
        "had",
        "will",
        "would",
        "shall",
        "should",
        "can",
        "could",
        "may",
        "might",
        "must",
        "did",
        "does",
        "do",
        "also",
        "later",
        "then",
        "since",
        "previously",
        "first",
        "still",
        "already",
        "now",
        "once",
        "never",
        "not",
    ]
)
# saying verbs: their subject is the source of what the clause reports
_SAYING = frozenset(
    [
        "said",
        "says",
        "say",
        "told",
        "tells",
        "announced",
        "announces",
        "reported",
        "reports",
        "stated",
        "states",
        "added",
        "adds",
        "confirmed",
        "confirms",
        "claimed",
        "claims",
    ]
)
# words of a noun phrase before a name that are not its role ("the poet", "his", "rival")
_DETERMINERS = frozenset(
    [
        "a",
        "an",
        "the",
        "its",
        "their",
        "his",
        "her",
        "our",
        "my",
        "your",
        "this",
        "that",
        "these",
        "those",
        "whose",
    ]
)
_MODIFIERS = 3  # words of a kinship word's phrase read back before it: "the former president's"
MIN_REPORTED = 2  # words of what a claim reports that a span must hold to report it too

# a person or thing referred back to
_PRONOUNS = frozenset(["he", "him", "his", "she", "her", "they", "them", "their", "it", "its"])
# a person referred back to as the subject of a copula ("She is the niece of ...")
_SUBJECT_PRONOUNS = frozenset(["he", "she", "they"])
# where a place is: one role whichever of these leads to it ("signed in Utrecht" / "at Nijmegen")
_LOCATIVE = frozenset({"in", "at", "on"})
# nouns of a person who does a deed: "founder" names the agent of "found"
_AGENT_NOUN = re.compile(r"(?:er|or|ist)s?$")

KINSHIP = lexicon.words("kinship")
# the words right before a name that say it was displaced from the clause's role
_DISPLACING = tuple(tuple(e.split()) for e in lexicon.entries("displacing"))
# a relative pronoun opens a clause whose verb follows it at once ("which beat Brightwater")
_RELATIVE = frozenset(["who", "which", "that"])
# "came from X" says where the subject came from: X gave it ("funding came from the MRC")
_COME = word_keys("come")
# prepositions that also open a clause: the name after one may be that clause's subject ("a
# year after Helen Osei had founded the firm")
_SUBORDINATING = frozenset(["after", "before", "since", "until", "till"])


class Role(NamedTuple):
    relation: str  # agent | object | source | a preposition ("in" for in/at/on)
    deed: frozenset  # the keys of the words that say the deed (empty for a source)


SOURCE = frozenset({Role("source", frozenset())})


def _is_verb(lay: _Layout, t: _Tok, after_name: bool = False) -> bool:
    word = t.word.lower()
    if word in _SAYING or word in _COPULA:
        return True
    prior = re.findall(r"[A-Za-z']+", lay.text[max(0, t.start - 12) : t.start])
    after_noun = after_name or (bool(prior) and prior[-1].lower() not in _DETERMINERS)
    return bool(t.keys) and (verb_form(t.word, after_noun=after_noun) or phrase_verb(t.keys))


def _verb_after_subject(lay: _Layout, toks: list[_Tok], k: int, after_name: bool) -> bool:
    """``toks[k]`` is the verb of the name (or relative pronoun) right before it: any form
    WordNet knows as a verb counts there, an irregular or bare one too ("Denby United won
    the cup", "which beat Brightwater"), where alone it may be a noun ("the beat")."""
    t = toks[k]
    if not t.keys or _named(lay, t):
        return False
    if _is_verb(lay, t, after_name=after_name):
        return True
    return after_name and verb_sense(t.word) and not re.search(r"(?:er|or|ist)s?$", t.word)


def _named(lay: _Layout, t: _Tok) -> bool:
    """The word is part of a name ("Raised" opening a sentence is capitalised, not a name)."""
    return any(v.kind == "name" and v.start <= t.start < v.end for v in lay.values)


def _gap(lay: _Layout, a: int, b: int) -> str:
    return lay.text[a:b]


def _deed_before(lay: _Layout, toks: list[_Tok], i: int) -> frozenset:
    """The keys of the nearest verb and of the nearest content word before ``toks[i]`` (a
    preposition), within its clause: "built at the Govan yard in" reads "built" and "yard"."""
    out: set = set()
    word = verb = False
    for t in reversed(toks[:i]):
        if not t.keys or _named(lay, t):
            continue
        if not word:
            out |= t.keys
            word = True
        if not verb and _is_verb(lay, t):
            out |= t.keys
            verb = True
        if word and verb:
            break
    return frozenset(out)


def _role_of_noun(word: str) -> str:
    return "agent" if _AGENT_NOUN.search(word.lower()) else "is"


def _after(lay: _Layout, toks: list[_Tok], j: int) -> set[Role]:
    """Roles read from the words after a name that opens its clause: the subject of a verb
    ("Merck manufactures"), of a passive ("Celtic were beaten": the object), of a saying verb
    (a source), or a copula with a noun ("X is the founder")."""
    end = toks[j - 1].end if j else 0
    k = j
    # an appositive after the name ("Helga Sorensen, a painter, opened") is skipped
    if k < len(toks) and "," in _gap(lay, end, toks[k].start):
        nxt = lay.text.find(",", toks[k].start)
        if nxt < 0:
            return set()
        while k < len(toks) and toks[k].start < nxt:
            k += 1
    while k < len(toks) and toks[k].word.lower() in _AUX:
        k += 1
    if k >= len(toks):
        return set()
    t = toks[k]
    word = t.word.lower()
    if word in _SAYING:
        return {Role("source", frozenset())}
    if word in _COPULA:
        rest = [x for x in toks[k + 1 :] if x.word.lower() not in _AUX | _COPULA]
        rest = [x for x in rest if x.word.lower() not in _DETERMINERS]
        # a possessor before the role noun says whose role it is ("the museum's director")
        while len(rest) > 1 and re.search(r"['’]s?$", rest[0].word):
            rest = rest[1:]
        if not rest or not rest[0].keys or _named(lay, rest[0]):
            return set()
        if _is_verb(lay, rest[0]):  # "Celtic were beaten"
            return {Role("object", rest[0].keys)}
        return {Role(_role_of_noun(rest[0].word), rest[0].keys)}  # "X is the founder"
    if _verb_after_subject(lay, toks, k, after_name=True):
        return {Role("agent", t.keys)}
    return set()


_RELATIVE_AFTER = re.compile(r"\s*,\s*(?:which|who)\s+")


def _relative_role(lay: _Layout, end: int) -> frozenset[Role]:
    """A name a relative clause is said of does its verb ("Castlemere Group, which bought the
    brewery"; "Kellerton Civils, which beat Brightwater")."""
    m = _RELATIVE_AFTER.match(lay.text, end)
    if not m:
        return frozenset()
    toks = [t for t in lay.toks if t.start >= m.end()]
    k = 0
    while k < len(toks) and toks[k].word.lower() in _AUX:
        k += 1
    if k >= len(toks) or toks[k].word.lower() in _COPULA or toks[k].word.lower() in _SAYING:
        return frozenset()
    if not _verb_after_subject(lay, toks, k, after_name=True):
        return frozenset()
    return frozenset({Role("agent", toks[k].keys)})


def roles(lay: _Layout, start: int, end: int) -> frozenset[Role]:
    """Every role the words at ``start:end`` fill: by their clause (``_clause_roles``), by a
    relative clause said of them, and, for a kinship word, whose relative it says who is
    (``_kin_roles``)."""
    found = (
        _clause_roles(lay, start, end)
        | _title_role(lay, start, end)
        | _relative_role(lay, end)
        | _apposition_role(lay, end)
    )
    if kin_base(lay.text[start:end]) in KINSHIP:
        return found | _kin_roles(lay, start, end)
    return found


def _subject_head(lay: _Layout, toks: list[_Tok], k: int) -> _Tok | None:
    """The head noun of the subject before the copula at ``toks[k]``: its last noun ("the
    founder was"), or the noun an "of" phrase follows ("the referee of the final was": the
    referee, not the final; "the capital of France is"). None when the word before the
    copula is no noun ("in 2019 was", "said was")."""
    m = k - 1
    while m >= 0 and toks[m].word.lower() in _AUX:
        m -= 1
    if m < 0:
        return None
    last = toks[m]
    head = last if last.keys and not _named(lay, last) and not _is_verb(lay, last) else None
    if head is None and not _named(lay, last):
        return None
    # back over the phrase to an "of" after its head, within the clause and its words
    while m > 0 and not re.search(r"[,;(:]", _gap(lay, toks[m - 1].end, toks[m].start)):
        m -= 1
        t = toks[m]
        if t.word.lower() == "of":
            prior = toks[m - 1] if m else None
            if (
                prior is not None
                and prior.keys
                and not _named(lay, prior)
                and not _is_verb(lay, prior)
                and not re.search(r"[,;(:]", _gap(lay, prior.end, t.start))
            ):
                return prior
            break
        if t.keys and (_is_verb(lay, t) or t.word.lower() in _PREPS):
            break
    return head


# the words that open an apposition said of a name right after it ("X, the trial judge,")
_APPOSITION = re.compile(r"\s*,\s*(?:the|a|an|its|their|his|her)\s", re.I)


def _apposition_words(lay: _Layout, end: int) -> list[_Tok] | None:
    """The words of an apposition after the name ending at ``end``: a noun phrase a
    determiner opens between two commas ("Halberd Shipping, the vessel's owner, lodged"), or
    before the clause's end; None without one."""
    m = _APPOSITION.match(lay.text, end)
    if not m:
        return None
    clause_end = _around(lay.clauses, end)[1] if end < len(lay.text) else end
    close = lay.text.find(",", m.end())
    stop = clause_end if close < 0 else min(close, clause_end)
    words = [t for t in lay.toks if m.end() - 1 <= t.start < stop]
    if not words or re.search(r"[;(:]", lay.text[m.end() : stop]):
        return None
    return words


def _apposition_role(lay: _Layout, end: int) -> frozenset[Role]:
    """The role an apposition after a name says ("Eleanor Whitcombe, the prosecuting
    barrister,"; "Bologna, the region's capital,"; "Nadia Rousseau, a curator at the
    museum,"): its head noun, the last before a preposition, as the role noun of "the
    barrister, Eleanor Whitcombe" would be. None when the phrase holds a verb or a name
    ("X, the company that built the dam"), which is no role noun's phrase."""
    words = _apposition_words(lay, end)
    if not words:
        return frozenset()
    head = None
    for t in words:
        low = t.word.lower()
        if low in _PREPS:
            break
        if _named(lay, t) or low in _RELATIVE:
            return frozenset()
        if t.keys and low not in _DETERMINERS and not re.search(r"['’]s?$", t.word):
            head = t  # the last noun; a verb form before it describes it ("the presiding")
    if head is None or not noun_form(head.word) or _is_verb(lay, head):
        return frozenset()
    return frozenset({Role(_role_of_noun(head.word), head.keys)})


MIN_TITLED_WORDS = 2  # words of a name after a role noun it opens with ("Composer Ada Lind")


def _title_role(lay: _Layout, start: int, end: int) -> frozenset[Role]:
    """A name that opens with a common noun saying its bearer's role ("Composer Giorgio
    Baldini", "Winner Almaz Tesfaye", "Publisher Linden Books"): the role that noun says,
    as an apposition would ("the composer, Giorgio Baldini")."""
    words = re.findall(r"[A-Za-z][\w'’-]*", lay.text[start:end])
    if len(words) <= MIN_TITLED_WORDS or words[0].lower() in given_names():
        return frozenset()
    head = words[0].lower()
    if not _AGENT_NOUN.search(head) or not noun_form(head) or not word_keys(head):
        return frozenset()
    return frozenset({Role("agent", word_keys(head))})


def _possessed(lay: _Layout, end: int) -> frozenset[Role]:
    """The role of a possessor: the agent of the deed noun it owns ("Ingrid Falk's design",
    "Gregory Rabassa's English translation"), the head of the phrase after it before a
    preposition, a verb, a break or another name; none for a noun that names no deed."""
    clause = _around(lay.clauses, end)
    head = None
    for t in lay.toks:
        if t.start < end or t.start >= clause[1]:
            continue
        if _named(lay, t):
            break
        if re.search(r"[,;(:]", lay.text[end : t.start]) or t.word.lower() in _PREPS:
            break
        if t.keys and _is_verb(lay, t, after_name=head is not None):
            break
        if t.keys:
            head = t
    if head is None or not _deed_noun(head.word):
        return frozenset()  # "the Forum's council": the council fills the role, not the Forum
    return frozenset({Role("agent", head.keys)})


# the endings of nouns that name a deed ("translation", "appointment", "approval", "signature")
_DEED_ENDING = re.compile(r"(?:tion|sion|ment|al|ance|ence|ure)s?$")


def _deed_noun(word: str) -> bool:
    """A noun with a deed noun's ending ("translation", "appointment"). A noun that is also a
    verb may name a deed or a thing ("Falk's design", "Moreau's name"): which is unread."""
    return noun_form(word) and bool(_DEED_ENDING.search(word.lower()))


def _displaced(toks: list[_Tok], k: int) -> bool:
    """The words ending at ``toks[k]`` are a displacing phrase ("instead of")."""
    for phrase in _DISPLACING:
        n = len(phrase)
        if k + 1 >= n and tuple(t.word.lower() for t in toks[k + 1 - n : k + 1]) == phrase:
            return True
    return False


def _moved_from(toks: list[_Tok], k: int) -> bool:
    """A "from" stands before ``toks[k]`` (a "to") in its clause: a move from one place to
    another, whose "to" is where the thing is now."""
    return any(t.word.lower() == "from" for t in toks[:k])


def _came_from(lay: _Layout, toks: list[_Tok], k: int) -> frozenset[Role]:
    """X is the agent of the clause's subject noun ("funding for the study came from X")."""
    verbs = [t for t in toks[:k] if t.keys and not _named(lay, t)]
    if not verbs or not verbs[-1].keys & _COME:
        return frozenset()
    subject = next((t for t in toks[:k] if t.keys and not _named(lay, t)), None)
    if subject is None or subject is verbs[-1]:
        return frozenset()
    return frozenset({Role("agent", subject.keys)})


def _run_keys(lay: _Layout, t: _Tok) -> frozenset:
    """The keys of the whole name a word belongs to, or of the word."""
    if t.run < 0:
        return t.keys
    return frozenset().union(*(x.keys for x in lay.toks if x.run == t.run))


def _kin_roles(lay: _Layout, start: int, end: int) -> frozenset[Role]:
    """A kinship word said of a named person: "Rosa Lind is the sister of the composer",
    "Rosa Lind, the composer's cousin,", "the composer's cousin, Rosa Lind". Its role is the
    pair (the person, whose relative): two kinship words of one pair are two relations, and
    a word said of another person or of another relative is another statement. Without a
    named person and a relative read on both sides, no role."""
    sentence = _around(lay.sentences, start)
    toks = list(lay.toks_within(*sentence))
    n = next((i for i, t in enumerate(toks) if t.start == start), None)
    if n is None:
        return frozenset()
    # whose relative: the possessor before ("the composer's", "his") or "of" after
    first = n  # the first word of the kinship word's noun phrase
    relative: frozenset = frozenset()
    if (
        n
        and re.search(r"['’]s?$", toks[n - 1].word)
        and "," not in _gap(lay, toks[n - 1].end, start)
    ):
        relative = _run_keys(lay, toks[n - 1])
        first = n - 1
    elif n and toks[n - 1].word.lower() in _PRONOUNS:
        relative = frozenset({toks[n - 1].word.lower()})
        first = n - 1
    last = n  # the last word of the noun phrase
    if not relative and n + 1 < len(toks) and toks[n + 1].word.lower() == "of":
        # the head of the phrase after "of": its last word before a break ("of the former
        # president", "of Anna Berg")
        k = n + 2
        while k < len(toks) and not re.search(r"[,;(:]", _gap(lay, toks[k - 1].end, toks[k].start)):
            low = toks[k].word.lower()
            if low in _PREPS or (toks[k].keys and _is_verb(lay, toks[k])):
                break
            if toks[k].keys:
                last = k
            k += 1
        if last > n:
            relative = _run_keys(lay, toks[last])
    if not relative:
        return frozenset()
    # back over the phrase's determiner and modifiers ("the former president's", "her only")
    for _ in range(_MODIFIERS):
        prior = toks[first - 1] if first else None
        if (
            prior is None
            or prior.word.lower() in _COPULA
            or _named(lay, prior)
            or "," in _gap(lay, prior.end, toks[first].start)
            or (prior.keys and _is_verb(lay, prior))
        ):
            break
        first -= 1
    bearer: frozenset = frozenset()
    before = toks[first - 1] if first else None
    if before is not None and "," in _gap(lay, before.end, toks[first].start):
        if _named(lay, before):  # "Rosa Lind, the composer's cousin"
            bearer = _run_keys(lay, before)
    elif before is not None and before.word.lower() in _COPULA:
        k = first - 2
        while k >= 0 and toks[k].word.lower() in _AUX:
            k -= 1
        if k >= 0 and _named(lay, toks[k]):  # "Rosa Lind is the composer's cousin"
            bearer = _run_keys(lay, toks[k])
        elif k >= 0 and toks[k].word.lower() in _SUBJECT_PRONOUNS:  # "She is his niece"
            bearer = frozenset({toks[k].word.lower()})
    if not bearer and last + 1 < len(toks):
        after = toks[last + 1]
        if _named(lay, after) and "," in _gap(lay, toks[last].end, after.start):
            bearer = _run_keys(lay, after)  # "the composer's cousin, Rosa Lind"
    if not bearer:
        return frozenset()
    return frozenset({Role("kin", frozenset((b, r) for b in bearer for r in relative))})


def _clause_roles(lay: _Layout, start: int, end: int) -> frozenset[Role]:
    """Every role the words at ``start:end`` (a name, a kinship word) fill in their clause.
    None for a possessor ("World Economic Forum's council": the council fills the role)."""
    if re.match(r"['’]s?\b", lay.text[end : end + 3]):
        return _possessed(lay, end)
    clause = _around(lay.clauses, start)
    toks = [t for t in lay.toks if clause[0] <= t.start < clause[1]]
    i = sum(1 for t in toks if t.end <= start)  # the first word after the name's words
    j = i
    while j < len(toks) and toks[j].start < end:
        j += 1
    out: set[Role] = set()
    edge = start
    k = i - 1
    while k >= 0:
        t = toks[k]
        word = t.word.lower()
        between = _gap(lay, t.end, edge)
        if re.search(r"[,;(:]", between):
            # an appositive ("the newspaper's owner, Reach plc"): the noun before the comma
            if t.keys and not _named(lay, t) and not _is_verb(lay, t):
                out.add(Role(_role_of_noun(word), t.keys))
            break
        if _named(lay, t):  # a word of another name, "of" in "City of Milwaukee's" too
            edge = t.start
            k -= 1
            continue
        if word == "to" and k and toks[k - 1].word.lower() == "according":
            out.add(Role("source", frozenset()))
            return frozenset(out)
        if (
            word in _SUBORDINATING
            and j < len(toks)
            and "," not in _gap(lay, end, toks[j].start)
            and (own := _after(lay, toks, j))
        ):
            # "a year after Helen Osei had founded the firm": the name is the subject of the
            # clause the word opens, whose verb follows it
            return frozenset(own)
        if word in _PREPS:
            deed = _deed_before(lay, toks, k)
            if _displaced(toks, k):
                # "held in Madrid instead of Lisbon": Lisbon is the one the deed was not
                return frozenset({Role("displaced", deed)})
            if not deed:
                break  # a fronted phrase ("In November of that year the Board said")
            if word == "of":
                return frozenset()  # "chair of X" may be the chair of a part of X, or X's
            relation = "agent" if word == "by" else ("in" if word in _LOCATIVE else word)
            out.add(Role(relation, deed))
            if word == "to" and _moved_from(toks, k):
                out.add(Role("in", deed))  # "moved from Rotterdam to Utrecht": now in Utrecht
            if word == "from":
                out |= _came_from(lay, toks, k)
            return frozenset(out)
        if word in _SAYING:  # "said Smith"
            out.add(Role("source", frozenset()))
            return frozenset(out)
        if word in _COPULA:  # "the founder was X": the subject's noun says the role
            head = _subject_head(lay, toks, k)
            if head is not None:
                out.add(Role(_role_of_noun(head.word), head.keys))
            return frozenset(out)
        prior = toks[k - 1] if k else None
        after_subject = prior is not None and (
            _named(lay, prior) or prior.word.lower() in _RELATIVE
        )
        # an irregular past after a noun is its verb ("the team left Oakland"), as in _after
        after_noun = prior is not None and prior.word.lower() not in _DETERMINERS
        if (
            t.keys
            and not _named(lay, t)
            and (
                _is_verb(lay, t)
                or _verb_after_subject(lay, toks, k, after_subject)
                or verb_form(t.word, after_noun=after_noun, irregular=True)
            )
        ):
            out.add(Role("object", t.keys))  # "managed Celtic", "which beat Brightwater"
            return frozenset(out)
        edge = t.start
        k -= 1
    # nothing but a noun phrase before it: the name is a subject (of its clause, or after a
    # fronted phrase and a comma); what it does comes after it
    out |= _after(lay, toks, j)
    return frozenset(out)


def aligned(a: frozenset[Role], b: frozenset[Role]) -> bool:
    """Whether two sets of roles share one: the same relation to the same deed."""
    for x in a:
        for y in b:
            if x.relation == y.relation and (x.relation == "source" or x.deed & y.deed):
                return True
    return False


def displaced(found: frozenset[Role]) -> bool:
    """A name read as the one displaced from its clause's role ("instead of X")."""
    return any(r.relation == "displaced" for r in found)


def _subject_words(lay: _Layout, v: Value) -> list[_Tok] | None:
    """The content words of ``v``'s clause before its first verb and before ``v``: what the
    clause is about when ``v`` is not its subject ("Delegates signed the treaty at X"); a
    source and its saying verb before it aside ("UEFA announced the final will be played
    in X"). None when ``v`` stands before the verb outside a phrase a preposition opens (one
    opening the clause aside): it is in the subject, and the words before it say who it is
    ("the expedition's leader, the geologist X"; "Under its conductor, X, the orchestra")."""
    clause = _around(lay.clauses, v.start)
    out: list[_Tok] = []
    inside = False  # a preposition after the clause's first word: ``v`` is in its phrase
    for n, t in enumerate(x for x in lay.toks if clause[0] <= x.start < clause[1]):
        if t.start >= v.start:
            return out if inside else None
        inside = inside or (n > 0 and t.word.lower() in _PREPS)
        if t.word.lower() in _SAYING:
            out = []  # what the source said is the clause whose subject is read
            continue
        if _is_verb(lay, t, after_name=bool(out)) or (
            out and t.keys and verb_form(t.word, after_noun=True, irregular=True)
        ):
            break  # the verb: what comes after it is not the subject ("the team left X")
        if t.keys:
            out.append(t)
    return out


def _agentless_passive(lay: _Layout, v: Value) -> bool:
    """``v``'s clause is a passive naming no agent ("The treaty was signed in Utrecht"): a
    span naming who did it ("Delegates signed the treaty at Nijmegen") adds an agent, not
    another subject."""
    clause = lay.text[slice(*_around(lay.clauses, v.start))]
    return bool(re.search(r"\b(?:was|were|is|are|been|be)\s+\w+ed\b", clause)) and not re.search(
        r"\bby\b", clause
    )


def _sentence_keys(lay: _Layout, v: Value, sentence: tuple[int, int]) -> set:
    """The keys of the words of ``sentence`` other than the value's own."""
    keys: set = set()
    for t in lay.toks_within(*sentence):
        if sentence[0] <= t.start < sentence[1] and not v.start <= t.start < v.end:
            keys |= t.keys
    return keys


def _refers_back(lay: _Layout, clause: tuple[int, int]) -> bool:
    return bool({w.lower() for w in re.findall(r"[A-Za-z]+", lay.text[slice(*clause)])} & _PRONOUNS)


def same_statement(c_lay: _Layout, cv: Value, s_lay: _Layout, sv: Value) -> bool:
    """The two role fillers are said of one thing: the span sentence holds every other name
    of the claim's clause and at least half of its other words that are not verbs (one at
    least), and the span clause's subject
    (when the filler is not it) is the claim's ("his father was born in Paris" is not said
    of "Smith was born in Lyon"), unless it is the agent an agentless passive left out."""
    sentence = _around(s_lay.sentences, sv.start)
    s_keys = _sentence_keys(s_lay, sv, sentence)
    clause = _around(c_lay.clauses, cv.start)
    words = [
        t for t in c_lay.toks
        if clause[0] <= t.start < clause[1] and t.keys and not cv.start <= t.start < cv.end
    ]  # fmt: skip
    held = [bool(t.keys & s_keys) for t in words]
    if any(_named(c_lay, t) and not h for t, h in zip(words, held, strict=True)):
        return False
    # what the deed is done to or by, not only the deed: "Hetherington was killed" and "the
    # mortar that killed Chris Hondros" share a verb, not a statement
    # ... in the filler's own clause, unless that clause refers back to the sentence's
    # ("recorded the song in 1972; its writer, Colm Dunne,"): "the final was switched to the
    # Welsh capital, and the fixture set for Cardiff went to Bristol" moved no final to Bristol
    s_clause = _around(s_lay.clauses, sv.start)
    if s_clause != sentence and not _refers_back(s_lay, s_clause):
        held = [bool(t.keys & _sentence_keys(s_lay, sv, s_clause)) for t in words]
    things = [h for t, h in zip(words, held, strict=True) if not _is_verb(c_lay, t)]
    # a person referred back to on both sides ("drafted him" / "he was drafted") is one
    said = {m.lower() for m in re.findall(r"[A-Za-z]+", c_lay.text[slice(*clause)])} & _PRONOUNS
    if said:
        s_words = re.findall(r"[A-Za-z]+", s_lay.text[slice(*sentence)])
        things.append(bool({w.lower() for w in s_words} & _PRONOUNS))
    if not any(things) or 2 * sum(things) < len(things):
        return False
    c_keys: set = set()
    for t in words:
        c_keys |= t.keys
    extra = [
        t for t in _subject_words(s_lay, sv) or ()
        if not t.keys & c_keys and t.word.lower() not in _DETERMINERS
    ]  # fmt: skip
    if not extra or _agentless_passive(c_lay, cv):
        return True
    # the span's filler bound to the claim's role by its own phrase is said of the deed the
    # claim's words name, whoever the clause around it is about
    return aligned(roles(c_lay, cv.start, cv.end), bound_roles(s_lay, sv.start, sv.end))


# a passive's agent in a relative clause: "the portrait, which was painted by his friend X"
_RELATIVE_PASSIVE = re.compile(
    r"\b(?:which|who|that)\s+(?:(?:has|have|had)\s+)?(?:was|were|is|are|been|be|being)\s+"
    r"(?:\w+\s+)?\w+\s+by\s+(?:[\w'’-]+\s+){0,3}$",
    re.I,
)


def bound_roles(lay: _Layout, start: int, end: int) -> frozenset[Role]:
    """The roles the name at ``start:end`` is given by its own phrase, not by the clause it
    stands in: an apposition on either side ("the trial judge, Howard Pemberton,"; "Bologna,
    the region's capital,"), a role noun it opens with ("Composer Giorgio Baldini"), a
    relative clause said of it ("Castlemere Group, which bought the brewery"), the
    agent of a passive in a relative clause ("the mission, which was commanded by Major
    Stefan Holm"), or the subject of a clause a preposition opens ("after Helen Osei had
    founded the firm"). The subject of the sentence around such a name is someone else's
    ("Nadia Rousseau, a curator, worked under its director, Pierre Lambert")."""
    out = set(_apposition_role(lay, end) | _title_role(lay, start, end) | _relative_role(lay, end))
    clause = _around(lay.clauses, start)
    toks = [t for t in lay.toks if clause[0] <= t.start < clause[1]]
    i = sum(1 for t in toks if t.end <= start)
    if i:
        before, gap = toks[i - 1], _gap(lay, toks[i - 1].end, start)
        found = _clause_roles(lay, start, end)
        if "," in gap and not re.search(r"[;(:]", gap):
            if before.keys and not _named(lay, before) and not _is_verb(lay, before):
                out.add(Role(_role_of_noun(before.word), before.keys))  # "the trial judge, X"
        elif before.word.lower() in _SUBORDINATING:
            out |= found
        elif _RELATIVE_PASSIVE.search(lay.text[clause[0] : start]):
            out |= {r for r in found if r.relation == "agent"}
    return frozenset(out)


def same_report(c_lay: _Layout, cv: Value, s_lay: _Layout, sv: Value) -> bool:
    """Two sources report one thing: the span sentence holds at least half of what the
    claim's sentence reports (its words that are not verbs, its source's aside), and at least
    two of them ("the original search wasn't inclusive enough, the Arts Board said")."""
    sentence = _around(s_lay.sentences, sv.start)
    s_keys = _sentence_keys(s_lay, sv, sentence)
    c_sentence = _around(c_lay.sentences, cv.start)
    things = [
        bool(t.keys & s_keys)
        for t in c_lay.toks
        if c_sentence[0] <= t.start < c_sentence[1]
        and t.keys
        and not cv.start <= t.start < cv.end
        and t.word.lower() not in _SAYING | {"according"}
        and not _is_verb(c_lay, t)
    ]
    return sum(things) >= max(MIN_REPORTED, len(things) / 2)


def names_differ(c: Value, s: Value) -> bool:
    """Two names in one role are two fillers: they are of one kind (``_name_agrees`` with the
    role as the kind) and neither is a lone given name, which may be the other's bearer
    ("LaRusso" / "Daniel")."""
    if any(
        len(v.name) == 1 and v.name[0] in given_names() and v.name_type in (None, "person")
        for v in (c, s)
    ):
        return False
    return _name_agrees(c, s, one_kind=True) is False


def kin_words(lay: _Layout) -> list[_Tok]:
    """The kinship words of a text that name who someone is ("his granddaughter"), not those
    that only say whose ("his son's daughter": the daughter, a granddaughter, is the value)."""
    out = []
    for n, t in enumerate(lay.toks):
        word = t.word.lower()
        if word not in KINSHIP:
            continue
        prev = lay.toks[n - 1].word.lower() if n else ""
        if prev.endswith(("'s", "’s")) and prev[:-2] in KINSHIP:
            continue  # "his son's daughter": a compound this reader does not resolve
        if re.match(r"['’]s?\b|-in-law", lay.text[t.end : t.end + 8]):
            continue  # "her son's school", "his father-in-law"
        out.append(t)
    return out


def kin_base(word: str) -> str:
    low = word.lower()
    return low[:-1] if low.endswith("s") and low[:-1] in KINSHIP else low
