"""The lobby over REST: the tables, opening one, taking a seat with an invite's code,
handing an absent person's seat to a bot, and the rematch.

Creating or joining answers with the seat's token and also sets it as a cookie for
that table's socket only (:func:`seat_cookie`), so the browser can prove the seat
without a script ever reading the token again.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Header, HTTPException, Query, Request, Response

from chinese_poker.server.accounts import saved_name
from chinese_poker.server.guard import client_address
from chinese_poker.server.holdings import Holdings, Manager, read_table, table_or_404, throttle
from chinese_poker.server.name_rule import PlayerNameRoute
from chinese_poker.server.responses import (
    Created,
    Joined,
    JoinRequest,
    Rematch,
    SeatToken,
    StandIn,
    TableInfo,
)
from chinese_poker.server.tables import CreateTable, WriteFailed, make_server_bot

__all__ = ["SEAT_COOKIE_DAYS", "router", "seat_cookie"]

router = APIRouter(tags=["lobby"], route_class=PlayerNameRoute)

SEAT_COOKIE_DAYS = 30
"""How long the browser keeps a seat's cookie (the seat survives restarts)."""


def seat_cookie(table_id: str) -> str:
    """The name of the cookie holding a seat token of table ``table_id``."""
    return f"cp_seat_{table_id}"


def _set_seat_cookie(response: Response, request: Request, table_id: str, token: str) -> None:
    # The token's alternative to the first message: HttpOnly (no script reads it),
    # SameSite=Strict (no other site's page sends it), scoped to this table's socket.
    response.set_cookie(
        seat_cookie(table_id),
        token,
        max_age=SEAT_COOKIE_DAYS * 24 * 3600,
        path=f"/ws/tables/{table_id}",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def _ws_base(request: Request, public_url: str | None) -> tuple[str, str]:
    base = (public_url or str(request.base_url)).rstrip("/")
    ws = "wss" + base[5:] if base.startswith("https") else "ws" + base[4:]
    return base, ws


@router.get("/api/tables", response_model=list[TableInfo])
async def list_tables(
    manager: Manager,
    status: Literal["waiting", "playing", "finished"] | None = None,
    limit: int = Query(100, ge=1, le=1000),
    offset: int = Query(0, ge=0),
) -> list[dict[str, Any]]:
    """The tables, newest first, a page at a time (``limit``, ``offset``)."""
    return manager.lobby(status=status, limit=limit, offset=offset)


@router.post("/api/tables", response_model=Created, status_code=201)
async def create_table(
    request: Request,
    response: Response,
    body: CreateTable,
    holdings: Holdings,
    manager: Manager,
    x_player_key: str | None = Header(None),
) -> dict[str, Any]:
    """Open a table from a preset with option overrides, seats, timer and mode; the
    creator's seat, unnamed, gets the name saved on his profile (``X-Player-Key``)."""
    await throttle(request, "create")
    body = await _with_saved_name(request, body, x_player_key)
    try:
        # Build each bot once in a worker thread: it validates the name and level,
        # and a bot that compiles kernels (mc) does so off the event loop.
        for i, seat in enumerate(body.seats):
            if seat.kind == "bot":
                if not seat.bot:
                    raise ValueError(f"seat {i}: a bot seat needs a bot name")
                await manager.workers.setup(make_server_bot, seat.bot, seat.level, 0)
        made = manager.create(body)
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from None
    base, ws = _ws_base(request, holdings.public_url)
    table_id = made.table.id
    if made.token is not None:
        _set_seat_cookie(response, request, table_id, made.token)
    return {
        "table": made.table.info(),
        "join_code": made.join_code,
        "invite_url": f"{base}/join/{table_id}?code={made.join_code}",
        "seat": made.seat,
        "token": made.token,
        "ws_url": f"{ws}/ws/tables/{table_id}?role=seat" if made.token else None,
    }


async def _with_saved_name(request: Request, body: CreateTable, key: str | None) -> CreateTable:
    """``body`` with the creator's seat (the first human one) named by his profile,
    if he names it not and has saved a name."""
    first = next((i for i, s in enumerate(body.seats) if s.kind == "human"), None)
    if not body.join or first is None or body.seats[first].name is not None:
        return body
    name = await saved_name(request, key)
    if not name:
        return body
    seats = list(body.seats)
    seats[first] = seats[first].model_copy(update={"name": name})
    return body.model_copy(update={"seats": seats})


@router.get("/api/tables/{table_id}", response_model=TableInfo)
async def get_table(request: Request, table_id: str) -> dict[str, Any]:
    """One table."""
    return (await read_table(request, table_id)).info()


@router.post("/api/tables/{table_id}/join", response_model=Joined)
async def join_table(
    request: Request,
    response: Response,
    table_id: str,
    body: JoinRequest,
    holdings: Holdings,
    x_player_key: str | None = Header(None),
) -> dict[str, Any]:
    """Take a free human seat with the join code of the invite link; without a name,
    under the one saved on the player's profile (``X-Player-Key``), else "Player N"."""
    await throttle(request, "join")
    limits = holdings.limits
    if not await limits.allowed("bad_code", client_address(request)):
        raise HTTPException(429, f"too many wrong join codes (limit {limits.describe('bad_code')})")
    live = table_or_404(request, table_id)
    if not live.check_code(body.code):
        await limits.hit("bad_code", client_address(request))
        raise HTTPException(403, "wrong join code")
    name = body.name or await saved_name(request, x_player_key)
    try:
        seat, player, token = live.claim(body.seat, name)
    except LookupError as exc:
        raise HTTPException(409, str(exc.args[0])) from None
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from None
    _base, ws = _ws_base(request, holdings.public_url)
    _set_seat_cookie(response, request, table_id, token)
    return {
        "table_id": table_id,
        "seat": seat,
        "player": player,
        "token": token,
        "ws_url": f"{ws}/ws/tables/{table_id}?role=seat",
    }


@router.post("/api/tables/{table_id}/seats/{seat}/bot", response_model=StandIn)
async def seat_to_bot(
    request: Request, table_id: str, seat: int, body: SeatToken
) -> dict[str, Any]:
    """The table's creator hands the seat of a person who left to a bot at once
    (without waiting for the grace period); the person gets it back on return."""
    await throttle(request, "join")
    live = table_or_404(request, table_id)
    asker = live.seat_for_token(body.token)
    if asker is None or asker != live.creator_chair():
        raise HTTPException(403, "only the table's creator can hand a seat to a bot")
    if not 0 <= seat < len(live.seats) or seat == asker:
        raise HTTPException(400, f"seat {seat} is not another seat of this table")
    if not live.stand_in(seat):
        raise HTTPException(409, f"seat {seat} has nobody away (or the table is not playing)")
    return {"table_id": table_id, "seat": seat, "stand_in": True}


@router.post("/api/tables/{table_id}/rematch", response_model=Rematch)
async def rematch(
    request: Request, table_id: str, body: SeatToken, manager: Manager
) -> dict[str, Any]:
    """The same table again with the same people, once its session is over: every
    person is seated under the token he already holds, and the others are offered
    to follow (a ``rematch`` message on their sockets). Asked again: the same one."""
    await throttle(request, "create")
    live = table_or_404(request, table_id)
    asker = live.seat_for_token(body.token)
    if asker is None:
        raise HTTPException(403, "only a player of this table can ask for its rematch")
    try:
        new = manager.rematch(live, asker)
    except ValueError as exc:
        raise HTTPException(409, str(exc)) from None
    except WriteFailed as exc:
        raise HTTPException(503, str(exc)) from None
    return {"table": new.info(), "seat": asker}
