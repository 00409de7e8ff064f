"""run_question: one question, end to end, to a stored run record.

collect (policy) -> draft (once) -> verify every (claim, span) in parallel ->
route -> optional targeted round for pruned sub-questions -> answer with gaps
-> ledger and metrics -> run store. The record is saved after every step with
status `interrupted` and marked `complete` only at the end.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from spanproof.agent.chat import ChatModel, make_chat_model
from spanproof.agent.extractive import LABEL as EXTRACTIVE_LABEL
from spanproof.agent.extractive import ExtractivePolicy
from spanproof.agent.fallback import fallback_draft
from spanproof.agent.ledger import build_ledger
from spanproof.agent.llm_policy import LlmAgent
from spanproof.agent.prices import Prices
from spanproof.agent.publish import (
    compute_metrics,
    finish_answer,
    pruned_subquestions,
    verify_draft,
)
from spanproof.agent.record import (
    Budgets,
    Draft,
    PartialMode,
    RunConfig,
    RunRecord,
    TraceEntry,
    load_prompt,
)
from spanproof.agent.runtime import Runtime

from spanproof.core.evidence import utc_now_iso
from spanproof.core.specs import EndpointSettings, parse_spec

if TYPE_CHECKING:
    from spanproof.agent.runstore import RunStore
    from spanproof.graders.verify import Verifier

    from spanproof.web.env import WebEnv

POLICIES = ("extractive", "llm")
PolicyName = Literal["extractive", "llm"]
ConvergenceMode = Literal["rules", "llm", "off"]


def new_run_id() -> str:
    """A UUID: unique across every runner that shares a store, with no coordination."""
    return str(uuid.uuid4())


def _chat(model: str | ChatModel | None, endpoint: EndpointSettings | None) -> ChatModel | None:
    if model is None:
        return None
    if isinstance(model, str):
        return make_chat_model(model, endpoint)
    return model


async def run_question(
    question: str,
    *,
    env: WebEnv,
    policy: PolicyName = "extractive",
    model: str | ChatModel | None = None,
    verifier: Verifier,
    budgets: Budgets | None = None,
    store: RunStore | None = None,
    endpoint: EndpointSettings | None = None,
    partial: PartialMode = "flag",
    convergence: ConvergenceMode | None = None,
    convergence_model: str | ChatModel | None = None,
    prices: Prices | None = None,
    targeted_round: bool = True,
    run_id: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> RunRecord:
    """Answer `question` with every published claim bound to a verified span.

    policy: "extractive" (deterministic baseline, no model) or "llm" (needs `model`:
    a spec such as "openai:gpt-4o-mini" / "scripted:path.json", or a ChatModel).
    convergence: "rules" | "llm" | "off" (default: "llm" for openai: models, else "rules").
    partial: what to do with PARTIAL claims — "flag" (publish marked), "narrow", "drop".
    """
    from spanproof.agent.tools import Toolbox

    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; use one of {', '.join(POLICIES)}")
    budgets = budgets or Budgets()
    chat = _chat(model, endpoint) if policy == "llm" else None
    if policy == "llm" and chat is None:
        raise ValueError("the llm policy needs a model, e.g. model='openai:gpt-4o-mini'")
    if convergence is None:
        is_openai = isinstance(model, str) and parse_spec(model).kind == "openai"
        convergence = "llm" if policy == "llm" and is_openai else "rules"
    small = _chat(convergence_model, endpoint) or chat
    config = RunConfig(
        policy=policy,
        model=chat.id if chat is not None else None,
        convergence=convergence,
        convergence_model=small.id if small is not None and convergence == "llm" else None,
        judges=[j.id for j in verifier.judges] or [verifier.id],
        partial=partial,
        budgets=budgets,
        prices=prices or Prices(),
        targeted_round=targeted_round,
        web=type(env.search).__name__,
    )
    record = RunRecord(run_id=run_id or new_run_id(), question=question, config=config)
    # Both prompts are hashed on every run, whichever policy used them.
    record.prompt_hashes["agent_system"] = load_prompt("agent_system.txt")[1]
    record.prompt_hashes["convergence"] = load_prompt("convergence.txt")[1]
    rt = Runtime(Toolbox(env, question, max_spans=budgets.spans), budgets, record, store, progress)
    rt.sync()
    draft: Draft | None
    try:
        if policy == "extractive":
            pol = ExtractivePolicy(rt)
            await pol.collect()
            draft = await pol.draft()
            label = EXTRACTIVE_LABEL
        else:
            assert chat is not None  # the llm policy without a model was refused above
            agent = LlmAgent(rt, chat, convergence=convergence, small_model=small)
            draft = await agent.run()
            label = f"Model-led answer ({chat.id})."
            if draft is None:
                draft = fallback_draft(rt, record.ended_by or rt.meter.exhausted or "no draft")
                label += " The model submitted no draft; the runtime restated its quoted spans."
        record.ended_by = record.ended_by or rt.meter.exhausted or rt.meter.draft_forced or "draft"
        if progress:
            progress(f"verify  {sum(len(c.span_ids) for c in draft.claims)} (claim, span) pair(s)")
        rt.sync()  # publication reads every fetched page (agent.slot_conflicts)
        await verify_draft(
            record, draft, verifier, partial=partial,
            claim_subquestions=rt.claim_subquestions if policy == "extractive" else None,
            snapshots=env.store,
        )  # fmt: skip
        rt.sync(save=False)  # saved before the targeted round's first call, or complete below
        pruned = pruned_subquestions(record)
        left = rt.meter.remaining()
        has_room = (
            left["searches"] > 0
            and left["fetches"] > 0
            and left["tool_calls"] > budgets.draft_reserve + 1
        )
        if targeted_round and pruned and has_room and not rt.meter.spend_exhausted:
            record.trace.append(
                TraceEntry(
                    step=len(record.trace) + 1,
                    kind="note",
                    result_summary=f"targeted round for pruned sub-questions {[i + 1 for i in pruned]}",
                )
            )
            rt.sync()
            if policy == "extractive":
                supplement, mapping = await pol.targeted_round(pruned)
            else:
                supplement = await agent.targeted_round([record.subquestions[i] for i in pruned])
                mapping = None
            if supplement is not None and supplement.claims:
                await verify_draft(
                    record,
                    supplement,
                    verifier,
                    partial=partial,
                    claim_subquestions=mapping,
                    round_no=2,
                    snapshots=env.store,
                )
        rt.sync(save=False)  # saved complete below, nothing awaited between
        finish_answer(record, label)
        record.ledger = build_ledger(record)
        record.metrics = compute_metrics(record)
        # A model that failed (HTTP errors, never calling tools) did not answer: the run failed,
        # whatever the runtime could restate from the spans it had.
        record.status = "failed" if record.ended_by == "model_error" else "complete"
        record.finished_at = utc_now_iso()
    except (asyncio.CancelledError, KeyboardInterrupt):
        record.status = "interrupted"
        record.errors.append("run interrupted")
        if store is not None:
            store.save(record)
        raise
    except Exception as exc:
        record.status = "failed"
        record.errors.append(f"{type(exc).__name__}: {exc}")
        record.finished_at = utc_now_iso()
        if store is not None:
            store.save(record)
        raise
    if store is not None:
        store.save(record)
    return record
