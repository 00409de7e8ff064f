"""Each SQLite table's size on disk (``spanproof store info``)."""

from __future__ import annotations

import sqlalchemy as sa


def sqlite_table_bytes(conn: sa.Connection) -> dict[str, int]:
    """Each table's pages with its indexes, in bytes, from SQLite's ``dbstat`` table; empty
    when this SQLite was built without it (sizes then show as unknown, never as zero)."""
    try:
        rows = conn.execute(
            sa.text(
                "SELECT m.tbl_name, SUM(d.pgsize) FROM dbstat AS d "
                "JOIN sqlite_master AS m ON m.name = d.name GROUP BY m.tbl_name"
            )
        ).all()
    except sa.exc.OperationalError:
        return {}
    return {str(name): int(size) for name, size in rows}
