"""`spanproof corpus|search|fetch|quote`: the evidence layer from a terminal.

Thin wrappers over agent.corpus / agent.web / agent.tools. Every command
takes --home (state directory) and --json (one JSON document on stdout,
nothing else). A fetch that is refused or fails exits 2 (the command could
not do its job: nothing was stored); a quote the document does not give
exits 1 (an answer: not there). Either way the message is written for the
person at the terminal (`for_person`); the tool's own wording, which steers
a model ("Do not guess another locator from memory"), stays in the agent's
tool errors and in the --json output's `message`.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from spanproof.cli import options
from spanproof.cli.options import echo_json, progress_printer
from spanproof.store.home import resolve_home

if TYPE_CHECKING:
    from spanproof.core.tool_schema import FetchPageResult, ToolError, ToolFailure

HOME_HELP = "State directory (snapshot store, indexes). Default: $SPANPROOF_HOME, else the per-user data dir."
CORPUS_HELP = (
    "Corpus directory (corpus.warc.gz + manifest.jsonl). Default: the shipped WiCE corpus."
)

home_option = options.home_option(HOME_HELP)
json_option = options.json_option("Print one JSON document on stdout.")
corpus_option = click.option(
    "--corpus",
    "corpus_dir",
    type=click.Path(file_okay=False, exists=True),
    default=None,
    envvar="SPANPROOF_CORPUS",
    help=CORPUS_HELP,
)


def _emit(as_json: bool, payload: Any, human: str) -> None:
    if as_json:
        echo_json(payload)
    else:
        click.echo(human)


def for_person(detail: ToolError, *, url: str = "", doc_id: str = "", reason: str = "") -> str:
    """What a refusal means to a person at the terminal, and what they can do about it.

    ``reason``: the egress event's reason for a refused fetch (which control refused it)."""
    code = detail.error
    if code == "URL_NOT_ALLOWED":
        why = reason.removeprefix("URL_NOT_ALLOWED: ") or detail.message
        if "address refused" in why or "not public" in why:
            return (
                f"spanproof will not fetch {url}: {why.removeprefix('address refused: ')}. "
                "Live fetches reach public addresses only; to fetch a server on your own "
                "machine or network, name it with --allow-network (e.g. --allow-network "
                "127.0.0.0/8)."
            )
        if "allowlist" in why:
            return (
                f"spanproof will not fetch {url}: {why}. With --live, allow the host with "
                "--allow HOST (repeatable); offline, only the corpus's hosts can be fetched "
                "(`spanproof corpus info`)."
            )
        return f"spanproof will not fetch {url}: {why}."
    if code == "URL_NOT_FROM_SEARCH":
        return f"{url!r} is not a URL spanproof can fetch: give a full http(s) URL."
    if code == "FETCH_FAILED":
        return f"Could not fetch {url}: {reason.removeprefix('FETCH_FAILED: ') or detail.message}. Check the URL and that the site is up, then try again."
    if code in ("TOO_LARGE", "UNSUPPORTED_CONTENT_TYPE"):
        return detail.message.replace(" Pick another search hit.", "").replace(
            " Pick a shorter source.", ""
        )
    if code == "LOCATOR_NOT_FOUND":
        return (
            f"The text you gave does not occur in {doc_id}. Copy 12-240 characters exactly as "
            f"they appear in the page (see `spanproof fetch` output), with the same "
            "punctuation and quotation marks."
        )
    if code == "LOCATOR_AMBIGUOUS":
        return (
            f"The text you gave occurs more than once in {doc_id}. Add the words that follow "
            "the occurrence you mean; each occurrence continues as listed below."
        )
    if code == "NO_SENTENCE_END":
        return detail.message.replace(
            "choose a locator nearer the sentence needed",
            "start the quote nearer the sentence you want",
        ).replace("copied verbatim from the preview", "copied exactly from the page")
    return detail.message


def _fail(as_json: bool, failure: ToolFailure, *, exit_code: int = 1, **context: str) -> None:
    detail = failure.detail
    if as_json:
        click.echo(detail.model_dump_json(indent=2))
    else:
        click.echo(f"error: {for_person(detail, **context)}", err=True)
        for option in detail.options:
            click.echo(f"  - {option}", err=True)
    sys.exit(exit_code)


@click.group()
def corpus() -> None:
    """Build or describe an offline web corpus.

    \b
    Examples:
      spanproof corpus info                     # the shipped corpus: pages, hosts, size
      spanproof corpus build --from-wice ../shared/data/wice/dev.jsonl --out goldens/corpus
    """


@corpus.command("build")
@click.option(
    "--from-wice",
    "from_wice",
    type=click.Path(dir_okay=False, exists=True),
    required=True,
    help="WiCE JSONL (dev split): each unique cited page becomes one HTML page.",
)
@click.option(
    "--out", "out_dir", type=click.Path(file_okay=False), required=True, help="Output directory."
)
@home_option
@json_option
def corpus_build(from_wice: str, out_dir: str, home: str | None, as_json: bool) -> None:
    """Turn WiCE pages into a WARC corpus; the same input gives byte-identical output.

    \b
    Examples:
      spanproof corpus build --from-wice ../shared/data/wice/dev.jsonl --out goldens/corpus
      spanproof corpus build --from-wice dev.jsonl --out my-corpus --json
      spanproof search "head coach" --corpus my-corpus     # then use it anywhere with --corpus
    """
    import time

    from spanproof.web.corpus import build_corpus_from_wice

    started = time.perf_counter()
    info = build_corpus_from_wice(from_wice, out_dir, progress=progress_printer(as_json))
    payload = info.model_dump() | {"seconds": round(time.perf_counter() - started, 3)}
    _emit(
        as_json,
        payload,
        f"built {info.pages} pages into {out_dir} ({info.warc_bytes / 1e6:.2f} MB WARC, "
        f"hosts: {', '.join(info.hosts)})",
    )


@corpus.command("info")
@corpus_option
@home_option
@json_option
def corpus_info_cmd(corpus_dir: str | None, home: str | None, as_json: bool) -> None:
    """Pages, hosts and size of a corpus.

    \b
    Examples:
      spanproof corpus info                     # the shipped corpus
      spanproof corpus info --corpus my-corpus --json
    """
    from spanproof.web.corpus import corpus_info
    from spanproof.web.env import default_corpus_dir

    info = corpus_info(Path(corpus_dir) if corpus_dir else default_corpus_dir())
    _emit(
        as_json,
        info.model_dump(),
        f"{info.path}\n  pages: {info.pages}\n  WARC:  {info.warc_bytes / 1e6:.2f} MB "
        f"({info.html_bytes / 1e6:.2f} MB of HTML)\n  hosts: {', '.join(info.hosts)}",
    )


@click.command()
@click.argument("query")
@corpus_option
@click.option(
    "--limit", type=click.IntRange(1, 50), default=8, show_default=True, help="Hits to return."
)
@home_option
@json_option
def search(query: str, corpus_dir: str | None, limit: int, home: str | None, as_json: bool) -> None:
    """Search the offline corpus (bm25 over title and text). Snippets are not evidence.

    The first search builds the corpus's index under the home (a few seconds, once).

    \b
    Examples:
      spanproof search "Odessa Jackalopes head coach"
      spanproof search "Liz Patterson congresswoman" --limit 3 --json
      spanproof search "head coach" --corpus my-corpus
    """
    from spanproof.web.env import default_corpus_dir
    from spanproof.web.search import LocalIndex

    index = LocalIndex(
        Path(corpus_dir) if corpus_dir else default_corpus_dir(),
        home=resolve_home(home),
        progress=progress_printer(as_json),
    )
    hits = index.search_sync(query, limit)
    human = "\n\n".join(
        f"{i}. {h.title}\n   {h.url}\n   {h.snippet}" for i, h in enumerate(hits, 1)
    )
    _emit(as_json, [h.model_dump() for h in hits], human or "no hits")


@click.command()
@click.argument("url")
@corpus_option
@click.option("--live", is_flag=True, help="Fetch from the network instead of the offline corpus.")
@click.option(
    "--allow",
    "allow",
    multiple=True,
    help="With --live: allowlisted host (host, host:port or *.suffix); repeatable. Default: the URL's host.",
)
@click.option(
    "--record",
    "record_to",
    type=click.Path(dir_okay=False),
    default=None,
    help="With --live: also append the responses to this WARC (replay it later with --corpus).",
)
@click.option("--preview-chars", type=click.IntRange(200, 20000), default=1500, show_default=True)
@options.allow_network_option
@options.fetch_timeout_option
@home_option
@json_option
def fetch(
    url: str,
    corpus_dir: str | None,
    live: bool,
    allow: tuple[str, ...],
    record_to: str | None,
    preview_chars: int,
    allow_networks: tuple[str, ...],
    fetch_timeout_s: float | None,
    home: str | None,
    as_json: bool,
) -> None:
    """Fetch URL through the egress policy and store it; prints doc_id, title and a preview.

    A URL typed here counts as given in the question. Quote from the result with
    `spanproof quote DOC_ID "exact words..."`. Exit 2 when the fetch is refused or fails:
    nothing was stored (the message says which control refused it, or what failed, and what
    to do).

    \b
    Examples:
      spanproof fetch https://blog.wice.example/jackalopes-hire-todd-watson-as-new-head-coach-north-american-0cd61c67
      spanproof fetch https://example.org/report --live --record out/pages.warc.gz
      spanproof fetch http://127.0.0.1:8000/page --live --allow-network 127.0.0.0/8
    """
    from spanproof.agent.services import Services
    from spanproof.agent.tools import Toolbox

    from spanproof.core.tool_schema import FetchPageArgs, ToolFailure
    from spanproof.core.urls import host_of
    from spanproof.web.search import StaticSearch

    parts = Services(resolve_home(home))
    if live:
        try:
            env = parts.live_web(
                list(allow) or [host_of(url)], StaticSearch([]), record_to=record_to,
                allow_networks=list(allow_networks), page_timeout_s=fetch_timeout_s,
            )  # fmt: skip
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--allow-network") from exc
    else:
        env = parts.offline_web(
            Path(corpus_dir) if corpus_dir else None, progress=progress_printer(as_json)
        )
    box = Toolbox(env, question=url, preview_chars=preview_chars)

    async def run() -> FetchPageResult:
        try:
            return await box.fetch_page(FetchPageArgs(url=url))
        finally:
            await env.aclose()

    try:
        result = asyncio.run(run())
    except ToolFailure as failure:
        reason = box.events[-1].reason if box.events else ""
        _fail(as_json, failure, exit_code=2, url=url, reason=reason)  # could not run
        return
    doc = box.documents[result.doc_id]
    payload = result.model_dump() | {
        "retrieved_at": doc.retrieved_at,
        "chars": len(doc.text),
        "events": [e.model_dump() for e in box.events],
    }
    more = " (truncated)" if result.truncated else ""
    _emit(
        as_json,
        payload,
        f"{result.doc_id}  {result.title}\n{result.url}  retrieved {doc.retrieved_at}, {len(doc.text)} chars"
        f"\n\n{result.preview}{more}",
    )


@click.command()
@click.argument("doc_id")
@click.argument("locator")
@click.option(
    "--max-chars",
    type=click.IntRange(40, 900),
    default=600,
    show_default=True,
    help="The span ends at the last sentence end within this many characters.",
)
@click.option(
    "--purpose",
    type=click.Choice(
        ["support_claim", "check_contradiction", "identify_source_date", "identify_author"]
    ),
    default="support_claim",
    show_default=True,
)
@home_option
@json_option
def quote(
    doc_id: str, locator: str, max_chars: int, purpose: str, home: str | None, as_json: bool
) -> None:
    """Extract the exact span of stored document DOC_ID that starts at LOCATOR.

    LOCATOR is 12-240 characters copied verbatim from the document; it must occur exactly once.
    DOC_ID is printed by `spanproof fetch`. Exit 1 when the locator is not found, occurs more
    than once, or the document is not in the store.

    \b
    Examples:
      spanproof quote doc_4fa4c3383369efd5 "announced on Monday that they have hired"
      spanproof quote doc_4fa4c3383369efd5 "announced on Monday" --max-chars 200 --json
    """
    from pydantic import ValidationError
    from spanproof.agent.tools import Toolbox

    from spanproof.core.tool_schema import ExtractQuoteArgs, ToolFailure, validation_text
    from spanproof.web.env import SNAPSHOT_DIR
    from spanproof.web.snapshots import SnapshotStore

    try:
        args = ExtractQuoteArgs(
            doc_id=doc_id, locator=locator, max_chars=max_chars, purpose=purpose
        )
    except ValidationError as exc:
        problems = validation_text(exc)
        _fail(
            as_json,
            ToolFailure(
                "INVALID_ARGUMENTS",
                f"{problems}. A doc_id looks like doc_ + 16 hex "
                "characters; a locator is 12-240 characters.",
                retryable=True,
            ),
        )
        return
    store = SnapshotStore(resolve_home(home) / SNAPSHOT_DIR)
    box = Toolbox(env=None, question="")  # type: ignore[arg-type]  # quoting needs no web
    try:
        box.admit(store.get(doc_id))
    except KeyError:
        _fail(
            as_json,
            ToolFailure(
                "UNKNOWN_DOC_ID",
                f"{doc_id} is not in the snapshot store under this home. "
                "Fetch it first with `spanproof fetch URL` (same --home).",
                retryable=False,
            ),
        )
        return
    try:
        result = box.extract_quote(args)
    except ToolFailure as failure:
        _fail(as_json, failure, doc_id=doc_id)
        return
    _emit(
        as_json,
        result.model_dump(),
        f"{result.span_id}  [{result.char_start}:{result.char_end}]  {result.doc_url}\n\n{result.text}",
    )
