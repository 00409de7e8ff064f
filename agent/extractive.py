"""The `extractive` policy: a deterministic, model-free baseline.

It is an honest baseline (as ALCE reports extractive baselines), not a stand-in
for a model: it decomposes the question by rule, searches once per
sub-question, fetches in parallel the hits whose title and snippet name the
question's subject and share the sub-question's own words (a snippet chooses
what to fetch; it is never evidence), picks locators from what fetch_page
returned (it sees only previews, exactly as a model would), quotes the
best-matching sentences, and drafts claims that restate the quoted sentence
word for word. It goes through the same runtime, budgets, verification and
publication as the model-led policy.

What it will not do:
- publish an off-target sentence: a sentence must hold a fair share of the
  sub-question's own words (not just the subject's name), and a page must
  contain every number the sub-question names ("in 2020"); a sub-question
  with no such sentence is reported as a gap, which is the right answer to
  a question the pages cannot answer;
- restate a sentence that addresses a machine: it is skipped, and the first
  such text seen in a preview is recorded, quoted, in ``injection_observed``;
- fetch a URL again that was refused for good (egress, redirect off the
  allowlist), or one it already fetched.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache

from spanproof.agent.convergence import (
    NUMBER,
    content_words,
    expects_number,
    names_subject,
    overlap,
    question_subject,
    relevance,
)
from spanproof.agent.dispatch import Call, ToolOutcome
from spanproof.agent.fallback import fallback_draft
from spanproof.agent.question.compound import analyse
from spanproof.agent.question.scoring import Match, match, term_weights
from spanproof.agent.question.subquestion import SubQuestion, numbered_conflict
from spanproof.agent.question.words import matched, terms
from spanproof.agent.record import Draft, DraftClaim
from spanproof.agent.runtime import Runtime

from spanproof.core.sentences import first_sentence, sentence_ends
from spanproof.core.tool_schema import FetchPageResult

LABEL = "Extractive baseline (no model): each claim restates a quoted sentence verbatim."
MIN_SENTENCE = 8  # "She was 78." is an answer
MAX_SENTENCE = 500
MIN_OVERLAP = 0.55
# Share of the sub-question's own words (its focus: not the subject's name) a sentence must
# hold to be an answer rather than a sentence about the same subject. Below it the
# sub-question is a gap. Chosen by measuring on the golden questions (so it is fitted to
# them): every published sentence holding a golden fact scored >= 0.4; the claims the
# looser rule drafted for the five unanswerable questions scored 0.2-0.4, the one at 0.4
# from a page that never names the year the question asks about (`names_its_numbers`).
MIN_ANSWER = 0.4
# A hit other than the engine's top one is fetched only when its title and snippet score
# this much `relevance` to the sub-question. Also measured on the golden questions: at 0.5
# most such second hits (scoring 0.65) yielded no cited span.
MIN_HIT = 0.7
INJECTION_NOTE_CHARS = 200
# fetch_page shows the first 4,000 characters of a page; a page whose answer lies further on
# is read on by quoting onward from the end of what was shown (each step one extract_quote
# of up to 900 characters, a tool call and a span). At most this many steps per run, and
# only for a sub-question no sentence shown so far answers.
READ_ON_STEPS = 3
READ_ON_CHARS = 900


@dataclass
class Candidate:
    score: float
    doc_id: str
    sentence: str
    order: int
    locator: str  # verbatim from the preview, 12..240 chars, starting at the sentence
    thin: bool = False  # on the sub-question, but without an answer of the type it expects


def _sentences(preview: str, truncated: bool) -> list[tuple[int, str]]:
    """(offset in the preview, sentence) for every sentence pysbd finds, block by block."""
    return list(_sentences_of(preview, truncated))


@lru_cache(maxsize=64)  # ranked again for every sub-question and pass: split each page once
def _sentences_of(preview: str, truncated: bool) -> tuple[tuple[int, str], ...]:
    out: list[tuple[int, str]] = []
    pos = 0
    blocks = preview.split("\n\n")
    for b, block in enumerate(blocks):
        start = 0
        for end in sentence_ends(block):
            raw = block[start:end]
            # pysbd can leave the closing quote of the previous sentence at the front.
            body = re.sub(r'^\s*(?:["”’\']\s+)?', "", raw)
            lead = len(raw) - len(body)
            sentence = body.strip()
            if sentence:
                out.append((pos + start + lead, sentence))
            start = end
        if truncated and b == len(blocks) - 1 and out:
            out.pop()  # the preview may cut its last sentence short
        pos += len(block) + 2
    return tuple(out)


def _looks_like_prose(sentence: str) -> bool:
    from spanproof.graders.instructions import contains_instructions

    if not (MIN_SENTENCE <= len(sentence) <= MAX_SENTENCE):
        return False
    if sentence.endswith("?") or len(sentence.split()) < 3:
        return False
    if not re.search(r"[.!\"”')\]]$", sentence):
        return False  # headings, navigation and captions rarely end like sentences
    words = re.findall(r"[^\W\d_][\w'’-]*", sentence)
    capitalised = sum(1 for w in words if w[0].isupper())
    if words and capitalised >= 0.75 * len(words):
        return False  # a title or a site name in title case ("The Daily Record.")
    # A sentence addressed to a machine is never restated as a claim.
    return not contains_instructions(sentence)


def answer_strength(subquestion: str, sentence: str, subject: set[str]) -> float:
    """Share of the sub-question's focus words (its words minus the subject's name) the
    sentence holds; a figure counts as one when the sub-question asks how many/much/old."""
    want = content_words(subquestion)
    have = content_words(sentence)
    if expects_number(subquestion):
        want = want | {NUMBER}
        if re.search(r"\d", sentence):
            have = have | {NUMBER}
    focus = want - subject
    if not focus:
        return 1.0 if want <= have else 0.0
    return len(focus & have) / len(focus)


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"\d+", text))


def names_its_numbers(subquestion: str, page_text: str) -> bool:
    """A page that never mentions a number the sub-question names ("in 2020") cannot answer it."""
    return _numbers(subquestion) <= _numbers(page_text)


def instruction_note(text: str, where: str) -> str | None:
    """A quoted excerpt (<= 200 chars) of the first sentence in `text` that addresses a machine."""
    from spanproof.graders.instructions import find_instructions

    findings = find_instructions(text)
    if not findings:
        return None
    excerpt = findings[0].text
    for _, sentence in _sentences(text, truncated=False):
        if find_instructions(sentence):
            excerpt = sentence
            break
    suffix = f" ({where}; not followed)"
    room = INJECTION_NOTE_CHARS - len(suffix) - 2
    excerpt = " ".join(excerpt.split())
    if len(excerpt) > room:
        excerpt = excerpt[: room - 1].rstrip() + "…"
    return f'"{excerpt}"{suffix}'


def acceptable(
    sq: SubQuestion,
    subquestion: str,
    sentence: str,
    subject: set[str],
    weights: dict[str, float] | None = None,
    paragraph_about_it: bool = False,
    paragraph_names_it: bool = True,
) -> Match | None:
    """How `sentence` answers the sub-question, or None when it does not.

    A sub-question whose answer type code can check (a date, a number, a name, a place ...)
    is answered only by a sentence that holds such an answer and is about the sub-question:
    its own words, or an answer whose kind matches too ("400 students") beside its names.
    Any other sub-question keeps the word-overlap rule.
    """
    m = match(sq, sentence, weights)
    if not m.answers or numbered_conflict(sq, sentence):
        return None
    if sq.checkable:
        if not (m.entity > 0 or m.context > 0 or paragraph_names_it):
            return None  # nothing ties it to what the question is about (a sidebar item)
        if m.focus >= 0.5 or (m.strength >= 1.0 and (m.entity > 0 or m.focus > 0)):
            return m
        if m.strength >= 1.0 and paragraph_about_it:
            # an answer whose kind matches ("a famous 5-4 victory" for the score) in a
            # paragraph that names what the sub-question is about and one of its own terms
            # (a sidebar item on the same page does neither)
            return m
        return None
    if (m.focus >= 0.5 and m.entity >= 0.5) or (
        relevance(subquestion, sentence, subject) >= MIN_OVERLAP
        and answer_strength(subquestion, sentence, subject) >= MIN_ANSWER
    ):
        return m
    return None


def on_topic(sq: SubQuestion, page: FetchPageResult, subject: set[str]) -> bool:
    """Is the page about the question: it names (most of) the question's subject, or -- a
    page that spells the names otherwise ("Kiev", a transliteration) -- it holds three or
    more of the sub-question's own terms."""
    about = page.title + " " + page.preview
    if names_subject(about, subject):
        return True
    return len(matched(sq.focus, terms(about))) >= 3


def thin_match(
    sq: SubQuestion, subquestion: str, sentence: str, subject: set[str], weights
) -> Match | None:
    """A sentence squarely on a sub-question that holds no answer of the type it expects
    ("X has been renewed for a fifth season" for "when was X renewed ..."): every one of its
    own terms and its names. Published only when nothing answers, and the gap stays."""
    m = match(sq, sentence, weights)
    if not sq.checkable or m.answers or m.focus < 1.0:
        return None
    # its names: all of them, or the other names it writes and a pronoun for the first
    if m.entity < 1.0 and not (m.entity >= 0.5 and sq.context and m.context >= 1.0):
        return None
    if numbered_conflict(sq, sentence):
        return None
    if not sq.focus:
        return None
    return m


def _paragraph(sq: SubQuestion, page: FetchPageResult, offset: int) -> tuple[bool, bool]:
    """Does the paragraph around `offset` name what the sub-question is about (its names or
    the other names it writes), and does it also hold one of its own terms?"""
    text = page.preview
    start = text.rfind("\n\n", 0, offset)
    start = 0 if start < 0 else start
    end = text.find("\n\n", offset)
    end = len(text) if end < 0 else end
    # A short paragraph continues the prose just before it ("In measurements, the building
    # is 108 metres long ..."), back to a heading: "Related stories" starts something else.
    while start > 0 and offset - start < 300:
        before = text.rfind("\n\n", 0, start)
        previous = _sentences(text[0 if before < 0 else before + 2 : start], False)
        if not previous or not _looks_like_prose(previous[-1][1]):
            break
        start = 0 if before < 0 else before
    block = terms(text[start:end])
    if not (sq.entity or sq.context):
        return True, bool(matched(sq.focus, block))
    names = any(n and matched(n, block) for n in (sq.entity, sq.context))
    return names, bool(names and matched(sq.focus, block))


def _candidates(
    sq: SubQuestion,
    subquestion: str,
    previews: list[FetchPageResult],
    subject: set[str],
    ends_whole: AbstractSet[str] = frozenset(),
    thin: bool = False,
) -> list[Candidate]:
    """Sentences that answer the sub-question, best first (with `thin`: only the sentences
    squarely on it that hold no answer of its type)."""
    found = []
    order = 0
    for page in previews:
        # A page that is not about the question's subject is not read for it, whatever its
        # sentences share with the question's other words.
        if not on_topic(sq, page, subject):
            continue
        if not names_its_numbers(subquestion, page.title + " " + page.preview):
            continue
        # A page read on ends at a sentence end: its last sentence is whole.
        sentences = _sentences(page.preview, page.truncated and page.doc_id not in ends_whole)
        weights = term_weights(sq, [s for _, s in sentences])
        for offset, sentence in sentences:
            order += 1
            if not _looks_like_prose(sentence):
                continue
            if thin:
                m = thin_match(sq, subquestion, sentence, subject, weights)
            else:
                names, about = _paragraph(sq, page, offset)
                m = acceptable(sq, subquestion, sentence, subject, weights, about, names)
            if m is None:
                continue
            # A sentence shorter than the locator minimum is located by running on
            # into the text after it; the span still ends at the sentence's end.
            locator = page.preview[offset : offset + min(240, max(12, len(sentence)))]
            if len(locator) >= 12:
                found.append(Candidate(m.score, page.doc_id, sentence, order, locator, thin))
    found.sort(key=lambda c: (-c.score, c.order))
    return found


def _query(subquestion: str) -> str:
    return re.sub(r"[()?]", " ", subquestion).strip()


def _keyword_query(subquestion: str, previous: str) -> str:
    """A refinement that changes the terms' form rather than adding words."""
    words = sorted(content_words(subquestion))
    q = " ".join(words)
    return q if q and q != previous else ""


class ExtractivePolicy:
    def __init__(self, rt: Runtime):
        self.rt = rt
        self.previews: dict[str, FetchPageResult] = {}
        self.doc_subq: dict[str, int] = {}
        self.claims: list[DraftClaim] = []
        self.claim_subq: list[int] = []
        self.quoted: set[str] = set()
        self.attempted: set[str] = set()  # every URL this policy asked to fetch
        self.injection_observed: str | None = None
        self._analysis: list[SubQuestion] = []
        self._analysis_of: list[str] | None = None
        self.read_on_steps = 0
        self.thin_claims: set[int] = set()  # indices into self.claims
        self.ends_whole: set[str] = set()  # doc ids whose shown text ends at a sentence end

    async def _call(self, tool: str, arguments: dict) -> ToolOutcome:
        return await self.rt.tools.call(tool, arguments, origin="policy")

    def _analysed(self, i: int) -> SubQuestion:
        subqs = self.rt.subquestions
        if self._analysis_of != subqs:
            self._analysis = analyse(self.rt.record.question, list(subqs))
            self._analysis_of = list(subqs)
        return self._analysis[i]

    def _tried(self, url: str) -> bool:
        rt = self.rt
        fetched = {p.url for p in self.previews.values()}
        return url in fetched or url in rt.refused_urls or url in self.attempted

    def _worth_fetching(self, subquestion: str, hit, subject: set[str]) -> float | None:
        """How well a hit's title and snippet match the sub-question; None when not at all."""
        about = f"{hit.title} {hit.snippet}"
        if not names_subject(about, subject):
            return None
        score = relevance(subquestion, about, subject)
        return score if score >= MIN_HIT else None

    async def _search_and_fetch(self, targets: list[tuple[int, str]], per_subq: int) -> None:
        rt = self.rt
        subject = question_subject(rt.record.question)
        ranked: dict[int, list[str]] = {}
        for i, query in targets:
            if rt.meter.draft_only or rt.meter.remaining()["searches"] <= 0 or not query:
                continue
            out = await self._call("web_search", {"query": query})
            hits = out.result or []
            # The engine's top hit, when it names the subject, is the page to read first
            # (its snippet is often about other words of the page); any other hit must
            # also share the sub-question's own words in its title or snippet.
            first = []
            if hits and names_subject(f"{hits[0].title} {hits[0].snippet}", subject):
                first = [hits[0].url]
            scored = []
            for rank, hit in enumerate(hits):
                if hit.url in first:
                    continue
                score = self._worth_fetching(rt.subquestions[i], hit, subject)
                if score is not None:
                    scored.append((-score, rank, hit.url))
            if not first and not scored and hits:
                # No hit names the subject (a page titled by its section, a snippet from
                # its first paragraph): the top hit is still worth one fetch when its title
                # or snippet shares the sub-question's own words.
                top = hits[0]
                if relevance(rt.subquestions[i], f"{top.title} {top.snippet}", subject) > 0:
                    first = [top.url]
            ranked[i] = [
                url for url in first + [u for _, _, u in sorted(scored)] if not self._tried(url)
            ]
        # Leave room for at least one quote per sub-question and the draft reserve.
        spare = rt.meter.remaining()["tool_calls"] - rt.budgets.draft_reserve - len(targets)
        allowance = max(0, min(rt.meter.remaining()["fetches"], spare))
        chosen: list[tuple[int, str]] = []
        for rank in range(per_subq):
            for i, urls in ranked.items():
                if (
                    rank < len(urls)
                    and urls[rank] not in {u for _, u in chosen}
                    and len(chosen) < allowance
                ):
                    chosen.append((i, urls[rank]))
        await self._fetch(chosen)

    async def _fetch(self, chosen: list[tuple[int, str]]) -> None:
        if not chosen:
            return
        self.attempted.update(url for _, url in chosen)
        outcomes = await self.rt.tools.run(
            [Call("fetch_page", {"url": url}) for _, url in chosen], origin="policy"
        )
        for (i, _), outcome in zip(chosen, outcomes, strict=True):
            if outcome.ok and isinstance(outcome.result, FetchPageResult):
                page = outcome.result
                self.previews[page.doc_id] = page
                self.doc_subq.setdefault(page.doc_id, i)
                if self.injection_observed is None:
                    self.injection_observed = instruction_note(
                        page.title + "\n\n" + page.preview, page.doc_id
                    )

    def _better_for_another(self, i: int, cand: Candidate) -> bool:
        """Does the sentence answer another sub-question better than this one ("renewal comes
        ahead of the Season 4 premiere on Aug. 6" is the premiere's date, not the renewal's)?
        It is left for that one: a sentence is quoted once, for the question it answers."""
        if cand.thin:
            return False
        for j in range(len(self.rt.subquestions)):
            if j == i:
                continue
            other = match(self._analysed(j), cand.sentence)
            if other.answers and other.score > cand.score + 0.05:
                return True
        return False

    async def _quote(
        self, i: int, subquestion: str, docs_used: set[str], thin: bool = False
    ) -> bool:
        """Quote the best unused sentence for a sub-question; prefer a document not yet cited.
        With `thin`, the best sentence on it that holds no answer of its type."""
        rt = self.rt
        subject = question_subject(rt.record.question)
        sq = self._analysed(i)
        cands = [
            c
            for c in _candidates(
                sq, subquestion, list(self.previews.values()), subject, self.ends_whole, thin
            )
            if c.sentence not in self.quoted and not self._better_for_another(i, c)
        ]
        cands.sort(key=lambda c: (c.doc_id in docs_used, -c.score, c.order))
        for cand in cands[:3]:
            if rt.meter.draft_only:
                return False
            self.quoted.add(cand.sentence)
            locator = cand.locator
            args = {
                "doc_id": cand.doc_id,
                "locator": locator,
                "max_chars": max(40, min(900, len(cand.sentence) + 1)),
                "purpose": "support_claim",
            }
            outcome = await self._call("extract_quote", args)
            if (
                outcome.error is not None
                and outcome.error.error == "NO_SENTENCE_END"
                and not rt.meter.draft_only
            ):
                # The stored text's sentence runs on past the preview's: take the advised cap.
                advised = re.search(r"max_chars to (\d+)", outcome.error.message)
                if advised and int(advised.group(1)) <= 900:
                    outcome = await self._call(
                        "extract_quote", {**args, "max_chars": int(advised.group(1))}
                    )
            if not outcome.ok:
                continue
            span = rt.tb.spans[outcome.result.span_id]
            text = first_sentence(span.text)
            if any(span.span_id in c.span_ids for c in self.claims) or not text:
                continue
            self.claims.append(
                DraftClaim(
                    text=text,
                    span_ids=[span.span_id],
                    inference=False,
                    # a sentence without the answer asked for is worth little on its own
                    confidence=round(cand.score * (0.5 if cand.thin else 1.0), 2),
                )
            )
            self.claim_subq.append(i)
            if cand.thin:
                self.thin_claims.add(len(self.claims) - 1)
            docs_used.add(cand.doc_id)
            return True
        return False

    async def _quote_round(self, indices: list[int], per_subq: int) -> None:
        rt = self.rt
        for _ in range(per_subq):
            for i in indices:
                if rt.meter.draft_only or rt.meter.remaining()["spans"] <= 0:
                    return
                await self._quote(i, rt.subquestions[i], self._docs_cited(i))

    def _docs_cited(self, i: int) -> set[str]:
        rt = self.rt
        return {
            rt.tb.spans[sid].doc_id
            for c, k in zip(self.claims, self.claim_subq, strict=True)
            if k == i
            for sid in c.span_ids
        }

    def _answered(self) -> set[int]:
        return {k for n, k in enumerate(self.claim_subq) if n not in self.thin_claims}

    async def _thin_fallback(self, indices: list[int]) -> None:
        """A sub-question no sentence answers gets, at most, one sentence squarely on it (the
        answer still reports it as a gap: the claim does not hold what was asked)."""
        rt = self.rt
        for i in indices:
            if self.claim_subq.count(i) >= 2 or rt.meter.draft_only:
                continue
            if any(k == i and n in self.thin_claims for n, k in enumerate(self.claim_subq)):
                continue
            if (
                rt.meter.remaining()["spans"] <= 0
                or rt.meter.remaining()["tool_calls"] <= rt.budgets.draft_reserve
            ):
                return
            await self._quote(i, rt.subquestions[i], set(), thin=True)

    async def _read_on(self, doc_id: str) -> bool:
        """Quote onward from the end of what this page has shown, and show the quoted text as
        the page's continuation. The text is the stored document's own (a span), so every
        locator taken from it is verbatim."""
        rt = self.rt
        page = self.previews[doc_id]
        if not page.truncated or rt.meter.draft_only or rt.meter.remaining()["spans"] < 2:
            return False
        if rt.meter.remaining()["tool_calls"] <= rt.budgets.draft_reserve + 1:
            return False  # keep a call to quote what the reading finds
        shown = page.preview
        sentences = _sentences(shown, truncated=doc_id not in self.ends_whole)
        start = sentences[-1][0] + len(sentences[-1][1]) if sentences else 0
        while start < len(shown) and shown[start].isspace():
            start += 1
        # A short tail may also occur elsewhere on the page (a menu item, a caption): read on
        # from far enough back that the locator is long (up to the 240 the tool takes).
        back = len(sentences)
        while len(shown) - start < 60 and back > 0:
            back -= 1
            start = sentences[back][0]
        locator = shown[start : start + 240]
        if len(locator) < 12 or shown.count(locator) != 1:
            return False
        self.read_on_steps += 1
        outcome = await self._call(
            "extract_quote",
            {
                "doc_id": doc_id,
                "locator": locator,
                "max_chars": READ_ON_CHARS,
                "purpose": "support_claim",
            },
        )
        if not outcome.ok:
            return False
        span = rt.tb.spans[outcome.result.span_id]
        if span.char_end <= len(shown) or span.char_start != start:
            return False
        doc = rt.tb.documents.get(doc_id)
        whole = len(doc.text) if doc is not None else None
        self.previews[doc_id] = page.model_copy(
            update={
                "preview": shown[:start] + span.text,
                "truncated": whole is None or span.char_end < whole,
            }
        )
        self.ends_whole.add(doc_id)
        return True

    def _read_on_has_prose(self, doc_id: str, since: int, sq: SubQuestion) -> bool:
        """Did the text read on hold a sentence of prose about the sub-question's names or
        terms? Menus, footers and link lists do not, and reading further rarely pays."""
        page = self.previews[doc_id]
        for offset, sentence in _sentences(page.preview, truncated=False):
            if offset + len(sentence) <= since or not _looks_like_prose(sentence):
                continue
            if matched(sq.focus | sq.entity, terms(sentence)):
                return True
        return False

    async def _read_further(self, indices: list[int]) -> None:
        """For each sub-question still unanswered, read on in the pages about it."""
        rt = self.rt
        subject = question_subject(rt.record.question)
        for i in indices:
            if i in self._answered():
                continue
            sq = self._analysed(i)
            pages = [
                p
                for p in self.previews.values()
                if p.truncated
                and on_topic(sq, p, subject)
                and names_its_numbers(rt.subquestions[i], p.title + " " + p.preview)
            ]
            # the page fetched for this sub-question first, then the others in fetch order
            pages.sort(key=lambda p: self.doc_subq.get(p.doc_id) != i)
            for page in pages:
                while self.read_on_steps < READ_ON_STEPS:
                    shown_before = len(self.previews[page.doc_id].preview)
                    if not await self._read_on(page.doc_id):
                        break
                    if await self._quote(i, rt.subquestions[i], self._docs_cited(i)):
                        break
                    if not self._read_on_has_prose(page.doc_id, shown_before, sq):
                        break  # the page has run into menus and footers: stop reading it
                if i in self._answered() or self.read_on_steps >= READ_ON_STEPS:
                    break

    async def collect(self) -> None:
        rt = self.rt
        rt.ensure_subquestions()
        subqs = rt.subquestions
        await self._search_and_fetch([(i, _query(sq)) for i, sq in enumerate(subqs)], per_subq=1)
        await self._quote_round(list(range(len(subqs))), per_subq=2)
        await self._read_further(list(range(len(subqs))))
        await self._thin_fallback(list(range(len(subqs))))
        # The convergence rules decide whether one more, different, action is worth it.
        for _ in range(rt.budgets.tool_calls):  # each pass spends budget; the bound is a backstop
            if rt.meter.draft_only:
                break
            decision = await rt.converge("rules", None, "stall" if rt.stall.stalled else "policy")
            if decision.decision != "CONTINUE" or not decision.next_action:
                break
            m = re.match(
                r"(search for|fetch) (?:sub-question (\d+)|(\S+) for sub-question (\d+))",
                decision.next_action,
            )
            if not m:
                break
            if m.group(1) == "search for":
                i = int(m.group(2)) - 1
                await self._search_and_fetch([(i, _query(subqs[i]))], per_subq=1)
            else:
                i = int(m.group(4)) - 1
                url = m.group(3)
                if self._tried(url):
                    break  # never the same URL twice, nor one refused for good
                hit = next((h for _, h in rt.hits if h.url == url), None)
                subject = question_subject(rt.record.question)
                if hit is None or self._worth_fetching(subqs[i], hit, subject) is None:
                    break  # a weak hit costs a fetch and rarely yields a span
                await self._fetch([(i, url)])
            before = len(self.claims)
            await self._quote_round([i], per_subq=1)
            if len(self.claims) == before and rt.stall.stalled:
                continue

    async def draft(self) -> Draft:
        summary_words: list[str] = []
        for c in self.claims:
            words = c.text.split()
            if len(summary_words) + len(words) > 150:
                break
            summary_words.extend(words)
        args = {
            "claims": [c.model_dump() for c in self.claims],
            "summary": " ".join(summary_words),
            "injection_observed": self.injection_observed,
            "needs_human": False,
        }
        start = len(self.rt.claim_subquestions)
        outcome = await self._call("draft_answer", args)
        if not outcome.ok:  # cannot happen with spans from this run; keep the run honest if it does
            why = outcome.error.message if outcome.error else "the call did not run"
            self.rt.record.errors.append(f"extractive draft rejected: {why}")
            return fallback_draft(self.rt, "extractive draft rejected")
        for n, i in enumerate(self.claim_subq):
            self.rt.claim_subquestions[start + n] = i
        return outcome.result

    async def targeted_round(self, subq_indices: list[int]) -> tuple[Draft | None, dict[int, int]]:
        """One more search round, with different terms, for sub-questions left unsupported.

        Returns the supplementary draft (or None) and its claim -> sub-question map.
        """
        rt = self.rt
        rt.start_targeted_round()
        first_claim = len(self.claims)
        targets = []
        for i in subq_indices:
            previous = next((q for q in rt.queries if overlap(rt.subquestions[i], q) > 0), "")
            targets.append((i, _keyword_query(rt.subquestions[i], previous)))
        await self._search_and_fetch(targets, per_subq=1)
        await self._quote_round(subq_indices, per_subq=1)
        new_claims = self.claims[first_claim:]
        if not new_claims:
            return None, {}
        args = {
            "claims": [c.model_dump() for c in new_claims],
            "summary": "",
            "injection_observed": self.injection_observed,
            "needs_human": False,
        }
        outcome = await self._call("draft_answer", args)
        if not outcome.ok:
            return None, {}
        return outcome.result, dict(enumerate(self.claim_subq[first_claim:]))
