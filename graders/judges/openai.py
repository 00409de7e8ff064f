"""``openai:<model>``: any OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp server, Ollama)
asked the verifier prompt (graders.openai_judge); base URL and key from the endpoint settings
or OPENAI_BASE_URL / OPENAI_API_KEY."""

from __future__ import annotations

from spanproof.graders.judges.registry import judge

from spanproof.core.specs import EndpointSettings
from spanproof.core.verdict import Judge


@judge(
    "openai",
    summary="a model behind any OpenAI-compatible endpoint, asked the verifier prompt",
    argument="<model>",
    local=False,
    deterministic=False,
)
def build_openai(argument: str, endpoint: EndpointSettings) -> Judge:
    # imported when built: the HTTP client stack is not needed by offline judges
    from spanproof.graders.openai_judge import OpenAIJudge

    return OpenAIJudge(argument, endpoint=endpoint)
