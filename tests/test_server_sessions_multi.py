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
the clients saw acknowledged is stored exactly once, with nothing else of theirs. The
same sessions are played once more with the process that plays the Pineapple session
killed (SIGKILL) in its middle: its clients come back through the live processes, which
take its tables over at once, and every session still plays to its end.

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
from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.sync.client import ClientConnection, connect

from _helpers import random_action
from _redis import RedisServer
from chinese_poker.cards import card_name
from chinese_poker.engine.history import replay_history
from test_server_attacks import FL_STREETS, FOUL_STREETS, plan_lines, stacked_deck
from test_server_leases import lease_address
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
        yield Site(servers, random.Random(38))
    finally:
        for server in servers:
            server.stop()


class Site:
    """The three processes as a client sees them: any of them, and ``moved`` followed."""

    def __init__(self, servers: list[Server], rng: random.Random) -> None:
        self.servers = servers
        self.urls = [s.url for s in servers]  # the live ones
        self.rng = rng
        self.moves = 0
        self.killed: dict[str, float] = {}
        self.sent_to_dead: list[float] = []  # seconds after its kill

    def kill(self, url: str) -> None:
        """SIGKILL the process at ``url``; the clients pick among the others from now."""
        self.urls.remove(url)
        self.killed[url] = time.monotonic()
        next(s for s in self.servers if s.url == url).kill()

    def follow(self, moved: Msg) -> str:
        """Where a client told ``moved`` goes: the owner; or, when the owner cannot be
        reached (killed), back to a live process, which takes the table over."""
        self.moves += 1
        to: str = moved["to"]
        if to in self.urls:
            return to
        assert to in self.killed, moved
        self.sent_to_dead.append(time.monotonic() - self.killed[to])
        time.sleep(0.05)
        return self.rng.choice(self.urls)

    def request(self, method: str, path: str, **kwargs: Any) -> httpx2.Response:
        url = self.rng.choice(self.urls)
        for _ in range(20):
            try:
                r = httpx2.request(method, url + path, timeout=30, **kwargs)
            except httpx2.TransportError:  # killed meanwhile: another one
                url = self.rng.choice(self.urls)
                continue
            moved = r.json().get("moved") if r.status_code == 409 else None
            if moved is None:
                return r
            url = self.follow(moved)  # the browser opens the same page at the owner
        raise AssertionError(f"{path}: sent from process to process")

    def seat_socket(
        self, sockets: ExitStack, table_id: str, token: str
    ) -> tuple[ClientConnection, Msg]:
        """A seat's socket at a random process, sent on to the owner; and its state."""
        url = self.rng.choice(self.urls)
        for _ in range(20):
            try:
                ws = sockets.enter_context(connect(f"ws{url[4:]}/ws/tables/{table_id}?role=seat"))
                with suppress(ConnectionClosed):  # told `moved` and closed before it was read
                    ws.send(json.dumps({"type": "auth", "token": token}))
                first = recv(ws)
                if first["type"] == "moved":
                    ws.close()
                    url = self.follow(first)
                    continue
                assert first["type"] == "welcome", first
                state = recv(ws)
                while state["type"] != "state":
                    state = recv(ws)
            except (OSError, WebSocketException):
                # Its process was killed meanwhile (before or after the welcome, as a
                # session still connecting meets the kill): another one.
                url = self.rng.choice(self.urls)
                continue
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
    pending: tuple[str, int, int, int] | None = None  # (its id, hand, engine seat, version)


class Session:
    """One table's people, playing until ``session_end``."""

    def __init__(self, site: Site, table_id: str, seats: list[Seat], seed: int) -> None:
        self.site = site
        self.table_id = table_id
        self.seats = seats
        self.rng = random.Random(seed)
        self.acked: list[tuple[int, str, int, int]] = []  # (hand, player, seat, version)
        self.unsure: list[tuple[int, str, int, int]] = []  # sent when the owner died
        self.drops = 0  # sockets closed under a seat
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

    def lost(self, seat: Seat) -> None:
        """The seat's socket closed under it (its process killed): an action in flight
        may or may not have been stored; the seat comes back through a live process."""
        self.drops += 1
        if seat.pending is not None:
            self.unsure.append((seat.pending[1], seat.name, *seat.pending[2:]))
            seat.pending = None
        self.connect(seat)

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
            except ConnectionClosed:  # its process was killed: back through another
                self.lost(seat)
                return
            if m["type"] == "state":
                seat.state = m
                if seat.pending is not None and m.get("ack") == seat.pending[0]:
                    last = m["last"]
                    self.acked.append((seat.pending[1], seat.name, last["seat"], last["version"]))
                    assert (last["seat"], last["version"]) == seat.pending[2:], (last, seat.pending)
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
            seat.pending = (ref, hand, view["seat"], view["version"])
            try:
                seat.ws.send(json.dumps({"type": "action", "id": ref, "action": action}))
            except ConnectionClosed:
                self.lost(seat)
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
        lost = Counter(self.acked) - Counter(stored)
        assert not lost, f"acknowledged, not stored (hand, player, seat, version): {lost}"
        extra = Counter(stored) - Counter(self.acked) - Counter(self.unsure)
        assert not extra, f"stored, never sent (hand, player, seat, version): {extra}"
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


def three_sessions(site: Site) -> list[Session]:
    """A Pineapple session (Ann's hand 1 earns Fantasyland), a classic one and a
    Pineapple tournament (Fay, one chip, fouls in hand 1), opened through the site."""
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
    return [pineapple, classic, tournament]


def check_sessions(sessions: list[Session]) -> None:
    """Each history replays as stored and holds what was acknowledged; and each session
    is what it was opened to be."""
    pineapple, classic, tournament = sessions
    records = pineapple.stored()
    assert records[0]["fantasyland_qualified"].keys() == {"Ann"}
    assert any(r["fantasyland"].get("Ann") for r in records[1:]), "no Fantasyland hand"
    assert classic.stored()[0]["rules"]["variant"] == "classic"
    records = tournament.stored()
    out = records[0]["session"]["ledger"]["out"]
    assert out == ["Fay"], out  # fouled her one chip away in hand 1
    assert all("Fay" not in r["players"] for r in records[1:])
    assert len(records[-1]["session"]["ledger"]["out"]) == 2  # played to its winner


@pytest.mark.slow
def test_whole_sessions_over_three_processes(site: Site) -> None:
    """Three sessions at once, each to its end; then each table's history replays as
    stored, and holds exactly the acknowledged actions."""
    sessions = three_sessions(site)
    with ThreadPoolExecutor(len(sessions)) as pool:
        for done in [pool.submit(s.play) for s in sessions]:
            done.result()
    check_sessions(sessions)
    assert all(s.drops == 0 and not s.unsure for s in sessions)
    # The clients did go through the other processes, and were sent on.
    assert site.moves > 0


@pytest.mark.slow
def test_sessions_go_on_when_a_process_is_killed(site: Site, database_url: str) -> None:
    """The process that plays the Pineapple session is killed (SIGKILL) in its middle:
    its sockets close, the clients come back through the live processes, one of which
    takes the table over (and the others the dead one's other tables); every session
    still plays to its end, nothing acknowledged is lost, nothing is stored twice."""
    sessions = three_sessions(site)
    pineapple = sessions[0]
    with ThreadPoolExecutor(len(sessions)) as pool:
        playing = [pool.submit(s.play) for s in sessions]
        deadline = time.monotonic() + SESSION_SECONDS
        while len(pineapple.acked) < 8:  # hand 1 well under way
            assert time.monotonic() < deadline and not playing[0].done()
            time.sleep(0.05)
        owner = lease_address(database_url, pineapple.table_id)
        assert owner in site.urls
        site.kill(owner)
        for done in playing:
            done.result()
    check_sessions(sessions)
    assert pineapple.drops >= 1  # its sockets closed under it (one may be reconnecting)
    # A live process of the same machine takes a dead one's table over at once: a
    # client is sent to the dead process only by an answer given before it was killed.
    assert max(site.sent_to_dead, default=0.0) < 1.0, site.sent_to_dead
    # Played on by a live process (the lease is given up once the finished table leaves).
    assert lease_address(database_url, pineapple.table_id) in [*site.urls, None]
