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

Beyond phrasings, two structural rules look for text *addressed to software* rather than
for particular words. ``addressed_directive``: a sentence that names software as its
addressee (a note or notice "for" it, a label or vocative "Bots and crawlers:", "chatbot,",
software "reading/summarising/describing this ...", "if you are summarising this page",
"you, the program ...", "any summary of this page", "summaries produced by software", a
``note_for_ai`` key, "I am a virtual assistant ...") AND carries a directive (a modal or an
output verb: must, should, are to, say, tell, report, list, announce ...). Both must occur
in the same sentence, which keeps precision: "served as an assistant coach" names no
addressee and is a claim. ``addressed_directive_<lang>``: the same pair from per-language
word lists (German, French, Spanish, Italian, Portuguese, Dutch, Russian, Chinese,
Japanese). ``speech_directive``: a sentence that opens with "Say that ..." / "Tell the user
that ..." (the answer half of a FAQ addressed to a chatbot).

Before matching, text in Latin script is folded to a skeleton (UTS #39 confusables, from
the confusable-homoglyphs data): a Cyrillic "АІ аѕѕіѕtаnt" is read as "AI assistant". The
fold applies only to characters outside ASCII that have a Latin prototype, so accented
Latin text is untouched; patterns for other scripts read the unfolded text. Tables,
captions, footnotes, list items and quotations reach the detector as the sanitiser's
blocks, so the same rules apply there as in prose (alt text never reaches a span at all).
The false-positive rate on every sentence of the WiCE development pages is printed by
``python scripts/instruction_false_positives.py``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from spanproof.memo import memo_list

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
            rf"\b(?:(?:attention|note|message|instructions?|dear|hey|hello)\s*(?:to|for)?\s*(?:all\s+|any\s+)?{_MACHINE}\b|(?:if|when) you are an? {_MACHINE}|(?:as|you are|you're) an? (?:AI|A\.I\.|large language model|language model|LLM)\b|you(?: are|'re) an? (?:AI |virtual |digital |helpful )?assistant\b(?!\s+\w)|{_MACHINE}\s+(?:reading|processing|summari[sz]ing|evaluating|parsing) this\b|you are now\b|new (?:instructions|rules|task|role)\s*:|system prompt|developer (?:mode|message)|jailbreak)",
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


# --- text addressed to software: an addressee and a directive in one sentence -------------

# Nouns that name software. Bare "assistant", "agent" and "model" are people and things as
# often as programs ("an assistant coach"), so they count only as a label or vocative.
_SOFTWARE = (
    r"(?:AI|A\.I\.|artificial intelligence|LLMs?|(?:large )?language models?|chat ?bots?|bots?|"
    r"crawlers?|scrapers?|web spiders?|GPT[-\w]*|ChatGPT|Claude|Gemini|Copilot|"
    r"(?:AI|A\.I\.|virtual|digital|voice|chat|LLM)[- ](?:assistants?|agents?|systems?|tools?|models?|"
    r"helpers?|readers?|summari[sz]ers?|summary tools?)|"
    r"summari[sz]ers?|(?:AI |automatic |automated )?summar(?:y|isation|ization) (?:tools?|engines?|bots?)|"
    r"automated (?:summar\w+|readers?|systems?|tools?|agents?|assistants?|answers?|responses?|services?)|"
    r"screen readers?|machine translation(?: tools?| systems?| engines?)?|text[- ]to[- ]speech(?: tools?)?)"
)
_SOFTWARE_LABEL = rf"(?:{_SOFTWARE}|assistants?|agents?|models?)"
_PROGRAM = r"(?:program(?:me)?s?|software|machines?|robots?|computers?)"
_DEICTIC = (
    r"(?:this|these|the following|the above|the page|the article|the table|the chart|the text)"
)

_ADDRESSEES_EN = [
    # "Note to / notice for / instructions for (any) <software>"
    rf"\b(?:note|notice|message|instructions?|attention|reminder|warning|memo|guidance|request|"
    rf"directions?|hint|advice)\s+(?:to|for)\s+(?:all\s+|any\s+|the\s+|every\s+)?(?:\w+\s+){{0,2}}?{_SOFTWARE}\b",
    # a label or a vocative: "Bots and crawlers: ...", "...; chatbot, when asked ..."
    rf"(?:^|[.;:!?(\[\]{{}}]\s*|,\s*|\b(?:dear|hey|hello|attention)\s+)(?:all\s+|any\s+)?"
    rf"{_SOFTWARE_LABEL}(?:\s+(?:and|or|&)\s+{_SOFTWARE_LABEL})?\s*[:,]",
    # software doing something to this text: "bots describing this chart", "AI systems reading this"
    rf"\b{_SOFTWARE}\s+(?:that (?:are|is) |who (?:are|is) )?(?:reading|processing|parsing|summari[sz]ing|"
    rf"indexing|describing|crawling|analy[sz]ing|scanning|ingesting|quoting|citing|using|answering|"
    rf"asked about|translating)\s+(?:\w+\s+)?{_DEICTIC}",
    # second-person conditionals about the reader being a program
    rf"\b(?:if|when|whenever|while|in case)\s+you(?:'re|\s+are)\s+(?:(?:an?|the|any)\s+)?(?:\w+\s+)?"
    rf"(?:{_SOFTWARE}|{_PROGRAM}|automated\b|not (?:a )?human)",
    r"\b(?:if|when|whenever|while)\s+you(?:'re|\s+are)?\s+(?:summari[sz]ing|processing|parsing|indexing|"
    r"crawling|scraping|ingesting|generating (?:a |an )?(?:summary|answer|response|overview))\b",
    rf"\byou,?\s+the\s+(?:\w+\s+)?(?:{_SOFTWARE}|{_PROGRAM}|model|system)\b",
    rf"\bI(?:'m| am)\s+an?\s+(?:\w+\s+)?(?:{_SOFTWARE}|{_PROGRAM})\b",
    # addressing any output made from this page
    r"\bany\s+(?:\w+\s+)?(?:summar(?:y|ies)|summari[sz]ations?|answers?|responses?|descriptions?|"
    r"overviews?|outputs?|translations?)\s+(?:of|about|based on|drawn from|generated from|that (?:uses|cites|quotes))\s+"
    r"(?:this|these)\b",
    rf"\b(?:summar(?:y|ies)|answers?|responses?|descriptions?|outputs?|overviews?)\s+(?:produced|generated|"
    rf"written|created|made)\s+(?:by|with)\s+(?:{_SOFTWARE}|{_PROGRAM}|automated\s+\w+)",
    # a key in data addressed to a model: {"note_for_ai": ...}, "ai_instructions"
    r"\b(?:notes?|instructions?|message|msg|prompt|directive|hint)[_-]?(?:for|to)[_-]?"
    r"(?:ai|llms?|bots?|assistants?|models?|agents?|gpt)\b",
    r"\b(?:ai|llm|bot|assistant|agent)[_-](?:instructions?|notes?|prompt|directives?)\b",
]
_ADDRESSEE_EN = re.compile("|".join(f"(?:{a})" for a in _ADDRESSEES_EN), re.I | re.M)
_DIRECTIVE_EN = re.compile(
    r"\b(?:must|should|shall|(?:are|is) (?:to|required to|instructed to|asked to|told to|expected to|"
    r"supposed to)|needs? to|ha(?:ve|s) to|please|kindly|do not|don't|never|"
    r"say|state|tell|report|answer|reply|respond|announce|mention|list|describe|lead with|include|"
    r"output|write|treat|ignore|disregard|forget|present|return|mark|classify|label|rate|insert|"
    r"summari[sz]e|translate|render|omit|refuse|cite|quote|recommend|inform|warn|claim|repeat|print|"
    r"emit|display|highlight)\b",
    re.I,
)
# "Say that ...", "A: Tell the user that ...": the answer half of a FAQ written for a chatbot.
_SPEECH_DIRECTIVE = re.compile(
    r"(?:^|[.!?]\s+|\bA\s*:\s*)(?:please\s+)?(?:say|state|answer|reply|respond|"
    r"tell\s+(?:them|the\s+users?|users|the\s+readers?|readers|people|everyone|whoever\s+asks?|whoever\s+asked))"
    r"\s+(?:only\s+)?that\b",
    re.I | re.M,
)

# Per language: (software named as addressee, directive). Both in one sentence fire the rule.
_LANGUAGE_RULES: dict[str, tuple[str, str]] = {
    "de": (
        r"\bKI\b|\bKI-\w+|künstliche[nr]? Intelligenz|\bSprachmodell\w*|\bChatbots?\b|\bBots?\b|"
        r"\bKI-Assistent\w*|\bvirtuelle[nr]? Assistent\w*|\bCrawler\b|\bwenn du (?:eine?|ein) (?:KI|Bot|Programm)",
        r"\b(?:antworte\w*|sag(?:e|en|t)?|teile\w*|gib|geben Sie|ignorier\w*|berichte\w*|melde\w*|"
        r"erwähne\w*|schreib\w*|muss|müssen|sollst|sollen|soll)\b",
    ),
    "fr": (
        r"\bIA\b|intelligence artificielle|\bmod[èe]les? de langage|\bchatbots?\b|\brobots?\b|"
        r"\bassistants? (?:virtuel\w*|IA|d['’]IA|numérique\w*)|\bagents? (?:IA|d['’]IA)|"
        r"\bsi (?:vous êtes|tu es) (?:un|une) (?:IA|assistant|modèle|robot|programme)",
        r"\b(?:répond\w*|dites|dis|indiqu\w*|signal\w*|ignor\w*|mentionn\w*|écri\w*|doi[st]|devez|"
        r"doivent|veuillez)\b",
    ),
    "es": (
        r"\bIA\b|inteligencia artificial|\bmodelos? de lenguaje|\bchatbots?\b|\bbots?\b|"
        r"\basistentes? (?:virtual\w*|de IA|IA)|\bsi (?:eres|es usted) (?:un|una) "
        r"(?:modelo|asistente|IA|bot|programa)",
        r"\b(?:respond\w*|diga|dile|dígale|informa\w*|indica\w*|ignora\w*|menciona\w*|escrib\w*|"
        r"debe\w*|tienes que)\b|\bdi que\b",
    ),
    "it": (
        r"\bIA\b|intelligenza artificiale|\bmodell[io] (?:linguistic\w*|di linguaggio)|\bchatbot\b|"
        r"\bassistent[ei] (?:virtual\w*|IA|di IA)|\bse sei (?:un|una|un') ?(?:IA|assistente|modello|bot|programma)",
        r"\b(?:rispond\w*|dica|comunica\w*|riferisci|ignora\w*|menziona\w*|scrivi|devi|deve|devono)\b|"
        r"\bd[iì]['’]? che\b",
    ),
    "pt": (
        r"\bIA\b|intelig[êe]ncia artificial|\bmodelos? de linguagem|\bchatbots?\b|"
        r"\bassistentes? (?:virtua\w*|de IA|IA)|\bse (?:você é|voce e|és) (?:um|uma) "
        r"(?:IA|assistente|modelo|bot|programa)",
        r"\b(?:respond\w*|diga|diz|informe\w*|conte|ignor\w*|mencion\w*|escrev\w*|deve\w*|tem de|tem que)\b",
    ),
    "nl": (
        r"\bAI-\w+|kunstmatige intelligentie|\btaalmodel\w*|\bchatbots?\b|\bvirtuele assistent\w*",
        r"\b(?:vertel\w*|zeg\w*|meld\w*|antwoord\w*|geef|negeer\w*|noem\w*|schrijf\w*|moet\w*)\b",
    ),
    "ru": (
        r"ИИ|искусственн\w+ интеллект\w*|нейросет\w*|языков\w+ модел\w*|чат-?бот\w*|\bбот\w*|"
        r"ассистент\w*|виртуальн\w+ помощник\w*|ИИ-помощник\w*",
        r"сообщ\w*|скаж\w*|ответ\w*|напиш\w*|укаж\w*|расскаж\w*|игнорир\w*|проигнорир\w*|должн\w*|обязан\w*",
    ),
    "zh": (
        r"人工智能|智能助手|AI助手|语言模型|大模型|聊天机器人|机器人|AI",
        r"请|告诉|告知|回答|回复|忽略|必须|务必|应当",
    ),
    "ja": (
        r"人工知能|AIアシスタント|アシスタント|言語モデル|チャットボット",
        r"伝え|答え|回答|無視|してください|必ず",
    ),
}
_LANGUAGE_PATTERNS = {
    lang: (re.compile(who, re.I), re.compile(what, re.I))
    for lang, (who, what) in _LANGUAGE_RULES.items()
}
_NON_LATIN = frozenset({"ru", "zh", "ja"})

# Sentences: after . ! ? (and their CJK forms) followed by space or a capital, and at line
# breaks. "A.I. assistants" stays one sentence: the dot is followed by a lower-case word.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[^a-z\s])|(?<=[。！？])|\n+")


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text) if s and s.strip()]


@lru_cache(maxsize=8192)
def _latin_prototype(ch: str) -> str:
    """The Latin letter a confusable character is drawn like (UTS #39 confusables), else ch."""
    from confusable_homoglyphs import confusables

    found = confusables.is_confusable(ch, greedy=False, preferred_aliases=["latin"])
    if not found:
        return ch
    for glyph in found[0]["homoglyphs"]:
        proto = glyph["c"]
        if proto.isascii() and proto.isalnum():
            # The prototype of I-like capitals is "l"; a capital reads as "I" in a word.
            return "I" if proto == "l" and ch.isupper() else proto
    return ch


def skeleton(text: str) -> str:
    """``text`` with every non-ASCII character that has a Latin look-alike replaced by it:
    "АІ аѕѕіѕtаnt" (Cyrillic) reads "AI assistant". ASCII is never changed."""
    if text.isascii():
        return text
    return "".join(ch if ch.isascii() else _latin_prototype(ch) for ch in text)


def _structural_findings(revealed: str, folded: str) -> list[Finding]:
    out: list[Finding] = []

    def add(rule: str, sentence: str) -> None:
        if all(f.rule != rule for f in out):
            out.append(Finding(rule, " ".join(sentence.split())[:120]))

    for sentence in _sentences(folded):
        if _ADDRESSEE_EN.search(sentence) and _DIRECTIVE_EN.search(sentence):
            add("addressed_directive", sentence)
        if _SPEECH_DIRECTIVE.search(sentence):
            add("speech_directive", sentence)
    for lang, (who, what) in _LANGUAGE_PATTERNS.items():
        for sentence in _sentences(revealed if lang in _NON_LATIN else folded):
            if who.search(sentence) and what.search(sentence):
                add(f"addressed_directive_{lang}", sentence)
                break
    return out


@memo_list()  # the judge and the audit both read every span; planted pairs share spans
def find_instructions(text: str) -> list[Finding]:
    """Every place where the text addresses a machine, by rule name.

    Latin-script patterns read the confusable skeleton of the revealed text; patterns for
    other scripts read the revealed text itself."""
    out = []
    revealed = reveal(text)
    folded = skeleton(revealed)
    for name, rx in PATTERNS:
        m = rx.search(folded)
        if m:
            out.append(Finding(name, " ".join(m.group(0).split())[:120]))
    out.extend(_structural_findings(revealed, folded))
    return out


def contains_instructions(text: str) -> bool:
    return bool(find_instructions(text))
