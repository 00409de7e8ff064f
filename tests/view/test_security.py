"""The viewer's security controls, each shown refusing what it must refuse."""

from __future__ import annotations

import httpx
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from spanproof.cli import cli
from spanproof.store import open_store
from spanproof.view.app import create_app
from spanproof.view.settings import BindError, ViewSettings, check_bind
from tests.view import homes
from tests.view.conftest import LiveServer, free_port


@pytest.fixture
def hostile_home(tmp_path):
    return tmp_path, homes.hostile_run(tmp_path)


def _client(home, **settings) -> tuple[TestClient, object]:
    app = create_app(ViewSettings(home=home, port=8765, **settings))
    return TestClient(app, base_url="http://127.0.0.1:8765"), app


def test_markup_in_stored_text_is_escaped_in_every_page(hostile_home):
    home, run_id = hostile_home
    client, _ = _client(home)
    for path in ("/runs", f"/runs/{run_id}", f"/runs/{run_id}/claims/0"):
        page = client.get(path)
        assert page.status_code == 200
        assert "<script" not in page.text.lower(), path
        assert "<img" not in page.text.lower(), path
        assert "&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;" in page.text, path
        assert "script-src 'none'" in page.headers["content-security-policy"]


def test_a_review_without_the_csrf_token_is_refused_and_stores_nothing(hostile_home):
    home, run_id = hostile_home
    client, app = _client(home)
    form = {"decision": "cut", "reviewer": "mallory", "note": "no token"}
    refused = client.post(f"/runs/{run_id}/claims/0/review", data=form)
    assert refused.status_code == 403 and "CSRF" in refused.text
    wrong = client.post(f"/runs/{run_id}/claims/0/review", data={**form, "csrf_token": "guess"})
    assert wrong.status_code == 403
    assert open_store(home=home).list_reviews(run_id) == []
    # The same form with the page's token is accepted: the refusal was the token's doing.
    token = app.state.ctx.csrf_token
    ok = client.post(f"/runs/{run_id}/claims/0/review", data={**form, "csrf_token": token},
                     follow_redirects=False)  # fmt: skip
    assert ok.status_code == 303
    assert [r.decision for r in open_store(home=home).list_reviews(run_id)] == ["cut"]


def test_a_post_from_another_origin_is_refused_even_with_the_token(hostile_home):
    home, run_id = hostile_home
    client, app = _client(home)
    form = {"decision": "cut", "reviewer": "m", "csrf_token": app.state.ctx.csrf_token}
    for origin in ("http://evil.example", "null"):
        res = client.post(f"/runs/{run_id}/claims/0/review", data=form, headers={"origin": origin})
        assert res.status_code == 403, origin


def test_an_unexpected_host_header_is_refused_on_loopback(tmp_path):
    client, _ = _client(tmp_path)
    assert client.get("/runs").status_code == 200
    rebound = client.get("/runs", headers={"host": "attacker.example:8765"})
    assert rebound.status_code == 400


def test_a_non_loopback_bind_without_a_token_refuses_to_start(tmp_path):
    with pytest.raises(BindError, match="--token auto"):
        check_bind("0.0.0.0", None)
    with pytest.raises(BindError, match="at least 16"):
        check_bind("0.0.0.0", "short")
    check_bind("127.0.0.1", None)  # loopback needs none
    port = free_port()
    res = CliRunner().invoke(
        cli, ["view", "--home", str(tmp_path), "--host", "0.0.0.0", "--port", str(port)]
    )
    assert res.exit_code == 2
    assert "refusing to bind to 0.0.0.0" in res.output
    with pytest.raises(httpx.ConnectError):  # and nothing is listening
        httpx.get(f"http://127.0.0.1:{port}/runs", timeout=2)


def test_with_a_token_every_request_must_carry_it(tmp_path):
    token = "t" * 24
    settings = ViewSettings(home=tmp_path, port=free_port(), token=token)
    with LiveServer(settings) as server, httpx.Client(base_url=server.url) as client:
        assert client.get("/runs").status_code == 401
        assert client.get("/runs?token=wrong-token-wrong-token").status_code == 401
        assert client.get("/runs", headers={"authorization": f"Bearer {token}"}).status_code == 200
        first = client.get(f"/runs?token={token}&q=x", follow_redirects=False)
        assert first.status_code == 303 and "token" not in first.headers["location"]
        assert client.get(first.headers["location"]).status_code == 200  # the cookie now serves


def test_a_cross_site_get_of_the_judges_page_makes_no_model_call(tmp_path):
    """What an <img src> on any web page sends: a GET with the set and a paid judge. It shows
    the button that judges (a POST with the CSRF token); no model is called until then."""
    from tests.wire.server import ChatServer

    with ChatServer() as model:
        client, app = _client(tmp_path, judges=["openai:paid"], base_url=model.base_url,
                              api_key="local")  # fmt: skip
        shown = client.get("/judges?set=judge_calibration&judge=openai:paid",
                           headers={"referer": "http://evil.example/page"})  # fmt: skip
        assert shown.status_code == 200 and 'action="/judges/run"' in shown.text
        assert model.count == 0
        form = {"set": "judge_calibration", "judge": "openai:paid"}
        assert client.post("/judges/run", data=form).status_code == 403  # no CSRF token
        assert (
            client.post(
                "/judges/run",
                data={**form, "csrf_token": app.state.ctx.csrf_token},
                headers={"origin": "http://evil.example"},
            ).status_code
            == 403
        )
        assert model.count == 0
        # the same request from the page itself, with its token, judges: the controls above are
        # what kept the model uncalled
        done = client.post("/judges/run", data={**form, "csrf_token": app.state.ctx.csrf_token},
                           follow_redirects=False)  # fmt: skip
        assert done.status_code == 303 and model.count > 0
        assert 'id="side-by-side"' in client.get(done.headers["location"]).text
