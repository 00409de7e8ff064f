"""The offline judge's fitted parameters: tied to their training data, and every signal in
them load-bearing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from spanproof.graders.rules import RulesJudge
from spanproof.graders.rules.lexical import coverage, shared_words
from spanproof.graders.rules.model import (
    Params,
    Thresholds,
    decide,
    load_params,
    params_text,
)
from spanproof.graders.rules.signals import BY_NAME

from spanproof.judge_training.data import data_sha256, training_rows
from spanproof.judge_training.training import features, features_sha256


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


def test_the_parameters_were_fitted_on_what_the_code_measures_today():
    # The audit and the signals change with the code; parameters fitted on values the code no
    # longer computes are stale even when the training rows are the same (the data hash above
    # cannot see it, and `spanproof judge train --check` takes minutes).
    params = load_params()
    f = features(training_rows(), params.training["candidates"])
    assert features_sha256(f) == params.features_sha256, (
        "the signals or the audit now measure the training pairs otherwise than when "
        "graders/rules/params.json was fitted: run `spanproof judge train`, then "
        "`spanproof judge cv --nested` for the README's figures, and commit params.json"
    )


def test_a_changed_measurement_no_longer_matches():
    rows = training_rows(synthetic=False)[:6]
    f = features(rows, ["coverage", "contradiction_proven"])
    before = features_sha256(f)
    f.X[3, 1] += 1.0  # one proof more on one pair
    assert features_sha256(f) != before
    f.X[3, 1] -= 1.0
    f.audited[2, 0] = (f.audited[2, 0] + 1) % 3  # the audit lowers one verdict otherwise
    assert features_sha256(f) != before


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
# signal's weights are taken out of the model: remove any signal and its test fails. After a
# refit, `python scripts/load_bearing_cases.py` prints a fresh table (shortest pairs first).
LOAD_BEARING = [
    ('coverage', 'She replaced James Marshall on 24 July 2019.',
     'Tue 23 Jul 2019 14.40 EDT', 'NOT_SUPPORTED'),  # wice
    ('clause_coverage', 'Also some other softenings were foreseen, e.g. for women having 3 and more children.',
     'Women with three or more children could retire earlier, he added.', 'PARTIAL'),  # wice
    ('substituted', '"Merry Company on a Terrace" (1616) is in the collection of the Mauritshuis, the Hague.',
     'Merry Company on a Terrace (c. 1616–17), Willem Buytewech. Mauritshuis, The Hague', 'SUPPORTED'),  # wice
    ('bigram_overlap', 'It is also popular in Iraq, Libya and Nepal.',
     'Other exotic markets where Viber is popular include Iraq, Libya and Sri Lanka.', 'PARTIAL'),  # wice
    ('claim_length', 'It was also named 2008 Best Video Game Soundtrack from both "IGN" and G.A.N.G.',
     '## Video Games Live has had success bringing game music to the masses, but its', 'NOT_SUPPORTED'),  # wice
    ('missing_entities', 'Also some other softenings were foreseen, e.g. for women having 3 and more children.',
     'Women with three or more children could retire earlier, he added.', 'PARTIAL'),  # wice
    ('opposite_words', 'The offer was also extended to Criss Oliva who also declined as he did not want to leave Savatage.',
     'Criss was also offered by Dave Mustaine to join Megadeth, replacing Jeff Young. Criss turned down the offer and continued playing for Savatage.', 'SUPPORTED'),  # wice
    ('negation_conflict', 'The offer was also extended to Criss Oliva who also declined as he did not want to leave Savatage.',
     'Criss was also offered by Dave Mustaine to join Megadeth, replacing Jeff Young. Criss turned down the offer and continued playing for Savatage.', 'SUPPORTED'),  # wice
    ('stronger_claim', 'The band\'s third album, "Emotive", was released on November 2, 2004\xa0– the actual U.S Presidential Election Day.',
     '(meta data) PUBLISHED DATETIME: 2004-10-19 14:49 eMOTIVe hits stores on Election Day, November 2.', 'SUPPORTED'),  # wice
    ('quantifier_scope', 'Hudgens was included in "Forbes" richest list in early 2007, and the "Forbes" article noted that she was included in "Young Hollywood\'s Top Earning-Stars".',
     "Also landing on the list is Vanessa Anne Hudgens, the co-star of Disney's insanely popular made for television movie, High School Musical.", 'PARTIAL'),  # wice
    ('contradiction_aligned', 'They include Erik Hersman, Juliana Rotich, Ory Okolloh, and David Kobia.',
     'Kenyans Okolloh and Daudi Were handle relationships with the NGOs, while Kobia and Hersman handle day-to-day operation of the site.', 'PARTIAL'),  # wice
    ('negation_conflict_aligned', '"Merry Company on a Terrace" (1616) is in the collection of the Mauritshuis, the Hague.',
     'Merry Company on a Terrace (c. 1616–17), Willem Buytewech. Mauritshuis, The Hague', 'SUPPORTED'),  # wice
    ('stronger_claim_aligned', 'Hudgens was included in "Forbes" richest list in early 2007, and the "Forbes" article noted that she was included in "Young Hollywood\'s Top Earning-Stars".',
     "Also landing on the list is Vanessa Anne Hudgens, the co-star of Disney's insanely popular made for television movie, High School Musical.", 'PARTIAL'),  # wice
    ('opposite_words_aligned', 'The band\'s third album, "Emotive", was released on November 2, 2004\xa0– the actual U.S Presidential Election Day.',
     '(meta data) PUBLISHED DATETIME: 2004-10-19 14:49 eMOTIVe hits stores on Election Day, November 2.', 'SUPPORTED'),  # wice
    ('missing_entities_aligned', 'It is also popular in Iraq, Libya and Nepal.',
     'Other exotic markets where Viber is popular include Iraq, Libya and Sri Lanka.', 'PARTIAL'),  # wice
    ('quantifier_scope_aligned', 'Finishing each lap extends the game timer like in most arcade-style racing games.',
     'Races are also timed, and completing a lap extends the timer, similar to OutRun.', 'PARTIAL'),  # wice
    ('hedge_dropped_aligned', 'This reignites his rivalry with a now-successful LaRusso, who has been struggling to maintain balance in his life without the guidance of his mentor, Mr. Miyagi, whose death in the series took place seven years before episode 1.',
     'It reignites his rivalry with a now-successful Daniel, who has been struggling to maintain balance in his life without the guidance of his mentor, Mr. Miyagi (the late Pat Morita).', 'PARTIAL'),  # wice
    ('unstated_numbers', '"Merry Company on a Terrace" (1616) is in the collection of the Mauritshuis, the Hague.',
     'Merry Company on a Terrace (c. 1616–17), Willem Buytewech. Mauritshuis, The Hague', 'SUPPORTED'),  # wice
    ('unstated_dates', 'Hans Dobida served as chairman of the Continental Cup until 2018.',
     'Until recently he was chairing the IIHF Continental Cup competition where he is succeeded by former IIHF Council member Igor Nemecek.', 'PARTIAL'),  # wice
    ('wording_flags_aligned', '"Merry Company on a Terrace" (1616) is in the collection of the Mauritshuis, the Hague.',
     'Merry Company on a Terrace (c. 1616–17), Willem Buytewech. Mauritshuis, The Hague', 'SUPPORTED'),  # wice
    ('unstated_specifics_aligned', 'The band\'s third album, "Emotive", was released on November 2, 2004\xa0– the actual U.S Presidential Election Day.',
     '(meta data) PUBLISHED DATETIME: 2004-10-19 14:49 eMOTIVe hits stores on Election Day, November 2.', 'SUPPORTED'),  # wice
    ('contradiction_proven', 'The front cover marked the debut of band mascot Vic Rattlehead, who regularly appeared on subsequent album artwork.',
     'His image appears on several MEGADETH album covers, including the band\'s first four LPs — "Killing Is My Business... And Business Is Good!", "Peace Sells... But Who\'s Buying?", "So Far, So Good... So What!" and "Rust In Peace". "Vic has been with us since our beginning in 1985 on the \'Killing Is My Business...\' album but really came into his own on the \'Peace Sells... But Who\'s Buying?!\' album cover in 1986.', 'SUPPORTED'),  # wice
]  # fmt: skip


@pytest.mark.parametrize(
    "signal,claim,span,expected", LOAD_BEARING, ids=[c[0] for c in LOAD_BEARING]
)
def test_each_signal_is_load_bearing(signal, claim, span, expected):
    params = load_params()
    assert signal in params.signals, f"{signal} is no longer in the model"
    assert RulesJudge(params).decide(claim, span).verdict == expected
    assert RulesJudge(params.without(signal)).decide(claim, span).verdict != expected


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
