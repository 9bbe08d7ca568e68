"""The database engines of the store: SQLite's connection settings and its WAL
checkpoints in a background thread, PostgreSQL's pool (moved out of :mod:`.db`)."""

from __future__ import annotations

import threading
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.pool import ConnectionPoolEntry

__all__ = ["Checkpointer", "make_engine"]


def sqlite_pragmas(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
    cur = dbapi_connection.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=5000")
    # Checkpoints (which fsync) run in the store's background thread, not in commits.
    cur.execute("PRAGMA wal_autocheckpoint=0")
    cur.close()


class Checkpointer(threading.Thread):
    """Checkpoints an SQLite WAL every ``interval`` seconds from its own connection.

    Commits then only append to the WAL (no fsync on the event loop's thread); a passive
    checkpoint copies committed pages into the database file without blocking writers.
    """

    def __init__(self, engine: Engine, interval: float = 1.0) -> None:
        super().__init__(name="sqlite-checkpoint", daemon=True)
        self.engine = engine
        self.interval = interval
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(self.interval):
            self.checkpoint("PASSIVE")

    def checkpoint(self, mode: str) -> None:
        try:
            with self.engine.connect() as conn:
                conn.exec_driver_sql(f"PRAGMA wal_checkpoint({mode})")
        except Exception:  # a busy database or a closing store: try again later
            pass

    def stop(self) -> None:
        self.stopping.set()
        if self.is_alive():
            self.join(5)
        self.checkpoint("TRUNCATE")


def make_engine(url: str) -> Engine:
    """The engine of a database URL (SQLite: usable from any thread, WAL)."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True)
