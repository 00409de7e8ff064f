"""The rule-based splitter: splits coordinated assertions, leaves everything else whole."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanproof.bench.atomic import (
    ModelSplitter,
    atomic_claims,
    split_clauses,
    split_text,
    validate_split,
)
from spanproof.bench.report_input import parse_text
from spanproof.wire.chat import ScriptedChatModel

SPLITS = [
    ("Revenue grew 12% and margin fell.", ["Revenue grew 12%.", "Margin fell."]),
    ("Revenue grew 12%, but margin fell.", ["Revenue grew 12%.", "Margin fell."]),
    ("Sales rose; costs fell.", ["Sales rose.", "Costs fell."]),
    ("Revenue grew 12%, while costs were flat.", ["Revenue grew 12%.", "Costs were flat."]),
    (
        "The company hired 300 engineers and opened offices in Paris and Berlin.",
        ["The company hired 300 engineers.", "The company opened offices in Paris and Berlin."],
    ),
    (
        "Johnson & Johnson raised its dividend and cut costs.",
        ["Johnson & Johnson raised its dividend.", "Johnson & Johnson cut costs."],
    ),
    (
        "The firm was founded in 1990 and sold in 2005.",
        ["The firm was founded in 1990.", "The firm was sold in 2005."],
    ),
    ("The firm was profitable and sold cars.", ["The firm was profitable.", "The firm sold cars."]),
    (
        "The firm has grown and hired 300 people.",
        ["The firm has grown.", "The firm has hired 300 people."],
    ),
    (
        "The plant will open in May and hire 200 workers.",
        ["The plant will open in May.", "The plant will hire 200 workers."],
    ),
    (
        "In 2023, revenue grew 12% and margin fell to 3%.",
        ["In 2023, revenue grew 12%.", "In 2023, margin fell to 3%."],
    ),
    ("Tom and Jerry ran and hid.", ["Tom and Jerry ran.", "Tom and Jerry hid."]),
    (
        "The bill passed the Senate and was signed by the President.",
        ["The bill passed the Senate.", "The bill was signed by the President."],
    ),
    ("Rates rose 3% and then fell 2%.", ["Rates rose 3%.", "Rates then fell 2%."]),
    (
        "It is located in Ohio and has a population of 5,000.",
        ["It is located in Ohio.", "It has a population of 5,000."],
    ),
]

WHOLE = [
    "A, B and C won awards.",  # a list of subjects
    "Procter and Gamble reported higher sales.",  # "and" inside a name
    "Smith and Wesson makes guns and ammunition.",  # name + object list
    "Prices rose between 10 and 20 percent.",  # a range
    "The company employs one hundred and five people.",  # a number in words
    'The CEO said "we grew and we hired" in March.',  # inside a quotation
    "Both revenue and profit rose in 2023.",  # both ... and
    "Although sales fell and costs rose, profit increased.",  # subordinate clause
    "The report said that sales fell and costs rose.",  # reported speech scopes both halves
    "The company grew quickly and steadily.",  # coordinated adverbs
    "Microsoft bought GitHub and LinkedIn.",  # coordinated objects
    "The listed company and its affiliated units grew.",  # -ed adjectives after determiners
    "The museum, which opened in 1990 and closed in 2010, housed 300 works.",  # relative clause
    "Revenue was $5 million in 2022 and $7 million in 2023.",  # gapped verb: no second predicate
    "Analysts expect rates to stay high or fall.",  # disjunction is never split
    "The study (which sampled 400 adults and 90 children) found no effect.",  # parentheses
]


@pytest.mark.parametrize(("sentence", "expected"), SPLITS)
def test_coordinated_predicates_split(sentence, expected):
    assert split_clauses(sentence) == expected


@pytest.mark.parametrize("sentence", WHOLE)
def test_conservative_cases_stay_whole(sentence):
    assert split_clauses(sentence) == [sentence]


def test_enough_tricky_cases():
    assert len(SPLITS) + len(WHOLE) >= 20


def test_text_is_split_into_sentences_first():
    assert split_text(
        "Revenue grew 12% in the U.S. market. Dr. Smith left and the board hired Jones."
    ) == [
        "Revenue grew 12% in the U.S. market.",
        "Dr. Smith left.",
        "The board hired Jones.",
    ]


def test_atomic_claims_keep_sentence_and_citations():
    report = parse_text(
        "Revenue grew 12% and margin fell.[1] Costs were flat.\n\n[1]: https://a.example/x\n", "md"
    )
    claims = atomic_claims(report)
    assert [c.text for c in claims] == ["Revenue grew 12%.", "Margin fell.", "Costs were flat."]
    assert claims[0].sentence == claims[1].sentence == "Revenue grew 12% and margin fell."
    assert claims[0].method == "rules" and claims[2].method == "whole"
    assert all(c.citations[0].url == "https://a.example/x" for c in claims[:2])
    # the first sentence's own citation is shared by both of its atomic claims
    assert claims[0].citations[0].occurrence == claims[1].citations[0].occurrence


def test_validation_rejects_invented_words():
    sentence = "Revenue grew 12% and margin fell."
    assert validate_split(sentence, ["Revenue grew 12%.", "Margin fell."]) == []
    problems = validate_split(sentence, ["Revenue grew 12%.", "Margin fell sharply."])
    assert problems and "sharply" in problems[0]
    assert validate_split(sentence, []) == ["no claims returned"]


async def test_model_splitter_falls_back_on_invention():
    model = ScriptedChatModel(
        [
            '{"claims": ["Revenue grew 12%.", "Margin fell."]}',
            '{"claims": ["Revenue grew 15%.", "Margin fell."]}',
            "not json",
        ]
    )
    splitter = ModelSplitter(model)
    ok, note = await splitter.split("Revenue grew 12% and margin fell.")
    assert ok == ["Revenue grew 12%.", "Margin fell."] and note is None
    fallback, note = await splitter.split("Revenue grew 12% and margin fell.")
    assert fallback == ["Revenue grew 12%.", "Margin fell."]
    assert note and "15" in note
    _, note = await splitter.split("Revenue grew 12% and margin fell.")
    assert note and "unreadable" in note
    assert len(splitter.rejections) == 2
    # no re-ask: an unreadable reply costs one call and falls back to the rules
    assert len(model.calls) == 3


async def test_openai_splitter_over_the_wire(httpserver):
    from spanproof.bench.atomic import openai_splitter
    from spanproof.core.specs import EndpointSettings

    def reply(content: str) -> dict:
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "local",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": content},
                }
            ],
        }

    httpserver.expect_ordered_request("/v1/chat/completions", method="POST").respond_with_json(
        reply('{"claims": ["Revenue grew 12%.", "Margin fell."]}')
    )
    httpserver.expect_ordered_request("/v1/chat/completions", method="POST").respond_with_json(
        reply('{"claims": ["Revenue grew strongly."]}')
    )
    splitter = openai_splitter(
        "local", EndpointSettings(base_url=httpserver.url_for("/v1"), api_key="local")
    )
    report = parse_text(
        "Revenue grew 12% and margin fell [1]. Sales rose.\n\n[1]: https://a.example/\n", "md"
    )
    from spanproof.bench.atomic import atomic_claims_with_model

    claims = await atomic_claims_with_model(report, splitter)
    assert [(c.text, c.method) for c in claims] == [
        ("Revenue grew 12%.", "model"),
        ("Margin fell.", "model"),
        ("Sales rose.", "whole"),  # the invented "strongly" was rejected; rule split used
    ]
    assert claims[2].note and "strongly" in claims[2].note
    sent = [json.loads(req.data)["messages"][1]["content"] for req, _ in httpserver.log]
    assert sent == ["Revenue grew 12% and margin fell.", "Sales rose."]
    # a structured call: the claims schema rides along as the negotiated response format
    formats = [json.loads(req.data)["response_format"] for req, _ in httpserver.log]
    assert all(f["json_schema"]["name"] == "claims" for f in formats)


_SUBJECTS = ["Revenue", "The firm", "Acme and Zeta", "Procter and Gamble", "The plant", "Sales"]
_PREDICATES = [
    "grew 12%",
    "fell",
    "was founded in 1990",
    "hired 300 engineers",
    "opened offices in Paris and Berlin",
    "rose between 10 and 20 percent",
    "has grown",
    "will open in May",
]
_JOINERS = [" and ", ", and ", " but ", "; ", ", while "]


@given(
    st.lists(
        st.tuples(st.sampled_from(_SUBJECTS), st.sampled_from(_PREDICATES)), min_size=1, max_size=3
    ),
    st.lists(st.sampled_from(_JOINERS), min_size=2, max_size=2),
    st.booleans(),
)
@settings(max_examples=150, deadline=None)
def test_rule_split_never_invents_words(clauses, joiners, drop_subject):
    parts = [f"{s} {p}" for s, p in clauses]
    if drop_subject and len(parts) > 1:
        parts[1] = clauses[1][1]  # shared-subject predicate: "X grew and hired ..."
    sentence = parts[0]
    for joiner, part in zip(joiners, parts[1:], strict=False):
        sentence += joiner + part
    sentence += "."
    claims = split_clauses(sentence)
    assert claims and all(c.strip() for c in claims)
    assert validate_split(sentence, claims) == []
    assert len(claims) <= len(parts)
