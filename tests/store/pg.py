"""A real PostgreSQL server for the store tests: initdb + pg_ctl on loopback, started once per
test session (per xdist worker), one fresh database per test.

As root, PostgreSQL refuses to run, so the cluster belongs to the ``postgres`` system user
(Debian's package creates it) and is driven through ``runuser``. The server runs with
fsync off: these tests check behaviour, not durability, and must stay fast.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = (
    "PostgreSQL server binaries (initdb, pg_ctl) not found: .ci/run installs Debian's "
    "postgresql package; locally run `apt-get install postgresql` (or put initdb on PATH)"
)


def find_bindir() -> Path | None:
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).resolve().parent
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    return Path(found[0]).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class PgServer:
    bindir: Path
    root: Path
    port: int
    user: str | None  # the system user the server runs as, when we are root

    @property
    def admin_url(self) -> str:
        return f"postgresql+psycopg://spanproof@127.0.0.1:{self.port}/postgres"

    def _cmd(self, *args: str) -> list[str]:
        return ["runuser", "-u", self.user, "--", *args] if self.user else list(args)

    def _run(self, *args: str, timeout: float = 60) -> None:
        proc = subprocess.run(self._cmd(*args), capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{' '.join(args)} failed: {proc.stderr or proc.stdout}\n{tail}")

    def start(self) -> None:
        data = self.root / "data"
        self._run(str(self.bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "spanproof",
                  "-E", "UTF8", "--no-sync", "--no-instructions")  # fmt: skip
        opts = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run(str(self.bindir / "pg_ctl"), "-D", str(data), "-o", opts, "-l",
                  str(self.root / "server.log"), "-w", "-t", "60", "start")  # fmt: skip

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.root / "data"), "-m",
                      "immediate", "-w", "stop")  # fmt: skip
        shutil.rmtree(self.root, ignore_errors=True)

    def create_database(self) -> str:
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=spanproof dbname=postgres",
                             autocommit=True) as conn:  # fmt: skip
            conn.execute(f'CREATE DATABASE "{name}" STRATEGY = FILE_COPY')
        return f"postgresql+psycopg://spanproof@127.0.0.1:{self.port}/{name}"

    def drop_database(self, url: str) -> None:
        import psycopg

        name = url.rsplit("/", 1)[1]
        with (
            contextlib.suppress(Exception),
            psycopg.connect(f"host=127.0.0.1 port={self.port} user=spanproof dbname=postgres",
                            autocommit=True) as conn,
        ):  # fmt: skip
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def start_server() -> PgServer:
    bindir = find_bindir()
    if bindir is None:
        raise FileNotFoundError(INSTALL_HINT)
    user = None
    root = Path(tempfile.mkdtemp(prefix="spanproof-pg-"))
    if os.geteuid() == 0:
        user = "postgres"
        try:
            entry = pwd.getpwnam(user)
        except KeyError as exc:
            raise FileNotFoundError(
                "running as root, PostgreSQL needs a non-root user; Debian's postgresql package "
                "creates `postgres` (apt-get install postgresql)"
            ) from exc
        os.chown(root, entry.pw_uid, entry.pw_gid)
        os.chmod(root, 0o700)
    server = PgServer(bindir=bindir, root=root, port=_free_port(), user=user)
    t0 = time.monotonic()
    try:
        server.start()
    except Exception:
        server.stop()
        raise
    server.started_in = time.monotonic() - t0  # type: ignore[attr-defined]
    return server
