"""The Verifier: judges each (claim, span) with one or more judges, audits, caches, in parallel.

- Each judge sees only the claim and the span (text, url, retrieved_at). Nothing else.
- Every judge verdict goes through graders.audit.audit: proofs (quote, contradiction by role,
  instructions) lower it; flags travel with it.
- Verdicts are cached by graders.cache.cache_key_for (endpoint, judge, model, prompt, claim, span); ``model_calls``
  counts judge invocations that were not answered from the cache, ``cache_hits`` the others;
  ``prompt_tokens`` / ``completion_tokens`` sum ``Verdict.usage`` of live calls only.
- Pairs are independent and run concurrently; at most ``concurrency`` judge calls are in
  flight at once.
- With a ``findings`` source (graders.audit_pool: worker processes), the audit's costly,
  verdict-independent part is asked for as each pair starts and computed there while the
  pair's judges answer; the audit then applies it to each verdict, with the same result.
- A judge that raises is turned into an explicit error verdict (NOT_SUPPORTED with ``error``
  set) — never a pass and never dropped — except a JudgeConfigError (e.g. a scripted judge
  with no entry for a pair), which propagates because it is a setup mistake, not a result.

Panel policy with several judges: ``all-must-support`` — the combined verdict is the weakest
of the judges' audited verdicts (an error counts as the weakest), ``contains_instructions``
is set if any judge or audit set it, ``error`` is set if any judge errored, and the per-judge
verdicts are kept in ``Verdict.panel``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Protocol

from spanproof.graders.audit import audit, weakest
from spanproof.graders.cache import VerdictCache, cache_key_for
from spanproof.graders.errors import JudgeConfigError
from spanproof.graders.findings_model import PairFindings
from spanproof.graders.judges.context import current_pair_id, current_repeat

from spanproof.core.verdict import Judge, SpanRef, Verdict
from spanproof.wire.limiter import LoopSemaphore


class FindingsSource(Protocol):
    """Where the verifier gets a pair's findings (graders.findings.pair_findings) from, when not
    computing them itself: the audit's worker processes (graders.audit_pool)."""

    async def findings(self, claim: str, span_text: str) -> PairFindings: ...


class VerdictStore(Protocol):
    """Where the verifier keeps verdicts by key: the store's VerdictCache, or a worker's own."""

    def get(self, key: str) -> Verdict | None: ...

    def put(self, key: str, verdict: Verdict) -> None: ...


POLICIES = ("all-must-support",)

Item = tuple[str, SpanRef] | tuple[str, SpanRef, str | None]


class Verifier:
    def __init__(
        self,
        judges: list[Judge],
        *,
        cache: VerdictStore | None = None,
        concurrency: int = 8,
        policy: str = "all-must-support",
        findings: FindingsSource | None = None,
    ) -> None:
        if not judges:
            raise ValueError("Verifier needs at least one judge (e.g. make_judge('rules')).")
        if policy not in POLICIES:
            raise ValueError(f"Unknown panel policy {policy!r}; known: {', '.join(POLICIES)}.")
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.judges = list(judges)
        self.cache = cache
        self.concurrency = concurrency
        self.policy = policy
        # with a source, each pair's findings are asked for as the pair starts, so they are
        # computed elsewhere while its judges are answering
        self.findings = findings
        self.model_calls = 0
        self.cache_hits = 0
        self.errors = 0
        # tokens of live model calls only (cache hits cost nothing)
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self._slots = LoopSemaphore(concurrency)
        if findings is None:  # else the tables are read where the findings are computed
            from spanproof.graders.specifics.slot_reader import load_tables

            load_tables()  # once per process, here rather than inside the first pair's audit

    @property
    def id(self) -> str:
        ids = [j.id for j in self.judges]
        return ids[0] if len(ids) == 1 else f"panel[{self.policy}]:" + "+".join(ids)

    def _semaphore(self) -> asyncio.Semaphore:
        # One semaphore per event loop, so a Verifier can serve several asyncio.run() calls.
        return self._slots.get()

    async def _one(
        self,
        judge: Judge,
        claim: str,
        span: SpanRef,
        repeat: int = 0,
        found: asyncio.Future[PairFindings] | None = None,
    ) -> Verdict:
        # A local judge computes without ever suspending: yield to the event loop once a pair,
        # so a signal (Ctrl-C, SIGTERM) or a deadline stops a large set within a pair, not at
        # its end.
        await asyncio.sleep(0)
        key = cache_key_for(judge, claim, span, repeat)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.cache_hits += 1
                # the name it is given now (the cache keys on the spec, not on the name)
                hit = hit.model_copy(update={"usage": None, "judge": judge.id})
                return audit(claim, span, hit, await found if found is not None else None)
        async with self._semaphore():
            self.model_calls += 1
            try:
                raw = await judge.judge(claim, span)
            except JudgeConfigError:
                raise
            except Exception as exc:  # a failed judge is an explicit error verdict
                raw = Verdict(
                    verdict="NOT_SUPPORTED",
                    judge=judge.id,
                    model_id=judge.model_id,
                    prompt_sha256=judge.prompt_sha256,
                    error=f"{type(exc).__name__}: {exc}",
                )
        if raw.usage:
            self.prompt_tokens += raw.usage.get("prompt_tokens", 0)
            self.completion_tokens += raw.usage.get("completion_tokens", 0)
        if raw.error is not None:
            self.errors += 1
        elif self.cache is not None:
            self.cache.put(key, raw)
        return audit(claim, span, raw, await found if found is not None else None)

    async def verify(
        self, claim: str, span: SpanRef, *, pair_id: str | None = None, repeat: int = 0
    ) -> Verdict:
        """``repeat``: which sample of this pair (0 for a single judgement); each sample is
        cached under its own key, so ``--repeat N`` asks a non-deterministic judge N times."""
        token = current_pair_id.set(pair_id)
        rtoken = current_repeat.set(repeat)
        found = None
        if self.findings is not None:
            found = asyncio.ensure_future(self.findings.findings(claim, span.text))
        try:
            verdicts = list(
                await asyncio.gather(
                    *(self._one(j, claim, span, repeat, found) for j in self.judges)
                )
            )
        finally:
            current_repeat.reset(rtoken)
            current_pair_id.reset(token)
            if found is not None:
                if not found.done():
                    found.cancel()  # a judge raised (a setup mistake): nobody will read it
                elif not found.cancelled():
                    # read, so that an audit that failed while this pair was stopped (a dead
                    # worker fails every pair in flight) is reported once, by the run, not as
                    # one "exception was never retrieved" traceback per pair
                    found.exception()
        if len(verdicts) == 1:
            return verdicts[0]
        return self._combine(verdicts)

    def _combine(self, verdicts: list[Verdict]) -> Verdict:
        low = weakest(verdicts)
        errors = [f"{v.judge}: {v.error}" for v in verdicts if v.error]
        own = [v.judge_verdict for v in verdicts if v.judge_verdict is not None]
        rank = {"NOT_SUPPORTED": 0, "PARTIAL": 1, "SUPPORTED": 2}
        return Verdict(
            verdict=low.verdict,
            # the panel's own label: the weakest of its judges' labels before the audit
            judge_verdict=min(own, key=rank.__getitem__) if len(own) == len(verdicts) else None,
            unsupported_element=low.unsupported_element,
            quote_used=low.quote_used,
            contains_instructions=any(v.contains_instructions for v in verdicts),
            judge=self.id,
            model_id=None,
            prompt_sha256=None,
            checks=[c for v in verdicts for c in v.checks],
            error="; ".join(errors) or None,
            panel=verdicts,
            # what code proved and flagged is about the pair, not the judge: once each
            proofs=list({p.model_dump_json(): p for v in verdicts for p in v.proofs}.values()),
            flags=list({f.model_dump_json(): f for v in verdicts for f in v.flags}.values()),
        )

    async def verify_many(
        self,
        items: Sequence[Item],
        progress: Callable[[int, Verdict], None] | None = None,
        *,
        repeat: int = 0,
    ) -> list[Verdict]:
        """Verify every item concurrently; results are in input order.

        An item is ``(claim, span)`` or ``(claim, span, pair_id)``. ``progress`` is called as
        ``progress(index, verdict)`` each time a pair finishes (in completion order).
        """

        async def run(i: int, item: Item) -> Verdict:
            claim, span = item[0], item[1]
            pair_id = item[2] if len(item) > 2 else None
            v = await self.verify(claim, span, pair_id=pair_id, repeat=repeat)
            if progress is not None:
                progress(i, v)
            return v

        if not isinstance(self.cache, VerdictCache):  # no cache, or one that reads key by key
            return list(await asyncio.gather(*(run(i, it) for i, it in enumerate(items))))
        # one read of every verdict these pairs have, one write of the new ones
        keys = [cache_key_for(j, it[0], it[1], repeat) for it in items for j in self.judges]
        with self.cache.batch(keys):
            return list(await asyncio.gather(*(run(i, it) for i, it in enumerate(items))))
