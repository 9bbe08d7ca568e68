"""Bot accounts: programs a person puts on the server to play at its tables (issue 42).

* **An account like a player's.** A bot account is a ``players`` row of kind ``bot``
  whose ``owner`` is the person who made it (our own bots have no owner), so seats,
  names, histories and ratings treat it as any player. ``bot_accounts`` adds its
  owner's description, its token's SHA-256 and its faults.
* **The token** (``POST /api/me/bots``, made again by ``POST /api/me/bots/{id}/token``,
  revoked by ``DELETE``) is shown once; the server keeps only its hash. A bot sends it
  in the first message of its sockets (:mod:`.bot_socket`), never in a URL.
* **Faults** (a timeout, an illegal action, a connection lost mid-hand) count in a row;
  :data:`PAUSE_AFTER_FAULTS` of them pause the account: it is offered to nobody and its
  sockets are closed until its owner resumes it (``POST /api/me/bots/{id}/resume``).
* **Presence.** A connected bot account has a ``bot_presence`` row (which process holds
  its socket, what it accepts, written again every :data:`PRESENCE_REFRESH` seconds): the
  lobby of every process lists the bots online from the database alone.
* **A challenge** (``POST /api/bots/{id}/challenge``): a person opens a table with
  himself and an online bot that accepts the preset; the bot's seat is taken at once in
  its name and found by its socket through ``seat_players``.

See docs/bot-protocol.md ("Online") and docs/server-protocol.md ("Bots").
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any, Literal, cast

from fastapi import APIRouter, Header, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Connection, Engine, delete, insert, select, update
from sqlalchemy import Table as SATable

from chinese_poker.server.accounts import (
    PLAYERS,
    SeatPlayerRow,
    off_loop,
    player_for_key,
)
from chinese_poker.server.holdings import holdings_of, manager_of, store_of, throttle
from chinese_poker.server.schema import BOT_ACCOUNTS, BOT_PRESENCE, TABLES
from chinese_poker.server.tables import CreateTable, SeatSpec, WriteFailed, make_server_bot

__all__ = [
    "BOTS_PER_OWNER",
    "PAUSE_AFTER_FAULTS",
    "PRESENCE_SECONDS",
    "BotAccount",
    "Invitation",
    "accepts_table",
    "account_for_token",
    "bot_seat",
    "bot_token_hash",
    "forget_presence",
    "good_action",
    "open_seats",
    "record_fault",
    "router",
    "show_presence",
]

PAUSE_AFTER_FAULTS = 3
"""Faults in a row (no good action between them) that pause a bot account."""

BOTS_PER_OWNER = 20
"""Bot accounts one person may hold."""

PRESENCE_SECONDS = 15.0
"""A bot whose socket's process has not refreshed its presence for this long is offline."""

PRESENCE_REFRESH = 5.0
"""How often a connected bot's presence is written again (its socket polls more often)."""

TOKEN_PREFIX = "cpb-"

SEAT_PLAYERS = cast(SATable, SeatPlayerRow.__table__)


def bot_token_hash(token: str) -> str:
    """What the server keeps of a bot's token (SHA-256, hex)."""
    return hashlib.sha256(token.encode()).hexdigest()


def _new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


@dataclass(frozen=True, slots=True)
class BotAccount:
    """A bot account as its sockets need it."""

    id: str
    name: str
    owner: str
    faults: int
    paused: bool


@dataclass(frozen=True, slots=True)
class Invitation:
    """A seat held for a bot at a table not finished: its socket should play it."""

    table_id: str
    seat: int
    preset: str
    players: int
    status: str

    def message(self) -> dict[str, Any]:
        return {
            "type": "invite",
            "table_id": self.table_id,
            "seat": self.seat,
            "preset": self.preset,
            "players": self.players,
        }


# --------------------------------------------------------------------------- the store


def account_for_token(conn: Connection, token: str) -> BotAccount | None:
    """The bot account a token opens (None: unknown or revoked)."""
    row = conn.execute(
        select(
            PLAYERS.c.id,
            PLAYERS.c.name,
            PLAYERS.c.owner,
            BOT_ACCOUNTS.c.faults,
            BOT_ACCOUNTS.c.paused_at,
        )
        .join(BOT_ACCOUNTS, BOT_ACCOUNTS.c.player_id == PLAYERS.c.id)
        .where(BOT_ACCOUNTS.c.token_hash == bot_token_hash(token))
    ).first()
    if row is None:
        return None
    return BotAccount(row.id, row.name, row.owner or "", int(row.faults), row.paused_at is not None)


def record_fault(engine: Engine, bot_id: str) -> bool:
    """Count a fault of the bot; True when this one paused the account."""
    with engine.begin() as conn:
        conn.execute(
            update(BOT_ACCOUNTS)
            .where(BOT_ACCOUNTS.c.player_id == bot_id)
            .values(faults=BOT_ACCOUNTS.c.faults + 1, faults_total=BOT_ACCOUNTS.c.faults_total + 1)
        )
        paused = conn.execute(
            update(BOT_ACCOUNTS)
            .where(
                BOT_ACCOUNTS.c.player_id == bot_id,
                BOT_ACCOUNTS.c.faults >= PAUSE_AFTER_FAULTS,
                BOT_ACCOUNTS.c.paused_at.is_(None),
            )
            .values(paused_at=time.time())
        ).rowcount
        if paused:
            conn.execute(delete(BOT_PRESENCE).where(BOT_PRESENCE.c.player_id == bot_id))
    return bool(paused)


def good_action(engine: Engine, bot_id: str) -> None:
    """A good action ends the bot's run of faults."""
    with engine.begin() as conn:
        conn.execute(
            update(BOT_ACCOUNTS)
            .where(BOT_ACCOUNTS.c.player_id == bot_id, BOT_ACCOUNTS.c.faults > 0)
            .values(faults=0)
        )


def show_presence(
    engine: Engine, bot_id: str, socket_id: str, accepts: dict[str, Any] | None
) -> BotAccount | None:
    """Refresh the bot's presence for its lobby socket ``socket_id`` (``accepts`` given:
    (re)connected, the row is this socket's); the account as stored now, None if its
    token was revoked, or if another socket took its presence since."""
    now = time.time()
    with engine.begin() as conn:
        row = conn.execute(
            select(BOT_ACCOUNTS.c.token_hash, BOT_ACCOUNTS.c.paused_at).where(
                BOT_ACCOUNTS.c.player_id == bot_id
            )
        ).first()
        if row is None or row.token_hash is None:
            return None
        if accepts is not None:
            conn.execute(delete(BOT_PRESENCE).where(BOT_PRESENCE.c.player_id == bot_id))
            if row.paused_at is None:
                conn.execute(
                    insert(BOT_PRESENCE).values(
                        player_id=bot_id,
                        process=socket_id,
                        accepts=json.dumps(accepts),
                        connected_at=now,
                        seen_at=now,
                    )
                )
        elif row.paused_at is None:
            held = conn.execute(
                select(BOT_PRESENCE.c.seen_at).where(
                    BOT_PRESENCE.c.player_id == bot_id, BOT_PRESENCE.c.process == socket_id
                )
            ).scalar()
            if held is None:
                return None
            if now - held >= PRESENCE_REFRESH:  # a write every few seconds, not every poll
                conn.execute(
                    update(BOT_PRESENCE)
                    .where(BOT_PRESENCE.c.player_id == bot_id)
                    .values(seen_at=now)
                )
        player = conn.execute(
            select(PLAYERS.c.name, PLAYERS.c.owner).where(PLAYERS.c.id == bot_id)
        ).one()
        faults = conn.execute(
            select(BOT_ACCOUNTS.c.faults).where(BOT_ACCOUNTS.c.player_id == bot_id)
        ).scalar_one()
    return BotAccount(
        bot_id, player.name, player.owner or "", int(faults), row.paused_at is not None
    )


def forget_presence(engine: Engine, bot_id: str, socket_id: str) -> None:
    """The lobby socket ``socket_id`` closed: the bot is offline (unless another socket
    of it connected since)."""
    with engine.begin() as conn:
        conn.execute(
            delete(BOT_PRESENCE).where(
                BOT_PRESENCE.c.player_id == bot_id, BOT_PRESENCE.c.process == socket_id
            )
        )


def open_seats(engine: Engine, bot_id: str) -> list[Invitation]:
    """The bot's seats at tables not finished (the invitations its socket passes on)."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(SEAT_PLAYERS.c.table_id, SEAT_PLAYERS.c.seat, TABLES.c.config, TABLES.c.status)
            .join(TABLES, TABLES.c.id == SEAT_PLAYERS.c.table_id)
            .where(SEAT_PLAYERS.c.player_id == bot_id, TABLES.c.status != "finished")
            .order_by(TABLES.c.created_at)
        ).all()
    out = []
    for row in rows:
        config = json.loads(row.config)
        seats = config.get("request", {}).get("seats", [])
        out.append(
            Invitation(row.table_id, int(row.seat), str(config["preset"]), len(seats), row.status)
        )
    return out


def bot_seat(engine: Engine, bot_id: str, table_id: str) -> int | None:
    """The chair the bot holds at the table, or None."""
    with engine.connect() as conn:
        seat = conn.execute(
            select(SEAT_PLAYERS.c.seat).where(
                SEAT_PLAYERS.c.table_id == table_id, SEAT_PLAYERS.c.player_id == bot_id
            )
        ).scalar()
    return None if seat is None else int(seat)


def accepts_table(accepts: dict[str, Any], preset: str, players: int) -> bool:
    """Whether a bot that said ``accepts`` takes a table of ``preset`` for ``players``
    (an empty or missing list: any)."""
    presets = accepts.get("presets") or []
    counts = accepts.get("players") or []
    return (not presets or preset in presets) and (not counts or players in counts)


ONLINE_COLUMNS = (
    PLAYERS.c.id,
    PLAYERS.c.name,
    PLAYERS.c.owner,
    BOT_ACCOUNTS.c.description,
    BOT_PRESENCE.c.accepts,
)


def _online(engine: Engine) -> list[dict[str, Any]]:
    since = time.time() - PRESENCE_SECONDS
    with engine.connect() as conn:
        rows = conn.execute(
            select(*ONLINE_COLUMNS)
            .join(BOT_PRESENCE, BOT_PRESENCE.c.player_id == PLAYERS.c.id)
            .join(BOT_ACCOUNTS, BOT_ACCOUNTS.c.player_id == PLAYERS.c.id)
            .where(BOT_PRESENCE.c.seen_at >= since, BOT_ACCOUNTS.c.paused_at.is_(None))
            .order_by(PLAYERS.c.name)
        ).all()
    return [
        {
            "id": r.id,
            "name": r.name,
            "owner": r.owner,
            "description": r.description,
            "accepts": json.loads(r.accepts),
        }
        for r in rows
    ]


# --------------------------------------------------------------------------- requests


class NewBotBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=40)
    description: str = Field(default="", max_length=2000)


class BotEditBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    description: str = Field(max_length=2000)


class ChallengeBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    preset: str = Field(default="pineapple", max_length=40)
    time_limit: float = Field(default=30.0, gt=0, le=600, description="seconds per decision")
    hands: Literal["orbit", "continuous"] = "orbit"
    timeouts: Literal["hand", "decision"] = "hand"
    name: str | None = Field(default=None, min_length=1, max_length=40, description="yours")
    opponent: str | None = Field(
        default=None,
        max_length=40,
        description="null: you play the bot; else one of the server's bots (GET /api/bots)"
        " plays it and you watch",
    )
    opponent_level: int | None = Field(default=None, ge=0, le=100)


router = APIRouter(tags=["bots"])


def _owner(conn: Connection, key: str | None) -> dict[str, Any]:
    """The signed-up person of the key (a bot account needs an account to own it)."""
    if key is None:
        raise HTTPException(401, "send your player key in the X-Player-Key header")
    row = player_for_key(conn, key, create=False)
    if row is None or row["kind"] != "human":
        raise HTTPException(401, "unknown player key")
    if row["password_hash"] is None:
        raise HTTPException(
            403, "a bot account needs an account: choose a handle and password on /me first"
        )
    return row


def _own_bot(conn: Connection, owner: str, bot_id: str) -> None:
    found = conn.execute(
        select(PLAYERS.c.id).where(PLAYERS.c.id == bot_id, PLAYERS.c.owner == owner)
    ).first()
    if found is None:
        raise HTTPException(404, f"you have no bot account {bot_id!r}")


def _bots_of(conn: Connection, owner: str) -> list[dict[str, Any]]:
    since = time.time() - PRESENCE_SECONDS
    rows = conn.execute(
        select(
            PLAYERS.c.id,
            PLAYERS.c.name,
            PLAYERS.c.created_at,
            BOT_ACCOUNTS.c.description,
            BOT_ACCOUNTS.c.token_hash,
            BOT_ACCOUNTS.c.faults,
            BOT_ACCOUNTS.c.faults_total,
            BOT_ACCOUNTS.c.paused_at,
            BOT_PRESENCE.c.seen_at,
        )
        .join(BOT_ACCOUNTS, BOT_ACCOUNTS.c.player_id == PLAYERS.c.id)
        .outerjoin(BOT_PRESENCE, BOT_PRESENCE.c.player_id == PLAYERS.c.id)
        .where(PLAYERS.c.owner == owner)
        .order_by(PLAYERS.c.created_at)
    ).all()
    return [
        {
            "id": r.id,
            "name": r.name,
            "description": r.description,
            "has_token": r.token_hash is not None,
            "faults": r.faults,
            "faults_total": r.faults_total,
            "paused": r.paused_at is not None,
            "online": r.seen_at is not None and r.seen_at >= since,
        }
        for r in rows
    ]


@router.post("/api/me/bots", status_code=201)
async def create_bot(
    request: Request, body: NewBotBody, x_player_key: str | None = Header(None)
) -> dict[str, Any]:
    """Make a bot account owned by this (signed-up) person; its token, shown once."""
    from chinese_poker.engine import validate_player_name

    await throttle(request, "create")
    try:
        name = validate_player_name(body.name.strip())
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from None
    store = store_of(request)
    token = _new_token()

    def work() -> dict[str, Any]:
        with store.engine.begin() as conn:
            owner = _owner(conn, x_player_key)
            held = conn.execute(select(PLAYERS.c.id).where(PLAYERS.c.owner == owner["id"])).all()
            if len(held) >= BOTS_PER_OWNER:
                raise HTTPException(409, f"you already have {BOTS_PER_OWNER} bot accounts")
            bot_id = "b-" + secrets.token_hex(8)
            now = time.time()
            conn.execute(
                insert(PLAYERS).values(
                    id=bot_id, kind="bot", name=name, created_at=now, owner=owner["id"]
                )
            )
            conn.execute(
                insert(BOT_ACCOUNTS).values(
                    player_id=bot_id,
                    description=body.description.strip(),
                    token_hash=bot_token_hash(token),
                    created_at=now,
                    faults=0,
                    faults_total=0,
                    paused_at=None,
                )
            )
            bot = next(b for b in _bots_of(conn, owner["id"]) if b["id"] == bot_id)
        return {"bot": bot, "token": token}

    return await off_loop(request, work)


@router.get("/api/me/bots")
async def my_bots(
    request: Request, x_player_key: str | None = Header(None)
) -> list[dict[str, Any]]:
    """This person's bot accounts (never their tokens)."""
    store = store_of(request)

    def work() -> list[dict[str, Any]]:
        with store.engine.connect() as conn:
            return _bots_of(conn, _owner(conn, x_player_key)["id"])

    return await off_loop(request, work)


async def _change(
    request: Request, key: str | None, bot_id: str, values: dict[str, Any]
) -> list[dict[str, Any]]:
    store = store_of(request)

    def work() -> list[dict[str, Any]]:
        with store.engine.begin() as conn:
            owner = _owner(conn, key)["id"]
            _own_bot(conn, owner, bot_id)
            conn.execute(
                update(BOT_ACCOUNTS).where(BOT_ACCOUNTS.c.player_id == bot_id).values(**values)
            )
            if "token_hash" in values or values.get("paused_at"):
                conn.execute(delete(BOT_PRESENCE).where(BOT_PRESENCE.c.player_id == bot_id))
            return _bots_of(conn, owner)

    return await off_loop(request, work)


@router.put("/api/me/bots/{bot_id}")
async def edit_bot(
    request: Request, bot_id: str, body: BotEditBody, x_player_key: str | None = Header(None)
) -> list[dict[str, Any]]:
    """Change a bot account's description; the owner's bots."""
    return await _change(request, x_player_key, bot_id, {"description": body.description.strip()})


@router.post("/api/me/bots/{bot_id}/token")
async def new_token(
    request: Request, bot_id: str, x_player_key: str | None = Header(None)
) -> dict[str, Any]:
    """A new token for the bot (the old one stops working: its sockets close)."""
    token = _new_token()
    bots = await _change(request, x_player_key, bot_id, {"token_hash": bot_token_hash(token)})
    return {"bot": next(b for b in bots if b["id"] == bot_id), "token": token}


@router.delete("/api/me/bots/{bot_id}/token")
async def revoke_token(
    request: Request, bot_id: str, x_player_key: str | None = Header(None)
) -> list[dict[str, Any]]:
    """Revoke the bot's token: its sockets close within a poll, nothing opens them again."""
    return await _change(request, x_player_key, bot_id, {"token_hash": None})


@router.post("/api/me/bots/{bot_id}/resume")
async def resume_bot(
    request: Request, bot_id: str, x_player_key: str | None = Header(None)
) -> list[dict[str, Any]]:
    """Resume a paused bot account (its faults start again from none)."""
    return await _change(request, x_player_key, bot_id, {"paused_at": None, "faults": 0})


@router.get("/api/bots/online")
async def online_bots(
    request: Request, preset: str | None = None, players: int | None = None
) -> list[dict[str, Any]]:
    """The bot accounts connected now (on any process) and not paused; with ``preset``
    (and ``players``, default 2) only those that accept such a table."""
    await throttle(request, "read")
    bots = await off_loop(request, _online, store_of(request).engine)
    if preset is None:
        return bots
    return [b for b in bots if accepts_table(b["accepts"], preset, players or 2)]


@router.post("/api/bots/{bot_id}/challenge", status_code=201)
async def challenge(
    request: Request, bot_id: str, body: ChallengeBody, x_player_key: str | None = Header(None)
) -> dict[str, Any]:
    """Open a table for this person and an online bot that accepts the preset: the
    person's seat token (as ``POST /api/tables`` gives it); the bot is invited."""
    await throttle(request, "create")
    store = store_of(request)
    manager = manager_of(request)
    bot = next(
        (b for b in await off_loop(request, _online, store.engine) if b["id"] == bot_id), None
    )
    if bot is None:
        raise HTTPException(404, f"no bot {bot_id!r} is online")
    if not accepts_table(bot["accepts"], body.preset, 2):
        raise HTTPException(409, f"{bot['name']} does not accept {body.preset} for 2 players")
    if body.opponent is None:
        first = SeatSpec(kind="human", name=body.name)
    else:
        first = SeatSpec(kind="bot", bot=body.opponent, level=body.opponent_level)
    spec = CreateTable(
        name=f"{bot['name']} ({body.preset})",
        preset=body.preset,
        seats=[first, SeatSpec(kind="human", name=bot["name"])],
        time_limit=body.time_limit,
        hands=body.hands,
        timeouts=body.timeouts,
        join=body.opponent is None,
        bot_delay=0.0,
    )
    bot_chair = 1
    try:
        if body.opponent is not None:
            await manager.workers.setup(make_server_bot, body.opponent, body.opponent_level, 0)
        made = manager.create(spec)
        made.table.claim(bot_chair, bot["name"])
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from None
    except (LookupError, WriteFailed) as exc:
        raise HTTPException(503, str(exc)) from None
    table_id = made.table.id

    def seat_them() -> None:
        with store.engine.begin() as conn:
            conn.execute(
                insert(SEAT_PLAYERS).values(table_id=table_id, seat=bot_chair, player_id=bot_id)
            )
            person = player_for_key(conn, x_player_key, create=False) if x_player_key else None
            if person is not None and made.seat is not None:
                conn.execute(
                    insert(SEAT_PLAYERS).values(
                        table_id=table_id, seat=made.seat, player_id=person["id"]
                    )
                )

    await off_loop(request, seat_them)
    base = (holdings_of(request).public_url or str(request.base_url)).rstrip("/")
    ws = "wss" + base[5:] if base.startswith("https") else "ws" + base[4:]
    return {
        "table": made.table.info(),
        "seat": made.seat,
        "token": made.token,
        "bot": {"id": bot_id, "name": bot["name"], "seat": bot_chair},
        "ws_url": f"{ws}/ws/tables/{table_id}?role=seat" if made.token else None,
    }
