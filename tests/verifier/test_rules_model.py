"""The offline judge's fitted parameters: tied to their training data, and every signal in
them load-bearing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from spanproof.graders.rules import RulesJudge
from spanproof.graders.rules.lexical import coverage, shared_words
from spanproof.graders.rules.model import Params, Thresholds, decide, load_params, params_text
from spanproof.graders.rules.signals import BY_NAME

from spanproof.judge_training.data import data_sha256, training_rows


def test_the_parameters_match_the_hash_of_the_data_they_were_fitted_on():
    params = load_params()
    rows = training_rows()
    assert data_sha256(rows) == params.data_sha256, (
        "graders/rules/params.json was not fitted on the current training data: run "
        "`spanproof judge train` and commit the new params.json"
    )
    assert params.training["rows"] == len(rows)
    # the calibration set measures the judge; it is never training data
    cal_path = Path(__file__).resolve().parents[2] / "goldens" / "judge_calibration.jsonl"
    cal = {json.loads(line)["claim"] for line in cal_path.read_text(encoding="utf-8").splitlines()}
    assert not cal & {r.claim for r in rows}


def test_a_changed_training_set_no_longer_matches(tmp_path):
    rows = training_rows(synthetic=False)
    rows[0] = rows[0].model_copy(
        update={"label": "PARTIAL" if rows[0].label != "PARTIAL" else "SUPPORTED"}
    )
    assert data_sha256(rows) != load_params().data_sha256


def test_the_parameters_file_is_well_formed_and_names_known_signals():
    params = Params.model_validate_json(params_text())
    assert params.signals and all(name in BY_NAME for name in params.signals)
    assert len(params.means) == len(params.scales) == len(params.signals)
    assert all(len(row) == len(params.signals) for row in params.coef)
    assert 0 < params.thresholds.supported < 1 and 0 < params.thresholds.not_supported < 1


def test_every_verdict_carries_a_confidence():
    judge = RulesJudge()
    v = judge.decide("The council approved the budget.", "The council approved the budget.")
    assert v.verdict == "SUPPORTED" and 0.5 < v.confidence <= 1
    probs = judge.probabilities("The council approved the budget.", "Parking costs five dollars.")
    assert sum(probs.values()) == pytest.approx(1.0)


# One development pair per signal (goldens/wice_dev_pairs.jsonl or a synthetic pair of the
# training set) on which the judge is right, and on which the verdict changes when that
# signal's weights are taken out of the model: remove any signal and its test fails.
LOAD_BEARING = [
    ("coverage", "She replaced James Marshall on 24 July 2019.",
     "Tue 23 Jul 2019 14.40 EDT", "NOT_SUPPORTED"),
    ("clause_coverage", "It is also popular in Iraq, Libya and Nepal.", "Other exotic markets where Viber is popular include Iraq, Libya and Sri Lanka.", "PARTIAL"),
    ("substituted", "Last his little daughter dies and then this.",
     "This is a real tragedy, I can hardly believe it. First his little daughter dies and then "
     "this. Robert Enke", "NOT_SUPPORTED"),
    ("sentence_alignment", "Paterson died on November 10, 2018, at the age of 78.", "# Former Congresswoman Liz Patterson dies at 78 Nov 10, 2018 at 4:14 PM", "SUPPORTED"),
    ("bigram_overlap", "Paterson died on November 10, 2018, at the age of 78.", "# Former Congresswoman Liz Patterson dies at 78 Nov 10, 2018 at 4:14 PM", "SUPPORTED"),
    ("claim_length", "Each Hurricane Heat event is unique to the others in terms of obstacles and location.",
     "# Spartan Race Hurricane Heat: Bright", "NOT_SUPPORTED"),  # wice
    ("missing_entities", "It is also popular in Iraq, Libya and Nepal.", "Other exotic markets where Viber is popular include Iraq, Libya and Sri Lanka.", "PARTIAL"),
    ("opposite_words", "In 2014 Starbucks was scheduled to open a store in Azerbaijan, in the Port Baku Mall.",
     "Starbucks coffee shop chain will be opened in Azerbaijani capital of Baku by late 2014, an informed source in the retail market told Trend on April 21.", "PARTIAL"),  # wice
    ("negation_conflict", "In 2014 Starbucks was scheduled to open a store in Azerbaijan, in the "
     "Port Baku Mall.", "Starbucks coffee shop chain will be opened in Azerbaijani capital of "
     "Baku by late 2014, an informed source in the retail market told Trend on April 21.",
     "PARTIAL"),
    ("stronger_claim", "In fact, she's one of the more engaging interviewees one will encounter: sharp, unguarded, down-to-earth, hilarious in a salty-tongued way.",
     "And it's not as if she's inaccessible. In fact, she's one of the more engaging interviewees one is likely to encounter: sharp, unguarded, down-to-earth, hilarious in a salty-tongued way. This willful indifference to the [", "NOT_SUPPORTED"),  # synthetic:modality_slip
    ("quantifier_scope", "Each Hurricane Heat event is unique to the others in terms of obstacles and location.",
     "# Spartan Race Hurricane Heat: Bright", "NOT_SUPPORTED"),  # wice
    ("contradiction_aligned", "CBSN News & breaking news updates 2 p.m.", "CBS News Sunday Morning 2:30 p.m. CBSN News & breaking news updates 3 p.m. Face the "
     "Nation 4 p.m.", "NOT_SUPPORTED"),
    ("negation_conflict_aligned", "It is not real art in an industry where there is none.",
     "It is more than a game at this point! It is real art in an industry where there is none. "
     "It is my whole life!", "NOT_SUPPORTED"),
    ("stronger_claim_aligned", "It's a volunteer led community that has something for all ages and abilities, and Nina was selected for Wales, every season, with one exception, until 2006.",
     "🏏⚽️🎳🎾🏆🥇🥈🥉 It's a volunteer led community that has something for all ages and abilities. Be part of it...", "PARTIAL"),  # synthetic:distant_clause
    ("opposite_words_aligned", "Before this the author of the piece gets to reply to their "
     "critique.", "Then, on the night of a discussion, with the author present, the other "
     "writers critique it, going around the table. After this the author of the piece gets to "
     "reply to their critique. It's a method that's worked exceedingly well for us over the "
     "years.", "NOT_SUPPORTED"),
    ("missing_entities_aligned", "Each Hurricane Heat event is unique to the others in terms of obstacles and location.",
     "# Spartan Race Hurricane Heat: Bright", "NOT_SUPPORTED"),  # wice
    ("quantifier_scope_aligned", "scale, shares most design elements with its Wewoka cousin.",
     "The Armory, although much larger in scale, shares many design elements with its Wewoka "
     "cousin. Also like the Oklahoma City building, the", "PARTIAL"),
    ("hedge_dropped_aligned", "\"Don't throw in the towel at the first bump, and Perhaps chief of these is the suggestion that Brexit has unleashed everyone's Little Englander; every bridge is a drawbridge and every gate a portcullis.",
     "That's an important lesson that I learned. \"Don't throw in the towel at the first bump. Don't give up too easy.\"", "PARTIAL"),  # synthetic:foreign_clause
]  # fmt: skip


def _without(params: Params, signal: str) -> Params:
    j = params.signals.index(signal)
    coef = [[0.0 if k == j else w for k, w in enumerate(row)] for row in params.coef]
    return params.model_copy(update={"coef": coef})


@pytest.mark.parametrize(
    "signal,claim,span,expected", LOAD_BEARING, ids=[c[0] for c in LOAD_BEARING]
)
def test_each_signal_is_load_bearing(signal, claim, span, expected):
    params = load_params()
    assert signal in params.signals, f"{signal} is no longer in the model"
    assert RulesJudge(params).decide(claim, span).verdict == expected
    assert RulesJudge(_without(params, signal)).decide(claim, span).verdict != expected


def test_every_signal_of_the_model_has_a_load_bearing_case():
    assert {c[0] for c in LOAD_BEARING} == set(load_params().signals)


def test_the_minimum_evidence_floor_refuses_supported_on_too_few_shared_words():
    # One shared word ("group") is topic overlap, not support, however the signals weigh.
    claim, span = "The group deleted a photo.", "The group released footage."
    probs = {"SUPPORTED": 0.9, "PARTIAL": 0.05, "NOT_SUPPORTED": 0.05}
    floor = Thresholds(supported=0.5, not_supported=0.5, min_coverage=0.3, min_shared=2)
    assert shared_words(claim, span) == 1 and coverage(claim, span)[0] >= 0.3
    assert decide(probs, floor, coverage(claim, span)[0], shared_words(claim, span)) == "PARTIAL"
    # the same probabilities with enough shared words, or every word of a short claim, pass
    kept = "The group released the footage on Monday."
    span2 = "On Monday the group released footage."
    assert decide(probs, floor, coverage(kept, span2)[0], shared_words(kept, span2)) == "SUPPORTED"
    assert decide(probs, floor, 1.0, 1) == "SUPPORTED"  # "It rained." against "It rained."
    no_floor = Thresholds(supported=0.5, not_supported=0.5)
    assert decide(probs, no_floor, coverage(claim, span)[0], 1) == "SUPPORTED"


def test_the_shipped_judge_applies_its_floor():
    params = load_params()
    assert params.thresholds.min_shared >= 2, "the floor chosen on the CV folds is in params.json"
    v = RulesJudge().decide("The group deleted a photo.", "The group released footage.")
    assert v.verdict != "SUPPORTED"


def test_damaged_parameters_stop_the_judge_with_exit_2_not_a_traceback(tmp_path, monkeypatch):
    from click.testing import CliRunner
    from spanproof.graders.rules import model

    from spanproof.cli import cli

    pairs = tmp_path / "p.jsonl"
    pairs.write_text(
        '{"id": "a", "claim": "The council met.", "span": "The council met on Monday.", '
        '"label": "SUPPORTED"}\n'
    )
    monkeypatch.setattr(model, "params_text", lambda: '{"broken": ')
    model.load_params.cache_clear()
    try:
        result = CliRunner().invoke(
            cli, ["verify", "--pairs", str(pairs), "--judge", "rules", "--no-cache",
                  "--home", str(tmp_path / "h")],
        )  # fmt: skip
    finally:
        model.load_params.cache_clear()
    assert result.exit_code == 2, result.output
    assert "parameters (params.json" in result.output and "Reinstall" in result.output
    assert "Traceback" not in result.output
