"""Live tables: the pieces put together, and the manager of every table of a server.

The pieces (boardgame.io's seams):

* :mod:`.messages` -- the lobby's requests, the client messages, the error codes;
* :mod:`.game` -- the table as a pure object (:class:`~.game.TableGame`: chairs, engine
  session, the chair <-> engine seat map, ``submit`` -> refusal or applied action);
* :mod:`.commit` -- the unit of work: every table's writes of a tick in one transaction,
  messages sent only once stored;
* :mod:`.scheduling` -- decision timers, bots, and bounded worker pools for the heavy work;
* :mod:`.connections` -- sockets' send queues and the per-seat view cache.

:class:`LiveTable` is one table on the server's asyncio event loop (one thread), made of
parts that each own their state: its flow (:mod:`.table_flow`: sessions, hands, actions;
a table's state only changes in :meth:`LiveTable.submit`), its ownership and transport
(:mod:`.table_ownership`: writes waiting for the group commit, messages sent once
stored, stepping down), its bots (:mod:`.table_bots`), its clocks (:mod:`.table_clocks`),
who is present (:mod:`.table_presence`: seats, sockets, grace periods, stand-ins),
the dispatch of client messages (:mod:`.table_dispatch`) and its chat
(:mod:`.table_chat`).

A process plays only the tables whose lease it holds (:meth:`.db.Store.acquire`): one
that another live process of the same database plays is not loaded here
(:class:`TableMoved`: its clients are sent there), and a table whose write the database
refuses (its lease was taken over) is dropped at once (:meth:`TableManager.step_down`).
At shutdown (SIGTERM) a process hands its tables over (:meth:`TableManager.hand_over`)
instead of keeping them until their leases run out.

The wire protocol is ``docs/server-protocol.md``; the design ``docs/server.md``.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from annotated_types import MaxLen
from pydantic import BaseModel, ValidationError

from chinese_poker.engine import Action, LogEntry, Table
from chinese_poker.server.commit import GroupCommit, Step
from chinese_poker.server.connections import Conn, ViewCache
from chinese_poker.server.db import LeaseLost, Store, StoredTable
from chinese_poker.server.fairness import new_commitment
from chinese_poker.server.game import Chair, TableGame, plan_table
from chinese_poker.server.leases import Lease
from chinese_poker.server.messages import MAX_MESSAGE, CreateTable, SeatSpec, TournamentSpec
from chinese_poker.server.metrics import ProcessCounts, Timings
from chinese_poker.server.scheduling import Deferred, Workers
from chinese_poker.server.table_bots import TableBots, bot_catalogue, check_bot, make_server_bot
from chinese_poker.server.table_chat import TableChat
from chinese_poker.server.table_clocks import TableClocks
from chinese_poker.server.table_dispatch import TableDispatch
from chinese_poker.server.table_flow import FIRST_DEAL_WAIT, Result, TableFlow, new_hand
from chinese_poker.server.table_ownership import (
    TableMoved,
    TableOwnership,
    WriteFailed,
    hand_over_leases,
    handed_over,
    other_process_address,
)
from chinese_poker.server.table_presence import FINISHED_LINGER, TablePresence, secret_hash
from chinese_poker.server.table_records import (
    hands_record,
    ledger_record,
    summary_record,
    table_record,
)

__all__ = [
    "FINISHED_LINGER",
    "FIRST_DEAL_WAIT",
    "MAX_MESSAGE",
    "Conn",
    "CreateTable",
    "LiveTable",
    "Result",
    "SeatSpec",
    "TableManager",
    "TableMoved",
    "TournamentSpec",
    "WriteFailed",
    "bot_catalogue",
    "check_bot",
    "make_server_bot",
    "new_hand",
]

log = logging.getLogger("chinese_poker.server")


def _max_length(model: type[BaseModel], field: str) -> int:
    """A string field's ``max_length`` (one source: the model's own constraint)."""
    for meta in model.model_fields[field].metadata:
        if isinstance(meta, MaxLen):
            return int(meta.max_length)
    raise LookupError(f"{model.__name__}.{field} has no max_length")


# --------------------------------------------------------------------------- a live table


class LiveTable:
    """One table in memory: its game, sockets and view cache, and its parts (flow,
    ownership, bots, clocks, presence, dispatch, chat). What the rest of the server calls."""

    def __init__(self, manager: TableManager, stored: StoredTable) -> None:
        self.manager = manager
        self.store: Store = manager.store
        self.game = TableGame(stored)
        self.id = stored.id
        self.conns: list[Conn] = []
        self.views = ViewCache()
        self.last_used = time.monotonic()
        self.ownership = TableOwnership(self)
        self.flow = TableFlow(self)
        self.bots = TableBots(self)
        self.timekeeper = TableClocks(self)
        self.presence = TablePresence(self)
        self.dispatch = TableDispatch(self)
        self.chat = TableChat(self)

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
    def gone(self) -> TableMoved | None:
        """Set once this process stepped down: another process plays the table."""
        return self.ownership.gone

    @gone.setter
    def gone(self, moved: TableMoved | None) -> None:
        self.ownership.gone = moved

    @property
    def writing(self) -> bool:
        """Changes are waiting for the group commit (not to be shown yet)."""
        return bool(self.ownership.steps)

    @property
    def idle(self) -> bool:
        """Nothing in memory that the store does not have, and nobody watching."""
        return (
            not self.conns
            and not self.ownership.steps
            and not self.bots.tasks
            and self.flow.next_hand is None
            and not self.timekeeper.timers.running
            and not self.presence.grace
            and not self.flow.settle_pending  # a hand's settlement waits in the deferred work
            and not any(c.connected for c in self.game.chairs)
        )

    def seat_for_token(self, token: str) -> int | None:
        return self.presence.seat_for_token(token)

    def check_code(self, code: str) -> bool:
        return secrets.compare_digest(self.game.join_code_hash, secret_hash(code))

    def info(self) -> dict[str, Any]:
        """The ``TableInfo`` of the protocol."""
        info = table_record(self.game, sum(1 for c in self.conns if c.chair is None))
        info["seats"] = self.presence.seats_info()
        spec = self.spec
        info.update(time_bank=spec.time_bank, timeouts=spec.timeouts, grace=spec.grace)
        return info

    def ledger_info(self) -> dict[str, Any]:
        return ledger_record(self.game)

    def hands_info(self) -> list[dict[str, Any]]:
        return hands_record(self.game)

    def clocks(self) -> list[dict[str, Any]]:
        return self.timekeeper.clocks()

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

    # ------------------------------------------------------------------ the parts' calls

    def resume(self) -> None:
        """After a rebuild: restart timers and bots, or schedule the next deal."""
        self.flow.resume()

    def free_human_seats(self) -> list[int]:
        return self.game.free_human_seats()

    def claim(self, seat: int | None, name: str) -> tuple[int, str, str]:
        """Give a free human seat to ``name``: (seat, player name, token)."""
        return self.presence.claim(seat, name)

    def claim_as(self, seat: int, name: str, token_hash: str) -> None:
        """Seat ``name`` in ``seat`` under a token he already holds (a rematch)."""
        self.presence.claim_as(seat, name, token_hash)

    def creator_chair(self) -> int | None:
        return self.presence.creator_chair()

    def stand_in(self, chair: int) -> bool:
        """A bot plays ``chair`` until its person reconnects; False if nobody is away."""
        return self.presence.stand_in(chair)

    def start_session(self) -> None:
        self.flow.start_session()

    def submit(self, chair: int, action: Action) -> Result:
        """Check and apply one action of ``chair`` (a bot's, a timeout); store it, then
        broadcast it (:meth:`.table_flow.TableFlow.submit`, where a person's comes)."""
        return self.flow.submit(chair, action)

    def settle_due(self) -> None:
        """Settle now a hand whose settlement waits (before showing the table to anyone)."""
        self.flow.settle_due()

    def offer_rematch(self, new_id: str, chair: int) -> None:
        self.flow.offer_rematch(new_id, chair)

    def attach(self, conn: Conn) -> None:
        """A socket joined: welcome it and send the full state with the hand's log."""
        self.presence.attach(conn)
        self.chat.welcome(conn)

    def detach(self, conn: Conn) -> None:
        self.presence.detach(conn)

    def handle(self, conn: Conn, text: str | None, read_at: float | None = None) -> None:
        """Validate and carry out one client message; errors go to ``conn`` only."""
        self.dispatch.handle(conn, text, read_at)

    # ------------------------------------------------------------------ group commit

    def take_steps(self) -> list[Step]:
        return self.ownership.take_steps()

    def committed(self, steps: list[Step]) -> None:
        """The steps' writes are stored: send their messages, run what follows."""
        self.ownership.committed(steps)
        self.chat.session_over()  # a session whose end was just stored forgets its chat

    def write_failed(self, steps: list[Step]) -> None:
        """The steps' writes failed: nothing of them is broadcast; rebuild the table."""
        self.ownership.write_failed(steps)

    def moved(self, steps: list[Step]) -> None:
        """The database refused the steps' writes: another process took the table over."""
        self.ownership.moved(steps)

    # ------------------------------------------------------------------ shutdown

    def stop(self) -> None:
        """Cancel timers, bots and the next deal (server shutdown, unloading)."""
        self.timekeeper.stop()
        self.flow.stop()
        self.bots.stop()
        self.presence.stop()


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
        self.accepting = False
        """Ready for tables: set once the start-up resumed them (``GET /api/ready``)."""
        self.draining = False
        """Shutting down: the tables were handed over and no table is taken any more."""
        self.handed_to: str | None = None
        """Where the clients of a table handed over are sent (another process)."""
        self.commits = GroupCommit(store)
        self.deferred = Deferred()
        self.workers = workers or Workers()
        self.timings = Timings()
        self.counts = ProcessCounts()

    @property
    def ready(self) -> bool:
        """Takes tables: resumed its tables and not shutting down."""
        return self.accepting and not self.draining

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
        if self.draining:  # it shuts down: another process takes the table
            raise TableMoved(table_id, self.handed_to)
        owner = self.store.owner
        if owner is not None:
            lease = self.store.acquire(table_id)
            if lease is None:
                return None
            if lease.owner != owner.id:
                raise TableMoved(table_id, lease.address)
            self._count_taken(lease.previous)
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

    def _count_taken(self, before: Lease | None) -> None:
        """Count a table taken from another process: handed over, or a takeover."""
        owner = self.store.owner
        if before is None or before.owner is None or owner is None or before.owner == owner.id:
            return
        if handed_over(before):
            self.counts.handovers_taken += 1
        else:
            self.counts.takeovers += 1

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
        held = len(self.store.fences)
        lost = self.store.renew()
        self.counts.lease_renewals += held - len(lost)
        for table_id in lost:
            live = self.tables.get(table_id)
            if live is not None:
                self.step_down(live)
        if self.draining:
            return
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
            out.append(summary_record(summary, summary.id in self.quarantined))
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
        if self.draining:
            raise ValueError("this server process is stopping; open the table again")
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
            join_code_hash=secret_hash(code),
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
                    live.presence.left(chair)
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

    def hand_over(self) -> int:
        """Shutdown (SIGTERM): take no table any more, store what waits, stop every
        table's timers and bots, and give each lease up at once, so another process of
        the database takes the table on its next request or in its sweep (an idle table
        is simply released: it is loaded where it is next asked for). Every socket is
        sent to another live process if one is known (``moved``), and closed: the browser
        reconnects. Returns how many tables were handed over (once; then 0)."""
        if self.draining:
            return 0
        self.draining = True
        try:
            # Storing the last writes can end a hand, which queues its settlement: so
            # flush, settle, and flush what the settlements wrote.
            self.flush()
            self.deferred.drain()
            self.flush()
        except Exception:
            log.exception("cannot store the last writes")
        self.closing = True  # no timer, bot or deal starts any more
        try:
            self.handed_to = other_process_address(self.store)
        except Exception:
            log.exception("cannot read where the other processes are")
        tables = list(self.tables.values())
        self.tables.clear()
        busy = [live.id for live in tables if not live.idle]
        for live in tables:
            moved = TableMoved(live.id, self.handed_to)
            live.gone = moved
            live.stop()
            for conn in list(live.conns):
                if moved.to is not None:
                    conn.send(moved.text())
                conn.close()
        try:
            hand_over_leases(self.store, busy)
        except Exception:  # they run out by themselves
            log.exception("cannot hand over the leases of %s", ", ".join(busy))
        self._release(list(self.store.fences))
        self.counts.handovers_given += len(busy)
        if busy:
            log.info("handed over %d table(s) (to %s)", len(busy), self.handed_to or "any process")
        return len(busy)

    def close(self) -> None:
        """Hand every table over (:meth:`hand_over`, if not done yet) and stop the
        workers."""
        self.hand_over()
        self.workers.close()
