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
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from chinese_poker.engine import replay_history
from chinese_poker.server.fairness import verify_record

Msg = dict[str, Any]

PG_URL = os.environ.get("CHINESE_POKER_TEST_POSTGRES_URL")


class Server:
    """``chinese-poker serve`` in a subprocess."""

    def __init__(self, database_url: str, log: Path) -> None:
        self.log = log.open("a")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "chinese_poker.cli", "serve", "--host", "127.0.0.1",
             "--port", "0", "--database-url", database_url],
            stdout=subprocess.PIPE, stderr=self.log, text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert "open http://" in line, line
        self.url = line.split("open ", 1)[1].strip().rstrip("/")
        self.ws = "ws" + self.url[4:]
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(self.url + "/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
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


def random_action(view: Msg, rng: random.Random) -> Msg:
    d = view["decisions"][0]
    cards = list(d["cards"])
    rng.shuffle(cards)
    discard, rest = cards[: d["discard"]], cards[d["discard"]:]
    free = list(d["free"])
    lines: list[list[str]] = [[], [], []]
    for card in rest:
        i = rng.choice([k for k in range(3) if free[k] > 0])
        free[i] -= 1
        lines[i].append(card)
    return {"type": "place", "top": lines[0], "middle": lines[1], "bottom": lines[2],
            "discard": discard, "version": view["version"]}


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


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'server.db'}"
        return
    if not PG_URL:
        pytest.skip("set CHINESE_POKER_TEST_POSTGRES_URL to test with PostgreSQL")
    pytest.importorskip("psycopg")
    yield PG_URL


def test_sigkill_mid_hand_then_restart_resumes_exactly(database_url: str, tmp_path: Path) -> None:
    rng = random.Random(2024)
    log = tmp_path / "server.log"
    server = Server(database_url, log)
    stack = ExitStack()
    try:
        made = httpx.post(server.url + "/api/tables", json={
            "preset": "pineapple", "next_hand_delay": 30,
            "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human"}]}).json()
        tid = made["table"]["id"]
        joined = httpx.post(f"{server.url}/api/tables/{tid}/join",
                            json={"code": made["join_code"], "name": "Bob"}).json()
        tokens = {0: made["token"], 1: joined["token"]}
        socks: dict[int, ClientConnection] = {}
        states: dict[int, Msg] = {}
        for seat in (0, 1):
            socks[seat], states[seat] = open_seat(stack, server, tid, tokens[seat])
        for _ in range(5):  # street 1 of both, street 2 of both, street 3 of Bob
            seat = states[0]["view"]["to_act"][0]
            socks[seat].send(json.dumps({"type": "action", "action": random_action(
                states[seat]["view"], rng)}))
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
        info = httpx.get(f"{server.url}/api/tables/{tid}").json()
        assert info["status"] == "playing" and info["version"] == 5 and info["hand"] == 1
        for seat in (0, 1):
            socks[seat], states[seat] = open_seat(stack, server, tid, tokens[seat])
            assert without_clocks(states[seat]) == without_clocks(before[seat])
            assert states[seat]["view"]["hand"] == before[seat]["view"]["hand"]
        # play goes on to the showdown
        end: Msg | None = None
        while end is None:
            seat = states[0]["view"]["to_act"][0]
            socks[seat].send(json.dumps({"type": "action", "action": random_action(
                states[seat]["view"], rng)}))
            for s in (0, 1):
                states[s] = recv_state(socks[s])
            if states[0]["view"]["phase"] == "showdown":
                end = recv(socks[0])
                while end["type"] != "hand_end":
                    end = recv(socks[0])
        assert states[0]["version"] == 10 and sum(end["totals"].values()) == 0
        text = httpx.get(f"{server.url}/api/tables/{tid}/history").text
        (record,) = [json.loads(line) for line in text.splitlines()]
        assert verify_record(record).ok
        replay_history([{k: v for k, v in record.items() if k != "fairness"}])
    finally:
        stack.close()
        server.stop()
        if database_url == PG_URL:  # leave a shared database as it was
            from chinese_poker.server.db import Store

            store = Store(database_url)
            store.delete_table(tid)
            store.close()
