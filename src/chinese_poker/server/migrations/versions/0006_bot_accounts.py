"""Bot accounts: a player's owner, the accounts' tokens and faults, who is connected.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``players.owner`` (the person who made a bot account; null for people and our
    own bots), ``bot_accounts`` (description, token hash, faults, pause) and
    ``bot_presence`` (the bot accounts connected now, on which process, accepting what)."""
    # A plain ADD COLUMN (no batch): SQLite adds a nullable column in place, where a
    # rebuilt ``players`` would cascade-delete every key and seat of every player.
    op.add_column("players", sa.Column("owner", sa.String(40), nullable=True))
    op.create_index("ix_players_owner", "players", ["owner"])
    op.create_table(
        "bot_accounts",
        sa.Column(
            "player_id",
            sa.String(40),
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=True, unique=True),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("faults", sa.Integer(), nullable=False),
        sa.Column("faults_total", sa.Integer(), nullable=False),
        sa.Column("paused_at", sa.Double(), nullable=True),
    )
    op.create_table(
        "bot_presence",
        sa.Column(
            "player_id",
            sa.String(40),
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("process", sa.String(40), nullable=False),
        sa.Column("accepts", sa.Text(), nullable=False),
        sa.Column("connected_at", sa.Double(), nullable=False),
        sa.Column("seen_at", sa.Double(), nullable=False, index=True),
    )


def downgrade() -> None:
    """Drop the two tables and ``players.owner`` (on SQLite in place, as 0003 does:
    a rebuilt ``players`` would cascade-delete every key and seat)."""
    op.drop_table("bot_presence")
    op.drop_table("bot_accounts")
    op.drop_index("ix_players_owner", table_name="players")
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE players DROP COLUMN owner")
        return
    op.drop_column("players", "owner")
