"""A page that corrects itself is held for a person: a statement that marks itself as revising a
figure (an erratum, a revision row, a quoted "correction", a changelog, a strike-through, a
letter disputing it) is aligned with the claim by what is measured, while ordinary statements
of related slots (another year, a subgroup, a target, another site) are not."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from spanproof.agent.publish import SOURCES_DISAGREE, finish_answer
from spanproof.agent.slot_conflicts import FetchedPage, slot_conflicts

from .test_publication_holds import _doc, _publish

ROOT = Path(__file__).resolve().parents[2]
WRITTEN = ROOT / "adversarial_fixtures_written_first_second"
SCRIPT = ROOT / "scripts" / "self_correction_cases.py"

EBOOKS = (
    "Thornbury's eight public libraries lent 48,720 e-books in 2025, a rise of 14 percent on "
    "the 42,740 lent in 2024."
)
ERRATUM = (
    "Updated 28 November 2026: the e-book figure in the first paragraph was taken from an "
    "incomplete supplier statement. The corrected total for 2025 is 61,300 e-books lent."
)
HOMES = "Outline planning permission allows up to 1,850 homes at Millbrook Garden Village."
HISTORY = (
    "Version Date Change\n\n1.0 12 March 2025 First published.\n\n"
    "1.2 19 October 2026 Total number of homes amended to 2,275 homes after the phase 3 review."
)
COVERAGE = (
    "In 2025, 91.4 percent of children in Northmoor County who reached their second birthday "
    "had received a first dose of the MMR vaccine."
)
QUOTE = (
    '"The published rate overstates protection. The correct first-dose coverage for '
    'two-year-olds in 2025 is 84.9 percent," said the regional director.'
)
FILLER = "Loans of printed books held steady, with children's titles just over a third."


def _conflicts(claim: str, page: str) -> list:
    return slot_conflicts(claim, claim, FetchedPage(_doc(2), "u", page), [])


@pytest.mark.parametrize(
    ("first", "revision", "rival"),
    [
        (EBOOKS, ERRATUM, "61,300"),  # an extra qualifier ("public libraries") in the first
        (HOMES, HISTORY, "2,275"),  # a restated subject in a revision-history row
        (COVERAGE, QUOTE, "84.9 percent"),  # a quoted party "correcting" the rate
    ],
)
def test_a_revising_statement_is_a_rival_for_the_claim_s_slot_both_ways(first, revision, rival):
    page = f"{first}\n\n{FILLER}\n\n{revision}"
    [found] = [c for c in _conflicts(first, page) if c.other.value == rival]
    assert found.same_page and found.other.start == page.index(rival)
    # the revision's own claim (what a model quoting it drafts) is held as well
    at = revision.index(rival)
    sentence_start = max(revision.rfind(". ", 0, at) + 2, revision.rfind("\n", 0, at) + 1, 0)
    claim = revision[sentence_start : at + len(rival)].lstrip('"')
    assert any(c.stated.value.startswith(rival.split()[0]) for c in _conflicts(claim, page))


@pytest.mark.parametrize(
    "ordinary",
    [
        # the same words of revision, about another year's forecast, site or figure
        "The trust has revised its forecast and now expects 70,000 e-books to be lent in 2026.",
        "An amended application for the Quarry Lane site in Ashby seeks 2,275 homes.",
        "Correction: an earlier version misstated the number of branches; there are 9 branches.",
        "In 2024 the libraries actually lent 42,740 e-books, before the app was launched.",
    ],
)
def test_revision_words_about_another_slot_raise_no_conflict(ordinary):
    page = f"{EBOOKS}\n\n{HOMES}\n\n{FILLER}\n\n{ordinary}"
    assert _conflicts(EBOOKS, page) == [] and _conflicts(HOMES, page) == []


def test_a_length_of_time_is_not_aligned_by_its_unit_alone():
    # a duration says nothing of what it measures: "three years" married is not "20 years" in
    # the business, though a word of revision ("actually") stands in the quote
    claim = "She was married to Jim Threapleton for three years until 2001, the BBC reported."
    quote = (
        '"I actually thought it would be a small thing after 20 years in the business," she said.'
    )
    assert _conflicts(claim, f"{claim}\n\n{FILLER}\n\n{quote}") == []


def test_without_a_word_of_revision_the_restated_subject_is_no_rival():
    # the erratum's figure in a plain sentence: the reader's full alignment still decides
    plain = "The total for 2025 is 61,300 e-books lent."
    assert _conflicts(EBOOKS, f"{EBOOKS}\n\n{FILLER}\n\n{plain}") == []


async def test_the_held_claim_and_the_answer_say_the_source_disagrees_with_itself():
    page = f"{COVERAGE}\n\n{FILLER}\n\n{QUOTE}"
    question = "What percentage of two-year-olds had received a first MMR dose in 2025?"
    record, claim = await _publish(question, {_doc(2): page}, COVERAGE, COVERAGE)
    assert claim.status == "held" and claim.reason.startswith(SOURCES_DISAGREE)
    reason = claim.needs_human_reason or ""
    at, other = page.index("91.4 percent"), page.index("84.9 percent")
    assert f"[{at}:{at + len('91.4 percent')}]" in reason and f"[{other}:" in reason
    assert "the source disagrees with itself" in reason
    answer = finish_answer(record)
    assert any("disagrees with itself" in g for g in answer.gaps)
    assert "84.9" not in answer.summary and "91.4" not in answer.summary


# the pages written before the mechanism was built: every self-correction read but two, and no
# ordinary claim held. The bus routes': the reader takes "11 bus routes" for a volume ("bu",
# bushels), so no count of routes is there to align with; the headcount's: "1,120 people" and
# "1,380 employees" count two nouns WordNet does not join, and two counted nouns must meet
MISSED = {"bus-routes-editors-note", "biotech-headcount-revision-table"}


def test_the_pages_written_first_are_read_as_measured():
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--fixtures", str(WRITTEN)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    missed = {line.split()[1].rstrip(":") for line in run.stdout.splitlines() if "missed" in line}
    assert missed == MISSED, run.stdout
    assert "ordinary claims held: 0 of 24" in run.stdout, run.stdout
    assert run.returncode == 1  # a miss is a failure the script reports


def test_the_cases_script_fails_closed(tmp_path):
    (tmp_path / "fixtures.jsonl").write_text("", encoding="utf-8")
    run = subprocess.run([sys.executable, str(SCRIPT), "--fixtures", str(tmp_path)],
                         capture_output=True, text=True, check=False)  # fmt: skip
    assert run.returncode == 2 and "no cases.jsonl" in run.stderr
    (tmp_path / "cases.jsonl").write_text("", encoding="utf-8")
    run = subprocess.run([sys.executable, str(SCRIPT), "--fixtures", str(tmp_path)],
                         capture_output=True, text=True, check=False)  # fmt: skip
    assert run.returncode == 2 and "lists no claim" in run.stderr
    # a planted ordinary page whose two statements are one slot revised: held, so exit 1
    (tmp_path / "p.html").write_text(f"<p>{EBOOKS}</p><p>{ERRATUM}</p>", encoding="utf-8")
    case = {"id": "p", "file": "p.html", "kind": "ordinary", "question": "q", "claims": [EBOOKS]}
    (tmp_path / "cases.jsonl").write_text(json.dumps(case) + "\n", encoding="utf-8")
    run = subprocess.run([sys.executable, str(SCRIPT), "--fixtures", str(tmp_path)],
                         capture_output=True, text=True, check=False)  # fmt: skip
    assert run.returncode == 1 and "ordinary claims held: 1 of 1" in run.stdout
