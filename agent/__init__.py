"""The research agent: tools, egress, snapshots, offline web, loop, policies, model layer, run store.

from spanproof.agent import Services, run_question
parts = Services(home)               # the store, verdict cache, verifier and web of one home
env = parts.offline_web()
record = await run_question("...", env=env, verifier=parts.verifier(["rules"]), store=parts.runs())
"""

from spanproof.core.lazy import lazy_exports

_EXPORTS = {
    "run_question": "spanproof.agent.run",
    "RunRecord": "spanproof.agent.record",
    "Budgets": "spanproof.agent.record",
    "RunStore": "spanproof.agent.runstore",
    "Services": "spanproof.agent.services",
    "Toolbox": "spanproof.agent.tools",
    "WebEnv": "spanproof.web.env",
    "offline_web": "spanproof.web.env",
    "live_web": "spanproof.web.env",
    "SnapshotStore": "spanproof.web.snapshots",
    "Fetcher": "spanproof.web.egress",
    "EgressPolicy": "spanproof.web.egress",
    "LocalIndex": "spanproof.web.search",
    "SearxngSearch": "spanproof.web.search",
    "StaticSearch": "spanproof.web.search",
    "make_chat_model": "spanproof.agent.chat",
    "ScriptedChatModel": "spanproof.agent.chat",
    "Document": "spanproof.core.evidence",
    "Span": "spanproof.core.evidence",
    "SearchHit": "spanproof.core.evidence",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
