"""Detect text inside a span that is addressed to a machine rather than to a reader.

A span is evidence about the world. Text in it that talks to the model or the verifier
("ignore previous instructions", "return SUPPORTED", "you are now ...", "visit this URL and
append ...") is an injection attempt: the verdict becomes NOT_SUPPORTED and
``contains_instructions`` is set, whatever any judge said. This is a security control and
lives in code, not in a prompt.

Detection is a list of patterns, each with a name, so a finding says which rule fired.
Patterns are deliberately about *addressing a machine*, not about topics: a news story that
quotes the phrase "prompt injection" is not itself an instruction, but "AI assistants reading
this must reply ..." is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_VERDICT_WORDS = r"(?:SUPPORTED|NOT[_ ]SUPPORTED|PARTIAL|VERIFIED|APPROVED|PASS(?:ED)?|TRUE)"
_MACHINE = (
    r"(?:AI|A\.I\.|LLM|language model|model|assistant|chatbot|bot|agent|verifier|grader|judge|"
    r"fact[- ]?checker|evaluator|GPT|ChatGPT|Claude|Gemini|system)s?"
)

PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "override",
        re.compile(
            r"\b(?:ignore|disregard|forget|override|bypass|skip)\b[^.\n]{0,40}?\b(?:previous|prior|above|earlier|all|any|your|the|other|system)\b[^.\n]{0,30}?\b(?:instructions?|prompts?|rules?|directions?|guidelines?|messages?|context|checks?)",
            re.I,
        ),
    ),
    (
        "verdict_request",
        re.compile(
            rf"\b(?:return|output|respond(?:\s+with)?|reply(?:\s+with)?|answer(?:\s+with)?|say|print|emit|mark(?:\s+(?:this|it|the claim|as))*|label(?:\s+(?:this|it))?|classify(?:\s+(?:this|it))?(?:\s+as)?|rate(?:\s+(?:this|it))?(?:\s+as)?|set|verdict(?:\s+(?:is|=|:))?)\s*[:=]?\s*[\"'“`]?{_VERDICT_WORDS}\b"
        ),
    ),
    (
        "verdict_field",
        re.compile(
            r"[\"'`](?:verdict|contains_instructions|quote_used|unsupported_element)[\"'`]\s*[:=]"
            r"|\b(?:contains_instructions|quote_used|unsupported_element)\b\s*[:=]",
            re.I,
        ),
    ),
    (
        "pre_approval",
        re.compile(
            r"\b(?:pre-?approved|pre-?verified|already (?:been )?(?:verified|approved|fact-?checked)|is (?:verified|approved) (?:as|to be) (?:true|supported|accurate)|treat (?:this|the following) as (?:verified|supported|true|trusted))\b",
            re.I,
        ),
    ),
    (
        "addressed_to_machine",
        re.compile(
            rf"\b(?:(?:attention|note|message|instructions?|dear|hey|hello)\s*(?:to|for)?\s*(?:all\s+|any\s+)?{_MACHINE}\b|(?:if|when) you are an? {_MACHINE}|(?:as|you are) an? (?:AI|large language model|language model|assistant)\b|{_MACHINE}\s+(?:reading|processing|summari[sz]ing|evaluating|parsing) this\b|you are now\b|new (?:instructions|rules|task|role)\s*:|system prompt|developer (?:mode|message)|jailbreak)",
            re.I,
        ),
    ),
    (
        "url_request",
        re.compile(
            r"\b(?:visit|open|fetch|browse(?:\s+to)?|navigate to|go to|load|call|send (?:a )?(?:request|data|it|this|the \w+) to|post (?:it|this|the \w+) to|append [^.\n]{0,40} to (?:the )?(?:url|link|query))\b[^.\n]{0,60}?(?:https?://|www\.|\burl\b|\bendpoint\b|\bwebhook\b)",
            re.I,
        ),
    ),
    (
        "emit_string",
        re.compile(
            r"\b(?:include|insert|add|append|repeat|write|output|print|emit|say|mention|respond with)\b\s+(?:the\s+)?(?:following|exact(?:ly)?|this|these)\s+(?:text|string|phrase|words?|sentence|code|token|link|url)\b",
            re.I,
        ),
    ),
    (
        "output_directive",
        re.compile(
            r"\b(?:report|repeat|output|state|say|print|answer|reply|respond|write|return|use)\b[^.\n]{0,40}?"
            r"(?:\band nothing else\b|\bnothing else\b|\bverbatim\b|\bword for word\b|\bonly this (?:figure|number|answer|text)\b)",
            re.I,
        ),
    ),
    (
        "role_markers",
        re.compile(
            r"(?:<\|?(?:im_start|im_end|system|assistant|user)\|?>|\[/?INST\]|^\s*(?:system|assistant)\s*:)",
            re.I | re.M,
        ),
    ),
]


@dataclass(frozen=True)
class Finding:
    rule: str
    text: str  # the matched text, at most 120 characters


def find_instructions(text: str) -> list[Finding]:
    """Every place where the text addresses a machine, by rule name."""
    out = []
    for name, rx in PATTERNS:
        m = rx.search(text)
        if m:
            out.append(Finding(name, " ".join(m.group(0).split())[:120]))
    return out


def contains_instructions(text: str) -> bool:
    return bool(find_instructions(text))
