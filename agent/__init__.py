"""The research agent: tools, egress, snapshots, offline web, loop, policies, model layer, run store.

    from agent import offline_web, run_question
    env = offline_web(home)
    record = await run_question("...", env=env, verifier=verifier)
"""

from spanproof.lazy import lazy_exports

_EXPORTS = {
    "run_question": "agent.run",
    "RunRecord": "agent.record",
    "Budgets": "agent.record",
    "RunStore": "agent.runstore",
    "Toolbox": "agent.tools",
    "WebEnv": "agent.web",
    "offline_web": "agent.web",
    "live_web": "agent.web",
    "SnapshotStore": "agent.snapshots",
    "Fetcher": "agent.egress",
    "EgressPolicy": "agent.egress",
    "LocalIndex": "agent.search",
    "SearxngSearch": "agent.search",
    "StaticSearch": "agent.search",
    "make_chat_model": "agent.chat",
    "ScriptedChatModel": "agent.chat",
    "Document": "agent.evidence",
    "Span": "agent.evidence",
    "SearchHit": "agent.evidence",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
