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
  (:data:`SIGNIN_PER_ADDRESS`, :data:`SIGNIN_PER_HANDLE`), and a wrong handle costs the
  same hashing time as a wrong password.
* **Profiles and the leaderboard** read the ratings of :mod:`.ratings`, brought up to
  date with the stored hands first (in the server's setup worker, off the event loop).
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
from fastapi import APIRouter, Header, HTTPException, Query, Request
from fastapi.responses import Response
from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
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

from chinese_poker.server.db import Base, Store
from chinese_poker.server.guard import client_address

__all__ = [
    "IDENTITY_PER_ADDRESS",
    "SIGNIN_PER_ADDRESS",
    "SIGNIN_PER_HANDLE",
    "PlayerKeyRow",
    "PlayerRow",
    "SeatPlayerRow",
    "accounts_router",
    "bot_player",
    "seat_player_ids",
]

SIGNIN_PER_ADDRESS = "10/minute"
"""Sign-in attempts one address may make."""

SIGNIN_PER_HANDLE = "5/minute"
"""Sign-in attempts on one handle, from anywhere (a slow guess at one account)."""

IDENTITY_PER_ADDRESS = "120/minute"
"""Calls that may create a player (``/api/me``, its name, password and seats) per address:
nobody fills the database with players."""

HISTORY_PER_FAMILY = 200
"""Rating events a profile shows per family: the latest ones."""

KEY_PATTERN = re.compile(r"^[A-Za-z0-9_-]{22,128}$")
HANDLE_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{3,40}$")
MIN_PASSWORD = 8

T = TypeVar("T")


class PlayerRow(Base):
    """A person (``kind`` human) or a bot at one level (``kind`` bot)."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(100))
    handle: Mapped[str | None] = mapped_column(String(40), nullable=True, unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[float] = mapped_column(Double)


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


_PLAYERS = cast(SATable, PlayerRow.__table__)
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
            select(_PLAYERS)
            .join(_KEYS, _KEYS.c.player_id == _PLAYERS.c.id)
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
                insert(_PLAYERS).values(
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
    if conn.execute(select(_PLAYERS.c.id).where(_PLAYERS.c.id == pid)).first() is None:
        name = f"{bot} bot" + (f" (level {level})" if level is not None else "")
        conn.execute(
            insert(_PLAYERS).values(
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


def _public(row: dict[str, Any]) -> dict[str, Any]:
    """What anybody may see of a player (the sign-in handle is half of a login: never)."""
    return {
        "id": row["id"],
        "kind": row["kind"],
        "name": row["name"],
        "signed_up": row["password_hash"] is not None,
    }


def _own(row: dict[str, Any]) -> dict[str, Any]:
    """What the player himself sees: his public record and his handle."""
    return {**_public(row), "handle": row["handle"]}


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


def accounts_router(index: Callable[[], Response]) -> APIRouter:
    """The routes of identities, sign-in, seats, profiles and the leaderboard
    (``index``: the browser page, served at ``/me``, ``/profile/{id}``, ``/leaderboard``)."""
    router = APIRouter()

    @router.get("/me", include_in_schema=False)
    async def me_page() -> Response:
        return index()

    @router.get("/leaderboard", include_in_schema=False)
    async def leaderboard_page() -> Response:
        return index()

    @router.get("/profile/{player_id}", include_in_schema=False)
    async def profile_page(player_id: str) -> Response:
        return index()

    limiter = MovingWindowRateLimiter(MemoryStorage())
    per_address = parse(SIGNIN_PER_ADDRESS)
    per_handle = parse(SIGNIN_PER_HANDLE)
    per_identity = parse(IDENTITY_PER_ADDRESS)

    def address(request: Request) -> str:
        return client_address(request)

    def store_of(request: Request) -> Store:
        store: Store = request.app.state.store
        return store

    async def off_loop(request: Request, fn: Callable[..., T], *args: Any) -> T:
        result: T = await request.app.state.manager.workers.setup(fn, *args)
        return result

    def check_key(key: str | None, request: Request | None = None) -> str:
        if request is not None and not limiter.hit(per_identity, "identity", address(request)):
            raise HTTPException(
                429, f"too many requests from your address ({IDENTITY_PER_ADDRESS})"
            )
        if key is None:
            raise HTTPException(401, "send your player key in the X-Player-Key header")
        if not KEY_PATTERN.match(key):
            raise HTTPException(400, "a player key is 22 to 128 letters, digits, - or _")
        return key

    @router.post("/api/me", tags=["players"])
    async def me(request: Request, x_player_key: str | None = Header(None)) -> dict[str, Any]:
        """This browser's player (made on the first call with a new key)."""
        key = check_key(x_player_key, request)
        store = store_of(request)

        def work() -> dict[str, Any]:
            with store.engine.begin() as conn:
                row = player_for_key(conn, key, create=True)
                assert row is not None
                return _own(row)

        return await off_loop(request, work)

    @router.put("/api/me/name", tags=["players"])
    async def set_name(
        request: Request, body: NameBody, x_player_key: str | None = Header(None)
    ) -> dict[str, Any]:
        """The name shown on the profile and the leaderboard."""
        from chinese_poker.engine import validate_player_name

        key = check_key(x_player_key, request)
        try:
            name = validate_player_name(body.name.strip())
        except ValueError as exc:
            raise HTTPException(400, str(exc)) from None
        if any(not ch.isprintable() for ch in name):
            raise HTTPException(400, f"a name to show cannot contain control characters: {name!r}")
        store = store_of(request)

        def work() -> dict[str, Any]:
            with store.engine.begin() as conn:
                row = player_for_key(conn, key, create=True)
                assert row is not None
                conn.execute(update(_PLAYERS).where(_PLAYERS.c.id == row["id"]).values(name=name))
                return _public({**row, "name": name})

        return await off_loop(request, work)

    @router.post("/api/me/password", tags=["players"])
    async def set_password(
        request: Request, body: PasswordBody, x_player_key: str | None = Header(None)
    ) -> dict[str, Any]:
        """Choose a handle and a password, to sign in on another device (changing a
        password needs the current one)."""
        key = check_key(x_player_key, request)
        # A guess at the current password is a sign-in attempt: the same limit.
        if not limiter.hit(per_address, "signin", address(request)):
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
                        update(_PLAYERS)
                        .where(_PLAYERS.c.id == row["id"])
                        .values(handle=body.handle, password_hash=digest)
                    )
                    return _own({**row, "handle": body.handle, "password_hash": digest})
            except IntegrityError:
                return None

        done = await off_loop(request, work)
        if done is None:
            raise HTTPException(409, f"the handle {body.handle!r} is taken")
        return done

    @router.post("/api/signin", tags=["players"])
    async def sign_in(request: Request, body: SignInBody) -> dict[str, Any]:
        """Sign in with a handle and password: this browser's key joins that player."""
        if not limiter.hit(per_address, "signin", address(request)) or not limiter.hit(
            # Keyed as handles are unique (exactly as typed): guesses at one handle
            # cannot lock out another that differs only in case.
            per_handle,
            "signin-handle",
            body.handle,
        ):
            raise HTTPException(429, "too many sign-in attempts: wait a minute and try again")
        key = check_key(body.key)
        store = store_of(request)

        def work() -> dict[str, Any] | None:
            with store.engine.connect() as conn:
                row = (
                    conn.execute(select(_PLAYERS).where(_PLAYERS.c.handle == body.handle))
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

    @router.post("/api/me/seats", tags=["players"])
    async def claim_seat(
        request: Request, body: SeatBody, x_player_key: str | None = Header(None)
    ) -> dict[str, Any]:
        """Make a seat this player's (its token proves it): its hands count for him."""
        key = check_key(x_player_key, request)
        live = request.app.state.manager.get(body.table_id)
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
                        update(_PLAYERS).where(_PLAYERS.c.id == row["id"]).values(name=seat_name)
                    )
                return {"table_id": body.table_id, "seat": chair, "player": row["id"]}

        return await off_loop(request, work)

    @router.get("/api/players/{player_id}", tags=["players"])
    async def profile(request: Request, player_id: str) -> dict[str, Any]:
        """A player's figures and rating per family, with the rating after each of his
        last :data:`HISTORY_PER_FAMILY` hands of the family."""
        from chinese_poker.server.ratings import profile_figures, rate_pending

        request.app.state.throttle(request, "read")
        store = store_of(request)

        def work() -> dict[str, Any] | None:
            rate_pending(store)
            from chinese_poker.server.ratings import EVENTS, RATINGS, display

            with store.engine.connect() as conn:
                row = (
                    conn.execute(select(_PLAYERS).where(_PLAYERS.c.id == player_id))
                    .mappings()
                    .first()
                )
                if row is None:
                    return None
                families = [
                    profile_figures(r)
                    for r in conn.execute(
                        select(RATINGS)
                        .where(RATINGS.c.player_id == player_id)
                        .order_by(RATINGS.c.family)
                    ).mappings()
                ]
                history: dict[str, list[dict[str, Any]]] = {}
                for fam in families:
                    latest = conn.execute(
                        select(EVENTS)
                        .where(EVENTS.c.player_id == player_id, EVENTS.c.family == fam["family"])
                        .order_by(EVENTS.c.id.desc())
                        .limit(HISTORY_PER_FAMILY)
                    ).mappings()
                    history[fam["family"]] = [
                        {
                            "table_id": e["table_id"],
                            "hand": e["hand"],
                            "at": e["at"],
                            "rating": round(display(e["mu"], e["sigma"]), 2),
                        }
                        for e in reversed(list(latest))
                    ]
            return {**_public(dict(row)), "families": families, "history": history}

        done = await off_loop(request, work)
        if done is None:
            raise HTTPException(404, f"no player {player_id!r}")
        return done

    @router.get("/api/leaderboard", tags=["players"])
    async def leaderboard(
        request: Request,
        family: str = Query("open-face", pattern="^(classic|open-face)$"),
        limit: int = Query(50, ge=1, le=500),
    ) -> dict[str, Any]:
        """Players and bots of a family by rating (mu - 3 sigma), best first."""
        from chinese_poker.server.ratings import RATINGS, display, profile_figures, rate_pending

        request.app.state.throttle(request, "read")
        store = store_of(request)
        # The ranking of ratings.display, in SQL: the database sorts and cuts.
        rank = cast(Any, display(cast(Any, RATINGS.c.mu), cast(Any, RATINGS.c.sigma)))

        def work() -> list[dict[str, Any]]:
            rate_pending(store)
            with store.engine.connect() as conn:
                rows = list(
                    conn.execute(
                        select(RATINGS, _PLAYERS.c.name, _PLAYERS.c.kind)
                        .join(_PLAYERS, _PLAYERS.c.id == RATINGS.c.player_id)
                        .where(RATINGS.c.family == family)
                        .order_by(rank.desc(), RATINGS.c.player_id)
                        .limit(limit)
                    ).mappings()
                )
            return [
                {
                    "player": r["player_id"],
                    "name": r["name"] or "(no name)",
                    "kind": r["kind"],
                    **profile_figures(r),
                }
                for r in rows
            ]

        return {"family": family, "players": await off_loop(request, work)}

    return router
