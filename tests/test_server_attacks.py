"""The server as a hostile player finds it (issue 9): every finding is reproduced here.

1. After a tournament elimination, or when a timed-out player sits out, the engine deals
   only to the players left and numbers them afresh: nobody may see or play another's
   hand, and no broadcast may fail because a seat left.
2. A name, seat or option the engine refuses is refused before anything is stored; a
   stored table that cannot be rebuilt is quarantined and every other table serves.
3. A hint flood neither starves bots nor grows a queue: one pending hint per seat.
4. Creation, joins and join codes are rate-limited per address; bodies are limited
   before they are read; WebSockets check the Origin; the seat token is never in a URL.

The deals of the elimination and sit-out scenarios are stacked: the deck is built so
that a chosen player gets the cards of a chosen board (a foul, or a Fantasyland entry),
with the positions of each seat's cards found by dealing a marked deck first.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import logging
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from _helpers import random_action
from chinese_poker.cards import card_name, parse_card
from chinese_poker.engine import Table, TableError, Timeout, action_from_dict
from chinese_poker.engine.table import check_player_names
from chinese_poker.rules import rules_for
from chinese_poker.server import game as game_mod
from chinese_poker.server.app import create_app
from chinese_poker.server.db import Store, StoredTable
from chinese_poker.server.fairness import new_commitment, verify_record
from chinese_poker.server.game import Applied, Refusal, TableGame, plan_table
from chinese_poker.server.guard import RateSpec
from chinese_poker.server.messages import CreateTable, ErrorCode
from chinese_poker.server.tables import check_bot

Msg = dict[str, Any]

# --------------------------------------------------------------------------- stacked deals

# A board that earns Fantasyland in Pineapple (QQ on top, no foul), street by street:
# (card, line) for each card dealt, "discard" for the one thrown away.
FL_STREETS = [
    "Qs:top Qh:top As:bottom Ad:bottom Ac:bottom",
    "Ks:middle Kh:middle 8c:discard",
    "2c:middle 3d:middle 8d:discard",
    "7s:middle 5d:top Jc:discard",
    "4c:bottom 9h:bottom Jd:discard",
]
# A board that fouls (trips on top over a high-card middle).
FOUL_STREETS = [
    "6s:top 6h:top 2d:middle 4h:middle 3s:bottom",
    "6d:top 7d:middle 2h:discard",
    "9s:middle Jh:middle 3h:discard",
    "5c:bottom 8h:bottom 4s:discard",
    "Td:bottom Qd:bottom 5s:discard",
]


def plan_lines(streets: list[str]) -> list[list[tuple[int, str]]]:
    return [[(parse_card(w.split(":")[0]), w.split(":")[1]) for w in s.split()] for s in streets]


def positions(n: int, button: int) -> dict[int, list[list[int]]]:
    """Deck positions of each seat's cards, street by street (a marked deck dealt once)."""
    table = Table(rules_for("pineapple"), n, button=button, deck=tuple(range(52)))
    rng = random.Random(0)
    seen: dict[int, list[list[int]]] = {s: [] for s in range(n)}
    while not table.over:
        for seat in list(table.to_act):
            if seat in table.to_act and not table.over:
                seen[seat].append(sorted(table.view(seat).hand))
                table.apply(table.random_action(seat, rng))
    return seen


def stacked_deck(n: int, button: int, boards: dict[int, list[str]]) -> tuple[int, ...]:
    """A deck that deals ``boards[seat]`` (street plans) to those engine seats."""
    deck: list[int | None] = [None] * 52
    where = positions(n, button)
    for seat, streets in boards.items():
        for slots, street in zip(where[seat], plan_lines(streets), strict=True):
            for slot, (card, _line) in zip(slots, street, strict=True):
                deck[slot] = card
    used = {c for c in deck if c is not None}
    rest = iter(c for c in range(52) if c not in used)
    return tuple(c if c is not None else next(rest) for c in deck)


def planned_action(view: Any, streets: list[str], seat: int) -> Any:
    """The action that puts the dealt cards where the plan says (``view`` an engine View)."""
    lines: dict[int, str] = {c: line for street in plan_lines(streets) for c, line in street}
    out: dict[str, list[str]] = {"top": [], "middle": [], "bottom": [], "discard": []}
    for card in view.hand:
        out[lines[card]].append(card_name(card))
    return action_from_dict({"type": "place", "seat": seat, "version": view.version, **out})


# --------------------------------------------------------------------------- the pure table


def new_game(
    seats: list[dict[str, Any]], *, tournament: dict[str, Any] | None = None, **options: Any
) -> TableGame:
    """A table as the server builds it, all chairs taken, hand 1 about to be dealt."""
    spec = CreateTable.model_validate(
        {
            "preset": "pineapple",
            "options": options,
            "seats": seats,
            "mode": "tournament" if tournament is not None else "session",
            "tournament": tournament,
        }
    )
    plan = plan_table(spec, check_bot)
    stored = StoredTable(
        id="t-test",
        name="test",
        created_at=0.0,
        config={
            "request": spec.model_dump(mode="json"),
            "preset": "pineapple",
            "rules": plan.rules.to_dict(),
        },
        join_code_hash="",
        status="waiting",
        session_seed="7",
        start_button=0,
        started_at=None,
        seats=list(plan.seats),
        hands=[],
    )
    game = TableGame(stored)
    for chair in game.chairs:
        if chair.kind == "human":
            game.seated(chair.seat, chair.name or f"Player {chair.seat + 1}", "h")
    game.begin_session(1000.0, new_commitment("t-test", 1, plan.rules))
    return game


def check_map(game: TableGame) -> None:
    """Chairs and engine seats agree with the engine's own players, both ways."""
    table = game.table
    assert table is not None
    for seat, name in enumerate(table.players):
        chair = game.in_hand[seat]
        assert game.chairs[chair].player == name
        assert game.engine_seat(chair) == seat
    for chair in game.chairs:
        if chair.player not in table.players:
            assert game.engine_seat(chair.seat) is None


def play_hand(
    game: TableGame,
    plans: dict[int, list[str]],
    rng: random.Random,
    timeout: int | None = None,
) -> list[Applied]:
    """Play the current hand to its end: planned chairs by plan, the rest at random,
    ``timeout`` (a chair) by the engine's Timeout. Every refusal and map is checked."""
    table = game.table
    assert table is not None
    done = []
    while not table.over:
        check_map(game)
        seat = sorted(table.to_act)[0]
        chair = game.in_hand[seat]
        for other in game.chairs:  # nobody may act for another seat
            if other.seat != chair:
                refused = game.submit(other.seat, table.random_action(seat, rng))
                assert isinstance(refused, Refusal)
                expected = (
                    ErrorCode.NOT_YOUR_SEAT
                    if game.engine_seat(other.seat) is not None
                    else ErrorCode.NOT_PLAYING
                )
                assert refused.code == expected, (refused, other.seat)
        if chair == timeout:
            action: Any = Timeout(seat, version=table.version)
        elif chair in plans:
            action = planned_action(table.view(seat), plans[chair], seat)
        else:
            action = table.random_action(seat, rng)
        result = game.submit(chair, action)
        assert isinstance(result, Applied), result
        done.append(result)
    return done


LAYOUTS = [0, 1, 2]


@pytest.mark.parametrize("loser", LAYOUTS)
def test_elimination_renumbers_seats_and_nobody_plays_another_hand(
    monkeypatch: pytest.MonkeyPatch, loser: int
) -> None:
    """A 1-chip player fouls against a Fantasyland board and is out; the two left are
    dealt as engine seats 0 and 1, whichever chair the loser sat in."""
    winner = (loser + 1) % 3
    deck = stacked_deck(3, 0, {loser: FOUL_STREETS, winner: FL_STREETS})
    monkeypatch.setattr(game_mod, "deck_for", lambda *_: deck)
    names = ["Ann", "Bob", "Cat"]
    seats = [
        {"kind": "human", "name": n} if i == loser else {"kind": "bot", "bot": "random", "name": n}
        for i, n in enumerate(names)
    ]
    stacks = {n: (1 if i == loser else 5000) for i, n in enumerate(names)}
    # seat_order: the short stack pays all he has (proportional rounds his share down)
    game = new_game(
        seats, tournament={"stacks": stacks, "level_hands": 1}, insufficient_chips_rule="seat_order"
    )
    game.deal(1)
    rng = random.Random(loser)
    ends = play_hand(game, {loser: FOUL_STREETS, winner: FL_STREETS}, rng)
    assert ends[-1].end is not None
    session = game.session
    assert session is not None and names[loser] in session.ledger.out
    hand = 2
    while not session.over:
        game.deal(hand)
        assert game.engine_seat(loser) is None
        assert len(game.in_hand) == 2 and loser not in game.in_hand
        assert "out of the tournament" in game.absence(loser)
        check_map(game)
        play_hand(game, {}, rng)
        hand += 1
    assert game.status == "finished"


@pytest.mark.parametrize(("sitter", "fl"), [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)])
def test_a_timed_out_player_sits_out_the_fantasyland_hand(
    monkeypatch: pytest.MonkeyPatch, sitter: int, fl: int
) -> None:
    """With ``sit_out``, a player who timed out is not dealt the pending Fantasyland
    hand: his chair has no engine seat and his actions get ``not_playing``."""
    deck = stacked_deck(3, 0, {fl: FL_STREETS})
    monkeypatch.setattr(game_mod, "deck_for", lambda *_: deck)
    seats = [
        {"kind": "human", "name": "Ann"},
        {"kind": "bot", "bot": "random", "name": "Bob"},
        {"kind": "human", "name": "Cat"},
    ]
    game = new_game(seats, time_limit=30, timed_out_player_in_remaining_hands="sit_out")
    game.deal(1)
    rng = random.Random(sitter * 3 + fl)
    play_hand(game, {fl: FL_STREETS}, rng, timeout=sitter)
    session = game.session
    assert session is not None and not session.over and session.fantasyland_pending
    game.deal(2)
    check_map(game)
    assert game.engine_seat(sitter) is None and "sits out" in game.absence(sitter)
    table = game.table
    assert table is not None and len(table.players) == 2
    seat = sorted(table.to_act)[0]
    refused = game.submit(sitter, table.random_action(seat, rng))
    assert isinstance(refused, Refusal) and refused.code == ErrorCode.NOT_PLAYING
    play_hand(game, {}, rng)
    assert session.over


# --------------------------------------------------------------------------- over the wire


def recv(ws: WebSocketTestSession) -> Msg:
    data: Msg = ws.receive_json()
    return data


@contextlib.contextmanager
def seat_socket(client: TestClient, table_id: str, token: str) -> Iterator[WebSocketTestSession]:
    with client.websocket_connect(f"/ws/tables/{table_id}?role=seat") as ws:
        ws.send_json({"type": "auth", "token": token})
        yield ws


def make_client(tmp_path: Path, name: str = "db", **kwargs: Any) -> TestClient:
    kwargs.setdefault("hint_processes", False)  # no worker process per app here
    app = create_app(f"sqlite:///{tmp_path / name}.sqlite", **kwargs)
    return TestClient(app)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path) as c:  # hints in a thread: replaceable in tests
        yield c


def create(client: TestClient, **body: Any) -> Msg:
    body.setdefault("bot_delay", 0)
    body.setdefault("next_hand_delay", 0)
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    data: Msg = r.json()
    return data


def play_socket(
    ws: WebSocketTestSession, me: str, choose: Callable[[Msg], Msg | None], limit: float = 60
) -> list[Msg]:
    """Play one person's socket to the session's end; every state is checked: it shows
    his own seat of this hand or, once he is out, a spectator's view."""
    seen: list[Msg] = []
    deadline = time.monotonic() + limit
    out = False
    while time.monotonic() < deadline:
        m = recv(ws)
        seen.append(m)
        if m["type"] == "session_end":
            return seen
        if m["type"] == "hand_end" and me in m["ledger"].get("out", []):
            out = True
        if m["type"] != "state":
            continue
        view = m["view"]
        if view["seat"] is None:
            assert me not in view["players"], "dealt in, but shown a spectator's view"
            assert out or me not in view["players"]
            if view["phase"] != "showdown":
                ws.send_json(
                    {
                        "type": "action",
                        "id": "ghost",
                        "action": {
                            "type": "place",
                            "version": view["version"],
                            "top": [],
                            "middle": [],
                            "bottom": [],
                            "discard": [],
                        },
                    }
                )
            continue
        assert view["players"][view["seat"]] == me, "shown another player's hand"
        assert view["player"] == me
        if view["seat"] in view["to_act"] and view["decisions"] and m["ack"] is None:
            action = choose(view)
            if action is not None:
                ws.send_json({"type": "action", "id": view["version"], "action": action})
    raise AssertionError("the session did not end")


@pytest.mark.parametrize(
    "layout",
    [
        ("human", "bot", "bot"),
        ("bot", "human", "bot"),
        ("bot", "bot", "human"),
        ("human", "human", "bot"),
        ("bot", "human", "human"),
    ],
)
def test_a_tournament_with_eliminations_over_websockets(
    client: TestClient, layout: tuple[str, ...]
) -> None:
    """Everybody but one starts with 1 chip, so players bust in whatever chairs they
    sit. Each person's socket sees only his own hand or, once out, a spectator's view;
    his actions after that are refused ``not_playing``; the tournament plays to its
    end, and every stored hand verifies."""
    names = ["Ann", "Bob", "Cat"]
    seats = [
        {"kind": k, "name": n} | ({"bot": "random"} if k == "bot" else {})
        for k, n in zip(layout, names, strict=True)
    ]
    big = layout.index("bot")
    stacks = {n: (3000 if i == big else 1) for i, n in enumerate(names)}
    made = create(
        client,
        preset="pineapple",
        seats=seats,
        mode="tournament",
        options={"insufficient_chips_rule": "seat_order"},
        tournament={"stacks": stacks, "level_hands": 1},
    )
    tid = made["table"]["id"]
    tokens = {names[made["seat"]]: made["token"]}
    for i, kind in enumerate(layout):
        if kind == "human" and names[i] not in tokens:
            r = client.post(
                f"/api/tables/{tid}/join",
                json={"code": made["join_code"], "name": names[i], "seat": i},
            )
            assert r.status_code == 200, r.text
            tokens[names[i]] = r.json()["token"]
    results: dict[str, list[Msg]] = {}
    errors: list[BaseException] = []

    def person(name: str) -> None:
        rng = random.Random(name)
        try:
            with seat_socket(client, tid, tokens[name]) as ws:
                results[name] = play_socket(ws, name, lambda v: random_action(v, rng, seat=True))
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=person, args=(n,)) for n in tokens]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    ledger = client.get(f"/api/tables/{tid}/ledger").json()
    assert ledger["over"] and len(ledger["out"]) >= 1
    for name, seen in results.items():
        codes = [m["code"] for m in seen if m["type"] == "error"]
        assert "server_error" not in codes
        if name in ledger["out"]:
            assert "not_playing" in codes or not any(
                m["type"] == "state"
                and m["view"]["seat"] is None
                and m["view"]["phase"] != "showdown"
                for m in seen
            )
        else:
            assert "not_playing" not in codes
    history = client.get(f"/api/tables/{tid}/history").text
    records = [json.loads(line) for line in history.splitlines()]
    assert len(records) == ledger["hands_played"]
    for i, record in enumerate(records, 1):
        assert verify_record(record, i).ok


# --------------------------------------------------------------------------- names


def engine_refuses(name: str) -> bool:
    try:
        check_player_names([name])
    except TableError:
        return True
    return False


BAD_NAMES = [n for n in ("a/b", "   ", "me/you", "x/y", "\t") if engine_refuses(n)]


def test_the_engine_refuses_some_names() -> None:
    assert "   " in BAD_NAMES  # whatever the separator, a blank name is refused


@pytest.mark.parametrize("name", BAD_NAMES)
def test_names_the_engine_refuses_are_refused_before_storing(tmp_path: Path, name: str) -> None:
    """A bot, a creator seat or a joiner with a name the engine refuses: 400, nothing
    stored, and the server still starts on that database afterwards."""
    with make_client(tmp_path) as c:
        bot = c.post(
            "/api/tables",
            json={"seats": [{"kind": "human"}, {"kind": "bot", "bot": "rules", "name": name}]},
        )
        assert bot.status_code == 400 and "name" in bot.text
        creator = c.post(
            "/api/tables",
            json={"seats": [{"kind": "human", "name": name}, {"kind": "bot", "bot": "rules"}]},
        )
        assert creator.status_code == 400 and "name" in creator.text
        assert c.get("/api/tables").json() == []
        made = create(c, seats=[{"kind": "human", "name": "Ann"}, {"kind": "human"}])
        tid = made["table"]["id"]
        if name.strip():  # a blank join name means "give me a default name"
            joined = c.post(
                f"/api/tables/{tid}/join", json={"code": made["join_code"], "name": name}
            )
            assert joined.status_code == 400, joined.text
            assert c.get(f"/api/tables/{tid}").json()["seats"][1]["taken"] is False
    with make_client(tmp_path) as again:  # recovery
        assert again.get("/api/health").status_code == 200
        info = again.get(f"/api/tables/{tid}").json()
        assert info["status"] == "waiting"


def test_a_table_that_cannot_be_rebuilt_is_quarantined(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with make_client(tmp_path) as c:
        good = create(c, seats=[{"kind": "bot", "bot": "random"}, {"kind": "human"}])
        bad = create(c, seats=[{"kind": "human"}, {"kind": "human"}])
        r = c.post(
            f"/api/tables/{bad['table']['id']}/join", json={"code": bad["join_code"], "name": "Bob"}
        )
        assert r.status_code == 200
    store = Store(f"sqlite:///{tmp_path / 'db'}.sqlite")
    with store.transaction() as conn:  # a stored action the engine refuses
        store.insert_actions(
            conn,
            store.action_rows(
                bad["table"]["id"],
                1,
                0,
                [{"type": "place", "seat": 0, "version": 99, "top": ["As"]}],
            ),
        )
    store.close()
    with caplog.at_level(logging.ERROR, logger="chinese_poker.server"), make_client(tmp_path) as c:
        listed = {t["id"]: t for t in c.get("/api/tables").json()}
        assert listed[bad["table"]["id"]]["status"] == "unavailable"
        assert listed[good["table"]["id"]]["status"] == "playing"
        assert c.get(f"/api/tables/{bad['table']['id']}").status_code == 503
        assert c.get(f"/api/tables/{good['table']['id']}").status_code == 200
        assert c.get(f"/api/tables/{bad['table']['id']}/ledger").status_code == 503
    mentions = [r for r in caplog.records if bad["table"]["id"] in r.getMessage()]
    assert len(mentions) == 1, [r.getMessage() for r in mentions]


# --------------------------------------------------------------------------- floods


def test_a_hint_flood_gets_busy_and_bots_keep_playing(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While one hint is being worked out, a seat's further hints are ``busy``; a bot
    table on the same server plays a whole hand meanwhile; creating a table does not
    wait for the hint."""
    import chinese_poker.ai.hints as hints

    release = threading.Event()
    started = threading.Event()
    answered = threading.Event()

    def slow_hint(view: Any, **kwargs: Any) -> list[Any]:
        started.set()
        release.wait(300)  # until the test lets it go (set in `finally` too)
        answered.set()
        return []

    monkeypatch.setattr(hints, "hint", slow_hint)
    made = create(client, seats=[{"kind": "human"}, {"kind": "bot", "bot": "random"}])
    tid = made["table"]["id"]
    try:
        with seat_socket(client, tid, made["token"]) as ws:
            # A state in which this seat is to act: before the bot has placed (it places
            # first), a hint is refused as no_hand and frees its slot.
            while not (
                (m := recv(ws))["type"] == "state" and m["view"]["seat"] in m["view"]["to_act"]
            ):
                pass
            for i in range(60):
                ws.send_json({"type": "hint", "id": i})
            busy = 0
            ws.send_json({"type": "ping", "id": "end"})
            while (m := recv(ws))["type"] != "pong":
                if m["type"] == "error":
                    assert m["code"] == "busy", m
                    busy += 1
            assert busy == 59
            assert started.wait(60)
            bots = create(
                client,
                preset="pineapple",
                seats=[{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}],
            )
            assert not answered.is_set()  # made while the hint was still being worked out
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                info = client.get(f"/api/tables/{bots['table']['id']}").json()
                if info["hands_played"] >= 1:
                    break
                time.sleep(0.05)
            assert info["hands_played"] >= 1, "bots starved by a pending hint"
            release.set()
            while (m := recv(ws))["type"] != "hint":
                pass
            assert m["ref"] == 0
    finally:
        release.set()


def test_table_creation_and_joins_are_rate_limited(tmp_path: Path) -> None:
    spec = RateSpec(create="5/minute", join="8/minute", bad_code="3/minute")
    with make_client(tmp_path, rate_limits=spec) as c:
        codes = [
            c.post(
                "/api/tables", json={"seats": [{"kind": "human"}, {"kind": "human"}], "join": False}
            ).status_code
            for _ in range(7)
        ]
        assert codes == [201] * 5 + [429] * 2
        tables = c.get("/api/tables").json()
        tid = tables[0]["id"]
        wrong = [
            c.post(f"/api/tables/{tid}/join", json={"code": "guess", "name": "X"}).status_code
            for _ in range(5)
        ]
        assert wrong == [403, 403, 403, 429, 429]


def test_request_bodies_are_limited_before_they_are_read(client: TestClient) -> None:
    big = b'{"name": "' + b"x" * (2 * 1024 * 1024) + b'"}'
    r = client.post("/api/tables", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413

    def chunks() -> Iterator[bytes]:
        yield b'{"name": "'
        for _ in range(200):
            yield b"x" * 4096
        yield b'"}'

    r = client.post("/api/tables", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert client.get("/api/tables").json() == []


def test_websocket_origin_is_checked(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        made = create(c, seats=[{"kind": "human"}, {"kind": "bot", "bot": "random"}])
        tid = made["table"]["id"]
        with (
            pytest.raises(WebSocketDisconnect),
            c.websocket_connect(
                f"/ws/tables/{tid}", headers={"origin": "http://evil.example"}
            ) as ws,
        ):
            recv(ws)
        with c.websocket_connect(
            f"/ws/tables/{tid}", headers={"origin": "http://testserver"}
        ) as ws:
            assert recv(ws)["type"] == "welcome"
    with (
        make_client(tmp_path, allowed_origins=["http://friend.example"]) as c,
        c.websocket_connect(f"/ws/tables/{tid}", headers={"origin": "http://friend.example"}) as ws,
    ):
        assert recv(ws)["type"] == "welcome"


def test_one_address_cannot_hold_more_sockets_than_its_limit(tmp_path: Path) -> None:
    """A script opening socket after socket from one address: past the limit each is
    refused with its reason, the sockets it holds keep working, and once it lets one go
    the seat's own player gets in."""
    with make_client(tmp_path, sockets_per_address=3) as c:
        made = create(c, seats=[{"kind": "human"}, {"kind": "bot", "bot": "random"}])
        tid = made["table"]["id"]
        with contextlib.ExitStack() as held:
            socks = [held.enter_context(c.websocket_connect(f"/ws/tables/{tid}")) for _ in "abc"]
            assert [recv(ws)["type"] for ws in socks] == ["welcome"] * 3
            for path in (f"/ws/tables/{tid}", f"/ws/tables/{tid}?role=seat", "/ws/tables/t-none"):
                with pytest.raises(WebSocketDisconnect) as refused, c.websocket_connect(path) as ws:
                    recv(ws)
                assert refused.value.code == 4429, path
                assert refused.value.reason == (
                    "too many open connections from your address (limit 3)"
                )
            socks[1].send_json({"type": "ping", "id": 1})
            assert any(recv(socks[1])["type"] == "pong" for _ in range(20))
        # All three let go: the player's own seat connects and plays.
        with seat_socket(c, tid, made["token"]) as ws:
            assert recv(ws)["type"] == "welcome"
    with pytest.raises(ValueError, match="sockets_per_address must be at least 1, not 0"):
        create_app("sqlite://", sockets_per_address=0)


def test_the_seat_token_is_never_taken_from_the_url(client: TestClient) -> None:
    made = create(client, seats=[{"kind": "human"}, {"kind": "bot", "bot": "random"}])
    tid = made["table"]["id"]
    assert made["token"] not in made["ws_url"]
    with (
        client.websocket_connect(f"/ws/tables/{tid}?token={made['token']}") as ws,
        pytest.raises(WebSocketDisconnect) as exc,
    ):
        recv(ws)
    assert exc.value.code == 4400
    with (
        client.websocket_connect(f"/ws/tables/{tid}?role=seat") as ws,
        pytest.raises(WebSocketDisconnect) as exc,
    ):
        ws.send_json({"type": "sync"})
        recv(ws)
    assert exc.value.code == 4400
    with seat_socket(client, tid, made["token"]) as ws:
        welcome = recv(ws)
        assert welcome["role"] == "seat" and welcome["seat"] == 0


def test_finished_tables_are_listed_without_being_rebuilt(tmp_path: Path) -> None:
    """After a restart the lobby reads the database: no table is rebuilt to list it."""
    with make_client(tmp_path) as c:
        made = create(
            c,
            preset="pineapple",
            seats=[{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}],
        )
        tid = made["table"]["id"]
        deadline = time.monotonic() + 60
        while c.get(f"/api/tables/{tid}").json()["status"] != "finished":
            assert time.monotonic() < deadline
            time.sleep(0.05)
    with make_client(tmp_path) as c:
        manager = c.app.state.manager  # type: ignore[attr-defined]
        listed = c.get("/api/tables?limit=1&offset=0").json()
        assert [t["id"] for t in listed] == [tid] and listed[0]["status"] == "finished"
        assert listed[0]["hands_played"] >= 1
        assert c.get("/api/tables?offset=1").json() == []
        assert tid not in manager.tables
        assert c.get(f"/api/tables/{tid}/ledger").json()["over"]
        assert tid in manager.tables
        assert manager.evict(3600) == 1 and tid not in manager.tables


def test_a_failed_write_leaves_the_table_exactly_as_before(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The action's write fails: its sender gets ``server_error``, nobody sees it, the
    table is as before (same version, cards, log), and the same action then works."""
    made = create(client, seats=[{"kind": "human", "name": "Ann"}, {"kind": "human"}])
    tid = made["table"]["id"]
    joined = client.post(
        f"/api/tables/{tid}/join", json={"code": made["join_code"], "name": "Bob"}
    ).json()
    store = client.app.state.store  # type: ignore[attr-defined]
    real = store.write_batch
    with (
        seat_socket(client, tid, made["token"]) as a,
        seat_socket(client, tid, joined["token"]) as b,
    ):
        states = {}
        for name, ws in (("Ann", a), ("Bob", b)):
            while (m := recv(ws))["type"] != "state":
                pass
            states[name] = m
        mover, ws = ("Ann", a) if 0 in states["Ann"]["view"]["to_act"] else ("Bob", b)
        other = b if ws is a else a
        before = states[mover]
        action = random_action(before["view"], random.Random(1), seat=True)

        def broken(*args: Any, **kwargs: Any) -> None:
            raise OSError("disk full")

        monkeypatch.setattr(store, "write_batch", broken)
        ws.send_json({"type": "action", "id": "x", "action": action})
        while (m := recv(ws))["type"] != "error":
            assert m["type"] != "state" or m["version"] == before["version"], m
        assert m["code"] == "server_error" and m["ref"] == "x"
        monkeypatch.setattr(store, "write_batch", real)
        ws.send_json({"type": "sync", "id": "s"})
        while (m := recv(ws))["type"] != "state" or m["ack"] is not None or m["log"] is None:
            pass
        assert m["version"] == before["version"] and m["view"] == before["view"]
        other.send_json({"type": "ping", "id": "p"})
        while (m := recv(other))["type"] != "pong":
            assert m["type"] != "state" or m["version"] == before["version"], m
        ws.send_json({"type": "action", "id": "y", "action": action})
        while (m := recv(ws))["type"] != "state" or m["ack"] != "y":
            assert m["type"] != "error", m
        assert m["version"] == before["version"] + 1


# --------------------------------------------------------------------------- serve


def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chinese_poker.cli", "serve", "--host", "127.0.0.1", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("mysqlx://nobody/db", "unknown database URL scheme"),
        ("not a url", "bad database URL"),
        ("postgresql+psycopg2://u@127.0.0.1/db", "not installed"),
        ("postgresql+psycopg://u:secret@127.0.0.1:1/db", "cannot open the database"),
        ("sqlite:////nonexistent-dir/sub/x.db", "cannot open the database"),
    ],
)
def test_serve_errors_a_user_can_cause_are_one_line(url: str, words: str) -> None:
    if "psycopg2" in url and importlib.util.find_spec("psycopg2") is not None:
        pytest.skip("psycopg2 is installed here")
    if "psycopg:" in url or "psycopg://" in url:
        pytest.importorskip("psycopg")
    done = _serve("--port", "0", "--database-url", url)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], done.stderr
    assert "secret" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_serve_without_psycopg_is_one_line(tmp_path: Path) -> None:
    """PostgreSQL asked for, psycopg not installed (hidden by a module that fails)."""
    (tmp_path / "psycopg.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'psycopg'\", name='psycopg')\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), *sys.path]))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "chinese_poker.cli",
            "serve",
            "--port",
            "0",
            "--database-url",
            "postgresql+psycopg://u@127.0.0.1/db",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "psycopg" in lines[0] and "not installed" in lines[0], lines


@pytest.mark.slow
def test_serve_on_a_busy_port_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = _serve("--port", str(port), "--database-url", f"sqlite:///{tmp_path / 'x.db'}")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot listen" in lines[0], done.stderr


def test_an_idle_table_leaves_memory_and_comes_back_as_it_was(client: TestClient) -> None:
    made = create(client, seats=[{"kind": "human", "name": "Ann"}, {"kind": "human"}])
    tid = made["table"]["id"]
    joined = client.post(
        f"/api/tables/{tid}/join", json={"code": made["join_code"], "name": "Bob"}
    ).json()
    manager = client.app.state.manager  # type: ignore[attr-defined]
    with seat_socket(client, tid, made["token"]) as a:
        while (before := recv(a))["type"] != "state":
            pass
        assert manager.evict(0) == 0  # somebody is connected
    deadline = time.monotonic() + 10
    while manager.evict(0) == 0:  # the socket's goodbye is handled on the server's loop
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert tid not in manager.tables
    listed = {t["id"]: t for t in client.get("/api/tables").json()}
    assert listed[tid]["status"] == "playing" and tid not in manager.tables
    with seat_socket(client, tid, joined["token"]) as b:
        while (after := recv(b))["type"] != "state":
            pass
    assert after["version"] == before["version"] and after["hand"] == before["hand"]
    assert tid in manager.tables


def test_a_finished_table_leaves_memory_with_its_last_socket(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not at the next sweep (a busy server would keep a whole round of finished
    tables beside the live ones): the sweep is switched off here."""
    manager = client.app.state.manager  # type: ignore[attr-defined]
    monkeypatch.setattr(manager, "evict", lambda idle_seconds: 0)
    made = create(
        client,
        preset="pineapple",
        seats=[{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}],
    )
    tid = made["table"]["id"]
    with client.websocket_connect(f"/ws/tables/{tid}") as ws:  # a spectator
        while recv(ws)["type"] != "session_end":
            pass
        assert tid in manager.tables  # watched: stays
    deadline = time.monotonic() + 10
    while tid in manager.tables:  # the socket's goodbye is handled on the server's loop
        assert time.monotonic() < deadline, "the finished table stayed in memory"
        time.sleep(0.02)
    assert client.get(f"/api/tables/{tid}").json()["status"] == "finished"


def test_a_finished_table_with_a_grace_period_leaves_memory_too(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person leaving a finished table starts no grace timer (nothing is left to
    stand in for), which would have kept the table in memory for the whole period."""
    manager = client.app.state.manager  # type: ignore[attr-defined]
    monkeypatch.setattr(manager, "evict", lambda idle_seconds: 0)
    made = create(
        client,
        preset="pineapple",
        grace=3600,
        seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}],
    )
    tid = made["table"]["id"]
    rng = random.Random(5)
    with seat_socket(client, tid, made["token"]) as ws:
        seen = play_socket(ws, "Ann", lambda v: random_action(v, rng, seat=True))
    assert seen[-1]["type"] == "session_end"
    deadline = time.monotonic() + 10
    while tid in manager.tables:
        assert time.monotonic() < deadline, "the finished table stayed in memory"
        time.sleep(0.02)
