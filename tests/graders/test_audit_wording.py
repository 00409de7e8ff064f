"""The audit's ``wording`` findings (graders.findings.findings: its wording flags), each on both
sides: it fires on a failure planted on a WiCE development pair, and stays quiet on a genuine
SUPPORTED pair of the same set (the crowd accepted it; the rule must too). They are flags: a
person looks, the judge's verdict stands. A value the span states otherwise in the same role
is a proof (graders.specifics.slot_reader) and lowers the verdict."""

from __future__ import annotations

import pytest
from spanproof.graders.audit import UNSHIPPED_FLAGS, audit
from spanproof.graders.findings import findings
from spanproof.graders.quoting import best_window

from spanproof.core.verdict import SpanRef, Verdict

# WiCE development pairs (goldens/wice_dev_pairs.jsonl), SUPPORTED by the crowd
FILM_SPAN = (
    'The Library of Congress announced Wednesday, Dec. 12, 2018, that the films "Jurassic '
    'Park," and "My Fair Lady" are among the 25 movies tapped for preservation this year. The '
    "library selected movies for preservation because of their cultural, historic and artist "
    "importance since the registry began in 1988."
)
FILM_CLAIM = (
    "In 2018, the film was selected for preservation in the United States National Film "
    "Registry by the Library of Congress."
)
POUNCEY_SPAN = (
    "The Gator coaches aligned Hernandez with Mike and Maurkice Pouncey, whom Hernandez roomed "
    "with off campus. The three grew close, and the staff generally considered the Pounceys a "
    "positive influence."
)
POUNCEY_CLAIM = (
    "He reportedly grew close with the twins after rooming with them and staff considered the "
    "Pounceys a positive influence on Hernandez."
)
CASE_SPAN = (
    "The cases will not be closed until police know who they are ByNottinghamshire Live08:00, "
    "30 JUN 2018Updated13:14, 30 JAN 2019NewsVideo Notts Police issued this e-fit in a bid to "
    "help identify a man found dead in a caravan in Beckingham in 2014"
)
CASE_CLAIM = "The man has never been identified, and the investigation remains open (June 2018)."
TENNIS_SPAN = "I live in Leicestershire with my wife and two children. I am a keen tennis player."
TENNIS_CLAIM = "A keen tennis player, he lives in Leicestershire with his wife and two children."
COUNCIL_SPAN = (
    "# M. Lorena González and Teresa Mosqueda win Seattle City Council seats Originally "
    "published November 7, 2017 at 8:21 pm In the Council Position 8 race, also citywide, "
    "Mosqueda got 62 percent in Tuesday's count."
)
COUNCIL_CLAIM = (
    "She was elected to the Seattle City Council in 2017 to represent the at-large position 8."
)
VERVE_SPAN = (
    "The revitalized Verve Records is once again home to historic imprints including Verve "
    "Forecast (Richie Havens, Laura Nyro, Captain Beefheart), Impulse! (John Coltrane, Charles "
    "Mingus) and Decca Records."
)
VERVE_CLAIM = (
    "This company is also home to historic imprints including Verve Forecast Records, Impulse! "
    "Records and Decca Records."
)
HOUSE_SPAN = (
    "According to this legend, the architect went crazy and decided to decorate the house with "
    "Dnepr inhabitants, such as fishes and weird maidens, who, as he thought, surrounded his "
    "daughter after her tragic death."
)
HOUSE_CLAIM = (
    "As a result, Horodecki went slightly mad and built this gloomy house in his daughter's memory."
)
FILMING_SPAN = (
    "According to Lionsgate, the majority of Hoffman's scenes had been completed, with just "
    "seven days left to shoot."
)


WORDING = ("negation", "opposite", "modality", "attribution", "joined", "now_then")


def wording(claim: str, span: str) -> list:
    """The audit's wording flags on a pair, shown or not (the rules judge reads them all)."""
    return [f for f in findings(claim, span)[1] if f.kind in WORDING]


def kinds(claim: str, span: str) -> list[str]:
    return [f.kind for f in wording(claim, span)]


def audited(claim: str, span: str, label: str = "SUPPORTED") -> Verdict:
    quote = best_window(claim, span)
    return audit(claim, SpanRef(text=span), Verdict(verdict=label, quote_used=quote))


UNIT_SPAN = "The 4th Fighter Wing moved to the base on June 10, 1951, from Japan."
UNIT_CLAIM = "The wing moved to the base on June 10, 1951."

# (planted claim, span, the flag the audit raises) beside (genuine claim, span)
CASES = {
    "modality": (
        POUNCEY_CLAIM.replace("reportedly", "certainly"), POUNCEY_SPAN, "modality",
        POUNCEY_CLAIM, POUNCEY_SPAN,
    ),
    "negation": (
        FILM_CLAIM.replace("was selected", "was not selected"), FILM_SPAN, "negation",
        FILM_CLAIM, FILM_SPAN,
    ),
    "direction": (
        POUNCEY_CLAIM.replace("positive", "negative"), POUNCEY_SPAN, "opposite",
        CASE_CLAIM, CASE_SPAN,  # "open" in the claim, "not be closed" in another sentence
    ),
    "attribution": (
        "Hoffman had completed the majority of his scenes, according to the World Bank.",
        FILMING_SPAN, "attribution",
        "Hoffman had completed the majority of his scenes, according to Lionsgate.",
        FILMING_SPAN,
    ),
    "coordination": (
        TENNIS_CLAIM.replace("two children", "two children and adults"), TENNIS_SPAN, "joined",
        TENNIS_CLAIM, TENNIS_SPAN,
    ),
}  # fmt: skip


@pytest.mark.parametrize("finding", sorted(CASES))
def test_each_finding_is_a_flag_on_its_planted_case_and_silent_on_a_genuine_pair(finding):
    planted, span, flag, genuine, genuine_span = CASES[finding]
    assert flag in kinds(planted, span)
    v = audited(planted, span)
    # a flag asks a person to look; it does not rewrite what the judge read
    assert v.verdict == "SUPPORTED" and v.proofs == []
    if flag in UNSHIPPED_FLAGS:
        # found (the rules judge reads it as a signal) but not shown: its precision did not
        # beat the base rate on data it was not written from
        assert flag in [f.kind for f in findings(planted, span)[1]]
        assert flag not in [f.kind for f in v.flags]
        return
    assert flag in [f.kind for f in v.flags] and all(f.reason for f in v.flags)
    check = next(c for c in v.checks if c.name == "wording")
    assert check.fired and check.detail.startswith("flag")
    assert kinds(genuine, genuine_span) == []
    ok = audited(genuine, genuine_span)
    assert ok.verdict == "SUPPORTED"
    assert not next(c for c in ok.checks if c.name == "wording").fired


def test_a_date_stated_otherwise_in_the_same_role_is_a_proof_with_both_offsets():
    planted = UNIT_CLAIM.replace("1951", "1961")
    v = audited(planted, UNIT_SPAN)
    assert v.verdict == "NOT_SUPPORTED" and v.judge_verdict == "SUPPORTED"
    [proof] = v.proofs
    assert proof.kind == "contradiction"
    assert planted[proof.claim_value.start : proof.claim_value.end] == "June 10, 1961"
    assert UNIT_SPAN[proof.span_value.start : proof.span_value.end] == "June 10, 1951"
    assert UNIT_SPAN[proof.rests_on.start : proof.rests_on.end] == "base on June 10, 1951"
    assert v.unsupported_element == "June 10, 1961 (span: June 10, 1951)"
    assert audited(UNIT_CLAIM, UNIT_SPAN).proofs == []


def test_a_name_joined_on_that_the_span_names_elsewhere_is_wider_than_the_span():
    planted = COUNCIL_CLAIM.replace("City Council", "City Council and Teresa Mosqueda")
    found = wording(planted, COUNCIL_SPAN)
    assert [f.kind for f in found] == ["joined"]
    assert "never joins" in found[0].reason
    assert wording(COUNCIL_CLAIM, COUNCIL_SPAN) == []
    # names the span does join, with a parenthesis between, are not flagged
    assert wording(VERVE_CLAIM, VERVE_SPAN) == []


def test_verb_phrases_and_quotations_are_not_read_as_departures():
    # "went mad and built this house": a verb phrase, not a list of things
    assert wording(HOUSE_CLAIM, HOUSE_SPAN) == []
    # a negation inside a quoted title is the title's, not the sentence's
    span = 'In 2014 she said "We Are Never Ever Getting Back Together" was written with Max Martin.'
    claim = "She said the song was written with Max Martin in 2014."
    assert "negation" not in kinds(claim, span)


def test_the_audit_never_raises_a_verdict():
    planted = POUNCEY_CLAIM.replace("positive", "negative")
    v = audited(planted, POUNCEY_SPAN, "NOT_SUPPORTED")
    assert v.verdict == "NOT_SUPPORTED"
    assert next(c for c in v.checks if c.name == "wording").fired
    widened = TENNIS_CLAIM.replace("two children", "two children and adults")
    assert audited(widened, TENNIS_SPAN, "PARTIAL").verdict == "PARTIAL"


def test_words_the_span_joins_verbatim_are_never_a_departure_however_they_tokenise():
    # found by the property test "a claim equal to its span is supported": a web address
    # after "and" tokenised differently in the claim's pattern and the span's words
    text = "council and www.example.com."
    assert wording(text, text) == []
    assert wording("The council and www.example.com agreed.", f"Yesterday {text}") == []
    # still wider than a span that never states the second element
    assert kinds("two children and adults.", "two children.") == ["joined"]
