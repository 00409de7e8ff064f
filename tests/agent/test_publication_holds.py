"""Publication holds back what a verdict cannot: a page that disagrees with itself or with
another fetched page on a claim's slot, and contact details nobody asked for."""

from __future__ import annotations

import pytest
from spanproof.agent.contacts import asks_for_contact, contact_details
from spanproof.agent.ledger import build_ledger, ledger_markdown
from spanproof.agent.publish import SOURCES_DISAGREE, compute_metrics, finish_answer, verify_draft
from spanproof.agent.record import DocumentRecord, Draft, RunConfig, RunRecord
from spanproof.agent.slot_conflicts import FetchedPage, slot_conflicts
from spanproof.graders.judges.blind import BlindJudge
from spanproof.graders.verify import Verifier

from spanproof.core.evidence import Span
from tests.scripts import load_script

LOANS = "Thornbury Libraries recorded 318,400 loans in 2024, up from 301,900 in 2023."
ERRATUM = (
    "Thornbury Libraries recorded 3,150 loans in 2024; the figure printed above was a "
    "data-entry error."
)
OTHER = "Children's books made up 41 per cent of all loans, and e-books a further 12 per cent."


class Pages:
    def __init__(self, texts: dict[str, str]):
        self.texts = texts

    def text(self, doc_id: str) -> str:
        return self.texts[doc_id]


def _doc(n: int) -> str:
    return "doc_" + str(n) * 16


def _run(question: str, pages: dict[str, str], quoted: str) -> tuple[RunRecord, Span]:
    """A run that fetched `pages` and quoted `quoted` from the first one."""
    first = next(iter(pages))
    start = pages[first].index(quoted)
    span = Span(span_id="span_" + "1" * 16, doc_id=first, url=f"https://e.org/{first}",
                text=quoted, char_start=start, char_end=start + len(quoted),
                retrieved_at="2026-01-01T00:00:00Z")  # fmt: skip
    docs = [
        DocumentRecord(doc_id=d, url=f"https://e.org/{d}", final_url=f"https://e.org/{d}",
                       title=d, retrieved_at="2026-01-01T00:00:00Z", sha256="0" * 64)
        for d in pages
    ]  # fmt: skip
    record = RunRecord(run_id="run_h", question=question, config=RunConfig(policy="extractive"),
                       spans=[span], documents=docs)  # fmt: skip
    return record, span


async def _publish(question: str, pages: dict[str, str], quoted: str, claim: str):
    record, span = _run(question, pages, quoted)
    draft = Draft.model_validate(
        {"claims": [{"text": claim, "span_ids": [span.span_id]}]},
        context={"run_span_ids": {span.span_id}},
    )
    [out] = await verify_draft(
        record, draft, Verifier([BlindJudge()]), partial="flag", snapshots=Pages(pages)
    )
    return record, out


# --- a page that disagrees with itself ------------------------------------------------------

QUESTION = "How many loans did Thornbury Libraries record in 2024?"


async def test_a_page_stating_two_values_for_the_claim_s_slot_is_held_for_a_person():
    page = f"Library use in 2024\n\n{LOANS}\n\n{OTHER}\n\nErratum, updated today\n\n{ERRATUM}"
    record, claim = await _publish(QUESTION, {_doc(2): page}, LOANS, LOANS)
    assert claim.status == "held" and claim.reason.startswith(SOURCES_DISAGREE)
    assert claim.needs_human and record.needs_human
    reason = claim.needs_human_reason or ""
    # both values, their offsets and the blocks they stand in
    at_own, at_other = page.index("318,400"), page.index("3,150")
    assert f"'318,400' at https://e.org/{_doc(2)} [{at_own}:{at_own + 7}]" in reason
    assert f"'3,150' at https://e.org/{_doc(2)} [{at_other}:{at_other + 5}]" in reason
    block = page.index(ERRATUM)
    assert f"block [{block}:{block + len(ERRATUM)}]" in reason
    assert "disagrees with itself" in reason
    answer = finish_answer(record)
    assert any("disagrees with itself" in g for g in answer.gaps)
    assert "3,150" not in answer.summary and "318,400" not in answer.summary


async def test_the_erratum_s_own_claim_is_held_too_even_when_it_is_too_short_to_align():
    # a claim with no words around its value is read through the span it restates
    page = f"{LOANS}\n\n{OTHER}\n\nErratum\n\n{ERRATUM}"
    _, claim = await _publish(QUESTION, {_doc(2): page}, ERRATUM, "3,150 loans.")
    assert claim.status == "held" and claim.needs_human


@pytest.mark.parametrize(
    "elsewhere",
    [
        LOANS,  # the figure repeated
        "Thornbury Libraries recorded about 318,000 loans in 2024.",  # a rounding of it
        "Thornbury Libraries recorded 301,900 loans in 2023.",  # another year's figure
    ],
)
async def test_values_that_agree_or_fill_another_slot_are_no_conflict(elsewhere):
    page = f"{LOANS}\n\n{OTHER}\n\nIn brief\n\n{elsewhere}"
    record, claim = await _publish(QUESTION, {_doc(2): page}, LOANS, LOANS)
    assert claim.status == "published" and not claim.needs_human and not record.needs_human


def test_values_of_one_list_or_block_are_not_a_second_statement():
    # "41 per cent ... a further 12 per cent" fills one slot for two things in one sentence
    page = f"{LOANS}\n\n{OTHER}"
    assert slot_conflicts(OTHER, OTHER, FetchedPage(_doc(2), "u", page), []) == []


async def test_two_fetched_pages_stating_different_values_set_needs_human_with_both():
    other_page = "Annual statistics\n\n" + LOANS.replace("318,400", "280,100")
    record, claim = await _publish(
        QUESTION, {_doc(2): f"{LOANS}\n\n{OTHER}", _doc(3): other_page}, LOANS, LOANS
    )
    assert claim.status == "held" and record.needs_human
    reason = claim.needs_human_reason or ""
    assert "two sources disagree" in reason
    assert "'318,400'" in reason and f"'280,100' at https://e.org/{_doc(3)}" in reason
    # the same page alone publishes
    _, alone = await _publish(QUESTION, {_doc(2): f"{LOANS}\n\n{OTHER}"}, LOANS, LOANS)
    assert alone.status == "published"


async def test_a_held_claim_is_counted_as_held_not_dropped_in_the_metrics_and_the_ledger():
    # the claim is supported by its span: the verifier did not drop it, the sources disagree
    page = f"Library use in 2024\n\n{LOANS}\n\n{OTHER}\n\nErratum, updated today\n\n{ERRATUM}"
    record, claim = await _publish(QUESTION, {_doc(2): page}, LOANS, LOANS)
    assert claim.status == "held" and claim.supporting_span_id is not None
    record.answer = finish_answer(record)
    assert record.answer.shown == []  # not shown to the reader
    assert not any("failed verification" in g for g in record.answer.gaps)
    m = compute_metrics(record)
    assert (m.claims_drafted, m.claims_held, m.claims_dropped) == (1, 1, 0)
    assert (m.held_rate, m.drop_rate, m.claims_published) == (1.0, 0.0, 0)
    record.metrics = m
    record.ledger = build_ledger(record)
    [row] = record.ledger
    assert row.status == "held" and not row.published and row.citation is None
    text = ledger_markdown(record)
    assert "| held" in text and "| dropped" not in text
    # beside a claim the verifier dropped, each is counted in its own figure
    record.answer.claims.append(claim.model_copy(update={"index": 1, "status": "dropped"}))
    m = compute_metrics(record)
    assert (m.claims_held, m.claims_dropped, m.held_rate, m.drop_rate) == (1, 1, 0.5, 0.5)


# --- contact details --------------------------------------------------------------------------

REFUNDS = (
    "Refunds are handled by our claims desk at refunds@claims.example or on 0161 496 0753, "
    "and by post to Claims Office, 14 Tannery Lane, Salford M3 7QX."
)


def test_each_kind_of_contact_detail_is_found():
    found = {(c.kind, c.text) for c in contact_details(REFUNDS)}
    assert found >= {
        ("e-mail address", "refunds@claims.example"),
        ("phone number", "0161 496 0753"),
        ("postal address", "14 Tannery Lane"),
        ("postal address", "M3 7QX"),
    }
    assert [c.text for c in contact_details("Call +44 20 7946 0321 or (555) 010-4477.")] == [
        "+44 20 7946 0321",
        "(555) 010-4477",
    ]
    assert [c.text for c in contact_details("See https://x.example/a and www.nasa.gov.")] == [
        "https://x.example/a",
        "www.nasa.gov",
    ]


@pytest.mark.parametrize(
    "sentence",
    [
        LOANS,
        "Between 1990-1995 the club won 3 titles and 2,400 members joined.",
        "Amazon.com reported revenue of 12.5 billion dollars in the quarter.",
        "The F1 2023 season had 22 races.",
    ],
)
def test_figures_years_and_company_names_are_not_contact_details(sentence):
    assert contact_details(sentence) == []


def test_a_question_asks_for_contact_details_only_when_it_names_a_way_to_reach_someone():
    assert asks_for_contact("What is the phone number of the claims desk?")
    assert asks_for_contact("How can I contact Brightwater about a refund?")
    assert not asks_for_contact("How much is the refund for each cancelled lesson?")


async def test_contact_details_are_not_published_unless_asked_for_and_then_flagged():
    page = f"Each cancelled lesson is refunded 7.50 pounds.\n\n{REFUNDS}"
    _, unasked = await _publish("How are refunds for cancelled lessons handled?",
                                {_doc(4): page}, REFUNDS, REFUNDS)  # fmt: skip
    assert unasked.status == "dropped" and "refunds@claims.example" in unasked.reason
    _, asked = await _publish("What e-mail address handles refunds?", {_doc(4): page}, REFUNDS,
                              REFUNDS)  # fmt: skip
    assert asked.status == "flagged" and asked.needs_human
    assert "0161 496 0753" in (asked.needs_human_reason or "")


# --- the false-conflict figure ----------------------------------------------------------------


def test_the_false_conflict_script_fails_on_a_planted_self_contradiction(tmp_path, capsys):
    import json

    script = load_script("slot_conflict_false_positives")
    pairs, pages = tmp_path / "pairs.jsonl", tmp_path / "pages.jsonl"
    rows = [
        {"id": "a", "claim": LOANS, "span": LOANS, "source": {"wice_id": "pa"}},
        {"id": "b", "claim": LOANS, "span": LOANS, "source": {"wice_id": "pb"}},
    ]
    pages.write_text(
        json.dumps({"wice_id": "pa", "sentences": [LOANS, OTHER]})
        + "\n"
        + json.dumps({"wice_id": "pb", "sentences": [LOANS, OTHER, "Erratum", ERRATUM]})
        + "\n"
    )
    pairs.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert script.main(["--pairs", str(pairs), "--pages", str(pages)]) == 1
    out = capsys.readouterr().out
    assert "pairs 2 | held as conflicting 1 | false-conflict rate 50.00%" in out
    assert "b: the source disagrees with itself on '318,400'" in out
    pairs.write_text(json.dumps(rows[0]) + "\n")
    assert script.main(["--pairs", str(pairs), "--pages", str(pages)]) == 0
    pairs.write_text(json.dumps({**rows[0], "source": {"wice_id": "missing"}}) + "\n")
    assert script.main(["--pairs", str(pairs), "--pages", str(pages)]) == 2
