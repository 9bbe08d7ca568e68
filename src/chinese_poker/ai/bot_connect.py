"""A local bot on a server: ``chinese-poker bot --connect URL --token T`` (issue 42).

The bot account's token opens the server's bot lobby socket (``/ws/bot``: the token in
the first message, never in the URL); every ``invite`` there opens the table's socket
(``/ws/bot/tables/{id}``), where the server sends the bot protocol's ``hello``, ``act``
and ``result`` (docs/bot-protocol.md "Online") and the local bot's answers go back as
``action``. The local bot is an :class:`~chinese_poker.engine.Agent`: one of ours
(:func:`~.protocol.build_bot`) or a program speaking the stdin protocol
(:class:`~.protocol.ExternalBot`, ``cmd:COMMAND``), one per table. The client follows
``moved`` to the process that plays a table, reconnects by itself after a lost
connection (waiting longer each time, up to :data:`MAX_WAIT` seconds), and holds up to
``tables`` tables at once (further invitations wait for one of them to end). A
revoked token or a paused account ends it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chinese_poker.ai.protocol import PROTOCOL_VERSION, ExternalBot, build_bot, view_from_dict
from chinese_poker.ai.simulate.job import EXTERNAL_PREFIX, is_external
from chinese_poker.engine.actions import Timeout
from chinese_poker.engine.session import Agent

__all__ = [
    "FINAL_CLOSES",
    "MAX_WAIT",
    "OnlineBot",
    "agent_factory",
    "run_online",
    "socket_url",
]

MAX_WAIT = 30.0
"""The longest wait (seconds) before connecting again."""

FINAL_CLOSES = {
    4400: "refused",
    4401: "token",
    4403: "paused or not seated",
    4404: "no table",
    4408: "another connection of this bot took its place",
}
"""Close codes after which connecting again cannot help."""

TABLE_FINISHED = 4410


@dataclass(frozen=True, slots=True)
class OnlineBot:
    """Where and as whom a bot plays, and what it accepts."""

    url: str
    token: str
    presets: tuple[str, ...] = ()
    players: tuple[int, ...] = ()
    tables: int = 4


def socket_url(base: str, path: str) -> str:
    """The WebSocket address of ``path`` on the server at ``base`` (http(s) or ws(s)).

    >>> socket_url("https://cards.example/", "/ws/bot")
    'wss://cards.example/ws/bot'
    >>> socket_url("http://127.0.0.1:8000", "/ws/bot")
    'ws://127.0.0.1:8000/ws/bot'
    """
    base = base.rstrip("/")
    if base.startswith("http"):
        base = "ws" + base[4:]
    return base + path


def agent_factory(spec: str, *, level: int | None, seed: int | None) -> Callable[[], Agent]:
    """A maker of one agent per table: ``cmd:COMMAND`` or a registered bot's name."""
    if is_external(spec):
        command = spec[len(EXTERNAL_PREFIX) :].strip()
        ExternalBot(command).close()  # a command that cannot start fails here, once
        return lambda: ExternalBot(command)
    build_bot(spec, seed, level)  # an unknown bot or level fails here
    return lambda: build_bot(spec, seed, level)


def _hello(bot: OnlineBot) -> str:
    accepts = {"presets": list(bot.presets), "players": list(bot.players)}
    return json.dumps(
        {"type": "hello", "protocol": PROTOCOL_VERSION, "token": bot.token, "accepts": accepts}
    )


def _close_code(exc: BaseException) -> tuple[int | None, str]:
    received = getattr(exc, "rcvd", None)
    if received is None:
        return None, str(exc)
    return int(received.code), str(received.reason)


async def run_online(
    bot: OnlineBot, make_agent: Callable[[], Agent], say: Callable[[str], None]
) -> int:
    """Play the tables the server invites the bot to, until the token is refused or the
    account is paused (exit status 1); reconnects after any other loss."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

    tables: dict[str, asyncio.Task[None]] = {}
    # Invitations past ``bot.tables``, oldest first: the server invites once per lobby
    # socket, so one dropped here would leave its seat to the clock until a reconnect.
    waiting: dict[str, str] = {}

    def admit() -> None:
        """Start the waiting tables while fewer than ``bot.tables`` are played."""
        while waiting and sum(not t.done() for t in tables.values()) < bot.tables:
            table_id = next(iter(waiting))
            preset = waiting.pop(table_id)
            say(f"invited to table {table_id} ({preset})")
            task = asyncio.create_task(_play_table(bot, table_id, make_agent(), say))
            task.add_done_callback(lambda _task: admit())
            tables[table_id] = task

    wait = 1.0
    try:
        while True:
            try:
                async with connect(socket_url(bot.url, "/ws/bot"), max_size=None) as ws:
                    await ws.send(_hello(bot))
                    welcome = json.loads(await ws.recv())
                    say(f"connected as {welcome['bot']['name']} ({welcome['bot']['id']})")
                    wait = 1.0
                    async for text in ws:
                        message = json.loads(text)
                        if message.get("type") != "invite":
                            continue
                        table_id = str(message["table_id"])
                        running = tables.get(table_id)
                        if running is None or running.done():
                            waiting[table_id] = str(message["preset"])
                            admit()
                        if table_id in waiting:
                            say(f"table {table_id} waits: {bot.tables} tables are played")
            except ConnectionClosed as exc:
                code, reason = _close_code(exc)
                if code in FINAL_CLOSES:
                    say(f"the server closed the connection: {reason or FINAL_CLOSES[code]}")
                    return 1
                say(f"connection lost ({reason or code})")
            except InvalidURI as exc:
                say(f"bad server address: {exc}")
                return 2
            except (OSError, InvalidHandshake, TimeoutError) as exc:
                say(f"cannot connect to {bot.url}: {exc}")
            await asyncio.sleep(wait)
            wait = min(MAX_WAIT, wait * 2)
    finally:
        waiting.clear()  # a table cancelled here must not start a waiting one
        for task in tables.values():
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*tables.values(), return_exceptions=True)


async def _play_table(
    bot: OnlineBot, table_id: str, agent: Agent, say: Callable[[str], None]
) -> None:
    """Play one table to its end: follow ``moved``, reconnect after a loss."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, InvalidHandshake

    path = f"/ws/bot/tables/{table_id}"
    url = socket_url(bot.url, path)
    wait = 1.0
    try:
        while True:
            try:
                async with connect(url, max_size=None) as ws:
                    await ws.send(_hello(bot))
                    async for text in ws:
                        message = json.loads(text)
                        kind = message.get("type")
                        if kind == "moved" and message.get("to"):
                            url = socket_url(message["to"], path)
                            wait = 0.0
                            break
                        reply = await _answer(agent, message, say)
                        if reply is not None:
                            await ws.send(reply)
                        if kind == "session_end":
                            say(f"table {table_id}: the session is over")
                            return
            except ConnectionClosed as exc:
                code, reason = _close_code(exc)
                if code in FINAL_CLOSES or code == TABLE_FINISHED:
                    say(f"table {table_id}: {reason or code}")
                    return
            except (OSError, InvalidHandshake, TimeoutError) as exc:
                say(f"table {table_id}: cannot connect: {exc}")
            await asyncio.sleep(wait)
            wait = min(MAX_WAIT, max(1.0, wait * 2))
    finally:
        close = getattr(agent, "close", None)
        if callable(close):
            close()


async def _answer(agent: Agent, message: dict[str, Any], say: Callable[[str], None]) -> str | None:
    """The local bot's answer to a table's message (None: no answer)."""
    kind = message.get("type")
    if kind == "error":
        say(f"the server refused an answer: {message.get('message')}")
        return None
    if kind != "act":
        return None
    view = view_from_dict(message["view"])
    action = await asyncio.to_thread(agent.act, view)
    if isinstance(action, Timeout):  # the local bot failed: the server's clock plays
        return None
    return json.dumps({"type": "action", "id": message["id"], "action": action.to_dict()})
