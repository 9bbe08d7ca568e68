"""The play WebSocket, ``/ws/tables/{id}``: a seat or a spectator of one table.

A seat proves itself by its token in the first message (``auth``), or by the seat
cookie the join set (``?auth=cookie``), never in the URL. One client address may hold
:attr:`~.holdings.ServerHoldings.sockets_per_address` sockets at once (more are closed
with code 4429), and each socket is read at most :data:`MESSAGES_PER_SECOND` (a
faster sender is simply read later). A table another process plays sends the client
there (``moved``). See docs/server-protocol.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from chinese_poker.server.guard import client_address, lone_surrogate, origin_allowed
from chinese_poker.server.holdings import Holdings, manager_of
from chinese_poker.server.lobby_routes import seat_cookie
from chinese_poker.server.messages import MOVED_CLOSE, AuthMsg
from chinese_poker.server.tables import Conn, LiveTable, TableManager, TableMoved
from chinese_poker.server.transport import direct_reading, direct_writer

__all__ = ["AUTH_SECONDS", "MESSAGES_PER_SECOND", "MESSAGE_BURST", "router"]

log = logging.getLogger("chinese_poker.server")

router = APIRouter()

AUTH_SECONDS = 10.0
"""How long a seat's socket may take to send its ``auth`` message."""


@router.websocket("/ws/tables/{table_id}")
async def play(
    websocket: WebSocket,
    table_id: str,
    holdings: Holdings,
    role: str | None = None,
    auth: str | None = None,
) -> None:
    """A seat (``?role=seat``, then ``{"type": "auth", "token": ...}`` as the first
    message, or ``?role=seat&auth=cookie`` with the seat cookie the join set) or a
    spectator. See docs/server-protocol.md."""
    if not origin_allowed(
        websocket.headers.get("origin"), websocket.headers.get("host"), holdings.origins
    ):
        await websocket.close(code=1008, reason="origin not allowed")
        return
    where = client_address(websocket)
    open_sockets = holdings.open_sockets
    sockets_per_address = holdings.sockets_per_address
    if open_sockets.get(where, 0) >= sockets_per_address:
        # Each socket costs memory and a copy of every state it watches: one address
        # cannot hold the server's sockets, whatever its message rate.
        await websocket.accept()
        limit = f"limit {sockets_per_address}"
        await websocket.close(
            code=4429, reason=f"too many open connections from your address ({limit})"
        )
        return
    open_sockets[where] = open_sockets.get(where, 0) + 1
    try:
        await _socket(websocket, table_id, role, auth)
    finally:
        left = open_sockets[where] - 1
        if left:
            open_sockets[where] = left
        else:
            del open_sockets[where]


async def _socket(websocket: WebSocket, table_id: str, role: str | None, auth: str | None) -> None:
    manager = manager_of(websocket)
    await websocket.accept()
    if "token" in websocket.query_params:
        await websocket.close(
            code=4400, reason="send the seat token in the first message, not in the URL"
        )
        return
    try:
        await _join(websocket, manager, table_id, role, auth)
    except TableMoved as moved:
        # Never a copy of our own: the client is sent to the process that plays it.
        with contextlib.suppress(Exception):
            await websocket.send_text(moved.text())
            await websocket.close(code=MOVED_CLOSE, reason="table moved")


async def _join(
    websocket: WebSocket,
    manager: TableManager,
    table_id: str,
    role: str | None,
    auth: str | None,
) -> None:
    live = manager.get(table_id)
    if live is None:
        await websocket.close(code=4404, reason="no such table")
        return
    seat: int | None = None
    if auth not in (None, "cookie") or (auth is not None and role != "seat"):
        await websocket.close(code=4400, reason="auth=cookie is for role=seat")
        return
    if role == "seat":
        if auth == "cookie":
            token = websocket.cookies.get(seat_cookie(table_id))
        else:
            token = await _auth(websocket)
        if token is None:
            reason = (
                "no seat cookie for this table"
                if auth == "cookie"
                else 'first send {"type":"auth","token":...}'
            )
            await websocket.close(code=4400 if auth is None else 4401, reason=reason)
            return
        # The table may have left memory while the token was awaited: fetch it anew.
        fresh = manager.get(table_id)
        if fresh is None:
            await websocket.close(code=4404, reason="no such table")
            return
        live = fresh
        seat = live.seat_for_token(token)
        if seat is None:
            await websocket.close(code=4401, reason="bad seat token")
            return
    elif role is not None:
        await websocket.close(code=4400, reason="role must be 'seat' or absent")
        return
    elif not live.spec.spectators:
        await websocket.close(code=4403, reason="this table has no spectators")
        return
    conn = Conn(
        seat, websocket.send_text, client_address(websocket), direct_writer(websocket.scope)
    )
    table: LiveTable = live
    table.attach(conn)
    writer = asyncio.create_task(_writer(websocket, conn))
    bucket = _Bucket(MESSAGES_PER_SECOND, MESSAGE_BURST)

    def handle(text: str | None, read_at: float) -> None:
        nonlocal table
        table = manager.tables.get(table_id, table)  # rebuilt since: the new one
        try:
            table.handle(conn, text, read_at)
        except Exception:
            log.exception("table %s: error handling a message", table_id)
            conn.send(_SERVER_ERROR)

    def read(text: str | None) -> float | None:
        """A message read directly (transport.direct_reading), at most as fast as the
        bucket allows; one the guard refuses is left to it (the ASGI way)."""
        if text is not None and lone_surrogate(text) is not None:
            return None
        wait = bucket.wait()
        if wait == 0.0:
            handle(text, time.perf_counter())
        return wait

    reading = direct_reading(websocket.scope)
    try:
        while True:
            if reading is not None:
                reading(read)  # again after any message the guard refused
            # Fair share: a socket sending faster than the bucket allows is simply
            # not read for a while (TCP pushes back), whatever it sends.
            await bucket.take()
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            handle(message.get("text"), time.perf_counter())
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        manager.tables.get(table_id, table).detach(conn)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 1.0)
        writer.cancel()


MESSAGES_PER_SECOND = 20.0
"""A socket's sustained message rate; faster senders are read more slowly."""

MESSAGE_BURST = 40
"""How many messages a socket may send at once before it is slowed down."""


class _Bucket:
    """A token bucket: ``take`` waits until a token is there."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.at = asyncio.get_running_loop().time()

    async def take(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1.0:
            await asyncio.sleep((1.0 - self.tokens) / self.rate)
            self.tokens = 1.0
            self.at = loop.time()
        self.tokens -= 1.0

    def wait(self) -> float:
        """Take a token now (0.0), or the seconds until one is there (none taken)."""
        now = asyncio.get_running_loop().time()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1.0:
            return (1.0 - self.tokens) / self.rate
        self.tokens -= 1.0
        return 0.0


async def _auth(websocket: WebSocket) -> str | None:
    """The token of a seat's first message (``auth``), or None if it is not one."""
    try:
        message = await asyncio.wait_for(websocket.receive(), AUTH_SECONDS)
    except TimeoutError:
        return None
    text = message.get("text")
    if not isinstance(text, str) or len(text) > 1000:
        return None
    try:
        return AuthMsg.model_validate_json(text).token
    except ValueError:
        return None


_SERVER_ERROR = json.dumps(
    {"type": "error", "ref": None, "code": "server_error", "message": "internal error"}
)


async def _writer(websocket: WebSocket, conn: Conn) -> None:
    """Write what a connection could not send at once, in order (see :class:`Conn`);
    close the socket when told to."""
    try:
        while True:
            item = await conn.next_item()
            if item is None:
                break
            if isinstance(item, str):
                await websocket.send_text(item)
            else:
                await item
            conn.drained()
    except Exception:
        conn.closed = True
        return
    with contextlib.suppress(Exception):
        await websocket.close()
