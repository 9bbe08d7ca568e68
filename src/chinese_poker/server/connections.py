"""Connections and what each is shown: sockets' send queues and the per-seat view cache.

A :class:`Conn` is one WebSocket of a chair (``chair`` set) or of a spectator. What it
is sent is built by :class:`ViewCache`: the ``state`` message of the engine seat the
chair holds in the current hand (``view(seat)``; a chair not dealt in sees
``view(None)``, like a spectator), its view serialised once per seat and version and
each message once, with orjson (a dependency: there is no slower second path). The
views leave the rules out: a socket has them from its ``welcome`` (the table's
``rules``), and they never change.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Generator, Iterable
from typing import Any, NamedTuple

import orjson

from chinese_poker.engine import LogEntry, Table, View
from chinese_poker.engine.views import build_views, public_log_entry

__all__ = ["SEND_QUEUE_LIMIT", "Conn", "ViewCache", "public_entry"]

SEND_QUEUE_LIMIT = 2000
"""A client this many messages behind is disconnected."""


class Conn:
    """One WebSocket: a chair's (``chair`` set) or a spectator's (``chair`` None).

    Broadcasting never waits for a slow client and never fails: a closed connection
    drops what it is sent. With a ``sink`` (the socket's ``send_text``), a message is
    written at once when nothing is queued before it: the ASGI send only suspends when
    the socket pushes back, and a send that does is finished, with everything sent after
    it, by the connection's writer task (:meth:`next_item`). Without a sink every
    message is queued for the writer. With a ``direct`` writer as well, a message is
    written straight to the socket when it can take it (most of the time), without the
    ASGI send's coroutines.
    """

    __slots__ = ("_busy", "_direct", "_sink", "address", "chair", "closed", "queue")

    def __init__(
        self,
        chair: int | None,
        sink: Callable[[str], Coroutine[Any, Any, None]] | None = None,
        address: str = "",
        direct: Callable[[str], bool] | None = None,
    ) -> None:
        self.chair = chair
        self.address = address  # the client's: its share of the hint worker counts by it
        self.queue: asyncio.Queue[str | _Resumed | None] = asyncio.Queue()
        self.closed = False
        self._sink = sink
        # The socket's own writer (transport.direct_writer): True once it wrote the
        # message, False when it cannot now (then the sink sends it).
        self._direct = direct
        self._busy = False  # the writer has messages (or a suspended send) to finish

    @property
    def seat(self) -> int | None:
        """The chair (the lobby's seat number); kept for older callers."""
        return self.chair

    def send(self, text: str) -> None:
        if self.closed:
            return
        if self._sink is not None and not self._busy:
            if self._direct is not None and self._direct(text):
                return
            self._write_now(self._sink, text)
            return
        if self.queue.qsize() > SEND_QUEUE_LIMIT:
            self.close()
            return
        self.queue.put_nowait(text)

    def _write_now(self, sink: Callable[[str], Coroutine[Any, Any, None]], text: str) -> None:
        # Saves the writer task's wake-up per message (a good share of the per-action
        # cost with hundreds of busy tables).
        coro = sink(text)
        try:
            waiting = coro.send(None)
        except StopIteration:
            return
        except Exception:  # the socket is gone
            self.close()
            return
        self._busy = True  # pushed back: the writer finishes it, then what follows
        self.queue.put_nowait(_Resumed(coro, waiting))

    async def next_item(self) -> str | _Resumed | None:
        """For the writer task: a message to send, a send to finish, or None (close)."""
        return await self.queue.get()

    def drained(self) -> None:
        """The writer has sent everything queued: send directly again."""
        if self.queue.empty():
            self._busy = False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)


class _Resumed:
    """A send coroutine that suspended outside any task, finished by awaiting this."""

    __slots__ = ("coro", "waiting")

    def __init__(self, coro: Coroutine[Any, Any, None], waiting: Any) -> None:
        self.coro = coro
        self.waiting = waiting

    def __await__(self) -> Generator[Any, Any, None]:
        pending = self.waiting
        while True:
            try:
                value = yield pending
            except BaseException as exc:  # cancelled: pass it on
                try:
                    pending = self.coro.throw(exc)
                except StopIteration:
                    return
                continue
            try:
                pending = self.coro.send(value)
            except StopIteration:
                return


def public_entry(
    entry: LogEntry, viewer: int | None, view: View, full: dict[str, Any] | None = None
) -> dict[str, Any]:
    """An applied action as engine seat ``viewer`` may see it (docs/server-protocol.md):
    :func:`chinese_poker.engine.views.public_log_entry` with what ``view`` hides."""
    return public_log_entry(entry, viewer, view.hidden_boards, full)


class _Cached(NamedTuple):
    """A seat's view as sent: its JSON and the boards it may not see. Not the ``View``
    itself: thousands of tables keep one per seat, and the garbage collector walks
    every live container (a tuple of plain values it skips after its first pass)."""

    key: tuple[int, int]
    hidden: tuple[tuple[int, int], ...]
    json: orjson.Fragment


class ViewCache:
    """Each engine seat's view of one table as JSON, built once per hand and version.

    The views of the seats asked for together are built together (:func:`build_views`),
    and a board they see alike is serialised once for all of them. The rules are not in
    them (the ``welcome`` carries them once per socket).
    """

    def __init__(self) -> None:
        self._cache: dict[int | None, _Cached] = {}

    def clear(self) -> None:
        self._cache.clear()

    def get(self, table: Table, hand: int, seat: int | None) -> _Cached:
        cached = self._cache.get(seat)
        if cached is None or cached.key != (hand, table.version):
            self._build(table, hand, (seat,))
            cached = self._cache[seat]
        return cached

    def _build(self, table: Table, hand: int, seats: Iterable[int | None]) -> None:
        """Build (again) the views of ``seats``, together."""
        key = (hand, table.version)
        # By identity: a board every seat but its owner sees is one object in their views.
        texts: dict[int, orjson.Fragment] = {}
        for seat, view in build_views(table, seats).items():
            boards: list[object] = []
            for board in view.boards:
                text = texts.get(id(board))
                if text is None:
                    text = texts[id(board)] = orjson.Fragment(orjson.dumps(board.to_dict()))
                boards.append(text)
            text = orjson.Fragment(orjson.dumps(view.to_dict(boards=boards, with_rules=False)))
            self._cache[seat] = _Cached(key, view.hidden_boards, text)

    def state_messages(
        self,
        table: Table,
        *,
        table_id: str,
        hand: int,
        seats: list[tuple[int | None, object]],
        last: LogEntry,
        clocks: list[dict[str, Any]],
        commitment: str | None,
    ) -> list[str]:
        """The ``state`` messages of one applied action, one per (engine seat, ack) of
        ``seats``: each equals :meth:`state_message` for it (what sockets share is
        serialised once: each seat's view and its line of the log)."""
        full = last.action.to_dict()
        clocks_json = orjson.Fragment(orjson.dumps(clocks))
        key = (hand, table.version)
        stale = [
            seat
            for seat in dict.fromkeys(seat for seat, _ack in seats)
            if (cached := self._cache.get(seat)) is None or cached.key != key
        ]
        if stale:
            self._build(table, hand, stale)
        lasts: dict[int | None, orjson.Fragment] = {}
        out = []
        for seat, ack in seats:
            cached = self.get(table, hand, seat)
            shown = lasts.get(seat)
            if shown is None:
                entry = public_log_entry(last, seat, cached.hidden, full)
                shown = lasts[seat] = orjson.Fragment(orjson.dumps(entry))
            out.append(
                _state(
                    table_id,
                    hand,
                    table.version,
                    cached.json,
                    shown,
                    ack,
                    clocks_json,
                    commitment,
                    None,
                )
            )
        return out

    def state_message(
        self,
        table: Table,
        *,
        table_id: str,
        hand: int,
        seat: int | None,
        last: LogEntry | None,
        ack: object,
        clocks: list[dict[str, Any]],
        commitment: str | None,
        with_log: bool = False,
    ) -> str:
        """The ``state`` message for engine seat ``seat`` (None: a spectator)."""
        cached = self.get(table, hand, seat)
        hidden = cached.hidden
        log = [public_log_entry(e, seat, hidden) for e in table.log] if with_log else None
        shown = public_log_entry(last, seat, hidden) if last is not None else None
        return _state(
            table_id, hand, table.version, cached.json, shown, ack, clocks, commitment, log
        )


def _state(
    table_id: str,
    hand: int,
    version: int,
    view: orjson.Fragment,
    last: object,
    ack: object,
    clocks: object,
    commitment: str | None,
    log: list[dict[str, Any]] | None,
) -> str:
    """One ``state`` message, serialised once (docs/server-protocol.md)."""
    return orjson.dumps(
        {
            "type": "state",
            "table_id": table_id,
            "hand": hand,
            "version": version,
            "view": view,
            "last": last,
            "ack": ack,
            "clocks": clocks,
            "commitment": commitment,
            "log": log,
        }
    ).decode()
