"""The sockets of bot accounts (docs/bot-protocol.md "Online", docs/server-protocol.md).

* ``/ws/bot`` -- a bot's lobby socket: the first message is ``hello`` with the bot's
  token and what it accepts; the server answers ``welcome`` and then, every
  :data:`POLL_SECONDS`, refreshes the bot's presence and sends an ``invite`` for every
  seat the bot holds at a table not finished. Seats and presence are in the database,
  so a bot connected to one process is invited to tables any process plays, and a
  revoked token or a pause closes the socket on its next poll wherever it is.
* ``/ws/bot/tables/{id}`` -- a bot's seat: ``hello`` with the token again; the process
  that plays the table attaches it to the bot's chair as a person's socket is attached
  (same views, clocks, timeout rule, leak-free state), others answer ``moved``. The
  table's messages are turned into the bot protocol's: ``hello`` once, ``act`` for
  every decision, ``result`` after every hand; the bot answers ``action`` as it would
  to ``chinese-poker simulate``.

Bad input (invalid JSON, an unknown type, a malformed action, an action for another
seat or an old version, a flood) gets an ``error`` on that socket only and changes
nothing. An action the decision does not allow, a timeout, or a socket lost mid-hand is
a fault: the first gets the table's timeout rule at once, the others get it from the
clock; :data:`~.bot_accounts.PAUSE_AFTER_FAULTS` in a row pause the account.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, WebSocket
from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError
from sqlalchemy import Engine
from starlette.websockets import WebSocketDisconnect

from chinese_poker import __version__
from chinese_poker.ai.protocol import (
    DEFAULT_DEADLINE,
    PROTOCOL_VERSION,
    act_message,
    check_against_view,
    hello_message,
    result_message,
    view_from_dict,
)
from chinese_poker.engine import Timeout
from chinese_poker.engine.actions import action_from_dict
from chinese_poker.engine.views import View
from chinese_poker.server.bot_accounts import (
    BotAccount,
    account_for_token,
    bot_seat,
    forget_presence,
    good_action,
    open_seats,
    record_fault,
    show_presence,
)
from chinese_poker.server.guard import client_address
from chinese_poker.server.holdings import Holdings, ServerHoldings, manager_of, store_of
from chinese_poker.server.messages import MAX_MESSAGE, MOVED_CLOSE, ErrorCode
from chinese_poker.server.play_socket import MESSAGE_BURST, MESSAGES_PER_SECOND
from chinese_poker.server.tables import Conn, LiveTable, TableMoved

__all__ = ["HELLO_SECONDS", "POLL_SECONDS", "router"]

log = logging.getLogger("chinese_poker.server")

router = APIRouter()

HELLO_SECONDS = 10.0
"""How long a bot's socket may take to send its ``hello``."""

POLL_SECONDS = 0.5
"""How often a bot's lobby socket refreshes its presence and looks for new seats."""

CLOSE_BAD_TOKEN = 4401
CLOSE_PAUSED = 4403
CLOSE_FINISHED = 4410
CLOSE_REPLACED = 4408


class Accepts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    presets: list[str] = Field(default_factory=list, max_length=50)
    players: list[StrictInt] = Field(default_factory=list, max_length=4)


class Hello(BaseModel):
    """A bot socket's first message."""

    model_config = ConfigDict(extra="ignore")
    type: str = Field(pattern="^hello$")
    token: str = Field(min_length=1, max_length=200)
    protocol: StrictInt = PROTOCOL_VERSION
    accepts: Accepts = Field(default_factory=Accepts)


def _error(ref: object, code: str, message: str) -> str:
    return json.dumps({"type": "error", "id": ref, "code": code, "message": message})


class Refused(Exception):
    """A bot's message that cannot be read: its error's code and words."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def parse_message(text: str | None) -> dict[str, Any]:
    """A bot's message as a JSON object (:class:`Refused` says what is wrong). Bounded
    as people's messages are: a huge one is not parsed on the event loop, and a deeply
    nested one (Python's parser recurses) is an error, not a dead socket."""
    if text is None:
        raise Refused(ErrorCode.BAD_JSON, "send JSON text frames, not binary ones")
    if len(text) > MAX_MESSAGE:
        raise Refused(ErrorCode.TOO_LARGE, f"a message may have at most {MAX_MESSAGE} chars")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        raise Refused(ErrorCode.BAD_JSON, "a message is one JSON object")
    return data


class _Refusals:
    """A token bucket that refuses (instead of waiting): a flood gets errors, and what
    it floods with is not read into the table."""

    def __init__(self) -> None:
        self.tokens = float(MESSAGE_BURST)
        self.at = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(float(MESSAGE_BURST), self.tokens + (now - self.at) * MESSAGES_PER_SECOND)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


async def _counted(
    websocket: WebSocket, holdings: ServerHoldings, run: Callable[[], Awaitable[None]]
) -> None:
    """Run a socket within its address's share of open sockets (as people's are)."""
    where = client_address(websocket)
    open_sockets = holdings.open_sockets
    if open_sockets.get(where, 0) >= holdings.sockets_per_address:
        await websocket.accept()
        await websocket.close(code=4429, reason="too many open connections from your address")
        return
    open_sockets[where] = open_sockets.get(where, 0) + 1
    try:
        await run()
    finally:
        open_sockets[where] -= 1
        if not open_sockets[where]:
            del open_sockets[where]


async def _hello(websocket: WebSocket, holdings: ServerHoldings) -> tuple[Hello, BotAccount] | None:
    """Accept the socket and read its ``hello``: the bot's account, or None (closed)."""
    await websocket.accept()
    if "token" in websocket.query_params:
        await websocket.close(code=4400, reason="send the token in the hello message, not the URL")
        return None
    where = client_address(websocket)
    if not await holdings.limits.allowed("bad_code", where):
        await websocket.close(code=4429, reason="too many wrong tokens from your address")
        return None
    try:
        message = await asyncio.wait_for(websocket.receive(), HELLO_SECONDS)
        text = message.get("text")
        hello = Hello.model_validate_json(text if isinstance(text, str) else "")
    except (TimeoutError, ValidationError, ValueError):
        await websocket.close(code=4400, reason='first send {"type":"hello","token":...}')
        return None
    if hello.protocol != PROTOCOL_VERSION:
        await websocket.close(
            code=4400, reason=f"this server speaks bot protocol {PROTOCOL_VERSION}"
        )
        return None
    account = await manager_of(websocket).workers.setup(
        _account, store_of(websocket).engine, hello.token
    )
    if account is None:
        await holdings.limits.hit("bad_code", where)
        await websocket.close(code=CLOSE_BAD_TOKEN, reason="unknown or revoked bot token")
        return None
    if account.paused:
        await websocket.close(code=CLOSE_PAUSED, reason="this bot account is paused by faults")
        return None
    return hello, account


def _account(engine: Engine, token: str) -> BotAccount | None:
    with engine.connect() as conn:
        return account_for_token(conn, token)


# =========================================================================== the lobby socket


@router.websocket("/ws/bot")
async def bot_lobby(websocket: WebSocket, holdings: Holdings) -> None:
    """A bot's lobby socket: presence and invitations (see the module's text)."""
    await _counted(websocket, holdings, lambda: _lobby(websocket, holdings))


async def _lobby(websocket: WebSocket, holdings: ServerHoldings) -> None:
    opened = await _hello(websocket, holdings)
    if opened is None:
        return
    hello, account = opened
    manager = manager_of(websocket)
    engine = store_of(websocket).engine
    socket_id = f"{os.getpid()}-{secrets.token_hex(8)}"
    accepts = hello.accepts.model_dump()
    await manager.workers.setup(show_presence, engine, account.id, socket_id, accepts)
    await websocket.send_text(
        json.dumps(
            {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "engine": f"chinese-poker {__version__}",
                "bot": {"id": account.id, "name": account.name},
                "accepts": accepts,
            }
        )
    )
    reader = asyncio.create_task(_lobby_reader(websocket))
    invited: set[str] = set()
    try:
        while not reader.done():
            now = await manager.workers.setup(show_presence, engine, account.id, socket_id, None)
            if now is not None and now.paused:
                await websocket.close(code=CLOSE_PAUSED, reason="this bot account is paused")
                break
            if now is None:  # revoked, or a newer lobby socket of the bot took its place
                valid = await manager.workers.setup(_account, engine, hello.token)
                code, why = (
                    (CLOSE_REPLACED, "another connection of this bot took its place")
                    if valid is not None
                    else (CLOSE_BAD_TOKEN, "the bot's token was revoked")
                )
                await websocket.close(code=code, reason=why)
                break
            seats = await manager.workers.setup(open_seats, engine, account.id)
            for seat in seats:
                if seat.table_id not in invited:
                    invited.add(seat.table_id)
                    await websocket.send_text(json.dumps(seat.message()))
            invited &= {s.table_id for s in seats}
            await asyncio.wait({reader}, timeout=POLL_SECONDS)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        reader.cancel()
        # Shielded: a server cancelling the socket's task still marks the bot offline.
        gone = asyncio.ensure_future(
            manager.workers.setup(forget_presence, engine, account.id, socket_id)
        )
        with contextlib.suppress(Exception):
            await asyncio.shield(gone)


async def _lobby_reader(websocket: WebSocket) -> None:
    """Answer ``ping``; anything else gets an error; ends when the socket closes."""
    bucket = _Refusals()
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        if not bucket.allow():
            await websocket.send_text(_error(None, "too_many", "too many messages: slow down"))
            continue
        try:
            data = parse_message(message.get("text"))
        except Refused as refused:
            await websocket.send_text(_error(None, refused.code, refused.message))
            continue
        kind = data.get("type")
        if kind == "ping":
            await websocket.send_text(json.dumps({"type": "pong", "id": data.get("id")}))
        else:
            await websocket.send_text(
                _error(None, "unknown_type", "the lobby socket takes only ping")
            )


# =========================================================================== a table's socket


@router.websocket("/ws/bot/tables/{table_id}")
async def bot_table(websocket: WebSocket, table_id: str, holdings: Holdings) -> None:
    """A bot's seat at one table (see the module's text)."""
    await _counted(websocket, holdings, lambda: _table(websocket, holdings, table_id))


async def _table(websocket: WebSocket, holdings: ServerHoldings, table_id: str) -> None:
    opened = await _hello(websocket, holdings)
    if opened is None:
        return
    hello, account = opened
    manager = manager_of(websocket)
    chair = await manager.workers.setup(bot_seat, store_of(websocket).engine, account.id, table_id)
    if chair is None:
        await websocket.close(code=4403, reason="this bot has no seat at that table")
        return
    try:
        live = manager.get(table_id)
    except TableMoved as moved:
        with contextlib.suppress(Exception):
            await websocket.send_text(moved.text())
            await websocket.close(code=MOVED_CLOSE, reason="table moved")
        return
    if live is None:
        await websocket.close(code=4404, reason="no such table")
        return
    if live.status == "finished":  # nothing to play: the bot's client stops asking
        await websocket.close(code=CLOSE_FINISHED, reason="the table is finished")
        return
    seat = BotSeat(websocket, live, chair, account)
    conn = Conn(chair, seat.sink, client_address(websocket))
    seat.conn = conn
    live.attach(conn)
    seat.take_place()
    writer = asyncio.create_task(_drain(websocket, conn))
    watcher = asyncio.create_task(_watch_token(seat, hello.token))
    bucket = _Refusals()
    try:
        while not seat.done:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            seat.live = manager.tables.get(table_id, seat.live)
            if not bucket.allow():
                await websocket.send_text(_error(None, "too_many", "too many messages: slow down"))
                continue
            try:
                await seat.answer(message.get("text"))
            except Exception:
                log.exception("table %s: error handling a bot's message", table_id)
                await websocket.send_text(_error(None, "server_error", "internal error"))
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        seat.leave_place()
        live = manager.tables.get(table_id, seat.live)
        dropped = seat.open_question() and not seat.done
        live.detach(conn)
        writer.cancel()
        watcher.cancel()
        if dropped:  # shielded: a server cancelling the socket's task still counts it
            counted = asyncio.ensure_future(seat.fault("the connection was lost mid-hand"))
            with contextlib.suppress(Exception):
                await asyncio.shield(counted)
        if seat.done:
            with contextlib.suppress(Exception):
                await websocket.close(code=seat.close_code, reason=seat.close_reason)


async def _watch_token(seat: BotSeat, token: str) -> None:
    """Close the seat's socket once its token is revoked (or made anew)."""
    websocket = seat.websocket
    manager = manager_of(websocket)
    engine = store_of(websocket).engine
    while not seat.done:
        await asyncio.sleep(POLL_SECONDS)
        if await manager.workers.setup(_account, engine, token) is None:
            seat.done = True
            with contextlib.suppress(Exception):
                await websocket.close(code=CLOSE_BAD_TOKEN, reason="the bot's token was revoked")


async def _drain(websocket: WebSocket, conn: Conn) -> None:
    """Finish what the connection could not send at once, in order (see :class:`Conn`)."""
    with contextlib.suppress(Exception):
        while (item := await conn.next_item()) is not None:
            await (websocket.send_text(item) if isinstance(item, str) else item)
            conn.drained()


PLAYING: dict[tuple[str, int], BotSeat] = {}
"""The bot socket playing each (table, chair) in this process: one a seat, as a bot's
lobby socket is one a bot (a table's sockets all reach the process that plays it)."""


class BotSeat:
    """One bot socket's seat: the table's messages in, the bot protocol's out."""

    def __init__(
        self, websocket: WebSocket, live: LiveTable, chair: int, account: BotAccount
    ) -> None:
        self.websocket = websocket
        self.live = live
        self.chair = chair
        self.account = account
        self.conn: Conn | None = None
        self.view: View | None = None
        # The open act: its (hand, decisions) and the view it showed. Another seat's
        # action moves the version but not this seat's decisions: the act stays open
        # (the engine takes an action made on a view since which the seat's situation
        # did not change), so a slow bot is not asked again.
        self.asked: tuple[int, str] | None = None
        self.act_view: View | None = None
        self.act_id = 0
        self.greeted = False
        self.expect_timeout = False  # a timeout we applied ourselves: counted already
        self.faulted = account.faults > 0
        self.done = False
        self.close_code = 1000
        self.close_reason = ""

    def open_question(self) -> bool:
        return self.asked is not None

    def take_place(self) -> None:
        """Play the chair alone: an older socket of the bot there is closed (4408) and
        detached at once, so that a timeout or a lost socket counts one fault, and two
        copies of a bot cannot both answer its decisions."""
        key = (self.live.id, self.chair)
        older = PLAYING.get(key)
        PLAYING[key] = self
        if older is None or older.done:
            return
        older.done = True
        older.close_code = CLOSE_REPLACED
        older.close_reason = "another connection of this bot took this seat"
        if older.conn is not None:
            older.live.detach(older.conn)
        close = older.websocket.close(code=older.close_code, reason=older.close_reason)
        task = asyncio.ensure_future(close)
        task.add_done_callback(lambda t: t.cancelled() or t.exception())

    def leave_place(self) -> None:
        key = (self.live.id, self.chair)
        if PLAYING.get(key) is self:
            del PLAYING[key]

    # ------------------------------------------------------------------ table -> bot

    async def sink(self, text: str) -> None:
        """A message the table sends this chair, as the bot protocol says it."""
        data = json.loads(text)
        kind = data.get("type")
        if kind == "state":
            await self._state(data)
        elif kind == "hand_end":
            if self.view is not None:
                result = result_message(self.view, data["hand"], data["session_over"])
                # The table's totals: the last view may be from before the settlement.
                await self._send({**result, "totals": data["totals"], "table_id": self.live.id})
            if not data["session_over"]:
                # After this send, not inside it: the table's answer comes to this sink.
                live, conn = self.live, self.conn_or_fail()
                live.loop.call_soon(live.handle, conn, '{"type":"next"}')
        elif kind == "session_end":
            await self._send({**data, "type": "session_end"})
            self.done = True
        elif kind == "notice" and data.get("kind") == "timeout" and data.get("chair") == self.chair:
            await self._timed_out()
        elif kind == "error":  # the table refused an answer: its ref is the act's id
            await self._send({**data, "id": data.get("ref")})
        elif kind == "moved":
            await self._send(data)

    def conn_or_fail(self) -> Conn:
        assert self.conn is not None
        return self.conn

    async def _send(self, message: dict[str, Any]) -> None:
        await self.websocket.send_text(json.dumps(message, separators=(",", ":")))

    async def _state(self, data: dict[str, Any]) -> None:
        # A state's view leaves out the rules (a socket's welcome has them): put them back.
        view = view_from_dict({**data["view"], "rules": self.live.game.rules.to_dict()})
        self.view = view
        last = data.get("last")
        if (
            isinstance(last, dict)
            and last.get("type") == "timeout"
            and last.get("seat") == view.seat
        ):
            await self._timed_out()
        if not self.greeted:
            self.greeted = True
            deadline = self._deadline(data, view)
            hello = hello_message(view.rules, view.players, view.seat, view.player, deadline)
            await self._send({**hello, "table_id": self.live.id})
        if not view.decisions:
            self.asked = None
            return
        key = (int(data["hand"]), json.dumps(data["view"]["decisions"], sort_keys=True))
        if self.asked == key:
            return
        self.asked = key
        self.act_view = view
        self.act_id += 1
        message = act_message(view, self.act_id, self._deadline(data, view))
        await self._send({**message, "table_id": self.live.id, "hand": data["hand"]})

    @staticmethod
    def _deadline(data: dict[str, Any], view: View) -> float:
        for clock in data.get("clocks") or ():
            if clock.get("seat") == view.seat:
                return float(clock.get("remaining", 0)) + float(clock.get("bank", 0))
        limit = view.rules.time_limit
        return float(limit) if limit is not None else DEFAULT_DEADLINE

    async def _timed_out(self) -> None:
        if self.expect_timeout:
            self.expect_timeout = False
            return
        await self.fault("no action within the time limit")

    # ------------------------------------------------------------------ bot -> table

    async def answer(self, text: str | None) -> None:
        """One message of the bot: an ``action`` for the open ``act`` (or ``ping``)."""
        try:
            data = parse_message(text)
        except Refused as refused:
            await self._send_error(None, refused.code, refused.message)
            return
        kind = data.get("type")
        ref = data.get("id")
        if kind in ("ready", "pong"):
            return
        if kind == "ping":
            await self._send({"type": "pong", "id": ref})
            return
        if kind != "action":
            await self._send_error(ref, "unknown_type", "a bot sends 'action' (or 'ping')")
            return
        view = self.act_view
        # The act's own number: JSON's true and 1.0 equal 1 in Python, and are not it.
        if view is None or self.asked is None or type(ref) is not int or ref != self.act_id:
            await self._send_error(ref, "stale", f"no open act with id {ref!r}")
            return
        try:
            action = action_from_dict(data.get("action"))  # type: ignore[arg-type]
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            await self._send_error(ref, "bad_message", f"malformed action ({exc})")
            return
        if isinstance(action, Timeout):
            await self._send_error(ref, "bad_message", "a bot may not send a timeout action")
            return
        if action.seat != view.seat:
            await self._send_error(ref, "not_your_seat", f"you play seat {view.seat}")
            return
        if action.version is None:
            action = dataclasses.replace(action, version=view.version)
        if action.version != view.version:
            await self._send_error(ref, "stale", f"the view is at version {view.version}")
            return
        problem = check_against_view(view, action)
        if problem is not None:
            await self._send_error(ref, "illegal", f"illegal action: {problem}")
            await self._illegal(view)
            return
        self.live.handle(
            self.conn_or_fail(),
            json.dumps({"type": "action", "id": ref, "action": action.to_dict()}),
        )
        if self.faulted:
            self.faulted = False
            await manager_of(self.websocket).workers.setup(
                good_action, store_of(self.websocket).engine, self.account.id
            )

    async def _send_error(self, ref: object, code: str, message: str) -> None:
        await self.websocket.send_text(_error(ref, code, message))

    async def _illegal(self, view: View) -> None:
        """An action the decision does not allow: the table's timeout rule, now."""
        live = self.live
        table = live.table
        seat = view.seat
        self.asked = None
        await self.fault("an illegal action")
        if table is None or seat is None or seat not in table.to_act:
            return
        self.expect_timeout = True
        if live.spec.timeouts == "decision":
            live.timekeeper.timeout_decision(table, seat, self.chair)
            return
        result = live.submit(self.chair, Timeout(seat, version=table.version))
        if not result.ok:
            self.expect_timeout = False
            log.warning("table %s: a bot's timeout refused: %s", live.id, result.message)

    async def fault(self, why: str) -> None:
        """Count a fault; a pause closes this socket."""
        self.faulted = True
        manager = manager_of(self.websocket)
        engine = store_of(self.websocket).engine
        paused = await manager.workers.setup(record_fault, engine, self.account.id)
        log.info("table %s: bot %s fault: %s", self.live.id, self.account.id, why)
        if paused and not self.done:
            self.done = True
            self.close_code = CLOSE_PAUSED
            self.close_reason = "this bot account is paused by faults"
            with contextlib.suppress(Exception):
                await self._send({"type": "paused", "message": f"paused after {why}"})
                await self.websocket.close(code=CLOSE_PAUSED, reason=self.close_reason)
