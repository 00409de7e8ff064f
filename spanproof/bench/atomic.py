"""Split report sentences into atomic claims: one assertion per unit.

"Revenue grew 12% and margin fell" asserts two things; a source may support one and
not the other, and a grader that judges the sentence whole lets the supported half
carry the unsupported one. The offline splitter is rule-based and conservative: it
splits only at "and" / "but" / ";" / ", while" / ", whereas" when both sides carry a
finite verb of their own, and leaves alone lists ("A, B and C won awards"), names
("Procter and Gamble"), numbers ("between 10 and 20", "one hundred and five"),
"both ... and", anything inside quotation marks or parentheses, and coordination
inside subordinate or reported clauses (splitting "The report said that X and Y"
would turn reported speech into a bare assertion of Y).

No part-of-speech tagger ships offline here, so finite verbs are recognised from a
lexicon of auxiliaries, irregular past forms and "-ed" forms, with determiners
blocking noun readings ("the cut", "the listed company"). When it is unsure, it does
not split: an unsplit sentence is graded as one claim, which is still correct, only
coarser.

With a model (``ModelSplitter``) every proposed atomic claim is validated: its
content words must all come from the original sentence, otherwise the rule-based
split is used for that sentence and the rejection is recorded.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field
from spanproof.graders.clauses import (  # noqa: F401
    split_clauses,
    split_text,
    tidy_claim,
)

from spanproof.bench.report_input import Citation, ParsedReport
from spanproof.core.sentences import sentence_texts
from spanproof.core.specs import EndpointSettings
from spanproof.core.text import content_stems
from spanproof.wire.chat import ChatModel, Message, SystemMessage, UserMessage
from spanproof.wire.client import ModelClient


class AtomicClaim(BaseModel):
    id: str  # "<sentence index>.<part>", stable for a given report and splitter
    text: str
    sentence_index: int
    sentence: str  # the report sentence this claim came from
    citations: list[Citation] = Field(default_factory=list)
    method: Literal["whole", "rules", "model"] = "whole"
    note: str | None = None  # why a model split was rejected, if it was


# --- validation of model splits ---------------------------------------------------------


def _content_words(text: str) -> set[str]:
    return set(content_stems(text))


def foreign_words(sentence: str, claim: str) -> set[str]:
    """Content words of ``claim`` that the sentence never used (a model's invention)."""
    return _content_words(claim) - _content_words(sentence)


def validate_split(sentence: str, claims: list[str]) -> list[str]:
    """Problems with a proposed split; empty means every claim is made of the sentence's words."""
    problems: list[str] = []
    if not claims:
        problems.append("no claims returned")
    for claim in claims:
        extra = foreign_words(sentence, claim)
        if not claim.strip():
            problems.append("an empty claim")
        elif extra:
            problems.append(f"{claim!r} adds words not in the sentence: {sorted(extra)}")
    return problems


SPLIT_PROMPT = (
    "Split the sentence into atomic claims: each states exactly one assertion, reuses the "
    "sentence's own words, repeats the subject where needed, and adds nothing. Keep lists, "
    "names, numeric ranges and quotations whole. Return JSON only: "
    '{"claims": ["...", "..."]}.'
)


class SplitOutput(BaseModel):
    """What the splitter model must return (the JSON schema sent to the server comes from it)."""

    # A long sentence splits into several claims, each repeating its subject: room for them.
    claims: list[str] = Field(json_schema_extra={"max_words": 200})


class ModelSplitter:
    """An LLM splitter whose output is checked word by word against the sentence.

    ``model`` is the shared client of an endpoint or any chat model (a scripted one in tests),
    asked through ``spanproof.wire.structured`` with no re-ask: a reply that is not the schema,
    or a call that fails at the endpoint, falls back to the rule-based split, which is still
    correct, only coarser. A setup mistake (a refused key, an open circuit) propagates.
    """

    def __init__(self, model: ModelClient | ChatModel) -> None:
        self.model = model
        self.rejections: list[str] = []

    async def split(self, sentence: str) -> tuple[list[str], str | None]:
        from spanproof.wire import EndpointFailed, EndpointRefused, MalformedReply, structured

        messages: list[Message] = [
            SystemMessage(content=SPLIT_PROMPT),
            UserMessage(content=sentence),
        ]
        try:
            got = await structured(self.model, messages, SplitOutput, reasks=0, name="claims")
            claims = [c.strip() for c in got.output.claims]
        except MalformedReply as exc:
            return self._fallback(sentence, f"model output unreadable ({exc.problem})")
        except (EndpointFailed, EndpointRefused) as exc:
            return self._fallback(
                sentence,
                f"model output unreadable (the splitter model failed ({exc.kind}: {exc}))",
            )
        problems = validate_split(sentence, claims)
        if problems:
            return self._fallback(sentence, "model split rejected: " + "; ".join(problems))
        return [tidy_claim(c) for c in claims], None

    def _fallback(self, sentence: str, why: str) -> tuple[list[str], str]:
        note = f"{why}; used the rule-based split"
        self.rejections.append(note)
        return split_clauses(sentence), note


def openai_splitter(model: str, endpoint: EndpointSettings | None = None) -> ModelSplitter:
    """A ModelSplitter over any OpenAI-compatible endpoint (temperature 0), through the shared
    model client (spanproof.wire): same timeouts, retries, limits and counters as the judge."""
    from spanproof.wire import client_for

    return ModelSplitter(client_for(model, endpoint))


def _claims_for(
    sentence_index: int,
    sentence: str,
    texts: list[str],
    citations: list[Citation],
    method: Literal["rules", "model"],
    note: str | None = None,
) -> list[AtomicClaim]:
    many = len(texts) > 1
    return [
        AtomicClaim(
            id=f"{sentence_index}.{k}",
            text=t,
            sentence_index=sentence_index,
            sentence=sentence,
            citations=list(citations),
            method=method if many else "whole",
            note=note,
        )
        for k, t in enumerate(texts)
    ]


def atomic_claims(report: ParsedReport) -> list[AtomicClaim]:
    """Every cited-or-not sentence of the report, split; claims keep their sentence's citations."""
    out: list[AtomicClaim] = []
    for s in report.sentences:
        out.extend(_claims_for(s.index, s.text, split_text(s.text), s.citations, "rules"))
    return out


async def atomic_claims_with_model(
    report: ParsedReport, splitter: ModelSplitter
) -> list[AtomicClaim]:
    out: list[AtomicClaim] = []
    for s in report.sentences:
        texts: list[str] = []
        notes: list[str] = []
        for sentence in sentence_texts(s.text):
            parts, note = await splitter.split(sentence)
            texts.extend(parts)
            if note:
                notes.append(note)
        method: Literal["rules", "model"] = "rules" if notes else "model"
        out.extend(
            _claims_for(s.index, s.text, texts, s.citations, method, "; ".join(notes) or None)
        )
    return out
