"""A run is saved after every step, once: a save that the next save overwrites before the event
loop has run anything else could never be the record a stop leaves, and with runs side by side
each such write held every other run back."""

from __future__ import annotations

import asyncio

from spanproof.agent.record import RunRecord
from spanproof.agent.run import run_question
from spanproof.agent.runstore import RunStore

from spanproof.core.specs import EndpointSettings
from spanproof.wire import forget_clients

from ..wire.server import ChatServer
from .conftest import build_env
from .test_money_on_purpose import research_model


async def test_no_save_is_overwritten_before_the_loop_turns(tmp_path, monkeypatch):
    from spanproof.graders.judges import make_judge
    from spanproof.graders.verify import Verifier

    loop = asyncio.get_running_loop()
    turns = 0

    def turn() -> None:  # runs once per turn of the event loop
        nonlocal turns
        turns += 1
        loop.call_soon(turn)

    loop.call_soon(turn)
    saves: list[tuple[int, str, str | None]] = []
    save = RunStore.save

    def noted(self: RunStore, record: RunRecord) -> None:
        saves.append((turns, record.status, record.ended_by))
        save(self, record)

    monkeypatch.setattr(RunStore, "save", noted)
    forget_clients()
    usage = {"prompt_tokens": 900, "completion_tokens": 40, "total_tokens": 940}
    with ChatServer(research_model(usage)) as server:
        record = await run_question(
            "When did the Larkspur Bridge open?", env=build_env(tmp_path), policy="llm",
            model="openai:gpt-4o", verifier=Verifier([make_judge("rules")]),
            endpoint=EndpointSettings(base_url=server.base_url, api_key="local"),
            store=RunStore.default(home=tmp_path),
        )  # fmt: skip
    assert record.status == "complete" and record.convergence  # the convergence check ran
    assert saves[-1][1] == "complete" and len(saves) > 3
    # Two saves in one turn only where the second records that research ended (the draft
    # tool's save, then the run's reason for stopping before publication is judged).
    same_turn = [(saves[i - 1], saves[i]) for i in range(1, len(saves))
                 if saves[i][0] == saves[i - 1][0]]  # fmt: skip
    assert all(not a[2] and b[2] for a, b in same_turn), same_turn
    stored = RunStore.default(home=tmp_path).get(record.run_id)
    assert stored.model_dump(exclude={"provenance"}) == record.model_dump(exclude={"provenance"})
