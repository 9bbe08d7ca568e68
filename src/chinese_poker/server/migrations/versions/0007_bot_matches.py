"""Bot matches: the duplicate matches the server runs between bots, and their hands.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``bot_matches`` (preset, family, seed, the two bots, how many deals, their
    tables, status) and ``bot_match_hands`` (per deal, seating, hand and seat: the table,
    the player, the hand's seed and what the seat scored: points, a foul, Fantasyland
    earned)."""
    op.create_table(
        "bot_matches",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("family", sa.String(16), nullable=False, index=True),
        sa.Column("preset", sa.String(40), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("players", sa.Text(), nullable=False),
        sa.Column("deals", sa.Integer(), nullable=False),
        sa.Column("tables", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("created_at", sa.Double(), nullable=False, index=True),
        sa.Column("finished_at", sa.Double(), nullable=True),
    )
    op.create_table(
        "bot_match_hands",
        sa.Column(
            "match_id",
            sa.String(32),
            sa.ForeignKey("bot_matches.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("deal", sa.Integer(), primary_key=True),
        sa.Column("seating", sa.Integer(), primary_key=True),
        sa.Column("hand", sa.Integer(), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(40), nullable=False, index=True),
        sa.Column("hand_seed", sa.String(48), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("fouled", sa.Integer(), nullable=False),
        sa.Column("fantasyland", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    """Drop both tables."""
    op.drop_table("bot_match_hands")
    op.drop_table("bot_matches")
