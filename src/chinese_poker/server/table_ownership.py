"""A live table's ownership and transport: its writes waiting for the group commit, the
messages held behind them, and stepping down when another process owns the table.

Every change of a table is a :class:`~.commit.Step` queued here; the group commit
(:mod:`.commit`) stores the tick's steps and only then are their messages sent (a reply
with no write of its own waits behind the writes before it, keeping the order). A write
the database refuses because another process took the table's lease makes this process
step down (:meth:`.tables.TableManager.step_down`): the clients are sent to the owner.

At shutdown a process hands its tables over (:func:`hand_over_leases`): each lease keeps
its holder's name but expires at :data:`HANDED_OVER`, so the other processes take the
table at once, on its next request or in their sweep (:meth:`.db.Store.orphans`), and
can tell a table handed over from one whose process died.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from chinese_poker.server.commit import Step
from chinese_poker.server.connections import Conn
from chinese_poker.server.db import LeaseLost, Store, compact_json
from chinese_poker.server.leases import HANDED_OVER, handed_over
from chinese_poker.server.messages import ErrorCode, moved_message
from chinese_poker.server.table_part import TablePart

if TYPE_CHECKING:
    from chinese_poker.server.tables import LiveTable

__all__ = [
    "HANDED_OVER",
    "TableMoved",
    "TableOwnership",
    "WriteFailed",
    "hand_over_leases",
    "handed_over",
    "other_process_address",
]

log = logging.getLogger("chinese_poker.server")


def hand_over_leases(store: Store, table_ids: Sequence[str]) -> None:
    """Give these tables' leases up at once for another process to take (each keeps its
    fencing number: the next holder raises it, and a late write of this one is refused)."""
    store.release(table_ids, hand_over=True)


def other_process_address(store: Store) -> str | None:
    """Where another live process of this database is reached (None if none is known)."""
    return store.other_owner_address()


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


class TableOwnership(TablePart):
    """One table's pending writes and whether this process still owns it."""

    def __init__(self, live: LiveTable) -> None:
        super().__init__(live)
        self.steps: list[Step] = []
        """Waiting for the group commit, or in its transaction (the first ``taken``)."""
        self.taken = 0
        self.gone: TableMoved | None = None
        """Set once this process stepped down: another process plays the table."""

    def enqueue(self, step: Step) -> None:
        if not self.steps:
            self.live.manager.commits.dirty(self.live)
        self.steps.append(step)

    def send(self, conn: Conn, text: str) -> None:
        """Send a reply now, or after the table's pending writes (keeping the order)."""
        if self.steps:
            self.steps.append(Step(messages=[(conn, text)]))
        else:
            conn.send(text)

    def take_steps(self) -> list[Step]:
        """The steps for the next transaction. They stay queued until it is over, so a
        reply or a step queued while it runs (in the commit thread) waits behind them."""
        self.taken = len(self.steps)
        return self.steps[:]

    def _over(self) -> list[Step]:
        """The transaction of the taken steps is over: the steps queued meanwhile."""
        del self.steps[: self.taken]
        self.taken = 0
        return self.steps

    def committed(self, steps: list[Step]) -> None:
        """The steps' writes are stored: send their messages, run what follows."""
        manager = self.live.manager
        if self._over():  # queued while the commit ran: the next batch's
            manager.commits.dirty(self.live)
        timings = manager.timings
        for step in steps:
            if step.rows:  # an applied action: a move, counted once it is stored
                manager.counts.move()
            for conn, text in step.messages:
                conn.send(text)
            if step.read_at is not None:
                timings.action(time.perf_counter() - step.read_at)
            if step.then is not None:
                step.then()

    def write_failed(self, steps: list[Step]) -> None:
        """The steps' writes failed: nothing of them is broadcast; rebuild the table."""
        live = self.live
        # What was queued while the failed write was in flight was built on it: not
        # stored either.
        steps = steps + self._over()
        self.steps = []
        reload = False
        for step in steps:
            if step.rows or step.end is not None or step.received is not None:
                reload = True
                if step.sender is not None:
                    conn, ref = step.sender
                    what = "value" if step.received is not None else "action"
                    text = f"the {what} could not be stored; try again"
                    conn.send(live.dispatch.error_text(ref, ErrorCode.SERVER_ERROR, text))
            elif step.start is not None:
                log.error("table %s: cannot store the start of hand %d", live.id, step.start[1])
            else:  # a reply with no write of its own
                for conn, text in step.messages:
                    conn.send(text)
        if reload:
            log.error("table %s: cannot store an action; reloading the table", live.id)
            live.manager.reload(live)
        elif live.manager.tables.get(live.id) is live:
            live.flow.schedule_next_hand()

    def moved(self, steps: list[Step]) -> None:
        """The database refused the steps' writes: another process took the table over.
        Nothing of them is shown; every socket is sent to the new owner."""
        self._over()
        self.live.manager.step_down(self.live)

    def save_live(self, status: str | None = None) -> bool:
        """Store the game's live state (banks, stand-ins, a leave, a rematch); False if
        the write failed (a bank or a stand-in only: the table plays on, a restart would
        refill a bank; a leave or a rematch is undone by the caller and announced to
        nobody)."""
        live = self.live
        try:
            live.store.set_live(live.id, live.game.live_state(), status)
        except LeaseLost:
            live.manager.step_down(live)
            return False
        except Exception:
            log.exception("table %s: cannot store its live state", live.id)
            return False
        return True
