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
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from websockets.sync.client import ClientConnection, connect

from _bots import (
    bot_lobby,
    bot_table,
    hello,
    my_bot,
    new_bot,
    person,
    play,
    poll,
    random_answer,
    seated,
)
from _bots import challenge as challenge_here
from _helpers import random_action, wait_until
from chinese_poker.server.app import create_app
from test_server import connect as connect_here
from test_server import recv as recv_here
from test_server import recv_until
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


def start_bot(
    url: str, headers: dict[str, str], name: str, log: Path, *args: str, seen_from: str = ""
) -> tuple[str, BotProcess]:
    """A new bot account of the person, its ``--connect`` process started on ``url``, and
    once the server (``seen_from``, default ``url``) lists it as online: (id, process)."""
    bot_id, token = bot_account(url, headers, name)
    bot = BotProcess(url, token, log, *args)
    try:
        wait_until(lambda: online(seen_from or url, bot_id), f"{name} online", 60)
    except BaseException:
        bot.stop()
        raise
    return bot_id, bot


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


@pytest.mark.slow  # served processes, as tests/test_server_processes.py
def test_the_example_bot_plays_whole_hands_against_a_person_and_our_bot(
    server: Server, tmp_path: Path
) -> None:
    headers = account(server.url)
    bot_id, bot = start_bot(server.url, headers, "Example", tmp_path / "bot.log", "--bot", EXAMPLE)
    try:
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


@pytest.mark.slow  # served processes, as tests/test_server_processes.py
def test_a_bot_connected_to_one_process_plays_a_table_another_owns(tmp_path: Path) -> None:
    """Two processes on one database: the bot connects to B only; a person challenges it
    on A, which owns the table. The invitation reaches the bot through the database, its
    table socket is sent from B to A (``moved``), and the session is played on A."""
    database = f"sqlite:///{tmp_path / 'two.db'}"
    a = Server(database, tmp_path / "a.log")
    b = Server(database, tmp_path / "b.log")
    bot = None
    try:
        headers = account(a.url)
        log = tmp_path / "bot.log"
        bot_id, bot = start_bot(b.url, headers, "Faraway", log, "--bot", EXAMPLE, seen_from=a.url)
        made = challenge(a.url, headers, bot_id, preset="pineapple", time_limit=20)
        tid = made["table"]["id"]
        seen = play_person(a.ws, tid, made["token"], 2)
        records = history(a.url, tid)
        assert len(records) >= 2 and seen[-1]["ledger"]["hands_played"] == len(records)
        assert timeouts(records, "Faraway") == 0
    finally:
        if bot is not None:
            bot.stop()
        a.stop()
        b.stop()


# --------------------------------------------------------------------------- faults
# Over the TestClient: a bot's socket and a person's in one test, the clock real.


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'faults.db'}")) as c:
        yield c


def test_a_bot_that_times_out_gets_the_tables_timeout_rule_and_a_fault(
    client: TestClient,
) -> None:
    headers, bot_id, token, made = seated(client, time_limit=1.0)
    tid = made["table"]["id"]
    rng = random.Random(5)
    with bot_table(client, tid, token) as bot, connect_here(client, tid, made["token"]) as me:
        # The bot never answers: the clock times its seat out (the rest of its hand is
        # played for it) and the person's hand goes on to its end.
        seen: list[Msg] = []
        play(bot, me, lambda act: None, rng, until=lambda m: m["type"] == "result", seen=seen)
        assert any(m["type"] == "act" for m in seen)
        seat = seen[0]["seat"]
        assert seat in seen[-1]["view"]["timed_out"]
    assert my_bot(client, headers, bot_id)["faults"] == 1
    records = [json.loads(x) for x in client.get(f"/api/tables/{tid}/history").text.splitlines()]
    assert sum(a["type"] == "timeout" for a in records[0]["actions"]) == 1


def test_an_illegal_action_is_a_fault_and_gets_the_timeout_rule_at_once(
    client: TestClient,
) -> None:
    headers, bot_id, token, made = seated(client, time_limit=30.0)
    tid = made["table"]["id"]
    with bot_table(client, tid, token) as bot:
        act = recv_until(bot, lambda m: m["type"] == "act")
        decision = act["view"]["decisions"][0]
        wrong = {
            "type": "place",
            "seat": act["view"]["seat"],
            "hand": decision["hand"],
            "top": decision["cards"],
        }
        started = time.monotonic()
        bot.send_json({"type": "action", "id": act["id"], "action": wrong})
        error = recv_until(bot, lambda m: m["type"] == "error")
        assert error["code"] == "illegal" and error["id"] == act["id"]
        # Not after the 30 s clock: the timeout rule at once.
        with connect_here(client, tid) as watcher:
            state = recv_until(watcher, lambda m: m["type"] == "state")
            if act["view"]["seat"] not in state["view"]["timed_out"]:
                recv_until(
                    watcher,
                    lambda m: (
                        m["type"] == "state" and act["view"]["seat"] in m["view"]["timed_out"]
                    ),
                )
        assert time.monotonic() - started < 10
    assert my_bot(client, headers, bot_id)["faults"] == 1


def test_bad_input_gets_an_error_to_that_bot_only_and_changes_nothing(
    client: TestClient,
) -> None:
    headers, bot_id, token, made = seated(client, time_limit=60.0)
    tid = made["table"]["id"]
    with connect_here(client, tid, made["token"]) as me, bot_table(client, tid, token) as bot:
        act = recv_until(bot, lambda m: m["type"] == "act")
        view = act["view"]
        good = act["legal"][0] if act["legal"] else random_action(view, random.Random(1))
        state = recv_until(me, lambda m: m["type"] == "state")
        while poll(me) is not None:  # what the bot's arrival sent
            pass
        bad = [
            ("not json", "bad_json"),
            (json.dumps([1, 2]), "bad_json"),
            (json.dumps({"type": "chat", "text": "hi"}), "unknown_type"),
            (
                json.dumps({"type": "action", "id": act["id"], "action": {"type": "x"}}),
                "bad_message",
            ),
            (json.dumps({"type": "action", "id": act["id"], "action": "place"}), "bad_message"),
            (json.dumps({"type": "action", "id": act["id"] + 7, "action": good}), "stale"),
            (json.dumps({"type": "action", "id": float(act["id"]), "action": good}), "stale"),
            (
                json.dumps(
                    {
                        "type": "action",
                        "id": act["id"],
                        "action": {**good, "seat": 1 - view["seat"]},
                    }
                ),
                "not_your_seat",
            ),
            (
                json.dumps(
                    {
                        "type": "action",
                        "id": act["id"],
                        "action": {**good, "version": view["version"] + 5},
                    }
                ),
                "stale",
            ),
            (
                json.dumps(
                    {
                        "type": "action",
                        "id": act["id"],
                        "action": {"type": "timeout", "seat": view["seat"]},
                    }
                ),
                "bad_message",
            ),
        ]
        for text, code in bad:
            bot.send_text(text)
            error = recv_until(bot, lambda m: m["type"] == "error")
            assert error["code"] == code, (text, error)
        # A flood: past the burst, errors and nothing read into the table.
        for _ in range(60):
            bot.send_json({"type": "ping"})
        answers = [recv_here(bot) for _ in range(60)]
        assert {a["type"] for a in answers} == {"pong", "error"}
        assert any(a.get("code") == "too_many" for a in answers)
        # The person heard nothing of it, the table did not move, no fault counted.
        assert poll(me, 0.3) is None
        assert my_bot(client, headers, bot_id)["faults"] == 0
        now = client.get(f"/api/tables/{tid}").json()
        assert now["status"] == "playing"
        with connect_here(client, tid) as watcher:
            again = recv_until(watcher, lambda m: m["type"] == "state")
        assert again["view"]["version"] == state["view"]["version"]
        # And the good answer is still taken.
        time.sleep(2.0)  # the bucket fills again
        bot.send_json({"type": "action", "id": act["id"], "action": good})
        moved_on = recv_until(me, lambda m: m["type"] == "state")
        assert moved_on["view"]["version"] > state["view"]["version"]


def test_a_dropped_connection_is_a_fault_the_clock_plays_and_the_bot_goes_on(
    client: TestClient,
) -> None:
    headers, bot_id, token, made = seated(client, time_limit=1.0, hands="continuous")
    tid = made["table"]["id"]
    rng = random.Random(8)
    with connect_here(client, tid, made["token"]) as me:
        with bot_table(client, tid, token) as bot:
            recv_until(bot, lambda m: m["type"] == "act")  # then the socket closes
        wait_until(lambda: my_bot(client, headers, bot_id)["faults"] >= 1, "a fault", 10)
        # Back again, it plays on (its hand went on without it: the clock's rule).
        with bot_table(client, tid, token) as bot:
            hello_again = recv_here(bot)
            assert hello_again["type"] == "hello"
            result = play(bot, me, random_answer(rng), rng, until=lambda m: m["type"] == "result")
            assert result["type"] == "result"
            act = play(bot, me, random_answer(rng), rng, until=lambda m: m["type"] == "act")
            bot.send_json(random_answer(rng)(act))
            wait_until(lambda: my_bot(client, headers, bot_id)["faults"] == 0, "faults reset", 10)


def test_repeated_faults_pause_the_account_and_a_paused_bot_gets_no_invitation(
    client: TestClient,
) -> None:
    rng = random.Random(9)
    headers, bot_id, token, made = seated(client, time_limit=0.5, timeouts="decision")
    tid = made["table"]["id"]
    with connect_here(client, tid, made["token"]) as me, bot_table(client, tid, token) as bot:
        seen: list[Msg] = []
        with pytest.raises(WebSocketDisconnect) as closed:
            play(bot, me, lambda act: None, rng, until=lambda m: False, seen=seen)
        assert closed.value.code == 4403
        assert any(m["type"] == "paused" for m in seen)
    mine = my_bot(client, headers, bot_id)
    assert mine["paused"] and mine["faults"] == 3 and mine["faults_total"] == 3
    # Paused: its sockets are refused, it is offered to nobody, and nobody can challenge it.
    with client.websocket_connect("/ws/bot") as ws:
        ws.send_json(hello(token))
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4403
    assert client.get("/api/bots/online").json() == []
    r = client.post(f"/api/bots/{bot_id}/challenge", json={}, headers=headers)
    assert r.status_code == 404
    # Its owner resumes it: online and invited again.
    r = client.post(f"/api/me/bots/{bot_id}/resume", headers=headers)
    assert not r.json()[0]["paused"] and r.json()[0]["faults"] == 0
    with bot_lobby(client, token) as lobby:
        assert lobby.receive_json() == {
            "type": "invite",
            "table_id": tid,
            "seat": made["bot"]["seat"],
            "preset": "pineapple",
            "players": 2,
        }


@pytest.mark.slow  # served processes, as tests/test_server_processes.py
def test_our_bot_through_connect_holds_two_tables_at_once(server: Server, tmp_path: Path) -> None:
    """``--bot rules`` (one of ours) through ``--connect``: two people challenge it at the
    same time and it plays both tables from one process."""
    headers = account(server.url)
    log = tmp_path / "ours.log"
    bot_id, bot = start_bot(server.url, headers, "Ours", log, "--bot", "rules", "--tables", "2")
    try:
        tables = [
            challenge(server.url, account(server.url), bot_id, preset="pineapple", time_limit=20)
            for _ in range(2)
        ]
        with ThreadPoolExecutor(2) as pool:
            ends = list(
                pool.map(
                    lambda made: play_person(server.ws, made["table"]["id"], made["token"], 3),
                    tables,
                )
            )
        for made, seen in zip(tables, ends, strict=True):
            records = history(server.url, made["table"]["id"])
            assert len(records) == seen[-1]["ledger"]["hands_played"] >= 2
            assert timeouts(records, "Ours") == 0
    finally:
        bot.stop()
    log = (tmp_path / "ours.log").read_text()
    assert log.count("invited to table") == 2


@pytest.mark.slow  # served processes, as tests/test_server_processes.py
def test_an_invitation_past_tables_waits_for_a_table_to_end(server: Server, tmp_path: Path) -> None:
    """``--tables 1`` and two challenges at once: the second table is played once the
    first ends (the server invites once per lobby socket: a dropped invitation left the
    bot's seat to the clock)."""
    headers = account(server.url)
    log = tmp_path / "one.log"
    bot_id, bot = start_bot(server.url, headers, "Single", log, "--bot", "rules", "--tables", "1")
    try:
        tables = [
            challenge(server.url, headers, bot_id, preset="pineapple", opponent="rules",
                      time_limit=60)
            for _ in range(2)
        ]  # fmt: skip
        for made in tables:
            end = watch(server.ws, made["table"]["id"])[-1]
            records = history(server.url, made["table"]["id"])
            assert len(records) == end["ledger"]["hands_played"] >= 2
            assert timeouts(records, "Single") == 0
    finally:
        bot.stop()
    text = log.read_text()
    assert text.count("invited to table") == 2 and "waits" in text


def run_bot_command(*args: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CHINESE_POKER_BOT_TOKEN"}
    if token is not None:
        env["CHINESE_POKER_BOT_TOKEN"] = token
    return subprocess.run(
        [sys.executable, "-m", "chinese_poker.cli", "bot", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_connect_says_what_is_missing_in_one_line() -> None:
    no_token = run_bot_command("--connect", "http://127.0.0.1:9")
    assert no_token.returncode == 2 and "CHINESE_POKER_BOT_TOKEN" in no_token.stderr
    bad_bot = run_bot_command(
        "--connect", "http://127.0.0.1:9", "--bot", "cmd:surely-no-such-program", token="cpb-x"
    )
    assert bad_bot.returncode == 2 and "command not found" in bad_bot.stderr
    assert "Traceback" not in no_token.stderr + bad_bot.stderr


@pytest.mark.slow  # served processes, as tests/test_server_processes.py
def test_a_refused_token_stops_the_client(server: Server) -> None:
    done = run_bot_command("--connect", server.url, token="cpb-not-a-token")
    assert done.returncode == 1 and "unknown or revoked bot token" in done.stderr


def test_an_act_stays_open_while_another_seat_acts(client: TestClient) -> None:
    """Classic: both seats set at once. The person sets first (the version moves), the
    bot is not asked again, and its answer to the first act is taken."""
    headers = person(client)
    bot_id, token = new_bot(client, headers, "Setter")
    with bot_lobby(client, token):
        made = challenge_here(client, headers, bot_id, preset="classic", time_limit=60.0)
    tid = made["table"]["id"]
    rng = random.Random(4)
    with connect_here(client, tid, made["token"]) as me, bot_table(client, tid, token) as bot:
        act = recv_until(bot, lambda m: m["type"] == "act")
        mine = recv_until(me, lambda m: m["type"] == "state" and bool(m["view"]["decisions"]))
        me.send_json({"type": "action", "action": random_action(mine["view"], rng)})
        recv_until(
            me, lambda m: m["type"] == "state" and m["view"]["version"] > act["view"]["version"]
        )
        assert poll(bot, 0.5) is None  # asked once
        bot.send_json(random_answer(rng)(act))
        seen: list[Msg] = []
        play(bot, me, random_answer(rng), rng, until=lambda m: m["type"] == "result", seen=seen)
        assert all(m["type"] != "error" for m in seen), seen


@pytest.mark.slow  # served processes, as tests/test_server_processes.py
def test_the_client_reconnects_by_itself_after_the_server_restarts(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    database = f"sqlite:///{tmp_path / 'again.db'}"
    first = Server(database, tmp_path / "first.log", "--port", port)
    bot = None
    try:
        headers = account(first.url)
        log = tmp_path / "bot.log"
        bot_id, bot = start_bot(first.url, headers, "Comeback", log, "--bot", EXAMPLE)
        first.stop()
        second = Server(database, tmp_path / "second.log", "--port", port)
        try:
            wait_until(lambda: online(second.url, bot_id), "the bot back online", 90)
            made = challenge(second.url, headers, bot_id, preset="pineapple", time_limit=20)
            play_person(second.ws, made["table"]["id"], made["token"], 6)
            assert timeouts(history(second.url, made["table"]["id"]), "Comeback") == 0
        finally:
            second.stop()
    finally:
        if bot is not None:
            bot.stop()
        first.stop()
    assert "connection lost" in (tmp_path / "bot.log").read_text()
