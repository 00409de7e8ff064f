"""A name swapped within its statement: the claim's name of a kind (a person, a place, an
organisation) that the span never states, where the span states every other specific of the
claim's sentence and the span sentence that says the claim's words names one other name of
that kind.

The role reader (``slot_roles``) aligns two names by the deed they fill, which needs the deed
read on both sides; a real span often words it otherwise ("She was elected to the council" /
"won council seats"; "a ceremony in Israel" / "visited Australia to accept the award"). The
statement itself says which name is the rival: the claim is a paraphrase of the span, which states
the claim's other values (its dates, numbers and other names), and the sentence that says the
claim's words names one thing of the claim's name's kind that the claim does not name. A name
the span never states, in a claim every other specific of which the span states, is not
merely absent: the sentence names someone, somewhere or something else in its place.

What keeps an absence from being read as a swap: the claim's name shares no word with the
span; the kind is read on both names and is the same (``slots.name_type``), and the two
cannot be one thing (``slot_agreement.name_agrees``: a place that may hold the other, a
person named by one word, are not rivals); the claim states at least one other specific, the
span states every one of them, and the sentence holds at least half of the claim sentence's
other words and the deed the claim's name fills when its role is read ("the war in Syria" is
no deed of "briefed the Security Council in New York"); the rival stands in that statement,
not in a verbless phrase about another name ("John Patterson, a coal merchant from Toledo")
nor as the one who reports it ("..., said Roy Rana, Head Coach") where the claim's name is not
its source, nor the other way round;
no other name of the sentence fills the claim name's role ("The All Blacks won ..., beating
France" against "New Zealand won"); and the claim has no other unstated name of the kind nor
the span's statement another unnamed one.
"""

from __future__ import annotations

from spanproof.graders.specifics.concepts import verb_form
from spanproof.graders.specifics.names import token_present, token_set
from spanproof.graders.specifics.slot_agreement import distinctive
from spanproof.graders.specifics.slot_agreement import name_agrees as _name_agrees
from spanproof.graders.specifics.slot_frames import Layout, around
from spanproof.graders.specifics.slot_roles import SOURCE, Role, aligned, roles
from spanproof.graders.specifics.slots import Value

# the kinds slots.name_type reads from a name's own words or its neighbours
KINDS = frozenset({"person", "place", "org"})
MIN_WORD_SHARE = 0.5  # of the claim sentence's other words the span sentence holds


def _shares_a_word(v: Value, tokens: set[str]) -> bool:
    return any(token_present(t, tokens) for t in distinctive(v.name))


def _deeds(found: frozenset[Role]) -> frozenset:
    return frozenset().union(*(r.deed for r in found - SOURCE))


def _keys_of(lay: Layout, span: tuple[int, int], skip: Value) -> set:
    toks = [t for t in lay.toks_within(*span) if t.start < span[1] and not _inside_v(t, skip)]
    return set().union(*(t.keys for t in toks))


def _has_verb(lay: Layout, span: tuple[int, int]) -> bool:
    return any(
        t.keys and verb_form(t.word, after_noun=True)
        for t in lay.toks_within(*span)
        if t.start < span[1]
    )


def _in_the_statement(s_lay: Layout, sv: Value, words: list) -> bool:
    """The rival stands where the claim's statement is said: its phrase holds a word of the
    claim's, or the phrase has a verb of its own and its clause holds one. A phrase without
    a verb after a comma describes the name before it ("John Patterson, a coal merchant from
    Toledo"), not the claim's deed."""
    phrase = around(s_lay.phrases, sv.start)
    where = around(s_lay.clauses, sv.start) if _has_verb(s_lay, phrase) else phrase
    keys = _keys_of(s_lay, where, sv)
    return any(t.keys & keys for t in words)


def _inside_v(t, v: Value) -> bool:
    return v.start <= t.start < v.end


def _reports(c_lay: Layout, cv: Value, s_lay: Layout, sv: Value) -> bool:
    """One of the two is the source of its sentence and the other is not ("..., said Roy
    Rana, Head Coach" against the player selected; "according to the World Health
    Organization" against a club the span names): a source reports the statement, it is not
    in it (two sources are the role reader's, ``slot_roles.same_report``)."""
    c_said = bool(SOURCE & roles(c_lay, cv.start, cv.end))
    return c_said != bool(SOURCE & roles(s_lay, sv.start, sv.end))


def _filled_by_another(
    c_lay: Layout, cv: Value, s_lay: Layout, sv: Value, sentence: tuple[int, int]
) -> bool:
    """Another name of the sentence fills the claim name's role ("The All Blacks won ...,
    beating France" against "New Zealand won"): the claim's may be that one named otherwise."""
    c_roles = roles(c_lay, cv.start, cv.end)
    if not c_roles:
        return False
    return any(
        v.kind == "name" and v is not sv and _inside(v, sentence)
        and aligned(c_roles, roles(s_lay, v.start, v.end))
        for v in s_lay.values
    )  # fmt: skip


def _inside(v: Value, span: tuple[int, int]) -> bool:
    return span[0] <= v.start < span[1]


def swapped_names(
    c_lay: Layout, s_lay: Layout, stated, name_stated
) -> list[tuple[Value, Value, tuple[int, int]]]:
    """(the claim's name, the span's rival, the span sentence) for each name swapped within
    its statement. ``stated(claim, text)``: the texts of the claim's values ``text`` states
    after normalising; ``name_stated(value, layout)``: the span names the value somewhere
    (both the slot reader's, passed in so this module stays below it)."""
    typed = [v for v in c_lay.values if v.kind == "name" and v.name_type in KINDS]
    if not typed:
        return []
    span_tokens = token_set(s_lay.text)
    claim_tokens = token_set(c_lay.text)
    # a word in common first: the cheap test, and most of a claim's names pass it
    unstated = [
        v for v in typed if not _shares_a_word(v, span_tokens) and not name_stated(v, s_lay)
    ]
    out = []
    for cv in unstated:
        if any(v is not cv and v.name_type == cv.name_type for v in unstated):
            continue  # two names of the kind unstated: which one the rival replaced is unread
        sentence = around(c_lay.sentences, cv.start)
        others = [
            v for v in c_lay.values
            if _inside(v, sentence) and v is not cv and not (v.start < cv.end and cv.start < v.end)
        ]  # fmt: skip
        if not others:
            continue  # nothing else of the claim ties it to one sentence of the span
        words = [
            t for t in c_lay.toks_within(*sentence)
            if t.keys and t.start < sentence[1]
            and not any(v.start <= t.start < v.end for v in c_lay.values)
        ]  # fmt: skip
        # names are looked up by name; the span's figures are read only for a claim figure
        figures = [v for v in others if v.kind != "name"]
        said = set(stated(c_lay.text, s_lay.text)) if figures else set()
        if not all(name_stated(v, s_lay) for v in others if v.kind == "name") or not all(
            v.text in said for v in figures
        ):
            continue  # a specific of the claim the span does not state: the claim adds more
        c_deed = _deeds(roles(c_lay, cv.start, cv.end))
        rivals: dict[tuple[str, ...], tuple[Value, tuple[int, int]]] = {}
        for s_sentence in s_lay.sentences:
            s_keys = set().union(
                *(t.keys for t in s_lay.toks_within(*s_sentence) if t.start < s_sentence[1])
            )
            if sum(bool(t.keys & s_keys) for t in words) < max(1, MIN_WORD_SHARE * len(words)):
                continue  # not the sentence the claim says again
            if c_deed and not c_deed & s_keys:
                continue  # the deed the claim's name fills is not said here ("the war in X")
            for sv in s_lay.values:
                if (
                    sv.kind == "name"
                    and _inside(sv, s_sentence)
                    and sv.name_type == cv.name_type
                    and not _shares_a_word(sv, claim_tokens)
                    and _name_agrees(cv, sv) is False
                    and _in_the_statement(s_lay, sv, words)
                    and not _reports(c_lay, cv, s_lay, sv)
                    and not _filled_by_another(c_lay, cv, s_lay, sv, s_sentence)
                ):
                    rivals.setdefault(sv.name, (sv, s_sentence))
        if len(rivals) == 1:
            sv, s_sentence = next(iter(rivals.values()))
            out.append((cv, sv, s_sentence))
    return out
