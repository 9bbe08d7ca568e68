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
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("live")
