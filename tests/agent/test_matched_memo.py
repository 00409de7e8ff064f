"""The agent's term matching, memoised across runs, answers as its plain definition does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from spanproof.agent.question.words import matched, same_term

_TERMS = st.sets(st.sampled_from(["bridge", "bridg", "implement", "implementation", "open",
                                  "opened", "mayor", "may", "council", "councils", "fee",
                                  "fees", "withdraw", "withdrawn", "race", "racing"]),
                 max_size=8)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(_TERMS, _TERMS)
def test_memoised_matching_is_the_plain_definition(want, have):
    plain = {w for w in want if w in have or any(same_term(w, h) for h in have)}
    assert matched(want, have) == plain
    assert matched(set(want), set(have)) == plain  # again, from the memo


def test_the_caller_owns_the_set_it_gets():
    first = matched({"bridge", "opened"}, {"bridge"})
    first.add("changed by a caller")
    assert matched({"bridge", "opened"}, {"bridge"}) == {"bridge"}
