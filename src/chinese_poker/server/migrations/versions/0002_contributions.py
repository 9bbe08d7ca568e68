"""Fair shuffles with players' randomness: the contributions each deal used.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``hands.contributions`` (JSON: player -> the value his client sent)."""
    with op.batch_alter_table("hands") as batch:
        batch.add_column(sa.Column("contributions", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("contributions")
