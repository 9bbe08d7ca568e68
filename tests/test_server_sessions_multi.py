"""Whole sessions played over three ``chinese-poker serve`` processes (issue 38).

Three real processes share one database (an SQLite file, or PostgreSQL when
``CHINESE_POKER_TEST_POSTGRES_URL`` names a server) and one Redis. The clients pick a
random process for every request and every (re)connection, and follow ``moved`` to the
table's owner as the browser does; they also drop their sockets now and then and come
back through another random process. Three sessions are played to their end at once: a
Pineapple session with a Fantasyland hand, a classic one, and a Pineapple tournament in
which a player is eliminated. Then each table's stored history is replayed by the engine
(:func:`chinese_poker.engine.history.replay_history`: every board, settlement and the
ledger as stored) and compared with the ledger the server answers, and every action
the clients saw acknowledged is stored exactly once, with nothing else of theirs.

Hand 1 of every table is dealt from a stacked deck (the server's ``game.deck_for``
hook, replaced in each process by a ``sitecustomize`` on its path): engine seat 0 gets
cards that its player places into a Fantasyland board, seat 1 cards that foul.
"""

from __future__ import annotations

import json
import random
import textwrap
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from _helpers import random_action
from _redis import RedisServer
from chinese_poker.cards import card_name
from chinese_poker.engine.history import replay_history
from test_server_attacks import FL_STREETS, FOUL_STREETS, plan_lines, stacked_deck
from test_server_restart import Server, own_postgres_database, recv

Msg = dict[str, Any]

PROCESSES = 3
RECONNECT = 0.08
"""The chance that a seat drops its socket after an acknowledged action and comes back
through a random process."""

SESSION_SECONDS = 90.0
"""A session not over by then has stopped moving (the whole test takes about a minute)."""

HOOK = """
import os

if os.environ.get("CHINESE_POKER_TEST_FIRST_DECK"):
    import chinese_poker.server.game as game

    _first = tuple(int(c) for c in os.environ["CHINESE_POKER_TEST_FIRST_DECK"].split(","))

    def deck_for(deck, number):
        return _first if number == 1 else deck

    game.deck_for = deck_for
"""


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An SQLite file, or a PostgreSQL database of this test's own (every process on a
    database takes over the tables whose holder stopped: no sharing with other tests)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'site.db'}"
        return
    with own_postgres_database("cp_sessions") as url:
        yield url


@pytest.fixture
def site(
    database_url: str,
    redis_server: RedisServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Site]:
    """Three serve processes, each dealing hand 1 of every table from the stacked deck."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(textwrap.dedent(HOOK))
    deck = stacked_deck(3, 0, {0: FL_STREETS, 1: FOUL_STREETS})
    monkeypatch.setenv("CHINESE_POKER_TEST_FIRST_DECK", ",".join(map(str, deck)))
    monkeypatch.setenv("PYTHONPATH", str(hook))
    servers: list[Server] = []
    try:
        for i in range(PROCESSES):
            servers.append(
                Server(database_url, tmp_path / f"serve{i}.log", "--redis", redis_server.url)
            )
        yield Site([s.url for s in servers], random.Random(38))
    finally:
        for server in servers:
            server.stop()


class Site:
    """The three processes as a client sees them: any of them, and ``moved`` followed."""

    def __init__(self, urls: list[str], rng: random.Random) -> None:
        self.urls = urls
        self.rng = rng
        self.moves = 0

    def request(self, method: str, path: str, **kwargs: Any) -> httpx2.Response:
        url = self.rng.choice(self.urls)
        for _ in range(PROCESSES):
            r = httpx2.request(method, url + path, timeout=30, **kwargs)
            moved = r.json().get("moved") if r.status_code == 409 else None
            if moved is None:
                return r
            assert moved["to"] in self.urls, moved
            url = moved["to"]  # the browser opens the same page at the owner
            self.moves += 1
        raise AssertionError(f"{path}: sent from process to process")

    def seat_socket(
        self, sockets: ExitStack, table_id: str, token: str
    ) -> tuple[ClientConnection, Msg]:
        """A seat's socket at a random process, sent on to the owner; and its state."""
        url = self.rng.choice(self.urls)
        for _ in range(PROCESSES):
            ws = sockets.enter_context(connect(f"ws{url[4:]}/ws/tables/{table_id}?role=seat"))
            with suppress(ConnectionClosed):  # told `moved` and closed before it was read
                ws.send(json.dumps({"type": "auth", "token": token}))
            first = recv(ws)
            if first["type"] == "moved":
                ws.close()
                assert first["to"] in self.urls, first
                url = first["to"]
                self.moves += 1
                continue
            assert first["type"] == "welcome", first
            state = recv(ws)
            while state["type"] != "state":
                state = recv(ws)
            return ws, state
        raise AssertionError(f"{table_id}: the socket was sent from process to process")


@dataclass
class Seat:
    """A person at the table: his socket, the last state he was sent, his action in
    flight, and (``plan``) how he places the cards of hand 1."""

    name: str
    token: str
    plan: list[str] | None = None
    ws: ClientConnection | None = None
    state: Msg = field(default_factory=dict)
    pending: tuple[str, int] | None = None  # (the action's id, its hand)


class Session:
    """One table's people, playing until ``session_end``."""

    def __init__(self, site: Site, table_id: str, seats: list[Seat], seed: int) -> None:
        self.site = site
        self.table_id = table_id
        self.seats = seats
        self.rng = random.Random(seed)
        self.acked: list[tuple[int, str, int, int]] = []  # (hand, player, seat, version)
        self.over = False
        self.sent = 0

    def play(self) -> None:
        with ExitStack() as sockets:
            self.play_on(sockets)

    def play_on(self, sockets: ExitStack) -> None:
        self.sockets = sockets
        for seat in self.seats:
            self.connect(seat)
        deadline = time.monotonic() + SESSION_SECONDS
        while not self.over:
            assert time.monotonic() < deadline, f"the session stopped moving: {self.where()}"
            for seat in self.seats:
                self.read(seat)
                self.act(seat)
        for seat in self.seats:  # the last action's answer may come after session_end
            while seat.pending is not None:
                assert time.monotonic() < deadline, f"no answer: {self.where()}"
                self.read(seat)
            assert seat.ws is not None
            seat.ws.close()

    def where(self) -> str:
        """Where each seat's last state stands, and the table as the server tells it."""
        info = self.site.request("GET", f"/api/tables/{self.table_id}").text
        seen = [
            (s.name, s.pending, s.state.get("hand"), s.state.get("view", {}).get("phase"),
             s.state.get("view", {}).get("seat"), s.state.get("view", {}).get("to_act"))
            for s in self.seats
        ]  # fmt: skip
        return f"{self.table_id}: {seen}; {info[:1500]}"

    def connect(self, seat: Seat) -> None:
        seat.ws, seat.state = self.site.seat_socket(self.sockets, self.table_id, seat.token)

    def read(self, seat: Seat) -> None:
        """Whatever the seat's socket has for it now."""
        assert seat.ws is not None
        while True:
            try:
                m = json.loads(seat.ws.recv(timeout=0.005))
            except TimeoutError:
                return
            if m["type"] == "state":
                seat.state = m
                if seat.pending is not None and m.get("ack") == seat.pending[0]:
                    last = m["last"]
                    self.acked.append((seat.pending[1], seat.name, last["seat"], last["version"]))
                    seat.pending = None
            elif m["type"] == "session_end":
                self.over = True
            elif m["type"] == "error" and seat.pending and m.get("ref") == seat.pending[0]:
                assert m["code"] == "stale", m  # the view moved on meanwhile: not stored
                seat.pending = None
            else:
                assert m["type"] not in ("moved", "error"), m  # nobody stepped down here

    def act(self, seat: Seat) -> None:
        view = seat.state.get("view")
        if seat.pending is not None or view is None:
            return
        if view["seat"] in view["to_act"] and view["decisions"]:  # playing, or a surrender
            hand = seat.state["hand"]
            if hand == 1 and seat.plan is not None:
                action = planned_action(view, seat.plan)
            else:
                action = random_action(view, self.rng)
            self.sent += 1
            ref = f"{seat.name}{self.sent}"
            assert seat.ws is not None
            seat.ws.send(json.dumps({"type": "action", "id": ref, "action": action}))
            seat.pending = (ref, hand)
        elif self.rng.random() < RECONNECT:
            assert seat.ws is not None
            seat.ws.close()  # nothing in flight: no action can be lost by it
            self.connect(seat)

    def stored(self) -> list[Msg]:
        """The table's stored history (through a random process), checked by replaying
        it, and its ledger there."""
        r = self.site.request("GET", f"/api/tables/{self.table_id}/history")
        assert r.status_code == 200, r.text
        records = [json.loads(line) for line in r.text.splitlines()]
        replayed = replay_history(records)
        ledger = self.site.request("GET", f"/api/tables/{self.table_id}/ledger").json()
        assert ledger["over"] and ledger["hands_played"] == len(records)
        final = replayed[-1].ledger
        assert final is not None
        assert "points" in final
        for key, value in final.items():  # stacks and out: tournaments only
            assert ledger[key] == value, key
        people = {s.name for s in self.seats}
        stored = [
            (rec["session"]["hand"], rec["players"][a["seat"]], a["seat"], a["version"])
            for rec in records
            for a in rec["actions"]
            if not a.get("auto") and rec["players"][a["seat"]] in people
        ]
        doubled = [k for k, n in Counter(stored).items() if n > 1]
        assert not doubled, f"stored twice: {doubled}"
        assert sorted(stored) == sorted(self.acked), (
            "acknowledged or stored only (hand, player, seat, version):",
            set(stored) ^ set(self.acked),
        )
        return records


def planned_action(view: Msg, streets: list[str]) -> Msg:
    """The wire action that puts the dealt cards where ``streets`` says."""
    lines = {card_name(c): line for street in plan_lines(streets) for c, line in street}
    decision = view["decisions"][0]
    out: dict[str, list[str]] = {"top": [], "middle": [], "bottom": [], "discard": []}
    for card in decision["cards"]:
        out[lines[card]].append(card)
    return {"type": "place", "hand": decision["hand"], "version": view["version"], **out}


def open_table(site: Site, body: Msg, plans: dict[str, list[str] | None]) -> Session:
    """A table of the people of ``plans`` (how each places hand 1's cards; None: at
    random) and a random bot, opened at a random process, the others joining through
    random processes."""
    people = list(plans)
    seats = [{"kind": "human", "name": name} for name in people]
    body = {
        "bot_delay": 0,
        "next_hand_delay": 0.2,
        "seats": [*seats, {"kind": "bot", "bot": "random", "name": "Robo"}],
        **body,
    }
    made = site.request("POST", "/api/tables", json=body)
    assert made.status_code == 201, made.text
    table_id = made.json()["table"]["id"]
    tokens = {people[0]: made.json()["token"]}
    for name in people[1:]:
        joined = site.request(
            "POST",
            f"/api/tables/{table_id}/join",
            json={"code": made.json()["join_code"], "name": name},
        )
        assert joined.status_code == 200, joined.text
        tokens[name] = joined.json()["token"]
    players = [Seat(name, tokens[name], plans[name]) for name in people]
    return Session(site, table_id, players, site.rng.randrange(1 << 30))


@pytest.mark.slow
def test_whole_sessions_over_three_processes(site: Site) -> None:
    """Three sessions at once, each to its end; then each table's history replays as
    stored, and holds exactly the acknowledged actions."""
    pineapple = open_table(site, {"preset": "pineapple"}, {"Ann": FL_STREETS, "Bob": FOUL_STREETS})
    classic = open_table(site, {"preset": "classic"}, {"Cid": None, "Dee": None})
    tournament = open_table(
        site,
        {
            "preset": "pineapple",
            "mode": "tournament",
            "options": {"insufficient_chips_rule": "seat_order"},
            "tournament": {"stacks": {"Eve": 150, "Fay": 1, "Robo": 150}, "level_hands": 1},
        },
        {"Eve": FL_STREETS, "Fay": FOUL_STREETS},
    )
    sessions = [pineapple, classic, tournament]
    with ThreadPoolExecutor(len(sessions)) as pool:
        for done in [pool.submit(s.play) for s in sessions]:
            done.result()

    records = pineapple.stored()
    assert records[0]["fantasyland_qualified"].keys() == {"Ann"}
    assert any(r["fantasyland"].get("Ann") for r in records[1:]), "no Fantasyland hand"
    assert classic.stored()[0]["rules"]["variant"] == "classic"
    records = tournament.stored()
    out = records[0]["session"]["ledger"]["out"]
    assert out == ["Fay"], out  # fouled her one chip away in hand 1
    assert all("Fay" not in r["players"] for r in records[1:])
    assert len(records[-1]["session"]["ledger"]["out"]) == 2  # played to its winner
    # The clients did go through the other processes, and were sent on.
    assert site.moves > 0
