"""A name typed an organisation by its structure (graders.specifics.names.organisation_ending,
used by slots.name_type): a last word WordNet files under organisation or commercial
enterprise ("Halden Construction"), or the plural of a firm's noun ("Northgate Holdings": a
holding company), read from ``lexicons/organisation_nouns.txt``, which
``scripts/build_organisation_nouns.py`` builds from WordNet 3.0."""

from __future__ import annotations

from pathlib import Path

import pytest
from spanproof.graders.specifics import names
from spanproof.graders.specifics.names import organisation_ending
from spanproof.graders.specifics.slot_reader import contradictions
from spanproof.graders.specifics.slots import name_type

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
WORDNET = Path("/usr/share/wordnet")


def _type(text: str, name: str) -> str | None:
    at = text.index(name)
    return name_type(text, at, tuple(t.lower() for t in name.split()))


def test_a_kind_of_organisation_ending_a_name_types_it():
    assert _type("The dam was built by Halden Construction.", "Halden Construction") == "org"
    assert _type("It was bought by Northgate Holdings.", "Northgate Holdings") == "org"
    assert _type("Shares in Varley Industries fell.", "Varley Industries") == "org"
    # a maker named in full after "by" is still a person's name
    assert _type("The film was directed by Anna Kowal.", "Anna Kowal") == "person"
    # a census given name first: a person who bears such a surname
    assert _type("The song was sung by Grace Construction.", "Grace Construction") == "person"


def test_a_word_most_often_a_quantity_is_no_kind_of_organisation():
    assert not organisation_ending("Unit")  # first a unit of measure, a body's part after
    assert not organisation_ending("Trio")
    assert organisation_ending("Construction") and organisation_ending("Holdings")


def test_two_organisations_in_one_role_are_two_fillers():
    assert contradictions(
        "The stand was built by Halden Construction.",
        "The stand was built by Carrick Industries in 2004.",
    )


def test_a_bad_lexicon_line_fails_with_what_to_do(monkeypatch):
    monkeypatch.setattr(names.lexicon, "entries", lambda name: ("kind construction",))
    with pytest.raises(ValueError, match="build_organisation_nouns"):
        names._organisation_nouns.__wrapped__()


@pytest.mark.skipif(not (WORDNET / "index.noun").is_file(), reason="no WordNet database here")
def test_the_committed_list_is_what_wordnet_gives():
    committed = ROOT / "graders" / "specifics" / "lexicons" / "organisation_nouns.txt"
    assert load_script("build_organisation_nouns").build(WORDNET) == committed.read_text(
        encoding="utf-8"
    )


def test_the_build_without_wordnet_says_what_to_install(tmp_path, monkeypatch, capsys):
    module = load_script("build_organisation_nouns")
    monkeypatch.setattr(
        "sys.argv", ["build", "--wordnet", str(tmp_path), "--out", str(tmp_path / "o")]
    )
    with pytest.raises(SystemExit, match="wordnet-base"):
        module.main()
    assert not (tmp_path / "o").exists()
