"""One owner per table, enforced by the database (docs/server.md "Processes").

Two real ``chinese-poker serve`` processes share one database (an SQLite file, or
PostgreSQL when ``CHINESE_POKER_TEST_POSTGRES_URL`` names one): a table created on A and
asked for through B is never loaded by B (its clients are sent to A); A paused with
SIGSTOP past its lease is taken over by B, and once A runs again the database refuses
its writes and it steps down; A killed with SIGKILL is taken over by B on the next
request. In each, every acknowledged action is stored exactly once. The fencing itself
is also checked on two stores in one process, where nothing but the database refuses.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx2
import pytest
from websockets.sync.client import ClientConnection, connect

from _helpers import random_action
from chinese_poker.server.commit import GroupCommit, Step
from chinese_poker.server.db import LeaseLost, NewHand, Owner, Store, StoredSeat
from chinese_poker.server.leases import Lease
from chinese_poker.server.table_ownership import handed_over, other_process_address
from test_server_restart import Server as ServeProcess
from test_server_restart import own_postgres_database, recv, recv_state

Msg = dict[str, Any]


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An SQLite file, or a PostgreSQL database of its own on the server that
    ``CHINESE_POKER_TEST_POSTGRES_URL`` names: every process on a database takes over the
    tables whose holder stopped, so a shared one would let these servers take over the
    tables of another test running at the same time."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'shared.db'}"
        return
    with own_postgres_database("cp_leases") as url:
        yield url


class Server(ServeProcess):
    """``chinese-poker serve`` in a subprocess (its own port), which the test may pause."""

    def __init__(self, database_url: str, log: Path, lease: float = 5.0) -> None:
        self.log_path = log
        super().__init__(database_url, log, "--lease-seconds", str(lease))

    def signal(self, sig: signal.Signals) -> None:
        self.proc.send_signal(sig)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)  # a stopped process cannot end
        super().stop()

    def logged(self) -> str:
        if not self.log.closed:
            self.log.flush()
        return self.log_path.read_text()


def open_seat(stack: ExitStack, url: str, table_id: str, token: str) -> ClientConnection:
    ws = stack.enter_context(connect(f"{url}/ws/tables/{table_id}?role=seat"))
    ws.send(json.dumps({"type": "auth", "token": token}))
    return ws


def welcomed(ws: ClientConnection) -> Msg:
    assert recv(ws)["type"] == "welcome"
    return recv_state(ws)


class Players:
    """Two people at a Pineapple table: their sockets, views and what was acknowledged
    (the sender's ``state`` carrying the ``ack`` of its action's id)."""

    def __init__(self, tokens: dict[int, str], rng: random.Random) -> None:
        self.tokens = tokens
        self.rng = rng
        self.socks: dict[int, ClientConnection] = {}
        self.states: dict[int, Msg] = {}
        self.sent: dict[int, Msg] = {}
        self.acked: list[Msg] = []
        self.next_id = 0

    def sit(self, stack: ExitStack, url: str, table_id: str) -> None:
        self.socks = {s: open_seat(stack, url, table_id, t) for s, t in self.tokens.items()}
        self.states = {s: welcomed(ws) for s, ws in self.socks.items()}

    def send(self) -> int:
        """The seat to act sends a random legal action; returns its id."""
        seat = self.states[0]["view"]["to_act"][0]
        action = random_action(self.states[seat]["view"], self.rng)
        self.next_id += 1
        self.sent[self.next_id] = {**action, "seat": seat}
        self.socks[seat].send(json.dumps({"type": "action", "id": self.next_id, "action": action}))
        return self.next_id

    def play(self) -> None:
        """One action, acknowledged, seen by both."""
        ref = self.send()
        for s in self.socks:
            self.states[s] = recv_state(self.socks[s])
            if self.states[s].get("ack") == ref:
                self.acked.append(self.sent[ref])
        assert self.acked and self.acked[-1] is self.sent[ref], "not acknowledged"


def stored_actions(url: str, table_id: str) -> list[Msg]:
    store = Store(url)
    try:
        stored = store.load_table(table_id)
    finally:
        store.close()
    assert stored is not None
    return [a for h in stored.hands for a in h.actions if not a.get("auto")]


def lease_address(url: str, table_id: str) -> str | None:
    store = Store(url)
    try:
        lease = store.lease(table_id)
    finally:
        store.close()
    return None if lease is None or lease.owner is None else lease.address


def same_action(sent: Msg, stored: Msg) -> bool:
    return all(stored.get(k) == v for k, v in sent.items())


def check_no_loss_no_double(stored: list[Msg], acked: list[Msg], unsure: list[Msg]) -> None:
    """Every acknowledged action stored once, in order; nothing else stored but actions
    sent without an answer (``unsure``: stored or not, never twice). An acknowledged
    action comes first where both fit (an unanswered one may be the very same move)."""
    versions = [(a["seat"], a["version"]) for a in stored]
    assert len(set(versions)) == len(versions), f"an action stored twice: {versions}"
    waiting, maybe = list(acked), list(unsure)
    for a in stored:
        if waiting and same_action(waiting[0], a):
            waiting.pop(0)
            continue
        match = [u for u in maybe if same_action(u, a)]
        assert match, f"stored but never acknowledged: {a} (stored {stored}, acked {acked})"
        maybe.remove(match[0])
    assert not waiting, f"acknowledged but not stored: {waiting} (stored {stored})"


def open_table(server: Server) -> tuple[str, dict[int, str], str]:
    made = httpx2.post(
        server.url + "/api/tables",
        json={
            "preset": "pineapple",
            "next_hand_delay": 30,
            "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human"}],
        },
    ).json()
    return made["table"]["id"], {0: made["token"]}, made["join_code"]


def full_table(server: Server, rng: random.Random) -> tuple[str, Players]:
    """A table opened on ``server`` with both seats taken there."""
    tid, tokens, code = open_table(server)
    r = httpx2.post(f"{server.url}/api/tables/{tid}/join", json={"code": code, "name": "Bob"})
    assert r.status_code == 200, r.text
    return tid, Players({**tokens, 1: r.json()["token"]}, rng)


@pytest.mark.slow
def test_a_table_of_one_process_is_never_loaded_by_another(
    database_url: str, tmp_path: Path
) -> None:
    """Created on A, asked for through B: B sends the join and the socket to A (the
    ``moved`` message names A's address) and never plays a copy; the hand plays on A."""
    a = Server(database_url, tmp_path / "a.log")
    b = Server(database_url, tmp_path / "b.log")
    try:
        tid, tokens, code = open_table(a)
        r = httpx2.post(f"{b.url}/api/tables/{tid}/join", json={"code": code, "name": "Bob"})
        assert r.status_code == 409, r.text
        assert r.json()["moved"] == {
            "type": "moved",
            "table_id": tid,
            "to": a.url,
            "message": f"table {tid} is played by the server at {a.url}; connect there",
        }
        assert a.url in r.json()["detail"]
        with connect(f"{b.ws}/ws/tables/{tid}") as ws:  # a spectator
            moved = recv(ws)
            assert moved["type"] == "moved" and moved["to"] == a.url
            with pytest.raises(Exception) as closed:
                ws.recv(timeout=5)
            assert "4409" in str(closed.value)
        with connect(f"{b.ws}/ws/tables/{tid}?role=seat") as ws:  # told before its auth
            assert recv(ws)["type"] == "moved"
        assert httpx2.get(f"{b.url}/api/tables/{tid}/ledger").status_code == 409
        # The client follows: the join and the sockets go to A, and the hand plays.
        r = httpx2.post(f"{a.url}/api/tables/{tid}/join", json={"code": code, "name": "Bob"})
        assert r.status_code == 200, r.text
        tokens[1] = r.json()["token"]
        players = Players(tokens, random.Random(7))
        with ExitStack() as stack:
            players.sit(stack, a.ws, tid)
            while players.states[0]["view"]["phase"] != "showdown":
                players.play()
            end = recv(players.socks[0])
            while end["type"] != "hand_end":
                end = recv(players.socks[0])
            assert sum(end["totals"].values()) == 0
        assert lease_address(database_url, tid) == a.url
        check_no_loss_no_double(stored_actions(database_url, tid), players.acked, [])
        assert len(players.acked) == 10
    finally:
        a.stop()
        b.stop()


@pytest.mark.slow
def test_a_paused_owner_is_taken_over_and_its_late_writes_are_refused(
    database_url: str, tmp_path: Path
) -> None:
    """A is stopped (SIGSTOP) right after an action was sent to it; its lease runs out
    and B takes the table over by itself (no request needed); play goes on at B. A
    continued (SIGCONT) believes it still plays the table: the database refuses its
    write, it steps down and its sockets are sent to B. Every acknowledged action is
    stored once; the one sent to the paused A is stored at most once."""
    lease = 1.5
    a = Server(database_url, tmp_path / "a.log", lease)
    b = Server(database_url, tmp_path / "b.log", lease)
    try:
        tid, players = full_table(a, random.Random(11))
        with ExitStack() as on_a:
            players.sit(on_a, a.ws, tid)
            players.play()
            players.play()
            late = players.send()
            a.signal(signal.SIGSTOP)
            stopped = time.monotonic()
            while lease_address(database_url, tid) != b.url:
                assert time.monotonic() - stopped < 4 * lease, "B did not take the table over"
                time.sleep(0.1)
            taken = time.monotonic() - stopped
            old = players.socks
            with ExitStack() as on_b:
                players.sit(on_b, b.ws, tid)
                players.play()
                players.play()
                a.signal(signal.SIGCONT)
                # A's sockets hear that the table moved to B (and no state of A's own).
                for ws in old.values():
                    seen = [recv(ws)]
                    while seen[-1]["type"] != "moved":
                        seen.append(recv(ws))
                    assert seen[-1]["to"] == b.url
                    for m in seen[:-1]:
                        if m["type"] == "state" and m.get("ack") == late:
                            players.acked.insert(2, players.sent[late])
                players.play()
        assert taken < 3 * lease
        stored = stored_actions(database_url, tid)
        check_no_loss_no_double(stored, players.acked, [players.sent[late]])
        assert len(stored) >= 5
        assert lease_address(database_url, tid) == b.url
        deadline = time.monotonic() + 10
        while "stepped down" not in a.logged():
            assert time.monotonic() < deadline, a.logged()
            time.sleep(0.1)
        assert a.proc.poll() is None  # A serves on; only this table left it
        assert httpx2.get(f"{a.url}/api/tables/{tid}").json()["moved"]["to"] == b.url
    finally:
        a.stop()
        b.stop()


@pytest.mark.slow
def test_a_killed_owner_is_taken_over_on_the_next_request(
    database_url: str, tmp_path: Path
) -> None:
    """A killed with SIGKILL mid-hand, right after an action was sent: the next request
    for the table at B takes it over at once (A's pid is gone; its lease need not run
    out) and play goes on with nothing acknowledged lost."""
    a = Server(database_url, tmp_path / "a.log")
    b = Server(database_url, tmp_path / "b.log")
    try:
        tid, players = full_table(a, random.Random(5))
        assert httpx2.get(f"{b.url}/api/tables/{tid}").status_code == 409  # A is alive
        with ExitStack() as stack:
            players.sit(stack, a.ws, tid)
            players.play()
            players.play()
            players.play()
            late = players.send()
            a.kill()
        killed = time.monotonic()
        info = httpx2.get(f"{b.url}/api/tables/{tid}")
        assert info.status_code == 200, info.text
        assert time.monotonic() - killed < 5.0  # within the lease time
        assert lease_address(database_url, tid) == b.url
        with ExitStack() as stack:
            players.sit(stack, b.ws, tid)
            players.play()
            players.play()
        stored = stored_actions(database_url, tid)
        check_no_loss_no_double(stored, players.acked, [players.sent[late]])
    finally:
        a.stop()
        b.stop()


# --------------------------------------------------------------------------- in one process


class Table:
    """A writer of the group commit that records what happened to its steps."""

    def __init__(self, table_id: str, steps: list[Step]) -> None:
        self.id = table_id
        self.steps = steps
        self.outcome = ""

    def take_steps(self) -> list[Step]:
        steps, self.steps = self.steps, []
        return steps

    def committed(self, steps: list[Step]) -> None:
        self.outcome = "committed"

    def write_failed(self, steps: list[Step]) -> None:
        self.outcome = "failed"

    def moved(self, steps: list[Step]) -> None:
        self.outcome = "moved"


def new_table(store: Store, table_id: str) -> None:
    store.create_table(
        table_id=table_id,
        name=table_id,
        config={},
        join_code_hash="0" * 64,
        session_seed="1",
        start_button=0,
        seats=[StoredSeat(0, "human", None, None, None, None, None)],
        status="waiting",
        first=NewHand(1, "00", "00", "0" * 64),
    )


def test_the_database_refuses_the_writes_of_a_process_that_lost_the_lease(
    database_url: str,
) -> None:
    """Store A opens two tables; B may not take them while A's lease runs; once it has
    run out B takes one (its fencing number goes up). A, which has not noticed, writes
    both in one group commit: the database refuses the lost table's rows (that table
    steps down, nothing of it stored) and stores the other's; A's renewal names it."""
    a = Store(database_url, owner=Owner.here("http://a"), lease_seconds=0.5)
    b = Store(database_url, owner=Owner.here("http://b"), lease_seconds=0.5)
    a.migrate()
    ids = [f"t-lease{os.getpid() % 10000}{n}" for n in (1, 2)]
    try:
        for table_id in ids:
            new_table(a, table_id)
        held = b.acquire(ids[0])
        assert held is not None and held.address == "http://a" and held.fence == 1
        assert ids[0] not in b.fences
        time.sleep(0.7)  # A's lease runs out (A does not renew here)
        taken = b.acquire(ids[0])
        assert taken is not None and taken.address == "http://b" and taken.fence == 2
        assert a.fences == {ids[0]: 1, ids[1]: 1}  # A has not noticed
        tables = [
            Table(t, [Step(rows=Store.action_rows(t, 1, 0, [{"type": "x", "n": i}]))])
            for i, t in enumerate(ids)
        ]

        async def commit_both() -> None:
            commits = GroupCommit(a)
            for table in tables:
                commits.dirty(table)
            commits.flush()

        asyncio.run(commit_both())
        assert [t.outcome for t in tables] == ["moved", "committed"]
        loaded = [a.load_table(t) for t in ids]
        assert [len(s.hands[0].actions) for s in loaded if s is not None] == [0, 1]
        with pytest.raises(LeaseLost, match=ids[0]):
            a.add_actions(ids[0], 1, 0, [{"type": "x"}])
        assert a.renew() == []  # A no longer counts ids[0]; it renews ids[1]
        assert b.renew() == []
        with pytest.raises(LeaseLost):
            b.set_status(ids[1], "finished")  # B never took ids[1]
        b.release([ids[0]])
        again = a.acquire(ids[0])  # free: taken at once, with a higher fencing number
        assert again is not None and again.address == "http://a" and again.fence == 3
    finally:
        for table_id in ids:
            a.delete_table(table_id)
        a.close()
        b.close()


def test_a_lease_time_that_cannot_work_is_refused_in_one_line() -> None:
    from chinese_poker.server.app import create_app

    with pytest.raises(ValueError, match=r"renew_seconds \(5\.0\) must be positive and less"):
        create_app("sqlite:///:memory:", lease_seconds=5.0, renew_seconds=5.0)
    with pytest.raises(ValueError, match="lease_seconds must be positive, not 0"):
        Store("sqlite:///:memory:", lease_seconds=0)
    done = subprocess.run(
        [sys.executable, "-m", "chinese_poker.cli", "serve", "--lease-seconds", "0.1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert "--lease-seconds" in line and "0.1" in line, line


@contextlib.contextmanager
def two_stores(database_url: str, name: str, lease: float) -> Iterator[tuple[Store, Store, str]]:
    """Stores A and B (two processes, at http://a and http://b) and a table id of this
    test; the table, if made, is deleted afterwards."""
    a = Store(database_url, owner=Owner.here("http://a"), lease_seconds=lease)
    b = Store(database_url, owner=Owner.here("http://b"), lease_seconds=lease)
    a.migrate()
    table_id = f"t-{name}{os.getpid() % 10000}"
    try:
        yield a, b, table_id
    finally:
        a.delete_table(table_id)
        a.close()
        b.close()


def test_a_takeover_reads_the_lease_once_and_names_the_lease_it_replaced(
    database_url: str,
) -> None:
    """B takes a table A handed over (one path with a plain release: A's name kept,
    expired at HANDED_OVER): B reads the lease once (the takeover is counted from
    ``previous``, not from another read), and the lease it is given is as stored."""
    with two_stores(database_url, "once", 2.0) as (a, b, table_id):
        new_table(a, table_id)
        a.release([table_id], hand_over=True)
        given = a.lease(table_id)
        assert given is not None and handed_over(given) and given.owner == a.owner.id  # type: ignore[union-attr]
        assert table_id not in a.fences
        reads: list[str] = []
        read = b.lease

        def counted(tid: str) -> Lease | None:
            reads.append(tid)
            return read(tid)

        b.lease = counted  # type: ignore[method-assign]
        taken = b.acquire(table_id)
        assert reads == [table_id]
        assert taken is not None and taken.previous is not None and taken.fence == 2
        assert dataclasses.replace(taken.previous, now=given.now) == given
        stored = read(table_id)
        assert stored is not None
        assert (taken.owner, taken.address, taken.fence) == (stored.owner, "http://b", 2)
        assert taken.expires_at == pytest.approx(stored.expires_at)
        assert taken.expires_at - taken.now == pytest.approx(2.0)
        again = b.acquire(table_id)  # already B's: nothing taken from anybody
        assert again is not None and again.previous is None


def test_the_address_handed_to_is_read_on_the_databases_clock(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process stopping names another live one to its clients: which leases are live
    is judged on the database's clock, so a machine whose clock is an hour ahead still
    finds B (it found nobody when it compared with its own clock)."""
    with two_stores(database_url, "clock", 5.0) as (a, b, table_id):
        new_table(b, table_id)
        local = time.time
        with monkeypatch.context() as patch:
            patch.setattr(time, "time", lambda: local() + 3600)
            assert other_process_address(a) == "http://b"
            assert other_process_address(b) is None  # itself it does not name
