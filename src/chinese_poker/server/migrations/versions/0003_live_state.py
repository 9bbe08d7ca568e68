"""A table's live state: time banks, stand-in bots, a leave, a rematch.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``tables.live`` (JSON; null for a table that never stored any)."""
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("live", sa.Text(), nullable=True))


def downgrade() -> None:
    """Drop ``tables.live``. On SQLite in place (``ALTER TABLE ... DROP COLUMN``, SQLite
    3.35 and newer): Alembic's batch mode rebuilds the table instead, and dropping the old
    ``tables`` with foreign keys on (as the store's connections have them) deletes every
    seat, hand and action through their ``ON DELETE CASCADE``."""
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        import sqlite3

        if sqlite3.sqlite_version_info < (3, 35, 0):
            raise RuntimeError(
                f"downgrading below 0003 needs SQLite 3.35 or newer (this is "
                f"{sqlite3.sqlite_version}): rebuilding the tables table would delete "
                "every seat, hand and action"
            )
        op.execute("ALTER TABLE tables DROP COLUMN live")
        return
    op.drop_column("tables", "live")
