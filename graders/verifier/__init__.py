"""The verifier: judges, the code audit (quote, specifics, instructions), the verdict cache. Below the agent; tool-less by construction."""
