"""The shapes the lobby's REST API answers with (its OpenAPI schema at ``/docs``).

The routes of :mod:`.meta_routes`, :mod:`.lobby_routes` and :mod:`.results_routes`
name these as their ``response_model``: what a client may rely on, field by field.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "BotInfo",
    "Created",
    "HandInfo",
    "HandTotals",
    "Health",
    "JoinRequest",
    "Joined",
    "LedgerInfo",
    "OptionChoice",
    "OptionInfo",
    "PresetInfo",
    "Rematch",
    "SeatInfo",
    "SeatToken",
    "StandIn",
    "TableInfo",
]


class Health(BaseModel):
    """The server is up."""

    ok: bool
    version: str
    protocol: int


class PresetInfo(BaseModel):
    """One RULES §14 preset, in players' words (rules.words)."""

    name: str
    label: str = Field(description="the preset's name in players' words")
    help: str = Field(description="a one-line explanation")
    variant: str
    open_face: bool = Field(description="an open-face game (the compiled spec's variant fact)")
    hands_per_seat: int = Field(description="hands a player sets (two in Criss Cross)")
    players: list[int] = Field(description="the allowed player counts")
    fantasyland_entry: str | None = Field(
        description="the weakest top pair that enters Fantasyland (QQ), none without it"
    )
    rules: dict[str, Any] = Field(description="the complete rules (Rules.to_dict())")


class OptionChoice(BaseModel):
    value: str
    label: str


class OptionInfo(BaseModel):
    """One RULES §13 option in players' words (rules.words), with its choices' words."""

    key: str
    label: str
    help: str
    kind: Literal["choice", "yes_no", "value"] = Field(
        description="choice: one of choices; yes_no: true/false; value: typed as text"
    )
    choices: list[OptionChoice]


class BotInfo(BaseModel):
    """A server-side bot."""

    name: str
    levels: bool = Field(description="whether it takes a level")


class SeatInfo(BaseModel):
    """One seat of a table."""

    seat: int
    kind: Literal["human", "bot"]
    name: str | None
    bot: str | None
    level: int | None
    taken: bool
    connected: bool
    stand_in: bool = Field(default=False, description="a bot plays it until its person is back")


class TableInfo(BaseModel):
    """A table as the lobby shows it."""

    id: str
    name: str
    preset: str
    variant: str
    options: dict[str, Any]
    rules: dict[str, Any]
    status: Literal["waiting", "playing", "finished", "unavailable"] = Field(
        description="unavailable: stored but cannot be rebuilt (quarantined)"
    )
    mode: Literal["session", "tournament"]
    time_limit: float | None
    hints: bool
    spectators: bool
    spectator_chat: bool = Field(
        default=False, description="spectators may read and write the table's chat"
    )
    bot_delay: float
    next_hand_delay: float
    seats: list[SeatInfo]
    hand: int = Field(description="the current (or last) hand, 0 before the first deal")
    version: int = Field(description="the current hand's table version")
    hands_played: int
    session_over: bool
    commitment: str | None = Field(description="the current hand's fairness commitment")
    next_commitment: str | None = Field(description="the next hand's commitment, once fixed")
    streets: list[list[int]] = Field(
        default_factory=list,
        description="per street (cards dealt, cards placed): the deal order a page checks",
    )
    created_at: str
    spectators_connected: int
    time_bank: float = Field(default=0, description="seconds a player may run over, per session")
    timeouts: Literal["hand", "decision"] = Field(
        default="hand", description="what a timeout does (see CreateTable.timeouts)"
    )
    grace: float | None = Field(default=None, description="seconds before a bot plays a leaver")
    session_hands: Literal["orbit", "continuous"] = Field(
        default="orbit", description="how long the session is (see CreateTable.hands)"
    )
    left: str | None = Field(default=None, description="who left, ending the session")
    rematch: str | None = Field(default=None, description="the id of this table's rematch")


class Created(BaseModel):
    """A new table, its invite and (with ``join``) the creator's seat and token."""

    table: TableInfo
    join_code: str
    invite_url: str
    seat: int | None
    token: str | None
    ws_url: str | None


class JoinRequest(BaseModel):
    """Take a seat with the table's join code."""

    code: str = Field(min_length=1, max_length=100)
    name: str = Field(default="", max_length=40)
    seat: int | None = Field(default=None, ge=0, description="a particular free human seat")


class SeatToken(BaseModel):
    """A seat's token: who asks (the table's creator, to hand a seat to a bot)."""

    model_config = ConfigDict(extra="forbid")

    token: str = Field(min_length=1, max_length=200)


class StandIn(BaseModel):
    """A bot now plays the seat until its person returns."""

    table_id: str
    seat: int
    stand_in: bool


class Rematch(BaseModel):
    """The rematch table: the asker's seat there (his token for the old table opens it)."""

    table: TableInfo
    seat: int


class Joined(BaseModel):
    """The seat taken and its token (the seat's only credential)."""

    table_id: str
    seat: int
    player: str
    token: str
    ws_url: str


class HandTotals(BaseModel):
    """One finished hand in the ledger."""

    hand: int
    button: str
    totals: dict[str, int]


class LedgerInfo(BaseModel):
    """The session ledger (the engine's Ledger.to_dict()) and per-hand totals."""

    table_id: str
    kind: Literal["cash", "tournament"]
    players: list[str]
    hands_played: int
    over: bool
    points: dict[str, int]
    pairs: dict[str, int]
    money: dict[str, float]
    stacks: dict[str, int] | None
    out: list[str]
    hands: list[HandTotals]


class HandInfo(BaseModel):
    """A hand's fairness commitment, and its reveal once it is finished."""

    hand: int
    commitment: str
    started: bool
    finished: bool
    seed: str | None
    salt: str | None
    scheme: str
