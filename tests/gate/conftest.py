"""Shared fixtures: one real offline run record (extractive policy, rules judge) per module."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


WICE = REPO.parent / "shared" / "data" / "wice" / "dev.jsonl"


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory) -> Path:
    shipped = REPO / "goldens" / "corpus"
    if (shipped / "corpus.warc.gz").is_file():
        return shipped
    from spanproof.web.corpus import build_corpus_from_wice

    out = tmp_path_factory.mktemp("corpus")
    build_corpus_from_wice(WICE, out)
    return out


@pytest.fixture(scope="session")
def real_run(tmp_path_factory, corpus_dir):
    """(record, env, home) for one golden question answered offline."""
    from spanproof.agent.run import run_question
    from spanproof.graders.judges import make_judge
    from spanproof.graders.verify import Verifier

    from spanproof.web.env import offline_web

    home = tmp_path_factory.mktemp("runhome")

    questions = [
        "When did the nurse Marion Leane Smith die, and where was she living?",
        "When did Secret City season 2 come to Netflix, and when did it start airing in Australia?",
        "Who did the Odessa Jackalopes hire as head coach in May 2019?",
    ]

    async def go():
        # The planted-failure tests need a run that searched, fetched, quoted and drafted.
        env = offline_web(home, corpus_dir)
        verifier = Verifier([make_judge("rules")], cache=None)
        for q in questions:
            rec = await run_question(q, env=env, verifier=verifier)
            if (
                len(rec.spans) >= 2
                and rec.draft is not None
                and rec.draft.claims
                and rec.answer.claims
            ):
                return rec, env
        raise AssertionError(
            f"no offline run quoted and drafted anything for {questions}; is the agent broken?"
        )

    rec, env = asyncio.run(go())
    return rec, env, home
