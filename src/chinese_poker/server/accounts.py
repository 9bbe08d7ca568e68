"""Who plays: identities without sign-up, optional sign-in, seats, profiles, leaderboard.

* **An identity without sign-up.** The browser makes a random **player key** once
  (kept in its storage) and sends it in the ``X-Player-Key`` header. The server keeps
  only its SHA-256 (``player_keys``), so a stolen database gives nobody's key away; the
  first request with a new key creates the player (``players``), with a public id
  (``p-...``) that profiles and the leaderboard show.
* **Seats.** After creating or joining a table the browser proves the seat with the
  seat's token (``POST /api/me/seats``): the seat is then this player's, and the
  table's finished hands count in his ratings and figures.
* **Sign-in on another device** (optional): a player picks a handle and a password
  (``POST /api/me/password``; the password is hashed with Argon2id by argon2-cffi);
  on another device ``POST /api/signin`` with them gives that browser a key of its own
  for the same player. Sign-in attempts are rate-limited per address and per handle
  from that address (:data:`SIGNIN_PER_ADDRESS`, :data:`SIGNIN_PER_HANDLE`; shared by
  every process through Redis when the server has one), and a wrong handle costs the
  same hashing time as a wrong password.
* **Profiles and the leaderboard** (:mod:`.profile_routes`) read the ratings of
  :mod:`.ratings`, brought up to date with the stored hands first (in the server's setup
  worker, off the event loop).

The routes are module-level functions of :data:`router`; what they need of the
application (the store, the setup worker, the sign-in limits) they read through
:mod:`.holdings`. Their pages (``/me``, ``/profile/{id}``, ``/leaderboard``) are
:mod:`.pages`'.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import APIRouter, Header, HTTPException, Request
from limits import parse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import (
    Connection,
    Double,
    ForeignKey,
    Integer,
    String,
    delete,
    insert,
    select,
    update,
)
from sqlalchemy import Table as SATable
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from chinese_poker.server.bot_names import bot_name
from chinese_poker.server.db import Base
from chinese_poker.server.guard import client_address
from chinese_poker.server.holdings import holdings_of, manager_of, store_of
from chinese_poker.server.name_rule import PlayerNameRoute

__all__ = [
    "IDENTITY_PER_ADDRESS",
    "PLAYERS",
    "SIGNIN_PER_ADDRESS",
    "SIGNIN_PER_HANDLE",
    "PlayerKeyRow",
    "PlayerRow",
    "SeatPlayerRow",
    "bot_player",
    "off_loop",
    "public_player",
    "router",
    "seat_player_ids",
]

SIGNIN_PER_ADDRESS = "10/minute"
"""Sign-in attempts one address may make."""

SIGNIN_PER_HANDLE = "5/minute"
"""Sign-in attempts on one handle from one address (a slow guess at one account; counted
per address too, so that nobody can lock a player out of their own account)."""

IDENTITY_PER_ADDRESS = "120/minute"
"""Calls that may create a player (``/api/me``, its name, password and seats) per address:
nobody fills the database with players."""

KEY_PATTERN = re.compile(r"^[A-Za-z0-9_-]{22,128}$")
HANDLE_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{3,40}$")
MIN_PASSWORD = 8

T = TypeVar("T")


class PlayerRow(Base):
    """A person (``kind`` human), one of our bots at one level (``kind`` bot, no owner)
    or a bot account a person made (``kind`` bot, ``owner`` that person's id)."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(100))
    handle: Mapped[str | None] = mapped_column(String(40), nullable=True, unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[float] = mapped_column(Double)
    # The person who made this bot account (null for people and for our own bots); no
    # foreign key, so that SQLite adds the column without rebuilding ``players``.
    owner: Mapped[str | None] = mapped_column(String(40), nullable=True, index=True)


class PlayerKeyRow(Base):
    """One browser's key (its SHA-256) for a player."""

    __tablename__ = "player_keys"

    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[float] = mapped_column(Double)


class SeatPlayerRow(Base):
    """Whose seat it is: a table's chair and the player who proved it with its token."""

    __tablename__ = "seat_players"

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("players.id", ondelete="CASCADE"), index=True
    )


PLAYERS = cast(SATable, PlayerRow.__table__)
_KEYS = cast(SATable, PlayerKeyRow.__table__)
_SEAT_PLAYERS = cast(SATable, SeatPlayerRow.__table__)

_hasher = PasswordHasher()
# Verified against when the handle is unknown, so that both failures take as long.
_DUMMY_HASH = _hasher.hash(secrets.token_urlsafe(16))


def _key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


# --------------------------------------------------------------------------- the store


def _read_player(conn: Connection, key: str) -> dict[str, Any] | None:
    row = (
        conn.execute(
            select(PLAYERS)
            .join(_KEYS, _KEYS.c.player_id == PLAYERS.c.id)
            .where(_KEYS.c.key_hash == _key_hash(key))
        )
        .mappings()
        .first()
    )
    return dict(row) if row is not None else None


def player_for_key(conn: Connection, key: str, *, create: bool) -> dict[str, Any] | None:
    """The player of a browser key (created on first sight when ``create``; call it
    before the transaction of ``conn`` writes anything)."""
    row = _read_player(conn, key)
    if row is not None or not create:
        return row
    pid = "p-" + secrets.token_hex(8)
    now = time.time()
    # In a transaction of its own: when two first requests with the same new key race,
    # the second's insert fails alone and it reads the player the first one made.
    try:
        with conn.engine.begin() as own:
            own.execute(
                insert(PLAYERS).values(
                    id=pid, kind="human", name="", handle=None, password_hash=None, created_at=now
                )
            )
            own.execute(
                insert(_KEYS).values(key_hash=_key_hash(key), player_id=pid, created_at=now)
            )
    except IntegrityError:
        pass
    row = _read_player(conn, key)
    if row is None:
        raise RuntimeError("a new player key could not be stored")
    return row


def bot_player(conn: Connection, bot: str, level: int | None) -> str:
    """The player id of a bot at a level (its row created on first sight)."""
    pid = f"bot-{bot}" + (f"-{level}" if level is not None else "")
    name = bot_name(bot, level)
    stored = conn.execute(select(PLAYERS.c.name).where(PLAYERS.c.id == pid)).first()
    if stored is not None and stored.name != name:  # a row named by an older rule
        conn.execute(update(PLAYERS).where(PLAYERS.c.id == pid).values(name=name))
    if stored is None:
        conn.execute(
            insert(PLAYERS).values(
                id=pid,
                kind="bot",
                name=name,
                handle=None,
                password_hash=None,
                created_at=time.time(),
            )
        )
    return pid


def seat_player_ids(conn: Connection, table_id: str) -> dict[int, str]:
    """Chair -> player id of a table's seats whose players proved them."""
    rows = conn.execute(
        select(_SEAT_PLAYERS.c.seat, _SEAT_PLAYERS.c.player_id).where(
            _SEAT_PLAYERS.c.table_id == table_id
        )
    )
    return {int(seat): str(pid) for seat, pid in rows}


def public_player(row: dict[str, Any]) -> dict[str, Any]:
    """What anybody may see of a player (the sign-in handle is half of a login: never)."""
    return {
        "id": row["id"],
        "kind": row["kind"],
        "name": row["name"],
        "signed_up": row["password_hash"] is not None,
    }


def _own(row: dict[str, Any]) -> dict[str, Any]:
    """What the player himself sees: his public record and his handle."""
    return {**public_player(row), "handle": row["handle"]}


# --------------------------------------------------------------------------- requests


class NameBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=40)


class PasswordBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    handle: str = Field(min_length=1, max_length=40)
    password: str = Field(min_length=1, max_length=200)
    current_password: str | None = Field(
        None, min_length=1, max_length=200, description="needed to change a password"
    )


class SignInBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    handle: str = Field(min_length=1, max_length=40)
    password: str = Field(min_length=1, max_length=200)
    key: str = Field(min_length=1, max_length=200, description="this browser's new key")


class SeatBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    table_id: str = Field(min_length=1, max_length=32)
    token: str = Field(min_length=1, max_length=200)


router = APIRouter(tags=["players"], route_class=PlayerNameRoute)

PER_ADDRESS = parse(SIGNIN_PER_ADDRESS)
PER_HANDLE = parse(SIGNIN_PER_HANDLE)
PER_IDENTITY = parse(IDENTITY_PER_ADDRESS)


async def off_loop(request: Request, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in the server's setup worker (database work and hashing wait
    there, never on the event loop)."""
    result: T = await manager_of(request).workers.setup(fn, *args)
    return result


async def _check_key(key: str | None, request: Request | None = None) -> str:
    if request is not None and not await holdings_of(request).sign_ins.hit(
        PER_IDENTITY, "identity", client_address(request)
    ):
        raise HTTPException(429, f"too many requests from your address ({IDENTITY_PER_ADDRESS})")
    if key is None:
        raise HTTPException(401, "send your player key in the X-Player-Key header")
    if not KEY_PATTERN.match(key):
        raise HTTPException(400, "a player key is 22 to 128 letters, digits, - or _")
    return key


async def _signin_allowed(request: Request) -> bool:
    return await holdings_of(request).sign_ins.hit(PER_ADDRESS, "signin", client_address(request))


@router.post("/api/me")
async def me(request: Request, x_player_key: str | None = Header(None)) -> dict[str, Any]:
    """This browser's player (made on the first call with a new key)."""
    key = await _check_key(x_player_key, request)
    store = store_of(request)

    def work() -> dict[str, Any]:
        with store.engine.begin() as conn:
            row = player_for_key(conn, key, create=True)
            assert row is not None
            return _own(row)

    return await off_loop(request, work)


async def saved_name(request: Request, key: str | None) -> str:
    """The name a player saved on his profile, for a table he creates or joins without
    giving one ("" for no key, an unknown key or no saved name: the table's default)."""
    if key is None or not KEY_PATTERN.match(key):
        return ""
    store = store_of(request)

    def work() -> str:
        with store.engine.connect() as conn:
            row = player_for_key(conn, key, create=False)
            return str(row["name"]) if row is not None else ""

    return await off_loop(request, work)


@router.put("/api/me/name")
async def set_name(
    request: Request, body: NameBody, x_player_key: str | None = Header(None)
) -> dict[str, Any]:
    """The name shown on the profile, the leaderboard and (unless the player gives
    another) at every table he creates or joins: the tables' rule for a name."""
    from chinese_poker.engine import validate_player_name

    key = await _check_key(x_player_key, request)
    try:
        name = validate_player_name(body.name.strip())
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from None
    store = store_of(request)

    def work() -> dict[str, Any]:
        with store.engine.begin() as conn:
            row = player_for_key(conn, key, create=True)
            assert row is not None
            conn.execute(update(PLAYERS).where(PLAYERS.c.id == row["id"]).values(name=name))
            return public_player({**row, "name": name})

    return await off_loop(request, work)


@router.post("/api/me/password")
async def set_password(
    request: Request, body: PasswordBody, x_player_key: str | None = Header(None)
) -> dict[str, Any]:
    """Choose a handle and a password, to sign in on another device (changing a
    password needs the current one)."""
    key = await _check_key(x_player_key, request)
    # A guess at the current password is a sign-in attempt: the same limit.
    if not await _signin_allowed(request):
        raise HTTPException(429, "too many sign-in attempts: wait a minute and try again")
    if not HANDLE_PATTERN.match(body.handle):
        raise HTTPException(400, "a handle is 3 to 40 letters, digits, '.', '-' or '_'")
    if len(body.password) < MIN_PASSWORD:
        raise HTTPException(400, f"the password needs at least {MIN_PASSWORD} characters")
    digest = await off_loop(request, _hasher.hash, body.password)
    store = store_of(request)

    def work() -> dict[str, Any] | None:
        try:
            with store.engine.begin() as conn:
                row = player_for_key(conn, key, create=True)
                assert row is not None
                if row["handle"] not in (None, body.handle):
                    raise HTTPException(409, f"you already have the handle {row['handle']!r}")
                if row["password_hash"] is not None:
                    if body.current_password is None:
                        raise HTTPException(
                            403, "send your current password (current_password) to change it"
                        )
                    try:
                        _hasher.verify(row["password_hash"], body.current_password)
                    except (VerificationError, InvalidHashError):
                        raise HTTPException(403, "your current password is wrong") from None
                conn.execute(
                    update(PLAYERS)
                    .where(PLAYERS.c.id == row["id"])
                    .values(handle=body.handle, password_hash=digest)
                )
                return _own({**row, "handle": body.handle, "password_hash": digest})
        except IntegrityError:
            return None

    done = await off_loop(request, work)
    if done is None:
        raise HTTPException(409, f"the handle {body.handle!r} is taken")
    return done


@router.post("/api/signin")
async def sign_in(request: Request, body: SignInBody) -> dict[str, Any]:
    """Sign in with a handle and password: this browser's key joins that player."""
    if not await _signin_allowed(request) or not await holdings_of(request).sign_ins.hit(
        # Per handle *and* address: guesses at a handle from one address never lock its
        # owner out elsewhere. Keyed as handles are unique (exactly as typed): guesses
        # at one handle cannot lock out another that differs only in case.
        PER_HANDLE,
        "signin-handle",
        body.handle,
        client_address(request),
    ):
        raise HTTPException(429, "too many sign-in attempts: wait a minute and try again")
    key = await _check_key(body.key)
    store = store_of(request)

    def work() -> dict[str, Any] | None:
        with store.engine.connect() as conn:
            row = (
                conn.execute(select(PLAYERS).where(PLAYERS.c.handle == body.handle))
                .mappings()
                .first()
            )
        stored = row["password_hash"] if row is not None else None
        try:
            _hasher.verify(stored or _DUMMY_HASH, body.password)
        except (VerificationError, InvalidHashError):
            return None
        if row is None or stored is None:
            return None
        with store.engine.begin() as conn:
            conn.execute(delete(_KEYS).where(_KEYS.c.key_hash == _key_hash(key)))
            conn.execute(
                insert(_KEYS).values(
                    key_hash=_key_hash(key), player_id=row["id"], created_at=time.time()
                )
            )
        return _own(dict(row))

    done = await off_loop(request, work)
    if done is None:
        raise HTTPException(401, "wrong handle or password")
    return done


@router.post("/api/me/seats")
async def claim_seat(
    request: Request, body: SeatBody, x_player_key: str | None = Header(None)
) -> dict[str, Any]:
    """Make a seat this player's (its token proves it): its hands count for him."""
    key = await _check_key(x_player_key, request)
    live = manager_of(request).get(body.table_id)
    if live is None:
        raise HTTPException(404, f"no table {body.table_id!r}")
    chair = live.seat_for_token(body.token)
    if chair is None:
        raise HTTPException(403, "that is not a seat token of this table")
    seat_name = live.seats[chair].name or ""
    store = store_of(request)

    def work() -> dict[str, Any]:
        with store.engine.begin() as conn:
            row = player_for_key(conn, key, create=True)
            assert row is not None
            other = conn.execute(
                select(_SEAT_PLAYERS.c.seat).where(
                    _SEAT_PLAYERS.c.table_id == body.table_id,
                    _SEAT_PLAYERS.c.player_id == row["id"],
                    _SEAT_PLAYERS.c.seat != chair,
                )
            ).scalar()
            if other is not None:
                # Two chairs of one person would rate him against himself.
                raise HTTPException(
                    409,
                    f"you already hold seat {int(other) + 1} at this table: one player "
                    "cannot take two seats (open an invite link in another browser)",
                )
            conn.execute(
                delete(_SEAT_PLAYERS).where(
                    _SEAT_PLAYERS.c.table_id == body.table_id, _SEAT_PLAYERS.c.seat == chair
                )
            )
            conn.execute(
                insert(_SEAT_PLAYERS).values(
                    table_id=body.table_id, seat=chair, player_id=row["id"]
                )
            )
            if not row["name"] and seat_name:  # a name to show until he picks one
                conn.execute(
                    update(PLAYERS).where(PLAYERS.c.id == row["id"]).values(name=seat_name)
                )
            return {"table_id": body.table_id, "seat": chair, "player": row["id"]}

    return await off_loop(request, work)
