"""The server's side of the fair shuffle (docs/fairness.md) over the real protocol:
hand 1 committed as the table opens, players' values taken until the deal and refused
after, the deal never waiting for a silent player, the values surviving a restart, and
every history verifying with the values the players sent."""

from __future__ import annotations

import random
import secrets
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from chinese_poker.server.app import create_app
from chinese_poker.server.fairness import verify_records
from test_fairness import outside_verify
from test_server import connect, create, random_action, recv, recv_until
from test_server_restart import database_url

__all__ = ["database_url"]  # the fixture: SQLite, and PostgreSQL when configured

Msg = dict[str, Any]


def _open(client: TestClient, delay: float) -> Msg:
    return create(
        client,
        preset="pineapple",
        next_hand_delay=delay,
        seats=[
            {"kind": "human", "name": "Ann"},
            {"kind": "human"},
            {"kind": "bot", "bot": "random"},
        ],
    )


def _join(client: TestClient, made: Msg) -> Msg:
    r = client.post(
        f"/api/tables/{made['table']['id']}/join", json={"code": made["join_code"], "name": "Bob"}
    )
    assert r.status_code == 200, r.text
    data: Msg = r.json()
    return data


def _contribute(
    ws: Any, hand: int, value: str, ref: str = "c", seen: list[Msg] | None = None
) -> Msg:
    ws.send_json({"type": "contribute", "id": ref, "hand": hand, "value": value})
    while True:  # states of other seats' moves may come first
        m = recv(ws)
        if seen is not None:
            seen.append(m)
        if m.get("ref") == ref:
            return m


def _play_out(
    socks: dict[int, Any], rng: random.Random, states: dict[int, Msg] | None = None
) -> Msg:
    """Random actions of the human seats until hand_end (the bot plays itself)."""
    states = dict(states or {})
    for s, ws in socks.items():
        if s not in states:
            states[s] = recv_until(ws, lambda m: m["type"] == "state")
    while True:
        for seat, ws in socks.items():
            view = states[seat]["view"]
            if view["phase"] == "showdown":
                return recv_until(ws, lambda m: m["type"] == "hand_end")
            if seat in view["to_act"]:
                ws.send_json({"type": "action", "action": random_action(view, rng)})
        for seat, ws in socks.items():
            states[seat] = recv_until(ws, lambda m: m["type"] == "state")


def _history(client: TestClient, tid: str) -> list[Msg]:
    import json

    text = client.get(f"/api/tables/{tid}/history").text
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_values_are_taken_before_the_deal_and_mixed_into_it(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'server.db'}")
    with TestClient(app) as client:
        made = _open(client, delay=5)
        tid, info = made["table"]["id"], made["table"]
        first = info["next_commitment"]
        assert info["status"] == "waiting" and info["hand"] == 0 and first
        assert info["streets"] == [[5, 5], [3, 2], [3, 2], [3, 2], [3, 2]]
        hands = client.get(f"/api/tables/{tid}/hands").json()
        assert hands[0]["hand"] == 1 and hands[0]["commitment"] == first
        assert not hands[0]["started"] and hands[0]["seed"] is None
        values = {"Ann": secrets.token_hex(32), "Bob": secrets.token_hex(32)}
        with connect(client, tid, made["token"]) as ann, connect(client, tid) as watcher:
            welcome = recv(ann)
            assert welcome["type"] == "welcome" and welcome["table"]["next_commitment"] == first
            assert _contribute(ann, 1, values["Ann"])["type"] == "contributed"
            # refused, to the sender only, changing nothing
            refusals = {
                "duplicate": (1, secrets.token_hex(32)),
                "no_hand": (9, secrets.token_hex(32)),
                "bad_message": (1, "ABC"),
            }
            for code, (hand, value) in refusals.items():
                err = _contribute(ann, hand, value, ref=code)
                assert err["type"] == "error" and err["code"] == code, err
            recv(watcher)
            assert _contribute(watcher, 1, values["Bob"], "w")["code"] == "read_only"

            joined = _join(client, made)  # the seats are full: the deal waits for Bob
            assert client.get(f"/api/tables/{tid}").json()["hand"] == 0
            with connect(client, tid, joined["token"]) as bob:
                recv_until(bob, lambda m: m["type"] == "welcome")
                assert _contribute(bob, 1, values["Bob"])["type"] == "contributed"
                start = recv_until(bob, lambda m: m["type"] == "hand_start")
                assert start["hand"] == 1 and start["commitment"] == first
                seen: list[Msg] = []  # a resend after the deal (a reconnect): it is in
                again = _contribute(bob, 1, values["Bob"], "again", seen)
                assert again["code"] == "duplicate" and "already sent" in again["message"]
                dealt = [m for m in seen if m["type"] == "state"][-1]
                end = _play_out({0: ann, 1: bob}, random.Random(5), {1: dealt})
        reveal = end["reveal"]
        assert reveal["commitment"] == first and end["next_commitment"]
        assert reveal["contributions"] == [
            {"player": "Ann", "source": "player", "value": values["Ann"]},
            {"player": "Bob", "source": "player", "value": values["Bob"]},
            {
                "player": "Beginner bot",
                "source": "bot",
                "value": reveal["contributions"][2]["value"],
            },
        ]
        records = _history(client, tid)
        checks = verify_records(records)
        assert checks[0].ok and checks[0].contributed == ("Ann", "Bob"), checks[0].problem
        assert records[0]["fairness"] == reveal and outside_verify(records[0], first) is None


def test_a_silent_player_is_absent_and_the_deal_does_not_wait(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'server.db'}")
    with TestClient(app) as client:
        made = _open(client, delay=0.2)
        tid = made["table"]["id"]
        joined = _join(client, made)
        with (
            connect(client, tid, made["token"]) as ann,
            connect(client, tid, joined["token"]) as bob,
        ):
            recv_until(ann, lambda m: m["type"] == "hand_start")
            seen: list[Msg] = []
            late = _contribute(ann, 1, secrets.token_hex(32), "late", seen)
            assert late["code"] == "too_late" and "already dealt" in late["message"]
            dealt = [m for m in seen if m["type"] == "state"][-1]
            end = _play_out({0: ann, 1: bob}, random.Random(1), {0: dealt})
        assert [c["source"] for c in end["reveal"]["contributions"]] == ["absent", "absent", "bot"]
        records = _history(client, tid)
        assert all(c.ok and c.contributed == () for c in verify_records(records))


def test_the_values_survive_a_restart(database_url: str) -> None:
    url = database_url  # SQLite, and PostgreSQL when CHINESE_POKER_TEST_POSTGRES_URL is set
    values = {"Ann": "a5" * 32, "Bob": "5a" * 32}
    with TestClient(create_app(url)) as client:
        made = _open(client, delay=5)
        tid = made["table"]["id"]
        with connect(client, tid, made["token"]) as ann:
            recv(ann)
            _contribute(ann, 1, values["Ann"])
            joined = _join(client, made)
            with connect(client, tid, joined["token"]) as bob:
                recv(bob)
                _contribute(bob, 1, values["Bob"])
                before = recv_until(ann, lambda m: m["type"] == "state")
                bob_before = recv_until(bob, lambda m: m["type"] == "state")
                assert len(bob_before["view"]["hand"]) == 5  # Bob acts first
    with TestClient(create_app(url)) as client:  # a new process on the same database
        with (
            connect(client, tid, made["token"]) as ann,
            connect(client, tid, joined["token"]) as bob,
        ):
            recv(ann)
            after = recv_until(ann, lambda m: m["type"] == "state")
            bob_after = recv_until(bob, lambda m: m["type"] == "state")
            assert after["view"] == before["view"] and after["commitment"] == before["commitment"]
            assert bob_after["view"]["hand"] == bob_before["view"]["hand"]  # the same cards
            end = _play_out({0: ann, 1: bob}, random.Random(2), {0: after, 1: bob_after})
        given = {c["player"]: c["value"] for c in end["reveal"]["contributions"]}
        assert given["Ann"] == values["Ann"] and given["Bob"] == values["Bob"]
        assert all(c.ok for c in verify_records(_history(client, tid)))


def test_after_an_elimination_only_the_players_dealt_in_contribute(tmp_path: Path) -> None:
    """Finding 1 meets the shuffle: values follow the engine's players, not the chairs."""
    app = create_app(f"sqlite:///{tmp_path / 'server.db'}")
    rng = random.Random(9)
    with TestClient(app) as client:
        made = create(
            client,
            preset="pineapple",
            mode="tournament",
            next_hand_delay=0.05,
            options={"level_values": "50", "insufficient_chips_rule": "seat_order"},
            tournament={"stacks": {"Ann": 1, "B": 2000, "C": 2000}, "level_hands": 1},
            seats=[
                {"kind": "human", "name": "Ann"},
                {"kind": "bot", "bot": "rules", "name": "B"},
                {"kind": "bot", "bot": "rules", "name": "C"},
            ],
        )
        tid = made["table"]["id"]
        with connect(client, tid, made["token"]) as ann:
            recv_until(ann, lambda m: m["type"] == "welcome")
            hand = 1
            while True:
                reply = _contribute(ann, hand, secrets.token_hex(32), ref=f"h{hand}")
                assert reply["type"] == "contributed" or reply["code"] == "too_late", reply
                end = _play_out({0: ann}, rng)
                if "Ann" in end["ledger"]["out"]:
                    break
                assert not end["session_over"] and hand < 60, "Ann was never knocked out"
                hand += 1
            assert not end["session_over"]  # B and C play on
            refused = _contribute(ann, hand + 1, secrets.token_hex(32), ref="out")
            assert refused["code"] == "not_playing", refused
            # Ann watches the next hand, dealt to B and C only, to its end
            while recv(ann)["type"] not in ("hand_end", "session_end"):
                pass
        records = _history(client, tid)
        checks = verify_records(records)
        assert all(c.ok for c in checks), [c.problem for c in checks]
        for rec in records:
            f = rec["fairness"]
            assert [c["player"] for c in f["contributions"]] == rec["players"]
            assert outside_verify(rec) is None
        assert records[-1]["players"] == ["B", "C"]
