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
from dataclasses import dataclass

from spanproof.agent.convergence import (
    NUMBER,
    content_words,
    expects_number,
    overlap,
    question_subject,
    relevance,
)
from spanproof.agent.loop import Runtime, ensure_subquestions, first_sentence, names_subject
from spanproof.agent.record import Draft, DraftClaim
from spanproof.agent.tool_schema import FetchPageResult

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


@dataclass
class Candidate:
    score: float
    doc_id: str
    sentence: str
    order: int
    locator: str  # verbatim from the preview, 12..240 chars, starting at the sentence


def _sentences(preview: str, truncated: bool) -> list[tuple[int, str]]:
    """(offset in the preview, sentence) for every sentence pysbd finds, block by block."""
    from spanproof.agent.tools import sentence_ends

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
    return out


def _looks_like_prose(sentence: str) -> bool:
    from spanproof.graders.instructions import contains_instructions

    if not (MIN_SENTENCE <= len(sentence) <= MAX_SENTENCE):
        return False
    if sentence.endswith("?") or len(sentence.split()) < 3:
        return False
    if not re.search(r"[.!\"”')\]]$", sentence):
        return False  # headings, navigation and captions rarely end like sentences
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


def _candidates(
    subquestion: str, previews: list[FetchPageResult], subject: set[str]
) -> list[Candidate]:
    found = []
    order = 0
    for page in previews:
        # A page that does not name (most of) the question's subject is not about it,
        # whatever its sentences share with the question's other words.
        about = page.title + " " + page.preview
        if not names_subject(about, subject):
            continue
        if not names_its_numbers(subquestion, about):
            continue
        for offset, sentence in _sentences(page.preview, page.truncated):
            order += 1
            if not _looks_like_prose(sentence):
                continue
            score = relevance(subquestion, sentence, subject)
            if score < MIN_OVERLAP or answer_strength(subquestion, sentence, subject) < MIN_ANSWER:
                continue
            # A sentence shorter than the locator minimum is located by running on
            # into the text after it; the span still ends at the sentence's end.
            locator = page.preview[offset : offset + min(240, max(12, len(sentence)))]
            if len(locator) >= 12:
                found.append(Candidate(score, page.doc_id, sentence, order, locator))
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
            if rt.draft_only or rt.remaining()["searches"] <= 0 or not query:
                continue
            out = await rt.web_search({"query": query})
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
        spare = rt.remaining()["tool_calls"] - rt.budgets.draft_reserve - len(targets)
        allowance = max(0, min(rt.remaining()["fetches"], spare))
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
        outcomes = await self.rt.fetch_pages([(None, {"url": url}) for _, url in chosen])
        for (i, _), outcome in zip(chosen, outcomes, strict=True):
            if outcome.ok and isinstance(outcome.result, FetchPageResult):
                page = outcome.result
                self.previews[page.doc_id] = page
                self.doc_subq.setdefault(page.doc_id, i)
                if self.injection_observed is None:
                    self.injection_observed = instruction_note(
                        page.title + "\n\n" + page.preview, page.doc_id
                    )

    def _quote(self, i: int, subquestion: str, docs_used: set[str]) -> bool:
        """Quote the best unused sentence for a sub-question; prefer a document not yet cited."""
        rt = self.rt
        subject = question_subject(rt.record.question)
        cands = [
            c
            for c in _candidates(subquestion, list(self.previews.values()), subject)
            if c.sentence not in self.quoted
        ]
        cands.sort(key=lambda c: (c.doc_id in docs_used, -c.score, c.order))
        for cand in cands[:3]:
            if rt.draft_only:
                return False
            self.quoted.add(cand.sentence)
            locator = cand.locator
            args = {
                "doc_id": cand.doc_id,
                "locator": locator,
                "max_chars": max(40, min(900, len(cand.sentence) + 1)),
                "purpose": "support_claim",
            }
            outcome = rt.extract_quote(args)
            if not outcome.ok and outcome.error.error == "NO_SENTENCE_END" and not rt.draft_only:
                # The stored text's sentence runs on past the preview's: take the advised cap.
                advised = re.search(r"max_chars to (\d+)", outcome.error.message)
                if advised and int(advised.group(1)) <= 900:
                    outcome = rt.extract_quote({**args, "max_chars": int(advised.group(1))})
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
                    confidence=round(cand.score, 2),
                )
            )
            self.claim_subq.append(i)
            docs_used.add(cand.doc_id)
            return True
        return False

    async def _quote_round(self, indices: list[int], per_subq: int) -> None:
        rt = self.rt
        for _ in range(per_subq):
            for i in indices:
                if rt.draft_only or rt.remaining()["spans"] <= 0:
                    return
                used = {
                    rt.tb.spans[sid].doc_id
                    for c, k in zip(self.claims, self.claim_subq, strict=True)
                    if k == i
                    for sid in c.span_ids
                }
                self._quote(i, rt.subquestions[i], used)

    async def collect(self) -> None:
        rt = self.rt
        ensure_subquestions(rt)
        subqs = rt.subquestions
        await self._search_and_fetch([(i, _query(sq)) for i, sq in enumerate(subqs)], per_subq=1)
        await self._quote_round(list(range(len(subqs))), per_subq=2)
        # The convergence rules decide whether one more, different, action is worth it.
        for _ in range(rt.budgets.tool_calls):  # each pass spends budget; the bound is a backstop
            if rt.draft_only:
                break
            decision = await rt.converge("rules", None, "stall" if rt.stalled else "policy")
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
            if len(self.claims) == before and rt.stalled:
                continue

    def draft(self) -> Draft:
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
        outcome = self.rt.submit_draft(args, origin="policy")
        if not outcome.ok:  # cannot happen with spans from this run; keep the run honest if it does
            self.rt.record.errors.append(f"extractive draft rejected: {outcome.error.message}")
            return self.rt.fallback_draft("extractive draft rejected")
        for n, i in enumerate(self.claim_subq):
            self.rt.claim_subquestions[start + n] = i
        return outcome.result

    async def targeted_round(self, subq_indices: list[int]) -> tuple[Draft | None, dict[int, int]]:
        """One more search round, with different terms, for sub-questions left unsupported.

        Returns the supplementary draft (or None) and its claim -> sub-question map.
        """
        rt = self.rt
        rt.draft_slot = "supplementary_draft"
        rt.draft_forced = None
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
        outcome = rt.submit_draft(args, origin="policy")
        if not outcome.ok:
            return None, {}
        return outcome.result, dict(enumerate(self.claim_subq[first_claim:]))
