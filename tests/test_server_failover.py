"""Failover with nothing lost (issue 38 item 3; docs/server.md "Processes").

Three real ``chinese-poker serve`` processes share one SQLite file, with a lease of 2 s.
Two people and a bot play a table with decision clocks, hand after hand:

* the process that owns the table is killed (SIGKILL) mid-hand, right after an action
  was sent to it, 20 times in a row (each time started again on a new port); the people
  reconnect to any live process (following ``moved``), the table's next move is applied
  within 5 s of the kill, and every acknowledged action is stored exactly once;
* every process in turn is told to stop (SIGTERM) and started again while the table
  plays: it hands the table over at once and nothing is lost.
"""

from __future__ import annotations

import contextlib
import json
import random
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from _helpers import bench_module, random_action
from chinese_poker.server import metrics as metrics_module
from chinese_poker.server.app import create_app, hand_over
from chinese_poker.server.db import Store
from chinese_poker.server.metrics import ProcessCounts
from chinese_poker.server.table_ownership import handed_over
from test_server_leases import Server, lease_address, same_action

Msg = dict[str, Any]

LEASE = 2.0
KILLS = 20
RESUME_WITHIN = 5.0


class Cluster:
    """Server processes on one database; a stopped one is started again on a new port."""

    def __init__(self, database_url: str, logs: Path, size: int) -> None:
        self.database_url = database_url
        self.logs = logs
        self.started = 0
        self.servers = [self.start() for _ in range(size)]

    def start(self) -> Server:
        self.started += 1
        return Server(self.database_url, self.logs / f"serve-{self.started}.log", LEASE)

    def owner(self, table_id: str) -> Server:
        """The process whose lease the table is, waiting for one to take it."""
        deadline = time.monotonic() + 10
        while True:
            address = lease_address(self.database_url, table_id)
            for server in self.servers:
                if server.url == address:
                    return server
            assert time.monotonic() < deadline, f"nobody took {table_id} ({address})"
            time.sleep(0.05)

    def stop(self) -> None:
        for server in self.servers:
            server.stop()


class People:
    """Two people at a table with a bot: their sockets and the latest state each saw,
    what each had acknowledged, per hand, and what was sent without an answer."""

    def __init__(self, tokens: dict[int, str], rng: random.Random) -> None:
        self.tokens = tokens
        self.rng = rng
        self.socks: dict[int, ClientConnection] = {}
        self.states: dict[int, Msg] = {}
        self.acked: list[tuple[int, Msg]] = []
        self.unsure: list[tuple[int, Msg]] = []
        self.seats: set[tuple[int, int]] = set()
        """(hand, engine seat) of each person in each hand seen."""
        self.next_id = 0

    def sit(self, stack: ExitStack, servers: list[Server], table_id: str) -> None:
        """Each person connects to a live process at random and follows ``moved``."""
        for chair, token in self.tokens.items():
            url = self.rng.choice(servers).ws
            for _ in range(5):
                ws = stack.enter_context(connect(f"{url}/ws/tables/{table_id}?role=seat"))
                with contextlib.suppress(ConnectionClosed):  # "moved" may come first
                    ws.send(json.dumps({"type": "auth", "token": token}))
                first = json.loads(ws.recv(timeout=10))
                if first["type"] == "welcome":
                    break
                assert first["type"] == "moved" and first["to"], first
                url = "ws" + first["to"][4:]
            else:
                raise AssertionError("moved five times")
            self.socks[chair] = ws
            self.states[chair] = self._next_state(chair)

    def _seen(self, chair: int, message: Msg) -> None:
        if message["type"] == "state":
            self.states[chair] = message
            self.seats.add((message["hand"], message["view"]["seat"]))

    def _next_state(self, chair: int, timeout: float = 10) -> Msg:
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self.socks[chair].recv(timeout=deadline - time.monotonic()))
            self._seen(chair, message)
            if message["type"] == "state":
                return message

    def to_act(self) -> int | None:
        for chair, state in self.states.items():
            if state["view"].get("decisions"):
                return chair
        return None

    def send(self, chair: int) -> int:
        state = self.states[chair]
        action = random_action(state["view"], self.rng)
        self.next_id += 1
        sent = {**action, "seat": state["view"]["seat"], "id": self.next_id}
        self.unsure.append((state["hand"], sent))
        self.socks[chair].send(json.dumps({"type": "action", "id": self.next_id, "action": action}))
        return self.next_id

    def progress(self, timeout: float = 10) -> None:
        """Wait for the table's next applied move: a person's action acknowledged (one
        is sent if somebody is to act), or a state that another seat's move brought."""
        chair = self.to_act()
        ref = self.send(chair) if chair is not None else None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for c, ws in self.socks.items():
                try:
                    message = json.loads(ws.recv(timeout=0.02))
                except TimeoutError:
                    continue
                self._seen(c, message)
                if message["type"] == "error" and ref is not None and message["ref"] == ref:
                    self.unsure.pop()  # refused: nothing stored
                    return self.progress(deadline - time.monotonic())
                if message["type"] != "state":
                    continue
                if ref is None or message.get("ack") == ref:
                    if ref is not None:
                        self.acked.append(self.unsure.pop())
                    return
        raise AssertionError("the table made no move")


def stored_people_actions(url: str, table_id: str, seats: set[tuple[int, int]]) -> list[Msg]:
    """The stored actions of the people (the bot's left out), each with its hand."""
    store = Store(url)
    try:
        stored = store.load_table(table_id)
    finally:
        store.close()
    assert stored is not None
    return [
        {**a, "hand_no": h.number}
        for h in stored.hands
        for a in h.actions
        if not a.get("auto") and (h.number, a["seat"]) in seats
    ]


def check_nothing_lost_or_doubled(people: People, stored: list[Msg]) -> None:
    """Every acknowledged action stored once, in order; nothing else of the people's
    stored but actions sent without an answer (stored once or not at all)."""
    keys = [(a["hand_no"], a["seat"], a["version"]) for a in stored]
    assert len(set(keys)) == len(keys), f"an action stored twice: {keys}"
    waiting = [(hand, {k: v for k, v in a.items() if k != "id"}) for hand, a in people.acked]
    maybe = [(hand, {k: v for k, v in a.items() if k != "id"}) for hand, a in people.unsure]
    for a in stored:
        if waiting and waiting[0][0] == a["hand_no"] and same_action(waiting[0][1], a):
            waiting.pop(0)
            continue
        match = [u for u in maybe if u[0] == a["hand_no"] and same_action(u[1], a)]
        assert match, f"stored but never acknowledged: {a}"
        maybe.remove(match[0])
    assert not waiting, f"acknowledged but not stored: {waiting}"


def open_table(server: Server, rng: random.Random) -> tuple[str, People]:
    """Two people (both seated on ``server``) and a bot, with clocks, hand after hand;
    nobody who leaves is replaced by a stand-in (so every person's stored action is
    one the test sent)."""
    made = httpx2.post(
        server.url + "/api/tables",
        json={
            "preset": "pineapple",
            "hands": "continuous",
            "seats": [
                {"kind": "human", "name": "Ann"},
                {"kind": "human"},
                {"kind": "bot", "bot": "rules"},
            ],
            "time_limit": 60,
            "bot_delay": 0.05,
            "next_hand_delay": 0.2,
        },
    ).json()
    tid = made["table"]["id"]
    joined = httpx2.post(
        f"{server.url}/api/tables/{tid}/join", json={"code": made["join_code"], "name": "Bob"}
    )
    assert joined.status_code == 200, joined.text
    return tid, People({0: made["token"], 1: joined.json()["token"]}, rng)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    servers = Cluster(f"sqlite:///{tmp_path / 'shared.db'}", tmp_path, 3)
    try:
        yield servers
    finally:
        servers.stop()


def metrics(server: Server) -> Msg:
    counts: Msg = httpx2.get(server.url + "/api/metrics").json()["process"]
    return counts


@pytest.mark.slow
def test_killing_the_owner_mid_hand_20_times_loses_nothing(cluster: Cluster) -> None:
    """Kill -9 of the owner right after an action was sent to it, 20 times: the people
    reconnect anywhere, the next move is applied within 5 s, the process that took the
    table counts a takeover, and nothing acknowledged is lost or stored twice."""
    rng = random.Random(38)
    tid, people = open_table(cluster.servers[0], rng)
    resumed: list[float] = []
    starting: threading.Thread | None = None
    for _ in range(KILLS):
        owner = cluster.owner(tid)
        with ExitStack() as stack:
            people.sit(stack, [owner], tid)
            people.progress()
            chair = people.to_act()
            if chair is not None:
                people.send(chair)  # the kill comes right after it: stored or not
            owner.kill()
            killed = time.monotonic()
        cluster.servers.remove(owner)
        with ExitStack() as stack:
            people.sit(stack, cluster.servers, tid)
            people.progress(RESUME_WITHIN)
            resumed.append(time.monotonic() - killed)
        assert metrics(cluster.owner(tid))["takeovers"] >= 1
        if starting is not None:
            starting.join()
        # Started again meanwhile (a start takes seconds): two processes are up.
        starting = threading.Thread(target=lambda: cluster.servers.append(cluster.start()))
        starting.start()
    if starting is not None:
        starting.join()
    assert max(resumed) < RESUME_WITHIN, resumed
    stored = stored_people_actions(cluster.database_url, tid, people.seats)
    check_nothing_lost_or_doubled(people, stored)
    assert len(people.acked) >= KILLS


@pytest.mark.slow
def test_a_rolling_restart_of_every_process_loses_nothing(cluster: Cluster) -> None:
    """Each of the three processes in turn is told to stop (SIGTERM) and started again
    while two tables play: the stopping process hands its tables over (another takes
    each at once, counted as a handover taken), its sockets are closed (after a
    ``moved`` naming a live process, if one is known), and nothing is lost."""
    rng = random.Random(7)
    tables = [open_table(cluster.servers[i], rng) for i in range(2)]
    for server in list(cluster.servers):
        with ExitStack() as stack:
            for tid, people in tables:
                people.sit(stack, [cluster.owner(tid)], tid)
                people.progress()
            others = [s for s in cluster.servers if s is not server]
            taken_before = sum(metrics(s)["handovers_taken"] for s in others)
            owned = [(tid, p) for tid, p in tables if cluster.owner(tid) is server]
            assert metrics(server)["tables_owned"] == len(owned)
            server.signal(signal.SIGTERM)
            # uvicorn ends by raising the signal again, once it stopped cleanly.
            assert server.proc.wait(10) in (0, -signal.SIGTERM)
            cluster.servers.remove(server)
            for tid, people in owned:
                assert cluster.owner(tid) in others
                for ws in people.socks.values():
                    last: Msg = {}
                    with pytest.raises(ConnectionClosed):
                        while True:
                            last = json.loads(ws.recv(timeout=5))
                    if last.get("type") == "moved":
                        assert last["to"] in {s.url for s in others}
            taken = sum(metrics(s)["handovers_taken"] for s in others) - taken_before
            assert taken == len(owned)
        with ExitStack() as stack:
            for tid, people in tables:
                people.sit(stack, cluster.servers, tid)
                people.progress()
                people.progress()
        cluster.servers.append(cluster.start())
    for tid, people in tables:
        stored = stored_people_actions(cluster.database_url, tid, people.seats)
        check_nothing_lost_or_doubled(people, stored)
        assert len(people.acked) >= 3


def test_the_failover_bench_fails_loudly_when_it_measured_fewer_kills(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """bench/bench_failover.py: a kill whose next move never came is a shortfall, printed
    as ``bench_failover: FAILED: ...`` with exit status 1, not a shorter p99."""
    bench = bench_module("bench_failover")
    monkeypatch.setattr(bench, "run", lambda mode, kills, *_: [0.5] * (kills - (mode == "sweep")))
    assert bench.main(["--kills", "3"]) == 1
    out = capsys.readouterr()
    assert "reconnect  kills   3" in out.out
    assert out.err == "bench_failover: FAILED: sweep: kills: measured 2 of 3 asked\n"
    monkeypatch.setattr(bench, "run", lambda mode, kills, *_: [0.5] * kills)
    assert bench.main(["--kills", "3"]) == 0
    # Every kill measured, but one takeover slower than the bound: a failure too.
    monkeypatch.setattr(bench, "run", lambda mode, kills, *_: [0.5] * (kills - 1) + [6.0])
    capsys.readouterr()
    assert bench.main(["--kills", "3", "--modes", "sweep"]) == 1
    assert capsys.readouterr().err == (
        "bench_failover: FAILED: sweep: slowest takeover 6.00 s, over 5.0 s\n"
    )


def against_a_bot(client: TestClient) -> Msg:
    """A Pineapple table of Ann and a rules bot, opened through ``client``."""
    made: Msg = client.post(
        "/api/tables",
        json={"preset": "pineapple", "seats": [{"kind": "human", "name": "Ann"},
                                               {"kind": "bot", "bot": "rules"}]},
    ).json()  # fmt: skip
    return made


def to_decide(ws: Any) -> Msg:
    """The next state in which the socket's seat has something to decide."""
    while True:
        message: Msg = json.loads(ws.receive_text())
        if message["type"] == "state" and message["view"].get("decisions"):
            return message


def test_ready_counts_and_the_handover_in_one_process(tmp_path: Path) -> None:
    """``/api/ready`` is 200 once the tables are resumed and 503 ("draining") once the
    process was told to stop; ``/api/metrics`` counts the moves and the tables owned; the
    handover leaves each busy table's lease to be taken at once (expired, the holder's
    name kept), counted as a handover taken by the next process, not a takeover."""
    url = f"sqlite:///{tmp_path / 'one.db'}"
    app = create_app(url, hint_processes=False)
    with TestClient(app, client=("127.0.0.1", 50000)) as client:
        assert client.get("/api/ready").json() == {"ready": True, "state": "ready"}
        made = against_a_bot(client)
        tid = made["table"]["id"]
        with client.websocket_connect(f"/ws/tables/{tid}?role=seat") as ws:
            ws.send_text(json.dumps({"type": "auth", "token": made["token"]}))
            state = to_decide(ws)
            action = random_action(state["view"], random.Random(1))
            ws.send_text(json.dumps({"type": "action", "id": 1, "action": action}))
            while json.loads(ws.receive_text()).get("ack") != 1:
                pass
            counts = client.get("/api/metrics").json()["process"]
            assert counts["tables_owned"] == 1 and counts["moves_applied"] >= 1
            assert counts["moves_per_second"] > 0 and counts["handovers_given"] == 0
            assert hand_over(app) == 1
            assert client.get("/api/ready").status_code == 503
            assert client.get("/api/ready").json()["state"] == "draining"
            assert client.get(f"/api/tables/{tid}").status_code == 409  # takes none now
            assert client.get("/api/metrics").json()["process"]["handovers_given"] == 1
    store = Store(url)
    try:
        lease = store.lease(tid)
        assert lease is not None and lease.owner is not None and handed_over(lease)
    finally:
        store.close()
    with TestClient(create_app(url, hint_processes=False), client=("127.0.0.1", 1)) as client:
        assert client.get(f"/api/tables/{tid}").status_code == 200  # resumed at start
        counts = client.get("/api/metrics").json()["process"]
        assert counts["handovers_taken"] == 1 and counts["takeovers"] == 0


def test_moves_per_second_are_kept_in_buckets_of_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy process keeps one count per second of the last minute, not one number
    per move."""
    clock = [1000.2]
    monkeypatch.setattr(metrics_module.time, "monotonic", lambda: clock[0])
    counts = ProcessCounts()
    for _ in range(3000):
        counts.move()
    clock[0] = 1000.9
    counts.move()
    clock[0] = 1001.1
    for _ in range(1000):
        counts.move()
    assert len(counts.recent) == 2
    snapshot = counts.snapshot(tables_owned=1)
    assert snapshot["moves_applied"] == 4001
    assert snapshot["moves_per_second"] == round(4001 / 60, 3)
    clock[0] = 1060.5  # the second 1000 is over a minute ago
    assert counts.snapshot(1)["moves_per_second"] == round(1000 / 60, 3)
    clock[0] = 1061.0
    assert counts.snapshot(1)["moves_per_second"] == 0
    assert counts.snapshot(1)["moves_applied"] == 4001 and not counts.recent


def test_a_move_is_counted_once_stored_not_when_its_write_failed(tmp_path: Path) -> None:
    """While the database refuses every write, an action is answered server_error and
    the process counts no move; once writes work again its next action is counted."""
    app = create_app(f"sqlite:///{tmp_path / 'count.db'}", hint_processes=False)
    with TestClient(app, client=("127.0.0.1", 50000)) as client:
        made = against_a_bot(client)
        tid = made["table"]["id"]
        store = app.state.store

        def moves() -> int:
            counted: int = client.get("/api/metrics").json()["process"]["moves_applied"]
            return counted

        with client.websocket_connect(f"/ws/tables/{tid}?role=seat") as ws:
            ws.send_text(json.dumps({"type": "auth", "token": made["token"]}))
            state = to_decide(ws)
            before = moves()
            real = store.write_batch

            def refused(*args: Any, **kwargs: Any) -> None:
                raise RuntimeError("the disk is full")

            store.write_batch = refused
            action = random_action(state["view"], random.Random(1))
            ws.send_text(json.dumps({"type": "action", "id": 1, "action": action}))
            while (answer := json.loads(ws.receive_text())).get("ref") != 1:
                pass
            assert answer["type"] == "error" and answer["code"] == "server_error", answer
            assert moves() == before
            store.write_batch = real
            ws.send_text(json.dumps({"type": "sync"}))
            state = to_decide(ws)
            action = random_action(state["view"], random.Random(2))
            ws.send_text(json.dumps({"type": "action", "id": 2, "action": action}))
            while json.loads(ws.receive_text()).get("ack") != 2:
                pass
            assert moves() >= before + 1
