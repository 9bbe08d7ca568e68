"""Regressions for the server review: one person in two chairs, leaves queued behind
the table's writes, failed writes announced to nobody, throttled reads, password changes,
private handles, rematch specs and racing first requests."""

from __future__ import annotations

import asyncio
import hashlib
import random
import secrets
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, insert, select

from chinese_poker.server.accounts import PlayerKeyRow, PlayerRow
from chinese_poker.server.app import create_app
from chinese_poker.server.commit import GroupCommit, Step
from chinese_poker.server.guard import RateSpec
from chinese_poker.server.messages import LeaveMsg
from chinese_poker.server.profile_routes import HISTORY_PER_FAMILY
from chinese_poker.server.ratings import EVENTS, RATINGS, _rate_one
from chinese_poker.server.reviews import SESSION_REVIEW_NEW
from chinese_poker.server.tables import CreateTable
from test_ratings import client, me, new_key, play_against_bots
from test_server import connect, quiet, recv, recv_until, two_humans
from test_server_continuous import against_a_bot, drive, history

__all__ = ["client"]  # the fixture, shared with test_ratings

Msg = dict[str, Any]


def test_one_player_cannot_claim_two_seats_of_a_table(client: TestClient) -> None:
    made, joined = two_humans(client)
    tid = made["table"]["id"]
    h = {"X-Player-Key": new_key()}
    r = client.post("/api/me/seats", json={"table_id": tid, "token": made["token"]}, headers=h)
    assert r.status_code == 200, r.text
    # Claiming the same seat again is fine; another chair of the same table is not.
    r = client.post("/api/me/seats", json={"table_id": tid, "token": made["token"]}, headers=h)
    assert r.status_code == 200, r.text
    r = client.post("/api/me/seats", json={"table_id": tid, "token": joined["token"]}, headers=h)
    assert r.status_code == 409 and "seat 1" in r.json()["detail"]
    # Somebody else may take it.
    r = client.post(
        "/api/me/seats",
        json={"table_id": tid, "token": joined["token"]},
        headers={"X-Player-Key": new_key()},
    )
    assert r.status_code == 200, r.text


def test_a_player_twice_in_one_hand_is_rated_as_anonymous(client: TestClient) -> None:
    """Rows written before the 409 existed (or by hand): the hand is rated, the doubled
    player is left out, nothing raises."""
    key = new_key()
    pid = me(client, key)["id"]
    tid, records = play_against_bots(client, key)
    rec = records[0]
    a, b = rec["players"]
    store = client.app.state.store  # type: ignore[attr-defined]
    with store.engine.begin() as conn:
        _rate_one(conn, tid + "x", 99, time.time(), rec, {a: pid, b: pid}, {})
        events = list(conn.execute(select(EVENTS).where(EVENTS.c.table_id == tid + "x")).mappings())
        assert events == []
        # The session's own hands are not rated yet (that happens on reading): no row.
        assert conn.execute(select(RATINGS).where(RATINGS.c.player_id == pid)).first() is None
    profile = client.get(f"/api/players/{pid}").json()
    assert [f["hands"] for f in profile["families"]] == [len(records)]


def test_a_leave_in_the_tick_of_the_next_deal_waits_for_it(client: TestClient) -> None:
    """The next hand's start is being stored when the leave arrives: the leave waits
    for it, so hand 2 is dealt and is the last; no session is ended under a deal."""
    made = against_a_bot(client, next_hand_delay=30)
    tid = made["table"]["id"]
    live = client.app.state.manager.get(tid)  # type: ignore[attr-defined]
    with connect(client, tid, made["token"]) as ann:
        recv(ann)
        drive({0: ann}, random.Random(2), lambda m: m["type"] == "hand_end")

        def same_tick() -> None:
            live.flow.start_next_hand()
            live.flow.leave(live.conns[0], 0, LeaveMsg(type="leave", id="bye"))

        ann.portal.call(same_tick)
        seen: list[Msg] = []
        reply = recv_until(ann, lambda m: m.get("ref") == "bye", seen)
        assert reply["now"] is False  # hand 2 was dealt first: it is the last hand
        assert any(m["type"] == "hand_start" and m["hand"] == 2 for m in seen)
        end = drive({0: ann}, random.Random(3), lambda m: m["type"] == "session_end")
    assert end["left"] == "Ann" and end["ledger"]["hands_played"] == 2
    assert len(history(client, tid)) == 2


class _Writer:
    def __init__(self, name: str, fail: bool) -> None:
        self.id, self.fail, self.told = name, fail, False

    def take_steps(self) -> list[Step]:
        return [Step()]

    def committed(self, steps: list[Step]) -> None:
        if self.fail:
            raise RuntimeError("a broken broadcast")
        self.told = True

    def write_failed(self, steps: list[Step]) -> None:
        raise AssertionError("nothing failed to be written")

    def moved(self, steps: list[Step]) -> None:
        raise AssertionError("no lease was lost")


def test_one_tables_failing_broadcast_does_not_stall_the_others(client: TestClient) -> None:
    store = client.app.state.store  # type: ignore[attr-defined]
    broken, fine = _Writer("t-broken", True), _Writer("t-fine", False)

    async def one_batch() -> None:  # the group commit's own way: dirty, then a flush
        commits = GroupCommit(store)
        commits.dirty(broken)
        commits.dirty(fine)
        commits.flush()

    asyncio.run(one_batch())
    assert fine.told


def _refuse_live_writes(*_args: Any) -> None:
    raise OSError("the disk is full")


def test_a_leave_the_store_refuses_is_told_to_the_sender_only(
    client: TestClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = against_a_bot(client, next_hand_delay=30)
    tid = made["table"]["id"]
    store = client.app.state.store  # type: ignore[attr-defined]
    with connect(client, tid, made["token"]) as ann, connect(client, tid) as eve:
        recv(ann)
        drive({0: ann}, random.Random(2), lambda m: m["type"] == "hand_end")
        with monkeypatch.context() as m:
            m.setattr(store, "set_live", _refuse_live_writes)
            ann.send_json({"type": "leave", "id": "bye"})
            seen: list[Msg] = []
            err = recv_until(ann, lambda msg: msg.get("ref") == "bye", seen)
        assert err["type"] == "error" and err["code"] == "server_error"
        assert not any(msg["type"] in ("leaving", "notice", "session_end") for msg in seen)
        assert client.get(f"/api/tables/{tid}").json()["status"] == "playing"
        watched = list(quiet(eve))
        assert not any(msg["type"] in ("leaving", "notice", "session_end") for msg in watched)
        # Stored this time: the leave happens.
        ann.send_json({"type": "leave", "id": "again"})
        assert recv_until(ann, lambda msg: msg.get("ref") == "again")["now"] is True
        recv_until(ann, lambda msg: msg["type"] == "session_end")
    assert client.get(f"/api/tables/{tid}").json()["status"] == "finished"


def _finished_after_one_hand(client: TestClient, **body: Any) -> Msg:
    """A table against a bot whose person left after hand 1 (its session is over)."""
    made = against_a_bot(client, next_hand_delay=30, **body)
    with connect(client, made["table"]["id"], made["token"]) as ann:
        recv(ann)
        drive({0: ann}, random.Random(2), lambda m: m["type"] == "hand_end")
        ann.send_json({"type": "leave", "id": 1})
        recv_until(ann, lambda msg: msg["type"] == "session_end")
    return made


def test_a_rematch_the_store_refuses_is_offered_to_nobody(
    client: TestClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = _finished_after_one_hand(client)
    tid = made["table"]["id"]
    store = client.app.state.store  # type: ignore[attr-defined]
    with connect(client, tid) as eve:
        with monkeypatch.context() as m:
            m.setattr(store, "set_live", _refuse_live_writes)
            r = client.post(f"/api/tables/{tid}/rematch", json={"token": made["token"]})
        assert r.status_code == 503 and "try again" in r.json()["detail"]
        assert not any(msg["type"] == "rematch" for msg in quiet(eve))
    assert client.get(f"/api/tables/{tid}").json()["rematch"] is None


@pytest.mark.slow
def test_session_review_reviews_a_few_new_hands_per_request(client: TestClient) -> None:
    # Four players: an orbit of four hands.
    tid, records = play_against_bots(
        client, new_key(), preset="ofc", bots=("rules", "rules", "rules")
    )
    assert len(records) > SESSION_REVIEW_NEW  # else there is nothing left pending
    first = client.get(f"/api/tables/{tid}/review").json()
    assert first["hands"] == list(range(1, SESSION_REVIEW_NEW + 1))
    assert first["pending"] == len(records) - SESSION_REVIEW_NEW
    # The reviewed hands are stored: the next request adds new ones to them.
    second = client.get(f"/api/tables/{tid}/review").json()
    done = min(len(records), 2 * SESSION_REVIEW_NEW)
    assert second["hands"] == list(range(1, done + 1))
    assert second["pending"] == len(records) - done


def test_profile_leaderboard_and_reviews_count_against_the_read_limit(tmp_path: Path) -> None:
    app = create_app(
        f"sqlite:///{tmp_path / 'server.db'}",
        hint_processes=False,
        rate_limits=RateSpec(read="3/minute"),
    )
    with TestClient(app) as c:
        for path in ("/api/players/p-nobody", "/api/leaderboard", "/api/tables/t-x/review"):
            codes = [c.get(path).status_code for _ in range(4)]
            assert codes[-1] == 429, (path, codes)
            assert 429 not in codes[:-1] or path != "/api/players/p-nobody"


def test_profile_history_keeps_the_last_hands_and_the_leaderboard_cuts_in_sql(
    client: TestClient,
) -> None:
    pid = me(client, new_key())["id"]
    store = client.app.state.store  # type: ignore[attr-defined]
    n = HISTORY_PER_FAMILY + 5
    with store.engine.begin() as conn:
        conn.execute(
            insert(RATINGS).values(
                player_id=pid, family="classic", mu=time.time(), sigma=1.0, hands=n, points=0,
                fouls=0, fantasylands=0, royalties=0, updated_at=0.0,
            )
        )  # fmt: skip
        conn.execute(
            insert(EVENTS),
            [
                {"player_id": pid, "family": "classic", "table_id": "t-old", "hand": i,
                 "at": float(i), "mu": 25.0 + i / n, "sigma": 1.0}
                for i in range(1, n + 1)
            ],
        )  # fmt: skip
    history = client.get(f"/api/players/{pid}").json()["history"]["classic"]
    assert [h["hand"] for h in history] == list(range(6, n + 1))
    board = client.get("/api/leaderboard", params={"family": "classic", "limit": 1}).json()
    assert [row["player"] for row in board["players"]] == [pid]  # the newest run is the best there


def test_changing_a_password_needs_the_current_one(client: TestClient) -> None:
    key, other = new_key(), new_key()
    handle = "cy-" + secrets.token_hex(3)
    h = {"X-Player-Key": key}
    me(client, key)
    url = "/api/me/password"
    r = client.post(url, json={"handle": handle, "password": "first secret"}, headers=h)
    assert r.status_code == 200, r.text
    # Somebody at the browser (or holding the key) cannot change it without the password.
    r = client.post(url, json={"handle": handle, "password": "taken over"}, headers=h)
    assert r.status_code == 403 and "current_password" in r.json()["detail"]
    body = {"handle": handle, "password": "taken over", "current_password": "a wrong guess"}
    r = client.post(url, json=body, headers=h)
    assert r.status_code == 403 and "wrong" in r.json()["detail"]
    signin = {"handle": handle, "password": "first secret", "key": other}
    assert client.post("/api/signin", json=signin).status_code == 200
    body["current_password"] = "first secret"
    assert client.post(url, json=body, headers=h).status_code == 200
    signin["password"], signin["key"] = "taken over", new_key()
    assert client.post("/api/signin", json=signin).status_code == 200


def test_setting_a_password_counts_against_the_sign_in_limit(client: TestClient) -> None:
    key = new_key()
    me(client, key)
    handle = "di-" + secrets.token_hex(3)
    body = {"handle": handle, "password": "first secret", "current_password": "guess"}
    codes = [
        client.post("/api/me/password", json=body, headers={"X-Player-Key": key}).status_code
        for _ in range(12)
    ]
    assert codes[0] == 200 and set(codes[1:10]) == {403} and set(codes[10:]) == {429}


def test_the_handle_is_shown_to_its_player_only(client: TestClient) -> None:
    key = new_key()
    handle = "ed-" + secrets.token_hex(3)
    h = {"X-Player-Key": key}
    pid = me(client, key)["id"]
    body = {"handle": handle, "password": "a long secret"}
    assert client.post("/api/me/password", json=body, headers=h).json()["handle"] == handle
    assert me(client, key)["handle"] == handle
    signin = {**body, "key": new_key()}
    assert client.post("/api/signin", json=signin).json()["handle"] == handle
    play_against_bots(client, key)
    profile = client.get(f"/api/players/{pid}")
    assert profile.status_code == 200 and "handle" not in profile.json()
    assert handle not in profile.text
    board = client.get("/api/leaderboard", params={"family": "open-face"})
    assert pid in board.text and handle not in board.text


def test_the_per_handle_limit_is_keyed_as_handles_are_unique(client: TestClient) -> None:
    """Guesses at a handle that differs only in case (another account, or none) do not
    lock the real one out."""
    handle = "Fay" + secrets.token_hex(3)
    me(client, key := new_key())
    body = {"handle": handle, "password": "a long secret"}
    client.post("/api/me/password", json=body, headers={"X-Player-Key": key})
    for i in range(5):
        wrong = {"handle": handle.lower(), "password": f"guess {i}", "key": new_key()}
        assert client.post("/api/signin", json=wrong).status_code == 401
    r = client.post("/api/signin", json={**body, "key": new_key()})
    assert r.status_code == 200, r.text


def test_guesses_from_one_address_do_not_lock_the_owner_out(client: TestClient) -> None:
    """The per-handle limit counts per address too: a stranger's five wrong guesses
    (from the test client's address) leave the owner, elsewhere, free to sign in; the
    stranger's sixth guess is refused."""
    handle = "Gus" + secrets.token_hex(3)
    me(client, key := new_key())
    body = {"handle": handle, "password": "a long secret"}
    client.post("/api/me/password", json=body, headers={"X-Player-Key": key})
    for i in range(5):
        wrong = {"handle": handle, "password": f"guess {i}", "key": new_key()}
        assert client.post("/api/signin", json=wrong).status_code == 401
    wrong = {"handle": handle, "password": "guess 5", "key": new_key()}
    assert client.post("/api/signin", json=wrong).status_code == 429
    owner = TestClient(client.app, client=("198.51.100.9", 40000))
    r = owner.post("/api/signin", json={**body, "key": new_key()})
    assert r.status_code == 200, r.text


def test_a_rematch_spec_is_one_the_lobby_would_accept(client: TestClient) -> None:
    long_name = "N" * 200  # the longest name the lobby takes
    made = _finished_after_one_hand(client, name=long_name)
    tid = made["table"]["id"]
    r = client.post(f"/api/tables/{tid}/rematch", json={"token": made["token"]})
    assert r.status_code == 200, r.text
    new = r.json()["table"]
    assert len(new["name"]) == 200 and new["name"].endswith(" (rematch)")
    live = client.app.state.manager.get(new["id"])  # type: ignore[attr-defined]
    CreateTable.model_validate(live.spec.model_dump())  # what is stored is valid
    assert [s.name for s in live.spec.seats if s.kind == "human"] == [None]
    # Ann holds her seat there under her own name all the same.
    assert any(s["name"] == "Ann" for s in new["seats"])


def test_two_first_requests_with_one_new_key_make_one_player(client: TestClient) -> None:
    """The twin request inserts the key between this one's look-up and its insert: this
    one answers with the twin's player (no 500)."""
    key = new_key()
    store = client.app.state.store  # type: ignore[attr-defined]
    twin: list[str] = []
    twin_id = "p-" + secrets.token_hex(8)  # the PostgreSQL database may be shared

    def before(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO PLAYERS") and not twin:
            twin.append(twin_id)
            with store.engine.begin() as other:  # the other request, finished first
                other.execute(
                    insert(PlayerRow.__table__).values(
                        id=twin_id, kind="human", name="", created_at=0.0
                    )
                )
                other.execute(
                    insert(PlayerKeyRow.__table__).values(
                        key_hash=hashlib.sha256(key.encode()).hexdigest(),
                        player_id=twin_id,
                        created_at=0.0,
                    )
                )

    event.listen(store.engine, "before_cursor_execute", before)
    try:
        r = client.post("/api/me", headers={"X-Player-Key": key})
    finally:
        event.remove(store.engine, "before_cursor_execute", before)
    assert r.status_code == 200, r.text
    assert r.json()["id"] == twin_id == me(client, key)["id"]
