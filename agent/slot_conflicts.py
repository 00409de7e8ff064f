"""A source that disagrees with itself, or with another fetched source, on a claim's slot.

The audit reads one claim against one span. A page can state the claim's value in the span
and another value for the same slot elsewhere (an erratum, a table footnote, a revision
history, a quoted "correction"): the span supports the claim, and the page does not. Before
publication the runtime, which holds every fetched page, reads the claim's slots across the
whole page that holds its span, and across the run's other fetched pages, with the audit's
slot reader (``graders.specifics.slot_reader.slot_statements``: the one code that decides
whether two values fill one slot and whether they agree at the precision written, so a
figure repeated or rounded elsewhere is no conflict). A claim whose slot the sources fill
with two values is not published as it stands: a person sees both values, where they stand
and the blocks around them (the agent's escalation rule: sources that directly contradict
each other on a load-bearing fact).

A statement that marks itself as revising a figure of its page (an erratum, a revision row, a
quoted "correction") often restates its subject in words the reader does not align; on the
claim's own page such a statement is aligned by what is measured alone
(``agent.self_correction``), so the page's correction is a second value too.
"""

from __future__ import annotations

from dataclasses import dataclass

from spanproof.agent.self_correction import revisions
from spanproof.graders.specifics.slot_measures import agrees, measured_values, same_measure
from spanproof.graders.specifics.slot_reader import SlotStatement, slot_statements
from spanproof.graders.specifics.slots import Value

from spanproof.core.sentences import sentence_spans
from spanproof.core.text import block_at, content_stems

_BLOCK_CHARS = 160  # how much of a block a reviewer is shown beside its offsets
# A sentence restates another when they share this many content words, and this share of
# all their content words (values aside)
_SHARED_WORDS = 4
_SHARED_SHARE = 0.4


@dataclass(frozen=True)
class StatedValue:
    """A value a fetched page states in the claim's slot, and where."""

    doc_id: str
    url: str
    value: str
    start: int
    end: int
    block: tuple[int, int]
    block_text: str

    def describe(self) -> str:
        return (
            f"{self.value!r} at {self.url} [{self.start}:{self.end}] in block "
            f"[{self.block[0]}:{self.block[1]}] {self.block_text!r}"
        )


@dataclass(frozen=True)
class SlotConflict:
    """The claim's value as its own page states it, and another value for the same slot."""

    claim_value: str
    stated: StatedValue
    other: StatedValue

    @property
    def same_page(self) -> bool:
        return self.stated.doc_id == self.other.doc_id

    def describe(self) -> str:
        where = "the source disagrees with itself" if self.same_page else "two sources disagree"
        return f"{where} on {self.claim_value!r}: {self.stated.describe()} against {self.other.describe()}"


@dataclass(frozen=True)
class FetchedPage:
    doc_id: str
    url: str
    text: str


def _stated(page: FetchedPage, v: Value) -> StatedValue:
    block = block_at(page.text, v.start)
    shown = " ".join(page.text[block[0] : block[1]].split())
    return StatedValue(
        page.doc_id,
        page.url,
        v.text,
        v.start,
        v.end,
        block,
        shown if len(shown) <= _BLOCK_CHARS else shown[: _BLOCK_CHARS - 1] + "…",
    )


def slot_conflicts(
    claim: str, span: str, own: FetchedPage, others: list[FetchedPage]
) -> list[SlotConflict]:
    """Every other value the claim's own page (the one that holds its span) and the run's other
    fetched pages state in a slot whose value the claim states.

    The slots are read from the claim; a claim as short as "3,150 loans (ref 58)" has too few
    words to align a slot with the other statement, so when the claim shows no conflict the
    span it restates is read too ("recorded 3,150 loans in 2024"), keeping the values the
    claim restates. A slot counts only when the own page states the claim's value in it: a page
    that never does is the audit's business against the span. One conflict per (claim value,
    other value, page)."""
    found = _conflicts(claim, own, others)
    if not found and span != claim:
        found = [c for c in _conflicts(span, own, others) if c.claim_value in claim]
    if not found:
        found = _quoted_revised(claim, span, own)
    out: list[SlotConflict] = []
    seen: set[tuple[str, str, str]] = set()
    for c in found:
        key = (c.claim_value, c.other.value, c.other.doc_id)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def _conflicts(reader: str, own: FetchedPage, others: list[FetchedPage]) -> list[SlotConflict]:
    """Conflicts for the slots ``reader`` fills whose value the own page states."""
    own_statements = slot_statements(reader, own.text)
    agreeing: dict[tuple[int, int], SlotStatement] = {}
    for s in own_statements:
        if s.agrees is True:
            agreeing.setdefault((s.claim_value.start, s.claim_value.end), s)
    if not agreeing:
        return []
    out = []
    for page, statements in [(own, own_statements)] + [
        (p, slot_statements(reader, p.text)) for p in others if p.doc_id != own.doc_id
    ]:
        for s in statements:
            key = (s.claim_value.start, s.claim_value.end)
            if s.agrees is not False or key not in agreeing:
                continue
            stated, other = _stated(own, agreeing[key].value), _stated(page, s.value)
            if _restates(own.text, stated, page.text, other):
                out.append(SlotConflict(s.claim_value.text, stated, other))
    return out + _revised(own, own_statements)


def _revised(own: FetchedPage, statements: list[SlotStatement]) -> list[SlotConflict]:
    """The page's statements that revise the claim's value, or that the claim's own statement
    revises, aligned by what is measured (agent.self_correction): the reader aligns them only
    when their words say the same thing, which a correction that restates its subject does not."""
    out = []
    for claim_value in {s.claim_value for s in statements if s.agrees is True}:
        values = [s.value for s in statements if s.agrees is True and s.claim_value == claim_value]
        for r in revisions(own.text, values):
            out.append(SlotConflict(claim_value.text, _stated(own, r.own), _stated(own, r.rival)))
    return out


def _sentence_at(text: str, block: tuple[int, int], pos: int) -> str:
    """The sentence of ``text`` (within its block) that holds position ``pos``."""
    a, b = block
    for start, end in sentence_spans(text[a:b]):
        if a + start <= pos < a + end:
            return text[a + start : a + end]
    return text[a:b]


def _stems(sentence: str) -> set[str]:
    """Content stems without figures: what a statement says, apart from its values."""
    return {w for w in content_stems(sentence) if not any(ch.isdigit() for ch in w)}


def _restates(own_text: str, stated: StatedValue, text: str, other: StatedValue) -> bool:
    """Does the other value's sentence make the same statement as the own one, apart from the
    value? A correction restates it ("Thornbury Libraries recorded 3,150 loans in 2024" /
    "... recorded 318,400 loans in 2024"); a list, a table or a run of headings states one
    slot for several things ("Class of 1978." / "Class of 1955."; "Position 8" / "Position
    9 race" in one paragraph), so a value in the same block, or in a sentence that shares too
    few words with the own one or changes more than one of its values, is not a second value for the
    claim's slot."""
    if stated.doc_id == other.doc_id and stated.block == other.block:
        return False
    own_sentence = _sentence_at(own_text, stated.block, stated.start)
    other_sentence = _sentence_at(text, other.block, other.start)
    a, b = _stems(own_sentence), _stems(other_sentence)
    shared = len(a & b)
    if shared < _SHARED_WORDS or shared < _SHARED_SHARE * len(a | b):
        return False
    # a correction changes one value; "recorded 301,900 loans in 2023" changes two of
    # "recorded 318,400 loans in 2024": it is another year's statement, not a correction
    differing = {
        (s.claim_value.start, s.claim_value.end)
        for s in slot_statements(own_sentence, other_sentence)
        if s.agrees is False
    }
    return len(differing) <= 1


def _quoted_revised(claim: str, span: str, own: FetchedPage) -> list[SlotConflict]:
    """Revisions of the claim's values where its span quotes them on its page. A claim may
    give its value in words the reader aligns with nothing, not even the sentence it is cut
    from ("The correct first-dose coverage for two-year-olds in 2025 is 84.9 percent"); the
    span still places the value on the page."""
    at = own.text.find(span) if span else -1
    if at < 0:
        return []
    quoted = [m for m in measured_values(own.text) if at <= m.value.start < at + len(span)]
    out = []
    for c in measured_values(claim):
        values = [m.value for m in quoted if same_measure(c, m) and agrees(c, m) is True]
        for r in revisions(own.text, values):
            out.append(SlotConflict(c.value.text, _stated(own, r.own), _stated(own, r.rival)))
    return out
