"""Persistence: SQLAlchemy 2.x models and the store (SQLite by default, PostgreSQL too).

Four tables hold everything needed to rebuild every table exactly:

* ``tables``: the setup (the create request, the resolved rules, the session seed and
  first button, when the session started) and the status;
* ``seats``: who sits where (human or bot, bot name and level, the SHA-256 of the
  seat token);
* ``hands``: per hand the committed shuffle seed and salt, the commitment, when it was
  dealt and finished, and the finished hand's history line;
* ``actions``: every accepted action (the engine's ``to_dict()`` form), in order.

A fifth, ``table_leases``, says which server process plays each live table (its lease)
and carries the fencing number that every write of the table is checked against, in the
write's own transaction (:meth:`Store.acquire`, docs/server.md "Processes").

Every accepted action is committed before it is broadcast. The server groups the writes
of one event-loop tick (every action that arrived together, with the hand ends, next-hand
commitments and deals they bring) into one transaction (:meth:`Store.transaction`), and
broadcasts only after it has committed. Nothing here is SQLite-specific except the
connection pragmas (WAL journal, ``synchronous=NORMAL``: a killed process loses nothing;
an operating-system crash may lose the last transactions) and the WAL checkpoints, which
run every second in a background thread instead of inside commits. The schema is
created by the Alembic migrations shipped in ``chinese_poker/server/migrations``
(:meth:`Store.migrate`, run at startup).

The models and the loaded data are in :mod:`.schema`, the lease records in
:mod:`.leases`; this module is the store's operations and re-exports both.
"""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    bindparam,
    case,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy import text as sql_text

from chinese_poker.server.engines import Checkpointer, make_engine
from chinese_poker.server.leases import HANDED_OVER, LEASE_SECONDS, Lease, LeaseLost, Owner
from chinese_poker.server.schema import (
    ACTIONS,
    HANDS,
    LEASES,
    SEATS,
    TABLES,
    ActionRow,
    Base,
    BigId,
    HandEnd,
    HandRow,
    LeaseRow,
    NewHand,
    SeatRow,
    StoredHand,
    StoredSeat,
    StoredTable,
    TableRow,
    TableSummary,
)

__all__ = [
    "LEASE_SECONDS",
    "ActionRow",
    "Base",
    "BigId",
    "HandEnd",
    "HandRow",
    "Lease",
    "LeaseLost",
    "LeaseRow",
    "NewHand",
    "Owner",
    "SeatRow",
    "Store",
    "StoredHand",
    "StoredSeat",
    "StoredTable",
    "TableRow",
    "TableSummary",
    "default_database_url",
]


MIGRATION_LOCK = 0x43505F4D4947  # "CP_MIG": PostgreSQL's advisory lock of the migrations


def default_database_url() -> str:
    """SQLite in the user's data directory: ``user_data_dir("chinese-poker")/chinese-poker.db``."""
    import platformdirs

    folder = Path(platformdirs.user_data_dir("chinese-poker"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'chinese-poker.db'}"


# --------------------------------------------------------------------------- the store


class Store:
    """The server's database access. All methods are synchronous and short.

    With an ``owner`` (a server process) every write of a table is fenced: it is stored
    only if the table's lease still carries the fencing number this process got when it
    took the table (:meth:`acquire`), else :class:`LeaseLost` and nothing is stored.
    Without one (tools, tests reading or repairing a database) writes are not fenced."""

    def __init__(
        self,
        url: str | None = None,
        *,
        owner: Owner | None = None,
        lease_seconds: float = LEASE_SECONDS,
    ) -> None:
        if not lease_seconds > 0:
            raise ValueError(f"lease_seconds must be positive, not {lease_seconds}")
        self.url = url or default_database_url()
        self.engine: Engine = make_engine(self.url)
        self.owner = owner
        self.lease_seconds = lease_seconds
        self.fences: dict[str, int] = {}
        """The tables this process holds: table id -> the fencing number of its writes."""
        self._connection: Connection | None = None
        self._checkpointer: Checkpointer | None = None
        if self.dialect == "sqlite" and ":memory:" not in self.url:
            self._checkpointer = Checkpointer(self.engine)
            self._checkpointer.start()
        mark = {"qmark": "?", "format": "%s", "pyformat": "%s"}.get(self.engine.dialect.paramstyle)
        # Statements of the play path, built once (SQLAlchemy then reuses their compiled
        # form; building a statement costs more than running it).
        self._finish_hand = (
            update(HANDS)
            .where(HANDS.c.table_id == bindparam("t"), HANDS.c.number == bindparam("n"))
            .values(finished_at=bindparam("f"), record=bindparam("r"))
        )
        self._start_hand = (
            update(HANDS)
            .where(HANDS.c.table_id == bindparam("t"), HANDS.c.number == bindparam("n"))
            .values(started_at=bindparam("s"), contributions=bindparam("c"))
        )
        self._set_status = (
            update(TABLES).where(TABLES.c.id == bindparam("t")).values(status=bindparam("st"))
        )
        self._new_hand = insert(HANDS)
        self._insert_sql: str | None = (
            None
            if mark is None  # a named/numeric driver: SQLAlchemy's insert is used
            else "INSERT INTO actions (table_id, hand, seq, data, created_at)"
            f" VALUES ({', '.join([mark] * 5)})"
        )
        # The batch writes of the group commit, as plain SQL for the DB-API cursor.
        self._batch_sql: dict[str, str] | None = (
            None
            if mark is None
            else {
                "finish": f"UPDATE hands SET finished_at = {mark}, record = {mark}"
                f" WHERE table_id = {mark} AND number = {mark}",
                "new": "INSERT INTO hands (table_id, number, seed, salt, commitment,"
                " committed_at, started_at, finished_at, record)"
                f" VALUES ({', '.join([mark] * 9)})",
                "status": f"UPDATE tables SET status = {mark} WHERE id = {mark}",
                "start": f"UPDATE hands SET started_at = {mark}, contributions = {mark}"
                f" WHERE table_id = {mark} AND number = {mark}",
            }
        )
        # The database's clock, in seconds since the epoch: every process compares
        # lease times on one clock, whatever its machine's says.
        self._now = (
            "CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION)"
            if self.dialect == "postgresql"
            else "((julianday('now') - 2440587.5) * 86400.0)"
        )
        # Locks the lease row for the rest of the write's transaction: a takeover waits
        # for it (or the write waits for the takeover, and then matches no row).
        self._fence_sql = (
            None
            if mark is None
            else f"UPDATE table_leases SET fence = fence WHERE table_id = {mark} AND fence = {mark}"
        )

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def migrate(self) -> None:
        """Bring the schema to the newest revision (Alembic ``upgrade head``)."""
        from alembic import command
        from alembic.config import Config

        cfg = Config()
        cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
        cfg.set_main_option("sqlalchemy.url", self.url.replace("%", "%%"))
        with self.engine.begin() as conn:
            if self.dialect == "postgresql":
                # Two servers starting on one new database: one migrates while the other
                # waits here, then finds the schema at head (else both create the tables
                # and the second fails on "relation already exists").
                conn.execute(sql_text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK})
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")

    def close(self) -> None:
        """Close the connection, stop the checkpoints (a final one empties the WAL)."""
        if self._checkpointer is not None:
            self._checkpointer.stop()
            self._checkpointer = None
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        self.engine.dispose()

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        """A transaction on the store's one long-lived connection (the server is one
        thread: the event loop's), reopened after a failure."""
        conn = self._connection
        if conn is None or conn.closed or conn.invalidated:
            conn = self._connection = self.engine.connect()
        try:
            with conn.begin():
                yield conn
        except BaseException:
            if conn.invalidated or conn.closed:
                self._connection = None
            raise

    # ------------------------------------------------------------------ leases

    def _me(self) -> Owner:
        if self.owner is None:
            raise RuntimeError("this store has no owner: it takes no leases")
        return self.owner

    def lease(self, table_id: str) -> Lease | None:
        """The table's lease as stored now (None: no lease row, or no such table)."""
        with self.engine.connect() as conn:
            now = float(conn.execute(sql_text(f"SELECT {self._now}")).scalar_one())
            row = conn.execute(select(LEASES).where(LEASES.c.table_id == table_id)).first()
        if row is None:
            return None
        return Lease(
            row.table_id, row.owner, row.node, row.pid, row.address, row.fence, row.expires_at, now
        )

    def acquire(self, table_id: str) -> Lease | None:
        """Take the table's lease if :meth:`Lease.takeable` (a compare-and-set on its
        fencing number and expiry, which it raises by one); returns the lease as it is
        now: this process's (its fence noted for the writes) or the holder's. None if
        there is no such table."""
        me = self._me()
        for _attempt in range(3):
            lease = self.lease(table_id)
            if lease is None:
                with self._tx() as conn:
                    exists = conn.execute(
                        select(TABLES.c.id).where(TABLES.c.id == table_id)
                    ).first()
                    if exists is None:
                        return None
                    conn.execute(
                        sql_text(
                            "INSERT INTO table_leases"
                            " (table_id, owner, node, pid, address, fence, expires_at)"
                            f" VALUES (:t, :o, :n, :p, :a, 1, {self._now} + :s)"
                            " ON CONFLICT (table_id) DO NOTHING"
                        ),
                        {"t": table_id, "s": self.lease_seconds, **self._owner_values(me)},
                    )
                continue  # read what is stored now: this process's lease or a racer's
            if lease.owner == me.id and self.fences.get(table_id) == lease.fence:
                return lease
            if not lease.takeable(me):
                self.fences.pop(table_id, None)
                return lease
            with self._tx() as conn:
                taken = conn.execute(
                    sql_text(
                        "UPDATE table_leases SET owner = :o, node = :n, pid = :p,"
                        f" address = :a, fence = fence + 1, expires_at = {self._now} + :s"
                        " WHERE table_id = :t AND fence = :f AND expires_at = :e"
                        " RETURNING expires_at"
                    ),
                    {
                        "t": table_id,
                        "f": lease.fence,
                        "e": lease.expires_at,
                        "s": self.lease_seconds,
                        **self._owner_values(me),
                    },
                ).first()
            if taken is not None:
                # The lease as written (its expiry is the database's now plus the lease
                # time), with the one it replaced: no second read.
                self.fences[table_id] = lease.fence + 1
                expires = float(taken[0])
                return Lease(
                    table_id, me.id, me.node, me.pid, me.address, lease.fence + 1,
                    expires, expires - self.lease_seconds, previous=lease,
                )  # fmt: skip
        lease = self.lease(table_id)
        if lease is not None and lease.owner == me.id:
            self.fences[table_id] = lease.fence
        return lease

    @staticmethod
    def _owner_values(me: Owner) -> dict[str, Any]:
        return {"o": me.id, "n": me.node, "p": me.pid, "a": me.address}

    def renew(self) -> list[str]:
        """Extend every lease this process holds; returns the tables it no longer holds
        (taken over by another process while this one was paused or cut off)."""
        if self.owner is None or not self.fences:
            return []
        with self._tx() as conn:
            conn.execute(
                sql_text(f"UPDATE table_leases SET expires_at = {self._now} + :s WHERE owner = :o"),
                {"s": self.lease_seconds, "o": self.owner.id},
            )
            held = {
                r[0]: r[1]
                for r in conn.execute(
                    select(LEASES.c.table_id, LEASES.c.fence).where(LEASES.c.owner == self.owner.id)
                )
            }
        lost = [t for t, fence in self.fences.items() if held.get(t) != fence]
        for t in lost:
            del self.fences[t]
        return lost

    def release(self, table_ids: Sequence[str], *, hand_over: bool = False) -> None:
        """Give up these tables' leases (kept with their fencing numbers: the next
        process to take one raises it). ``hand_over`` (at shutdown): each keeps its
        holder's name but expires at :data:`~.leases.HANDED_OVER`, so the other
        processes take it at once (their sweep finds it) and count it as handed over."""
        mine = [(t, self.fences.pop(t)) for t in table_ids if t in self.fences]
        if not mine:
            return
        freed: dict[str, Any] = (
            {"expires_at": HANDED_OVER}
            if hand_over
            else {"owner": None, "node": None, "pid": None, "address": None}
        )
        with self._tx() as conn:
            conn.execute(
                update(LEASES)
                .where(LEASES.c.table_id == bindparam("t"), LEASES.c.fence == bindparam("f"))
                .values(**freed),
                [{"t": t, "f": f} for t, f in mine],
            )

    def other_owner_address(self) -> str | None:
        """Where another live process of this database is reached (the one whose lease
        runs longest, so it renewed last, on the database's clock), None if none is
        known."""
        owner = self.owner
        if owner is None:
            return None
        with self.engine.connect() as conn:
            row = conn.execute(
                select(LEASES.c.address)
                .where(
                    LEASES.c.owner.is_not(None),
                    LEASES.c.owner != owner.id,
                    LEASES.c.address.is_not(None),
                    LEASES.c.address != "",
                    LEASES.c.address != owner.address,
                    LEASES.c.expires_at > sql_text(self._now),
                )
                .order_by(LEASES.c.expires_at.desc())
                .limit(1)
            ).first()
        return None if row is None else str(row[0])

    def orphans(self) -> list[str]:
        """The unfinished tables whose lease ran out while a process held it (that
        process died or stalled): another process takes them over."""
        with self.engine.connect() as conn:
            return [
                r[0]
                for r in conn.execute(
                    select(LEASES.c.table_id)
                    .join(TABLES, TABLES.c.id == LEASES.c.table_id)
                    .where(
                        LEASES.c.owner.is_not(None),
                        LEASES.c.expires_at < sql_text(self._now),
                        TABLES.c.status != "finished",
                    )
                )
            ]

    def fenced(self, conn: Connection, table_ids: Sequence[str]) -> None:
        """Check, in the transaction of ``conn`` and before its writes, that this
        process still holds these tables' leases; :class:`LeaseLost` (naming the lost
        ones) if not, and the caller's transaction is rolled back."""
        params = self.fence_numbers(table_ids)
        lost = self.stale_fences(conn, params)
        if lost is not None:
            for t in lost:
                self.fences.pop(t, None)
            raise LeaseLost(lost or [t for t, _f in params])

    def fence_numbers(self, table_ids: Sequence[str]) -> list[tuple[str, int]]:
        """The (table, fencing number) pairs that these tables' writes are checked
        against, in one lock order for every process (no deadlock); none without an
        owner. :class:`LeaseLost` naming the tables this process does not hold."""
        if self.owner is None or not table_ids:
            return []
        ids = sorted(set(table_ids))
        fences = self.fences
        missing = [t for t in ids if t not in fences]
        if missing:
            raise LeaseLost(missing)
        return [(t, fences[t]) for t in ids]

    def stale_fences(self, conn: Connection, params: Sequence[tuple[str, int]]) -> list[str] | None:
        """Check the pairs of :meth:`fence_numbers` in the transaction of ``conn``: None
        if each lease still carries its number, else the tables whose lease moved on.
        It reads and changes nothing of this object (the group commit calls it from its
        own thread while the event loop takes and gives up leases)."""
        if not params:
            return None
        if self._fence_sql is not None:
            cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
            try:
                cursor.executemany(self._fence_sql, params)
                matched = cursor.rowcount
            finally:
                cursor.close()
        else:
            matched = sum(
                conn.execute(
                    sql_text(
                        "UPDATE table_leases SET fence = fence WHERE table_id = :t AND fence = :f"
                    ),
                    {"t": t, "f": f},
                ).rowcount
                for t, f in params
            )
        if matched == len(params):
            return None
        ids = [t for t, _f in params]
        stored = {
            r[0]: r[1]
            for r in conn.execute(
                select(LEASES.c.table_id, LEASES.c.fence).where(LEASES.c.table_id.in_(ids))
            )
        }
        return [t for t, f in params if stored.get(t) != f]

    # ------------------------------------------------------------------ writing

    def create_table(
        self,
        *,
        table_id: str,
        name: str,
        config: dict[str, Any],
        join_code_hash: str,
        session_seed: str,
        start_button: int,
        seats: Sequence[StoredSeat],
        status: str,
        first: NewHand | None = None,
    ) -> float:
        """Insert a new table and its seats (and the commitment to its first hand's
        seed, published as the table opens); returns its creation time."""
        now = time.time()
        with self._tx() as conn:
            conn.execute(
                insert(TABLES).values(
                    id=table_id,
                    name=name,
                    created_at=now,
                    config=json.dumps(config),
                    join_code_hash=join_code_hash,
                    status=status,
                    session_seed=session_seed,
                    start_button=start_button,
                    started_at=None,
                )
            )
            conn.execute(
                insert(SEATS),
                [
                    {
                        "table_id": table_id,
                        "seat": s.seat,
                        "kind": s.kind,
                        "name": s.name,
                        "bot": s.bot,
                        "level": s.level,
                        "token_hash": s.token_hash,
                        "joined_at": s.joined_at,
                    }
                    for s in seats
                ],
            )
            if first is not None:
                self._insert_hand(conn, table_id, first, None)
            if self.owner is not None:  # the process that opens a table plays it
                conn.execute(
                    sql_text(
                        "INSERT INTO table_leases"
                        " (table_id, owner, node, pid, address, fence, expires_at)"
                        f" VALUES (:t, :o, :n, :p, :a, 1, {self._now} + :s)"
                    ),
                    {"t": table_id, "s": self.lease_seconds, **self._owner_values(self.owner)},
                )
        if self.owner is not None:
            self.fences[table_id] = 1
        return now

    def claim_seat(self, table_id: str, seat: int, name: str, token_hash: str) -> bool:
        """Give a free human seat to a player; False if somebody took it first."""
        with self._tx() as conn:
            self.fenced(conn, [table_id])
            result = conn.execute(
                update(SEATS)
                .where(
                    SEATS.c.table_id == table_id,
                    SEATS.c.seat == seat,
                    SEATS.c.token_hash.is_(None),
                )
                .values(name=name, token_hash=token_hash, joined_at=time.time())
            )
            return result.rowcount == 1

    def start_session(
        self,
        table_id: str,
        started_at: float,
        first: NewHand | None,
        dealt: dict[str, str] | None = None,
    ) -> None:
        """Mark the session started; ``first``: commit to the first hand's seed now (a
        table stored before commitments were made at creation); ``dealt``: the first
        hand is dealt now, with these contributions."""
        with self._tx() as conn:
            self.fenced(conn, [table_id])
            conn.execute(
                update(TABLES)
                .where(TABLES.c.id == table_id)
                .values(started_at=started_at, status="playing")
            )
            if first is not None:
                self._insert_hand(conn, table_id, first, None)
            if dealt is not None:
                self.mark_hand_started(conn, table_id, 1, started_at, dealt)

    def start_hand(
        self,
        table_id: str,
        number: int,
        started_at: float,
        contributions: dict[str, str] | None = None,
    ) -> None:
        """Record that hand ``number`` has been dealt (with these contributions)."""
        with self._tx() as conn:
            self.fenced(conn, [table_id])
            self.mark_hand_started(conn, table_id, number, started_at, contributions)

    def add_actions(
        self,
        table_id: str,
        hand: int,
        first_seq: int,
        actions: Sequence[dict[str, Any]],
        *,
        finished: tuple[float, dict[str, Any]] | None = None,
        next_hand: NewHand | None = None,
        status: str | None = None,
    ) -> None:
        """Store accepted actions, in one transaction with the hand's end if it ended.

        ``finished`` is (finish time, history line) when these actions ended the hand;
        ``next_hand`` commits to the next hand's seed; ``status`` updates the table's.
        """
        rows = self.action_rows(table_id, hand, first_seq, actions)
        with self._tx() as conn:
            self.fenced(conn, [table_id])
            self.insert_actions(conn, rows)
            self.end_hand(conn, table_id, hand, finished, next_hand, status)

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One transaction for a batch of writes (the server's group commit): the
        ``insert_actions`` / ``end_hand`` / ``mark_hand_started`` calls made with the
        connection it gives are committed together, or not at all. The caller checks
        the tables' leases first (:meth:`fenced`)."""
        with self._tx() as conn:
            yield conn

    @staticmethod
    def action_rows(
        table_id: str, hand: int, first_seq: int, actions: Sequence[dict[str, Any]]
    ) -> list[tuple[str, int, int, str, float]]:
        """The ``actions`` rows of accepted actions (for :meth:`insert_actions`)."""
        now = time.time()
        return [
            (table_id, hand, first_seq + i, compact_json(a), now) for i, a in enumerate(actions)
        ]

    def insert_actions(
        self, conn: Connection, rows: Sequence[tuple[str, int, int, str, float]]
    ) -> None:
        """Insert ``actions`` rows (of any tables) in the transaction of ``conn``."""
        if rows and self._insert_sql is not None:
            # The hot path: one plain INSERT through the DB-API cursor of this
            # transaction's connection (SQLAlchemy's statement machinery costs more
            # than the insert itself); the paramstyle is the driver's.
            cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
            try:
                cursor.executemany(self._insert_sql, rows)
            finally:
                cursor.close()
        elif rows:
            keys = ("table_id", "hand", "seq", "data", "created_at")
            conn.execute(insert(ACTIONS), [dict(zip(keys, r, strict=True)) for r in rows])

    def end_hand(
        self,
        conn: Connection,
        table_id: str,
        hand: int,
        finished: tuple[float, dict[str, Any]] | None,
        next_hand: NewHand | None,
        status: str | None,
    ) -> None:
        """The end of a hand (its history line), the next hand's commitment, the status."""
        if finished is not None:
            finished_at, record = finished
            conn.execute(
                self._finish_hand,
                {"t": table_id, "n": hand, "f": finished_at, "r": _compact_record(record)},
            )
        if next_hand is not None:
            self._insert_hand(conn, table_id, next_hand, None)
        if status is not None:
            conn.execute(self._set_status, {"t": table_id, "st": status})

    def write_batch(
        self,
        conn: Connection,
        rows: Sequence[tuple[str, int, int, str, float]],
        ends: Sequence[HandEnd],
        starts: Sequence[tuple[str, int, float, dict[str, str] | None]],
    ) -> None:
        """The writes of one group commit, several tables at once, in the transaction of
        ``conn``: action rows, hand ends (with the next hands' commitments and statuses)
        and hand starts ``(table_id, number, started_at, contributions)``. One
        ``executemany`` per kind of statement."""
        self.insert_actions(conn, rows)
        sql = self._batch_sql
        if sql is None:  # a named/numeric driver: statement by statement
            for e in ends:
                self.end_hand(conn, e.table_id, e.hand, e.finished, e.next_hand, e.status)
            for table_id, number, started_at, given in starts:
                self.mark_hand_started(conn, table_id, number, started_at, given)
            return
        now = time.time()
        finish = [
            (e.finished[0], _compact_record(e.finished[1]), e.table_id, e.hand)
            for e in ends
            if e.finished is not None
        ]
        new = [
            (e.table_id, h.number, h.seed, h.salt, h.commitment, now, None, None, None)
            for e in ends
            if (h := e.next_hand) is not None
        ]
        status = [(e.status, e.table_id) for e in ends if e.status is not None]
        start = [
            (started_at, _contributions_json(given), table_id, number)
            for table_id, number, started_at, given in starts
        ]
        if not (finish or new or status or start):
            return
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            for key, params in (
                ("finish", finish),
                ("new", new),
                ("status", status),
                ("start", start),
            ):
                if params:
                    cursor.executemany(sql[key], params)
        finally:
            cursor.close()

    def note_contributions(
        self, conn: Connection, table_id: str, number: int, received: dict[str, str]
    ) -> None:
        """Store the fair-shuffle values received so far for hand ``number``, not yet
        dealt (in the transaction of ``conn``): a restart deals with them too."""
        conn.execute(
            update(HANDS)
            .where(
                HANDS.c.table_id == table_id,
                HANDS.c.number == number,
                HANDS.c.started_at.is_(None),
            )
            .values(contributions=_contributions_json(received))
        )

    def mark_hand_started(
        self,
        conn: Connection,
        table_id: str,
        number: int,
        started_at: float,
        contributions: dict[str, str] | None = None,
    ) -> None:
        """Record that hand ``number`` has been dealt (in the transaction of ``conn``)."""
        conn.execute(
            self._start_hand,
            {"t": table_id, "n": number, "s": started_at, "c": _contributions_json(contributions)},
        )

    def set_live(self, table_id: str, live: dict[str, Any], status: str | None = None) -> None:
        """Store the table's live state (``tables.live``), with a new status if given."""
        values: dict[str, Any] = {"live": compact_json(live)}
        if status is not None:
            values["status"] = status
        with self._tx() as conn:
            self.fenced(conn, [table_id])
            conn.execute(update(TABLES).where(TABLES.c.id == table_id).values(**values))

    def set_status(self, table_id: str, status: str) -> None:
        with self._tx() as conn:
            self.fenced(conn, [table_id])
            conn.execute(self._set_status, {"t": table_id, "st": status})

    def delete_table(self, table_id: str) -> None:
        """Remove a table and everything about it (used by tests and cleanup)."""
        with self._tx() as conn:
            for tbl in (ACTIONS, HANDS, SEATS, LEASES):
                conn.execute(delete(tbl).where(tbl.c.table_id == table_id))
            conn.execute(delete(TABLES).where(TABLES.c.id == table_id))

    def _insert_hand(
        self, conn: Connection, table_id: str, h: NewHand, started: float | None
    ) -> None:
        conn.execute(
            self._new_hand,
            {
                "table_id": table_id,
                "number": h.number,
                "seed": h.seed,
                "salt": h.salt,
                "commitment": h.commitment,
                "committed_at": time.time(),
                "started_at": started,
                "finished_at": None,
                "record": None,
            },
        )

    # ------------------------------------------------------------------ reading

    def table_ids(self, *, exclude_status: str | None = None) -> list[str]:
        """Ids of the stored tables, oldest first (optionally without one status)."""
        stmt = select(TABLES.c.id).order_by(TABLES.c.created_at, TABLES.c.id)
        if exclude_status is not None:
            stmt = stmt.where(TABLES.c.status != exclude_status)
        with self.engine.connect() as conn:
            return [row[0] for row in conn.execute(stmt)]

    def table_summaries(
        self, *, status: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[TableSummary]:
        """One page of the lobby, newest first, straight from the tables (no replay)."""
        stmt = select(
            TABLES.c.id,
            TABLES.c.name,
            TABLES.c.created_at,
            TABLES.c.config,
            TABLES.c.status,
        ).order_by(TABLES.c.created_at.desc(), TABLES.c.id.desc())
        if status is not None:
            stmt = stmt.where(TABLES.c.status == status)
        stmt = stmt.limit(limit).offset(offset)
        with self.engine.connect() as conn:
            rows = list(conn.execute(stmt))
            ids = [r[0] for r in rows]
            if not ids:
                return []
            seats: dict[str, list[StoredSeat]] = {i: [] for i in ids}
            for r in conn.execute(
                select(SEATS).where(SEATS.c.table_id.in_(ids)).order_by(SEATS.c.seat)
            ).mappings():
                seats[r["table_id"]].append(
                    StoredSeat(
                        r["seat"],
                        r["kind"],
                        r["name"],
                        r["bot"],
                        r["level"],
                        r["token_hash"],
                        r["joined_at"],
                    )
                )
            played: dict[str, tuple[int, int]] = {}
            for h in conn.execute(
                select(
                    HANDS.c.table_id,
                    func.count(HANDS.c.record),
                    func.max(case((HANDS.c.started_at.is_not(None), HANDS.c.number), else_=0)),
                )
                .where(HANDS.c.table_id.in_(ids))
                .group_by(HANDS.c.table_id)
            ):
                played[h[0]] = (int(h[1] or 0), int(h[2] or 0))
        return [
            TableSummary(
                id=r[0],
                name=r[1],
                created_at=r[2],
                config=json.loads(r[3]),
                status=r[4],
                seats=seats[r[0]],
                hands_played=played.get(r[0], (0, 0))[0],
                hand=played.get(r[0], (0, 0))[1],
            )
            for r in rows
        ]

    def load_table(self, table_id: str) -> StoredTable | None:
        """Everything stored about one table, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(select(TABLES).where(TABLES.c.id == table_id)).mappings().first()
            if row is None:
                return None
            seats = [
                StoredSeat(
                    seat=r["seat"],
                    kind=r["kind"],
                    name=r["name"],
                    bot=r["bot"],
                    level=r["level"],
                    token_hash=r["token_hash"],
                    joined_at=r["joined_at"],
                )
                for r in conn.execute(
                    select(SEATS).where(SEATS.c.table_id == table_id).order_by(SEATS.c.seat)
                ).mappings()
            ]
            hands = {
                r["number"]: StoredHand(
                    number=r["number"],
                    seed=r["seed"],
                    salt=r["salt"],
                    commitment=r["commitment"],
                    committed_at=r["committed_at"],
                    started_at=r["started_at"],
                    finished_at=r["finished_at"],
                    record=json.loads(r["record"]) if r["record"] else None,
                    contributions=(json.loads(r["contributions"]) if r["contributions"] else None),
                )
                for r in conn.execute(
                    select(HANDS).where(HANDS.c.table_id == table_id).order_by(HANDS.c.number)
                ).mappings()
            }
            for r in conn.execute(
                select(ACTIONS.c.hand, ACTIONS.c.seq, ACTIONS.c.data)
                .where(ACTIONS.c.table_id == table_id)
                .order_by(ACTIONS.c.hand, ACTIONS.c.seq)
            ):
                hand = hands.get(r[0])
                if hand is not None:
                    hand.actions.append(json.loads(r[2]))
        return StoredTable(
            id=row["id"],
            name=row["name"],
            created_at=row["created_at"],
            config=json.loads(row["config"]),
            join_code_hash=row["join_code_hash"],
            status=row["status"],
            session_seed=row["session_seed"],
            start_button=row["start_button"],
            started_at=row["started_at"],
            seats=seats,
            hands=[hands[k] for k in sorted(hands)],
            live=json.loads(row["live"]) if row["live"] else {},
        )

    def records(self, table_id: str, hand: int | None = None) -> list[dict[str, Any]]:
        """The history lines of the finished hands of a table, in order."""
        stmt = (
            select(HANDS.c.record)
            .where(HANDS.c.table_id == table_id, HANDS.c.record.is_not(None))
            .order_by(HANDS.c.number)
        )
        if hand is not None:
            stmt = stmt.where(HANDS.c.number == hand)
        with self.engine.connect() as conn:
            return [json.loads(r[0]) for r in conn.execute(stmt)]


_orjson: Any
try:  # orjson, when installed, serialises several times faster than the json module
    _orjson = importlib.import_module("orjson")
except ImportError:  # pragma: no cover - depends on the installation
    _orjson = None


def compact_json(data: Any) -> str:
    """Compact JSON text (orjson when installed; json for what orjson refuses, such as
    integers beyond 64 bits)."""
    if _orjson is not None:
        try:
            return str(_orjson.dumps(data).decode())
        except TypeError:
            pass
    return json.dumps(data, separators=(",", ":"))


def _contributions_json(contributions: dict[str, str] | None) -> str | None:
    return None if contributions is None else json.dumps(contributions, sort_keys=True)


_SEED_MARK = "\x00seed"


def _compact_record(record: dict[str, Any]) -> str:
    """A hand-history line as compact JSON.

    The session block's seed is a 128-bit integer, which orjson refuses: it is written
    as a marker and put back as digits, so the rest of the (large) line is still
    serialised by orjson.
    """
    session = record.get("session")
    seed = session.get("seed") if isinstance(session, dict) else None
    if (
        _orjson is not None
        and isinstance(session, dict)
        and type(seed) is int
        and not -(2**63) <= seed < 2**64
    ):
        try:
            text: str = _orjson.dumps(
                {**record, "session": {**session, "seed": _SEED_MARK}}
            ).decode()
        except TypeError:
            return compact_json(record)
        mark = _orjson.dumps(_SEED_MARK).decode()
        if text.count(mark) == 1:
            return text.replace(mark, str(seed), 1)
    return compact_json(record)
