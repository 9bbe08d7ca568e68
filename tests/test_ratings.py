"""Identities, sign-in, ratings and profiles over the server's API; reviews over HTTP.

The rating oracle is openskill itself, called here directly on the stored hands.
"""

from __future__ import annotations

import json
import os
import random
import re
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from openskill.models import PlackettLuce
from sqlalchemy import create_engine, event, make_url, select
from sqlalchemy import text as sql_text

from _helpers import random_action
from chinese_poker.ai.review import review_hand
from chinese_poker.server.app import create_app
from chinese_poker.server.guard import RateSpec
from chinese_poker.server.ratings import (
    _HANDS,
    BOT_ANCHORS,
    BOT_SIGMA,
    Participant,
    _rate_in,
    _rate_stored,
    rate_hand,
)
from test_server import connect, create, recv

Msg = dict[str, Any]


@pytest.fixture(params=["sqlite", "postgres"])
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    if request.param == "postgres":
        url = os.environ.get("CHINESE_POKER_TEST_POSTGRES_URL")
        if not url:
            pytest.skip("CHINESE_POKER_TEST_POSTGRES_URL is not set")
    else:
        url = f"sqlite:///{tmp_path / 'server.db'}"
    app = create_app(url, hint_processes=False, rate_limits=RateSpec(create="1000/minute"))
    with TestClient(app) as c:
        yield c


def new_key() -> str:
    return secrets.token_urlsafe(24)


def me(client: TestClient, key: str) -> Msg:
    r = client.post("/api/me", headers={"X-Player-Key": key})
    assert r.status_code == 200, r.text
    data: Msg = r.json()
    return data


def play_against_bots(
    client: TestClient, key: str, preset: str = "pineapple", bots: tuple[str, ...] = ("rules",)
) -> tuple[str, list[Msg]]:
    """A session of a person (random legal moves) against bots, to its end: the table id
    and its history records."""
    seats = [{"kind": "human", "name": "Ann"}] + [
        {"kind": "bot", "bot": b, "name": f"{b}-{i}"} for i, b in enumerate(bots, 1)
    ]
    made = create(client, preset=preset, seats=seats)
    tid = made["table"]["id"]
    r = client.post(
        "/api/me/seats",
        json={"table_id": tid, "token": made["token"]},
        headers={"X-Player-Key": key},
    )
    assert r.status_code == 200, r.text
    rng = random.Random(7)
    sent: set[tuple[int, int]] = set()
    with connect(client, tid, made["token"]) as ws:
        for _ in range(5000):
            m = recv(ws, 30)
            if m["type"] == "session_end":
                break
            if m["type"] == "state":
                view = m["view"]
                mark = (m.get("hand", 0), view["version"])
                if view["decisions"] and view["seat"] in view["to_act"] and mark not in sent:
                    sent.add(mark)
                    ws.send_json({"type": "action", "action": random_action(view, rng)})
        else:
            raise AssertionError("the session never ended")
    text = client.get(f"/api/tables/{tid}/history").text
    return tid, [json.loads(line) for line in text.splitlines()]


# --------------------------------------------------------------------------- the oracle


def openskill_over(records: list[Msg]) -> Any:
    """The person's (the first player's) openskill rating after ``records`` in order,
    each a match against the rules bot at its anchor: openskill itself, not our code."""
    model = PlackettLuce()
    person = model.rating()
    anchor = BOT_ANCHORS["open-face"][("rules", None)]
    for rec in records:
        ann, bot = rec["players"]
        [[person], _] = model.rate(
            [[person], [model.rating(anchor, BOT_SIGMA)]],
            scores=[rec["totals"][ann], rec["totals"][bot]],
        )
    return person


def test_rate_hand_is_openskill_on_a_fixed_sequence() -> None:
    """Four players over a fixed sequence of hands, one an anchor: each step equals the
    library's own ``rate`` with the same inputs, and the anchor never moves."""
    model = PlackettLuce()
    lib = [model.rating() for _ in range(3)]
    ours = [Participant(r.mu, r.sigma) for r in lib]
    anchor = Participant(27.0, BOT_SIGMA, anchor=True)
    hands = [[6, -2, -4, 0], [-12, 12, 3, -3], [0, 0, 1, -1], [18, -6, -6, -6], [-1, -1, -1, 3]]
    for scores in hands:
        expected = model.rate([[r] for r in lib] + [[model.rating(27.0, BOT_SIGMA)]], scores=scores)
        lib = [team[0] for team in expected[:3]]
        got = rate_hand([*ours, anchor], scores)
        assert got[3] == (27.0, BOT_SIGMA)
        ours = [Participant(mu, sigma) for mu, sigma in got[:3]]
        for mine, theirs in zip(ours, lib, strict=True):
            assert mine.mu == pytest.approx(theirs.mu, abs=1e-12)
            assert mine.sigma == pytest.approx(theirs.sigma, abs=1e-12)
    with pytest.raises(ValueError, match="two or more"):
        rate_hand([anchor], [1])


def test_a_session_against_a_bot_rates_the_person_as_openskill_does(client: TestClient) -> None:
    key = new_key()
    pid = me(client, key)["id"]
    _tid, records = play_against_bots(client, key)
    assert records
    profile = client.get(f"/api/players/{pid}").json()
    # The oracle: openskill directly on the stored hands, the bot at its anchor.
    person = openskill_over(records)
    anchor = BOT_ANCHORS["open-face"][("rules", None)]
    fam = {f["family"]: f for f in profile["families"]}["open-face"]
    assert fam["mu"] == pytest.approx(person.mu, abs=1e-3)
    assert fam["sigma"] == pytest.approx(person.sigma, abs=1e-3)
    assert fam["rating"] == pytest.approx(person.mu - 3 * person.sigma, abs=1e-2)
    assert len(profile["history"]["open-face"]) == len(records)
    # The figures, from the records (the scorer's settlement).
    assert fam["hands"] == len(records)
    points = sum(r["totals"]["Ann"] for r in records)
    assert fam["points_per_hand"] == pytest.approx(points / len(records), abs=1e-3)
    fouls = sum(
        any(p["fouled"] for p in r["settlement"]["players"] if p["player"] == "Ann")
        for r in records
    )
    assert fam["foul_percent"] == pytest.approx(100 * fouls / len(records), abs=0.1)
    royalties = sum(
        p["royalties"] for r in records for p in r["settlement"]["players"] if p["player"] == "Ann"
    )
    assert fam["royalties_per_hand"] == pytest.approx(royalties / len(records), abs=1e-3)
    # Reading again rates nothing twice.
    again = client.get(f"/api/players/{pid}").json()
    assert again["families"] == profile["families"]
    # The leaderboard lists the person and the bot (at its anchor), best first.
    board = client.get("/api/leaderboard", params={"family": "open-face"}).json()["players"]
    ids = [row["player"] for row in board]
    assert pid in ids and "bot-rules" in ids
    bot_row = board[ids.index("bot-rules")]
    assert bot_row["mu"] == anchor and bot_row["kind"] == "bot"
    ratings = [row["rating"] for row in board]
    assert ratings == sorted(ratings, reverse=True)


def test_a_seat_needs_its_token(client: TestClient) -> None:
    made = create(client, preset="pineapple")
    tid = made["table"]["id"]
    key = new_key()
    r = client.post(
        "/api/me/seats", json={"table_id": tid, "token": "s-not-it"}, headers={"X-Player-Key": key}
    )
    assert r.status_code == 403
    r = client.post(
        "/api/me/seats",
        json={"table_id": "t-none", "token": made["token"]},
        headers={"X-Player-Key": key},
    )
    assert r.status_code == 404
    assert client.post("/api/me").status_code == 401
    assert client.post("/api/me", headers={"X-Player-Key": "short"}).status_code == 400


def test_sign_in_from_another_device(client: TestClient) -> None:
    first, second = new_key(), new_key()
    ann = "ann-" + secrets.token_hex(3)  # the PostgreSQL database may be shared
    mine = me(client, first)
    h = {"X-Player-Key": first}
    assert client.put("/api/me/name", json={"name": "Ann"}, headers=h).json()["name"] == "Ann"
    r = client.post("/api/me/password", json={"handle": ann, "password": "short"}, headers=h)
    assert r.status_code == 400 and "8 characters" in r.json()["detail"]
    r = client.post(
        "/api/me/password", json={"handle": ann, "password": "correct horse"}, headers=h
    )
    assert r.status_code == 200 and r.json()["signed_up"]
    # Somebody else cannot take the handle.
    r = client.post(
        "/api/me/password",
        json={"handle": ann, "password": "another one"},
        headers={"X-Player-Key": new_key()},
    )
    assert r.status_code == 409
    # The second browser: a wrong password, then the right one.
    bad = client.post("/api/signin", json={"handle": ann, "password": "wrong horse", "key": second})
    assert bad.status_code == 401
    good = client.post(
        "/api/signin", json={"handle": ann, "password": "correct horse", "key": second}
    )
    assert good.status_code == 200 and good.json()["id"] == mine["id"]
    assert me(client, second)["id"] == mine["id"]
    assert me(client, first)["id"] == mine["id"]  # the first device keeps its key


def test_sign_in_attempts_are_rate_limited(client: TestClient) -> None:
    bob = "bob-" + secrets.token_hex(3)
    me(client, key := new_key())
    client.post(
        "/api/me/password",
        json={"handle": bob, "password": "a long secret"},
        headers={"X-Player-Key": key},
    )
    codes = [
        client.post(
            "/api/signin", json={"handle": bob, "password": f"guess {i}", "key": new_key()}
        ).status_code
        for i in range(8)
    ]
    assert codes[:5] == [401] * 5 and set(codes[5:]) == {429}
    # The limit holds for the right password too: a guesser learns nothing more.
    late = client.post(
        "/api/signin", json={"handle": bob, "password": "a long secret", "key": new_key()}
    )
    assert late.status_code == 429


@pytest.mark.slow
def test_review_over_http_is_the_librarys_and_is_stored(client: TestClient) -> None:
    key = new_key()
    tid, records = play_against_bots(client, key)
    r = client.get(f"/api/tables/{tid}/hands/1/review")
    assert r.status_code == 200, r.text
    data = r.json()
    expected = review_hand({k: v for k, v in records[0].items() if k != "fairness"}, index=1)
    assert data["decisions"] == expected.to_dict()["decisions"]
    assert {s["player"] for s in data["players_summary"]} == set(records[0]["players"])
    assert client.get(f"/api/tables/{tid}/hands/1/review").json() == data
    assert client.get(f"/api/tables/{tid}/hands/99/review").status_code == 409
    # The session: every hand's decisions, summarised by the library.
    from chinese_poker.ai.review import summarise

    # At most SESSION_REVIEW_NEW new hands per request, the rest pending: ask until done.
    for _ in range(len(records) + 1):
        session = client.get(f"/api/tables/{tid}/review").json()
        if session["pending"] == 0:
            break
        assert len(session["hands"]) + session["pending"] == len(records)
    assert session["hands"] == list(range(1, len(records) + 1))
    hands = [
        review_hand({k: v for k, v in r.items() if k != "fairness"}, index=i)
        for i, r in enumerate(records, 1)
    ]
    ann = next(p for p in session["players"] if p["player"] == "Ann")
    want = summarise(hands, "Ann").to_dict()
    assert ann["decisions"] == want["decisions"] and ann["marks"] == want["marks"]
    assert ann["accuracy"] == want["accuracy"]
    assert ann["loss"] == pytest.approx(want["loss"], abs=0.01)
    assert client.get("/api/tables/t-none/hands/1/review").status_code == 404


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "words"),
    [
        ("put", "/api/me/name", {"name": ""}, 400, "name"),
        ("put", "/api/me/name", {"name": "x" * 41}, 400, "name"),
        ("put", "/api/me/name", {"name": "a\nb"}, 400, "control characters"),
        ("put", "/api/me/name", {"name": "   "}, 400, "non-empty"),
        ("post", "/api/me/password", {"handle": "a b", "password": "long enough"}, 400, "handle"),
        ("post", "/api/me/password", {"handle": "ann", "password": "x", "extra": 1}, 422, "extra"),
        ("post", "/api/me/seats", {"table_id": "t-x"}, 422, "token"),
    ],
)
def test_bad_identity_requests_change_nothing(
    client: TestClient, method: str, path: str, body: Msg, status: int, words: str
) -> None:
    key = new_key()
    before = me(client, key)
    r = getattr(client, method)(path, json=body, headers={"X-Player-Key": key})
    assert r.status_code == status, r.text
    assert words in json.dumps(r.json()["detail"])
    assert me(client, key) == before


def test_profiles_and_leaderboard_refuse_what_does_not_exist(client: TestClient) -> None:
    assert client.get("/api/players/p-nobody").status_code == 404
    assert client.get("/api/leaderboard", params={"family": "poker"}).status_code == 422
    assert client.get("/api/leaderboard", params={"family": "classic"}).status_code == 200


@pytest.fixture(params=["sqlite", "postgres"])
def own_client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    """A server on a database of its own (a fresh PostgreSQL database: in the shared one,
    another test's profile read could rate this test's hands)."""
    drop = None
    if request.param == "postgres":
        shared = os.environ.get("CHINESE_POKER_TEST_POSTGRES_URL")
        if not shared:
            pytest.skip("CHINESE_POKER_TEST_POSTGRES_URL is not set")
        name = f"race_{secrets.token_hex(4)}"
        admin = create_engine(shared, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.exec_driver_sql(f"CREATE DATABASE {name}")
        url = make_url(shared).set(database=name).render_as_string(hide_password=False)
        drop = name
    else:
        url = f"sqlite:///{tmp_path / 'server.db'}"
    try:
        app = create_app(url, hint_processes=False, rate_limits=RateSpec(create="1000/minute"))
        with TestClient(app) as c:
            yield c
        app.state.store.engine.dispose()
    finally:
        if drop is not None:
            with admin.connect() as conn:
                conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {drop} WITH (FORCE)")
            admin.dispose()


def test_two_processes_rating_one_persons_hands_lose_no_update(own_client: TestClient) -> None:
    """Two raters at once (two server processes, say) on two hands of one person: the
    second waits for the first's rating instead of overwriting it with one computed from
    the rating before it (a lost update), so the stored rating is still openskill's over
    every hand in order."""
    key = new_key()
    pid = me(own_client, key)["id"]
    sessions = [play_against_bots(own_client, key) for _ in range(2)]
    records = [rec for _tid, recs in sessions for rec in recs]
    store = own_client.app.state.store  # type: ignore[attr-defined]
    with store.engine.connect() as conn:
        hands = conn.execute(
            select(_HANDS.c.table_id, _HANDS.c.number, _HANDS.c.finished_at)
            .where(_HANDS.c.record.is_not(None))
            .order_by(_HANDS.c.finished_at, _HANDS.c.number)
        ).all()
    assert len(hands) == len(records) >= 3
    _rate_stored(store, *hands[0])  # the person's rating row exists from here on
    errors: list[BaseException] = []

    def second() -> None:
        try:
            _rate_stored(store, *hands[2])
        except BaseException as exc:  # reported below
            errors.append(exc)

    racer = threading.Thread(target=second)
    # SQLite: the second rater's first write is where it must wait for this transaction's
    # write lock. This transaction stays open until the racer gets there, so everything
    # it reads before that is read while the first rating is not committed yet: a race
    # by construction, however slowly the racer's thread is scheduled.
    at_first_write = threading.Event()

    def watch_racer(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if threading.current_thread() is racer and statement.lstrip().upper().startswith(
            ("INSERT", "UPDATE", "DELETE")
        ):
            at_first_write.set()

    with store.engine.begin() as conn:
        _rate_in(conn, *hands[1])
        event.listen(store.engine, "before_cursor_execute", watch_racer)
        racer.start()
        if store.dialect == "postgresql":
            # Until the second rater waits for a lock this transaction holds (on the
            # rating row: read for update with the fix, written without it).
            waiting = sql_text(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            deadline = time.monotonic() + 60
            with store.engine.connect() as watch:
                while not watch.execute(waiting).scalar() and time.monotonic() < deadline:
                    time.sleep(0.05)
        else:
            assert at_first_write.wait(60), "the second rater never came to write"
        assert racer.is_alive()  # the second rater waits for the first
    racer.join(60)
    event.remove(store.engine, "before_cursor_execute", watch_racer)
    assert not racer.is_alive() and not errors, errors
    # Hands 1 and 2 were rated in that order (2 waited for 1); the rest in order.
    profile = own_client.get(f"/api/players/{pid}").json()
    person = openskill_over(records)
    fam = {f["family"]: f for f in profile["families"]}["open-face"]
    assert fam["hands"] == len(records)
    assert len(profile["history"]["open-face"]) == len(records)
    assert fam["mu"] == pytest.approx(person.mu, abs=1e-3)
    assert fam["sigma"] == pytest.approx(person.sigma, abs=1e-3)


def test_the_anchor_table_in_the_docs_is_bot_anchors() -> None:
    """docs/browser.md's table of anchors is a copy of ``BOT_ANCHORS``: it must not drift
    when the anchors are re-measured."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "browser.md").read_text()
    shown: dict[str, dict[tuple[str, int | None], float]] = {}
    for family, bot, value in re.findall(
        r"^\| (open-face|classic) \| ([^|]+?) \| (\d+\.\d)\b", text, flags=re.M
    ):
        level = re.match(r"mc level (\d)", bot)
        key = ("mc", int(level.group(1))) if level else (bot.split(",")[0], None)
        shown.setdefault(family, {})[key] = float(value)
    assert shown == BOT_ANCHORS


def test_the_lobbys_strengths_rise_and_are_rated() -> None:
    """The lobby's bot strengths (``STRENGTHS`` in words.js), weakest first, are bots with
    an anchor, and each is anchored above the one before it in open-face play: a player
    who picks "Expert" meets the strongest bot measured, not a slower level that no
    benchmark has shown stronger (issue 11, the ladder stops at mc level 3)."""
    words = Path(__file__).resolve().parents[1] / "src/chinese_poker/server/static/js/words.js"
    block = words.read_text().split("export const STRENGTHS = [", 1)[1].split("];", 1)[0]
    offered = [
        (name, None if level == "null" else int(level))
        for name, level in re.findall(r'bot: "([\w-]+)", level: (null|\d+)', block)
    ]
    assert len(offered) == 4
    anchors = [BOT_ANCHORS["open-face"].get(bot) for bot in offered]
    assert None not in anchors, f"a lobby bot has no rating anchor: {offered} -> {anchors}"
    assert anchors == sorted(anchors) and len(set(anchors)) == len(anchors), (offered, anchors)
