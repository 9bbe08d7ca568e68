"""The unit of work: every table's writes of one event-loop tick in one transaction.

A table that changed queues a :class:`Step` (its rows, hand end or deal, the messages
that show the change, and what to do next) and marks itself dirty. The commit runs as
a ``call_soon`` callback, after every message the loop handed over in the same tick, so
under load hundreds of actions share one transaction; alone, an action waits for
nothing. Only once the transaction has committed are the messages sent: nobody is ever
shown a state that is not stored.

The transaction first checks that this process still holds the lease of every table it
writes (:meth:`~.db.Store.fenced`). A table whose lease another process took is dropped
from the batch, none of its messages is sent, and it steps down (``moved``); the other
tables' writes are committed without it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from chinese_poker.server.db import HandEnd, LeaseLost, Store

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from chinese_poker.server.connections import Conn

__all__ = ["GroupCommit", "Step", "Writer"]

log = logging.getLogger("chinese_poker.server")


@dataclass
class Step:
    """One write of a table waiting for the group commit, and what follows it.

    ``rows`` (action rows), ``end`` (a hand's end) and ``start`` (a deal) are written in
    the batch's transaction; once it has committed, ``messages`` are sent and ``then``
    runs. A step with nothing to write only keeps a reply (an error, a pong) in order
    behind the writes before it. ``sender`` is told ``server_error`` if the write fails.
    """

    rows: list[tuple[str, int, int, str, float]] = field(default_factory=list)
    end: HandEnd | None = None
    start: tuple[str, int, float, dict[str, str] | None] | None = None
    messages: list[tuple[Conn, str]] = field(default_factory=list)
    then: Callable[[], None] | None = None
    sender: tuple[Conn, object] | None = None
    read_at: float | None = None
    """When the message that made the step was read (``time.perf_counter()``)."""
    received: tuple[str, int, dict[str, str]] | None = None
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
    """A table as the group commit sees it."""

    id: str

    def take_steps(self) -> list[Step]: ...

    def committed(self, steps: list[Step]) -> None: ...

    def write_failed(self, steps: list[Step]) -> None: ...

    def moved(self, steps: list[Step]) -> None: ...


Batch = list[tuple[Writer, list[Step]]]


def _write(store: Store, conn: Connection, batches: Batch) -> None:
    store.fenced(conn, [t.id for t, steps in batches if any(st.writes for st in steps)])
    steps = [st for _t, table_steps in batches for st in table_steps]
    store.write_batch(
        conn,
        [row for st in steps for row in st.rows],
        [st.end for st in steps if st.end is not None],
        [st.start for st in steps if st.start is not None],
    )
    for st in steps:
        if st.received is not None:
            store.note_contributions(conn, *st.received)


class GroupCommit:
    """The dirty tables of one server and their next transaction."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._dirty: list[Writer] = []
        self._handle: asyncio.Handle | None = None
        self._settled: asyncio.Future[None] | None = None

    @property
    def pending(self) -> bool:
        return bool(self._dirty)

    def settled(self) -> asyncio.Future[None]:
        """Done once the next group commit has run (readers wait for it rather than
        forcing a commit of their own: a flood of reads cannot break up the batches)."""
        if self._settled is None:
            self._settled = asyncio.get_running_loop().create_future()
        return self._settled

    def dirty(self, table: Writer) -> None:
        """``table`` has writes waiting: commit them (with every other table's) soon."""
        self._dirty.append(table)
        if self._handle is None:
            self._handle = asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Commit every waiting write in one transaction, then let each table broadcast
        what they carried. If the transaction fails, each table's writes are retried on
        their own; a table whose writes still fail is told (``write_failed``)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        dirty, self._dirty = self._dirty, []
        settled, self._settled = self._settled, None
        try:
            self._commit(dirty)
        finally:
            if settled is not None and not settled.done():
                settled.set_result(None)

    def _commit(self, dirty: list[Writer]) -> None:
        if not dirty:
            return
        ok, bad, moved = self._store([(table, table.take_steps()) for table in dirty])
        # One table's broadcast failing must not keep the others' from theirs.
        for table, steps in ok:
            try:
                table.committed(steps)
            except Exception:
                log.exception("table %s: cannot broadcast its stored writes", table.id)
        for table, steps in bad:
            try:
                table.write_failed(steps)
            except Exception:
                log.exception("table %s: cannot recover from its failed writes", table.id)
        for table, steps in moved:
            try:
                table.moved(steps)
            except Exception:
                log.exception("table %s: cannot step down", table.id)

    def _store(self, batches: Batch) -> tuple[Batch, Batch, Batch]:
        """Store the batches in one transaction: (stored, failed, refused by the lease
        check). The tables whose leases are lost leave the batch and the rest is tried
        again; on any other failure each table is tried on its own."""
        store = self.store
        try:
            with store.transaction() as conn:
                _write(store, conn, batches)
            return batches, [], []
        except LeaseLost as exc:
            lost = set(exc.table_ids)
            moved = [b for b in batches if b[0].id in lost]
            rest = [b for b in batches if b[0].id not in lost]
            if moved:
                stored, failed, more = self._store(rest) if rest else ([], [], [])
                return stored, failed, moved + more
        except Exception:
            log.exception("group commit of %d table(s) failed; retrying each", len(batches))
        ok: Batch = []
        bad: Batch = []
        refused: Batch = []
        for table, steps in batches:
            try:
                with store.transaction() as conn:
                    _write(store, conn, [(table, steps)])
                ok.append((table, steps))
            except LeaseLost:
                refused.append((table, steps))
            except Exception:
                log.exception("table %s: cannot store its writes", table.id)
                bad.append((table, steps))
        return ok, bad, refused
