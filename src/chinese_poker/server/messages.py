"""What crosses the wire: the lobby's requests, the client's messages and the error codes.

Everything here is data and validation (pydantic); nothing touches a table. The protocol
is ``docs/server-protocol.md``.
"""

from __future__ import annotations

import enum
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    TypeAdapter,
    ValidationError,
)

from chinese_poker.server.db import compact_json

__all__ = [
    "MAX_MESSAGE",
    "MOVED_CLOSE",
    "ActionBody",
    "ActionMsg",
    "AuthMsg",
    "ClientMessage",
    "ContributeMsg",
    "CreateTable",
    "ErrorCode",
    "FoulsMsg",
    "HintMsg",
    "HoldMsg",
    "LeaveMsg",
    "LegalMsg",
    "NextMsg",
    "PingMsg",
    "SeatSpec",
    "StageMsg",
    "SyncMsg",
    "TournamentSpec",
    "error_text",
    "moved_message",
    "parse_client_message",
    "plain_action",
    "validation_message",
]

MAX_MESSAGE = 64 * 1024
"""The largest client message accepted (characters of a text frame)."""


class ErrorCode(enum.StrEnum):
    """The ``code`` of an ``error`` message (docs/server-protocol.md)."""

    BAD_JSON = "bad_json"
    BAD_MESSAGE = "bad_message"
    TOO_LARGE = "too_large"
    UNKNOWN_TYPE = "unknown_type"
    READ_ONLY = "read_only"
    NOT_YOUR_SEAT = "not_your_seat"
    NOT_PLAYING = "not_playing"
    NO_HAND = "no_hand"
    STALE = "stale"
    ILLEGAL = "illegal"
    BUSY = "busy"
    HINTS_DISABLED = "hints_disabled"
    HINTS_UNAVAILABLE = "hints_unavailable"
    SERVER_ERROR = "server_error"
    TOO_LATE = "too_late"
    DUPLICATE = "duplicate"


def error_text(ref: object, code: ErrorCode, message: str, version: int | None) -> str:
    """The JSON text of an ``error`` message."""
    return compact_json(
        {"type": "error", "ref": ref, "code": str(code), "message": message, "version": version}
    )


MOVED_CLOSE = 4409
"""The close code of a socket sent to the server process that plays its table."""


def moved_message(table_id: str, to: str | None) -> dict[str, Any]:
    """The ``moved`` message: another server process of the same database plays the
    table (docs/server.md "Processes"); ``to`` is its address, None if not known."""
    if to:
        text = f"table {table_id} is played by the server at {to}; connect there"
    else:
        text = (
            f"table {table_id} is played by another server process whose address is not"
            " known (start it with --public-url)"
        )
    return {"type": "moved", "table_id": table_id, "to": to or None, "message": text}


# --------------------------------------------------------------------------- requests


class SeatSpec(BaseModel):
    """One seat of a new table: a human (named when he joins) or a bot."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["human", "bot"] = "human"
    name: str | None = Field(default=None, min_length=1, max_length=40)
    bot: str | None = Field(default=None, description="bot name (GET /api/bots); bots only")
    level: int | None = Field(default=None, ge=0, le=100, description="bot level, if it has")


class TournamentSpec(BaseModel):
    """Tournament settings (``mode = "tournament"``)."""

    model_config = ConfigDict(extra="forbid")

    stacks: dict[str, int] | None = Field(
        default=None, description="starting chips per player name (default starting_chips)"
    )
    level_hands: int | None = Field(
        default=None, ge=1, description="levels rise every N hands (null: by level_minutes)"
    )


class CreateTable(BaseModel):
    """The lobby's request to open a table."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, max_length=200)
    preset: str = Field(default="pineapple", description="a RULES §14 preset name")
    options: dict[str, Any] = Field(default_factory=dict, description="§13 option overrides")
    seats: list[SeatSpec] = Field(
        default_factory=lambda: [SeatSpec(kind="human"), SeatSpec(kind="bot", bot="rules")],
        min_length=2,
        max_length=4,
    )
    time_limit: float | None = Field(
        default=None, gt=0, le=3600, description="seconds per decision; null: no limit"
    )
    mode: Literal["session", "tournament"] = "session"
    hands: Literal["orbit", "continuous"] = Field(
        default="orbit",
        description="'orbit': RULES §10's session (one button orbit plus the Fantasyland"
        " hands); 'continuous': hand after hand until a player leaves (not for tournaments)",
    )
    tournament: TournamentSpec | None = None
    button: int = Field(default=0, ge=0, description="the first hand's button seat")
    hints: bool = True
    spectators: bool = True
    spectator_chat: bool = Field(
        default=False, description="spectators may read and write the table's chat"
    )
    bot_delay: float = Field(default=0.5, ge=0, le=10)
    next_hand_delay: float = Field(default=3.0, ge=0, le=60)
    join: bool = Field(default=True, description="the creator takes the first human seat")
    time_bank: float = Field(
        default=0, ge=0, le=3600, description="seconds a player may run over, per session"
    )
    timeouts: Literal["hand", "decision"] = Field(
        default="hand",
        description="when time runs out: 'hand' = RULES §10 (the rest of the hand is played"
        " and timeout_ends_session applies); 'decision' = only that decision is placed",
    )
    grace: float | None = Field(
        default=None,
        ge=0,
        le=3600,
        description="seconds a person who left keeps his seat before a bot plays it until"
        " he is back; null: never",
    )


# --------------------------------------------------------------------------- client messages


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: StrictInt | str | None = Field(default=None, description="echoed as 'ref'")


class ActionBody(BaseModel):
    """An action as a client sends it (the engine's ``to_dict()`` form, version required)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["place", "surrender", "claim_natural"]
    version: StrictInt = Field(ge=0)
    seat: StrictInt | None = None
    hand: StrictInt = Field(default=0, ge=0, le=1)
    top: list[str] = Field(default_factory=list, max_length=17)
    middle: list[str] = Field(default_factory=list, max_length=17)
    bottom: list[str] = Field(default_factory=list, max_length=17)
    discard: list[str] = Field(default_factory=list, max_length=17)
    surrender: StrictBool | None = None
    claim: StrictBool | None = None


class ActionMsg(_Msg):
    type: Literal["action"]
    action: ActionBody


class SyncMsg(_Msg):
    type: Literal["sync"]


class HintMsg(_Msg):
    type: Literal["hint"]
    limit: StrictInt = Field(default=20, ge=1, le=500)


class LegalMsg(_Msg):
    type: Literal["legal"]
    limit: StrictInt = Field(default=300, ge=1, le=1000)


class FoulsMsg(_Msg):
    """Which placements of this street foul whatever comes (engine.views.placement_fouls):
    asked by a page when its staging starts, too costly to send with every view."""

    type: Literal["fouls"]


class PingMsg(_Msg):
    type: Literal["ping"]


class NextMsg(_Msg):
    """The player is done looking at the showdown: deal on once every person is."""

    type: Literal["next"]


class LeaveMsg(_Msg):
    """The player leaves: the session ends after the running hand (at once between hands)."""

    type: Literal["leave"]


class ContributeMsg(_Msg):
    """A seat's random value for a committed hand not dealt yet (docs/fairness.md)."""

    type: Literal["contribute"]
    hand: StrictInt = Field(ge=1)
    value: str = Field(pattern=r"^[0-9a-f]{64}$", description="32 random bytes, hex")


class StageMsg(_Msg):
    """The cards the player has staged on this street and not confirmed: a timeout keeps
    them (server/timeout_filler.py). No answer unless it is malformed."""

    type: Literal["stage"]
    hand: StrictInt = Field(ge=1, description="the table's hand number")
    street: StrictInt = Field(ge=1)
    top: list[str] = Field(default_factory=list, max_length=5)
    middle: list[str] = Field(default_factory=list, max_length=5)
    bottom: list[str] = Field(default_factory=list, max_length=5)
    discard: list[str] = Field(default_factory=list, max_length=5)


class HoldMsg(_Msg):
    """The player opened (``on``) or closed the review or replay of the hand just played:
    the next deal waits for him, once per hand and within the table's limit."""

    type: Literal["hold"]
    on: StrictBool


class AuthMsg(BaseModel):
    """The first message of a seat's socket: its token (never in the URL)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["auth"]
    token: str = Field(min_length=1, max_length=200)


_Client = (
    ActionMsg
    | SyncMsg
    | HintMsg
    | LegalMsg
    | FoulsMsg
    | PingMsg
    | ContributeMsg
    | NextMsg
    | LeaveMsg
    | StageMsg
    | HoldMsg
)
ClientMessage = Annotated[_Client, Field(discriminator="type")]
_CLIENT: TypeAdapter[_Client] = TypeAdapter(ClientMessage)
TYPES = (
    "action", "sync", "hint", "legal", "fouls", "ping", "contribute", "next", "leave", "stage",
    "hold",
)  # fmt: skip


def validation_message(exc: ValidationError) -> str:
    """pydantic's complaint in one line, naming the fields."""
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err["loc"] if not str(p).endswith("Msg"))
        parts.append(f"{where}: {err['msg']}" if where else str(err["msg"]))
    return "; ".join(parts)


def parse_client_message(data: dict[str, Any]) -> _Client:
    """The typed message; pydantic's ValidationError if it is malformed."""
    return _CLIENT.validate_python(data)


_ACTION_MESSAGE_KEYS = frozenset(("type", "id", "action"))
_ACTION_KINDS = frozenset(("place", "surrender", "claim_natural"))
_BODY_KEYS = frozenset(ActionBody.model_fields)
_BODY_LISTS = ("top", "middle", "bottom", "discard")
_LIST_MOST = 17  # ActionBody's max_length


def plain_action(data: dict[str, Any]) -> tuple[int | str | None, dict[str, Any]] | None:
    """The ``id`` and action of an ``action`` message of the usual well-formed shape,
    exactly as :func:`parse_client_message` and ``action.model_dump(exclude_none=True)``
    give them; None for anything else, which the full validation then answers (with
    its refusal if it is malformed).

    Every move brings one such message: checked here by plain type tests, it skips
    pydantic's model, its dump and their copies. It accepts only what :class:`ActionMsg`
    accepts (strict numbers and booleans, lists of strings, no other key), so both paths
    carry out the same messages.
    """
    if data.get("type") != "action" or data.keys() - _ACTION_MESSAGE_KEYS:
        return None
    ref = data.get("id")
    if ref is not None and type(ref) is not int and type(ref) is not str:
        return None
    action = data.get("action")
    if type(action) is not dict or action.keys() - _BODY_KEYS:
        return None
    kind = action.get("type")
    version = action.get("version")
    seat = action.get("seat")
    hand = action.get("hand", 0)
    if (
        type(kind) is not str
        or kind not in _ACTION_KINDS
        or type(version) is not int
        or version < 0
        or (seat is not None and type(seat) is not int)
        or type(hand) is not int
        or not 0 <= hand <= 1
    ):
        return None
    body: dict[str, Any] = {"type": kind, "version": version}
    if seat is not None:
        body["seat"] = seat
    body["hand"] = hand
    for name in _BODY_LISTS:
        cards = action.get(name)
        if cards is None and name not in action:
            body[name] = []
        elif (
            type(cards) is list
            and len(cards) <= _LIST_MOST
            and all(type(card) is str for card in cards)
        ):
            body[name] = list(cards)
        else:
            return None
    for name in ("surrender", "claim"):
        flag = action.get(name)
        if flag is not None:
            if type(flag) is not bool:
                return None
            body[name] = flag
    return ref, body
