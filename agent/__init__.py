"""The research agent: tools, egress, snapshots, offline web, loop, policies, model layer, run store.

from spanproof.agent import offline_web, run_question
env = offline_web(home)
record = await run_question("...", env=env, verifier=verifier)
"""

from spanproof.lazy import lazy_exports

_EXPORTS = {
    "run_question": "spanproof.agent.run",
    "RunRecord": "spanproof.agent.record",
    "Budgets": "spanproof.agent.record",
    "RunStore": "spanproof.agent.runstore",
    "Toolbox": "spanproof.agent.tools",
    "WebEnv": "spanproof.agent.web",
    "offline_web": "spanproof.agent.web",
    "live_web": "spanproof.agent.web",
    "SnapshotStore": "spanproof.agent.snapshots",
    "Fetcher": "spanproof.agent.egress",
    "EgressPolicy": "spanproof.agent.egress",
    "LocalIndex": "spanproof.agent.search",
    "SearxngSearch": "spanproof.agent.search",
    "StaticSearch": "spanproof.agent.search",
    "make_chat_model": "spanproof.agent.chat",
    "ScriptedChatModel": "spanproof.agent.chat",
    "Document": "spanproof.agent.evidence",
    "Span": "spanproof.agent.evidence",
    "SearchHit": "spanproof.agent.evidence",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
