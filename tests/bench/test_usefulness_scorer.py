"""The usefulness scorer asks through structured(): a scripted chat model stands in for the
endpoint, and its replies are re-asked and turned into per-answer errors as an endpoint's are."""

from __future__ import annotations

from spanproof.bench.usefulness import MAX_REASKS, UsefulnessScorer
from spanproof.wire.chat import ScriptedChatModel


async def test_a_chatty_reply_is_re_asked_with_the_rubric_shape_then_scored():
    model = ScriptedChatModel(["I'd say a four.", '{"score": 4, "reason": "main part answered"}'])
    item = await UsefulnessScorer("openai:rubric", model=model).score("Who won?", "Team A won.")
    assert item.error is None and item.score is not None and item.score.score == 4
    reask = model.calls[1]["messages"][-1].content
    assert reask.startswith("That reply was not the JSON object asked for (JSONDecodeError")
    assert '{"score": <1-5>' in reask


async def test_replies_that_never_fit_the_schema_are_an_error_for_that_answer_not_a_score():
    model = ScriptedChatModel(['{"score": 7}'] * (1 + MAX_REASKS))
    item = await UsefulnessScorer("openai:rubric", model=model).score("Who won?", "Team A won.")
    assert item.score is None
    assert item.error.startswith(
        f"malformed output: no valid score after {1 + MAX_REASKS} attempts"
    )
    assert "ValidationError" in item.error and len(model.calls) == 1 + MAX_REASKS
