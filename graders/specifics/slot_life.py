"""Life states: one statement saying its subject died ("died on Saturday", "was killed in the
crash") and another saying the same subject is alive ("still alive at 97", "survived the
crash"). The two are opposite values of one slot, whatever verb or adjective carries them,
so the slot reader proves a contradiction from them when both speak of one subject (the words
before the state: "the former mayor"), of one event when the state is relative to one
("killed in the crash" / "survived the crash"), neither is negated ("Neither pilot
survived" says the pilots died), and the span never says the claim's state."""

from __future__ import annotations

import re
from typing import NamedTuple

from spanproof.graders.specifics import lexicon
from spanproof.graders.specifics.concepts import verb_form
from spanproof.graders.specifics.slot_frames import Layout, around, layout

_TABLE = lexicon.table("life_states")
_STATES = {
    state: re.compile(r"\b(?:" + "|".join(re.escape(w) for w in _TABLE[state]) + r")\b", re.I)
    for state in ("dead", "alive")
}
_SURVIVED_BY = re.compile(r"\bsurvived\s+by\b", re.I)
_NEGATED = re.compile(r"\b(?:not|never|no|n't|neither|nor|without|no longer|failed to)\b", re.I)
# words that say when or how a state was stated, not whose it is
_SKIP = frozenset("still now later also reportedly".split())  # noqa: SIM905


class LifeProof(NamedTuple):
    claim: tuple[int, int, str]
    span: tuple[int, int, str]
    sentence: tuple[int, int]


def _mentions(text: str) -> list[tuple[str, int, int]]:
    blank = _SURVIVED_BY.sub(lambda m: " " * len(m.group(0)), text)
    out = []
    for state, rx in _STATES.items():
        out += [(state, m.start(), m.end()) for m in rx.finditer(blank)]
    return sorted(out, key=lambda x: x[1])


def token_keys(lay: Layout, a: int, b: int, verbs: bool = True) -> list[frozenset]:
    return [
        t.keys
        for t in lay.toks
        if a <= t.start < b
        and t.keys
        and t.word.lower() not in _SKIP
        and (verbs or not verb_form(t.word))
    ]


def _held(words: list[frozenset], keys: frozenset) -> bool:
    return all(w & keys for w in words)


def _all_keys(lay: Layout, a: int, b: int) -> frozenset:
    return frozenset().union(*token_keys(lay, a, b))


def contradictions(claim: str, span: str) -> list[LifeProof]:
    c_said = _mentions(claim)
    s_said = _mentions(span) if c_said else []  # most claims say no life state
    if not s_said:
        return []
    c_states = {s for s, *_ in c_said}
    if len(c_states) > 1 or any(state in c_states for state, *_ in s_said):
        return []  # the claim says both, or the span says the claim's state somewhere
    c_lay, s_lay = layout(claim), layout(span)
    for _, ca, cb in c_said:
        c_sentence = around(c_lay.sentences, ca)
        c_clause = around(c_lay.clauses, ca)
        if _NEGATED.search(claim[slice(*c_sentence)]):
            continue
        c_subject = token_keys(c_lay, c_clause[0], ca, verbs=False)
        c_event = token_keys(c_lay, cb, c_clause[1])
        for _, sa, sb in s_said:
            s_sentence = around(s_lay.sentences, sa)
            if _NEGATED.search(span[slice(*s_sentence)]):
                continue
            s_clause = around(s_lay.clauses, sa)
            # the subject: everything before the state in its clause, an appositive's
            # commas aside ("The novelist, still alive at 97,")
            s_subject = token_keys(s_lay, s_clause[0], sa, verbs=False)
            s_keys = _all_keys(s_lay, *s_sentence)
            c_keys = _all_keys(c_lay, *c_sentence)
            if not c_subject or not s_subject:
                continue
            if not _held(c_subject, s_keys) or not _held(s_subject, c_keys):
                continue
            s_event = token_keys(s_lay, sb, s_clause[1])
            if c_event and s_event and not any(k & frozenset().union(*s_event) for k in c_event):
                continue  # "killed in the crash" / "survived the war": two events
            return [LifeProof((ca, cb, claim[ca:cb]), (sa, sb, span[sa:sb]), s_sentence)]
    return []
