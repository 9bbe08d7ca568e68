"""Outside bots on a real server through ``chinese-poker bot --connect`` (issue 42): the
example bot (examples/bots/random_bot.py, unchanged) plays whole hands against a person's
socket and against our bot; with two processes on one database, a bot connected to B
plays the table A owns (the invitation comes through the database, the table's socket
follows ``moved``)."""

from __future__ import annotations

import json
import os
import random
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from websockets.sync.client import ClientConnection, connect

from _helpers import random_action, wait_until
from test_server_restart import Server

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = f"cmd:{sys.executable} {ROOT / 'examples' / 'bots' / 'random_bot.py'}"

Msg = dict[str, Any]


def account(url: str) -> dict[str, str]:
    """A person with a handle and password: the headers of his key."""
    headers = {"X-Player-Key": secrets.token_urlsafe(24)}
    body = {"handle": f"p-{secrets.token_hex(4)}", "password": "correct horse"}
    r = httpx2.post(f"{url}/api/me/password", json=body, headers=headers, timeout=30)
    assert r.status_code == 200, r.text
    return headers


def bot_account(url: str, headers: dict[str, str], name: str) -> tuple[str, str]:
    r = httpx2.post(f"{url}/api/me/bots", json={"name": name}, headers=headers, timeout=30)
    assert r.status_code == 201, r.text
    return r.json()["bot"]["id"], r.json()["token"]


class BotProcess:
    """``chinese-poker bot --connect`` in a subprocess (the token in its environment)."""

    def __init__(self, url: str, token: str, log: Path, *args: str) -> None:
        self.log = log.open("a")
        env = {**os.environ, "CHINESE_POKER_BOT_TOKEN": token}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "chinese_poker.cli", "bot", "--connect", url, *args],
            stdout=self.log,
            stderr=self.log,
            env=env,
        )

    stop = Server.stop  # terminate, then kill; close the log


def online(url: str, bot_id: str) -> bool:
    bots = httpx2.get(f"{url}/api/bots/online", timeout=10).json()
    return any(b["id"] == bot_id for b in bots)


def challenge(url: str, headers: dict[str, str], bot_id: str, **body: Any) -> Msg:
    r = httpx2.post(f"{url}/api/bots/{bot_id}/challenge", json=body, headers=headers, timeout=30)
    assert r.status_code == 201, r.text
    made: Msg = r.json()
    return made


def recv(ws: ClientConnection, timeout: float = 60) -> Msg:
    data: Msg = json.loads(ws.recv(timeout=timeout))
    return data


def play_person(ws_base: str, table_id: str, token: str, seed: int) -> list[Msg]:
    """A person's seat playing random legal actions until the session ends."""
    rng = random.Random(seed)
    seen: list[Msg] = []
    with connect(f"{ws_base}/ws/tables/{table_id}?role=seat") as ws:
        ws.send(json.dumps({"type": "auth", "token": token}))
        while True:
            m = recv(ws)
            seen.append(m)
            if m["type"] == "session_end":
                return seen
            if m["type"] == "state" and m["view"]["decisions"]:
                ws.send(json.dumps({"type": "action", "action": random_action(m["view"], rng)}))


def watch(ws_base: str, table_id: str) -> list[Msg]:
    seen: list[Msg] = []
    with connect(f"{ws_base}/ws/tables/{table_id}") as ws:
        while not seen or seen[-1]["type"] != "session_end":
            seen.append(recv(ws))
    return seen


def history(url: str, table_id: str) -> list[Msg]:
    text = httpx2.get(f"{url}/api/tables/{table_id}/history", timeout=30).text
    return [json.loads(line) for line in text.splitlines()]


def timeouts(records: list[Msg], seat_name: str) -> int:
    """How many timeouts a player took in a table's history."""
    count = 0
    for record in records:
        seat = record["players"].index(seat_name)
        count += sum(
            1 for a in record["actions"] if a["type"] == "timeout" and a.get("seat") == seat
        )
    return count


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(f"sqlite:///{tmp_path / 'online.db'}", tmp_path / "serve.log")
    try:
        yield s
    finally:
        s.stop()


def test_the_example_bot_plays_whole_hands_against_a_person_and_our_bot(
    server: Server, tmp_path: Path
) -> None:
    headers = account(server.url)
    bot_id, token = bot_account(server.url, headers, "Example")
    bot = BotProcess(server.url, token, tmp_path / "bot.log", "--bot", EXAMPLE)
    try:
        wait_until(lambda: online(server.url, bot_id), "the bot online", 60)
        made = challenge(server.url, headers, bot_id, preset="pineapple", time_limit=20)
        seen = play_person(server.ws, made["table"]["id"], made["token"], 1)
        records = history(server.url, made["table"]["id"])
        assert len(records) >= 2 and seen[-1]["ledger"]["hands_played"] == len(records)
        assert timeouts(records, "Example") == 0
        # Against our bot, the person watching.
        made = challenge(server.url, headers, bot_id, preset="pineapple", opponent="rules")
        assert made["token"] is None
        end = watch(server.ws, made["table"]["id"])[-1]
        records = history(server.url, made["table"]["id"])
        assert len(records) == end["ledger"]["hands_played"] >= 2
        assert timeouts(records, "Example") == 0
        assert all("Example" in r["players"] for r in records)
    finally:
        bot.stop()
    log = (tmp_path / "bot.log").read_text()
    assert "connected as Example" in log and "Traceback" not in log
