"""Every planted-failure kind: one worked example each, plus properties over generated pairs."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spanproof.planted_failures import (
    MUTATORS,
    PlantedPair,
    mutator,
    mutators,
    plant,
)

from spanproof.core.verdict import Pair

SPAN_A = (
    "The Commission said many manufacturers are expected to cut emissions by 12% in Q2 2019. "
    "The announcement was made in Brussels. Officials in Lisbon welcomed the plan."
)
PAIR_A = Pair(
    id="a",
    claim="Many manufacturers are expected to cut emissions by 12% in Q2 2019.",
    span=SPAN_A,
    label="SUPPORTED",
)
PAIR_B = Pair(
    id="b",
    claim="Nearly 3,000 people attended the concert in San Diego in March 1986.",
    span="Nearly 3,000 people attended the concert in San Diego in March 1986. Tickets cost five dollars. "
    "The promoter was Roger Hedgecock.",
    label="SUPPORTED",
)
PAIR_C = Pair(
    id="c",
    claim="The river is not navigable for a third of the year.",
    span="Because of ice, the river is not navigable for a third of the year. Ferries stop in winter.",
    label="SUPPORTED",
)
PAIR_D = Pair(
    id="d",
    claim="The emissions cut for manufacturers was announced in Brussels.",
    span="Regulators in Brussels announced an emissions cut for manufacturers on Tuesday. "
    "It covers cars and vans sold in the bloc.",
    label="SUPPORTED",
)
POOL = [PAIR_A, PAIR_B, PAIR_C, PAIR_D]


def run(kind: str, pair: Pair, seed: int = 0) -> PlantedPair | None:
    return MUTATORS[kind](pair, random.Random(seed), [p for p in POOL if p.id != pair.id])


def test_registry_holds_every_required_kind_with_a_non_supported_verdict():
    required = {
        "swap_source", "drift_number", "wrong_period", "scope_creep", "modality_slip",
        "quantifier_inflation", "negation_flip", "attribution_swap", "citation_laundering",
        "stale_page", "swap_name",
    }  # fmt: skip
    assert required <= set(MUTATORS)
    assert {k for k, m in MUTATORS.items() if m.target == "span"} == {"swap_source", "stale_page"}
    assert MUTATORS["citation_laundering"].expected == "PARTIAL"
    assert MUTATORS["stale_page"].expected == "NOT_SUPPORTED"
    assert all(m.expected in ("PARTIAL", "NOT_SUPPORTED") for m in MUTATORS.values())


def test_swap_source_takes_the_most_topic_adjacent_span():
    out = run("swap_source", PAIR_A)
    assert out is not None and out.claim == PAIR_A.claim
    # PAIR_D's span shares "manufacturers", "emissions", "cut"; the others share nothing.
    assert out.span == PAIR_D.span
    assert out.changes[0].before == SPAN_A and out.changes[0].after == PAIR_D.span


def test_swap_source_skips_windows_of_the_same_page():
    same_page = PAIR_D.model_copy(update={"source": {"url": "https://ec.example/x"}})
    original = PAIR_A.model_copy(update={"source": {"url": "https://ec.example/x"}})
    out = MUTATORS["swap_source"](original, random.Random(0), [same_page, PAIR_B])
    assert out is not None and out.span == PAIR_B.span


@pytest.mark.parametrize(
    ("claim", "allowed"),
    [
        ("Costs rose by 12% last year.", {"13", "14", "10"}),
        (
            "Some 3,000 homes were built.",
            {"3,400", "3,300", "3,500", "3,600", "2,400", "2,600", "2,700"},
        ),
        ("A third of firms cut jobs.", {"34%", "35%"}),
        ("Prices fell 1/3 in a week.", {"34%", "35%"}),
        ("Twelve members voted.", {"Thirteen", "Fourteen"}),
    ],
)
def test_drift_number_moves_digits_words_and_fractions(claim, allowed):
    pair = Pair(id="n", claim=claim, span=claim, label="SUPPORTED")
    outs = {
        MUTATORS["drift_number"](pair, random.Random(s), []).changes[0].after for s in range(12)
    }
    assert outs <= allowed and outs
    assert all(o not in claim for o in outs)


def test_drift_number_leaves_years_to_wrong_period():
    pair = Pair(id="y", claim="The bridge opened in 1986.", span="x", label="SUPPORTED")
    assert MUTATORS["drift_number"](pair, random.Random(0), []) is None


def test_wrong_period_shifts_quarters_months_and_years():
    out = run("wrong_period", PAIR_A)
    assert out.changes[0].before in {"Q2", "2019"} and out.changes[0].after != out.changes[0].before
    since = Pair(id="s", claim="Fares have been frozen since January.", span="x", label="SUPPORTED")
    after = MUTATORS["wrong_period"](since, random.Random(3), []).claim
    assert after.startswith("Fares have been frozen since ") and "January" not in after
    modal = Pair(id="m", claim="The board may decide later.", span="x", label="SUPPORTED")
    assert MUTATORS["wrong_period"](modal, random.Random(0), []) is None


def test_scope_creep_widens_from_lexicon_or_span_entity():
    out = run("scope_creep", PAIR_A)
    assert out.changes[0].before == "manufacturers"
    assert out.changes[0].after in {"importers", "manufacturers and importers"}
    # No lexicon term: the claim's name is widened with another name from the span.
    pair = Pair(
        id="e",
        claim="The plan was welcomed by officials in Lisbon.",
        span="The plan was welcomed by officials in Lisbon. Officials said Pedro Sanchez stayed silent.",
        label="SUPPORTED",
    )
    out = MUTATORS["scope_creep"](pair, random.Random(0), [])
    assert out.claim == "The plan was welcomed by officials in Lisbon and Pedro Sanchez."


def test_modality_slip_hardens_modals_and_drops_hedges():
    out = run("modality_slip", PAIR_A)
    assert out.changes[0].before == "are expected to" and out.changes[0].after == "must"
    hedge = MUTATORS["modality_slip"](PAIR_B, random.Random(0), [])
    assert hedge.claim == "3,000 people attended the concert in San Diego in March 1986."
    may = Pair(id="m", claim="Rates may rise in May 2025.", span="x", label="SUPPORTED")
    assert (
        MUTATORS["modality_slip"](may, random.Random(0), []).claim == "Rates will rise in May 2025."
    )


def test_quantifier_inflation():
    assert run("quantifier_inflation", PAIR_A).claim.startswith("Most manufacturers")
    pair = Pair(id="q", claim="It is one of the largest ports.", span="x", label="SUPPORTED")
    assert (
        MUTATORS["quantifier_inflation"](pair, random.Random(0), []).claim
        == "It is the largest ports."
    )


def test_negation_flip_removes_or_inserts_not():
    assert run("negation_flip", PAIR_C).claim == "The river is navigable for a third of the year."
    # No negation, auxiliary or antonym to flip: the kind does not apply.
    assert run("negation_flip", PAIR_B) is None
    rose = Pair(id="r", claim="Exports rose in 2020.", span="x", label="SUPPORTED")
    assert MUTATORS["negation_flip"](rose, random.Random(0), []).claim == "Exports fell in 2020."
    out = run("negation_flip", PAIR_A)
    assert out.claim == "Many manufacturers are not expected to cut emissions by 12% in Q2 2019."


def test_attribution_swap_adds_or_replaces_the_source():
    out = run("attribution_swap", PAIR_B)
    assert out.claim.startswith(PAIR_B.claim[:-1] + ", according to ")
    said = Pair(
        id="s",
        claim="According to the Federal Reserve, inflation eased.",
        span="Analysts at a private bank said inflation eased.",
        label="SUPPORTED",
    )
    out = MUTATORS["attribution_swap"](said, random.Random(0), [])
    assert out.changes[0].before == "the Federal Reserve"
    assert "Federal Reserve" not in out.claim and out.claim.endswith(", inflation eased.")


def test_swap_name_swaps_a_stated_name_for_one_of_its_kind_from_another_pair():
    out = run("swap_name", PAIR_B)
    # San Diego (a place PAIR_B's span states) -> a place named by another pair of the pool
    assert out.changes[0].before == "San Diego"
    assert out.changes[0].after in {"Brussels", "Lisbon"}
    assert out.claim == PAIR_B.claim.replace("San Diego", out.changes[0].after)
    assert out.expected == "NOT_SUPPORTED" and out.span == PAIR_B.span
    example = MUTATORS["swap_name"].plant_example()
    assert (example.changes[0].before, example.changes[0].after) == ("Lisbon", "Porto")


def test_swap_name_never_takes_a_name_the_span_holds_or_one_sharing_a_word():
    pair = Pair(
        id="p",
        claim="The treaty was signed in Lisbon in 2007.",
        span="The treaty was signed in Lisbon in 2007; Madrid and Porto hosted the talks.",
        label="SUPPORTED",
    )
    pool = [
        Pair(id="q", claim="Talks moved to Madrid.", span="Talks moved to Madrid and Porto.",
             label="SUPPORTED"),
        Pair(id="r", claim="It opened in Lisbon Oriente.", span="It opened in Lisbon Oriente.",
             label="SUPPORTED"),
    ]  # fmt: skip
    # every place of the pool is on the span or shares "Lisbon": nothing qualifies
    assert MUTATORS["swap_name"](pair, random.Random(0), pool) is None
    pool.append(Pair(id="s", claim="Leaders met in Vienna.", span="Leaders met in Vienna.",
                     label="SUPPORTED"))  # fmt: skip
    outs = {MUTATORS["swap_name"](pair, random.Random(s), pool).changes[0].after for s in range(8)}
    assert outs == {"Vienna"}


def test_swap_name_leaves_the_claims_source_to_attribution_swap():
    pair = Pair(
        id="s",
        claim="The Arts Council said attendance in Leeds fell.",
        span="Attendance in Leeds fell, the Arts Council said.",
        label="SUPPORTED",
    )
    pool = [
        Pair(
            id="t",
            claim="The Harbour Trust opened a museum in Porto.",
            span="The Harbour Trust opened a museum in Porto.",
            label="SUPPORTED",
        )
    ]
    befores = {
        MUTATORS["swap_name"](pair, random.Random(s), pool).changes[0].before for s in range(8)
    }
    assert befores == {"Leeds"}


def test_swap_name_needs_a_typed_name_the_span_states():
    no_name = Pair(id="n", claim="Prices rose 12% last year.", span="Prices rose 12% last year.",
                   label="SUPPORTED")  # fmt: skip
    assert run("swap_name", no_name) is None
    # the claim's place is one the span never states: swapping it would plant an absence
    unstated = Pair(id="u", claim="The concert was held in Porto.", span="The concert was held.",
                    label="SUPPORTED")  # fmt: skip
    assert run("swap_name", unstated) is None


def test_citation_laundering_appends_an_unrelated_clause():
    out = run("citation_laundering", PAIR_A)
    assert out.claim.startswith(PAIR_A.claim[:-1] + ", and ")
    assert out.expected == "PARTIAL"
    appended = out.changes[0].after.removeprefix(" and ")
    assert appended.lower() in {_c(p) for p in (PAIR_B, PAIR_C)}


def _c(p: Pair) -> str:
    return p.claim.rstrip(".").lower()


def test_stale_page_removes_the_supporting_sentence_and_keeps_the_rest():
    out = run("stale_page", PAIR_A)
    assert out.claim == PAIR_A.claim
    assert "12%" not in out.span and "Officials in Lisbon welcomed the plan." in out.span
    assert out.changes[0].before.startswith("The Commission said")
    only = Pair(
        id="o", claim="Ferries stop in winter.", span="Ferries stop in winter.", label="SUPPORTED"
    )
    assert MUTATORS["stale_page"](only, random.Random(0), []) is None


def test_plant_is_deterministic_and_only_plants_supported_pairs():
    extra = Pair(
        id="x", claim="Many firms cut 12% of jobs.", span="Many firms cut jobs.", label="PARTIAL"
    )
    one = plant(POOL + [extra], seed=7)
    two = plant(POOL + [extra], seed=7)
    assert [p.model_dump() for p in one] == [p.model_dump() for p in two]
    assert {p.original_id for p in one} == {"a", "b", "c", "d"}
    assert len({p.id for p in one}) == len(one)
    other = plant(POOL, seed=8)
    assert [p.model_dump() for p in other] != [p.model_dump() for p in one]


def test_registry_rejects_a_supported_expectation_and_no_op_edits():
    with pytest.raises(ValueError, match="cannot expect SUPPORTED"):
        mutator("bad", expected="SUPPORTED", example=PAIR_A)
    with pytest.raises(ValueError, match="example must be a SUPPORTED pair"):
        mutator("bad", expected="PARTIAL", example=PAIR_A.model_copy(update={"label": "PARTIAL"}))
    from spanproof.planted_failures.registry import Edit, Mutator

    noop = Mutator(kind="noop", expected="PARTIAL", target="claim", fn=lambda p, r, pool: None,
                   example=PAIR_A)  # fmt: skip
    assert noop(PAIR_A, random.Random(0), []) is None
    assert Edit(before="a", after="b").claim is None


# ---------------------------------------------------------------- properties

_FRAGMENTS = st.sampled_from(
    [
        "Many manufacturers", "Some importers", "The Commission said", "about 3,000 homes",
        "rose 12%", "in Q2 2019", "since January", "in March", "may", "is expected to",
        "a third of", "is not", "twelve", "in Scotland", "according to the regulator",
        "the river", "was built", "several regions", "one of the largest", "1/3", "fell",
        "Lisbon", "the Ministry", "in 2021", "nearly 40 percent",
    ]
)  # fmt: skip


@st.composite
def pairs(draw):
    claim = " ".join(draw(st.lists(_FRAGMENTS, min_size=2, max_size=6))) + "."
    filler = draw(st.lists(_FRAGMENTS, min_size=1, max_size=4))
    span = f"{claim[0].upper()}{claim[1:]} Separately, {' '.join(filler)} was reported. Officials in Porto agreed."
    pid = draw(st.text("abcdef0123456789", min_size=1, max_size=6))
    return Pair(id=pid, claim=claim, span=span, label="SUPPORTED")


@pytest.mark.parametrize("kind", sorted(MUTATORS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=pairs(), pool=st.lists(pairs(), min_size=1, max_size=3), seed=st.integers(0, 2**16))
def test_mutator_properties(kind, pair, pool, seed):
    pool = [p.model_copy(update={"id": f"p{i}"}) for i, p in enumerate(pool)]
    m = MUTATORS[kind]
    out = m(pair, random.Random(seed), pool)
    again = m(pair, random.Random(seed), pool)
    assert (out is None) == (again is None)
    if out is None:
        return
    assert out == again  # deterministic under a seed
    assert out.expected != "SUPPORTED"
    assert (out.claim, out.span) != (pair.claim, pair.span)
    assert out.original_id == pair.id and out.kind == kind
    if m.target == "claim":
        assert out.span == pair.span and out.claim != pair.claim
    else:
        assert out.claim == pair.claim and out.span != pair.span
    assert out.changes and out.changes[0].field == m.target


@pytest.mark.parametrize("kind", sorted(MUTATORS))
def test_every_kind_plants_on_its_own_example(kind):
    # a kind carries the pair it was written for: it must plant there, as it declares
    m = mutators()[kind]
    out = m.plant_example()
    assert out is not None, f"{kind} does not plant on its own example"
    assert out.kind == kind and out.expected == m.expected
    assert out.original_id == m.example.id
    assert (out.claim != m.example.claim) == (m.target == "claim")


def test_every_kind_applies_to_some_generated_pair():
    # Guards the property test above against vacuity: each kind must fire on the fixtures.
    fired = {p.kind for p in plant(POOL, seed=0)}
    assert fired == set(MUTATORS)


def test_stale_page_serves_the_rest_of_the_page_when_the_set_knows_it():
    page = [
        "(meta data) TITLE: Port report",
        "The port opened in 1901.",
        "It handled 2 million containers in 2023.",
        "Traffic handled in 2023 reached 2 million containers, officials said.",
        "A new crane arrived in May.",
        "Dock workers went on strike twice.",
    ]
    pair = Pair(
        id="w",
        claim="The port handled 2 million containers in 2023.",
        span=page[2],
        label="SUPPORTED",
        source={"page_sentences": page, "supporting": [[2], [3]]},
    )
    out = MUTATORS["stale_page"](pair, random.Random(0), [])
    assert (
        out.span
        == "The port opened in 1901. A new crane arrived in May. Dock workers went on strike twice."
    )
    assert out.claim == pair.claim and "2 million" not in out.span


def test_every_mutator_runs_on_every_golden_pair_without_raising():
    # A mutator that raises loses its whole set from the bench; the shipped sets must plant cleanly
    # (stale_page once crashed on a WiCE page whose first supporting set was empty).
    from spanproof.bench.calibration import load_pairs

    for name in ("judge_calibration.jsonl", "wice_dev_pairs.jsonl"):
        pairs = load_pairs(Path(__file__).resolve().parents[2] / "goldens" / name)
        for mutate in MUTATORS.values():
            for pair in pairs:
                if pair.label == "SUPPORTED":
                    mutate(pair, random.Random(0), pairs)  # must not raise


PLUGIN = """
from spanproof.core.verdict import Pair
from spanproof.planted_failures import Edit, mutator


@mutator("unit_swap", expected="NOT_SUPPORTED", example=Pair(
    id="statue", claim="The statue weighs 3 tonnes.", span="The bronze statue weighs 3 tonnes.",
    label="SUPPORTED"))
def unit_swap(pair, rng, pool):
    \"\"\"tonnes -> kilograms: the number stays, the unit changes.\"\"\"
    if "tonnes" not in pair.claim:
        return None
    return Edit(before="tonnes", after="kilograms", claim=pair.claim.replace("tonnes", "kilograms"))
"""


def _plugin_env(tmp_path, source: str) -> dict[str, str]:
    import os

    (tmp_path / "unitswap.py").write_text(source)
    info = tmp_path / "unitswap-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: unitswap\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[spanproof.planted_kinds]\nunit_swap = unitswap\n")
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
    }


def test_a_third_party_kind_plugs_in_through_an_entry_point_and_is_planted(tmp_path):
    import json
    import subprocess
    import sys

    env = _plugin_env(tmp_path, PLUGIN)
    spanproof = str(Path(sys.executable).with_name("spanproof"))
    listed = subprocess.run([spanproof, "sensitivity", "--list-kinds"], env=env,
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    assert "unit_swap  (claim -> must be NOT_SUPPORTED)" in listed.stdout
    assert "The statue weighs 3 kilograms." in listed.stdout
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        json.dumps(
            {
                "id": "w",
                "claim": "The load weighs 7 tonnes.",
                "span": "The load weighs 7 tonnes.",
                "label": "SUPPORTED",
            }
        )
        + "\n"
    )
    done = subprocess.run([spanproof, "sensitivity", "--pairs", str(pairs), "--kind", "unit_swap",
                           "--json", "--home", str(tmp_path / "home")], env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    assert json.loads(done.stdout)["by_kind"]["unit_swap"]["n"] == 1


def test_a_planted_kind_plug_in_that_fails_to_load_stops_planting(tmp_path):
    import subprocess
    import sys

    env = _plugin_env(tmp_path, "raise ImportError('needs libfoo')\n")
    done = subprocess.run(
        [sys.executable, "-c", "from spanproof.planted_failures import plant; plant([])"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode != 0
    assert "plug-in 'unit_swap' (unitswap) failed to load: ImportError: needs libfoo" in done.stderr
