"""A page that sends its headers at once and then one byte at a time is given up at the
whole-page deadline (--fetch-timeout), not held open for as long as bytes keep coming: the
read timeout alone restarts with every byte."""

from __future__ import annotations

import json
import threading
import time

import pytest
from click.testing import CliRunner
from werkzeug import Request, Response
from werkzeug.serving import make_server

from spanproof.cli import cli

PAGE = b"<html><head><title>Slow</title></head><body><p>" + b"The bridge opened in 2021. " * 20
PAGE += b"</p></body></html>"
DRIP_S = 0.3  # ~600 bytes: about 3 minutes if nothing stopped it
FETCH_TIMEOUT_S = 1.5


class TricklePage:
    def __init__(self) -> None:
        self.stop = threading.Event()
        self.requests = 0
        self._server = make_server("127.0.0.1", 0, self._app, threaded=True)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/slow"

    def __enter__(self) -> TricklePage:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self._server.shutdown()
        self._thread.join(5)

    def _app(self, environ, start_response):
        Request(environ)
        self.requests += 1

        def drip():
            for i in range(len(PAGE)):
                if self.stop.wait(DRIP_S):
                    return
                yield PAGE[i : i + 1]

        response = Response(drip(), content_type="text/html", direct_passthrough=True)
        return response(environ, start_response)


@pytest.fixture
def slow_page():
    with TricklePage() as page:
        yield page


def test_fetch_gives_a_trickling_page_up_at_the_whole_page_deadline(tmp_path, slow_page):
    started = time.monotonic()
    result = CliRunner().invoke(cli, [
        "fetch", slow_page.url, "--live", "--allow-network", "127.0.0.0/8",
        "--fetch-timeout", str(FETCH_TIMEOUT_S), "--home", str(tmp_path / "h"),
    ])  # fmt: skip
    took = time.monotonic() - started
    assert result.exit_code == 2, result.output
    assert f"did not finish within {FETCH_TIMEOUT_S:g} s" in result.output
    assert slow_page.requests == 1
    assert took < 30, f"the trickle held fetch for {took:.0f} s"  # ~3 minutes without it


def test_grade_live_marks_a_trickling_citation_unreachable(tmp_path, slow_page):
    report = tmp_path / "report.md"
    report.write_text(f"The bridge opened in 2021.[^s]\n\n[^s]: {slow_page.url}\n")
    result = CliRunner().invoke(cli, [
        "grade", str(report), "--live", "--allow-network", "127.0.0.0/8", "--json",
        "--fetch-timeout", str(FETCH_TIMEOUT_S), "--home", str(tmp_path / "h"),
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    text = json.dumps(data)
    assert "UNREACHABLE" in text and f"within {FETCH_TIMEOUT_S:g} s" in text


def test_the_default_page_deadline_bounds_a_live_fetch():
    from spanproof.web.egress import EgressPolicy

    assert 0 < EgressPolicy(allow_hosts=["x"]).page_timeout_s <= 60
