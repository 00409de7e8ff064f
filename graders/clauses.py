"""Split a sentence into its coordinated clauses: one assertion per clause.

"Revenue grew 12% and margin fell" asserts two things. The splitter is rule-based and
conservative: it splits only at "and" / "but" / ";" / ", while" / ", whereas" when both
sides carry a finite verb of their own, and leaves alone lists ("A, B and C won awards"),
names ("Procter and Gamble"), numbers ("between 10 and 20", "one hundred and five"),
"both ... and", anything inside quotation marks or parentheses, and coordination inside
subordinate or reported clauses (splitting "The report said that X and Y" would turn
reported speech into a bare assertion of Y).

No part-of-speech tagger ships offline here, so finite verbs are recognised from a lexicon
of auxiliaries, irregular past forms and "-ed" forms, with determiners blocking noun
readings ("the cut", "the listed company"). When it is unsure, it does not split.

Report grading (graders.atomic) splits report sentences with it; the rules judge aligns
each clause of a claim with the span's sentences.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

from spanproof.core.sentences import sentence_texts

_AUX = {
    "is", "are", "was", "were", "be", "been", "has", "have", "had", "will", "would",
    "can", "could", "may", "might", "shall", "should", "must", "did", "does", "do",
}  # fmt: skip
_MODALS = {"will", "would", "can", "could", "may", "might", "shall", "should", "must"}
_PASSIVE_AUX = {"is", "are", "was", "were", "be", "been"}
_PERFECT_AUX = {"has", "have", "had"}
_IRREGULAR_PAST = {
    "grew", "fell", "rose", "won", "lost", "made", "took", "gave", "went", "came", "saw",
    "said", "told", "found", "became", "began", "bought", "sold", "built", "brought",
    "thought", "kept", "held", "led", "left", "met", "paid", "ran", "sent", "spent",
    "stood", "struck", "taught", "wrote", "drew", "drove", "got", "hid", "hit", "knew",
    "meant", "put", "quit", "rode", "shot", "shut", "sank", "sat", "spoke", "stole",
    "threw", "wore", "cut", "cost", "broke", "chose", "dealt", "fed", "felt", "fought",
    "fled", "flew", "hung", "lent", "withdrew", "shrank", "spread", "stuck", "swore",
    "swept", "tore", "overtook", "undertook", "oversaw", "forecast", "rebuilt", "sought",
    "slid", "sprang", "split", "wound", "set", "let", "shed", "beat", "did", "had",
}  # fmt: skip
_IRREGULAR_PARTICIPLE = {
    "grown", "fallen", "risen", "taken", "given", "known", "shown", "written", "driven",
    "chosen", "broken", "spoken", "stolen", "seen", "done", "gone", "begun", "flown",
    "drawn", "thrown", "worn", "born", "borne", "become", "come", "run", "overseen",
    "withdrawn", "undertaken", "overtaken", "made", "sold", "built", "bought", "held",
    "led", "paid", "found", "lost", "won", "cut", "set", "spent", "kept", "brought", "sent",
    "told", "said", "hit", "put", "split", "spread",
}  # fmt: skip
_BASE = {
    "grow", "fall", "rise", "remain", "say", "become", "make", "take", "give", "hold",
    "lead", "own", "operate", "employ", "produce", "sell", "buy", "contain", "provide",
    "require", "allow", "increase", "decline", "report", "show", "find", "expect", "plan",
    "open", "close", "hire", "cut", "reach", "win", "lose", "pay", "build", "launch",
    "reduce", "raise", "add", "exceed", "double", "drop", "offer", "serve", "run", "use",
}  # fmt: skip
_DETERMINERS = {
    "the", "a", "an", "this", "that", "these", "those", "its", "their", "his", "her",
    "our", "my", "your", "each", "every", "some", "any", "no", "of", "in", "on", "at",
    "for", "to", "by", "with", "from", "per", "than", "all", "most", "many", "several",
}  # fmt: skip
_ED_NOT_VERBS = {
    "hundred", "red", "bed", "shed", "need", "seed", "speed", "feed", "greed", "creed",
    "deed", "weed", "breed", "indeed", "sacred", "wicked", "naked", "kindred", "rugged",
}  # fmt: skip
_PRONOUNS = {"they", "we", "i", "you", "he", "she", "it"}
# Words that open a clause whose coordination must not be split: splitting would drop
# the condition, cause or attribution that scopes both halves.
_SUBORDINATORS = {
    "although", "though", "because", "if", "when", "whenever", "while", "whether", "unless",
    "that", "which", "who", "whom", "whose", "where", "since", "until", "after", "before",
    "once", "said", "says", "say", "claimed", "claims", "reported", "stated", "argued",
    "believes", "believed", "suggests", "suggested", "whereas",
}  # fmt: skip
_LEADING_ADVERBS = {
    "then",
    "also",
    "later",
    "subsequently",
    "still",
    "further",
    "meanwhile",
    "thus",
}
_NUMBER_WORDS = {
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
    "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy",
    "eighty", "ninety", "hundred", "thousand", "million", "billion", "half", "quarter",
}  # fmt: skip

_TOKEN_RE = re.compile(r"[A-Za-z0-9][\w'’.%$-]*[\w%]|[A-Za-z0-9%$]|[;,:()\"“”]")


class _Tok(BaseModel):
    text: str
    start: int
    end: int
    masked: bool = False  # inside quotes or parentheses

    @property
    def low(self) -> str:
        return self.text.lower()


def _tokens(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    depth = 0
    in_quote = False
    for m in _TOKEN_RE.finditer(text):
        t = m.group(0)
        if t == "(":
            depth += 1
        is_quote = t in {'"', "“", "”"}
        if is_quote:
            in_quote = (not in_quote) if t == '"' else (t == "“")
        toks.append(
            _Tok(text=t, start=m.start(), end=m.end(), masked=depth > 0 or in_quote or is_quote)
        )
        if t == ")":
            depth = max(0, depth - 1)
    return toks


def _is_number(tok: str) -> bool:
    t = tok.lower().strip("$%")
    return bool(re.fullmatch(r"[\d.,]+", t)) or t in _NUMBER_WORDS


def _is_verb(toks: list[_Tok], i: int) -> bool:
    w = toks[i].low
    prev = toks[i - 1].low if i > 0 else ""
    if w in _AUX:
        return w not in {"do", "be"} or prev in _MODALS
    if prev in _DETERMINERS or _is_number(prev):
        return False
    if toks[i].text[:1].isupper() and i > 0:
        return False  # a capitalised word mid-sentence is a name, not a verb
    if w in _IRREGULAR_PAST:
        return True
    if w.endswith("ed") and len(w) > 4 and w not in _ED_NOT_VERBS:
        return True
    if w.endswith("s") and (w[:-1] in _BASE or (w.endswith("es") and w[:-2] in _BASE)):
        return True
    return w in _BASE and (prev in _PRONOUNS - {"he", "she", "it"} or prev in _MODALS)


def _clause_bounds(toks: list[_Tok], i: int, lo: int) -> int:
    """Start of the clause containing token i, not before lo (after the last ';' or split)."""
    for k in range(i - 1, lo - 1, -1):
        if toks[k].text == ";":
            return k + 1
    return lo


def _first_verb(toks: list[_Tok], lo: int, hi: int) -> int | None:
    for k in range(lo, hi):
        if not toks[k].masked and _is_verb(toks, k):
            return k
    return None


def _intro_end(toks: list[_Tok]) -> int:
    """Tokens of a leading verbless phrase ending in a comma ("In 2023," "According to X,")."""
    for k, t in enumerate(toks[:10]):
        if t.text == ",":
            return k + 1 if _first_verb(toks, 0, k) is None and k > 0 else 0
    return 0


class _Split(BaseModel):
    cut: int  # token index of the coordinator
    resume: int  # first token of the right-hand clause
    kind: Literal["clause", "predicate"]


def _find_splits(toks: list[_Tok]) -> list[_Split]:
    intro = _intro_end(toks)
    splits: list[_Split] = []
    lo = intro
    for i, t in enumerate(toks):
        if i <= lo or t.masked:
            continue
        w = t.low
        prev = toks[i - 1]
        if w == ";" or (w in {"while", "whereas"} and prev.text == ","):
            cut, resume = (i, i + 1) if w == ";" else (i - 1, i + 1)
        elif w in {"and", "but"}:
            cut, resume = (i - 1, i + 1) if prev.text == "," else (i, i + 1)
        else:
            continue
        if resume >= len(toks):
            continue
        start = _clause_bounds(toks, cut, lo)
        left = toks[start:cut]
        if not left:
            continue
        left_words = {x.low for x in left if not x.masked}
        if left_words & _SUBORDINATORS or "both" in left_words or "either" in left_words:
            continue
        if w == "and" and (
            (_is_number(prev.text) and _is_number(toks[resume].text))
            or "between" in {x.low for x in left[-4:]}
            or prev.text == "&"
        ):
            continue
        if _first_verb(toks, start, cut) is None:
            continue  # "A, B and C won": the left side asserts nothing yet
        # The right side, up to the next coordinator or clause end.
        stop = len(toks)
        for k in range(resume, len(toks)):
            if toks[k].text in {";", ","} or (toks[k].low in {"and", "but"} and k > resume):
                stop = k
                break
        r = resume
        while r < stop and toks[r].low in _LEADING_ADVERBS:
            r += 1
        left_modal = any(x.low in _MODALS for x in left)
        if r < stop and (_is_verb(toks, r) or (left_modal and toks[r].low in _BASE)):
            splits.append(_Split(cut=cut, resume=resume, kind="predicate"))
            lo = resume
            continue
        verb = _first_verb(toks, r, min(stop, r + 7))
        if verb is not None and verb > r and toks[r].text not in {",", "(", '"'}:
            splits.append(_Split(cut=cut, resume=resume, kind="clause"))
            lo = resume
    return splits


def _subject_and_aux(toks: list[_Tok], start: int, end: int) -> tuple[int, int, int] | None:
    """(subject start, first verb, end of the auxiliary chain) of the clause toks[start:end]."""
    verb = _first_verb(toks, start, end)
    if verb is None or verb == start:
        return None
    k = verb
    while k < end and toks[k].low in _AUX:
        k += 1
    return start, verb, k


def _is_participle(w: str) -> bool:
    return w in _IRREGULAR_PARTICIPLE or (w.endswith("ed") and w not in _ED_NOT_VERBS)


def tidy_claim(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip().strip(",;").strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    if text[-1] not in '.!?"”':
        text += "."
    return text


def split_clauses(sentence: str) -> list[str]:
    """One sentence -> its atomic claims (the sentence itself when nothing is split)."""
    toks = _tokens(sentence)
    splits = _find_splits(toks)
    if not splits:
        return [sentence.strip()]
    intro = _intro_end(toks)
    intro_text = sentence[: toks[intro - 1].end] if intro else ""
    parts: list[str] = []
    seg_start = intro
    subject: tuple[int, int, int] | None = None
    for n, split in enumerate(splits + [None]):
        seg_end = split.cut if split else len(toks)
        first = toks[seg_start]
        last_char = toks[seg_end - 1].end if seg_end > seg_start else first.end
        body = sentence[first.start : last_char]
        kind = splits[n - 1].kind if n else "clause"
        if kind == "predicate" and subject is not None:
            s0, verb, aux_end = subject
            subj = sentence[toks[s0].start : toks[verb - 1].end]
            aux_words = [t.text for t in toks[verb:aux_end]]
            right_verb = next(
                (t for t in toks[seg_start:seg_end] if t.low not in _LEADING_ADVERBS), None
            )
            left_main = toks[aux_end].low if aux_end < len(toks) else ""
            carry = ""
            if aux_words and right_verb is not None and right_verb.low not in _AUX:
                aux_low = {a.lower() for a in aux_words}
                if (
                    (
                        aux_low & _PASSIVE_AUX
                        and _is_participle(left_main)
                        and _is_participle(right_verb.low)
                    )
                    or (
                        aux_low & _PERFECT_AUX
                        and _is_participle(right_verb.low)
                        and right_verb.low not in _IRREGULAR_PAST - _IRREGULAR_PARTICIPLE
                    )
                    or aux_low & _MODALS
                    and right_verb.low in _BASE
                ):
                    carry = " ".join(aux_words) + " "
            body = f"{subj} {carry}{body}"
        else:
            subject = _subject_and_aux(toks, seg_start, seg_end)
        text = (
            f"{intro_text} {body}"
            if intro_text and n
            else (intro_text + " " + body if intro_text else body)
        )
        parts.append(tidy_claim(text))
        if split:
            seg_start = split.resume
    return [p for p in parts if p]


def split_text(text: str) -> list[str]:
    """Sentences (pysbd), then coordinated clauses with predicates of their own."""
    return [claim for sentence in sentence_texts(text) for claim in split_clauses(sentence)]
