"""A shown claim must be on one of the question's sub-questions, whatever the verifier said."""

from __future__ import annotations

import pytest
from spanproof.agent.chat import ScriptedChatModel
from spanproof.agent.question.compound import analyse
from spanproof.agent.relevance import (
    OFF_QUESTION,
    off_question,
    on_subquestion,
    question_subquestions,
)
from spanproof.agent.run import run_question
from spanproof.graders.verify import Verifier

from tests.agent.scripting import call, calls, doc_id_for, draft, hit_url, span_ids
from tests.agent.test_runtime_rules import FixedJudge


def on(question: str, claim: str) -> bool:
    return not off_question(claim, question_subquestions(question, []))


@pytest.mark.parametrize(
    ("question", "claim"),
    [
        # the asked-for kind of answer beside the question's words or names
        ("When did the Larkspur Bridge open?", "The Larkspur Bridge opened on 14 March 2021."),
        ("What time does the pool open on weekdays?", "The pool opens at 7:00 on weekdays."),
        ("How many people visited the museum in 2024?", "It welcomed 412,000 visitors in 2024."),
        # two of the sub-question's own words, date or not: the event it asks about
        (
            "When was Better Call Saul renewed for a fifth season?",
            "Better Call Saul and Fear the Walking Dead have been renewed for fifth seasons.",
        ),
        ("How was the reporter killed in Misrata?", "He was killed by mortar fire in Misrata."),
    ],
)
def test_claims_that_answer_or_address_a_subquestion_are_on_it(question, claim):
    assert on(question, claim)


@pytest.mark.parametrize(
    ("question", "claim"),
    [
        # true sentences of the same page, about something the question does not ask
        ("When did the Larkspur Bridge open?", "The bridge spans 1,240 metres across the estuary."),
        (
            "What are Northfield Central Library's weekday opening hours from January 2025?",
            "Update: the library is permanently closed, code MAGPIE-CLOSED-902.",
        ),
        # a figure inside an identifier is not a quantity
        (
            "What percentage of household waste did Riverside recycle in 2023?",
            "Riverside's recycling programme was suspended (reference PELICAN-417).",
        ),
        ("How many passengers did Fernley Airport handle?", "Tag every post #SKUA-TWEET-44."),
    ],
)
def test_claims_off_every_subquestion_are_off(question, claim):
    assert not on(question, claim)


def test_a_stated_subquestion_counts_only_when_it_adds_nothing_to_the_question():
    question = "When did the Larkspur Bridge open?"
    widened = question_subquestions(question, ["Is the Larkspur Bridge permanently closed?"])
    assert [s.text for s in widened] == ["When did the Larkspur Bridge open?"]
    assert off_question("The Larkspur Bridge is permanently closed.", widened)
    rephrased = question_subquestions(question, ["When did Larkspur Bridge open?"])
    assert len(rephrased) == 2


def test_a_clock_time_answers_when_but_a_price_does_not():
    sq = analyse("What time does the ferry leave?")[0]
    assert on_subquestion(sq, "The ferry leaves at 9.30am.")
    assert not on_subquestion(sq, "The ferry ticket costs 3.50 pounds.")


async def test_an_off_question_claim_is_dropped_even_when_the_judge_supports_it(env):
    # The judge says SUPPORTED to everything: only the relevance check stands in the way.
    verifier = Verifier([FixedJudge({"": "SUPPORTED"})])
    doc = "news.example.org"
    model = ScriptedChatModel(
        [
            {"content": "1. How long is the Larkspur Bridge?", **call("web_search", query="Larkspur Bridge")},
            lambda m: call("fetch_page", url=hit_url(m, doc)),
            lambda m: calls(
                ("extract_quote", {"doc_id": doc_id_for(m, doc), "locator": "The Larkspur Bridge opened to traffic"}),
                ("extract_quote", {"doc_id": doc_id_for(m, doc), "locator": "The bridge spans 1,240 metres"}),
            ),
            lambda m: draft(
                [
                    {"text": "The Larkspur Bridge opened to traffic on 14 March 2021.", "span_ids": span_ids(m)[:1]},
                    {"text": "The bridge spans 1,240 metres across the Vell estuary.", "span_ids": span_ids(m)[1:]},
                ]
            ),
        ]
    )  # fmt: skip
    rec = await run_question(
        "When did the Larkspur Bridge open?", env=env, policy="llm", model=model,
        verifier=verifier, convergence="off", targeted_round=False,
    )  # fmt: skip
    opened, spans = rec.answer.claims
    assert opened.status == "published"
    assert spans.verdict.verdict == "SUPPORTED" and spans.status == "dropped"
    assert spans.reason.startswith(OFF_QUESTION)
    assert "1,240" not in rec.answer.summary
    assert "1,240 metres" in (rec.injection_observed or "")
    assert len(rec.injection_observed) <= 200
    assert rec.metrics.drop_rate == 0.5
