"""Issue 12 on the server: continuous sessions ended by a leave, rematch with the same
people (no new link), and time banks and stand-in bots kept across a restart."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from _helpers import FakeClock, random_action
from chinese_poker.engine import replay_history
from chinese_poker.server.app import create_app
from chinese_poker.server.db import Store
from chinese_poker.server.tables import LiveTable
from test_server import client, connect, create, first_state, quiet, recv, recv_until, two_humans

__all__ = ["client"]  # the fixture, shared with test_server

Msg = dict[str, Any]


def drive(
    sockets: dict[int, WebSocketTestSession],
    rng: random.Random,
    until: Callable[[Msg], bool],
    seen: list[Msg] | None = None,
) -> Msg:
    """Every seat in ``sockets`` plays random legal moves on its turn until a message
    satisfies ``until``; that message."""
    latest: dict[int, Msg] = {}
    acted: dict[int, tuple[int, int]] = {}
    for ws in sockets.values():
        ws.send_json({"type": "sync"})  # the state now, whatever was read before
    for _ in range(3000):
        for chair, ws in sockets.items():
            for m in quiet(ws):
                if seen is not None:
                    seen.append(m)
                if until(m):
                    return m
                if m["type"] == "state":
                    latest[chair] = m
        for chair, ws in sockets.items():
            st = latest.get(chair)
            if st is None:
                continue
            v = st["view"]
            key = (st["hand"], v["version"])
            if (
                v["phase"] != "showdown"
                and v["seat"] in v["to_act"]
                and v["decisions"]
                and acted.get(chair) != key
            ):
                ws.send_json({"type": "action", "action": random_action(v, rng)})
                acted[chair] = key
    raise AssertionError("the awaited message never came")


def against_a_bot(client: TestClient, **body: Any) -> Msg:
    return create(client, preset="pineapple", hands="continuous",
                  seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}],
                  **body)  # fmt: skip


def history(client: TestClient, tid: str) -> list[Msg]:
    text = client.get(f"/api/tables/{tid}/history").text
    return [json.loads(line) for line in text.splitlines()]


def test_continuous_hands_go_past_the_orbit_until_the_player_leaves(client: TestClient) -> None:
    made = against_a_bot(client)
    tid = made["table"]["id"]
    assert made["table"]["session_hands"] == "continuous"
    rng = random.Random(1)
    seen: list[Msg] = []
    with connect(client, tid, made["token"]) as ann:
        recv(ann)
        # Two players: an orbit is 2 hands. Hand 4 is dealt, and the session goes on.
        drive({0: ann}, rng, lambda m: m["type"] == "state" and m["hand"] == 4, seen)
        assert not any(m["type"] == "session_end" for m in seen)
        ann.send_json({"type": "leave", "id": "bye"})
        reply = recv_until(ann, lambda m: m.get("ref") == "bye", seen)
        assert reply == {"type": "leaving", "ref": "bye", "now": False}
        notice = recv_until(ann, lambda m: m["type"] == "notice", seen)
        assert notice["kind"] == "leaving" and "last hand" in notice["text"]
        end = drive({0: ann}, rng, lambda m: m["type"] == "session_end", seen)
    assert end["left"] == "Ann" and end["ledger"]["hands_played"] == 4
    hand_ends = [m for m in seen if m["type"] == "hand_end"]
    assert [m["hand"] for m in hand_ends][-1] == 4 and hand_ends[-1]["session_over"]
    info = client.get(f"/api/tables/{tid}").json()
    assert info["status"] == "finished" and info["left"] == "Ann"
    records = history(client, tid)
    assert len(records) == 4 and records[-1]["session"]["ended"] is True
    # The running totals are the hands' own totals added up.
    ledger = client.get(f"/api/tables/{tid}/ledger").json()
    assert ledger["points"]["Ann"] == sum(r["totals"]["Ann"] for r in records)
    replay_history([{k: v for k, v in r.items() if k != "fairness"} for r in records])


def test_leaving_between_hands_ends_the_session_at_once(client: TestClient) -> None:
    made = against_a_bot(client, next_hand_delay=30)
    tid = made["table"]["id"]
    with connect(client, tid, made["token"]) as ann:
        recv(ann)
        drive({0: ann}, random.Random(2), lambda m: m["type"] == "hand_end")
        ann.send_json({"type": "leave", "id": 1})
        assert recv_until(ann, lambda m: m.get("ref") == 1)["now"] is True
        end = recv_until(ann, lambda m: m["type"] == "session_end")
        assert end["left"] == "Ann" and end["ledger"]["hands_played"] == 1
        ann.send_json({"type": "leave", "id": 2})
        err = recv_until(ann, lambda m: m["type"] == "error")
        assert err["ref"] == 2 and err["code"] == "no_hand"
    assert client.get(f"/api/tables/{tid}").json()["status"] == "finished"
    # Nothing more is dealt: the hand list stops at the committed hand 2.
    assert len(history(client, tid)) == 1


def test_a_leaver_still_gone_at_the_hands_end_ends_a_continuous_session(
    client: TestClient,
) -> None:
    made, joined = two_humans(client, hands="continuous", grace=0.1)
    tid = made["table"]["id"]
    with connect(client, tid, made["token"]) as ann:
        first_state(ann)
        with connect(client, tid, joined["token"]) as bob:
            first_state(bob)
        notice = recv_until(ann, lambda m: m["type"] == "notice")
        assert notice["kind"] == "stand_in"
        end = drive({0: ann}, random.Random(3), lambda m: m["type"] == "session_end")
    assert end["left"] == "Bob" and end["ledger"]["hands_played"] == 1


def test_orbit_sessions_and_tournaments_are_unchanged(client: TestClient) -> None:
    made = create(
        client,
        preset="pineapple",
        seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}],
    )
    assert made["table"]["session_hands"] == "orbit"
    with connect(client, made["table"]["id"], made["token"]) as ann:
        recv(ann)
        end = drive({0: ann}, random.Random(4), lambda m: m["type"] == "session_end")
    # One turn of the button, two hands, and after it only the Fantasyland hands it earned
    # (RULES §10; rare with random play, but the deal is the server's).
    tid = made["table"]["id"]
    records = [json.loads(x) for x in client.get(f"/api/tables/{tid}/history").text.splitlines()]
    assert end["ledger"]["hands_played"] == len(records) >= 2 and end["left"] is None
    assert all(r["fantasyland"] for r in records[2:])
    r = client.post("/api/tables", json={
        "preset": "pineapple", "mode": "tournament", "hands": "continuous",
        "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}]})  # fmt: skip
    assert r.status_code == 400 and "tournament" in r.json()["detail"]
    r = client.post("/api/tables", json={"preset": "pineapple", "hands": "forever"})
    assert r.status_code == 422


def test_rematch_seats_every_person_and_offers_the_friend_to_follow(client: TestClient) -> None:
    made, joined = two_humans(client, next_hand_delay=0)
    tid = made["table"]["id"]
    rng = random.Random(5)
    url = f"/api/tables/{tid}/rematch"
    with connect(client, tid, made["token"]) as ann, connect(client, tid, joined["token"]) as bob:
        recv(ann)
        recv(bob)
        r = client.post(url, json={"token": made["token"]})
        assert r.status_code == 409 and "still being played" in r.json()["detail"]
        drive({0: ann, 1: bob}, rng, lambda m: m["type"] == "session_end")
        assert client.post(url, json={"token": "s-forged"}).status_code == 403
        r = client.post(url, json={"token": made["token"]})
        assert r.status_code == 200, r.text
        new = r.json()["table"]
        assert r.json()["seat"] == 0 and new["id"] != tid
        assert [s["name"] for s in new["seats"]] == ["Ann", "Bob"]
        assert new["status"] == "playing"  # every seat is taken: it deals at once
        offer = recv_until(bob, lambda m: m["type"] == "rematch")
        assert offer["rematch"] == new["id"] and offer["by"] == "Ann"
        # Bob asking too gets the same table, not a third one.
        again = client.post(url, json={"token": joined["token"]}).json()
        assert again["table"]["id"] == new["id"] and again["seat"] == 1
    # Bob follows with the key he holds: his own seat, no link, no join code.
    with connect(client, new["id"], joined["token"]) as bob:
        welcome = recv(bob)
        assert welcome["role"] == "seat" and welcome["seat"] == 1 and welcome["player"] == "Bob"
        assert recv_until(bob, lambda m: m["type"] == "state")["view"]["seat"] is not None
    assert client.get(f"/api/tables/{tid}").json()["rematch"] == new["id"]


@dataclass
class LoopWithClock:
    """The table's event loop, except that its ``time()`` is the test's clock (the
    loop's own timers still run on its real clock)."""

    loop: asyncio.AbstractEventLoop
    clock: FakeClock

    def time(self) -> float:
        return self.clock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loop, name)


def test_time_banks_and_stand_ins_survive_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FakeClock()  # the table charges time banks by it: Ann thinks when the test says
    monkeypatch.setattr(
        LiveTable, "loop", property(lambda _: LoopWithClock(asyncio.get_running_loop(), clock))
    )
    url = f"sqlite:///{tmp_path / 'server.db'}"
    body = {"time_limit": 0.2, "time_bank": 5, "timeouts": "decision", "grace": 1.0}
    with TestClient(create_app(url)) as client:
        made, joined = two_humans(client, hands="continuous", **body)
        tid = made["table"]["id"]
        with connect(client, tid, made["token"]) as ann:
            first_state(ann)
            with connect(client, tid, joined["token"]) as bob:
                first_state(bob)
            assert recv_until(ann, lambda m: m["type"] == "notice")["kind"] == "stand_in"
            st = recv_until(ann, lambda m: m["type"] == "state" and 0 in m["view"]["to_act"])
            clock.now += 0.7  # Ann thinks 0.5 s past her move's limit: her bank pays it
            ann.send_json(
                {"type": "action", "id": "a", "action": random_action(st["view"], random.Random(6))}
            )
            recv_until(ann, lambda m: m.get("ack") == "a")
            nxt = recv_until(ann, lambda m: m["type"] == "state" and 0 in m["view"]["to_act"])
            bank = nxt["clocks"][0]["bank"]
        assert bank == 4.5
    stored = Store(url).load_table(tid)
    assert stored is not None
    assert stored.live["stand_in"] == [1] and stored.live["banks"]["0"] == bank
    with TestClient(create_app(url)) as client:  # the server restarted mid-hand
        assert client.get(f"/api/tables/{tid}").json()["seats"][1]["stand_in"] is True
        with connect(client, tid, made["token"]) as ann:
            st = recv_until(ann, lambda m: m["type"] == "state")
            assert st["hand"] == nxt["hand"] and st["view"]["version"] == nxt["view"]["version"]
            assert st["clocks"][0]["bank"] == bank
