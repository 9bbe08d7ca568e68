"""Live tables: the pieces put together, and the manager of every table of a server.

The pieces (boardgame.io's seams):

* :mod:`.messages` -- the lobby's requests, the client messages, the error codes;
* :mod:`.game` -- the table as a pure object (:class:`~.game.TableGame`: chairs, engine
  session, the chair <-> engine seat map, ``submit`` -> refusal or applied action);
* :mod:`.commit` -- the unit of work: every table's writes of a tick in one transaction,
  messages sent only once stored;
* :mod:`.scheduling` -- decision timers, bots, and bounded worker pools for the heavy work;
* :mod:`.connections` -- sockets' send queues and the per-seat view cache.

:class:`LiveTable` wires one table's pieces together on the server's asyncio event loop
(one thread): a table's state only changes in :meth:`LiveTable.submit`, which asks the
engine (``check``), applies the action, queues its rows for the group commit and, once
they are stored, broadcasts the new state, each socket receiving its own seat's view.

A process plays only the tables whose lease it holds (:meth:`.db.Store.acquire`): one
that another live process of the same database plays is not loaded here
(:class:`TableMoved`: its clients are sent there), and a table whose write the database
refuses (its lease was taken over) is dropped at once (:meth:`TableManager.step_down`).

The wire protocol is ``docs/server-protocol.md``; the design ``docs/server.md``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import importlib
import inspect
import json
import logging
import random
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from annotated_types import MaxLen
from pydantic import BaseModel, ValidationError

from chinese_poker.engine import (
    Action,
    LogEntry,
    Table,
    Timeout,
    View,
    action_from_dict,
    timeout_action,
)
from chinese_poker.server import PROTOCOL_VERSION, scheduling
from chinese_poker.server.commit import GroupCommit, Step
from chinese_poker.server.connections import Conn, ViewCache
from chinese_poker.server.db import (
    LeaseLost,
    NewHand,
    Store,
    StoredTable,
    TableSummary,
    compact_json,
)
from chinese_poker.server.fairness import Commitment, new_commitment
from chinese_poker.server.game import (
    Applied,
    Chair,
    Refusal,
    TableGame,
    iso,
    plan_table,
    shared_rules,
)
from chinese_poker.server.messages import (
    MAX_MESSAGE,
    TYPES,
    ActionMsg,
    ContributeMsg,
    CreateTable,
    ErrorCode,
    HintMsg,
    LeaveMsg,
    LegalMsg,
    NextMsg,
    PingMsg,
    SeatSpec,
    SyncMsg,
    TournamentSpec,
    error_text,
    moved_message,
    parse_client_message,
    validation_message,
)
from chinese_poker.server.metrics import Timings
from chinese_poker.server.scheduling import Deferred, Timers, Workers

__all__ = [
    "MAX_MESSAGE",
    "Conn",
    "CreateTable",
    "LiveTable",
    "SeatSpec",
    "TableManager",
    "TableMoved",
    "TournamentSpec",
    "WriteFailed",
]

if TYPE_CHECKING:
    from chinese_poker import ai

log = logging.getLogger("chinese_poker.server")

FIRST_DEAL_WAIT = 2.0
"""Seconds hand 1 waits, once every seat is taken, for the players' fair-shuffle values
(never longer than ``next_hand_delay``; not at all once everybody has sent his)."""


def _ai() -> Any:
    """The bots, imported when first needed: they load numba kernels, which the server
    does not need to start serving (a restart answers sooner)."""
    return importlib.import_module("chinese_poker.ai")


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- bots


def bot_catalogue() -> list[dict[str, Any]]:
    """The server-side bots: name and whether it takes a ``level``."""
    out = []
    for name, cls in sorted(_ai().BOTS.items()):
        try:
            params = inspect.signature(cls).parameters
        except (TypeError, ValueError):
            params = {}  # type: ignore[assignment]
        out.append({"name": name, "levels": "level" in params})
    return out


def make_server_bot(name: str, level: int | None, seed: int) -> ai.Bot:
    """Build a bot (``make_bot(name, seed=..., level=...)``); ValueError if impossible."""
    kwargs: dict[str, Any] = {"seed": seed}
    if level is not None:
        kwargs["level"] = level
    try:
        bot: ai.Bot = _ai().make_bot(name, **kwargs)
    except TypeError:
        raise ValueError(f"bot {name!r} does not take a level") from None
    warm = importlib.import_module("chinese_poker.ai.warm")
    if warm.OPEN_FACE in getattr(bot, "kernels", ()):
        # Until the server has its kernels (a fresh machine compiles them for a minute
        # and a half), the rules bot moves for it: a player never waits for numba.
        bot = warm.UntilWarm(bot, _ai().RuleBot(seed=seed))
    return bot


def check_bot(name: str, level: int | None) -> None:
    """ValueError for an unknown bot or a level it does not take (cheap: no build)."""
    bots = _ai().BOTS
    cls = bots.get(name)
    if cls is None:
        raise ValueError(f"unknown bot {name!r}; bots: {', '.join(sorted(bots))}")
    if level is not None:
        try:
            params = inspect.signature(cls).parameters
        except (TypeError, ValueError):
            params = {}  # type: ignore[assignment]
        if "level" not in params:
            raise ValueError(f"bot {name!r} does not take a level")


@dataclass
class Result:
    """What :meth:`LiveTable.submit` did: ``ok``, or an error ``code`` and ``message``."""

    ok: bool
    code: str | None = None
    message: str | None = None


# --------------------------------------------------------------------------- a live table


def _max_length(model: type[BaseModel], field: str) -> int:
    """A string field's ``max_length`` (one source: the model's own constraint)."""
    for meta in model.model_fields[field].metadata:
        if isinstance(meta, MaxLen):
            return int(meta.max_length)
    raise LookupError(f"{model.__name__}.{field} has no max_length")


class WriteFailed(RuntimeError):
    """A change could not be stored, so it was not made (the client may try again)."""


class TableMoved(Exception):
    """Another server process of this database plays the table (it holds its lease):
    this one must not load or write it; its clients go to ``to`` (None: not known)."""

    def __init__(self, table_id: str, to: str | None) -> None:
        self.table_id = table_id
        self.to = to or None
        self.message = moved_message(table_id, self.to)
        super().__init__(self.message["message"])

    def text(self) -> str:
        """The ``moved`` message's JSON text."""
        return compact_json(self.message)


FINISHED_LINGER = 1.0
"""Seconds a finished table stays in memory after its last socket closed."""


class LiveTable:
    """One table in memory: its game, sockets, view cache, timers and bots."""

    def __init__(self, manager: TableManager, stored: StoredTable) -> None:
        self.manager = manager
        self.store: Store = manager.store
        self.game = TableGame(stored)
        self.id = stored.id
        self.conns: list[Conn] = []
        self.views = ViewCache(self.game.rules)
        self.timers = Timers()
        self.last_used = time.monotonic()
        self._bot_tasks: dict[int, asyncio.Task[None]] = {}
        self._bots: dict[int, ai.Bot] = {}
        self._next_hand: asyncio.TimerHandle | None = None
        self._steps: list[Step] = []
        self._settle_due = False  # the hand's settlement waits in manager.deferred
        self._spec_dict: dict[str, Any] | None = None
        self._rng = random.Random(secrets.randbits(64))
        # People who left (docs/server.md "Leavers and clocks"): a grace timer per chair,
        # then a stand-in bot until the person is back (the game stores who, and the
        # time banks per chair, in tables.live: a restart keeps them).
        self._grace: dict[int, asyncio.TimerHandle] = {}
        self._stand_in: set[int] = self.game.stand_ins
        self._done: set[int] = set()  # chairs that pressed Next after this showdown
        # Time banks per chair, and when each engine seat's decision started (for them).
        self._bank: dict[int, float] = self.game.banks
        self._started: dict[int, tuple[tuple[Any, ...], float, int]] = {}
        self.gone: TableMoved | None = None
        """Set once this process stepped down: another process plays the table."""

    # ------------------------------------------------------------------ state

    @property
    def table(self) -> Table | None:
        return self.game.table

    @property
    def spec(self) -> CreateTable:
        return self.game.spec

    @property
    def status(self) -> str:
        return self.game.status

    @property
    def seats(self) -> list[Chair]:
        return self.game.chairs

    @property
    def hand_no(self) -> int:
        return self.game.hand_no

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    @property
    def writing(self) -> bool:
        """Changes are waiting for the group commit (not to be shown yet)."""
        return bool(self._steps)

    @property
    def idle(self) -> bool:
        """Nothing in memory that the store does not have, and nobody watching."""
        return (
            not self.conns
            and not self._steps
            and not self._bot_tasks
            and self._next_hand is None
            and not self.timers.running
            and not self._grace
            and not self._settle_due  # a hand's settlement waits in the deferred work
            and not any(c.connected for c in self.game.chairs)
        )

    def seat_for_token(self, token: str) -> int | None:
        h = _hash(token)
        for c in self.game.chairs:
            if c.token_hash is not None and secrets.compare_digest(c.token_hash, h):
                return c.seat
        return None

    def check_code(self, code: str) -> bool:
        return secrets.compare_digest(self.game.join_code_hash, _hash(code))

    def info(self) -> dict[str, Any]:
        """The ``TableInfo`` of the protocol."""
        info = self.game.info(sum(1 for c in self.conns if c.chair is None))
        info["seats"] = self._seats_info()
        spec = self.spec
        info.update(time_bank=spec.time_bank, timeouts=spec.timeouts, grace=spec.grace)
        return info

    def ledger_info(self) -> dict[str, Any]:
        return self.game.ledger_info()

    def hands_info(self) -> list[dict[str, Any]]:
        return self.game.hands_info()

    def _humans(self) -> list[int]:
        """The engine seats of this hand held by people (not by a stand-in bot)."""
        chairs = self.game.chairs
        return [
            s
            for s, chair in enumerate(self.game.in_hand)
            if chairs[chair].kind == "human" and chair not in self._stand_in
        ]

    def clocks(self) -> list[dict[str, Any]]:
        table = self.table
        if table is None or not self.game.playing:
            return []
        clocks = self.timers.clocks(table, self.hand_no, self._humans(), self._limits())
        return [self._split_bank(c) for c in clocks]

    def state_message(
        self,
        chair: int | None,
        last: LogEntry | None,
        ack: object,
        *,
        with_log: bool = False,
        clocks: list[dict[str, Any]] | None = None,
    ) -> str:
        """The ``state`` message for a socket of ``chair`` (None: a spectator): the view
        of the engine seat the chair holds in this hand, or a spectator's if none.
        ``clocks``: :meth:`clocks`, if the caller has them (the same for every socket)."""
        table = self.table
        assert table is not None
        return self.views.state_message(
            table,
            table_id=self.id,
            hand=self.hand_no,
            seat=self.game.engine_seat(chair),
            last=last,
            ack=ack,
            clocks=self.clocks() if clocks is None else clocks,
            commitment=self.game.commitment(self.hand_no),
            with_log=with_log,
        )

    # ------------------------------------------------------------------ recovery

    def resume(self) -> None:
        """After a rebuild: restart timers and bots, or schedule the next deal."""
        game = self.game
        session = game.session
        if session is None:
            return
        if session.over:
            if game.stored_status != "finished":
                game.status = game.stored_status = "finished"
                # The last hand's end may not have been stored (it is stored just after
                # the action that ended it): store it with the status.
                last = game.hands.get(game.hand_no)
                finished = (
                    (last.finished_at or time.time(), last.record)
                    if last is not None and last.record is not None
                    else None
                )
                self.store.add_actions(
                    self.id, game.hand_no, game.stored_seq, [], finished=finished,
                    status="finished",
                )  # fmt: skip
            return
        for c in game.chairs:  # nobody is connected after a restart: each gets his grace
            if c.connected == 0:
                self._left(c.seat)
        table = self.table
        if table is not None and not table.over:
            self._after_change()
            return
        due = game.next_commitment_due()
        if due is not None:  # the next hand's commitment was not stored yet
            commit, end = due
            self.store.add_actions(
                self.id,
                commit.hand - 1,
                game.stored_seq,
                [],
                finished=end.finished if end is not None else None,
                next_hand=new_hand(commit),
            )
            game.committed(commit)
        self._schedule_next_hand()

    # ------------------------------------------------------------------ seating

    def free_human_seats(self) -> list[int]:
        return self.game.free_human_seats()

    def claim(self, seat: int | None, name: str) -> tuple[int, str, str]:
        """Give a free human seat to ``name``: (seat, player name, token).

        LookupError when there is no such free seat; ValueError when the engine refuses
        the name (nothing is stored then)."""
        seat, name = self.game.seat_name(seat, name)
        token = "s-" + secrets.token_urlsafe(24)
        try:
            if not self.store.claim_seat(self.id, seat, name, _hash(token)):
                raise LookupError(f"seat {seat} was just taken")
            self.game.seated(seat, name, _hash(token))
            self._broadcast_seats()
            if not self.free_human_seats() and self.game.session is None:
                self.start_session()
        except LeaseLost:
            raise self.manager.step_down(self) from None
        return seat, name, token

    # ------------------------------------------------------------------ dealing

    def start_session(self) -> None:
        """All seats are taken: the session begins. Hand 1 (committed when the table
        opened) is dealt now if every person has sent his value for it, or the table
        deals without delay; else once they have, :data:`FIRST_DEAL_WAIT` at most."""
        now = time.time()
        game = self.game
        first = None if 1 in game.hands else new_commitment(self.id, 1, game.rules)
        game.begin_session(now, first)
        wait = min(self.spec.next_hand_delay, FIRST_DEAL_WAIT)
        deal_now = wait == 0 or game.all_contributed(1)
        dealt = game.received(1) if deal_now else None
        self.store.start_session(self.id, now, new_hand(first) if first else None, dealt)
        if deal_now:
            self._deal(1, now)
        else:
            self._schedule_next_hand(wait)

    def _schedule_next_hand(self, delay: float | None = None) -> None:
        if self._next_hand is not None:
            self._next_hand.cancel()
        wait = self.spec.next_hand_delay if delay is None else delay
        self._next_hand = self.loop.call_later(wait, self._start_next_hand)

    def _start_next_hand(self) -> None:
        self._next_hand = None
        session = self.game.session
        if session is None or session.over or self.manager.closing:
            return
        table = self.table
        if table is not None and not table.over:
            return
        number = session.hands_played + 1
        now = time.time()
        self.game.close(number)  # no value is taken for it from now on
        start = (self.id, number, now, self.game.received(number))
        # Stored with the tick's other writes; dealt (and broadcast) once committed.
        self._enqueue(Step(start=start, then=lambda: self._deal(number, now)))

    def _deal(self, number: int, now: float | None = None) -> None:
        session = self.game.session
        if session is None or session.over or self.status == "finished":
            return  # the session ended while the deal was being stored
        self._done.clear()
        table = self.game.deal(number, now)
        self.views.clear()
        self._bots_for_new_seats()
        start = compact_json(
            {
                "type": "hand_start",
                "table_id": self.id,
                "hand": number,
                "button": table.button,
                "players": list(table.players),
                "commitment": self.game.commitment(number),
                "scheme": self.game.hands[number].commit.scheme,
            }
        )
        for conn in list(self.conns):
            conn.send(start)
            conn.send(self.state_message(conn.chair, None, None, with_log=False))
        self._after_change()

    def _bots_for_new_seats(self) -> None:
        """A new deal renumbers the engine seats: a bot still thinking on last hand's
        seat is cancelled (it restarts on its new seat)."""
        for task in self._bot_tasks.values():
            task.cancel()
        self._bot_tasks.clear()

    # ------------------------------------------------------------------ acting

    def submit(
        self,
        chair: int,
        action: Action,
        ref: object = None,
        sender: Conn | None = None,
        read_at: float | None = None,
    ) -> Result:
        """Check and apply one action of the person in ``chair``; store it, then
        broadcast it.

        Returns the error (nothing changed, nothing sent to anybody) or ok. An accepted
        action joins the tick's group commit: its messages are built now and sent only
        once it is stored. Should building them or the write fail, the table is rebuilt
        from the database (exactly as it was before the action) and ``sender`` gets
        ``server_error``.
        """
        # The hand's settlement (history line, ledger, next commitment) is not made
        # here but just after the action is acknowledged: in lock step, hundreds of
        # tables end their hands in the same instant, and no acknowledgement of that
        # round should wait for all of their settlements (a restart settles a hand
        # stored as over but not settled).
        outcome = self.game.submit(chair, action, finish=False)
        if not isinstance(outcome, Applied):
            return Result(False, str(outcome.code), outcome.message)
        try:
            step = self._step(chair, outcome, ref, sender)
            step.read_at = read_at
        except Exception:
            log.exception("table %s: cannot show an applied action; reloading", self.id)
            self.manager.reload(self)
            return Result(False, str(ErrorCode.SERVER_ERROR), "the action failed; try again")
        self._enqueue(step)
        return Result(True)

    def _step(self, chair: int, applied: Applied, ref: object, sender: Conn | None) -> Step:
        step = Step(
            rows=self.game.store_rows(applied),
            end=applied.end,
            sender=(sender, ref) if sender is not None else None,
        )
        table = self.table
        assert table is not None
        engine_seat = self.game.engine_seat
        texts = self.views.state_messages(
            table,
            table_id=self.id,
            hand=self.hand_no,
            seats=[
                (engine_seat(conn.chair), ref if conn.chair == chair else None)
                for conn in self.conns
            ],
            last=applied.entries[0],
            clocks=self.clocks(),
            commitment=self.game.commitment(self.hand_no),
        )
        step.messages = list(zip(self.conns, texts, strict=True))
        step.then = self._settle_soon if applied.over else self._after_change
        return step

    def _settle_soon(self) -> None:
        self._after_change()  # the clocks stop, no bot is woken: the hand is over
        # After the acknowledgements waiting to be made (scheduling.Deferred); anybody
        # who asks for this table meanwhile has it settled first (settle_due).
        self._settle_due = True
        self.manager.deferred.add(self._settle)

    def settle_due(self) -> None:
        """Settle now a hand whose settlement waits (before showing the table to anyone)."""
        if self._settle_due:
            self._settle()

    def _settle(self) -> None:
        """Settle the hand that just ended, store that, then show ``hand_end``."""
        self._settle_due = False
        game = self.game
        if not game.unsettled or self.manager.tables.get(self.id) is not self:
            return
        try:
            end = game.finish_hand()
            messages = self._hand_end(end.hand)
        except Exception:
            log.exception("table %s: cannot settle hand %d; reloading", self.id, game.hand_no)
            self.manager.reload(self)
            return
        session = game.session
        assert session is not None
        then = self._session_ended if session.over else self._ended
        self._enqueue(Step(end=end, messages=messages, then=then))

    def _session_ended(self) -> None:
        if self.game.left is not None:
            self._save_live()  # who left (the hand's history line says it ended)
        self._after_change()

    def _ended(self) -> None:
        self._schedule_next_hand()
        self._after_change()

    def _session_end_text(self) -> str:
        return compact_json(
            {
                "type": "session_end",
                "table_id": self.id,
                "ledger": self.ledger_info(),
                "left": self.game.left,
            }
        )

    def _hand_end(self, number: int) -> list[tuple[Conn, str]]:
        """The ``hand_end`` (and ``session_end``) messages of a hand just finished."""
        session = self.game.session
        assert session is not None
        last = session.results[-1]
        over = session.over
        text = compact_json(
            {
                "type": "hand_end",
                "table_id": self.id,
                "hand": number,
                "totals": dict(last.totals),
                "ledger": last.ledger.to_dict(),
                "reveal": self.game.hands[number].fair.reveal(),
                "session_over": over,
                "next_hand_in": None if over else self.spec.next_hand_delay,
                "next_commitment": self.game.commitment(number + 1),
            }
        )
        out = [(conn, text) for conn in self.conns]
        if over:
            end = self._session_end_text()
            out += [(conn, end) for conn in self.conns]
        return out

    # ------------------------------------------------------------------ group commit

    def _enqueue(self, step: Step) -> None:
        if not self._steps:
            self.manager.commits.dirty(self)
        self._steps.append(step)

    def _send(self, conn: Conn, text: str) -> None:
        """Send a reply now, or after the table's pending writes (keeping the order)."""
        if self._steps:
            self._steps.append(Step(messages=[(conn, text)]))
        else:
            conn.send(text)

    def take_steps(self) -> list[Step]:
        steps, self._steps = self._steps, []
        return steps

    def committed(self, steps: list[Step]) -> None:
        """The steps' writes are stored: send their messages, run what follows."""
        for step in steps:
            for conn, text in step.messages:
                conn.send(text)
            if step.read_at is not None:
                self.manager.timings.action(time.perf_counter() - step.read_at)
            if step.then is not None:
                step.then()

    def write_failed(self, steps: list[Step]) -> None:
        """The steps' writes failed: nothing of them is broadcast; rebuild the table."""
        reload = False
        for step in steps:
            if step.rows or step.end is not None or step.received is not None:
                reload = True
                if step.sender is not None:
                    conn, ref = step.sender
                    what = "value" if step.received is not None else "action"
                    text = f"the {what} could not be stored; try again"
                    conn.send(self._error_text(ref, ErrorCode.SERVER_ERROR, text))
            elif step.start is not None:
                log.error("table %s: cannot store the start of hand %d", self.id, step.start[1])
            else:  # a reply with no write of its own
                for conn, text in step.messages:
                    conn.send(text)
        if reload:
            log.error("table %s: cannot store an action; reloading the table", self.id)
            self.manager.reload(self)
        elif self.manager.tables.get(self.id) is self:
            self._schedule_next_hand()

    def moved(self, steps: list[Step]) -> None:
        """The database refused the steps' writes: another process took the table over.
        Nothing of them is shown; every socket is sent to the new owner."""
        self.manager.step_down(self)

    # ------------------------------------------------------------------ timers and bots

    def _after_change(self) -> None:
        """Restart timers and wake bots for the new state."""
        table = self.table
        if table is None or not self.game.playing or self.manager.closing:
            self.timers.cancel_all()
            return
        to_act = table.to_act
        chairs = self.game.chairs
        for seat, chair in enumerate(self.game.in_hand):
            botted = chairs[chair].kind == "bot" or chair in self._stand_in
            if botted and seat in to_act and chair not in self._bot_tasks:
                self._bot_tasks[chair] = self.loop.create_task(self._bot_turn(chair))
        self._note_starts(table)
        self.timers.sync(table, self.hand_no, self._humans(), self._limits(), self._expire)

    def _expire(self, seat: int, key: tuple[Any, ...]) -> None:
        table = self.table
        if not self.timers.due(seat, key) or table is None:
            return
        if table.over or seat not in table.to_act:
            return
        chair = self.game.in_hand[seat]
        if self.spec.timeouts == "decision":
            self._timeout_decision(table, seat, chair)
            return
        result = self.submit(chair, Timeout(seat, version=table.version))
        if not result.ok:
            log.warning("table %s: timeout of seat %d refused: %s", self.id, seat, result.message)

    def _bot_seat(self, chair: int) -> tuple[Table, int] | None:
        """The table and the engine seat of a bot's chair, if it is to act now."""
        table = self.table
        seat = self.game.engine_seat(chair)
        # A stand-in stops the moment its person is back, even mid-think.
        botted = self.game.chairs[chair].kind == "bot" or chair in self._stand_in
        if (
            table is None
            or not botted
            or seat is None
            or table.over
            or seat not in table.to_act
            or self.game.status != "playing"
            or self.manager.closing
        ):
            return None
        return table, seat

    async def _bot_turn(self, chair: int) -> None:
        try:
            await asyncio.sleep(self.spec.bot_delay)
            for _attempt in range(3):
                found = self._bot_seat(chair)
                if found is None:
                    return
                table, seat = found
                view = table.view(seat)
                try:
                    action = await self.manager.workers.bot(self._bot_act, chair, view)
                except Exception:
                    log.exception("table %s: bot of seat %d failed; random action", self.id, seat)
                    action = table.random_action(seat, self._rng)
                if action.version is None:
                    action = dataclasses.replace(action, version=view.version)
                if self.table is not table or self._bot_seat(chair) is None:
                    return
                self._bot_tasks.pop(chair, None)
                result = self.submit(chair, action)
                if result.ok:
                    return
                log.info("table %s: bot %d action refused: %s", self.id, seat, result.message)
            found = self._bot_seat(chair)
            if found is not None:
                table, seat = found
                self._bot_tasks.pop(chair, None)
                self.submit(chair, table.random_action(seat, self._rng))
        finally:
            task = self._bot_tasks.get(chair)
            if task is asyncio.current_task():
                del self._bot_tasks[chair]

    def _bot_act(self, chair: int, view: View) -> Action:
        """Run in a worker thread: build the chair's bot if needed, and let it act."""
        return self._bot(chair).act(view)

    def _bot(self, chair: int) -> ai.Bot:
        bot = self._bots.get(chair)
        if bot is None:
            c = self.game.chairs[chair]
            # A person's chair has no bot of its own: its stand-in plays sound rules.
            name, seed = c.bot or "rules", secrets.randbits(32)
            try:
                bot = make_server_bot(name, c.level, seed)
            except ValueError:
                if c.level is None:
                    raise
                # A table stored before its bot's level was withdrawn (mc's levels 4
                # and 5, never shown stronger than 3): the bot's default, its strongest.
                log.warning("table %s seat %d: %s level %s is no longer offered; it plays "
                            "its default level", self.id, chair, name, c.level)  # fmt: skip
                bot = make_server_bot(name, None, seed)
            self._bots[chair] = bot
        return bot

    # ------------------------------------------------------------------ leavers and clocks

    def _seats_info(self) -> list[dict[str, Any]]:
        """The chairs, each with ``stand_in``: a bot plays it until its person is back."""
        return [{**s, "stand_in": s["seat"] in self._stand_in} for s in self.game.seats_info()]

    def _left(self, chair: int) -> None:
        """The last socket of a person's chair closed: his grace period starts."""
        grace = self.spec.grace
        c = self.game.chairs[chair]
        if grace is None or c.kind != "human" or not c.taken or chair in self._stand_in:
            return
        if self.gone is not None:  # another process keeps the clocks now
            return
        if self.status == "finished":  # nothing left to stand in for
            return
        old = self._grace.pop(chair, None)
        if old is not None:
            old.cancel()
        self._grace[chair] = self.loop.call_later(grace, self.stand_in, chair)

    def _returned(self, chair: int) -> None:
        """A person is back at his chair: no more grace timer or stand-in."""
        timer = self._grace.pop(chair, None)
        if timer is not None:
            timer.cancel()
        if chair in self._stand_in:
            self._stand_in.discard(chair)
            self._save_live()
            self._broadcast_seats()
            self._notice("back", chair, f"{self.game.chairs[chair].name} is back at the table.")
            self._after_change()

    def stand_in(self, chair: int) -> bool:
        """A bot plays ``chair`` from now until its person reconnects (the grace period
        ran out, or the table's creator asked). False if the chair has nobody away."""
        self._grace.pop(chair, None)
        c = self.game.chairs[chair]
        if c.kind != "human" or not c.taken or c.connected > 0 or chair in self._stand_in:
            return False
        if self.game.session is None or self.status == "finished" or self.manager.closing:
            return False
        self._stand_in.add(chair)
        self._save_live()
        self._broadcast_seats()
        self._notice(
            "stand_in", chair, f"{c.name} has left; a bot plays the seat until they return."
        )
        self._after_change()
        return True

    def _save_live(self, status: str | None = None) -> bool:
        """Store the game's live state (banks, stand-ins, a leave, a rematch); False if
        the write failed (a bank or a stand-in only: the table plays on, a restart would
        refill a bank; a leave or a rematch is undone by the caller and announced to
        nobody)."""
        try:
            self.store.set_live(self.id, self.game.live_state(), status)
        except LeaseLost:
            self.manager.step_down(self)
            return False
        except Exception:
            log.exception("table %s: cannot store its live state", self.id)
            return False
        return True

    def _leave(self, conn: Conn, chair: int, msg: LeaveMsg) -> None:
        """A person leaves: a continuous (or any) session ends after the running hand,
        or at once between hands (docs/rules-decisions.md "Continuous sessions").
        Behind the table's pending writes (a deal being stored) it waits for them, so it
        never ends a session whose next hand is about to be dealt."""
        if self._steps:
            self._steps.append(Step(then=lambda: self._leave(conn, chair, msg)))
            return
        outcome = self.game.leave(chair)
        if isinstance(outcome, Refusal):
            self._error(conn, msg.id, outcome.code, outcome.message)
            return
        name = self.game.chairs[chair].player
        # Stored before anybody is told: a leave the store did not take never happened
        # (the table is rebuilt from the store, without it; only the sender hears).
        if not self._save_live(None if outcome else "finished"):
            if self.gone is not None:  # the sockets were sent to the table's owner
                return
            fresh = self.manager.reload(self)
            text = "the leave could not be stored; try again"
            conn.send(fresh._error_text(msg.id, ErrorCode.SERVER_ERROR, text))
            return
        self._send(conn, compact_json({"type": "leaving", "ref": msg.id, "now": not outcome}))
        if outcome:
            self._notice("leaving", chair, f"{name} is leaving: this is the last hand.")
            return
        if self._next_hand is not None:
            self._next_hand.cancel()
            self._next_hand = None
        self._notice("left", chair, f"{name} has left: the session is over.")
        end = self._session_end_text()
        for c in list(self.conns):
            self._send(c, end)
        self._broadcast_seats()
        self._after_change()

    def claim_as(self, seat: int, name: str, token_hash: str) -> None:
        """Seat ``name`` in ``seat`` under a token he already holds (a rematch: the same
        person's token for the old table opens his seat at the new one)."""
        try:
            taken = self.store.claim_seat(self.id, seat, name, token_hash)
        except LeaseLost:
            raise self.manager.step_down(self) from None
        if not taken:
            raise LookupError(f"seat {seat} was just taken")
        self.game.seated(seat, name, token_hash)

    def offer_rematch(self, new_id: str, chair: int) -> None:
        """Point this finished table at its rematch and tell everybody watching it
        (:class:`WriteFailed`, nothing told and nothing changed, if that is not stored)."""
        self.game.rematch = new_id
        if not self._save_live():
            self.game.rematch = None
            if self.gone is not None:
                raise self.gone
            raise WriteFailed("the rematch could not be stored; try again")
        text = compact_json(
            {
                "type": "rematch",
                "table_id": self.id,
                "rematch": new_id,
                "by": self.game.chairs[chair].player,
            }
        )
        for conn in list(self.conns):
            self._send(conn, text)

    def creator_chair(self) -> int | None:
        """The chair of the person who opened the table (the first human chair when the
        creator joined at once)."""
        if not self.spec.join:
            return None
        return next((c.seat for c in self.game.chairs if c.kind == "human"), None)

    def _notice(self, kind: str, chair: int, text: str, action: Action | None = None) -> None:
        """A ``notice`` to every socket; the cards of ``action`` go to its chair only."""
        base = {
            "type": "notice",
            "table_id": self.id,
            "kind": kind,
            "chair": chair,
            "player": self.game.chairs[chair].player,
            "text": text,
        }
        public = compact_json(base)
        private = compact_json({**base, "action": action.to_dict()}) if action else public
        for conn in list(self.conns):
            self._send(conn, private if conn.chair == chair else public)

    def _timeout_decision(self, table: Table, seat: int, chair: int) -> None:
        """Casual tables: time ran out, so only this decision is made (RULES §10's
        placement), as an ordinary action; the player is told which cards went where."""
        decisions = table.decisions(seat)
        if not decisions:
            return
        action = timeout_action(decisions[0], table.version)
        result = self.submit(chair, action)
        if not result.ok:
            log.warning(
                "table %s: auto-placement of seat %d refused: %s", self.id, seat, result.message
            )
            return
        self._bank[chair] = 0.0
        self._started.pop(seat, None)
        self._save_live()
        name = self.game.chairs[chair].name
        self._notice(
            "timeout", chair, f"{name}'s time ran out; the move was made for them.", action
        )

    def _next(self, chair: int) -> None:
        """A person pressed Next after the showdown: once every person present has
        (their shuffle values came first on their own sockets), deal without waiting
        for the rest of ``next_hand_delay``."""
        table = self.table
        if table is None or not table.over or self._next_hand is None:
            return
        self._done.add(chair)
        present = {
            c.seat
            for c in self.game.chairs
            if c.kind == "human" and c.connected > 0 and c.seat not in self._stand_in
        }
        if present <= self._done:
            self._done.clear()
            self._schedule_next_hand(0)

    def _bank_left(self, chair: int) -> float:
        return self._bank.setdefault(chair, float(self.spec.time_bank))

    def _limits(self) -> dict[int, float] | None:
        """Each human engine seat's clock: the move's limit plus its chair's time bank."""
        limit = self.game.rules.time_limit
        if limit is None:
            return None
        in_hand = self.game.in_hand
        return {seat: limit + self._bank_left(in_hand[seat]) for seat in self._humans()}

    def _split_bank(self, clock: dict[str, Any]) -> dict[str, Any]:
        """A clock as the page shows it: the move's seconds left, then the bank's."""
        limit = self.game.rules.time_limit
        assert limit is not None
        bank = self._bank_left(self.game.in_hand[clock["seat"]])
        left = clock["remaining"]
        return {
            **clock,
            "remaining": round(max(0.0, left - bank), 3),
            "limit": limit,
            "bank": round(min(left, bank), 3),
        }

    def _note_starts(self, table: Table) -> None:
        """Remember when each human seat's decision began, and charge a finished one's
        overrun to its chair's bank."""
        limit = self.game.rules.time_limit
        if limit is None or not self.spec.time_bank:
            return
        now = self.loop.time()
        to_act = table.to_act
        spent = False
        for seat in list(self._started):
            key, began, chair = self._started[seat]
            if seat not in to_act or key != (self.hand_no, table.decisions(seat)):
                del self._started[seat]
                over = max(0.0, now - began - limit)
                if over > 0:
                    self._bank[chair] = max(0.0, self._bank_left(chair) - over)
                    spent = True
        if spent:
            self._save_live()
        in_hand = self.game.in_hand
        for seat in self._humans():
            if seat in to_act and seat not in self._started:
                self._started[seat] = ((self.hand_no, table.decisions(seat)), now, in_hand[seat])

    # ------------------------------------------------------------------ sockets

    def _broadcast_seats(self) -> None:
        text = compact_json(
            {
                "type": "seats",
                "table_id": self.id,
                "seats": self._seats_info(),
                "status": self.status,
            }
        )
        for conn in list(self.conns):
            self._send(conn, text)

    def attach(self, conn: Conn) -> None:
        """A socket joined: welcome it and send the full state with the hand's log."""
        if self._steps:
            self.manager.flush()  # show it stored state only
        self.last_used = time.monotonic()
        self.conns.append(conn)
        chair = self.game.chairs[conn.chair] if conn.chair is not None else None
        if chair is not None:
            chair.connected += 1
        conn.send(
            compact_json(
                {
                    "type": "welcome",
                    "protocol": PROTOCOL_VERSION,
                    "table_id": self.id,
                    "role": "seat" if conn.chair is not None else "spectator",
                    "seat": conn.chair,
                    "player": chair.name if chair is not None else None,
                    "table": self.info(),
                    # What the page must know of the rules (royalties, Fantasyland, the
                    # variant's facts): the compiled spec, so it keeps no copy of its own.
                    "spec": self._spec(),
                }
            )
        )
        if chair is not None:
            # After the welcome, so that a returning person's socket hears it first.
            self._returned(chair.seat)
            if chair.connected == 1:
                self._broadcast_seats()
        if self.table is not None:
            conn.send(self.state_message(conn.chair, None, None, with_log=True))

    def _spec(self) -> dict[str, Any]:
        """The compiled spec's plain form, made once per table (the rules never change;
        a burst of connections would otherwise rebuild it for each)."""
        if self._spec_dict is None:
            self._spec_dict = self.game.rules.spec.to_dict()
        return self._spec_dict

    def detach(self, conn: Conn) -> None:
        self.last_used = time.monotonic()
        if self.gone is not None:
            if conn in self.conns:
                self.conns.remove(conn)
            conn.close()
            return
        if conn in self.conns:
            self.conns.remove(conn)
            if conn.chair is not None:
                chair = self.game.chairs[conn.chair]
                chair.connected -= 1
                if chair.connected == 0:
                    self._broadcast_seats()
                    self._left(chair.seat)
        conn.close()
        if self.status == "finished" and self.idle:
            # Leaves memory just after its last socket, not at the next sweep: a busy
            # server would otherwise keep one round of finished tables beside the live
            # ones. The short wait keeps a socket opened and closed in a loop from
            # rebuilding the whole session each time.
            self.loop.call_later(FINISHED_LINGER, self.manager.drop_if_idle, self)

    def handle(self, conn: Conn, text: str | None, read_at: float | None = None) -> None:
        """Validate and carry out one client message; errors go to ``conn`` only.
        ``read_at``: when it was read (``time.perf_counter()``, for the server's timings)."""
        self.last_used = time.monotonic()
        if self.gone is not None:
            conn.send(self.gone.text())
            conn.close()
            return
        self.manager.deferred.busy()
        self.settle_due()  # what follows sees (and is answered after) the hand's end
        fresh = self.manager.tables.get(self.id)
        if fresh is not self:  # the settlement failed and the table was rebuilt
            if fresh is not None and conn in fresh.conns:
                fresh.handle(conn, text, read_at)
            else:
                self._error(
                    conn, None, ErrorCode.SERVER_ERROR, "the table was reloaded; send again"
                )
            return
        if text is None:
            self._error(conn, None, ErrorCode.BAD_JSON, "send JSON text frames, not binary ones")
            return
        if len(text) > MAX_MESSAGE:
            self._error(
                conn, None, ErrorCode.TOO_LARGE, f"a message may have at most {MAX_MESSAGE} chars"
            )
            return
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            self._error(conn, None, ErrorCode.BAD_JSON, f"not valid JSON: {exc}")
            return
        if not isinstance(data, dict):
            self._error(conn, None, ErrorCode.BAD_MESSAGE, "a message must be a JSON object")
            return
        ref = data.get("id")
        if not isinstance(ref, int | str) or isinstance(ref, bool):
            ref = None
        kind = data.get("type")
        if kind not in TYPES:
            code = ErrorCode.UNKNOWN_TYPE if kind is not None else ErrorCode.BAD_MESSAGE
            self._error(conn, ref, code, f"unknown message type {kind!r}; types: {TYPES}")
            return
        action = data.get("action")
        if kind == "action" and isinstance(action, dict) and action.get("type") == "timeout":
            self._error(
                conn, ref, ErrorCode.ILLEGAL, "timeouts are made by the server when time runs out"
            )
            return
        try:
            msg = parse_client_message(data)
        except ValidationError as exc:
            self._error(conn, ref, ErrorCode.BAD_MESSAGE, validation_message(exc))
            return
        if conn.chair is None and not isinstance(msg, SyncMsg | PingMsg):
            self._error(conn, ref, ErrorCode.READ_ONLY, "spectators may only send sync and ping")
            return
        if isinstance(msg, PingMsg):
            self._send(conn, compact_json({"type": "pong", "ref": msg.id, "time": time.time()}))
            return
        if self._steps and not isinstance(msg, ActionMsg):
            self.manager.flush()  # answer from stored state only
        if isinstance(msg, SyncMsg):
            if self.table is None:
                self._error(conn, msg.id, ErrorCode.NO_HAND, "no hand has been dealt yet")
            else:
                conn.send(self.state_message(conn.chair, None, None, with_log=True))
            return
        assert conn.chair is not None
        if isinstance(msg, ActionMsg):
            self._action(conn, conn.chair, msg, read_at)
            return
        if isinstance(msg, ContributeMsg):
            self._contribute(conn, conn.chair, msg)
            return
        if isinstance(msg, NextMsg):
            self._next(conn.chair)
            return
        if isinstance(msg, LeaveMsg):
            self._leave(conn, conn.chair, msg)
            return
        if self.game.playing and self.game.engine_seat(conn.chair) is None:
            self._error(conn, msg.id, ErrorCode.NOT_PLAYING, self.game.absence(conn.chair))
        elif isinstance(msg, LegalMsg):
            self._legal(conn, conn.chair, msg)
        else:
            assert isinstance(msg, HintMsg)
            self._start_hint(conn, conn.chair, msg)

    def _contribute(self, conn: Conn, chair: int, msg: ContributeMsg) -> None:
        """A seat's value for a hand's shuffle (docs/fairness.md)."""
        refusal = self.game.contribute(chair, msg.hand, msg.value)
        if refusal is not None:
            self._error(conn, msg.id, refusal.code, refusal.message)
            return
        reply = compact_json({"type": "contributed", "ref": msg.id, "hand": msg.hand})
        # Acknowledged once stored: a restart before the deal still deals with it.
        received = (self.id, msg.hand, dict(self.game.received(msg.hand)))
        self._enqueue(Step(received=received, messages=[(conn, reply)], sender=(conn, msg.id)))
        session = self.game.session
        if (
            msg.hand == 1
            and session is not None
            and session.table is None
            and self._next_hand is not None
            and self.game.all_contributed(1)
        ):  # everybody has sent his value: hand 1 need not wait any longer
            self._next_hand.cancel()
            self._start_next_hand()

    def _error(self, conn: Conn, ref: object, code: ErrorCode, message: str) -> None:
        self._send(conn, self._error_text(ref, code, message))

    def _error_text(self, ref: object, code: ErrorCode, message: str) -> str:
        table = self.table
        return error_text(ref, code, message, table.version if table is not None else None)

    def _action(self, conn: Conn, chair: int, msg: ActionMsg, read_at: float | None = None) -> None:
        body = msg.action.model_dump(exclude_none=True)
        seat = self.game.engine_seat(chair)
        if seat is None:
            code = ErrorCode.NOT_PLAYING if self.game.playing else ErrorCode.NO_HAND
            text = self.game.absence(chair) if self.game.playing else "no hand is being played now"
            self._error(conn, msg.id, code, text)
            return
        if body.get("seat", seat) != seat:
            self._error(
                conn, msg.id, ErrorCode.NOT_YOUR_SEAT, f"you hold seat {seat}, not {body['seat']}"
            )
            return
        body["seat"] = seat
        try:
            action = action_from_dict(body)
        except ValueError as exc:
            self._error(conn, msg.id, ErrorCode.BAD_MESSAGE, f"bad action: {exc}")
            return
        result = self.submit(chair, action, msg.id, conn, read_at)
        if not result.ok:
            assert result.code is not None and result.message is not None
            self._error(conn, msg.id, ErrorCode(result.code), result.message)

    def _legal(self, conn: Conn, chair: int, msg: LegalMsg) -> None:
        table = self.table
        seat = self.game.engine_seat(chair)
        if table is None or table.over or seat is None:
            self._error(conn, msg.id, ErrorCode.NO_HAND, "no hand is being played now")
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

    def _start_hint(self, conn: Conn, chair: int, msg: HintMsg) -> None:
        """At most one pending hint per chair (and a bounded number per server)."""
        workers = self.manager.workers
        key = (self.id, chair)
        if not workers.hint_slot(key):
            self._error(
                conn, msg.id, ErrorCode.BUSY, "a hint is already being worked out; wait for it"
            )
            return
        task = self.loop.create_task(self._hint(conn, chair, msg))
        task.add_done_callback(lambda _t: workers.hint_done(key))

    async def _hint(self, conn: Conn, chair: int, msg: HintMsg) -> None:
        ref = msg.id
        if not self.spec.hints:
            self._error(conn, ref, ErrorCode.HINTS_DISABLED, "this table does not allow hints")
            return
        table = self.table
        seat = self.game.engine_seat(chair)
        if table is None or table.over or seat is None or seat not in table.to_act:
            self._error(conn, ref, ErrorCode.NO_HAND, "you have nothing to decide now")
            return
        view = table.view(seat)
        from chinese_poker.ai import hints as ai_hints  # imported on first use: a quick start

        try:
            ranked = await self.manager.workers.hint(
                ai_hints.hint, view, time_budget=scheduling.HINT_SECONDS, when_cold="quick"
            )
        except TimeoutError:
            self._error(conn, ref, ErrorCode.HINTS_UNAVAILABLE, "the hint took too long")
            return
        except Exception as exc:
            log.exception("table %s: hint failed", self.id)
            self._error(conn, ref, ErrorCode.HINTS_UNAVAILABLE, f"the hint failed: {exc}")
            return
        entries = list(ranked)
        conn.send(
            compact_json(
                {
                    "type": "hint",
                    "ref": ref,
                    "version": view.version,
                    "count": len(entries),
                    "actions": [_plain(item) for item in entries[: msg.limit]],
                }
            )
        )

    # ------------------------------------------------------------------ shutdown

    def stop(self) -> None:
        """Cancel timers, bots and the next deal (server shutdown, unloading)."""
        self.timers.cancel_all()
        if self._next_hand is not None:
            self._next_hand.cancel()
            self._next_hand = None
        for task in self._bot_tasks.values():
            task.cancel()
        self._bot_tasks.clear()
        for timer in self._grace.values():
            timer.cancel()
        self._grace.clear()


def new_hand(commit: Commitment) -> NewHand:
    """The store's row for a commitment."""
    return NewHand(commit.hand, commit.seed, commit.salt, commit.commitment)


def _plain(item: object) -> Any:
    """JSON data from whatever the hints module returns (records, actions, tuples)."""
    if isinstance(item, str | int | float | bool) or item is None:
        return item
    to_dict = getattr(item, "to_dict", None)
    if callable(to_dict):
        return _plain(to_dict())
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return {f.name: _plain(getattr(item, f.name)) for f in dataclasses.fields(item)}
    if isinstance(item, Mapping):
        return {str(k): _plain(v) for k, v in item.items()}
    if isinstance(item, list | tuple):
        return [_plain(v) for v in item]
    return str(item)


def _summary_info(summary: TableSummary, unavailable: bool) -> dict[str, Any]:
    """The ``TableInfo`` of a table that is not in memory, from its stored rows."""
    config = summary.config
    request = config.get("request", {})
    rules = config.get("rules", {})
    try:
        parsed = shared_rules(rules)
        variant: str = parsed.variant
        time_limit = parsed.time_limit
    except Exception:  # a quarantined table's rules may be what is wrong with it
        variant, time_limit = str(rules.get("variant", "")), None
    return {
        "id": summary.id,
        "name": summary.name,
        "preset": config.get("preset", ""),
        "variant": variant,
        "options": dict(request.get("options", {})),
        "rules": rules,
        "status": "unavailable" if unavailable else summary.status,
        "mode": request.get("mode", "session"),
        "time_limit": time_limit,
        "hints": request.get("hints", True),
        "spectators": request.get("spectators", True),
        "bot_delay": request.get("bot_delay", 0.5),
        "next_hand_delay": request.get("next_hand_delay", 3.0),
        "seats": [
            {
                "seat": s.seat,
                "kind": s.kind,
                "name": s.name,
                "bot": s.bot,
                "level": s.level,
                "taken": s.kind == "bot" or s.token_hash is not None,
                "connected": s.kind == "bot",
            }
            for s in summary.seats
        ],
        "hand": summary.hand,
        "version": 0,
        "hands_played": summary.hands_played,
        "session_over": summary.status == "finished",
        "commitment": None,
        "next_commitment": None,
        "created_at": iso(summary.created_at),
        "spectators_connected": 0,
    }


# --------------------------------------------------------------------------- the manager


@dataclass
class Created:
    """A new table with its join code, and the creator's seat and token if he joined."""

    table: LiveTable
    join_code: str
    seat: int | None
    token: str | None


class TableManager:
    """All live tables of one server process, with the store behind them.

    A stored table that cannot be rebuilt is *quarantined*: kept in the store as it is,
    logged once with its id and the reason, shown as ``unavailable`` in the lobby, while
    every other table serves.
    """

    def __init__(self, store: Store, workers: Workers | None = None) -> None:
        self.store = store
        self.tables: dict[str, LiveTable] = {}
        self.quarantined: dict[str, str] = {}
        self.closing = False
        self.commits = GroupCommit(store)
        self.deferred = Deferred()
        self.workers = workers or Workers()
        self.timings = Timings()

    # ------------------------------------------------------------------ group commit

    def dirty(self, live: LiveTable) -> None:
        self.commits.dirty(live)

    def flush(self) -> None:
        self.commits.flush()

    # ------------------------------------------------------------------ loading

    def recover(self) -> int:
        """Rebuild every unfinished table from the store that no other live process
        plays (its lease is free, ran out, or its holder is gone); returns how many."""
        count = 0
        for table_id in self.store.table_ids(exclude_status="finished"):
            try:
                count += self._resume(table_id, even_finished=True) is not None
            except TableMoved:
                continue
        return count

    def _resume(self, table_id: str, *, even_finished: bool) -> LiveTable | None:
        """Rebuild a table and carry on: its timers, bots and next deal; with
        ``even_finished`` also a session that replays as over (a hand stored as over but
        not settled is settled, the session stored as finished)."""
        live = self._load(table_id)
        if live is None or (live.status == "finished" and not even_finished):
            return live
        try:
            live.resume()
        except LeaseLost:
            raise self.step_down(live) from None
        except Exception as exc:
            self._quarantine(table_id, exc)
            return None
        return live

    def _quarantine(self, table_id: str, exc: BaseException) -> None:
        self.tables.pop(table_id, None)
        self._release([table_id])
        if table_id not in self.quarantined:
            reason = f"{type(exc).__name__}: {exc}"
            self.quarantined[table_id] = reason
            log.error("table %s cannot be rebuilt and is unavailable: %s", table_id, reason)

    def _load(self, table_id: str) -> LiveTable | None:
        """Take the table's lease, then read it (so every write of its last owner is
        seen); :class:`TableMoved` if another live process holds the lease."""
        if table_id in self.quarantined:
            return None
        owner = self.store.owner
        if owner is not None:
            lease = self.store.acquire(table_id)
            if lease is None:
                return None
            if lease.owner != owner.id:
                raise TableMoved(table_id, lease.address)
        try:
            stored = self.store.load_table(table_id)
            if stored is None:
                return None
            live = LiveTable(self, stored)
        except Exception as exc:
            self._quarantine(table_id, exc)
            return None
        self.tables[table_id] = live
        return live

    async def settled_table(self, table_id: str) -> LiveTable | None:
        """A table for a REST read, showing stored state only: if it has writes
        waiting, this waits for the tick's group commit instead of forcing one."""
        live = self.get(table_id, flush=False)
        if live is not None:
            live.settle_due()
        for _ in range(5):
            if live is None or not live.writing:
                return live
            await self.commits.settled()
            live = self.get(table_id, flush=False)
        return self.get(table_id)  # still busy after five commits: commit now

    def get(self, table_id: str, *, flush: bool = True) -> LiveTable | None:
        """A table by id (tables not in memory are rebuilt from the store on first use).

        Pending writes are committed first (unless ``flush`` is false), so that what is
        read is stored state."""
        if flush:
            waiting = self.tables.get(table_id)
            if waiting is not None:
                waiting.settle_due()
            if self.commits.pending:
                self.flush()
        live = self.tables.get(table_id)
        if live is None:
            live = self._resume(table_id, even_finished=False)
        return live

    def step_down(self, live: LiveTable) -> TableMoved:
        """The database refused a write of ``live``: another process took its lease.
        Drop this copy (nothing it did since its last stored write is shown) and send
        every socket of it to the new owner. Returns the ``moved`` it told them."""
        if live.gone is not None:
            return live.gone
        try:
            lease = self.store.lease(live.id)
        except Exception:
            log.exception("table %s: cannot read who holds it", live.id)
            lease = None
        moved = TableMoved(live.id, lease.address if lease is not None else None)
        live.gone = moved
        live.stop()
        self.store.fences.pop(live.id, None)
        if self.tables.get(live.id) is live:
            del self.tables[live.id]
        log.warning(
            "table %s: the database refused its write (another process took it over,"
            " at %s); this process stepped down",
            live.id,
            moved.to or "an unknown address",
        )
        text = moved.text()
        for conn in list(live.conns):
            conn.send(text)
            conn.close()
        return moved

    def renew(self) -> None:
        """Renew this process's leases (stepping down from the tables it lost), and take
        over the unfinished tables whose holder stopped renewing (died or stalled)."""
        for table_id in self.store.renew():
            live = self.tables.get(table_id)
            if live is not None:
                self.step_down(live)
        for table_id in self.store.orphans():
            if table_id in self.tables or table_id in self.quarantined:
                continue
            try:
                if self._resume(table_id, even_finished=True) is not None:
                    log.warning("table %s: taken over (its process stopped renewing)", table_id)
            except TableMoved:
                pass  # another process took it first

    def _release(self, table_ids: list[str]) -> None:
        try:
            self.store.release(table_ids)
        except Exception:  # it runs out by itself
            log.exception("cannot release the lease of %s", ", ".join(table_ids))

    def reload(self, live: LiveTable) -> LiveTable:
        """Rebuild a table from the store (after a failed write) and keep its sockets."""
        live.stop()
        self.tables.pop(live.id, None)
        try:
            fresh = self._load(live.id)
        except TableMoved:
            self.tables[live.id] = live  # step_down tells its sockets where it went
            self.step_down(live)
            return live
        if fresh is None:
            for conn in live.conns:
                conn.close()
            return live
        fresh.conns = live.conns
        for conn in fresh.conns:
            if conn.chair is not None:
                fresh.seats[conn.chair].connected += 1
            if fresh.table is not None:
                conn.send(fresh.state_message(conn.chair, None, None, with_log=True))
        fresh.resume()
        return fresh

    # ------------------------------------------------------------------ memory

    def lobby(
        self, *, status: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[dict[str, Any]]:
        """One page of ``TableInfo`` records, newest first, read from the database.

        A table in memory describes itself; any other is described from its stored
        rows, never rebuilt. A quarantined table shows as ``unavailable``."""
        if self.commits.pending:
            self.flush()
        out = []
        for summary in self.store.table_summaries(status=status, limit=limit, offset=offset):
            live = self.tables.get(summary.id)
            if live is not None:
                out.append(live.info())
                continue
            out.append(_summary_info(summary, summary.id in self.quarantined))
        return out

    def evict(self, idle_seconds: float) -> int:
        """Drop from memory the tables nobody uses: finished ones with no socket, and
        any other with no socket, bot, timer or write pending for ``idle_seconds``.
        They are rebuilt from the store when next asked for. Returns how many."""
        now = time.monotonic()
        gone = [
            live
            for live in self.tables.values()
            if live.idle and (live.status == "finished" or now - live.last_used > idle_seconds)
        ]
        for live in gone:
            self.drop(live)
        return len(gone)

    def drop_if_idle(self, live: LiveTable) -> None:
        """Take a finished table out of memory if still nobody uses it."""
        if live.status == "finished" and live.idle:
            self.drop(live)

    def drop(self, live: LiveTable) -> None:
        """Take ``live`` out of memory (it is rebuilt from the store when asked for)."""
        if self.tables.get(live.id) is live:
            live.stop()
            del self.tables[live.id]
            self._release([live.id])

    # ------------------------------------------------------------------ creating

    def create(
        self, spec: CreateTable, holders: Mapping[int, tuple[str, str]] | None = None
    ) -> Created:
        """Open a table; ValueError (nothing stored) for a request the engine refuses.

        ``holders`` seats people at once: human seat -> (name, the hash of a token he
        holds) (a rematch); the session then begins as every seat is taken."""
        plan = plan_table(spec, check_bot)
        table_id = "t-" + secrets.token_hex(6)
        code = secrets.token_urlsafe(8)
        config = {
            "request": spec.model_dump(mode="json"),
            "preset": spec.preset,
            "rules": plan.rules.to_dict(),
        }
        self.store.create_table(
            table_id=table_id,
            name=spec.name or f"{spec.preset} table",
            config=config,
            join_code_hash=_hash(code),
            session_seed=str(secrets.randbits(128)),
            start_button=spec.button,
            seats=plan.seats,
            status="waiting",
            first=new_hand(new_commitment(table_id, 1, plan.rules)),  # published as it opens
        )
        loaded = self.store.load_table(table_id)
        assert loaded is not None
        live = LiveTable(self, loaded)
        self.tables[table_id] = live
        seat = token = None
        if holders:
            for chair, (name, token_hash) in sorted(holders.items()):
                live.claim_as(chair, name, token_hash)
            if not live.free_human_seats():
                live.start_session()
                for chair in holders:  # each has his grace until he follows
                    live._left(chair)
        elif spec.join and live.free_human_seats():
            first = live.free_human_seats()[0]
            seat, _name, token = live.claim(first, spec.seats[first].name or "")
        elif not live.free_human_seats():
            live.start_session()
        return Created(live, code, seat, token)

    def rematch(self, live: LiveTable, chair: int) -> LiveTable:
        """The same table again with the same people: every person of ``live`` is seated
        at the new table under the token he holds for this one, so each follows with his
        own seat (no new link). Asked again, the rematch already made. ValueError while
        the session is still being played."""
        made = live.game.rematch
        if made is not None:
            existing = self.get(made)
            if existing is not None:
                return existing
        if live.status != "finished":
            raise ValueError("the session is still being played; a rematch follows its end")
        chairs = live.game.chairs
        # Human seats unnamed: the holders below bring their names.
        seats = [
            {"kind": "bot", "name": c.name, "bot": c.bot, "level": c.level}
            if c.kind == "bot"
            else {"kind": "human"}
            for c in chairs
        ]
        name, longest = live.game.name, _max_length(CreateTable, "name")
        suffix = "" if "rematch" in name else " (rematch)"
        name = name[: longest - len(suffix)] + suffix
        # Checked as a request from the lobby would be, before anything is stored.
        try:
            spec = CreateTable.model_validate(
                {**live.spec.model_dump(), "seats": seats, "name": name}
            )
        except ValidationError as exc:
            raise ValueError(f"this table cannot be played again: {exc}") from None
        holders = {
            c.seat: (c.player, c.token_hash)
            for c in chairs
            if c.kind == "human" and c.token_hash is not None
        }
        new = self.create(spec, holders).table
        live.offer_rematch(new.id, chair)
        return new

    def close(self) -> None:
        """Settle what waits, store pending writes, stop every table's timers and bots,
        close every socket."""
        try:
            # Storing the last writes can end a hand, which queues its settlement: so
            # flush, settle, and flush what the settlements wrote.
            self.flush()
            self.deferred.drain()
            self.flush()
        except Exception:
            log.exception("cannot store the last writes")
        self.closing = True
        for live in self.tables.values():
            live.stop()
            for conn in list(live.conns):
                conn.close()
        self._release(list(self.store.fences))
        self.workers.close()
