"""Alembic environment: always runs on a connection the store hands over, inside the
transaction (and lock) the store holds, so concurrent first starts migrate exactly once."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None)
with context.begin_transaction():
    context.run_migrations()
