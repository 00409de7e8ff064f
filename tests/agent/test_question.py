"""Question analysis: what each sub-question expects, how compound questions split, and
whether a sentence holds an answer of the expected type."""

from __future__ import annotations

import pytest
from spanproof.agent.question.compound import analyse, decompose
from spanproof.agent.question.mentions import holds_answer
from spanproof.agent.question.scoring import match
from spanproof.agent.question.subquestion import analyse_subquestion, expected_answer
from spanproof.agent.question.words import term, terms

# (question, answer types, kind noun) -- 60 forms
FORMS = [
    # when -> date
    ("When did the Larkspur Bridge open?", ["date"], None),
    ("When was Better Call Saul renewed for a fifth season?", ["date"], None),
    ("when will the name change be fully implemented?", ["date"], None),
    ("Since when has she lived in Paris?", ["date"], None),
    ("What year did the club win the cup?", ["date"], "year"),
    ("In which year was the treaty signed?", ["date"], "year"),
    ("What date is the final?", ["date"], "date"),
    ("Which month did the store open?", ["date"], "month"),
    ("What time does the museum close?", ["date"], None),
    ("In what decade was the tower built?", ["date"], "decade"),
    ("How long ago did the volcano erupt?", ["date"], None),
    # how many / much / old / long ... -> number (with its unit or noun)
    ("How many students attended at opening?", ["number"], "students"),
    ("how many companies does it comprise?", ["number"], "companies"),
    ("How many goals did he score for Millwall?", ["number"], "goals"),
    ("How much did Portola High School cost?", ["number"], "cost"),
    ("How much solidarity and bonus money was earmarked?", ["number"], "money"),
    ("How much will the board receive?", ["number"], "receive"),
    ("How old was she?", ["number"], "old"),
    ("How long is the main span?", ["number"], "long"),
    ("How far below the surface is the power station?", ["number"], "far"),
    ("How tall is the tower?", ["number"], "tall"),
    ("and from how many?", ["number"], None),
    ("by how many votes was the model passed?", ["number"], "votes"),
    ("What was the score of the last game?", ["number"], "score"),
    ("What was the overnight score between Williams and Higgins?", ["number"], "score"),
    ("What share of the vote did Mosqueda get?", ["number"], "share"),
    ("What is the maximum for a League A team?", ["number"], "maximum"),
    ("for what fee?", ["number"], "fee"),
    ("What turnover did HomeCorp Group reach?", ["number"], "turnover"),
    ("What is the population of Lyon?", ["number"], "population"),
    ("What percentage of voters backed the plan?", ["number"], "percentage"),
    # who -> person or organisation
    ("Who designed the bridge?", ["person"], None),
    ("Who did the Odessa Jackalopes hire as head coach?", ["person"], None),
    ("whom did the board appoint?", ["person"], None),
    ("Whose penalty won the cup?", ["person"], None),
    ("Which applicants did the commission select?", ["person"], "applicants"),
    ("Which player scored the winner?", ["person"], "player"),
    ("who are her parents?", ["person"], None),
    # where -> place
    ("Where did Niko Giantsopoulos play in the NCAA?", ["place"], None),
    ("where was she living?", ["place"], None),
    ("In which city was the summit held?", ["place"], "city"),
    ("Which country hosted the games?", ["place"], "country"),
    ("At what venue did the band play?", ["place"], "venue"),
    # which / what X -> a noun phrase of kind X
    ("Which club did the striker join?", ["entity"], "club"),
    ("Which volleyball trophy did both teams win?", ["entity"], "trophy"),
    ("Which bands joined Megadeth on Gigantour 2006?", ["entity"], "bands"),
    ("on which Megadeth albums did the mascot return?", ["entity"], "albums"),
    ("What award did Ron Bakir win in 2013?", ["entity"], "award"),
    ("What literacy programme did Lancome launch?", ["entity"], "programme"),
    ("Which unions did the law apply to?", ["entity"], "unions"),
    ("Which record label released the single?", ["entity"], "label"),
    ("What post did Jan Stuart take in 2014?", ["role"], "post"),
    ("what was her previous role?", ["role"], "role"),
    ("What colour is the Black Mamba usually?", ["colour"], "colour"),
    # why / cause / statement / relation / manner / description / yes-no
    ("Why did Stewart withdraw?", ["reason"], None),
    ("According to legend, why did the architect decorate his house?", ["reason"], None),
    ("what was the cause?", ["reason"], "cause"),
    ("What did the Arts Board say about the flag search?", ["statement"], None),
    ("How is Lady Amelia Windsor related to Prince William?", ["relation"], None),
    ("When and where did Charlie Russell die?", ["date", "place"], None),
    ("How was the photojournalist killed?", ["manner"], None),
    ("how did he come to the attention of Cavalry FC?", ["manner"], None),
    ("how close were the polls?", ["description"], None),
    ("What did Nujeen Mustafa become the first person to do?", ["description"], None),
    ("Was the show renewed for a fifth season?", ["yesno"], None),
]


@pytest.mark.parametrize(("question", "types", "kind"), FORMS)
def test_expected_answer_type_and_kind(question, types, kind):
    assert expected_answer(question) == (types, kind)


def test_at_least_forty_forms_are_covered():
    assert len(FORMS) >= 40
    assert {t for _, types, _ in FORMS for t in types} >= {
        "date", "number", "person", "place", "entity", "role", "reason", "statement",
        "relation", "colour", "manner", "description", "yesno",
    }  # fmt: skip


def test_compound_questions_split_into_typed_sub_questions():
    subs = analyse("When did the Larkspur Bridge open, and how many vehicles cross it each day?")
    assert [s.text for s in subs] == [
        "When did the Larkspur Bridge open?",
        "how many vehicles cross it each day (Larkspur Bridge)?",
    ]
    assert [s.answer_types for s in subs] == [["date"], ["number"]]
    assert subs[1].kind == "vehicles" and subs[1].entity == terms("Larkspur Bridge")
    # a preposition before the wh-word still starts a new sub-question
    assert decompose("Which applicants did the Missouri Commission select, and from how many?") == [
        "Which applicants did the Missouri Commission select?",
        "from how many (Missouri Commission)?",
    ]
    assert len(decompose("Which bands joined Megadeth, and on which albums did Vic return?")) == 2
    # "When and where" is one sub-question expecting both
    only = analyse("When and where did Charlie Russell die?")
    assert len(only) == 1 and only[0].answer_types == ["date", "place"]
    # a year written before the borrowed name travels with it
    assert decompose("Who won the 2019 World Snooker Championship final, and by what score?")[
        1
    ] == ("by what score (2019 World Snooker Championship)?")


def test_an_elliptical_part_asks_about_what_the_part_before_it_asked():
    first, second = analyse("Which applicants did the commission select, and from how many?")
    assert second.focus == first.focus and "applicant" in second.focus


def test_descriptors_before_a_name_are_what_it_is_about_not_what_it_asks():
    sq = analyse_subquestion("When did the nurse Marion Leane Smith die?")
    assert sq.focus == {term("die")} and "nurs" in sq.entity


@pytest.mark.parametrize(
    ("subquestion", "answering", "not_answering"),
    [
        (
            "When did the Larkspur Bridge open?",
            "The Larkspur Bridge opened to traffic on 14 March 2021.",
            "The Larkspur Bridge opened to traffic after four years of work.",
        ),
        (
            "When did Liz Patterson die?",
            "Liz Patterson, a three-term congresswoman, died Saturday.",
            "Liz Patterson was a three-term congresswoman who died after a long illness.",
        ),
        (
            "how many students were there when it opened (Portola High School)?",
            "There was no lack of excitement among the 400 students, all of whom are freshmen.",
            "Students opened their lockers at Portola High School for the first time.",
        ),
        (
            "How much did the bridge cost?",
            "Construction cost 310 million euros.",
            "Construction cost more than the regional authority had planned.",
        ),
        (
            "How old was she (Liz Patterson)?",
            "She was 78.",
            "She was born in Columbia.",
        ),
        (
            "Who designed the Larkspur Bridge?",
            "It was designed by the engineering firm Halden and Moor.",
            "The Larkspur Bridge was designed to carry heavy lorries.",
        ),
        (
            "Where did Niko Giantsopoulos play in the NCAA?",
            "Giantsopoulos previously played in the NCAA at Calvin College.",
            "Giantsopoulos previously played in the NCAA for four seasons.",
        ),
        (
            "Which club did the striker join?",
            "The striker joined the club Millwall on a permanent deal.",
            "The striker joined the club on a permanent deal.",
        ),
        (
            "Why did Stewart withdraw from the race?",
            "Stewart withdrew from the race because of the crash on Saturday.",
            "Stewart withdrew from the race on Sunday morning.",
        ),
        (
            "How is Lady Amelia Windsor related to Prince Harry?",
            "Lady Amelia Windsor is Prince Harry's third cousin and is related through the Duke of Kent.",
            "Lady Amelia Windsor is related to Prince Harry and often attends royal events.",
        ),
    ],
)
def test_a_sentence_answers_only_when_it_holds_the_type_asked_for(
    subquestion, answering, not_answering
):
    sq = analyse_subquestion(subquestion)
    assert match(sq, answering).answers
    assert not match(sq, not_answering).answers


def test_the_questions_own_figures_and_names_are_not_answers():
    sq = analyse_subquestion("Which volleyball trophy did the Essex teams win in 2019?")
    assert not holds_answer(sq, "The Essex teams won in 2019.")
    assert holds_answer(sq, "Both teams took the Volleyball England National Student Cup in 2019.")
    number = analyse_subquestion("What share of the vote did she get in the Position 8 race?")
    assert not holds_answer(number, "She ran in the Position 8 race.")
    assert holds_answer(number, "In the Position 8 race she got 62 percent.")


def test_a_list_of_names_answers_a_plural_which_question_best():
    sq = analyse_subquestion("Which bands joined Megadeth on the tour?")
    listed = match(
        sq, "Megadeth headline a bill that includes LAMB OF GOD, OPETH, ARCH ENEMY and OVERKILL."
    )
    single = match(sq, "Megadeth said the tour was hailed by the Miami Herald.")
    assert listed.strength == 1.0 and single.strength < listed.strength


def test_a_figure_given_to_the_thing_asked_about_answers_what_x_questions():
    sq = analyse_subquestion("What retirement age for women did Putin settle on?")
    assert match(sq, "Their planned retirement age has now been reduced to 60.").answers
    assert not match(sq, "Putin spoke for 60 minutes about the plans for women.").answers


def test_a_figure_written_in_words_is_found_where_it_is_written():
    sq = analyse_subquestion("How many awards did Taylor Swift win?")
    m = match(sq, '[artist id="2389485"]Taylor Swift[/artist] took home five awards on Sunday.')
    assert m.answers and m.mention is not None and m.mention.strength == 1.0
