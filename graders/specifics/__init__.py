"""The specifics of a sentence, extracted by code, and claim-against-span comparison.

Both the deterministic audit (docs/architecture.md check 4: the claim is no broader than the quote) and the
offline ``rules`` judge read sentences through this package. Everything here is
deterministic and offline. By concern:

- ``numbers``      digits, number words, scales, percentages, currency, fractions, ordinals
- ``dates``        years, decades, months and days, quarters, named days, ranges, "since"
- ``names``        capitalised runs as named entities, and whether a text names one
- ``wording``      quantifiers, modality, negation, hedges, opposites, now-versus-then
- ``attribution``  who a sentence says is speaking; opinion markers
- ``identifiers``  reference codes, web addresses, file names
- ``extract``      all of the above for one text (``Specifics``), cached
- ``polarity``     a negation or an opposite word against the span sentence a claim follows
- ``coordination`` elements a claim joins with "and" that its span never states or never joins
- ``comparison``   claim against span: ``compare`` (what the span does not establish),
                   ``stronger_than_span``
- ``slot_reader``  the one reader of slots: the value the span states in each claim value's
                   slot, and the contradictions code proves (``readings``, ``slots``,
                   ``concepts``, ``places`` beside it)
- ``lexicon`` + ``lexicons/``  the word lists and tables, as data files

Words, stopwords and stemming come from ``spanproof.core.text``.
"""

from spanproof.graders.specifics.comparison import (
    Mismatch,
    century_established,
    compare,
    scope_widened,
    stronger_than_span,
)
from spanproof.graders.specifics.dates import DateMention, date_established, extract_dates
from spanproof.graders.specifics.extract import Specifics, extract
from spanproof.graders.specifics.identifiers import identifiers, missing_identifiers
from spanproof.graders.specifics.names import (
    entity_present,
    entity_tokens,
    extract_entities,
    token_set,
)
from spanproof.graders.specifics.numbers import Quantity, extract_numbers, quantities_match
from spanproof.graders.specifics.wording import (
    QUANTIFIER_GROUPS,
    hedges_dropped,
    negation_conflicts,
    opposites,
    period_conflicts,
)

__all__ = [
    "QUANTIFIER_GROUPS",
    "DateMention",
    "Mismatch",
    "Quantity",
    "Specifics",
    "century_established",
    "compare",
    "date_established",
    "entity_present",
    "entity_tokens",
    "extract",
    "extract_dates",
    "extract_entities",
    "extract_numbers",
    "hedges_dropped",
    "identifiers",
    "missing_identifiers",
    "negation_conflicts",
    "opposites",
    "period_conflicts",
    "quantities_match",
    "scope_widened",
    "stronger_than_span",
    "token_set",
]
