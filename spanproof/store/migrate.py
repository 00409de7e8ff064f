"""Bring a database to the newest schema, safely when many processes start at once.

Fast path: read ``alembic_version`` and stop if it is the head (no Alembic import, no
lock). Otherwise take a write lock — ``BEGIN IMMEDIATE`` on SQLite, a transaction-scoped
advisory lock on PostgreSQL — and run Alembic inside that same transaction: Alembic reads
the version again under the lock, so the second process to arrive finds the work done and
applies nothing. DDL is transactional on both backends, so a crash mid-migration leaves
the previous schema, never half of the next one.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa

from spanproof.store.engine import BEGIN_OPTION
from spanproof.store.errors import StoreError
from spanproof.store.schema import HEAD, KNOWN_REVISIONS

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
# pg_advisory_xact_lock key: any constant shared by every spanproof process ("spanproof").
PG_LOCK_KEY = 0x7370616E70726F


def current_revision(conn: sa.Connection) -> str | None:
    if not sa.inspect(conn).has_table("alembic_version"):
        return None
    return conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()


def alembic_config(conn: sa.Connection | None = None) -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["connection"] = conn
    return cfg


def alembic_head() -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise StoreError(
            f"no migrations in {MIGRATIONS_DIR}: the install is damaged; reinstall spanproof"
        )
    return head


def upgrade(engine: sa.Engine) -> bool:
    """Migrate to head; True when this call applied migrations, False when none were due."""
    with engine.connect() as conn:
        found = current_revision(conn)
    if found == HEAD:
        return False
    from alembic import command

    if engine.dialect.name == "sqlite":
        conn = engine.connect().execution_options(**{BEGIN_OPTION: "BEGIN IMMEDIATE"})
    else:
        conn = engine.connect()
    with conn, conn.begin():
        if engine.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": PG_LOCK_KEY})
        before = current_revision(conn)
        if before == HEAD:
            return False
        if before is not None and before not in KNOWN_REVISIONS:
            raise StoreError(
                f"the database is at schema {before!r}, which this spanproof does not know "
                "(a newer spanproof wrote it); upgrade spanproof on this machine"
            )
        command.upgrade(alembic_config(conn), "head")
    return True
