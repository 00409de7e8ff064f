"""Live fetches never reach loopback, link-local, private, multicast or reserved addresses
unless the user names the network; checked on the resolved address at connect time, on
every redirect hop. The test servers are real, on loopback, and reached only by opting in."""

from __future__ import annotations

import asyncio

import pytest
from click.testing import CliRunner

from spanproof.cli import cli
from spanproof.core.tool_schema import ToolFailure
from spanproof.web import egress
from spanproof.web.egress import EgressPolicy, Fetcher, address_refusal
from spanproof.web.snapshots import SnapshotStore

PAGE = "<html><head><title>Internal</title></head><body><p>INTERNAL-SECRET admin console.</p></body></html>"


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"), ("::1", "loopback"), ("::ffff:127.0.0.1", "loopback"),
        ("169.254.169.254", "link-local"), ("fe80::1%eth0", "link-local"),
        ("10.1.2.3", "private"), ("192.168.0.10", "private"), ("172.16.5.4", "private"),
        ("fd00::1", "private"), ("224.0.0.251", "multicast"), ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"), ("0.0.0.0", "unspecified"), ("100.64.0.1", "not a public"),
    ],
)  # fmt: skip
def test_non_public_addresses_are_refused_by_kind(address, kind):
    reason = address_refusal(address)
    assert reason is not None and kind in reason


def test_public_addresses_and_named_networks_pass():
    import ipaddress

    assert address_refusal("93.184.216.34") is None
    assert address_refusal("2606:4700::1111") is None
    assert address_refusal("127.0.0.5", [ipaddress.ip_network("127.0.0.0/8")]) is None
    assert address_refusal("127.0.0.5", [ipaddress.ip_network("10.0.0.0/8")]) is not None


def _fetch(tmp_path, url, allow_hosts, networks=()):
    fetcher = Fetcher(
        EgressPolicy(allow_hosts=allow_hosts, allow_networks=list(networks)),
        SnapshotStore(tmp_path / "snap"),
    )

    async def go():
        try:
            return await fetcher.fetch(url)
        finally:
            await fetcher.aclose()

    try:
        return asyncio.run(go()), fetcher.events
    except ToolFailure as failure:
        return failure, fetcher.events


def test_an_allowlisted_metadata_address_is_refused_before_any_connection(tmp_path):
    result, events = _fetch(
        tmp_path, "http://169.254.169.254/latest/meta-data/", ["169.254.169.254"]
    )
    assert isinstance(result, ToolFailure) and result.detail.error == "URL_NOT_ALLOWED"
    assert "link-local" in events[0].reason and events[0].status is None


def test_a_name_resolving_to_loopback_is_refused_at_connect_time(tmp_path, httpserver, monkeypatch):
    # DNS rebinding: the allowlist holds the name; what is checked is the address it resolves
    # to when the connection is made, and that address is the one connected to.
    httpserver.expect_request("/admin").respond_with_data(PAGE, content_type="text/html")

    async def resolve(host, port):
        return ["127.0.0.1"] if host == "rebind.example" else []

    monkeypatch.setattr(egress, "_resolve", resolve)
    url = f"http://rebind.example:{httpserver.port}/admin"
    refused, events = _fetch(tmp_path / "a", url, ["rebind.example"])
    assert isinstance(refused, ToolFailure) and "loopback" in events[-1].reason
    assert len(httpserver.log) == 0
    doc, _ = _fetch(tmp_path / "b", url, ["rebind.example"], networks=["127.0.0.1/32"])
    assert "INTERNAL-SECRET" in doc.text and len(httpserver.log) == 1


def test_every_redirect_hop_is_checked_on_its_resolved_address(tmp_path, httpserver, monkeypatch):
    httpserver.expect_request("/start").respond_with_data(
        "", status=302, headers={"Location": f"http://inner.example:{httpserver.port}/admin"}
    )

    async def resolve(host, port):
        return {"outer.example": ["127.0.0.1"], "inner.example": ["127.0.0.2"]}.get(host, [])

    monkeypatch.setattr(egress, "_resolve", resolve)
    url = f"http://outer.example:{httpserver.port}/start"
    result, events = _fetch(tmp_path, url, ["outer.example", "inner.example"], ["127.0.0.1/32"])
    assert isinstance(result, ToolFailure)
    assert events[0].reason.startswith("redirect to") and events[0].status == 302
    assert "127.0.0.2 is a loopback address" in events[1].reason
    assert [r.path for r, _ in httpserver.log] == ["/start"]


def test_grade_live_never_fetches_a_loopback_citation_unless_the_network_is_named(
    tmp_path, httpserver
):
    httpserver.expect_request("/admin").respond_with_data(PAGE, content_type="text/html")
    report = tmp_path / "r.md"
    report.write_text(
        f"The admin console holds INTERNAL-SECRET [1].\n\n[1]: {httpserver.url_for('/admin')}\n"
    )
    home = ["--home", str(tmp_path / "h")]
    result = CliRunner().invoke(cli, ["grade", str(report), "--live", "--json", *home])
    assert len(httpserver.log) == 0, "a report citing loopback made spanproof fetch it"
    assert "INTERNAL-SECRET admin console" not in result.output.replace("holds INTERNAL", "")
    assert "UNREACHABLE" in result.output and "loopback" in result.output
    opted = CliRunner().invoke(
        cli, ["grade", str(report), "--live", "--allow-network", "127.0.0.0/8", "--json", *home]
    )
    assert len(httpserver.log) == 1 and opted.exit_code == 0, opted.output


def test_fetch_live_refuses_loopback_and_names_the_opt_in(tmp_path, httpserver):
    httpserver.expect_request("/admin").respond_with_data(PAGE, content_type="text/html")
    url = httpserver.url_for("/admin")
    home = ["--home", str(tmp_path / "h")]
    refused = CliRunner().invoke(cli, ["fetch", url, "--live", *home])
    assert refused.exit_code == 2 and len(httpserver.log) == 0
    assert "loopback" in refused.output
    ok = CliRunner().invoke(cli, ["fetch", url, "--live", "--allow-network", "127.0.0.0/8", *home])
    assert ok.exit_code == 0 and "INTERNAL-SECRET" in ok.output


def test_a_malformed_network_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(
        cli,
        [
            "fetch",
            "http://x.example/",
            "--live",
            "--allow-network",
            "not-a-net",
            "--home",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 2 and "CIDR" in result.output
