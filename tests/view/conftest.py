"""The viewer on a real loopback port, a real headless Chromium, and a home built by real runs.

Browser fixtures are session-scoped: one home (an offline `ask`, two gate runs and a run
whose page holds markup), one server, one browser for the whole session.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

from tests.view import homes

CHROMIUM = os.environ.get("SPANPROOF_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("SPANPROOF_CHROMEDRIVER", "/usr/bin/chromedriver")
SCREENSHOTS = Path(
    os.environ.get(
        "SPANPROOF_VIEW_SCREENSHOTS",
        Path(__file__).resolve().parents[2] / "out" / "view-screenshots",
    )
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """uvicorn serving the viewer app in a thread, on 127.0.0.1."""

    def __init__(self, settings):
        import uvicorn

        from spanproof.view.app import create_app

        self.settings = settings
        self.app = create_app(settings)
        config = uvicorn.Config(
            self.app, host=settings.host, port=settings.port, log_level="warning"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.settings.port}"

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the viewer did not start within 20 s")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="session")
def built_home(tmp_path_factory) -> dict:
    home = tmp_path_factory.mktemp("view-home")
    run_id = homes.ask_run(home)
    homes.gate_runs(home, tmp_path_factory.mktemp("view-config"))
    hostile = homes.hostile_run(home)
    return {"home": home, "ask_run": run_id, "hostile_run": hostile}


@pytest.fixture(scope="session")
def live_view(built_home):
    from spanproof.view.settings import ViewSettings

    settings = ViewSettings(home=built_home["home"], port=free_port(), reviewer="rev-one")
    with LiveServer(settings) as server:
        yield server


@pytest.fixture(scope="session")
def markup_view(tmp_path_factory):
    """A home holding only the run whose page text is markup (cheap, for the escaping test)."""
    from spanproof.view.settings import ViewSettings

    home = tmp_path_factory.mktemp("markup-home")
    run_id = homes.hostile_run(home)
    with LiveServer(ViewSettings(home=home, port=free_port())) as server:
        server.run_id = run_id
        yield server


def _need_browser() -> None:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not shutil.which(p)]
    if missing:
        message = (
            f"{', '.join(missing)} not installed: `apt-get install chromium chromium-driver` "
            "(.ci/run does this on a fresh machine)"
        )
        if os.environ.get("CI"):
            pytest.fail(message)  # CI must run the browser tests, never skip them
        pytest.skip(message)


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    _need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--window-size=1400,1000",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):  # fmt: skip
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
