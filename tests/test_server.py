"""The server in process (FastAPI TestClient): lobby, WebSocket play, leaks, errors, timers.

The kill-and-restart test with a real server process is in ``test_server_restart.py``.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from _helpers import random_action
from chinese_poker.cards import Card, card_name, parse_card
from chinese_poker.engine import Table, action_from_dict, read_history, replay_history
from chinese_poker.rules import Rules
from chinese_poker.server import connections, scheduling, table_bots
from chinese_poker.server.app import create_app
from chinese_poker.server.fairness import verify_record

CARD_TEXT = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][shdc])(?![A-Za-z0-9])")

Msg = dict[str, Any]


# --------------------------------------------------------------------------- helpers


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 'server.db'}")
    with TestClient(app) as c:
        yield c


def recv(ws: WebSocketTestSession, timeout: float = 10.0) -> Msg:
    """The next message of a socket, failing after ``timeout`` seconds."""

    async def get() -> Any:
        with anyio.fail_after(timeout):
            return await ws._send_rx.receive()

    message = ws.portal.call(get)
    if message["type"] == "websocket.close":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason", ""))
    data: Msg = json.loads(message["text"])
    return data


def recv_until(
    ws: WebSocketTestSession, pred: Callable[[Msg], bool], seen: list[Msg] | None = None
) -> Msg:
    for _ in range(500):
        m = recv(ws)
        if seen is not None:
            seen.append(m)
        if pred(m):
            return m
    raise AssertionError("message never came")


def quiet(ws: WebSocketTestSession) -> list[Msg]:
    """Everything a socket received before the answer to a fresh ping."""
    ws.send_json({"type": "ping", "id": "quiet"})
    got: list[Msg] = []
    while True:
        m = recv(ws)
        if m["type"] == "pong" and m["ref"] == "quiet":
            return got
        got.append(m)


def create(client: TestClient, **body: Any) -> Msg:
    body.setdefault("bot_delay", 0)
    body.setdefault("next_hand_delay", 0)
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    data: Msg = r.json()
    return data


def two_humans(client: TestClient, preset: str = "pineapple", **body: Any) -> tuple[Msg, Msg]:
    made = create(
        client, preset=preset, seats=[{"kind": "human", "name": "Ann"}, {"kind": "human"}], **body
    )
    r = client.post(
        f"/api/tables/{made['table']['id']}/join", json={"code": made["join_code"], "name": "Bob"}
    )
    assert r.status_code == 200, r.text
    return made, r.json()


@contextlib.contextmanager
def connect(client: TestClient, table_id: str, token: str | None = None) -> Iterator[Any]:
    """A seat's socket (its token in the first message) or, without a token, a spectator's."""
    q = "?role=seat" if token else ""
    with client.websocket_connect(f"/ws/tables/{table_id}{q}") as ws:
        if token:
            ws.send_json({"type": "auth", "token": token})
        yield ws


def first_state(ws: WebSocketTestSession, seen: list[Msg] | None = None) -> Msg:
    welcome = recv(ws)
    assert welcome["type"] == "welcome"
    if seen is not None:
        seen.append(welcome)
    return recv_until(ws, lambda m: m["type"] == "state", seen)


@dataclass
class HeldBot:
    """A server bot that thinks until the test lets it go (:func:`held_bots`)."""

    bot: Any
    go: threading.Event
    moved: threading.Event

    def act(self, view: Any) -> Any:
        if not self.go.wait(60):
            raise AssertionError("the test never let the bots move")
        try:
            return self.bot.act(view)
        finally:
            self.moved.set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.bot, name)


@dataclass
class Hold:
    go: threading.Event
    moved: threading.Event


def held_bots(monkeypatch: pytest.MonkeyPatch) -> Hold:
    """Every bot the server builds (a stand-in too) waits for ``hold.go.set()`` before
    its move, and sets ``hold.moved`` after one: a person's clock that starts after a
    bot's move then starts when the test says, not after a ``bot_delay`` that a busy
    machine may outlast before the person has even connected."""
    hold = Hold(threading.Event(), threading.Event())
    build = table_bots.make_server_bot

    def held(name: str, level: int | None, seed: int) -> Any:
        return HeldBot(build(name, level, seed), hold.go, hold.moved)

    monkeypatch.setattr(table_bots, "make_server_bot", held)
    return hold


def first_turn(ws: WebSocketTestSession, seat: int, seen: list[Msg] | None = None) -> Msg:
    """The first state in which ``seat`` is to act: a bot that places before it (RULES
    §5.1, play starts left of the button) may not have acted when the first state is sent."""
    state = first_state(ws, seen)
    if seat in state["view"]["to_act"]:
        return state
    return recv_until(ws, lambda m: m["type"] == "state" and seat in m["view"]["to_act"], seen)


# --------------------------------------------------------------------------- REST


def test_openapi_meta_and_pages(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    paths = doc["paths"]
    for path in (
        "/api/tables",
        "/api/tables/{table_id}",
        "/api/tables/{table_id}/join",
        "/api/tables/{table_id}/ledger",
        "/api/tables/{table_id}/history",
        "/api/tables/{table_id}/hands",
        "/api/presets",
        "/api/bots",
        "/api/health",
    ):
        assert path in paths, path
    assert "post" in paths["/api/tables"] and "get" in paths["/api/tables"]
    for model in ("TableInfo", "Created", "Joined", "LedgerInfo", "HandInfo", "CreateTable"):
        assert model in doc["components"]["schemas"], model
    assert client.get("/api/health").json()["ok"] is True
    presets = {p["name"]: p for p in client.get("/api/presets").json()}
    assert {"ofc", "pineapple", "classic", "criss-cross", "turbo"} <= set(presets)
    assert presets["pineapple"]["players"] == [2, 3]
    assert {"random", "rules"} <= {b["name"] for b in client.get("/api/bots").json()}
    assert client.get("/").status_code == 200
    assert client.get("/join/t-x?code=y").status_code == 200


def test_lobby_flow(client: TestClient) -> None:
    made = create(
        client,
        preset="ofc",
        options={"finnish_deuce": True},
        time_limit=30,
        seats=[
            {"kind": "human", "name": "Ann"},
            {"kind": "human"},
            {"kind": "bot", "bot": "rules", "name": "Robo"},
        ],
    )
    table = made["table"]
    tid = table["id"]
    assert (
        made["seat"] == 0
        and made["token"]
        and made["invite_url"].endswith(f"/join/{tid}?code={made['join_code']}")
    )
    assert made["ws_url"].startswith("ws://") and made["token"] not in made["ws_url"]
    assert table["status"] == "waiting" and table["rules"]["finnish_deuce"] is True
    assert table["time_limit"] == 30 and table["rules"]["time_limit"] == 30
    assert [s["taken"] for s in table["seats"]] == [True, False, True]
    assert made["join_code"] not in json.dumps(table)

    listed = client.get("/api/tables").json()
    assert tid in [t["id"] for t in listed]
    assert tid in [t["id"] for t in client.get("/api/tables?status=waiting").json()]
    assert client.get("/api/tables/nope").status_code == 404
    assert (
        client.post(f"/api/tables/{tid}/join", json={"code": "wrong", "name": "X"}).status_code
        == 403
    )
    r = client.post(f"/api/tables/{tid}/join", json={"code": made["join_code"], "name": "Ann"})
    assert r.status_code == 200
    joined = r.json()
    assert joined["seat"] == 1 and joined["player"] == "Ann (2)"
    assert (
        client.post(
            f"/api/tables/{tid}/join", json={"code": made["join_code"], "name": "Z"}
        ).status_code
        == 409
    )
    info = client.get(f"/api/tables/{tid}").json()
    assert info["status"] == "playing" and info["hand"] == 1 and info["commitment"]
    ledger = client.get(f"/api/tables/{tid}/ledger").json()
    assert ledger["players"] == ["Ann", "Ann (2)", "Robo"] and ledger["hands_played"] == 0
    hands = client.get(f"/api/tables/{tid}/hands").json()
    assert hands[0]["commitment"] == info["commitment"] and hands[0]["seed"] is None
    assert client.get(f"/api/tables/{tid}/history").text == ""


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"preset": "nonsense"}, "preset"),
        ({"preset": "ofc", "options": {"finnish_deuce": "maybe"}}, "finnish_deuce"),
        ({"preset": "ofc", "options": {"no_such_option": 1}}, "no_such_option"),
        ({"preset": "pineapple", "seats": [{"kind": "human"}] * 4}, "players"),
        ({"preset": "ofc", "seats": [{"kind": "human"}, {"kind": "bot"}]}, "bot name"),
        ({"preset": "ofc", "seats": [{"kind": "human"}, {"kind": "bot", "bot": "zz"}]}, "bot"),
        (
            {
                "preset": "ofc",
                "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random", "level": 2}],
            },
            "level",
        ),
        (
            {
                "preset": "ofc",
                "seats": [{"kind": "human"}, {"kind": "bot", "bot": "mc", "level": 99}],
            },
            "level",
        ),
    ],
)
def test_create_rejects_bad_requests(client: TestClient, body: Msg, words: str) -> None:
    r = client.post("/api/tables", json=body)
    assert r.status_code in (400, 422), r.text
    assert words in r.text


# --------------------------------------------------------------------------- play


def allowed_cards(t: Table, seat: int | None) -> set[Card]:
    """What ``seat`` may know, computed from the true state (independently of views)."""
    allowed: set[Card] = set()
    hands = 2 if t.rules.variant == "criss_cross" else 1
    for s in range(t.n_seats):
        for h in range(hands):
            if s == seat:
                allowed.update(t.dealt(s, h))
            elif t.over or (t.rules.is_open_face and s not in t.fantasyland):
                allowed.update(t.board(s, h).cards)
    return allowed


def cards_in(message: Msg) -> set[Card]:
    return {parse_card(c) for c in CARD_TEXT.findall(json.dumps(message))}


def check_no_leaks(record: Msg, received: dict[int | None, list[Msg]]) -> int:
    """Replay the hand; every message of every socket names only cards it may know."""
    rules = Rules.from_dict(record["rules"])
    table = Table(
        rules,
        record["players"],
        button=record["button"],
        deck=[parse_card(c) for c in record["deck"]],
    )
    allowed_at: dict[int | None, dict[int, set[Card]]] = {s: {} for s in received}
    for s in received:
        allowed_at[s][0] = allowed_cards(table, s)
    for data in record["actions"]:
        if not data.get("auto"):
            table.apply(action_from_dict(data))
        for s in received:
            allowed_at[s][table.version] = allowed_cards(table, s)
    final = table.version
    checked = 0
    for seat, messages in received.items():
        for m in messages:
            if m["type"] in ("state", "hand_start") and m["hand"] != record["session"]["hand"]:
                continue  # the next hand
            version = m.get("version") if m["type"] == "state" else final
            if m["type"] in ("welcome", "seats", "hand_start") or version is None:
                version = 0 if m["type"] in ("welcome", "hand_start") else final
            leaked = cards_in(m) - allowed_at[seat][version]
            assert not leaked, (seat, m["type"], version, [card_name(c) for c in leaked])
            checked += 1
    return checked


def play_hand(
    sockets: dict[int, WebSocketTestSession],
    spectators: list[WebSocketTestSession],
    rng: random.Random,
    received: dict[int | None, list[Msg]],
) -> Msg:
    """Each human seat acts randomly on its turn until the hand ends; returns hand_end."""
    latest: dict[int, Msg] = {}
    for seat, ws in sockets.items():
        latest[seat] = first_state(ws, received[seat])
    for ws in spectators:
        first_state(ws, received[None])
    end: Msg | None = None
    for _ in range(400):
        acted = False
        for seat, ws in sockets.items():
            view = latest[seat]["view"]
            if view["phase"] != "showdown" and seat in view["to_act"] and view["decisions"]:
                ref = f"{seat}-{view['version']}"
                ws.send_json({"type": "action", "id": ref, "action": random_action(view, rng)})
                reply = recv_until(
                    ws,
                    lambda m, ref=ref: m["type"] == "error" or m.get("ack") == ref,  # type: ignore[misc]
                    received[seat],
                )
                assert reply["type"] == "state", reply
                latest[seat] = reply
                acted = True
        for seat, ws in sockets.items():
            for m in quiet(ws):
                received[seat].append(m)
                if m["type"] == "state":
                    latest[seat] = m
                if m["type"] == "hand_end":
                    end = m
        if end is not None:
            break
        assert acted or any(latest[s]["view"]["to_act"] for s in sockets), "nobody can act"
    assert end is not None
    for ws in spectators:
        received[None].extend(quiet(ws))
    return end


@pytest.mark.parametrize("preset", ["pineapple", "classic"])
def test_two_humans_and_a_spectator_leak_nothing(client: TestClient, preset: str) -> None:
    made, joined = two_humans(client, preset)
    tid = made["table"]["id"]
    received: dict[int | None, list[Msg]] = {0: [], 1: [], None: []}
    with (
        connect(client, tid, made["token"]) as a,
        connect(client, tid, joined["token"]) as b,
        connect(client, tid) as watcher,
    ):
        end = play_hand({0: a, 1: b}, [watcher], random.Random(7), received)
    assert end["hand"] == 1 and sum(end["totals"].values()) == 0
    first = next(m for m in received[0] if m["type"] == "state")
    assert end["reveal"]["commitment"] == first["commitment"]
    records = [
        json.loads(line) for line in client.get(f"/api/tables/{tid}/history").text.splitlines()
    ]
    assert len(records) == 1 and verify_record(records[0]).ok
    # the history is the engine's: it replays (once the server's extra field is set aside)
    replay_history([{k: v for k, v in r.items() if k != "fairness"} for r in records])
    # the spectator saw states, the showdown and never a private card
    assert any(m["type"] == "state" and m["view"]["seat"] is None for m in received[None])
    checked = check_no_leaks(records[0], received)
    assert checked > 15  # a classic hand of two actions sends 18 messages (four, 24)


def test_full_pineapple_hand_against_a_bot_then_ledger_and_history(
    client: TestClient, tmp_path: Path
) -> None:
    made = create(
        client,
        preset="pineapple",
        seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "rules"}],
    )
    tid = made["table"]["id"]
    received: dict[int | None, list[Msg]] = {0: []}
    with connect(client, tid, made["token"]) as ws:
        end = play_hand({0: ws}, [], random.Random(3), received)
    states = [m for m in received[0] if m["type"] == "state" and m["hand"] == 1]
    assert states[-1]["view"]["phase"] == "showdown"
    assert states[-1]["view"]["settlement"] is not None
    ledger = client.get(f"/api/tables/{tid}/ledger").json()
    assert ledger["hands"][0]["totals"] == end["totals"]
    assert ledger["points"] == end["totals"]
    r = client.get(f"/api/tables/{tid}/history")
    assert r.headers["content-type"].startswith("application/x-ndjson")
    path = tmp_path / "h.jsonl"
    path.write_text(r.text)
    (record,) = read_history(path)
    assert record["fairness"]["hand"] == 1 and record["session"]["hand"] == 1
    hands = client.get(f"/api/tables/{tid}/hands").json()
    assert hands[0]["seed"] == record["fairness"]["seed"] and hands[0]["finished"]
    assert hands[1]["seed"] is None and hands[1]["commitment"]  # next hand: committed


def test_stale_duplicate_and_bad_messages_hurt_nobody(client: TestClient) -> None:
    made, joined = two_humans(client)
    tid = made["table"]["id"]
    with (
        connect(client, tid, made["token"]) as a,
        connect(client, tid, joined["token"]) as b,
        connect(client, tid) as watcher,
    ):
        sa, sb = first_state(a), first_state(b)
        first_state(watcher)
        # Bob (seat 1, left of the button) acts first
        assert sb["view"]["to_act"] == [1]
        action = random_action(sb["view"], random.Random(1))
        b.send_json({"type": "action", "id": 1, "action": action})
        after = recv_until(b, lambda m: m["type"] == "state")
        version = after["version"]
        assert version == sb["version"] + 1
        recv_until(a, lambda m: m["type"] == "state")
        recv_until(watcher, lambda m: m["type"] == "state")

        def rejected(ws: WebSocketTestSession, payload: Any, code: str, raw: bool = False) -> Msg:
            if raw:
                ws.send_text(payload)
            else:
                ws.send_json(payload)
            err = recv(ws)
            assert err["type"] == "error" and err["code"] == code, err
            assert err["version"] == version
            return err

        # the same action again: stale, to Bob only
        err = rejected(b, {"type": "action", "id": 2, "action": action}, "stale")
        assert err["ref"] == 2 and "stale" in err["message"]
        # Ann acting now, with a version the table has not reached, with another seat
        rejected(a, {"type": "action", "action": {**action, "version": version}}, "illegal")
        assert sa["view"]["decisions"] == []
        rejected(a, {"type": "action", "action": {**action, "version": 99}}, "illegal")
        rejected(a, {"type": "action", "action": {**action, "seat": 1}}, "not_your_seat")
        rejected(
            a, {"type": "action", "action": {"type": "timeout", "version": version}}, "illegal"
        )
        rejected(a, {"type": "action", "action": {"type": "place", "top": ["Ah"]}}, "bad_message")
        rejected(a, {"type": "action", "action": {"type": "place", "version": "1"}}, "bad_message")
        rejected(
            a,
            {"type": "action", "action": {"type": "place", "version": 1, "top": ["Zz"]}},
            "bad_message",
        )
        rejected(a, {"type": "dance"}, "unknown_type")
        rejected(a, {"id": 5}, "bad_message")
        rejected(a, {"type": "ping", "extra": 1}, "bad_message")
        rejected(a, [1, 2], "bad_message")
        rejected(a, "{not json", "bad_json", raw=True)
        rejected(a, json.dumps({"type": "ping", "pad": "x" * 70_000}), "too_large", raw=True)
        a.send_bytes(b"\x00\x01")
        assert recv(a)["code"] == "bad_json"
        rejected(watcher, {"type": "action", "action": action}, "read_only")
        rejected(watcher, {"type": "hint"}, "read_only")
        # nobody else heard anything, and nothing changed
        assert quiet(a) == [] and quiet(b) == [] and quiet(watcher) == []
        assert client.get(f"/api/tables/{tid}").json()["version"] == version
        b.send_json({"type": "sync", "id": "s"})
        again = recv(b)
        assert again["type"] == "state" and again["view"] == after["view"]
        assert len(again["log"]) == version
        # Ann can still play normally
        a.send_json({"type": "sync"})
        cur = recv(a)
        a.send_json({"type": "action", "action": random_action(cur["view"], random.Random(3))})
        assert recv_until(a, lambda m: m["type"] in ("state", "error"))["type"] == "state"


def test_log_shows_only_what_the_seat_may_see(client: TestClient) -> None:
    made, joined = two_humans(client)
    tid = made["table"]["id"]
    rng = random.Random(5)
    with connect(client, tid, made["token"]) as a, connect(client, tid, joined["token"]) as b:
        states = {0: first_state(a), 1: first_state(b)}
        socks = {0: a, 1: b}
        for _ in range(4):  # streets 1 and 2 of both seats
            seat = states[0]["view"]["to_act"][0]
            socks[seat].send_json(
                {"type": "action", "action": random_action(states[seat]["view"], rng)}
            )
            for s, ws in socks.items():
                states[s] = recv_until(ws, lambda m: m["type"] == "state")
        a.send_json({"type": "sync"})
        log = recv(a)["log"]
    assert len(log) == 4
    for entry in log:
        assert {"type", "seat", "hand", "version", "auto"} <= set(entry)
        if entry["seat"] == 0:
            assert "discard" in entry
        else:
            assert "discard" not in entry and "top" in entry  # open face: placed cards shown


def test_reconnect_gets_the_same_view_and_the_hand_so_far(client: TestClient) -> None:
    made, joined = two_humans(client)
    tid = made["table"]["id"]
    rng = random.Random(11)
    with connect(client, tid, joined["token"]) as b:
        s = first_state(b)
        b.send_json({"type": "action", "action": random_action(s["view"], rng)})
        before = recv_until(b, lambda m: m["type"] == "state")
    with connect(client, tid, made["token"]) as a:
        s = first_state(a)
        a.send_json({"type": "action", "action": random_action(s["view"], rng)})
        recv_until(a, lambda m: m["type"] == "state")
    with connect(client, tid, joined["token"]) as b:
        welcome = recv(b)
        assert welcome["role"] == "seat" and welcome["seat"] == 1 and welcome["player"] == "Bob"
        seats = recv(b)
        assert seats["type"] == "seats" and seats["seats"][1]["connected"]
        now = recv(b)
        assert now["type"] == "state" and now["version"] == before["version"] + 1
        assert len(now["log"]) == 2 and now["log"][0]["discard"] == []
        assert now["view"]["hand"] and now["view"]["to_act"] == [1]
        assert now["view"]["boards"][1]["top"] == before["view"]["boards"][1]["top"]
        # a bad token is refused
    with connect(client, tid, "s-bad") as bad, pytest.raises(WebSocketDisconnect) as exc:
        recv(bad)
    assert exc.value.code == 4401
    with connect(client, "t-none") as none, pytest.raises(WebSocketDisconnect) as exc:
        recv(none)
    assert exc.value.code == 4404


def test_timer_plays_a_silent_seat_by_timeout(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bot places first (button 0): it waits until Ann is connected, so her clock
    # starts from a state she is sent, however busy the machine.
    hold = held_bots(monkeypatch)
    made = create(
        client,
        preset="pineapple",
        time_limit=0.2,
        seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}],
    )
    tid = made["table"]["id"]
    seen: list[Msg] = []
    with connect(client, tid, made["token"]) as ws:
        assert 0 not in first_state(ws, seen)["view"]["to_act"]
        hold.go.set()
        first = recv_until(ws, lambda m: m["type"] == "state" and 0 in m["view"]["to_act"], seen)
        assert first["clocks"] and first["clocks"][0]["seat"] == 0
        assert 0 < first["clocks"][0]["remaining"] <= 0.2
        end = recv_until(ws, lambda m: m["type"] == "hand_end", seen)
        over = recv_until(ws, lambda m: m["type"] == "session_end", seen)
    timeouts = [
        m for m in seen if m["type"] == "state" and m["last"] and m["last"]["type"] == "timeout"
    ]
    assert len(timeouts) == 1 and timeouts[0]["last"]["seat"] == 0
    assert 0 in timeouts[0]["view"]["timed_out"]
    assert end["session_over"] is True  # timeout_ends_session
    assert over["ledger"]["over"] is True
    (record,) = [json.loads(x) for x in client.get(f"/api/tables/{tid}/history").text.splitlines()]
    assert any(a.get("auto") for a in record["actions"])
    assert record["session"]["timed_out"] == ["Ann"]
    assert client.get(f"/api/tables/{tid}").json()["status"] == "finished"


def test_hints_and_legal(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scheduling, "HINT_SECONDS", 0.2)

    made = create(
        client,
        preset="pineapple",
        hints=False,
        seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}],
    )
    with connect(client, made["table"]["id"], made["token"]) as ws:
        s = first_turn(ws, 0)
        ws.send_json({"type": "hint", "id": 1})
        assert recv(ws)["code"] == "hints_disabled"
        ws.send_json({"type": "legal", "id": 2})
        legal = recv(ws)
        assert legal["type"] == "legal" and legal["count"] == 232 and not legal["truncated"]
        assert len(legal["actions"]) == 232 and legal["version"] == s["version"]
        ws.send_json({"type": "legal", "limit": 10})
        assert recv(ws)["truncated"] is True
    made = create(
        client,
        preset="pineapple",
        hints=True,
        seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}],
    )
    with connect(client, made["table"]["id"], made["token"]) as ws:
        first_turn(ws, 0)
        ws.send_json({"type": "hint", "id": 3, "limit": 5})
        reply = recv(ws, timeout=60)
    try:
        import chinese_poker.ai.hints  # noqa: F401
    except ImportError:
        assert reply["type"] == "error" and reply["code"] == "hints_unavailable"
    else:
        assert reply["type"] == "hint" and reply["ref"] == 3 and reply["count"] == 232
        assert len(reply["actions"]) == 5 and reply["actions"][0]["action"]["type"] == "place"
        values = [e["value"] for e in reply["actions"]]
        assert values == sorted(values, reverse=True)


def test_bot_tournament_to_the_end_with_a_spectator(client: TestClient) -> None:
    made = create(
        client,
        preset="ofc",
        mode="tournament",
        options={"level_values": "50"},
        tournament={"stacks": {"A": 40, "B": 40}, "level_hands": 1},
        seats=[
            {"kind": "bot", "bot": "random", "name": "A"},
            {"kind": "bot", "bot": "random", "name": "B"},
        ],
    )
    assert made["token"] is None and made["table"]["status"] == "playing"
    tid = made["table"]["id"]
    seen: list[Msg] = []
    with connect(client, tid) as watcher:
        assert recv(watcher)["role"] == "spectator"
        end = recv_until(watcher, lambda m: m["type"] == "session_end", seen)
    assert end["ledger"]["kind"] == "tournament" and end["ledger"]["over"]
    assert 0 in end["ledger"]["stacks"].values() or len(end["ledger"]["out"]) == 1
    assert all(m["view"]["hand"] == [] for m in seen if m["type"] == "state")
    records = [json.loads(x) for x in client.get(f"/api/tables/{tid}/history").text.splitlines()]
    assert len(records) == end["ledger"]["hands_played"]
    assert all(verify_record(r).ok for r in records)
    replay_history([{k: v for k, v in r.items() if k != "fairness"} for r in records])


def test_restart_in_process_resumes_the_table(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'server.db'}"
    rng = random.Random(4)
    with TestClient(create_app(url)) as client:
        made, joined = two_humans(client)
        tid = made["table"]["id"]
        with connect(client, tid, joined["token"]) as b:
            s = first_state(b)
            b.send_json({"type": "action", "action": random_action(s["view"], rng)})
            before = recv_until(b, lambda m: m["type"] == "state")
        with connect(client, tid, made["token"]) as a:
            view_a = first_state(a)
    with TestClient(create_app(url)) as client:
        with connect(client, tid, joined["token"]) as b:
            assert first_state(b)["view"] == before["view"]
        with connect(client, tid, made["token"]) as a:
            again = first_state(a)
            assert again["view"] == view_a["view"] and again["log"] == view_a["log"]
        assert client.get(f"/api/tables/{tid}").json()["status"] == "playing"


def test_migrations_match_the_models(tmp_path: Path) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from chinese_poker.server.db import Base, Store

    store = Store(f"sqlite:///{tmp_path / 'm.db'}")
    store.migrate()
    store.migrate()  # idempotent
    with store.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    store.close()


def test_downgrading_the_schema_keeps_every_table_seat_and_action(tmp_path: Path) -> None:
    """Alembic down to 0002 and up again on the store's own connections (SQLite with
    foreign keys on): rebuilding ``tables`` to drop a column would delete every row that
    refers to a table (seats, hands, actions) through its ``ON DELETE CASCADE``; the seats
    and actions of a table in play must all still be there."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import text as sql_text

    from chinese_poker.server.db import Store

    url = f"sqlite:///{tmp_path / 'down.db'}"
    with TestClient(create_app(url)) as client:
        made = create(client, preset="pineapple")
        with connect(client, made["table"]["id"], made["token"]) as ws:
            view = first_turn(ws, 0)["view"]
            ws.send_json({"type": "action", "action": random_action(view, random.Random(1))})
            recv_until(
                ws, lambda m: m["type"] == "state" and m["view"]["version"] > view["version"]
            )
    counts = "SELECT (SELECT count(*) FROM tables), (SELECT count(*) FROM seats), " \
        "(SELECT count(*) FROM actions)"  # fmt: skip
    store = Store(url)
    with store.engine.connect() as conn:
        assert conn.execute(sql_text("PRAGMA foreign_keys")).scalar() == 1
        before = tuple(conn.execute(sql_text(counts)).one())
    assert before[0] == 1 and before[1] >= 2 and before[2] >= 1
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(connections.__file__).parent / "migrations"))
    for step in ("0002", "head"):
        with store.engine.begin() as conn:
            cfg.attributes["connection"] = conn
            (command.downgrade if step == "0002" else command.upgrade)(cfg, step)
        with store.engine.connect() as conn:
            assert tuple(conn.execute(sql_text(counts)).one()) == before, step
    store.close()


@pytest.mark.parametrize("preset", ["ofc", "pineapple", "classic", "criss-cross"])
def test_one_actions_states_are_each_seats_own_state_message(preset: str) -> None:
    """``state_messages`` (an action's states, the shared parts serialised once) gives
    every socket exactly the text ``state_message`` gives it alone."""
    from chinese_poker.rules import rules_for

    rules = rules_for(preset)
    rng = random.Random(3)
    players = 3 if preset != "criss-cross" else 2
    table = Table(rules, players, seed=5)
    sockets = [(s, None) for s in range(players)] + [(None, None), (0, "ref-1"), (None, None)]
    while not table.over:
        table.apply(table.random_action(table.to_act[0], rng))
        last = table.log[-1]
        clocks = [{"seat": 0, "remaining": 1.5, "limit": 30.0}]
        many = connections.ViewCache().state_messages(
            table,
            table_id="t-1",
            hand=2,
            seats=sockets,
            last=last,
            clocks=clocks,
            commitment="c0ffee",
        )
        alone = connections.ViewCache()
        assert many == [
            alone.state_message(
                table,
                table_id="t-1",
                hand=2,
                seat=seat,
                last=last,
                ack=ack,
                clocks=clocks,
                commitment="c0ffee",
            )
            for seat, ack in sockets
        ]


def test_a_monte_carlo_bot_plays_at_a_table(client: TestClient) -> None:
    made = create(
        client,
        preset="pineapple",
        seats=[
            {"kind": "human", "name": "Ann"},
            {"kind": "bot", "bot": "mc", "level": 1, "name": "Monty"},
        ],
    )
    assert made["table"]["seats"][1]["level"] == 1
    with connect(client, made["table"]["id"], made["token"]) as ws:
        state = first_state(ws)
        if state["version"] == 0:  # the bot (left of the button) has not acted yet
            state = recv_until(ws, lambda m: m["type"] == "state")
        assert state["version"] == 1 and state["view"]["boards"][1]["placed"] == 5


def test_metrics_answer_only_the_servers_own_machine_and_say_what_memory_is(
    tmp_path: Path,
) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'server.db'}")
    with TestClient(app, client=("127.0.0.1", 50000)) as local:
        got = local.get("/api/metrics").json()
        assert {"actions", "loop_lag", "gc_pauses", "kernels_warm"} <= set(got)
        assert got["allocated_blocks"] > 0 and got["gc_frozen"] >= 0
    with TestClient(app, client=("203.0.113.9", 50000)) as outside:
        assert outside.get("/api/metrics").status_code == 404


def test_a_stored_bot_level_no_longer_offered_plays_the_default(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A table stored while ``mc`` offered levels 4 and 5 (the lobby's Expert was level 4)
    resumes after the upgrade: its bot plays the default level (before, building it
    failed at every move, and the server played a random action for it), and a new table
    still cannot ask for level 4."""
    from sqlalchemy import text as sql_text

    from chinese_poker.server.db import Store

    url = f"sqlite:///{tmp_path / 'server.db'}"
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "mc", "level": 3}]
    with TestClient(create_app(url)) as client:
        made = create(client, preset="pineapple", seats=seats, button=1)
        tid = made["table"]["id"]
        r = client.post("/api/tables", json={"preset": "pineapple", "seats": [
            {"kind": "human"}, {"kind": "bot", "bot": "mc", "level": 4}]})  # fmt: skip
        assert r.status_code == 400 and "level must be 1 to 3, not 4" in r.text
    store = Store(url)
    with store.engine.begin() as conn:
        conn.execute(sql_text("UPDATE seats SET level = 4 WHERE table_id = :t AND seat = 1"),
                     {"t": tid})  # fmt: skip
    store.close()
    rng = random.Random(5)
    with TestClient(create_app(url)) as client, connect(client, tid, made["token"]) as ws:
        state = first_turn(ws, 0)
        ws.send_json({"type": "action", "action": random_action(state["view"], rng)})
        # The bot answers the street: Ann is to act again on the next one.
        again = recv_until(
            ws,
            lambda m: (
                m["type"] == "state"
                and 0 in m["view"]["to_act"]
                and m["view"]["version"] > state["view"]["version"]
            ),
        )
        assert again["view"]["boards"][1]["placed"] >= 5
    assert not [r for r in caplog.records if "failed; random action" in r.getMessage()]
    assert any("level 4 is no longer offered" in r.getMessage() for r in caplog.records)
