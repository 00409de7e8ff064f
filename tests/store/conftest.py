"""Fixtures: a store URL for each backend (SQLite file, real PostgreSQL database)."""

from __future__ import annotations

import os

import pytest

from tests.store.pg import INSTALL_HINT, start_server


@pytest.fixture(scope="session")
def pg_server():
    try:
        server = start_server()
    except FileNotFoundError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"{exc} (CI must run the PostgreSQL tests: .ci/run installs the server)")
        pytest.skip(str(exc) or INSTALL_HINT)
    yield server
    server.stop()


@pytest.fixture
def pg_url(pg_server):
    url = pg_server.create_database()
    yield url
    from spanproof.store import close_all

    close_all()
    pg_server.drop_database(url)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """A fresh, empty database of each backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.sqlite'}"
    else:
        yield request.getfixturevalue("pg_url")
