"""Sensitivity and calibration end to end through the Verifier, with small local judges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from spanproof.graders.cache import VerdictCache
from spanproof.graders.judges import make_judge
from spanproof.planted_failures import plant

from spanproof.bench.calibration import (
    CalibrationResult,
    CalibrationThresholds,
    calibrate,
    compare_baseline,
    dump_json,
    load_pairs,
    load_result,
)
from spanproof.bench.sensitivity import SensitivityThresholds, run_sensitivity, score
from spanproof.core.verdict import JudgeBase, Pair, SpanRef, Verdict

GOOD = [
    Pair(
        id="g1",
        claim="Many manufacturers are expected to cut emissions by 12% in Q2 2019.",
        span="The Commission said many manufacturers are expected to cut emissions by 12% in Q2 2019. "
        "The announcement was made in Brussels. Officials in Lisbon welcomed the plan.",
        label="SUPPORTED",
    ),
    Pair(
        id="g2",
        claim="Nearly 3,000 people attended the concert in San Diego in March 1986.",
        span="Nearly 3,000 people attended the concert in San Diego in March 1986. Tickets cost five "
        "dollars. The promoter was Roger Hedgecock.",
        label="SUPPORTED",
    ),
    Pair(
        id="g3",
        claim="The river is not navigable for a third of the year.",
        span="Because of ice, the river is not navigable for a third of the year. Ferries stop in winter "
        "and the port is closed to all shipping.",
        label="SUPPORTED",
    ),
    Pair(
        id="g4",
        claim="Some retailers may raise prices in 2024.",
        span="Some retailers may raise prices in 2024, a survey of shop owners in Leeds found. Most "
        "expect costs to stay flat.",
        label="SUPPORTED",
    ),
]


class AlwaysNotSupported(JudgeBase):
    id = "always-no"
    prompt_sha256 = "no-v1"

    async def judge(self, claim: str, span: SpanRef) -> Verdict:
        return Verdict(verdict="NOT_SUPPORTED", judge=self.id)


class Oracle(JudgeBase):
    """Knows the true label of every pair it was given; says SUPPORTED only for those, quoting
    where the span states the claim (the window of the span most like it)."""

    id = "oracle"
    prompt_sha256 = "oracle-v1"

    def __init__(self, labelled: list[Pair]):
        self.labels = {(p.claim, p.span): p.label for p in labelled}

    async def judge(self, claim: str, span: SpanRef) -> Verdict:
        from spanproof.graders.quoting import best_window

        label = self.labels.get((claim, span.text), "NOT_SUPPORTED")
        return Verdict(verdict=label, quote_used=best_window(claim, span.text), judge=self.id)


class Broken(JudgeBase):
    id = "broken"
    prompt_sha256 = "broken-v1"

    async def judge(self, claim: str, span: SpanRef) -> Verdict:
        raise RuntimeError("endpoint down")


async def test_blind_judge_fails_sensitivity():
    result = await run_sensitivity(GOOD, make_judge("blind"), seed=0)
    assert result.n_originals == 4 and result.n_planted >= 30
    assert result.specificity == 1.0
    assert result.sensitivity < 0.9 and result.passed is False
    # The claim-level kinds the audit cannot see slip past blind entirely.
    assert result.by_kind["quantifier_inflation"].caught == 0
    assert any(m.kind == "modality_slip" for m in result.missed)
    # a flag holds some of the missed ones back for a person; they still count as missed
    assert 0 < result.caught_only_by_flag <= len(result.missed)
    assert result.flag_only_share == result.caught_only_by_flag / result.n_planted
    for k in result.by_kind.values():
        assert k.caught + k.flag_only <= k.n


async def test_a_name_swapped_for_another_of_its_kind_has_its_figure():
    # swap_name plants on g2 (San Diego, a place its span states) with a place of another pair
    result = await run_sensitivity(GOOD, make_judge("blind"), seed=0, kinds=["swap_name"])
    swapped = result.by_kind["swap_name"]
    assert swapped.n >= 1 and swapped.caught + swapped.flag_only <= swapped.n
    assert result.n_planted == swapped.n


async def test_always_not_supported_judge_fails_specificity():
    result = await run_sensitivity(GOOD, AlwaysNotSupported(), seed=0)
    assert result.sensitivity == 1.0
    assert result.specificity == 0.0 and result.passed is False


async def test_a_judge_that_knows_the_answers_passes():
    planted = [p.as_pair() for p in plant(GOOD, seed=0)]
    result = await run_sensitivity(GOOD, Oracle(GOOD + planted), seed=0)
    assert result.sensitivity == 1.0 and result.specificity == 1.0 and result.passed
    assert result.missed == []
    assert sum(k.n for k in result.by_kind.values()) == result.n_planted


async def test_errors_count_against_the_judge_on_both_sides():
    result = await run_sensitivity(GOOD, Broken(), seed=0)
    assert result.sensitivity == 0.0 and result.specificity == 0.0 and not result.passed
    assert {m.verdict for m in result.missed} == {"ERROR"}


def test_score_with_nothing_planted_fails_rather_than_passes():
    r = score("x", [], [], [], [], SensitivityThresholds())
    assert r.sensitivity is None and r.passed is False


async def test_sensitivity_json_schema_and_cache_reuse(tmp_path):
    cache = VerdictCache(tmp_path / "v.sqlite")
    first = await run_sensitivity(GOOD, make_judge("blind"), seed=1, cache=cache)
    again = await run_sensitivity(GOOD, make_judge("blind"), seed=1, cache=cache)
    assert first == again
    keys = set(json.loads(first.model_dump_json()))
    assert keys == {
        "judge", "selection", "n_excluded", "n_originals", "n_planted", "sensitivity", "specificity", "by_kind", "missed",
        "thresholds", "passed", "judge_only", "caught_only_by_flag", "flag_only_share",
        "originals_flagged", "set", "n_pairs", "fitted_on",
    }  # fmt: skip
    assert set(first.missed[0].model_dump()) == {"id", "kind", "claim", "verdict"}
    assert len(cache) > 0


# ---------------------------------------------------------------- calibration

LABELLED = [
    Pair(id="s1", claim="Exports rose 4% in 2023.", span="Exports rose 4% in 2023, the agency said.", label="SUPPORTED"),
    Pair(id="s2", claim="The port handled 2 million containers.", span="The port handled 2 million containers last year.", label="SUPPORTED"),
    Pair(id="p1", claim="Exports rose 4% in 2023 and imports fell.", span="Exports rose 4% in 2023.", label="PARTIAL", near_miss=True, kind="scope_creep"),
    Pair(id="n1", claim="Firms must report emissions.", span="Firms are expected to report emissions.", label="NOT_SUPPORTED", near_miss=True, kind="modality_slip"),
    Pair(id="n2", claim="Most members voted yes.", span="Many members voted yes.", label="NOT_SUPPORTED", near_miss=True, kind="scope_creep"),
    Pair(id="n3", claim="The bridge opened in 1990.", span="The museum closed for repairs.", label="NOT_SUPPORTED"),
]  # fmt: skip


async def test_calibration_blind_fails_and_oracle_passes_gated_set():
    result = await calibrate(
        {"judge_calibration": LABELLED, "other": LABELLED},
        [make_judge("blind"), Oracle(LABELLED)],
        seed=0,
        n_boot=200,
    )
    by = {(r.judge, r.set): r for r in result.judges}
    blind = by[("blind", "judge_calibration")]
    assert blind.passed is False and blind.near_miss_agreement < 0.85
    assert blind.confusion["NOT_SUPPORTED"]["SUPPORTED"] >= 1
    assert by[("oracle", "judge_calibration")].passed is True
    assert by[("oracle", "judge_calibration")].agreement == 1.0
    assert by[("blind", "other")].passed is None  # informational set: no thresholds
    kinds = blind.by_kind
    # "must" where the span says "are expected to": the audit flags it for a person, but a flag
    # never changes a verdict, so the canary's SUPPORTED stands and is counted wrong
    assert kinds["modality_slip"].n == 1 and kinds["modality_slip"].agreement == 0.0
    assert kinds["modality_slip"].judged == {"SUPPORTED": 1}
    assert blind.flags is not None and blind.flags.by_kind["modality"].flagged == 1
    # "Most" where the span says "Many": only reading catches it, and the canary does not read
    assert kinds["scope_creep"].judged.get("SUPPORTED", 0) >= 1
    assert not result.passed
    keys = set(json.loads(dump_json(result))["judges"][0])
    assert keys == {
        "judge", "set", "n", "agreement", "near_miss_agreement", "kappa", "macro_f1",
        "balanced_accuracy", "per_class", "confusion", "errors", "ci95", "passed",
        "judge_only", "confidence", "confidence_note", "code_changes", "flags", "review_queue",
        "fitted_on",
    }  # fmt: skip


async def test_calibration_counts_judge_errors():
    result = await calibrate({"judge_calibration": LABELLED}, [Broken()], n_boot=50)
    r = result.judges[0]
    assert r.errors == len(LABELLED) and r.agreement == 0.0 and r.passed is False
    assert r.confusion["SUPPORTED"]["ERROR"] == 2


async def test_thresholds_are_configurable():
    lax = CalibrationThresholds(agreement=0.0, near_miss_agreement=0.0)
    result = await calibrate(
        {"judge_calibration": LABELLED}, [make_judge("blind")], thresholds=lax, n_boot=50
    )
    assert result.judges[0].passed is True


async def test_baseline_drift_flags_a_fall_beyond_the_interval(tmp_path):
    good = await calibrate({"judge_calibration": LABELLED}, [Oracle(LABELLED)], n_boot=200)
    path = tmp_path / "baseline.json"
    path.write_text(dump_json(good))
    baseline = load_result(path)
    assert compare_baseline(good, baseline) == []
    # The same judge id, now answering like blind: agreement collapses.
    worse = await calibrate({"judge_calibration": LABELLED}, [make_judge("blind")], n_boot=200)
    for r in worse.judges:
        r.judge = "oracle"
    flags = compare_baseline(worse, baseline)
    assert {f.metric for f in flags} >= {"agreement", "near_miss_agreement"}
    assert all(f.current is None or f.current < f.allowed_low for f in flags)


def test_load_pairs_reports_the_bad_line(tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text('{"id": "a", "claim": "x", "span": "y", "label": "SUPPORTED"}\n{"id": "b"}\n')
    with pytest.raises(ValueError, match=r"p.jsonl:2"):
        load_pairs(f)
    assert isinstance(CalibrationResult(judges=[]).passed, bool)


def test_contract_clean_keeps_supported_pairs_whose_specifics_are_all_in_the_span():
    from spanproof.graders.specifics import compare

    from spanproof.bench.sensitivity import contract_clean, plant_on

    implied = Pair(
        id="implied",
        claim="Nearly 3,000 people attended the concert in San Diego in March 1987.",
        span=GOOD[1].span,
        label="SUPPORTED",
    )
    not_good = GOOD[0].model_copy(update={"id": "np", "label": "NOT_SUPPORTED"})
    pairs = [*GOOD, implied, not_good]
    kept = contract_clean(pairs)
    assert implied not in kept and not_good not in kept
    assert [p.id for p in kept] == [p.id for p in GOOD if p.label == "SUPPORTED"]
    assert all(not compare(p.claim, p.span) for p in kept)  # the audit's own check
    assert compare(implied.claim, implied.span)
    # Planting on a selection gives exactly what planting on the whole set gives for it.
    whole = {p.id: p for p in plant(pairs, seed=3)}
    some = plant_on(pairs, kept, seed=3)
    assert some and all(whole[p.id] == p for p in some)
    assert {p.original_id for p in some} <= {p.id for p in kept}


def test_a_mutator_that_raises_is_reported_not_fatal(monkeypatch):
    from spanproof.planted_failures import MUTATORS

    from spanproof.bench.sensitivity import plant_on

    def broken(pair, rng, pool):
        raise ValueError("boom")

    monkeypatch.setitem(MUTATORS, "drift_number", broken)
    failures: list[str] = []
    planted = plant_on(GOOD, GOOD, failures=failures)
    assert planted and all(p.kind != "drift_number" for p in planted)
    assert failures and failures[0].startswith("drift_number on g1: ValueError: boom")


async def test_the_rules_judge_catches_every_planted_kind_and_blind_misses_the_reading_ones():
    # docs/architecture.md: every planted-failure kind has a test that shows a real judge catching it. Planted
    # on the hand-labelled SUPPORTED pairs; the blind canary (audited by code like every judge)
    # must miss at least the kinds only reading the span can catch (a negation, a hardened modal
    # or a joined-on element is the audit's now, for every judge; a quantifier is not).
    from collections import Counter

    from spanproof.graders.judges import make_judge
    from spanproof.graders.verify import Verifier
    from spanproof.planted_failures import mutators, plant

    from spanproof.bench.calibration import load_pairs
    from spanproof.core.verdict import SpanRef

    golden = Path(__file__).resolve().parents[2] / "goldens" / "judge_calibration.jsonl"
    pairs = [p for p in load_pairs(golden) if p.label == "SUPPORTED"]
    # the hand-labelled pairs, and each kind on the example it carries (a new kind need not fit
    # the hand-labelled set to be tested here)
    planted = plant(pairs, seed=0) + [m.plant_example() for m in mutators().values()]
    items = [(p.claim, SpanRef(text=p.span)) for p in planted]
    n = Counter(p.kind for p in planted)
    MUTATORS = mutators()
    assert set(n) == set(MUTATORS)
    for spec in ("rules", "blind"):
        verdicts = await Verifier([make_judge(spec)]).verify_many(items)
        caught = Counter(p.kind for p, v in zip(planted, verdicts, strict=True) if not v.supported)
        if spec == "rules":
            assert all(caught[k] > 0 for k in MUTATORS), caught
        else:
            assert caught["quantifier_inflation"] < n["quantifier_inflation"] // 2, caught
