"""The server's tables as SQLAlchemy 2.x models, and the data the store loads from them.

The models' columns are what the Alembic migrations of :mod:`.migrations` create; the
frozen dataclasses below are what :class:`~.db.Store` hands the live tables (a table to
rebuild, a summary for the lobby, a hand's end to write). The rows of players, ratings
and reviews are declared by :mod:`.accounts` and :mod:`.ratings` on the same
:class:`Base`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import BigInteger, Double, ForeignKey, Index, Integer, String, Text
from sqlalchemy import Table as SATable
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "ACTIONS",
    "BOT_ACCOUNTS",
    "BOT_MATCHES",
    "BOT_MATCH_HANDS",
    "BOT_PRESENCE",
    "HANDS",
    "LEASES",
    "SEATS",
    "TABLES",
    "ActionRow",
    "Base",
    "BigId",
    "BotAccountRow",
    "BotMatchHandRow",
    "BotMatchRow",
    "BotPresenceRow",
    "HandEnd",
    "HandRow",
    "LeaseRow",
    "NewHand",
    "SeatRow",
    "StoredHand",
    "StoredSeat",
    "StoredTable",
    "TableRow",
    "TableSummary",
]


class Base(DeclarativeBase):
    """The declarative base of the server's models."""


# An auto-increment id: BIGINT on PostgreSQL, INTEGER (the rowid) on SQLite.
BigId = BigInteger().with_variant(Integer(), "sqlite")


class TableRow(Base):
    """One table: its setup and status."""

    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[float] = mapped_column(Double)
    config: Mapped[str] = mapped_column(Text)
    join_code_hash: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), index=True)
    session_seed: Mapped[str] = mapped_column(String(64))
    start_button: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[float | None] = mapped_column(Double, nullable=True)
    # What a table keeps between actions that no action row says (JSON): time banks per
    # chair, the chairs a stand-in bot plays, a leave that ends the session, a rematch.
    live: Mapped[str | None] = mapped_column(Text, nullable=True)


class SeatRow(Base):
    """One seat of a table."""

    __tablename__ = "seats"

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    name: Mapped[str | None] = mapped_column(String(100), nullable=True)
    bot: Mapped[str | None] = mapped_column(String(50), nullable=True)
    level: Mapped[int | None] = mapped_column(Integer, nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    joined_at: Mapped[float | None] = mapped_column(Double, nullable=True)


class HandRow(Base):
    """One hand: the committed seed and, once finished, its history line."""

    __tablename__ = "hands"

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    seed: Mapped[str] = mapped_column(String(32))
    salt: Mapped[str] = mapped_column(String(32))
    commitment: Mapped[str] = mapped_column(String(64))
    committed_at: Mapped[float] = mapped_column(Double)
    started_at: Mapped[float | None] = mapped_column(Double, nullable=True)
    finished_at: Mapped[float | None] = mapped_column(Double, nullable=True)
    record: Mapped[str | None] = mapped_column(Text, nullable=True)
    # The players' fair-shuffle values the deal used (JSON: player -> hex), set with
    # started_at; null for a hand not dealt yet or dealt before players contributed.
    contributions: Mapped[str | None] = mapped_column(Text, nullable=True)


class ActionRow(Base):
    """One accepted action of a hand."""

    __tablename__ = "actions"
    __table_args__ = (Index("ix_actions_table_hand_seq", "table_id", "hand", "seq", unique=True),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("tables.id", ondelete="CASCADE"))
    hand: Mapped[int] = mapped_column(Integer)
    seq: Mapped[int] = mapped_column(Integer)
    data: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Double)


class LeaseRow(Base):
    """Which process plays a table: the lease, and the fencing number of its writes."""

    __tablename__ = "table_leases"

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    owner: Mapped[str | None] = mapped_column(String(40), nullable=True, index=True)
    node: Mapped[str | None] = mapped_column(String(200), nullable=True)
    pid: Mapped[int | None] = mapped_column(Integer, nullable=True)
    address: Mapped[str | None] = mapped_column(String(300), nullable=True)
    # Raised by one on every acquisition, never lowered (a release keeps it): a write
    # carrying an older number comes from a process that lost the table.
    fence: Mapped[int] = mapped_column(BigInteger)
    expires_at: Mapped[float] = mapped_column(Double)


TABLES = cast(SATable, TableRow.__table__)
SEATS = cast(SATable, SeatRow.__table__)
HANDS = cast(SATable, HandRow.__table__)
ACTIONS = cast(SATable, ActionRow.__table__)
LEASES = cast(SATable, LeaseRow.__table__)


# --------------------------------------------------------------------------- loaded data


@dataclass
class StoredSeat:
    """A seat as stored."""

    seat: int
    kind: str
    name: str | None
    bot: str | None
    level: int | None
    token_hash: str | None
    joined_at: float | None


@dataclass
class StoredHand:
    """A hand as stored, with its actions (``to_dict()`` forms) in order."""

    number: int
    seed: str
    salt: str
    commitment: str
    committed_at: float
    started_at: float | None
    finished_at: float | None
    record: dict[str, Any] | None
    actions: list[dict[str, Any]] = field(default_factory=list)
    contributions: dict[str, str] | None = None


@dataclass
class StoredTable:
    """Everything stored about one table."""

    id: str
    name: str
    created_at: float
    config: dict[str, Any]
    join_code_hash: str
    status: str
    session_seed: str
    start_button: int
    started_at: float | None
    seats: list[StoredSeat]
    hands: list[StoredHand]
    live: dict[str, Any] = field(default_factory=dict)


@dataclass
class TableSummary:
    """A table as the lobby lists it (read without rebuilding the table)."""

    id: str
    name: str
    created_at: float
    config: dict[str, Any]
    status: str
    seats: list[StoredSeat]
    hands_played: int
    hand: int


@dataclass(frozen=True, slots=True)
class HandEnd:
    """The end of a hand to store: (finish time, history line), the next hand's
    commitment, the table's new status (each may be None)."""

    table_id: str
    hand: int
    finished: tuple[float, dict[str, Any]] | None
    next_hand: NewHand | None
    status: str | None


@dataclass(frozen=True, slots=True)
class NewHand:
    """A hand row to insert: the commitment to its seed."""

    number: int
    seed: str
    salt: str
    commitment: str


# --------------------------------------------------------------------------- bot accounts


class BotAccountRow(Base):
    """What a bot account (a ``players`` row of kind bot with an owner) has beyond a
    player: its owner's description, its token (SHA-256; null once revoked), its faults."""

    __tablename__ = "bot_accounts"

    player_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    description: Mapped[str] = mapped_column(Text)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, unique=True)
    created_at: Mapped[float] = mapped_column(Double)
    # Faults (a timeout, an illegal action, a drop mid-hand) since its last good action;
    # reaching the limit pauses the account (paused_at set) until its owner resumes it.
    faults: Mapped[int] = mapped_column(Integer)
    faults_total: Mapped[int] = mapped_column(Integer)
    paused_at: Mapped[float | None] = mapped_column(Double, nullable=True)


class BotPresenceRow(Base):
    """A bot account connected now: which process holds its socket, what it accepts
    (JSON: presets and player counts), when that process last said it is still there."""

    __tablename__ = "bot_presence"

    player_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    process: Mapped[str] = mapped_column(String(40))
    accepts: Mapped[str] = mapped_column(Text)
    connected_at: Mapped[float] = mapped_column(Double)
    seen_at: Mapped[float] = mapped_column(Double, index=True)


BOT_ACCOUNTS = cast(SATable, BotAccountRow.__table__)
BOT_PRESENCE = cast(SATable, BotPresenceRow.__table__)


# --------------------------------------------------------------------------- bot matches


class BotMatchRow(Base):
    """A duplicate match the server runs between two bots (``server.bot_matches``): what
    it plays (preset, the bots by player id, JSON, in the order of the first seating) and
    its seed, from which each deal's session seed and each bot's seed are derived."""

    __tablename__ = "bot_matches"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    family: Mapped[str] = mapped_column(String(16), index=True)
    preset: Mapped[str] = mapped_column(String(40))
    seed: Mapped[int] = mapped_column(BigInteger)
    players: Mapped[str] = mapped_column(Text)
    deals: Mapped[int] = mapped_column(Integer)
    # The match's tables (JSON), by deal then seating: what is collected once finished.
    tables: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), index=True)
    created_at: Mapped[float] = mapped_column(Double, index=True)
    finished_at: Mapped[float | None] = mapped_column(Double, nullable=True)


class BotMatchHandRow(Base):
    """One seat of one hand of a bot match: the deal (its session), the seating, the
    hand, who sat there and what the seat scored, from the stored history line."""

    __tablename__ = "bot_match_hands"

    match_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("bot_matches.id", ondelete="CASCADE"), primary_key=True
    )
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)
    seating: Mapped[int] = mapped_column(Integer, primary_key=True)
    hand: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(String(32))
    player_id: Mapped[str] = mapped_column(String(40), index=True)
    hand_seed: Mapped[str] = mapped_column(String(48))
    points: Mapped[int] = mapped_column(Integer)
    fouled: Mapped[int] = mapped_column(Integer)
    fantasyland: Mapped[int] = mapped_column(Integer)


BOT_MATCHES = cast(SATable, BotMatchRow.__table__)
BOT_MATCH_HANDS = cast(SATable, BotMatchHandRow.__table__)
