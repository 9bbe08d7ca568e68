"""Connections and what each is shown: sockets' send queues and the per-seat view cache.

A :class:`Conn` is one WebSocket of a chair (``chair`` set) or of a spectator. What it
is sent is built by :class:`ViewCache`: the ``state`` message of the engine seat the
chair holds in the current hand (``view(seat)``; a chair not dealt in sees
``view(None)``, like a spectator), serialised once per seat and version.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from collections.abc import Callable, Coroutine, Generator
from typing import Any, NamedTuple, cast

from chinese_poker.cards import card_name
from chinese_poker.engine import LogEntry, Table, View
from chinese_poker.rules import Rules, rules_for
from chinese_poker.server.db import compact_json

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
    message is queued for the writer.
    """

    __slots__ = ("_busy", "_sink", "chair", "closed", "queue")

    def __init__(
        self, chair: int | None, sink: Callable[[str], Coroutine[Any, Any, None]] | None = None
    ) -> None:
        self.chair = chair
        self.queue: asyncio.Queue[str | _Resumed | None] = asyncio.Queue()
        self.closed = False
        self._sink = sink
        self._busy = False  # the writer has messages (or a suspended send) to finish

    @property
    def seat(self) -> int | None:
        """The chair (the lobby's seat number); kept for older callers."""
        return self.chair

    def send(self, text: str) -> None:
        if self.closed:
            return
        if self._sink is not None and not self._busy:
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


_RULES_MARK = "\x00rules:" + secrets.token_hex(16)
_RULES_MARK_JSON = compact_json(_RULES_MARK)


class _RulesOnce:
    """Stands for the table's rules in a view: ``to_dict()`` gives a marker string that
    is replaced by the rules' JSON, serialised once per table."""

    __slots__ = ("variant",)

    def __init__(self, variant: str) -> None:
        self.variant = variant

    def to_dict(self) -> str:
        return _RULES_MARK


_CARD_NAMES = [card_name(c) for c in range(52)]


def _view_dict(v: View) -> dict[str, Any]:
    """``View.to_dict()`` with the rules replaced by the marker (see :class:`_RulesOnce`).

    The same keys and values as the engine's ``to_dict`` (a test compares them on random
    states of every variant; at import, a sample view's keys are compared and any
    difference switches back to the engine's own ``to_dict``).
    """
    return {
        "seat": v.seat,
        "player": v.player,
        "players": list(v.players),
        "rules": _RULES_MARK,
        "variant": v.rules.variant,
        "version": v.version,
        "phase": v.phase,
        "street": v.street,
        "button": v.button,
        "play_order": list(v.play_order),
        "to_act": list(v.to_act),
        "fantasyland": list(v.fantasyland),
        "timed_out": list(v.timed_out),
        "boards": [b.to_dict() for b in v.boards],
        "hand": [_CARD_NAMES[c] for c in v.hand],
        "decisions": [d.to_dict() for d in v.decisions],
        "settlement": v.settlement,
        "totals": v.totals,
    }


def _fast_views_match() -> bool:
    table = Table(rules_for("pineapple"), 2, seed=0)
    view = table.view(1)
    return list(_view_dict(view)) == list(view.to_dict()) and (
        _view_dict(view) | {"rules": view.rules.to_dict()} == view.to_dict()
    )


_FAST_VIEWS = _fast_views_match()


def public_entry(
    entry: LogEntry, viewer: int | None, view: View, full: dict[str, Any] | None = None
) -> dict[str, Any]:
    """An applied action as engine seat ``viewer`` may see it (docs/server-protocol.md).
    ``full``: ``entry.action.to_dict()``, if the caller has it (it is not changed)."""
    return _public_entry(entry, viewer, _hidden_boards(view), full)


def _hidden_boards(view: View) -> tuple[tuple[int, int], ...]:
    """The (seat, hand) of every board the viewer may not see (usually none)."""
    return tuple((b.seat, b.hand) for b in view.boards if b.hidden)


def _public_entry(
    entry: LogEntry,
    viewer: int | None,
    hidden: tuple[tuple[int, int], ...],
    full: dict[str, Any] | None = None,
) -> dict[str, Any]:
    data = entry.action.to_dict() if full is None else dict(full)
    data["auto"] = entry.auto
    data.setdefault("hand", 0)
    if data["seat"] == viewer or data["type"] != "place":
        return data
    data.pop("discard", None)
    if (data["seat"], data["hand"]) in hidden:
        for line in ("top", "middle", "bottom"):
            data.pop(line, None)
    return data


class _Cached(NamedTuple):
    """A seat's view as sent: its JSON and the boards it may not see. Not the ``View``
    itself: thousands of tables keep one per seat, and the garbage collector walks
    every live container (a tuple of plain values it skips after its first pass)."""

    key: tuple[int, int]
    hidden: tuple[tuple[int, int], ...]
    text: str


class ViewCache:
    """Each engine seat's view of one table and its JSON, cached per hand and version.

    The rules part is the same in every view of the table: it is serialised once
    (``_RulesOnce``) and spliced in, so the text equals ``dumps(view.to_dict())``.
    """

    def __init__(self, rules: Rules) -> None:
        self._rules_once = _RulesOnce(rules.variant)
        self._rules_json = compact_json(rules.to_dict())
        self._cache: dict[int | None, _Cached] = {}

    def clear(self) -> None:
        self._cache.clear()

    def get(self, table: Table, hand: int, seat: int | None) -> _Cached:
        key = (hand, table.version)
        cached = self._cache.get(seat)
        if cached is None or cached.key != key:
            view = table.view(seat)
            if _FAST_VIEWS:
                data = _view_dict(view)
            else:  # the engine's View grew fields this module does not know: its to_dict()
                data = dataclasses.replace(view, rules=cast(Rules, self._rules_once)).to_dict()
            text = compact_json(data).replace(_RULES_MARK_JSON, self._rules_json, 1)
            cached = _Cached(key, _hidden_boards(view), text)
            self._cache[seat] = cached
        return cached

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
        ``seats``: each equals :meth:`state_message` for it (what every socket shares is
        serialised once)."""
        head = (
            compact_json(
                {"type": "state", "table_id": table_id, "hand": hand, "version": table.version}
            )[:-1]
            + ',"view":'
        )
        tail = (
            "," + compact_json({"clocks": clocks, "commitment": commitment})[1:-1] + ',"log":null}'
        )
        full = last.action.to_dict()
        lasts: dict[int | None, str] = {}
        out = []
        for seat, ack in seats:
            cached = self.get(table, hand, seat)
            shown = lasts.get(seat)
            if shown is None:
                shown = lasts[seat] = compact_json(_public_entry(last, seat, cached.hidden, full))
            out.append(
                head + cached.text + ',"last":' + shown + ',"ack":' + compact_json(ack) + tail
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
        entries: str = "null"
        if with_log:
            entries = compact_json([_public_entry(e, seat, cached.hidden) for e in table.log])
        head = {"type": "state", "table_id": table_id, "hand": hand, "version": table.version}
        tail = {
            "last": _public_entry(last, seat, cached.hidden) if last is not None else None,
            "ack": ack,
            "clocks": clocks,
            "commitment": commitment,
        }
        return (
            compact_json(head)[:-1]
            + ',"view":'
            + cached.text
            + ","
            + compact_json(tail)[1:-1]
            + ',"log":'
            + entries
            + "}"
        )
