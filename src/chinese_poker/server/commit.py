"""The unit of work: every table's writes of one event-loop tick in one transaction.

A table that changed queues a :class:`Step` (its rows, hand end or deal, the messages
that show the change, and what to do next) and marks itself dirty. The commit starts as
a ``call_soon`` callback, after every message the loop handed over in the same tick, so
under load hundreds of actions share one transaction; alone, an action waits for
nothing. Only once the transaction has committed are the messages sent: nobody is ever
shown a state that is not stored.

On PostgreSQL the transaction runs in the group commit's own thread, so the event loop
plays on while the database works (docs/server.md "The group commit"). One transaction
is in flight at a time: what is queued meanwhile joins the next batch, which starts when
the one in flight is done. The thread is handed only built rows and values
(:class:`TableWrites`), never the tables themselves. On SQLite the transaction runs on
the event loop (a local file answers faster than a hand-over to a thread would cost).

The transaction first checks that this process still holds the lease of every table it
writes (:meth:`~.db.Store.stale_fences`). A table whose lease another process took is
dropped from the batch, none of its messages is sent, and it steps down (``moved``); the
other tables' writes are committed without it.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from chinese_poker.server.db import HandEnd, LeaseLost, Store

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from chinese_poker.server.connections import Conn

__all__ = ["GroupCommit", "Step", "TableWrites", "Writer", "store_writes"]

log = logging.getLogger("chinese_poker.server")

ActionRowValues = tuple[str, int, int, str, float]
HandStart = tuple[str, int, float, dict[str, str] | None]
Contributions = tuple[str, int, dict[str, str]]


@dataclass
class Step:
    """One write of a table waiting for the group commit, and what follows it.

    ``rows`` (action rows), ``end`` (a hand's end) and ``start`` (a deal) are written in
    the batch's transaction; once it has committed, ``messages`` are sent and ``then``
    runs. A step with nothing to write only keeps a reply (an error, a pong) in order
    behind the writes before it. ``sender`` is told ``server_error`` if the write fails.
    """

    rows: list[ActionRowValues] = field(default_factory=list)
    end: HandEnd | None = None
    start: HandStart | None = None
    messages: list[tuple[Conn, str]] = field(default_factory=list)
    then: Callable[[], None] | None = None
    sender: tuple[Conn, object] | None = None
    read_at: float | None = None
    """When the message that made the step was read (``time.perf_counter()``)."""
    received: Contributions | None = None
    """A hand's fair-shuffle values received so far ``(table_id, number, values)``."""

    @property
    def writes(self) -> bool:
        return (
            bool(self.rows)
            or self.end is not None
            or self.start is not None
            or self.received is not None
        )


class Writer(Protocol):
    """A table as the group commit sees it.

    ``take_steps`` gives the steps for the next transaction; they stay the table's until
    one of ``committed``, ``write_failed`` or ``moved`` is called with them (a reply sent
    meanwhile waits behind them)."""

    id: str

    def take_steps(self) -> list[Step]: ...

    def committed(self, steps: list[Step]) -> None: ...

    def write_failed(self, steps: list[Step]) -> None: ...

    def moved(self, steps: list[Step]) -> None: ...


Batch = list[tuple[Writer, list[Step]]]


@dataclass(frozen=True, slots=True)
class TableWrites:
    """One table's writes in a batch, as the transaction gets them: rows and values
    built on the event loop, nothing that the loop changes afterwards. ``fence`` is the
    table's fencing number to check (None: not checked, nothing to write or no lease)."""

    table_id: str
    fence: tuple[str, int] | None
    rows: list[ActionRowValues]
    ends: list[HandEnd]
    starts: list[HandStart]
    received: list[Contributions]


@dataclass
class Outcome:
    """Which tables of a batch were stored, failed, or were refused by the lease check
    (``stale``: the fencing numbers the database no longer carries)."""

    stored: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    stale: list[tuple[str, int]] = field(default_factory=list)


class FenceRefused(LeaseLost):
    """The lease check refused the batch; ``stale``: the fences found moved on."""

    def __init__(self, table_ids: Sequence[str], stale: list[tuple[str, int]]) -> None:
        super().__init__(table_ids)
        self.stale = stale


Transaction = Callable[[], AbstractContextManager["Connection"]]


def _write(store: Store, conn: Connection, writes: Sequence[TableWrites]) -> None:
    fences = sorted(w.fence for w in writes if w.fence is not None)
    lost = store.stale_fences(conn, fences)
    if lost is not None:
        gone = set(lost)
        raise FenceRefused(lost or [t for t, _f in fences], [p for p in fences if p[0] in gone])
    store.write_batch(
        conn,
        [row for w in writes for row in w.rows],
        [end for w in writes for end in w.ends],
        [start for w in writes for start in w.starts],
    )
    for w in writes:
        for received in w.received:
            store.note_contributions(conn, *received)


def store_writes(store: Store, transaction: Transaction, writes: list[TableWrites]) -> Outcome:
    """Store the tables' writes in one transaction. The tables whose leases are lost
    leave the batch and the rest is tried again; on any other failure each table is
    tried on its own. Reads nothing but ``writes`` (it may run in another thread)."""
    outcome = Outcome()
    _store(store, transaction, writes, outcome)
    return outcome


def _store(
    store: Store, transaction: Transaction, writes: list[TableWrites], outcome: Outcome
) -> None:
    try:
        with transaction() as conn:
            _write(store, conn, writes)
        outcome.stored += [w.table_id for w in writes]
        return
    except FenceRefused as exc:
        lost = set(exc.table_ids)
        moved = [w for w in writes if w.table_id in lost]
        rest = [w for w in writes if w.table_id not in lost]
        if moved:
            outcome.moved += [w.table_id for w in moved]
            outcome.stale += exc.stale
            if rest:
                _store(store, transaction, rest, outcome)
            return
    except Exception:
        log.exception("group commit of %d table(s) failed; retrying each", len(writes))
    for w in writes:
        try:
            with transaction() as conn:
                _write(store, conn, [w])
            outcome.stored.append(w.table_id)
        except FenceRefused as exc:
            outcome.moved.append(w.table_id)
            outcome.stale += exc.stale
        except Exception:
            log.exception("table %s: cannot store its writes", w.table_id)
            outcome.failed.append(w.table_id)


@dataclass
class InFlight:
    """The batch whose transaction runs in the commit thread."""

    batch: Batch
    moved: list[str]
    settled: asyncio.Future[None] | None
    result: Future[Outcome]


class GroupCommit:
    """The dirty tables of one server and their next transaction.

    ``off_loop``: run the transactions in a thread of their own (default: on PostgreSQL,
    not on SQLite)."""

    def __init__(self, store: Store, *, off_loop: bool | None = None) -> None:
        self.store = store
        self.off_loop = store.dialect != "sqlite" if off_loop is None else off_loop
        self._dirty: dict[int, Writer] = {}  # by id(): a table is in a batch once
        self._handle: asyncio.Handle | None = None
        self._settled: asyncio.Future[None] | None = None
        self._in_flight: InFlight | None = None
        self._unreported: set[int] = set()
        """The tables of the batch being reported that are not told yet: a commit
        forced meanwhile (a ``then`` that reads) leaves them to the next batch, as their
        steps in the last one are still theirs."""
        self._thread: ThreadPoolExecutor | None = None
        self._own: list[Connection] = []
        """The commit thread's connection, once opened (used in that thread only)."""

    @property
    def pending(self) -> bool:
        """Writes wait for a commit, or a commit runs."""
        return bool(self._dirty) or self._in_flight is not None

    def settled(self) -> asyncio.Future[None]:
        """Done once the next group commit has run (readers wait for it rather than
        forcing a commit of their own: a flood of reads cannot break up the batches)."""
        if self._settled is None:
            self._settled = asyncio.get_running_loop().create_future()
        return self._settled

    def dirty(self, table: Writer) -> None:
        """``table`` has writes waiting: commit them (with every other table's) soon."""
        self._dirty[id(table)] = table
        if self._handle is None and self._in_flight is None:
            self._handle = asyncio.get_running_loop().call_soon(self._tick)

    def _tick(self) -> None:
        self._handle = None
        if self._in_flight is None:  # else its end starts the next batch
            self._start(wait=not self.off_loop)

    def flush(self) -> None:
        """Commit every waiting write now, and wait for it (and for the commit in
        flight): what is read afterwards is stored. Then let each table broadcast what
        they carried. If the transaction fails, each table's writes are retried on
        their own; a table whose writes still fail is told (``write_failed``)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self._in_flight is not None:
            self._in_flight.result.exception()  # waits for it to end
            self._finish(self._in_flight)
        self._start(wait=True)

    def _start(self, *, wait: bool) -> None:
        """Take the dirty tables' steps into a batch and store it: in the thread (then
        wait for it if ``wait``), or on the loop."""
        later = self._unreported
        dirty = [t for k, t in self._dirty.items() if k not in later]
        self._dirty = {k: t for k, t in self._dirty.items() if k in later}
        settled, self._settled = self._settled, None
        if not dirty:
            _resolve(settled)
            return
        batch = [(table, table.take_steps()) for table in dirty]
        writes, moved = self._prepare(batch)
        if not self.off_loop:
            try:
                self._report(batch, moved, store_writes(self.store, self.store.transaction, writes))
            finally:
                _resolve(settled)
            return
        running = InFlight(batch, moved, settled, self._pool().submit(self._run, writes))
        self._in_flight = running
        if wait:
            running.result.exception()
            self._finish(running)
            return
        loop = asyncio.get_running_loop()

        def finished(_done: Future[Outcome]) -> None:
            with suppress(RuntimeError):  # the loop is closed: nobody waits any more
                loop.call_soon_threadsafe(self._finish, running)

        running.result.add_done_callback(finished)

    def _prepare(self, batch: Batch) -> tuple[list[TableWrites], list[str]]:
        """The batch's writes with their fencing numbers (read here, on the loop); the
        tables whose lease this process no longer holds at all are out at once."""
        store = self.store
        writing = [t.id for t, steps in batch if any(st.writes for st in steps)]
        moved: list[str] = []
        try:
            fences = dict(store.fence_numbers(writing))
        except LeaseLost as exc:
            moved = list(exc.table_ids)
            fences = dict(store.fence_numbers([t for t in writing if t not in set(moved)]))
        writes = []
        for table, steps in batch:
            if table.id in moved:
                continue
            fence = fences.get(table.id)
            writes.append(
                TableWrites(
                    table.id,
                    None if fence is None else (table.id, fence),
                    [row for st in steps for row in st.rows],
                    [st.end for st in steps if st.end is not None],
                    [_copied_start(st.start) for st in steps if st.start is not None],
                    [(r[0], r[1], dict(r[2])) for st in steps if (r := st.received) is not None],
                )
            )
        return writes, moved

    def _pool(self) -> ThreadPoolExecutor:
        if self._thread is None:
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="group-commit")
            weakref.finalize(self, _close, self._thread, self._own)
        return self._thread

    def _run(self, writes: list[TableWrites]) -> Outcome:
        """In the commit thread: each transaction on a connection of its own (the
        store's connection is the event loop's)."""
        return store_writes(self.store, self._own_transaction, writes)

    @contextmanager
    def _own_transaction(self) -> Iterator[Connection]:
        """A transaction on the thread's long-lived connection (no pool checkout and
        ping per batch), reopened after a failure."""
        own = self._own
        conn = own[0] if own else None
        if conn is None or conn.closed or conn.invalidated:
            conn = self.store.engine.connect()
            own[:] = [conn]
        try:
            with conn.begin():
                yield conn
        except BaseException:
            if conn.invalidated or conn.closed:
                own.clear()
            raise

    def _finish(self, running: InFlight) -> None:
        """On the loop: the batch in flight is done; report it, start the next."""
        if self._in_flight is not running:
            return  # already finished (a flush waited for it)
        self._in_flight = None
        try:
            outcome = running.result.result()
        except Exception:  # not stored, as far as anybody can tell
            log.exception("group commit of %d table(s) failed", len(running.batch))
            outcome = Outcome(failed=[t.id for t, _steps in running.batch])
        try:
            self._report(running.batch, running.moved, outcome)
        finally:
            _resolve(running.settled)
            self._soon()

    def _soon(self) -> None:
        """Start the next batch soon if anything waits for one."""
        if (self._dirty or self._settled is not None) and self._handle is None:
            self._handle = asyncio.get_running_loop().call_soon(self._tick)

    def _report(self, batch: Batch, moved: list[str], outcome: Outcome) -> None:
        """Tell each table of the batch how its writes went."""
        fences = self.store.fences
        for table_id, fence in outcome.stale:
            if fences.get(table_id) == fence:
                del fences[table_id]
        refused = set(moved) | set(outcome.moved)
        failed = set(outcome.failed)
        told = [
            *((t, s, t.committed) for t, s in batch if t.id not in refused | failed),
            *((t, s, t.write_failed) for t, s in batch if t.id in failed - refused),
            *((t, s, t.moved) for t, s in batch if t.id in refused),
        ]
        self._unreported = {id(t) for t, _s, _tell in told}
        try:
            for table, steps, tell in told:
                self._unreported.discard(id(table))
                # One table's broadcast failing must not keep the others' from theirs.
                try:
                    tell(steps)
                except Exception:
                    log.exception("table %s: cannot %s", table.id, _FAILING[tell.__name__])
        finally:
            self._unreported = set()
        if self._dirty and self._in_flight is None:
            self._soon()


_FAILING = {
    "committed": "broadcast its stored writes",
    "write_failed": "recover from its failed writes",
    "moved": "step down",
}


def _close(thread: ThreadPoolExecutor, own: list[Connection]) -> None:
    """The group commit is gone: let its thread end, and close its connection there."""
    if own:
        thread.submit(own[0].close)
    thread.shutdown(wait=False)


def _copied_start(start: HandStart) -> HandStart:
    table_id, number, started_at, given = start
    return table_id, number, started_at, None if given is None else dict(given)


def _resolve(settled: asyncio.Future[None] | None) -> None:
    if settled is not None and not settled.done():
        settled.set_result(None)
