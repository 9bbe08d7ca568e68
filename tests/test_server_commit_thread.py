"""The group commit's transaction off the event loop (server/commit.py, issue 38).

The database is made slow deterministically: the batch's ``write_batch`` waits on a
gate the test opens. While it waits, the event loop must answer another table's ping;
a reply of the writing table waits behind its write; steps queued meanwhile join the
next batch; a table whose lease moved on steps down while the others commit; a failed
write is told to its table only; ``flush`` waits for the commit in flight.
"""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text as sql_text
from starlette.testclient import WebSocketTestSession

from _helpers import random_action
from chinese_poker.server.app import create_app
from chinese_poker.server.commit import GroupCommit, Step
from chinese_poker.server.db import Owner, Store
from test_server_leases import new_table
from test_server_restart import database_url

__all__ = ["database_url"]  # the fixture: an SQLite file, or a PostgreSQL database of its own

Msg = dict[str, Any]
GATE_SECONDS = 60.0
"""How long a held write waits for the test at most: on code that blocks the event loop
the test fails after this, instead of hanging."""


class Gate:
    """Holds the next ``write_batch`` calls of a store until opened (from any thread)."""

    def __init__(self, store: Store) -> None:
        self.entered = threading.Event()
        self.opened = threading.Event()
        self.held: list[bool] = []
        """Per held write: True if the test opened the gate, False if it gave up."""
        self.real = store.write_batch

        def held_write(*args: Any, **kwargs: Any) -> None:
            if not self.opened.is_set():
                self.entered.set()
                self.held.append(self.opened.wait(GATE_SECONDS))
            self.real(*args, **kwargs)

        store.write_batch = held_write  # type: ignore[method-assign]

    def open(self) -> None:
        self.opened.set()


def recv(ws: WebSocketTestSession) -> Msg:
    data: Msg = ws.receive_json()
    return data


def until(ws: WebSocketTestSession, found: Callable[[Msg], bool]) -> list[Msg]:
    """The messages up to and including the first ``found`` one."""
    seen = [recv(ws)]
    while not found(seen[-1]):
        seen.append(recv(ws))
    return seen


def create(client: TestClient, seats: list[Msg]) -> Msg:
    r = client.post("/api/tables", json={"seats": seats, "bot_delay": 0, "next_hand_delay": 0})
    assert r.status_code == 201, r.text
    made: Msg = r.json()
    return made


def test_the_loop_answers_while_a_commit_waits_on_the_database(database_url: str) -> None:
    """Ann's action is being stored and the database does not answer. Meanwhile another
    table's ping is answered (the loop is free), Ann's own ping waits behind her write
    (the order of replies per table), and once the database answers Ann is shown her
    action, then the pong; the action is stored once."""
    app = create_app(database_url, hint_processes=False)
    with TestClient(app) as client:
        commits: GroupCommit = app.state.manager.commits
        commits.off_loop = True  # SQLite keeps it on the loop by default
        made = create(
            client,
            [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random", "name": "Bo"}],
        )
        other = create(
            client,
            [{"kind": "human", "name": "Cy"}, {"kind": "bot", "bot": "random", "name": "Bo"}],
        )
        tid = made["table"]["id"]
        with (
            client.websocket_connect(f"/ws/tables/{tid}?role=seat") as ann,
            client.websocket_connect(f"/ws/tables/{other['table']['id']}?role=seat") as cy,
        ):
            ann.send_json({"type": "auth", "token": made["token"]})
            cy.send_json({"type": "auth", "token": other["token"]})
            state = until(ann, lambda m: m["type"] == "state" and 0 in m["view"]["to_act"])[-1]
            until(cy, lambda m: m["type"] == "state")
            live = app.state.manager.tables[tid]
            gate = Gate(app.state.store)
            try:
                action = random_action(state["view"], random.Random(3), seat=True)
                ann.send_json({"type": "action", "id": "a", "action": action})
                assert gate.entered.wait(GATE_SECONDS)
                ann.send_json({"type": "ping", "id": "ann-ping"})
                cy.send_json({"type": "ping", "id": "cy-ping"})
                until(cy, lambda m: m["type"] == "pong")
                # Ann's ping is queued behind her write (polled: the loop's own thread
                # queues it; a bounded wait, not a measure of speed).
                deadline = time.monotonic() + GATE_SECONDS
                while len(live.ownership.steps) < 2 and time.monotonic() < deadline:
                    time.sleep(0.01)
                assert len(live.ownership.steps) >= 2
            finally:
                gate.open()
            seen = until(ann, lambda m: m["type"] == "pong")
            acked = [i for i, m in enumerate(seen) if m["type"] == "state" and m["ack"] == "a"]
            assert acked and acked[0] < len(seen) - 1, seen
            assert gate.held == [True], "the write was held until the loop had answered"
    store = Store(database_url)
    try:
        stored = store.load_table(tid)
        assert stored is not None
        assert sum(1 for a in stored.hands[0].actions if a.get("seat") == 0) >= 1
    finally:
        store.close()


class Table:
    """A writer of the group commit that records what happened to its steps."""

    def __init__(self, table_id: str, steps: list[Step], log: list[str]) -> None:
        self.id = table_id
        self.steps = steps
        self.log = log

    def take_steps(self) -> list[Step]:
        steps, self.steps = self.steps, []
        return steps

    def committed(self, steps: list[Step]) -> None:
        self.log.append(f"{self.id} committed {len(steps)}")

    def write_failed(self, steps: list[Step]) -> None:
        self.log.append(f"{self.id} failed")

    def moved(self, steps: list[Step]) -> None:
        self.log.append(f"{self.id} moved")


def _row_step(table_id: str, n: int) -> Step:
    return Step(rows=Store.action_rows(table_id, 1, n, [{"type": "x", "n": n}]))


@pytest.fixture
def owned(database_url: str) -> Iterator[tuple[Store, list[str]]]:
    """A store that owns three new tables (their leases taken)."""
    store = Store(database_url, owner=Owner.here("http://a"))
    store.migrate()
    ids = [f"t-commit{os.getpid() % 10000}{n}" for n in range(3)]
    try:
        for table_id in ids:
            new_table(store, table_id)
        yield store, ids
    finally:
        for table_id in ids:
            store.delete_table(table_id)
        store.close()


def _stored(store: Store, table_id: str) -> int:
    loaded = store.load_table(table_id)
    assert loaded is not None
    return len(loaded.hands[0].actions)


def test_steps_queued_while_a_commit_runs_join_the_next_batch(
    owned: tuple[Store, list[str]],
) -> None:
    """One transaction at a time: a table dirty while one runs waits for it, and its
    writes go in the next; a table whose lease moved on steps down while the others
    commit; ``settled()`` resolves once the next batch has run."""
    store, (a, b, c) = owned
    with store.engine.begin() as conn:  # another process took c
        conn.execute(
            sql_text("UPDATE table_leases SET fence = fence + 1 WHERE table_id = :t"), {"t": c}
        )
    log: list[str] = []
    gate = Gate(store)

    async def run() -> None:
        commits = GroupCommit(store, off_loop=True)
        commits.dirty(Table(a, [_row_step(a, 0)], log))
        await asyncio.sleep(0)  # the tick starts the first batch in the thread
        await asyncio.to_thread(gate.entered.wait, GATE_SECONDS)
        assert commits.pending
        commits.dirty(Table(b, [_row_step(b, 0)], log))
        commits.dirty(Table(c, [_row_step(c, 0)], log))
        settled = commits.settled()
        await asyncio.sleep(0)
        assert log == []  # the first batch still waits on the database
        gate.open()
        await settled
        assert not commits.pending

    asyncio.run(run())
    assert log == [f"{a} committed 1", f"{b} committed 1", f"{c} moved"]
    assert gate.held == [True]
    assert [_stored(store, t) for t in (a, b, c)] == [1, 1, 0]
    assert c not in store.fences and a in store.fences


def test_a_flush_waits_for_the_commit_in_flight_then_commits_the_rest(
    owned: tuple[Store, list[str]],
) -> None:
    """A forced commit (a read that must see stored state) while a batch is in flight:
    that batch is reported first, then the waiting writes are stored; nothing is left."""
    store, (a, b, _c) = owned
    log: list[str] = []
    gate = Gate(store)

    def open_once_held() -> None:
        if gate.entered.wait(GATE_SECONDS):
            gate.open()

    threading.Thread(target=open_once_held).start()

    async def run() -> None:
        commits = GroupCommit(store, off_loop=True)
        commits.dirty(Table(a, [_row_step(a, 0)], log))
        await asyncio.sleep(0)
        commits.dirty(Table(b, [_row_step(b, 0), _row_step(b, 1)], log))
        commits.flush()
        assert not commits.pending
        assert log == [f"{a} committed 1", f"{b} committed 2"]

    asyncio.run(run())
    assert [_stored(store, t) for t in (a, b)] == [1, 2]


def test_a_write_that_fails_in_the_thread_is_told_to_its_table_only(
    owned: tuple[Store, list[str]],
) -> None:
    """The batch fails; each table is tried on its own: the one the database refuses is
    told (``write_failed``, the server answers its sender ``server_error``), the other's
    writes are stored and shown."""
    store, (a, b, _c) = owned
    real = store.write_batch

    def refuse_b(conn: Any, rows: list[Any], *args: Any) -> None:
        if any(r[0] == b for r in rows):
            raise OSError("disk full")
        real(conn, rows, *args)

    store.write_batch = refuse_b  # type: ignore[method-assign,assignment]
    log: list[str] = []

    async def run() -> None:
        commits = GroupCommit(store, off_loop=True)
        commits.dirty(Table(a, [_row_step(a, 0)], log))
        commits.dirty(Table(b, [_row_step(b, 0)], log))
        settled = commits.settled()
        await settled

    asyncio.run(run())
    assert log == [f"{a} committed 1", f"{b} failed"]
    assert [_stored(store, t) for t in (a, b)] == [1, 0]


class KeepingTable(Table):
    """Keeps its steps until told how their transaction went, as a live table does."""

    def __init__(self, table_id: str, steps: list[Step], log: list[str]) -> None:
        super().__init__(table_id, steps, log)
        self.taken = 0
        self.then: Callable[[], None] | None = None

    def take_steps(self) -> list[Step]:
        self.taken = len(self.steps)
        return self.steps[:]

    def committed(self, steps: list[Step]) -> None:
        del self.steps[: self.taken]
        super().committed(steps)
        if self.then is not None:
            self.then()


@pytest.mark.parametrize("off_loop", [False, True])
def test_a_commit_forced_while_a_batch_is_told_leaves_its_untold_tables(
    owned: tuple[Store, list[str]], off_loop: bool
) -> None:
    """A's stored step runs a callback that marks B dirty and forces a commit (a read)
    before B is told of the same batch: B's step is stored once, not taken again."""
    store, (a, b, _c) = owned
    log: list[str] = []

    async def run() -> None:
        commits = GroupCommit(store, off_loop=off_loop)
        first = KeepingTable(a, [_row_step(a, 0)], log)
        second = KeepingTable(b, [_row_step(b, 0)], log)

        def read_now() -> None:
            commits.dirty(second)
            commits.flush()

        first.then = read_now
        commits.dirty(first)
        commits.dirty(second)
        commits.flush()
        while commits.pending:
            await commits.settled()

    asyncio.run(run())
    assert log[:2] == [f"{a} committed 1", f"{b} committed 1"], log
    assert set(log[2:]) <= {f"{b} committed 0"}, log
    assert [_stored(store, t) for t in (a, b)] == [1, 1]
