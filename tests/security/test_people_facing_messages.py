"""`fetch` and `quote` speak to the person at the terminal; the agent's tool errors keep the
wording that steers a model."""

from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner

from spanproof.cli import cli
from spanproof.core.tool_schema import FetchPageArgs, ToolFailure

AGENT_WORDING = ("search hit of this run", "Do not guess another locator", "from memory", "preview")


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _fetched_doc(home):
    hits = json.loads(
        run("search", "Media Play News publisher", "--limit", "1", "--home", home, "--json").output
    )
    return json.loads(run("fetch", hits[0]["url"], "--home", home, "--json").output)["doc_id"]


def test_fetch_of_a_malformed_url_tells_the_person_what_to_type(tmp_path):
    result = run("fetch", "notaurl", "--home", str(tmp_path))
    assert result.exit_code == 2
    assert "full http(s) URL" in result.output
    assert not any(w in result.output for w in AGENT_WORDING)


def test_fetch_off_the_allowlist_says_how_to_allow_it(tmp_path):
    result = run("fetch", "https://evil.example/x", "--home", str(tmp_path))
    assert result.exit_code == 2 and "--allow HOST" in result.output
    assert "Pick another search hit" not in result.output


def test_quote_not_found_speaks_to_the_person(tmp_path):
    home = str(tmp_path / "h")
    doc_id = _fetched_doc(home)
    result = run("quote", doc_id, "words that are not on this page at all", "--home", home)
    assert result.exit_code == 1 and "does not occur" in result.output
    assert not any(w in result.output for w in AGENT_WORDING)
    # --json keeps the tool's own error for scripts (and the agent).
    data = json.loads(
        run(
            "quote", doc_id, "words that are not on this page at all", "--home", home, "--json"
        ).output
    )
    assert data["error"] == "LOCATOR_NOT_FOUND" and "from memory" in data["message"]


def test_the_agents_tool_error_keeps_its_steering_wording(tmp_path):
    from spanproof.agent.tools import Toolbox

    from spanproof.web.env import live_web
    from spanproof.web.search import StaticSearch

    box = Toolbox(live_web(tmp_path, ["a.example"], StaticSearch([])), question="q")
    with pytest.raises(ToolFailure) as info:
        asyncio.run(box.fetch_page(FetchPageArgs(url="notaurl")))
    assert "search hit of this run" in info.value.detail.message


def test_injection_only_accepts_the_technique_names_its_table_prints(tmp_path):
    result = run(
        "injection", "--only", "css-hidden-display-none", "--json", "--home", str(tmp_path)
    )
    data = json.loads(result.output)
    assert result.exit_code == 0 and data["pages"] == 1
    assert list(data["by_technique"]) == ["css-hidden-display-none"]
    unknown = CliRunner().invoke(cli, ["injection", "--only", "nope", "--home", str(tmp_path)])
    assert unknown.exit_code == 2 and "technique" in unknown.output
