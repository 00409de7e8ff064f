"""Question analysis by code: what each sub-question asks for, about what, and whether a text
holds an answer of that kind.

A sentence that shares a question's words is about the same thing; it answers the question
only when it also holds the kind of thing asked for: "when" wants a date, "how many
students" a number of students, "who" a name the question does not already give, "where" a
place, "which club" a named club. This package works that out from the question's wording
(no model, no word lists fitted to particular questions) and finds such answers in a text
with the project's parsers of dates, numbers and names (graders.specifics), so the offline
policy can rank sentences by whether they answer, and convergence can refuse to call a
sub-question covered by a span that merely mentions its subject.

Answer types a sub-question may expect:
- date: when / what year / which month ... ("died Saturday", "on 24 January 1957", "in 2014")
- number: how many / much / old / long / far ..., what score / fee / share / total ...
- person: who / whom / whose / which player ... (a name the question does not give)
- place: where / which city / in what country ... (a name after in/at/from/near ...)
- entity: which/what X for any other X (a name or title the question does not give, or X
  itself with its modifiers: "public and private sector unions")
- role: what post / position / title (a job or office: curator, chairman, head coach ...)
- reason: why / what was the cause (because, after, due to, following ...)
- statement: what did X say / announce (said, told, according to, a quotation)
- relation: how is X related to Y (cousin, daughter, brother-in-law ...)
- colour: what colour
- manner, description, yesno: how did X ..., what is X, is/was/did X ...? -- no type can be
  checked by code; relevance alone ranks them.

By concern, each module importing only those above it in this list:

- ``words``        the question's words: folded tokens, matching terms (irregular forms, the
                   project's stem, synonym groups), ``terms``, ``same_term``, ``matched``
- ``subquestion``  one sub-question analysed (``SubQuestion``): its answer types and kind noun
                   (``expected_answer``), its focus, entity and numbered things
- ``compound``     a compound question split into sub-questions (``decompose``), each analysed
                   (``analyse``)
- ``mentions``     answers of an expected type found in a text (``Mention``,
                   ``answer_mentions``, ``holds_answer``), and how a gap names what is missing
- ``scoring``      how well a sentence answers a sub-question (``Match``, ``match``)
"""
