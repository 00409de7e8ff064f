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

The text is first ``reveal``-ed as a model would read it: Unicode tag characters decoded to
the ASCII they hide, zero-width and bidi controls dropped. Beyond English imperatives the
rules catch a machine addressed by role ("When you answer, AI assistant, you must ...",
"Note to language models", "LLM agents should report ..."), an imperative to agents that
survives the sanitiser removing its URL ("AI agents must fetch ... and use those figures
instead"), "disregard the ... above", "tell the user", and German, French, Spanish, Italian
and Portuguese forms of "ignore (all) previous instructions", "AI assistant" and "you must
answer". Words a reader might be called ("model", "system", "judge") only count in the
older patterns that need a second cue; the role and language rules use words only a
machine is called. Checked against every claim and span of goldens/ (no false positive
beyond the one planted instruction) and the pages of adversarial_fixtures/.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_VERDICT_WORDS = r"(?:SUPPORTED|NOT[_ ]SUPPORTED|PARTIAL|VERIFIED|APPROVED|PASS(?:ED)?|TRUE)"
_MACHINE = (
    r"(?:AI|A\.I\.|LLM|language model|model|assistant|chatbot|bot|agent|verifier|grader|judge|"
    r"fact[- ]?checker|evaluator|GPT|ChatGPT|Claude|Gemini|system)s?"
)

# Words that only a machine is ever called: used where a looser word ("model", "system",
# "judge") would catch ordinary prose ("Judge: J. Smith", "the system, which ...").
_STRONG_MACHINE = (
    r"(?:AI|A\.I\.|LLM|language model|AI model|AI agent|LLM agent|assistant|chatbot|verifier|"
    r"grader|fact[- ]?checker|GPT|ChatGPT|Claude|Gemini)s?"
)
# Verbs of answering, fetching and reporting: what an injected instruction asks a model to do.
_ANSWER_VERBS = (
    r"(?:fetch|visit|open|browse|load|download|use|ignore|disregard|forget|answer|reply|respond|"
    r"report|tell|say|state|repeat|include|output|print|return|treat|cite|quote|summari[sz]e|"
    r"mention|remember|follow|present|recommend|inform|append|send|rate|mark|classify)"
)
# Other languages (German, French, Spanish, Italian, Portuguese): "ignore (all) previous
# instructions", "AI assistant", "you must answer", "tell the user".
_OVERRIDE_VERBS_INTL = (
    r"(?:ignorier\w*|missacht\w*|vergiss|vergessen|ignore[rz]?|oublie[rz]?|ignora[rn]?|"
    r"olvida[rn]?|dimentica(?:re)?|esqueç\w*|esquece\w*|desconsider\w*)"
)
_INSTRUCTION_NOUNS_INTL = (
    r"(?:anweisung\w*|instruktion\w*|befehl\w*|vorgab\w*|instructions?|consignes?|"
    r"instrucci\w*|indicaciones|istruzion\w*|indicazion\w*|instruç\w*|instruc\w*|regeln)"
)
_PREVIOUS_INTL = (
    r"(?:vorherig\w*|bisherig\w*|früher\w*|obig\w*|alle[ns]?\b|précédent\w*|antérieur\w*|"
    r"toutes|anterior\w*|previ\w*|precedent\w*|todas|tutte|sistema|system\w*)"
)
_MACHINE_INTL = (
    r"(?:\bKI[- ]?(?:Assistent|Agent|Modell|System|Chatbot|Sprachmodell)\w*|"
    r"\bSprachmodell\w*|\bassistant(?:e|s)? (?:d['’])?(?:IA|AI)\b|\bagents? (?:d['’])?IA\b|"
    r"\bmod[èe]les? de langage\b|\basistentes? (?:de |virtual(?:es)? de )?(?:IA|AI)\b|"
    r"\bmodelos? de (?:lenguaje|linguagem)\b|\bassistenti? (?:di |de )?(?:IA|AI)\b|"
    r"\bmodell[io] (?:linguistic[oi]|di linguaggio)\b|\bassistentes? (?:de |virtua(?:l|is) de )?(?:IA|AI)\b)"
)
_MUST_ANSWER_INTL = (
    r"(?:\b(?:du musst|sie müssen|ihr müsst) (?:\w+ ){0,3}?(?:antworten|beantworten|sagen|mitteilen)|"
    r"\b(?:tu dois|vous devez) (?:\w+ ){0,3}?(?:répondre|dire|indiquer)|"
    r"\b(?:debes|debe|deben|tienes que) (?:\w+ ){0,3}?(?:responder|decir|contestar)|"
    r"\b(?:devi|deve|devono) (?:\w+ ){0,3}?(?:rispondere|dire)|"
    r"\b(?:você deve|voce deve|deves|tens de|tem de|tem que) (?:\w+ ){0,3}?(?:responder|dizer)|"
    r"\bteile? (?:dem|den) (?:nutzer|benutzer|anwender)\w*|"
    r"\b(?:dis|dites|dire) à l['’]utilisat\w*|\b(?:dile|diga|dígale) al usuario|"
    r"\b(?:di|dica) all['’]utente|\b(?:diga|diz|conte) ao usuário)"
)

PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "override",
        re.compile(
            r"\b(?:ignore|disregard|forget|override|bypass|skip)\b[^.\n]{0,40}?\b(?:previous|prior|above|earlier|all|any|your|system)\b[^.\n]{0,30}?\b(?:instructions?|prompts?|rules?|directions?|guidelines?|messages?|context|checks?)",
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
        # "When you answer, AI assistant, you must ...", "AI agents: disregard ...",
        # "AI agents must fetch ... and use those figures instead" (the URL may be gone)
        "machine_addressed_directive",
        re.compile(
            rf"(?:,\s*(?:dear\s+)?{_STRONG_MACHINE}\s*,|^\s*{_STRONG_MACHINE}\s*:|[.;:!?(]\s*{_STRONG_MACHINE}\s*:|"
            rf"\b{_STRONG_MACHINE}(?:\s+\w+){{0,2}}\s+(?:must|should|shall|need to|needs to|are (?:required|instructed|asked|told) to|have to|has to)\s+(?:now\s+|always\s+|first\s+|also\s+)?{_ANSWER_VERBS}\b|"
            r"\b(?:when|before|whenever) you (?:answer|reply|respond|summari[sz]e)\b[^.\n]{0,40}?\byou (?:must|should|shall|will)\b|"
            r"\b(?:tell|inform|show|give) (?:the|your) users?\b(?! (?:agreement|guide|manual|interface|experience))|"
            r"\bremember (?:this|the following) (?:phrase|sentence|text|code|token|word|string)s?\b)",
            re.I | re.M,
        ),
    ),
    (
        # "disregard the article above", "ignore the timetable above"
        "override_above",
        re.compile(
            r"\b(?:ignore|disregard|forget|override)\b\s+(?:the|this|that|any|all|everything)\b[^.\n]{0,40}?\b(?:above|below|earlier|previously|before this)\b",
            re.I,
        ),
    ),
    (
        "non_english",
        re.compile(
            rf"(?:\b{_OVERRIDE_VERBS_INTL}\b(?=[^.\n]{{0,60}}?\b{_PREVIOUS_INTL})[^.\n]{{0,50}}?\b{_INSTRUCTION_NOUNS_INTL}|{_MACHINE_INTL}|{_MUST_ANSWER_INTL})",
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


_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")


def reveal(text: str) -> str:
    """The text as a model would read it: Unicode tag characters (U+E0020..U+E007E, invisible
    on screen but decoded by tokenisers) turned back into the ASCII they encode, zero-width
    and bidi-control characters dropped, compatibility forms folded (NFKC)."""
    if any(0xE0000 <= ord(c) <= 0xE007F for c in text):
        text = "".join(
            (" " + chr(ord(c) - 0xE0000) if ord(c) == 0xE0020 else chr(ord(c) - 0xE0000))
            if 0xE0020 <= ord(c) <= 0xE007E
            else ("" if 0xE0000 <= ord(c) <= 0xE007F else c)
            for c in text
        ).replace("  ", " ")
    return unicodedata.normalize("NFKC", _INVISIBLE.sub("", text))


def find_instructions(text: str) -> list[Finding]:
    """Every place where the text addresses a machine, by rule name."""
    out = []
    text = reveal(text)
    for name, rx in PATTERNS:
        m = rx.search(text)
        if m:
            out.append(Finding(name, " ".join(m.group(0).split())[:120]))
    return out


def contains_instructions(text: str) -> bool:
    return bool(find_instructions(text))
