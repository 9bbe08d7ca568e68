"""Players, their keys and seats, ratings with their history, hand reviews.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the tables of :mod:`chinese_poker.server.accounts` and ``.ratings``."""
    op.create_table(
        "players",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("handle", sa.String(40), nullable=True, unique=True),
        sa.Column("password_hash", sa.String(200), nullable=True),
        sa.Column("created_at", sa.Double(), nullable=False),
    )
    op.create_table(
        "player_keys",
        sa.Column("key_hash", sa.String(64), primary_key=True),
        sa.Column(
            "player_id",
            sa.String(40),
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("created_at", sa.Double(), nullable=False),
    )
    op.create_table(
        "seat_players",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column(
            "player_id",
            sa.String(40),
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
    )
    op.create_table(
        "ratings",
        sa.Column(
            "player_id",
            sa.String(40),
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("family", sa.String(16), primary_key=True),
        sa.Column("mu", sa.Double(), nullable=False),
        sa.Column("sigma", sa.Double(), nullable=False),
        sa.Column("hands", sa.Integer(), nullable=False),
        sa.Column("points", sa.BigInteger(), nullable=False),
        sa.Column("fouls", sa.Integer(), nullable=False),
        sa.Column("fantasylands", sa.Integer(), nullable=False),
        sa.Column("royalties", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.Double(), nullable=False),
    )
    op.create_table(
        "rating_events",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        sa.Column("player_id", sa.String(40), nullable=False),
        sa.Column("family", sa.String(16), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("hand", sa.Integer(), nullable=False),
        sa.Column("at", sa.Double(), nullable=False),
        sa.Column("mu", sa.Double(), nullable=False),
        sa.Column("sigma", sa.Double(), nullable=False),
    )
    op.create_index("ix_rating_events_player", "rating_events", ["player_id", "family", "id"])
    op.create_table(
        "rated_hands",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("number", sa.Integer(), primary_key=True),
        sa.Column("rated_at", sa.Double(), nullable=False),
    )
    op.create_table(
        "hand_reviews",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("number", sa.Integer(), primary_key=True),
        sa.Column("level", sa.Integer(), primary_key=True),
        sa.Column("data", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    for name in (
        "hand_reviews",
        "rated_hands",
        "rating_events",
        "ratings",
        "seat_players",
        "player_keys",
        "players",
    ):
        op.drop_table(name)
