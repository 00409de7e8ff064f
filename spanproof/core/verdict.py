"""The verdict schema and the pair format every judge and metric shares."""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

Label = Literal["SUPPORTED", "PARTIAL", "NOT_SUPPORTED"]
LABELS: tuple[Label, ...] = ("SUPPORTED", "PARTIAL", "NOT_SUPPORTED")


class CheckResult(BaseModel):
    """One deterministic check on a verdict: what it looked at and whether it fired."""

    name: str
    fired: bool
    detail: str = ""


class Place(BaseModel):
    """Words of the claim or the span and where they stand: ``text == whole[start:end]``."""

    text: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)


ProofKind = Literal[
    "quote_missing", "quote_not_in_span", "quote_not_evidence", "contradiction", "instructions"
]


class Proof(BaseModel):
    """A fact code establishes about the pair, which lowers any judge's verdict, always: the
    quote is not in the span or points at no evidence, the span states another value in the
    claim's role (``graders.specifics.slot_reader``), or the span addresses a machine."""

    kind: ProofKind
    reason: str  # one line a reader can check against the span
    lowers_to: Label = "NOT_SUPPORTED"
    claim_value: Place | None = None  # a contradiction: the claim's value, offsets in the claim
    span_value: Place | None = None  # and the span's other value, offsets in the span
    rests_on: Place | None = None  # the span words the proof rests on (role words and value)


class Flag(BaseModel):
    """A reason for a person to look (a specific the span does not state literally, a hedge
    dropped, an element joined on): it travels with the verdict and never changes it."""

    kind: str  # number | date | name | code | negation | opposite | modality | attribution | joined | now_then
    reason: str
    claim_words: str = ""  # the claim's words it concerns


class Verdict(BaseModel):
    verdict: Label
    unsupported_element: str | None = None
    quote_used: str | None = None
    contains_instructions: bool = False
    judge: str = ""  # the spec string, e.g. "rules" or "openai:gpt-4o-mini"
    model_id: str | None = None  # as reported by the endpoint
    prompt_sha256: str | None = None
    checks: list[CheckResult] = Field(default_factory=list)
    # Set when the judge could not produce a valid verdict. Such a verdict is
    # NOT_SUPPORTED for routing, is never published, and is counted as an error
    # in every metric rather than dropped from a denominator.
    error: str | None = None
    # A panel verdict (several judges combined by a policy) keeps each judge's audited
    # verdict here; None for a single judge.
    panel: list[Verdict] | None = None
    # The judge's probability for its own label (``judge_verdict``), from judges that give
    # one (the offline ``rules`` judge; an LLM endpoint that returns logprobs); None otherwise.
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    # The judge's own label before the code audit (the audit fills it in), so every figure
    # can be reported twice: what the judge read, and what publishes after the audit.
    judge_verdict: Label | None = None
    # Tokens this verdict cost when a model produced it live ({"prompt_tokens": n,
    # "completion_tokens": m}, summed over re-asks); None for offline judges and for verdicts
    # served from the cache, so summing it never double-counts.
    usage: dict[str, int] | None = None
    # What the code audit established (each lowered ``verdict`` below ``judge_verdict``) and
    # what it asks a person to look at (never changing ``verdict``); see graders.audit.
    proofs: list[Proof] = Field(default_factory=list)
    flags: list[Flag] = Field(default_factory=list)

    @property
    def supported(self) -> bool:
        return self.verdict == "SUPPORTED" and self.error is None

    @property
    def flagged(self) -> bool:
        return bool(self.flags)

    def flag_reasons(self, limit: int = 3) -> str:
        """The flags as one line for a reviewer ("needs a look: ...")."""
        parts = [f.reason for f in self.flags[:limit]]
        if len(self.flags) > limit:
            parts.append(f"{len(self.flags) - limit} more")
        return "; ".join(parts)


class SpanRef(BaseModel):
    """What a judge may see of a span: its text, where it came from and when. Nothing else."""

    text: str
    url: str | None = None
    retrieved_at: str | None = None


class Pair(BaseModel):
    """One line of a pair / calibration set (docs/architecture.md, file formats)."""

    id: str
    claim: str
    span: str
    label: Label | None = None
    near_miss: bool = False
    kind: str = ""
    source: dict[str, Any] | None = None
    rationale: str | None = None


@runtime_checkable
class Judge(Protocol):
    """Judges one (claim, span) pair. No tools, no question, no sibling claims.

    What the verdict cache keys on (``graders.cache.cache_key_for``) and the gate's replay
    memo reads; each must change whenever the judge's verdicts may change, or a stale verdict
    is served:

    - ``id``: the spec the judge was built from ("rules", "openai:gpt-4o-mini");
    - ``model_id``: the model as pinned (the endpoint's own answer goes on each Verdict);
      None for a judge that is code;
    - ``prompt_sha256``: the digest of its prompt, or of its code for a judge that is code;
    - ``endpoint``: the base URL it calls, None when it calls nothing (another endpoint is
      never answered from the cache);
    - ``code_version``: the digest of the code that turns a reply into a verdict, None when
      ``prompt_sha256`` already covers it.

    The quote obligation: a SUPPORTED verdict carries ``quote_used``, at most 25 words copied
    verbatim from the span. Code checks it (``graders.audit``): a SUPPORTED verdict whose
    quote is missing or not verbatim in the span is lowered to NOT_SUPPORTED by a proof. A
    judge that cannot quote cannot publish.

    ``JudgeBase`` gives the optional members their "nothing to say" defaults.
    """

    # read-only: a judge may hold any of them as a plain attribute, narrower (a str where
    # None is allowed) or a property
    @property
    def id(self) -> str: ...
    @property
    def model_id(self) -> str | None: ...
    @property
    def prompt_sha256(self) -> str | None: ...
    @property
    def endpoint(self) -> str | None: ...
    @property
    def code_version(self) -> str | None: ...

    async def judge(self, claim: str, span: SpanRef) -> Verdict: ...


class JudgeBase:
    """Defaults for the Judge protocol's optional members: a judge that calls no model and
    whose verdicts depend only on its ``id`` (override what does not hold)."""

    id: str = ""
    model_id: str | None = None
    prompt_sha256: str | None = None
    endpoint: str | None = None
    code_version: str | None = None
