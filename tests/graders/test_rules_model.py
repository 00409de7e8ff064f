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
    ('coverage', 'The Tozzer library itself holds over 260,000 volumes, including the first book acquired by the Peabody Museum Library.',
     'In 1866 the Peabody Museum of Natural History at Yale University was founded with a gift of $150,000 for the construction of a museum building and the care and increase of the museum and its collections. O.C. Marsh was appointed Professor of Paleontology at Yale in 1866, the first such professorship in the United States, and only the second in the world.', 'NOT_SUPPORTED'),  # wice
    ('clause_coverage', 'This further decreased to 41.3\xa0% in 2016 , mainly due to the conversion of "Hindus into Christian" by the Christian missionaries.',
     'They are divided along the following major religions: Hindu (41.3%), Muslim (24.6%) and Christian (24.4%).', 'PARTIAL'),  # wice
    ('substituted', 'Instead of attending his local school Teaneck High School, Lecque decided to enroll at Monsignor Scanlan High School in The Bronx because of its superior basketball program.',
     'Teaneck High School, the local public school is the two-time defending state champions in basketball and one of the best programs in North Jersey. Although Lecque could have chosen to attend there, he decided to make the commute to Scanlan every day, which is on the Hutchinson River Parkway. When asked what made him go to Scanlan, Lecque says, "You know Scanlan was a good school. They have a great coach, good players, it was such a good time."', 'SUPPORTED'),  # wice
    ('claim_length', 'Late the following year, Harris left the band and Dennis Whitted took over from Davidson on drums.',
     'The band stretches out Big Walter\'s "Everything\'s Gonna Be Alright" past eight minutes and Charles Brown\'s "Driftin\' Blues" almost 15. Then there\'s the rendition of "The Boxer," which takes a left turn into Allmans territory with drummer Dennis Whitted taking an extended solo for the ages that probably furrowed brows of the audience members coming to hear "Born in Chicago" and instead getting a pretty good Jaimoe.', 'NOT_SUPPORTED'),  # wice
    ('missing_entities', 'The Tozzer library itself holds over 260,000 volumes, including the first book acquired by the Peabody Museum Library.',
     'In 1866 the Peabody Museum of Natural History at Yale University was founded with a gift of $150,000 for the construction of a museum building and the care and increase of the museum and its collections. O.C. Marsh was appointed Professor of Paleontology at Yale in 1866, the first such professorship in the United States, and only the second in the world.', 'NOT_SUPPORTED'),  # wice
    ('opposite_words', 'In 2017, Shout! Factory released a Blu-ray edition restoring the original songs, making this the first home media version since the original VHS release to feature a completely unaltered soundtrack.',
     'Released: June 6, 2017 • Available in US & Canada "With Shout Select\'s terrific presentation and all of the film\'s original music finally back in it for the first time in many, many years, this is definitely a release worth checking out." – Tim Salmons, The Digital Bits', 'PARTIAL'),  # wice
    ('stronger_claim', 'In 2017, Shout! Factory released a Blu-ray edition restoring the original songs, making this the first home media version since the original VHS release to feature a completely unaltered soundtrack.',
     'Released: June 6, 2017 • Available in US & Canada "With Shout Select\'s terrific presentation and all of the film\'s original music finally back in it for the first time in many, many years, this is definitely a release worth checking out." – Tim Salmons, The Digital Bits', 'PARTIAL'),  # wice
    ('quantifier_scope', 'Also, resource mobilization applies because of the fact that the people who founded the organization knew how to utilize the resources available, which implies that anyone who uses the website to sign a petition or start a petition are rational social actors who act as utility maximizers, who weigh the costs and benefits before deciding to be a part of a social movement.',
     'Projecting Start Up Costs for a Business', 'NOT_SUPPORTED'),  # wice
    ('contradiction_aligned', 'In 2017, Shout! Factory released a Blu-ray edition restoring the original songs, making this the first home media version since the original VHS release to feature a completely unaltered soundtrack.',
     'Released: June 6, 2017 • Available in US & Canada "With Shout Select\'s terrific presentation and all of the film\'s original music finally back in it for the first time in many, many years, this is definitely a release worth checking out." – Tim Salmons, The Digital Bits', 'PARTIAL'),  # wice
    ('negation_conflict_aligned', 'Instead of attending his local school Teaneck High School, Lecque decided to enroll at Monsignor Scanlan High School in The Bronx because of its superior basketball program.',
     'Teaneck High School, the local public school is the two-time defending state champions in basketball and one of the best programs in North Jersey. Although Lecque could have chosen to attend there, he decided to make the commute to Scanlan every day, which is on the Hutchinson River Parkway. When asked what made him go to Scanlan, Lecque says, "You know Scanlan was a good school. They have a great coach, good players, it was such a good time."', 'SUPPORTED'),  # wice
    ('stronger_claim_aligned', 'In 2017, Shout! Factory released a Blu-ray edition restoring the original songs, making this the first home media version since the original VHS release to feature a completely unaltered soundtrack.',
     'Released: June 6, 2017 • Available in US & Canada "With Shout Select\'s terrific presentation and all of the film\'s original music finally back in it for the first time in many, many years, this is definitely a release worth checking out." – Tim Salmons, The Digital Bits', 'PARTIAL'),  # wice
    ('missing_entities_aligned', 'In 2017, Shout! Factory released a Blu-ray edition restoring the original songs, making this the first home media version since the original VHS release to feature a completely unaltered soundtrack.',
     'Released: June 6, 2017 • Available in US & Canada "With Shout Select\'s terrific presentation and all of the film\'s original music finally back in it for the first time in many, many years, this is definitely a release worth checking out." – Tim Salmons, The Digital Bits', 'PARTIAL'),  # wice
    ('quantifier_scope_aligned', "The company announced that its first store would be on located on the shores of the world-famous Doctor's Cave Beach, offering views of the Caribbean Sea.",
     'This follows the announcement in May this year that world-famous Starbucks Coffee Company had entered a geographic licensing agreement with Caribbean Coffee Traders Ltd, a consortium led by Margaritaville Caribbean Group, a leading restaurant management and franchise operator in the Caribbean.', 'NOT_SUPPORTED'),  # wice
    ('hedge_dropped_aligned', 'In 2017, Shout! Factory released a Blu-ray edition restoring the original songs, making this the first home media version since the original VHS release to feature a completely unaltered soundtrack.',
     'Released: June 6, 2017 • Available in US & Canada "With Shout Select\'s terrific presentation and all of the film\'s original music finally back in it for the first time in many, many years, this is definitely a release worth checking out." – Tim Salmons, The Digital Bits', 'PARTIAL'),  # wice
    ('unstated_numbers', 'Instead of attending his local school Teaneck High School, Lecque decided to enroll at Monsignor Scanlan High School in The Bronx because of its superior basketball program.',
     'Teaneck High School, the local public school is the two-time defending state champions in basketball and one of the best programs in North Jersey. Although Lecque could have chosen to attend there, he decided to make the commute to Scanlan every day, which is on the Hutchinson River Parkway. When asked what made him go to Scanlan, Lecque says, "You know Scanlan was a good school. They have a great coach, good players, it was such a good time."', 'SUPPORTED'),  # wice
    ('unstated_dates', 'Late the following year, Harris left the band and Dennis Whitted took over from Davidson on drums.',
     'The band stretches out Big Walter\'s "Everything\'s Gonna Be Alright" past eight minutes and Charles Brown\'s "Driftin\' Blues" almost 15. Then there\'s the rendition of "The Boxer," which takes a left turn into Allmans territory with drummer Dennis Whitted taking an extended solo for the ages that probably furrowed brows of the audience members coming to hear "Born in Chicago" and instead getting a pretty good Jaimoe.', 'NOT_SUPPORTED'),  # wice
    ('wording_flags_aligned', 'The band\'s third album, "Emotive", was released on November 2, 2004\xa0– the actual U.S Presidential Election Day.',
     '(meta data) PUBLISHED DATETIME: 2004-10-19 14:49 eMOTIVe hits stores on Election Day, November 2.', 'SUPPORTED'),  # wice
    ('contradiction_proven', 'Late the following year, Harris left the band and Dennis Whitted took over from Davidson on drums.',
     'The band stretches out Big Walter\'s "Everything\'s Gonna Be Alright" past eight minutes and Charles Brown\'s "Driftin\' Blues" almost 15. Then there\'s the rendition of "The Boxer," which takes a left turn into Allmans territory with drummer Dennis Whitted taking an extended solo for the ages that probably furrowed brows of the audience members coming to hear "Born in Chicago" and instead getting a pretty good Jaimoe.', 'NOT_SUPPORTED'),  # wice
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
