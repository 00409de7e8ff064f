"""The research agent: tools, egress, snapshots, offline web, loop, policies, model layer, run store.

from spanproof.agent import Services, run_question
parts = Services(home)               # the store, verdict cache, verifier and web of one home
env = parts.offline_web()
record = await run_question("...", env=env, verifier=parts.verifier(["rules"]), store=parts.runs())
"""

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
