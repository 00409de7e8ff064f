"""Shared fixtures: one real offline run record (extractive policy, rules judge) per module."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WICE = Path("/work/shared/data/wice/dev.jsonl")


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory) -> Path:
    shipped = REPO / "goldens" / "corpus"
    if (shipped / "corpus.warc.gz").is_file():
        return shipped
    from agent.corpus import build_corpus_from_wice

    out = tmp_path_factory.mktemp("corpus")
    build_corpus_from_wice(WICE, out)
    return out


@pytest.fixture(scope="session")
def real_run(tmp_path_factory, corpus_dir):
    """(record, env, home) for one golden question answered offline."""
    from agent.run import run_question
    from agent.web import offline_web
    from graders.judges import make_judge
    from graders.verify import Verifier

    home = tmp_path_factory.mktemp("runhome")

    async def go():
        env = offline_web(home, corpus_dir)
        verifier = Verifier([make_judge("rules")], cache=None)
        rec = await run_question(
            "When did the nurse Marion Leane Smith die, and where was she living?",
            env=env,
            verifier=verifier,
        )
        return rec, env

    rec, env = asyncio.run(go())
    return rec, env, home
