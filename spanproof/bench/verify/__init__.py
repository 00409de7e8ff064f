"""`verify` as a library: judge a file of (claim, span) pairs with one or more judges, every
verdict audited by code and cached, the summary typed; ``verify_pairs`` is the one call
(bench.verify.job describes the steps)."""

from spanproof.bench.verify.events import (
    BadLines,
    EventSink,
    JudgingEnded,
    JudgingStarted,
    Notice,
    PairJudged,
    Stopped,
    VerifyEvent,
)
from spanproof.bench.verify.job import verify_pairs
from spanproof.bench.verify.outcome import VerifyOutcome
from spanproof.bench.verify.request import Runner, VerifyFailed, VerifyRequest
from spanproof.bench.verify.summary import LabelFigures, VerifySummary, label_metrics
from spanproof.bench.verify.tally import Tally

__all__ = [
    "BadLines",
    "EventSink",
    "JudgingEnded",
    "JudgingStarted",
    "LabelFigures",
    "Notice",
    "PairJudged",
    "Runner",
    "Stopped",
    "Tally",
    "VerifyEvent",
    "VerifyFailed",
    "VerifyOutcome",
    "VerifyRequest",
    "VerifySummary",
    "label_metrics",
    "verify_pairs",
]
