"""Bot match places: the site's places for running bot matches, one row per match.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``bot_match_places``: a place number (the operator's ``at_once`` places,
    from 0) held by the running match it names, so that every process together runs no
    more matches than there are places."""
    op.create_table(
        "bot_match_places",
        sa.Column("place", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column(
            "match_id",
            sa.String(32),
            sa.ForeignKey("bot_matches.id", ondelete="CASCADE"),
            nullable=False,
        ),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("bot_match_places")
