"""One owner per live table: a lease with a fencing number (docs/server.md "Processes").

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``table_leases``: per table, the process that plays it (its random id, its
    machine, pid and address), the fencing number every write of the table carries and
    when the lease runs out. No row yet for a table: the first process to ask takes it."""
    op.create_table(
        "table_leases",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("owner", sa.String(40), nullable=True, index=True),
        sa.Column("node", sa.String(200), nullable=True),
        sa.Column("pid", sa.Integer(), nullable=True),
        sa.Column("address", sa.String(300), nullable=True),
        sa.Column("fence", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.Double(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("table_leases")
