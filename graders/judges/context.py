"""What a judge may learn about the pair besides claim and span: nothing, except a scripted
judge, which replays by pair id and by sample. Context variables keep this out of the Judge
protocol, so no judge can see anything but claim and span through it."""

from __future__ import annotations

import contextvars

# The id of the pair being judged, when the caller knows it (set by the Verifier). Judges
# never need it except ScriptedJudge, which may be keyed by pair id; a context variable
# keeps it out of the Judge protocol so no judge can see anything but claim and span.
current_pair_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "spanproof_current_pair_id", default=None
)


# Which sample of a pair is being judged (0 unless the caller asked for repeats); read only by
# ScriptedJudge, to replay a judge whose answers vary between samples.
current_repeat: contextvars.ContextVar[int] = contextvars.ContextVar(
    "spanproof_current_repeat", default=0
)
