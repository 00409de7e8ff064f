"""The research agent: tools, egress, snapshots, offline web, loop, policies, model layer, run store.

from spanproof.agent import Services, run_question
parts = Services(home)               # the store, verdict cache, verifier and web of one home
env = parts.offline_web()
record = await run_question("...", env=env, verifier=parts.verifier(["rules"]), store=parts.runs())

The names below are imported on first use: a command that needs one part of the agent
(``spanproof verify`` takes only ``Services``) does not import the loop, the tools, the web
environment and the run store with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spanproof.core.lazy import lazy_exports

if TYPE_CHECKING:
    from spanproof.agent.chat import ScriptedChatModel, make_chat_model
    from spanproof.agent.record import Budgets, RunRecord
    from spanproof.agent.run import run_question
    from spanproof.agent.runstore import RunStore
    from spanproof.agent.services import Services
    from spanproof.agent.tools import Toolbox

    from spanproof.core.evidence import Document, SearchHit, Span
    from spanproof.web.egress import EgressPolicy, Fetcher
    from spanproof.web.env import WebEnv, live_web, offline_web
    from spanproof.web.search import LocalIndex, SearxngSearch, StaticSearch
    from spanproof.web.snapshots import SnapshotStore

# name -> the module it is imported from
_WHERE = {
    "ScriptedChatModel": "spanproof.agent.chat",
    "make_chat_model": "spanproof.agent.chat",
    "Budgets": "spanproof.agent.record",
    "RunRecord": "spanproof.agent.record",
    "run_question": "spanproof.agent.run",
    "RunStore": "spanproof.agent.runstore",
    "Services": "spanproof.agent.services",
    "Toolbox": "spanproof.agent.tools",
    "Document": "spanproof.core.evidence",
    "SearchHit": "spanproof.core.evidence",
    "Span": "spanproof.core.evidence",
    "EgressPolicy": "spanproof.web.egress",
    "Fetcher": "spanproof.web.egress",
    "WebEnv": "spanproof.web.env",
    "live_web": "spanproof.web.env",
    "offline_web": "spanproof.web.env",
    "LocalIndex": "spanproof.web.search",
    "SearxngSearch": "spanproof.web.search",
    "StaticSearch": "spanproof.web.search",
    "SnapshotStore": "spanproof.web.snapshots",
}


__getattr__, __dir__ = lazy_exports(globals(), _WHERE)


__all__ = [
    "Budgets",
    "Document",
    "EgressPolicy",
    "Fetcher",
    "LocalIndex",
    "RunRecord",
    "RunStore",
    "ScriptedChatModel",
    "SearchHit",
    "SearxngSearch",
    "Services",
    "SnapshotStore",
    "Span",
    "StaticSearch",
    "Toolbox",
    "WebEnv",
    "live_web",
    "make_chat_model",
    "offline_web",
    "run_question",
]
