"""Every written slot-case file, read by the slot reader (graders.specifics.slot_reader):
paraphrases and absences are never proven, and the contradictions proven today are a floor.

Each file was written before the reader was adapted to it, in forms the repository did not
hold, and measured once before any change it prompted (``python scripts/proof_cases.py FILE``,
judge ``blind``); the figure at that measurement, then at the last one:

- ``first`` (84 cases), before the reader existed: 6 of 36 contradictions proven by the old
  role check, 17 by the reader's first version;
- ``second`` (62), after the reader's first round: 11 of 32 proven, one absence wrongly proven;
- ``third`` (80), before names, kinship words and life states were aligned by role
  (test_slot_roles.py): 4 of 40 proven, one absence wrongly proven (since fixed);
- ``fourth`` (45), apart from that alignment, measured when it was merged: 7 of 20 proven;
- ``sixth`` (24), before particles, kinship by copula, ranks against counts and a name in
  another role were read: 3 of 12 proven;
- ``fifth`` (60), written by someone who did not read the reader: 10 of 30 proven when first
  measured and again after the sixth file's changes; 16 of 30 after the name-role reading and
  the alignment by uniqueness, which were written with its missed name and value cases in view
  (adapted, no longer a held-out figure);
- ``eighth`` (53), before a name's role was read from its clause (test_name_roles.py): 6 of
  26 proven, 15 after, 16 once a relative clause said of a name bound it to its role;
- ``ninth`` (64), before a value worded otherwise than its span was aligned by uniqueness
  (test_slot_unique.py): 5 of 28 proven, 6 after;
- ``twelfth`` (46), before a name's role was read from its own phrase (an apposition, a
  passive's agent in a relative clause, the subject of a clause "after" opens) and names
  ending with a kind of organisation were typed (test_bound_roles.py): 10 of 22 proven, 18
  after;
- ``seventh`` (60), written by someone who did not read the reader and shown to no one who
  changed it: 6 of 30 proven before the name-role reading and the alignment by uniqueness,
  7 of 30 after (held out; the organisation typing of the next round was mended after the
  words of one of its names were printed, so its figure after that change is not clean);
- ``tenth`` (60), written the same way, measured once before any change of the next round:
  5 of 30 proven, and one paraphrase wrongly proven ("GSK" read as another name than
  "GlaxoSmithKline"; a short form in capitals is now never a rival of a name its letters run
  through, test_slot_reader.py) (held out for contradictions, adapted for that paraphrase);
- ``eleventh`` (59), before verbs one step apart in WordNet were joined
  (test_concepts_narrower.py): 16 of 27 proven, 15 after (one lost: "the number of
  inhabitants" read as another subject once "grew" / "increased" align); four absences were
  wrongly proven already when it was written (``KNOWN_WRONG``: a birth year against a year of
  resignation, an age at marriage against an age at death, a start against a finish, teachers
  against students), held here as wrong so that their fix is seen;
- ``namesswap`` (43), before a name swapped within its statement was read (a name of a kind
  the span never states, in a claim whose other specifics one span sentence states, against
  that sentence's one name of the kind): 6 of 20 proven, 7 after (the file was read while
  that reading was built: adapted).
- ``reworded`` (44), reworded claims against web-page spans with several dates and numbers,
  written before an alignment by the sentence stating the claim's other specifics was tried:
  12 of 21 proven and one absence wrongly proven (``KNOWN_WRONG``: "first built in 1887"
  against the years a bridge was shut and reopened); that alignment proved none more of them,
  4 more planted WiCE dates and numbers on the half of the development pairs it was built
  on and none on the other half, so it was not kept;
- ``thirteenth`` (60), written the same way as the tenth, measured once before any change of
  the next round: 10 of 30 proven, and two paraphrases wrongly proven ("more than a decade"
  read as ten years against "eleven years": a hedge before a figure in words now states its
  range; "went up" proven opposite to another subject's "fell" though the span says it as
  "climbed": an opposite predicate now proves nothing when the span states the claim's in
  other words; test_slot_reader.py) (held out for contradictions, adapted for those two);
- ``fourteenth`` (70), written the same way to find wrong proofs, 50 paraphrases and 20
  absences with rival values of the same kind around the claim's, measured once before any
  change it prompted: 4 paraphrases and 4 absences wrongly proven; after the mends it
  prompted (test_slot_reader_normalised_forms.py: "two dozen", an age in words, a measure
  in two units, a rank in the subject, a second verb or a clause of time as another clause,
  a name's role read in its own clause) 1 and 1, held here as ``KNOWN_WRONG``: a name
  stated in the same sentence in a role read as another ("first capped as a
  seventeen-year-old" / "her sister Ebba did not make her debut until", where "her" refers
  back), and a title's year in brackets aligned by measure with a release year the span does
  not state ("Harbour Lights (1999)." / "released on DVD in 2001"; counting a name as one
  word mended it but lost a planted WiCE date of the same shape, so it was not kept).
- ``fifteenth`` (60), written by someone who did not read the reader, told to word each claim
  as a summariser would (other verbs, synonyms for the subject, numbers and dates in other
  forms, names swapped for others of their kind), measured once before any change it
  prompted: 2 of 30 contradictions proven, no paraphrase proven, and one absence wrongly
  proven ("42 percent" against "half" in "in the first half of the year": a fraction a word
  places in a sequence is now a segment, not a share, test_slot_reader_normalised_forms.py).
- ``sixteenth`` (60), written the same way after this stop's other changes, with durations
  and a third of each kind's contradictions worded closely, measured once on the code of the
  stop's start and once on the code of then: 9 of 30 contradictions proven both times (the
  changes in between carried nothing to it), and two paraphrases wrongly proven both times
  ("sixteen detector elements" against "a 4 × 4 grid"; "the World Health Organization"
  against "The WHO's latest report ... from UNICEF and the World Bank"), both mended after
  they were read (a figure multiplied by another fills no slot alone; a name written as its
  initials is stated; test_slot_reader_normalised_forms.py).
- ``seventeenth`` (60), written the same way by someone who did not read the reader (spans
  in the voices of news, filings, minutes, abstracts and forums; subjects worded otherwise,
  distracting values in other roles), measured once before any change of the stop it was
  written in: 10 of 30 contradictions proven, no paraphrase and no absence proven; 12 after
  a measure hyphened before its noun ("after a 12-day strike") took no role from that noun's
  preposition, whose builder read its misses (adapted).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from spanproof.graders.specifics.slot_reader import contradictions

DATA = Path(__file__).parent / "data"
PROVEN_TODAY = {
    "first": (3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19, 20, 21, 22, 25, 26, 27, 28,
              29, 31, 33, 34, 35, 36),
    "second": (3, 7, 9, 12, 15, 17, 19, 20, 22, 23, 24, 25, 26, 27, 28, 29, 32),
    "third": (2, 4, 5, 6, 8, 11, 12, 14, 18, 19, 20, 21, 22, 23, 26, 27, 28, 29, 30, 31, 32, 33,
              34, 35, 36, 37, 38),
    "fourth": (3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 18, 19),
    "fifth": (4, 5, 8, 9, 11, 13, 14, 15, 18, 19, 21, 23, 25, 26, 27, 29, 30),
    "sixth": (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12),
    "seventh": (7, 10, 12, 21, 25, 26, 27),
    "eighth": (1, 2, 4, 6, 8, 9, 11, 16, 18, 19, 20, 22, 23, 24, 25, 26),
    "ninth": (15, 19, 20, 24, 26, 28),
    "tenth": (5, 7, 8, 10, 11, 22),
    "eleventh": (6, 7, 8, 10, 11, 15, 17, 18, 19, 20, 22, 23, 24, 25, 26),
    "twelfth": (1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19),
    "thirteenth": (2, 4, 5, 7, 8, 10, 12, 16, 17, 19, 23),
    "fourteenth": (),  # paraphrases and absences only
    "reworded": (1, 2, 3, 5, 6, 7, 8, 11, 16, 17, 19, 21),
    "namesswap": (5, 8, 11, 12, 14, 18, 20),
    "fifteenth": (12, 15, 21),
    "sixteenth": (5, 7, 10, 13, 16, 22, 23, 24, 25),
    "seventeenth": (1, 5, 6, 12, 16, 17, 19, 23, 24, 25, 26, 28),
}  # fmt: skip
# paraphrases and absences the reader proves though the span does not fill the claim's slot otherwise: a known fault,
# asserted as one (strict), so that the day it is fixed the case joins the rest
KNOWN_WRONG = {
    "eleventh-c052", "eleventh-c054", "eleventh-c055", "eleventh-c059",
    "fourteenth-p027", "fourteenth-a010", "reworded-c039",
}  # fmt: skip
CASES = [
    json.loads(line)
    for name in PROVEN_TODAY
    for line in (DATA / f"slot_cases_{name}.jsonl").read_text().splitlines()
]
FLOOR = {f"{name}-c{i:03d}" for name, ids in PROVEN_TODAY.items() for i in ids}


def test_every_case_file_is_read_here():
    files = {p.stem.removeprefix("slot_cases_") for p in DATA.glob("slot_cases_*.jsonl")}
    assert files == set(PROVEN_TODAY)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, marks=pytest.mark.xfail(strict=True, reason="wrongly proven"))
        if c["id"] in KNOWN_WRONG
        else c
        for c in CASES
    ],
    ids=[c["id"] for c in CASES],
)
def test_written_cases(case):
    proven = bool(contradictions(case["claim"], case["span"]))
    if case["kind"] != "contradiction":
        assert not proven, case["note"]  # a paraphrase or an absence is never a proof
    elif case["id"] in FLOOR:
        assert proven, case["note"]
