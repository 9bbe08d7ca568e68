"""A live table's message dispatch: one client message checked, then handed to its
handler (:data:`HANDLERS`, one small method per message type); errors go to
the sender only, behind the table's pending writes (docs/server-protocol.md).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from chinese_poker.engine import action_from_dict
from chinese_poker.engine.views import View, placement_fouls
from chinese_poker.server import scheduling
from chinese_poker.server.commit import Step
from chinese_poker.server.connections import Conn
from chinese_poker.server.db import compact_json
from chinese_poker.server.messages import (
    MAX_MESSAGE,
    TYPES,
    ActionMsg,
    ContributeMsg,
    ErrorCode,
    FoulsMsg,
    HintMsg,
    HoldMsg,
    LeaveMsg,
    LegalMsg,
    NextMsg,
    PingMsg,
    StageMsg,
    SyncMsg,
    error_text,
    parse_client_message,
    plain_action,
    validation_message,
)
from chinese_poker.server.table_chat import CHAT
from chinese_poker.server.table_part import TablePart
from chinese_poker.server.timeout_filler import Staging

if TYPE_CHECKING:
    from chinese_poker.server.tables import LiveTable

__all__ = ["HANDLERS", "TableDispatch", "plain"]

log = logging.getLogger("chinese_poker.server")


class TableDispatch(TablePart):
    """Carries out the messages of one table's sockets."""

    def __init__(self, live: LiveTable) -> None:
        super().__init__(live)
        # The last `fouls` answer per engine seat, by hand and table version: a page asks
        # when its staging starts and again after each change, often at the same version.
        self.fouls_answers: dict[int, tuple[tuple[int, int], dict[str, Any]]] = {}

    def handle(self, conn: Conn, text: str | None, read_at: float | None = None) -> None:
        """Validate and carry out one client message; errors go to ``conn`` only.
        ``read_at``: when it was read (``time.perf_counter()``, for the server's timings)."""
        live = self.live
        live.last_used = time.monotonic()
        if live.gone is not None:
            conn.send(live.gone.text())
            conn.close()
            return
        live.manager.deferred.busy()
        live.flow.settle_due()  # what follows sees (and is answered after) the hand's end
        fresh = live.manager.tables.get(live.id)
        if fresh is not live:  # the settlement failed and the table was rebuilt
            if fresh is not None and conn in fresh.conns:
                fresh.handle(conn, text, read_at)
            else:
                self.error(conn, None, ErrorCode.SERVER_ERROR, "the table was reloaded; send again")
            return
        data = self._decode(conn, text)
        if data is not None and data.get("type") == CHAT:  # the chat checks its own
            live.chat.hear(conn, data)
            return
        # A move's message checked without pydantic (anything unusual takes the full way).
        action = plain_action(data) if data is not None and conn.chair is not None else None
        if action is not None:
            self._act(conn, action[0], action[1], read_at)
            return
        parsed = self._message(conn, data) if data is not None else None
        if parsed is None:
            return
        ref, msg = parsed
        if conn.chair is None and not isinstance(msg, SyncMsg | PingMsg):
            self.error(conn, ref, ErrorCode.READ_ONLY, "spectators may only send sync and ping")
            return
        if live.ownership.steps and not isinstance(msg, ActionMsg | PingMsg):
            live.manager.flush()  # answer from stored state only
        HANDLERS[type(msg)](self, conn, msg, read_at)

    def _decode(self, conn: Conn, text: str | None) -> dict[str, Any] | None:
        """The message's JSON object, or None once the sender was told what is wrong."""
        if text is None:
            self.error(conn, None, ErrorCode.BAD_JSON, "send JSON text frames, not binary ones")
            return None
        if len(text) > MAX_MESSAGE:
            message = f"a message may have at most {MAX_MESSAGE} chars"
            self.error(conn, None, ErrorCode.TOO_LARGE, message)
            return None
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            self.error(conn, None, ErrorCode.BAD_JSON, f"not valid JSON: {exc}")
            return None
        if not isinstance(data, dict):
            self.error(conn, None, ErrorCode.BAD_MESSAGE, "a message must be a JSON object")
            return None
        return data

    def _message(self, conn: Conn, data: dict[str, Any]) -> tuple[object, BaseModel] | None:
        """The client message ``data`` holds (with its ``id`` as a reply's ``ref``), or
        None once the sender was told why not."""
        ref = data.get("id")
        if not isinstance(ref, int | str) or isinstance(ref, bool):
            ref = None
        kind = data.get("type")
        if kind not in TYPES:
            code = ErrorCode.UNKNOWN_TYPE if kind is not None else ErrorCode.BAD_MESSAGE
            self.error(conn, ref, code, f"unknown message type {kind!r}; types: {TYPES}")
            return None
        action = data.get("action")
        if kind == "action" and isinstance(action, dict) and action.get("type") == "timeout":
            message = "timeouts are made by the server when time runs out"
            self.error(conn, ref, ErrorCode.ILLEGAL, message)
            return None
        try:
            return ref, parse_client_message(data)
        except ValidationError as exc:
            self.error(conn, ref, ErrorCode.BAD_MESSAGE, validation_message(exc))
            return None

    # ------------------------------------------------------------------ replies

    def error(self, conn: Conn, ref: object, code: ErrorCode, message: str) -> None:
        self.live.ownership.send(conn, self.error_text(ref, code, message))

    def error_text(self, ref: object, code: ErrorCode, message: str) -> str:
        table = self.live.table
        return error_text(ref, code, message, table.version if table is not None else None)

    # ------------------------------------------------------------------ the handlers

    def _ping(self, conn: Conn, msg: PingMsg, read_at: float | None) -> None:
        pong = {"type": "pong", "ref": msg.id, "time": time.time()}
        self.live.ownership.send(conn, compact_json(pong))

    def _sync(self, conn: Conn, msg: SyncMsg, read_at: float | None) -> None:
        live = self.live
        if live.table is None:
            self.error(conn, msg.id, ErrorCode.NO_HAND, "no hand has been dealt yet")
        else:
            conn.send(live.state_message(conn.chair, None, None, with_log=True))

    def _next(self, conn: Conn, msg: NextMsg, read_at: float | None) -> None:
        assert conn.chair is not None
        self.live.flow.next(conn.chair)

    def _leave(self, conn: Conn, msg: LeaveMsg, read_at: float | None) -> None:
        assert conn.chair is not None
        self.live.flow.leave(conn, conn.chair, msg)

    def _stage(self, conn: Conn, msg: StageMsg, read_at: float | None) -> None:
        """The player's unconfirmed cards, kept by a timeout (table_clocks)."""
        assert conn.chair is not None
        try:
            staged = Staging.from_dict(msg.model_dump())
        except ValueError as exc:
            self.error(conn, msg.id, ErrorCode.BAD_MESSAGE, f"bad card: {exc}")
            return
        self.live.timekeeper.stage(conn.chair, staged)

    def _hold(self, conn: Conn, msg: HoldMsg, read_at: float | None) -> None:
        assert conn.chair is not None
        self.live.flow.hold(conn, conn.chair, msg)

    def _contribute(self, conn: Conn, msg: ContributeMsg, read_at: float | None) -> None:
        """A seat's value for a hand's shuffle (docs/fairness.md)."""
        live = self.live
        chair = conn.chair
        assert chair is not None
        refusal = live.game.contribute(chair, msg.hand, msg.value)
        if refusal is not None:
            self.error(conn, msg.id, refusal.code, refusal.message)
            return
        reply = compact_json({"type": "contributed", "ref": msg.id, "hand": msg.hand})
        # Acknowledged once stored: a restart before the deal still deals with it.
        received = (live.id, msg.hand, dict(live.game.received(msg.hand)))
        live.ownership.enqueue(
            Step(received=received, messages=[(conn, reply)], sender=(conn, msg.id))
        )
        session = live.game.session
        flow = live.flow
        if (
            msg.hand == 1
            and session is not None
            and session.table is None
            and flow.next_hand is not None
            and live.game.all_contributed(1)
        ):  # everybody has sent his value: hand 1 need not wait any longer
            flow.next_hand.cancel()
            flow.start_next_hand()

    def _action(self, conn: Conn, msg: ActionMsg, read_at: float | None) -> None:
        self._act(conn, msg.id, msg.action.model_dump(exclude_none=True), read_at)

    def _act(self, conn: Conn, ref: object, body: dict[str, Any], read_at: float | None) -> None:
        """Carry out the action ``body`` (an ``action`` message's, checked) of ``conn``'s
        chair; ``ref``: the message's ``id``."""
        live = self.live
        chair = conn.chair
        assert chair is not None
        seat = live.game.engine_seat(chair)
        if seat is None:
            playing = live.game.playing
            code = ErrorCode.NOT_PLAYING if playing else ErrorCode.NO_HAND
            text = live.game.absence(chair) if playing else "no hand is being played now"
            self.error(conn, ref, code, text)
            return
        if body.get("seat", seat) != seat:
            text = f"you hold seat {seat}, not {body['seat']}"
            self.error(conn, ref, ErrorCode.NOT_YOUR_SEAT, text)
            return
        body["seat"] = seat
        try:
            action = action_from_dict(body)
        except ValueError as exc:
            self.error(conn, ref, ErrorCode.BAD_MESSAGE, f"bad action: {exc}")
            return
        result = live.flow.submit(chair, action, ref, conn, read_at)
        if not result.ok:
            assert result.code is not None and result.message is not None
            self.error(conn, ref, ErrorCode(result.code), result.message)

    def _not_playing(self, conn: Conn, msg: LegalMsg | HintMsg | FoulsMsg) -> bool:
        """A person sitting out this hand asks about it: he is told so (True)."""
        game = self.live.game
        assert conn.chair is not None
        if game.playing and game.engine_seat(conn.chair) is None:
            self.error(conn, msg.id, ErrorCode.NOT_PLAYING, game.absence(conn.chair))
            return True
        return False

    def _legal(self, conn: Conn, msg: LegalMsg, read_at: float | None) -> None:
        if self._not_playing(conn, msg):
            return
        assert conn.chair is not None
        table = self.live.table
        seat = self.live.game.engine_seat(conn.chair)
        if table is None or table.over or seat is None:
            self.error(conn, msg.id, ErrorCode.NO_HAND, "no hand is being played now")
            return
        legal = table.legal_actions(seat)
        count = len(legal)
        actions = [a.to_dict() for a in legal] if count <= msg.limit else []
        conn.send(
            compact_json(
                {
                    "type": "legal",
                    "ref": msg.id,
                    "version": table.version,
                    "count": count,
                    "truncated": count > msg.limit,
                    "actions": actions,
                }
            )
        )

    def _fouls(self, conn: Conn, msg: FoulsMsg, read_at: float | None) -> None:
        """The placements of the seat's streets that foul whatever comes, worked out once
        per seat and table version (each costs up to ~1.5 ms on a first street)."""
        if self._not_playing(conn, msg):
            return
        live = self.live
        table = live.table
        seat = live.game.engine_seat(conn.chair) if conn.chair is not None else None
        if table is None or table.over or seat is None:
            self.error(conn, msg.id, ErrorCode.NO_HAND, "no hand is being played now")
            return
        key = (live.hand_no, table.version)
        cached = self.fouls_answers.get(seat)
        if cached is None or cached[0] != key:
            cached = (key, placement_fouls(table.view(seat)))
            self.fouls_answers[seat] = cached
        reply = {"type": "fouls", "ref": msg.id, "version": table.version, "fouls": cached[1]}
        conn.send(compact_json(reply))

    def _start_hint(self, conn: Conn, msg: HintMsg, read_at: float | None) -> None:
        """At most one pending hint per chair (and a bounded number per server)."""
        if self._not_playing(conn, msg):
            return
        chair = conn.chair
        assert chair is not None
        live = self.live
        # The cheap refusals first: a hint that cannot be given takes no place.
        if not live.spec.hints:
            self.error(conn, msg.id, ErrorCode.HINTS_DISABLED, "this table does not allow hints")
            return
        table = live.table
        seat = live.game.engine_seat(chair)
        if table is None or table.over or seat is None or seat not in table.to_act:
            self.error(conn, msg.id, ErrorCode.NO_HAND, "you have nothing to decide now")
            return
        workers = live.manager.workers
        key = (live.id, chair)
        if not workers.hint_slot(key, conn.address):
            text = "a hint is already being worked out; wait for it"
            self.error(conn, msg.id, ErrorCode.BUSY, text)
            return
        task = live.loop.create_task(self._hint(conn, msg, table.view(seat), key))
        task.add_done_callback(lambda _t: workers.hint_done(key))

    async def _hint(self, conn: Conn, msg: HintMsg, view: View, key: tuple[str, int]) -> None:
        """The hint for ``view``, the position the player asked about (once its place is
        within the player's share on every process sharing a Redis)."""
        live = self.live
        ref = msg.id
        if not await live.manager.workers.hint_admitted(key):
            busy = "a hint is already being worked out; wait for it"
            self.error(conn, ref, ErrorCode.BUSY, busy)
            return
        from chinese_poker.ai import hints as ai_hints  # imported on first use: a quick start

        try:
            ranked = await live.manager.workers.hint_for(
                conn.address,
                ai_hints.hint,
                view,
                time_budget=scheduling.HINT_SECONDS,
                when_cold="quick",
            )
        except TimeoutError:
            self.error(conn, ref, ErrorCode.HINTS_UNAVAILABLE, "the hint took too long")
            return
        except Exception as exc:
            log.exception("table %s: hint failed", live.id)
            self.error(conn, ref, ErrorCode.HINTS_UNAVAILABLE, f"the hint failed: {exc}")
            return
        entries = list(ranked)
        conn.send(
            compact_json(
                {
                    "type": "hint",
                    "ref": ref,
                    "version": view.version,
                    "count": len(entries),
                    "actions": [plain(item) for item in entries[: msg.limit]],
                }
            )
        )


HANDLERS: Mapping[type[BaseModel], Callable[[TableDispatch, Conn, Any, float | None], None]] = {
    PingMsg: TableDispatch._ping,
    SyncMsg: TableDispatch._sync,
    ActionMsg: TableDispatch._action,
    ContributeMsg: TableDispatch._contribute,
    NextMsg: TableDispatch._next,
    LeaveMsg: TableDispatch._leave,
    LegalMsg: TableDispatch._legal,
    FoulsMsg: TableDispatch._fouls,
    HintMsg: TableDispatch._start_hint,
    StageMsg: TableDispatch._stage,
    HoldMsg: TableDispatch._hold,
}
"""Each client message type's handler (the type was checked by ``parse_client_message``)."""


def plain(item: object) -> Any:
    """JSON data from whatever the hints module returns (records, actions, tuples)."""
    if isinstance(item, str | int | float | bool) or item is None:
        return item
    to_dict = getattr(item, "to_dict", None)
    if callable(to_dict):
        return plain(to_dict())
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return {f.name: plain(getattr(item, f.name)) for f in dataclasses.fields(item)}
    if isinstance(item, Mapping):
        return {str(k): plain(v) for k, v in item.items()}
    if isinstance(item, list | tuple):
        return [plain(v) for v in item]
    return str(item)
