"""spanproof.core.text: the one place for words (tokens, stopwords, stems, passage ranking)."""

from __future__ import annotations

from spanproof.core.text import STOPWORDS, PassageIndex, content_stems, fold, stem, words


def test_words_stems_and_stopwords_agree_on_what_the_same_word_is():
    assert words("The U.S. released it in 1999.") == ["the", "u.s", "released", "it", "in", "1999"]
    assert stem("released") == stem("releases") == stem("release")
    assert {"the", "of", "and"} <= STOPWORDS and "council" not in STOPWORDS
    assert content_stems("The council approved the budget") == ["council", "approv", "budget"]
    assert fold("Bruzón") == "bruzon"


def test_passage_ranking_puts_the_passage_about_the_query_first():
    passages = [
        "Skip to content. Home | About | Archive",
        "The bridge is 250 miles from the capital and opened in 1932.",
        "Tickets for the museum cost five dollars.",
        "The capital has a festival every spring, the biggest festival of the capital.",
    ]
    ranked = PassageIndex(passages).rank("How far is the bridge from the capital?")
    assert ranked[0][0] == 1 and ranked[0][1] > 0
    # passages sharing no word with the query come last, with score 0, in order
    assert [i for i, s in ranked if s == 0] == [0, 2]
    assert sorted(i for i, _ in ranked) == [0, 1, 2, 3]


def test_an_empty_query_ranks_every_passage_at_zero():
    assert PassageIndex(["a b", "c d"]).rank("the of and") == [(0, 0.0), (1, 0.0)]
