"""The evidence commands, end to end on the shipped corpus, as a person or a script would run them."""

from __future__ import annotations

import json

from click.testing import CliRunner

from spanproof.cli import cli


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_search_fetch_quote_roundtrip(tmp_path):
    home = str(tmp_path / "home")
    info = json.loads(run("corpus", "info", "--json").output)
    assert info["pages"] == 349 and len(info["hosts"]) == 4
    hits = json.loads(
        run("search", "Media Play News publisher", "--limit", "3", "--home", home, "--json").output
    )
    assert len(hits) == 3 and hits[0]["url"].startswith("https://")
    fetched = run("fetch", hits[0]["url"], "--home", home, "--json")
    assert fetched.exit_code == 0
    doc = json.loads(fetched.output)
    assert doc["doc_id"].startswith("doc_") and doc["events"][0]["decision"] == "allowed"
    quoted = run(
        "quote",
        doc["doc_id"],
        "Thomas K. Arnold has been",
        "--max-chars",
        "200",
        "--home",
        home,
        "--json",
    )
    span = json.loads(quoted.output)
    assert (
        span["text"]
        == "Thomas K. Arnold has been covering the home entertainment industry for nearly three decades."
    )
    human = run(
        "quote", doc["doc_id"], "Thomas K. Arnold has been", "--max-chars", "200", "--home", home
    )
    assert span["span_id"] in human.output
    # A cap the sentence does not fit in quotes nothing and says what max_chars would do.
    short = run(
        "quote", doc["doc_id"], "Thomas K. Arnold has been", "--max-chars", "40", "--home", home,
        "--json",
    )  # fmt: skip
    refusal = json.loads(short.output)
    assert short.exit_code == 1 and refusal["error"] == "NO_SENTENCE_END" and refusal["retryable"]
    assert f"max_chars to {len(span['text'])}" in refusal["message"]


def test_errors_exit_non_zero_with_the_tool_message(tmp_path):
    home = str(tmp_path / "home")
    refused = run("fetch", "https://evil.example/x", "--home", home)
    assert refused.exit_code == 2 and "will not fetch" in refused.output  # could not run
    unknown = run("quote", "doc_0123456789abcdef", "some exact words", "--home", home, "--json")
    assert unknown.exit_code == 1 and json.loads(unknown.output)["error"] == "UNKNOWN_DOC_ID"
    invalid = run("quote", "doc_0123456789abcdef", "short", "--home", home, "--json")
    assert invalid.exit_code == 1 and json.loads(invalid.output)["error"] == "INVALID_ARGUMENTS"


def test_corpus_build_is_reproducible_from_the_cli(tmp_path):
    rows = [
        {
            "meta": {"id": "x"},
            "evidence": ["(meta data) TITLE: T", "One sentence here.", "Two sentences here."],
        }
    ]
    src = tmp_path / "w.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    a = run("corpus", "build", "--from-wice", str(src), "--out", str(tmp_path / "a"), "--json")
    b = run("corpus", "build", "--from-wice", str(src), "--out", str(tmp_path / "b"), "--json")
    assert json.loads(a.output)["pages"] == 1
    assert (tmp_path / "a" / "corpus.warc.gz").read_bytes() == (
        tmp_path / "b" / "corpus.warc.gz"
    ).read_bytes()
    assert b.exit_code == 0
    found = json.loads(
        run(
            "search",
            "sentences",
            "--corpus",
            str(tmp_path / "a"),
            "--home",
            str(tmp_path / "h"),
            "--json",
        ).output
    )
    assert found[0]["title"] == "T"
