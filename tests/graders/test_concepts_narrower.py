"""Verbs one step apart in WordNet's hierarchy say the same thing to the slot reader ("rose" /
"climbed", "fell" / "dropped"), one way only: two narrower words under one broader sense, an
antonym, a word joined only by derivation and a root sense are never joined; nouns are not
joined this way (graders.specifics.concepts, scripts/build_wordnet_concepts.py
``_narrower``)."""

from __future__ import annotations

from pathlib import Path

from spanproof.graders.specifics import concepts
from spanproof.graders.specifics.concepts import same

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]


def test_a_word_and_one_a_step_narrower_match():
    assert same("climbed", "rose")  # climb: a troponym of rise
    assert same("dropped", "fell")  # an irregular form carries its base's joins
    assert same("grew", "increased")


def test_what_the_step_never_joins():
    assert not same("rose", "fell")  # both one step under "move": siblings
    assert not same("profit", "sales")  # both under "income"
    assert not same("won", "lost")
    assert not same("increased", "decreased")
    # nouns one step apart name a narrower thing: not joined
    assert not same("finance", "investment")
    assert not same("place", "top")


# a WordNet of six verb senses: "move" a root above "rise"; "climb" and "soar" under "rise";
# "dip" under "rise" but its antonym; "climber" holds climb's sense only by derivation
_INDEX = {
    "move": ["09"],
    "rise": ["01"],
    "climb": ["02"],
    "soar": ["06"],
    "dip": ["05"],
}
_DATA = {
    "09": (["move"], [("~", "01", "v", "0000")]),
    "01": (
        ["rise"],
        [("@", "09", "v", "0000"), ("~", "02", "v", "0000"), ("~", "06", "v", "0000"),
         ("~", "05", "v", "0000"), ("!", "05", "v", "0101")],
    ),
    "02": (["climb"], [("@", "01", "v", "0000")]),
    "06": (["soar"], [("@", "01", "v", "0000")]),
    "05": (["dip"], [("@", "01", "v", "0000"), ("!", "01", "v", "0101")]),
}  # fmt: skip


def test_the_build_joins_one_step_one_way_and_not_an_antonym_or_from_a_root():
    build = load_script("build_wordnet_concepts")
    held = {w: {"v" + off for off in offs} for w, offs in _INDEX.items()}
    held["climber"] = {"v02"}  # by derivation only
    build._narrower(_INDEX, _DATA, "v", held)
    joins = {w: {c for c in ids if c.startswith("^")} for w, ids in held.items()}
    assert joins["rise"] & joins["climb"] and joins["rise"] & joins["soar"]
    assert not joins["climb"] & joins["soar"]  # siblings
    assert not joins["rise"] & joins["dip"]  # an antonym
    assert not joins["move"]  # a root sense takes no narrower sense
    assert not joins["climber"]  # derivation is no first sense


def test_a_row_is_read_when_its_word_is_looked_up():
    concepts._row.cache_clear()
    row = concepts._row("climb")
    assert row is not None and row[0] and "v" in row[1]
    assert concepts._row("qqqxz") is None
    assert concepts._row.cache_info().currsize == 2
