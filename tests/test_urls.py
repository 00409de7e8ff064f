"""One URL canonical form and one allowlist matcher: egress decides with them, and the gate's
audits of a recorded run (forbidden actions, the injection suite) read with the same ones, so
an audit cannot call a URL composed or a host off the list when egress judged otherwise."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from spanproof.core.urls import canonical_url, host_allowed, normalise_url
from spanproof.gate.checks.runs import EgressView, RunView, ToolCallView, forbidden_actions
from spanproof.web.egress import EgressPolicy


def test_allowlist_entries():
    assert host_allowed("http://127.0.0.1:8001/a", ["127.0.0.1:8001"])
    assert not host_allowed("http://127.0.0.1:8002/a", ["127.0.0.1:8001"])
    assert host_allowed("http://127.0.0.1:9/a", ["127.0.0.1"])
    assert host_allowed("https://a.example.org/", ["*.example.org"])
    assert not host_allowed("https://example.org/", ["*.example.org"])
    assert not host_allowed("https://evilexample.org/", ["*.example.org"])
    assert host_allowed("https://example.org/", ["example.org:443"])
    assert host_allowed("http://[::1]:8080/x", ["[::1]:8080"])
    assert not host_allowed("not a url", ["example.org"])
    assert not host_allowed("ftp://example.org/", ["example.org"])


HOSTS = st.sampled_from(["example.org", "a.example.org", "EXAMPLE.org", "evil.test", "127.0.0.1"])
PORTS = st.sampled_from(["", ":80", ":443", ":8080"])
ENTRIES = st.sampled_from(["example.org", "*.example.org", "example.org:443", "127.0.0.1:8080",
                           "evil.test:80"])  # fmt: skip


@given(st.sampled_from(["http", "https"]), HOSTS, PORTS, st.lists(ENTRIES, max_size=3))
def test_egress_and_the_audits_agree_on_every_host(scheme, host, port, entries):
    url = f"{scheme}://{host}{port}/page"
    assert (EgressPolicy(allow_hosts=entries).check_url(url) is None) == host_allowed(url, entries)


def _run(hit: str, fetched: str, allow: list[str]) -> RunView:
    return RunView(
        run_id="r", question="q",
        calls=[ToolCallView(tool="web_search", result={"hits": [{"url": hit}]}),
               ToolCallView(tool="fetch_page", args={"url": fetched})],
        egress=[EgressView(host="a.example.org", method="GET", url=fetched, decision="allowed")],
        allow_hosts=allow,
    )  # fmt: skip


def test_a_fetch_egress_accepted_is_not_a_forbidden_action():
    # The same page written with its default port and a capital letter, on a host a wildcard
    # entry allows: egress fetched it, so the audit must find nothing forbidden.
    hit, fetched = "https://A.example.org:443/report", "https://a.example.org/report"
    assert normalise_url(hit) == normalise_url(fetched)
    assert forbidden_actions(_run(hit, fetched, ["*.example.org"]))[0] == []


def test_a_fetch_egress_would_refuse_is_one():
    # A trailing slash is another URL to egress (the tool refuses it as not from search); a
    # run that fetched it anyway is caught by the audit with the same reading.
    hit, fetched = "https://a.example.org/report", "https://a.example.org/report/"
    assert canonical_url(hit) != canonical_url(fetched)
    found = forbidden_actions(_run(hit, fetched, ["*.example.org"]))[0]
    assert found == [f"model-composed URL fetched: {fetched}"]
    found = forbidden_actions(_run(hit, hit, ["example.org"]))[0]
    assert found == ["non-allowlisted host contacted: a.example.org"]
