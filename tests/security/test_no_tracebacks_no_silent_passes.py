"""Hostile or damaged inputs end in a clear message and the right exit code, never a
traceback, and nothing is judged, published or passed silently."""

from __future__ import annotations

import json

from click.testing import CliRunner
from starlette.testclient import TestClient

from spanproof.cli import cli
from tests.view import homes

JACKALOPES = "https://blog.wice.example/jackalopes-hire-todd-watson-as-new-head-coach-north-american-0cd61c67"


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_a_url_whose_host_cannot_be_read_is_refused_never_a_traceback(tmp_path):
    result = run("fetch", "http://999.1.1.1/", "--live", "--home", str(tmp_path / "h"))
    assert result.exit_code == 2, result.output
    assert (
        "malformed URL" in result.output
        and result.exception is None
        or isinstance(result.exception, SystemExit)
    )


def test_a_report_citing_an_octal_loopback_address_grades_it_unreachable(tmp_path):
    report = tmp_path / "r.md"
    report.write_text("The bridge opened in 2021.[^a]\n\n[^a]: http://0177.0.0.1/x\n")
    result = run("grade", str(report), "--live", "--json", "--home", str(tmp_path / "h"))
    assert result.exit_code == 0, result.output
    (source,) = json.loads(result.stdout)["sources"]
    assert source["reachable"] is False and "not a URL that can be fetched" in source["reason"]


def _damaged_home(tmp_path):
    home = tmp_path / "h"
    assert run("fetch", JACKALOPES, "--home", str(home)).exit_code == 0
    warc = home / "snapshots" / "snapshots.warc.gz"
    data = bytearray(warc.read_bytes())
    for i in range(len(data) // 2, len(data) // 2 + 32):
        data[i] ^= 0xFF
    warc.write_bytes(bytes(data))
    return home


def test_a_damaged_snapshot_is_exit_2_with_the_fix_in_quote_fetch_and_ask(tmp_path):
    home = str(_damaged_home(tmp_path))
    for args in (
        ("quote", "doc_4fa4c3383369efd5", "announced on Monday that they have hired"),
        ("fetch", JACKALOPES),
        ("ask", "Who did the Odessa Jackalopes hire as head coach in May 2019?"),
    ):
        result = run(*args, "--home", home)
        assert result.exit_code == 2, (args, result.output)
        assert isinstance(result.exception, SystemExit), (args, result.exception)
        assert "is damaged" in result.stderr and "fetch the page again" in result.stderr
        assert all(c.isascii() or c == "…" for c in result.stderr), "raw bytes reached the terminal"


def test_a_damaged_snapshot_index_is_exit_2_with_the_fix_in_ask_quote_fetch_and_runs_show(
    tmp_path,
):
    home = tmp_path / "h"
    question = "Who did the Odessa Jackalopes hire as head coach in May 2019?"
    assert run("ask", question, "--home", str(home)).exit_code == 0
    index = home / "snapshots" / "index.sqlite"
    for leftover in index.parent.glob("index.sqlite-*"):
        leftover.unlink()
    index.write_bytes(b"this is not a database " * 100)
    for args in (
        ("ask", question),
        ("quote", "doc_4fa4c3383369efd5", "announced on Monday that they have hired"),
        ("fetch", JACKALOPES),
        ("runs", "show", "last"),
    ):
        result = run(*args, "--home", str(home))
        assert result.exit_code == 2, (args, result.output)
        assert isinstance(result.exception, SystemExit), (args, result.exception)
        assert f"The snapshot index {index} is damaged" in result.stderr, args
        assert "delete index.sqlite" in result.stderr and "rebuilt from snapshots.warc.gz" in (
            result.stderr
        )
    index.unlink()  # the fix the message gives
    quoted = run("quote", "doc_4fa4c3383369efd5", "announced on Monday that they have hired",
                 "--home", str(home))  # fmt: skip
    assert quoted.exit_code == 0, quoted.output
    assert run("runs", "show", "last", "--home", str(home)).exit_code == 0


def test_a_snapshot_index_sqlite_cannot_open_is_exit_2_saying_what_to_check(tmp_path):
    home = tmp_path / "h"
    (home / "snapshots" / "index.sqlite").mkdir(parents=True)  # a folder where the file goes
    result = run("fetch", JACKALOPES, "--home", str(home))
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert "could not be used (unable to open database file)" in result.stderr
    assert "is readable and writable" in result.stderr


def test_a_page_number_beyond_any_store_shows_the_last_page(tmp_path):
    from spanproof.view.app import create_app
    from spanproof.view.settings import ViewSettings

    homes.hostile_run(tmp_path)
    client = TestClient(create_app(ViewSettings(home=tmp_path, port=8765)),
                        base_url="http://127.0.0.1:8765")  # fmt: skip
    page = client.get("/runs?page=" + "9" * 40)
    assert page.status_code == 200
    assert "run_hostile_markup" in page.text  # the last (only) page


def test_calibrate_where_every_pair_errored_exits_2_and_says_why(tmp_path):
    from tests.wire.server import ChatServer, text_reply

    pairs = tmp_path / "mine.jsonl"  # not the gated set: its thresholds would never apply
    pairs.write_text(
        json.dumps({"id": "a", "claim": "The council met.", "span": "The council met on Monday.",
                    "label": "SUPPORTED"}) + "\n"
    )  # fmt: skip
    with ChatServer(text_reply("I cannot answer in JSON.")) as server:
        result = run("calibrate", "--set", str(pairs), "--judge", "openai:chatty", "--no-cache",
                     "--base-url", server.base_url, "--api-key", "local",
                     "--home", str(tmp_path / "h"))  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "1 of 1 pairs got a judge error" in result.stderr
    assert "measured nothing" in result.stderr


def test_a_pair_line_with_a_duplicate_key_is_refused_not_judged_on_the_last_value(tmp_path):
    pairs = tmp_path / "dup.jsonl"
    pairs.write_text('{"id": "a", "claim": "The council met.", "span": "The council met on '
                     'Monday.", "label": "SUPPORTED", "label": "NOT_SUPPORTED"}\n')  # fmt: skip
    result = run("verify", "--pairs", str(pairs), "--home", str(tmp_path / "h"))
    assert result.exit_code == 2, result.output
    assert "key 'label' appears twice" in result.output
    assert "No pair was judged" in result.output


def test_markup_in_a_stored_claim_is_text_in_the_markdown_ledger(tmp_path):
    run_id = homes.hostile_run(tmp_path)
    out = tmp_path / "brief.md"
    result = run("runs", "show", run_id, "--markdown", str(out), "--home", str(tmp_path))
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "<script" not in text.lower() and "<img" not in text.lower()
    assert "&lt;script&gt;" in text


def test_rich_markup_in_page_text_is_printed_as_written(tmp_path, capsys):
    from spanproof.cli.agent import render_answer
    from spanproof.store import open_store

    run_id = homes.hostile_run(tmp_path)
    record = open_store(home=tmp_path).get_run(run_id)
    from spanproof.agent.runstore import parse_record

    rec = parse_record(record.run_id, record.record)
    rec.answer.summary = "A page said [/bold] and [red]hidden[/red] things."
    render_answer(rec, rich_ok=True)  # a closing tag with no opening one raised MarkupError
    assert "[/bold]" in capsys.readouterr().out
