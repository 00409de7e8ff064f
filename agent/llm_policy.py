"""The model-led policy: a chat model drives the run's tools until it submits one draft.

Each turn's tool calls go through the runtime's dispatcher (budgets, schemas,
trace); this module only talks to the model: the system prompt with the run's
budgets filled in, the remaining budget after every tool result, the drafting
phase announced once, a nudge when the model answers without calling tools, and
each convergence next action told once.
"""

from __future__ import annotations

import time
from string import Template

from spanproof.agent.chat import (
    ChatModel,
    ChatModelError,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from spanproof.agent.convergence import subquestions_from_text
from spanproof.agent.dispatch import Call
from spanproof.agent.record import Budgets, Draft, load_prompt
from spanproof.agent.runtime import Runtime


def system_prompt(budgets: Budgets) -> tuple[str, str]:
    text, sha = load_prompt("agent_system.txt")
    filled = Template(text).substitute(
        max_subquestions=budgets.max_subquestions,
        searches=budgets.searches,
        fetches=budgets.fetches,
        tool_calls=budgets.tool_calls,
        spans=budgets.spans,
        tokens=budgets.tokens,
        draft_reserve=budgets.draft_reserve,
    )
    return filled, sha


class LlmAgent:
    """Drives a ChatModel through the runtime until it submits one valid draft."""

    def __init__(
        self,
        rt: Runtime,
        model: ChatModel,
        *,
        convergence: str = "rules",
        small_model: ChatModel | None = None,
        max_nudges: int = 2,
    ):
        self.rt = rt
        self.model = model
        self.convergence = convergence
        self.small_model = small_model
        self.max_nudges = max_nudges
        prompt, sha = system_prompt(rt.budgets)
        rt.record.prompt_hashes["agent_system"] = sha
        rt.record.prompt_hashes["convergence"] = load_prompt("convergence.txt")[1]
        self.messages: list[Message] = [
            SystemMessage(content=prompt),
            UserMessage(content=f"Question: {rt.record.question}"),
        ]
        self.iterations = 0
        self._announced_draft_phase = False
        self._told_action: str | None = None

    def tools(self) -> list[dict]:
        if self.rt.meter.draft_only:
            return [Draft.tool_schema()]
        return list(self.rt.tb.tool_schemas()) + [Draft.tool_schema()]

    async def _execute(self, calls: list[ToolCall]) -> list[ToolMessage]:
        outcomes = await self.rt.tools.run([Call.from_model(c) for c in calls], origin="model")
        line = self.rt.meter.line()
        return [
            ToolMessage(tool_call_id=c.id, name=c.name, content=o.text + "\n\n" + line)
            for c, o in zip(calls, outcomes, strict=True)
        ]

    async def run(self) -> Draft | None:
        rt = self.rt
        nudges = 0
        while not rt.drafted:
            if rt.meter.spend_exhausted:
                rt.record.ended_by = rt.record.ended_by or rt.meter.exhausted or "budget:tokens"
                return None
            if rt.meter.remaining()["tool_calls"] <= 0:
                return None
            if rt.meter.draft_only and not self._announced_draft_phase:
                self._announced_draft_phase = True
                why = rt.meter.exhausted or rt.meter.draft_forced or "tool-call reserve reached"
                self.messages.append(
                    UserMessage(
                        content=f"Drafting phase ({why}). Call draft_answer now with the spans you have; mark unresolved sub-questions in the summary.\n{rt.meter.line()}"
                    )
                )
            t0 = time.perf_counter()
            try:
                turn = await self.model.complete(self.messages, self.tools(), temperature=0)
            except ChatModelError as exc:
                rt.record.errors.append(str(exc))
                rt.record.ended_by = "model_error"
                return None
            rt.note_model_turn(turn, (time.perf_counter() - t0) * 1000)
            self.iterations += 1
            if self.iterations == 1:
                stated = subquestions_from_text(turn.content, rt.budgets.max_subquestions)
                if stated:
                    rt.subquestions = stated
                rt.ensure_subquestions()
            self.messages.append(turn.as_message())
            if not turn.tool_calls:
                nudges += 1
                if nudges > self.max_nudges:
                    rt.record.ended_by = "no_tool_calls"
                    return None
                self.messages.append(
                    UserMessage(
                        content="Use the tools. Quote spans with extract_quote and finish by calling draft_answer.\n"
                        + rt.meter.line()
                    )
                )
                continue
            self.messages.extend(await self._execute(turn.tool_calls))
            if rt.drafted:
                break
            if rt.meter.draft_only:
                continue
            if rt.stall.stalled:
                await rt.converge(
                    self.convergence if self.convergence != "off" else "rules",
                    self.small_model,
                    "stall",
                )
            elif self.convergence != "off" and self.iterations >= 2:
                await rt.converge(self.convergence, self.small_model, "iteration")
            last = rt.record.convergence[-1] if rt.record.convergence else None
            fresh = rt.record.trace[-1].kind in ("convergence", "stall")
            if (
                last
                and fresh
                and last.decision == "CONTINUE"
                and last.next_action != self._told_action
            ):
                # Tell the model the next action once, not after every turn.
                self._told_action = last.next_action
                self.messages.append(
                    UserMessage(
                        content=f"Convergence check: CONTINUE. Next action: {last.next_action}. "
                        f"Reason: {last.reason}"
                    )
                )
        return rt.current_draft()

    async def targeted_round(self, subquestions: list[str]) -> Draft | None:
        """One more bounded round for sub-questions whose only support was pruned."""
        rt = self.rt
        rt.start_targeted_round()
        self._announced_draft_phase = False
        listed = "\n".join(f"- {s}" for s in subquestions)
        self.messages.append(
            UserMessage(
                content=(
                    "Verification dropped the only support for these sub-questions:\n"
                    + listed
                    + "\nDo one targeted search round for them only (different sources or terms than before), "
                    "then call draft_answer with new claims for these sub-questions only.\n"
                    + rt.meter.line()
                )
            )
        )
        return await self.run()
