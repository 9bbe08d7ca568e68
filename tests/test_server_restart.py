"""Kill the real server (SIGKILL) in the middle of a hand, start it again: nothing is lost.

The server runs as a subprocess (``chinese-poker serve --port 0`` on 127.0.0.1) on a
temporary SQLite file, or on PostgreSQL when ``CHINESE_POKER_TEST_POSTGRES_URL`` names a
database (e.g. ``postgresql+psycopg://postgres@127.0.0.1:5432/cp_test``; skipped
otherwise). Two seats play over real WebSockets; after the kill and restart each seat
reconnects with its token and must get exactly the same view, version, cards and log,
and play goes on to the showdown.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from websockets.sync.client import ClientConnection, connect

from _helpers import random_action
from chinese_poker.engine import replay_history
from chinese_poker.server.fairness import verify_record

Msg = dict[str, Any]

# Slow (left out by `bash scripts/test --quick`): the real server as a process, killed
# (kill -9) and started again, 20 times a database.
pytestmark = pytest.mark.slow

PG_URL = os.environ.get("CHINESE_POKER_TEST_POSTGRES_URL")


class Server:
    """``chinese-poker serve`` in a subprocess."""

    def __init__(self, database_url: str, log: Path, *extra: str) -> None:
        self.log = log.open("a")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "chinese_poker.cli",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--database-url",
                database_url,
                *extra,
            ],
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert "open http://" in line, line
        self.url = line.split("open ", 1)[1].strip().rstrip("/")
        self.ws = "ws" + self.url[4:]
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx2.get(self.url + "/api/health", timeout=2).status_code == 200:
                    break
            except httpx2.HTTPError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            assert self.proc.poll() is None, "the server died"
            time.sleep(0.05)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.log.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if not self.log.closed:
            self.log.close()


def recv(ws: ClientConnection) -> Msg:
    data: Msg = json.loads(ws.recv(timeout=10))
    return data


def recv_state(ws: ClientConnection) -> Msg:
    for _ in range(100):
        m = recv(ws)
        if m["type"] == "state":
            return m
    raise AssertionError("no state")


def open_seat(
    stack: ExitStack, server: Server, table_id: str, token: str
) -> tuple[ClientConnection, Msg]:
    ws = stack.enter_context(connect(f"{server.ws}/ws/tables/{table_id}?role=seat"))
    ws.send(json.dumps({"type": "auth", "token": token}))
    assert recv(ws)["type"] == "welcome"
    return ws, recv_state(ws)


def without_clocks(state: Msg) -> Msg:
    return {k: v for k, v in state.items() if k != "clocks"}


def sync(ws: ClientConnection) -> Msg:
    ws.send(json.dumps({"type": "sync"}))
    return recv_state(ws)


@contextmanager
def own_postgres_database(prefix: str) -> Iterator[str]:
    """A PostgreSQL database of its own on the server ``CHINESE_POKER_TEST_POSTGRES_URL``
    names, dropped afterwards. Every server process on a database takes over the tables
    whose holder stopped (their leases), so on a shared one the servers of tests running
    at the same time could take over each other's tables while one is killed."""
    if not PG_URL:
        pytest.skip("set CHINESE_POKER_TEST_POSTGRES_URL to test with PostgreSQL")
    psycopg = pytest.importorskip("psycopg")
    from sqlalchemy.engine import make_url

    url = make_url(PG_URL)
    name = f"{prefix}_{os.getpid()}_{secrets.token_hex(4)}"
    admin = url.set(drivername="postgresql", database="postgres")
    conninfo = admin.render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(conninfo, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'server.db'}"
        return
    with own_postgres_database("cp_restart") as url:
        yield url


def test_sigkill_mid_hand_then_restart_resumes_exactly(database_url: str, tmp_path: Path) -> None:
    rng = random.Random(2024)
    log = tmp_path / "server.log"
    server = Server(database_url, log)
    stack = ExitStack()
    try:
        made = httpx2.post(
            server.url + "/api/tables",
            json={
                "preset": "pineapple",
                "next_hand_delay": 30,
                "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human"}],
            },
        ).json()
        tid = made["table"]["id"]
        joined = httpx2.post(
            f"{server.url}/api/tables/{tid}/join", json={"code": made["join_code"], "name": "Bob"}
        ).json()
        tokens = {0: made["token"], 1: joined["token"]}
        socks: dict[int, ClientConnection] = {}
        states: dict[int, Msg] = {}
        for seat in (0, 1):
            socks[seat], states[seat] = open_seat(stack, server, tid, tokens[seat])
        for _ in range(5):  # street 1 of both, street 2 of both, street 3 of Bob
            seat = states[0]["view"]["to_act"][0]
            socks[seat].send(
                json.dumps({"type": "action", "action": random_action(states[seat]["view"], rng)})
            )
            for s in (0, 1):
                states[s] = recv_state(socks[s])
        before = {s: sync(socks[s]) for s in (0, 1)}
        assert before[0]["version"] == 5 and before[0]["view"]["to_act"] == [0]
        server.kill()  # in the middle of the hand, right after the last broadcast
    finally:
        server.stop()
        stack.close()

    server = Server(database_url, log)
    stack = ExitStack()
    try:
        info = httpx2.get(f"{server.url}/api/tables/{tid}").json()
        assert info["status"] == "playing" and info["version"] == 5 and info["hand"] == 1
        for seat in (0, 1):
            socks[seat], states[seat] = open_seat(stack, server, tid, tokens[seat])
            assert without_clocks(states[seat]) == without_clocks(before[seat])
            assert states[seat]["view"]["hand"] == before[seat]["view"]["hand"]
        # play goes on to the showdown
        end: Msg | None = None
        while end is None:
            seat = states[0]["view"]["to_act"][0]
            socks[seat].send(
                json.dumps({"type": "action", "action": random_action(states[seat]["view"], rng)})
            )
            for s in (0, 1):
                states[s] = recv_state(socks[s])
            if states[0]["view"]["phase"] == "showdown":
                end = recv(socks[0])
                while end["type"] != "hand_end":
                    end = recv(socks[0])
        assert states[0]["version"] == 10 and sum(end["totals"].values()) == 0
        text = httpx2.get(f"{server.url}/api/tables/{tid}/history").text
        (record,) = [json.loads(line) for line in text.splitlines()]
        assert verify_record(record).ok
        replay_history([{k: v for k, v in record.items() if k != "fairness"}])
    finally:
        stack.close()
        server.stop()


KILLS = 20


def _drain(ws: ClientConnection, timeout: float) -> list[Msg]:
    """Whatever the socket has to say within ``timeout`` seconds."""
    out: list[Msg] = []
    end = time.monotonic() + timeout
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return out
        try:
            out.append(json.loads(ws.recv(timeout=left)))
        except TimeoutError:
            return out


def _stored_actions(server: Server, tid: str) -> dict[int, list[Msg]]:
    """Every stored action per hand: finished hands from the history, the current hand
    from a spectator's log (engine-made ``auto`` placements left out)."""
    text = httpx2.get(f"{server.url}/api/tables/{tid}/history", timeout=10).text
    records = [json.loads(line) for line in text.splitlines()]
    for i, record in enumerate(records, 1):
        assert verify_record(record, i).ok
    out = {r["session"]["hand"]: [a for a in r["actions"] if not a.get("auto")] for r in records}
    with connect(f"{server.ws}/ws/tables/{tid}") as ws:
        assert recv(ws)["type"] == "welcome"
        state = recv_state(ws)
        if state["hand"] not in out:
            out[state["hand"]] = [a for a in state["log"] if not a.get("auto")]
    return out


def test_kill_9_twenty_times_during_a_tournament_loses_nothing(
    database_url: str, tmp_path: Path
) -> None:
    """A 3-seat Pineapple tournament (two people, one bot; Ann and the bot start with 1
    chip, so one of them busts and the seats are renumbered). The server is killed with
    SIGKILL 20 times in the middle of hands, right after an acknowledgement or right
    after an action was sent; after each restart every acknowledged action is stored
    exactly once, no stored hand has an action twice, and every finished hand verifies."""
    rng = random.Random(99)
    log = tmp_path / "server.log"
    server = Server(database_url, log)
    tids: list[str] = []

    def new_table() -> tuple[str, dict[str, str]]:
        """A fresh tournament (when the last one is over before 20 kills)."""
        made = httpx2.post(
            server.url + "/api/tables",
            json={
                "preset": "pineapple",
                "next_hand_delay": 0.1,
                "bot_delay": 0,
                "mode": "tournament",
                "options": {"insufficient_chips_rule": "seat_order"},
                "tournament": {"stacks": {"Ann": 1, "Bob": 1, "Cat": 5000}, "level_hands": 1},
                "seats": [
                    {"kind": "human", "name": "Ann"},
                    {"kind": "bot", "bot": "random", "name": "Bob"},
                    {"kind": "human", "name": "Cat"},
                ],
            },
        ).json()
        table_id = made["table"]["id"]
        joined = httpx2.post(
            f"{server.url}/api/tables/{table_id}/join",
            json={"code": made["join_code"], "name": "Cat"},
        ).json()
        tids.append(table_id)
        return table_id, {"Ann": made["token"], "Cat": joined["token"]}

    try:
        tid, tokens = new_table()
        acked: list[tuple[str, int, Msg]] = []
        kills = 0
        out: list[str] = []
        counter = 0
        # Until KILLS kills, an elimination and KILLS acknowledged actions (a kill right
        # after a send leaves that round one short, so 20 rounds can fall short by chance).
        while kills < KILLS or not out or len(acked) < KILLS:
            assert kills < 4 * KILLS, f"{len(acked)} actions acknowledged, eliminated: {out}"
            target = rng.choice([1, 2, 3])
            after_send = rng.random() < 0.4
            got = 0
            with ExitStack() as stack:
                socks = {name: open_seat(stack, server, tid, tok) for name, tok in tokens.items()}
                states = {name: st for name, (_ws, st) in socks.items()}
                pending: dict[str, tuple[str, Msg]] = {}
                killed = False
                deadline = time.monotonic() + 60  # generous: a busy machine, a new server
                while not killed:
                    assert time.monotonic() < deadline, "the table stopped moving"
                    for name, (ws, _st) in socks.items():
                        view = states[name]["view"]
                        if (
                            name not in pending
                            and view["seat"] is not None
                            and view["seat"] in view["to_act"]
                            and view["decisions"]
                            and view["phase"] == "play"
                        ):
                            counter += 1
                            action = random_action(view, rng) | {"seat": view["seat"]}
                            ref = f"a{counter}"
                            ws.send(json.dumps({"type": "action", "id": ref, "action": action}))
                            pending[name] = (ref, action | {"hand": states[name]["hand"]})
                            if after_send and got + 1 >= target:
                                killed = True
                                break
                        for m in _drain(ws, 0.01):
                            if m["type"] == "state":
                                states[name] = m
                                if name in pending and m["ack"] == pending[name][0]:
                                    acked.append(
                                        (
                                            tid,
                                            pending.pop(name)[1]["hand"],
                                            pending_action := m["last"],
                                        )
                                    )
                                    assert pending_action["seat"] == m["view"]["seat"]
                                    got += 1
                            elif (
                                m["type"] == "error"
                                and name in pending
                                and m["ref"] == pending[name][0]
                            ):
                                assert m["code"] in ("stale", "illegal"), m
                                pending.pop(name)
                            elif m["type"] == "session_end":
                                killed = True  # over: kill now, then a new table
                        if not after_send and got >= target:
                            killed = True
                            break
                server.kill()
            kills += 1
            server = Server(database_url, log)
            ledger = httpx2.get(f"{server.url}/api/tables/{tid}/ledger", timeout=10).json()
            out += [p for p in ledger["out"] if p not in out]
            for table_id in tids:
                stored = _stored_actions(server, table_id)
                for hand, actions in stored.items():
                    keys = [(a["seat"], a["version"]) for a in actions]
                    assert len(keys) == len(set(keys)), f"hand {hand} has an action twice"
                for t, hand, action in acked:
                    if t != table_id:
                        continue
                    same = [
                        a
                        for a in stored.get(hand, [])
                        if (a["seat"], a["version"]) == (action["seat"], action["version"])
                    ]
                    assert len(same) == 1, (hand, action, "acknowledged but not stored once")
            if ledger["over"]:
                tid, tokens = new_table()
        assert out and len(acked) >= KILLS
    finally:
        server.stop()


def test_two_servers_starting_on_one_new_postgresql_database_both_start() -> None:
    """Two processes migrate one new database at once: one creates the schema, the
    other waits for it (an advisory lock) and finds it at head, instead of failing on
    "relation already exists" (two test workers share CI's database)."""
    if not PG_URL:
        pytest.skip("set CHINESE_POKER_TEST_POSTGRES_URL to test with PostgreSQL")
    pytest.importorskip("psycopg")
    import secrets

    import sqlalchemy as sa

    url = sa.make_url(PG_URL)
    admin = sa.create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    migrate = "import sys; from chinese_poker.server.db import Store; Store(sys.argv[1]).migrate()"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    try:
        for _ in range(3):  # without the lock, most rounds fail
            name = f"cp_two_starts_{secrets.token_hex(4)}"
            with admin.connect() as conn:
                conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
            target = url.set(database=name).render_as_string(hide_password=False)
            procs = [
                subprocess.Popen(
                    [sys.executable, "-c", migrate, target],
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
                for _ in range(2)
            ]
            results = [(p.communicate(timeout=120)[1], p.returncode) for p in procs]
            with admin.connect() as conn:
                conn.execute(sa.text(f'DROP DATABASE "{name}" WITH (FORCE)'))
            assert [code for _, code in results] == [0, 0], [
                err.strip().splitlines()[-1:] for err, _ in results
            ]
    finally:
        admin.dispose()


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces, so split after its ")"
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            out.append(int(entry.name))
    return out


def _is_hint_worker(pid: int) -> bool:
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return False
    return b"spawn_main" in cmd


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads Linux /proc")
def test_the_hint_worker_leaves_when_its_server_is_killed(tmp_path: Path) -> None:
    """``kill -9`` gives the server no chance to stop its hint worker process, which
    used to wait for work forever (~190 MiB each, one per crash)."""
    server = Server(f"sqlite:///{tmp_path / 'db.sqlite'}", tmp_path / "server.log")
    try:
        deadline = time.monotonic() + 60  # the worker starts 5 s after the server
        while not (workers := [p for p in _children(server.proc.pid) if _is_hint_worker(p)]):
            assert time.monotonic() < deadline, "no hint worker started"
            time.sleep(0.1)
    finally:
        server.kill()
    deadline = time.monotonic() + 20
    while alive := [w for w in workers if _is_hint_worker(w)]:
        if time.monotonic() > deadline:
            for w in alive:
                os.kill(w, signal.SIGKILL)
            raise AssertionError("a worker process outlived its killed server")
        time.sleep(0.1)
