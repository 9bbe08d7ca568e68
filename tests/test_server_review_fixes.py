"""Regressions for the server review: one person in two chairs, leaves queued behind
the table's writes, failed writes announced to nobody, throttled reads, password changes,
private handles, rematch specs and racing first requests."""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from chinese_poker.server.ratings import EVENTS, RATINGS, _rate_one
from test_ratings import client, me, new_key, play_against_bots  # noqa: F401
from test_server import two_humans

Msg = dict[str, Any]


def test_one_player_cannot_claim_two_seats_of_a_table(client: TestClient) -> None:  # noqa: F811
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


def test_a_player_twice_in_one_hand_is_rated_as_anonymous(client: TestClient) -> None:  # noqa: F811
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
        events = list(
            conn.execute(select(EVENTS).where(EVENTS.c.table_id == tid + "x")).mappings()
        )
        assert events == []
        # The session's own hands are not rated yet (that happens on reading): no row.
        assert conn.execute(select(RATINGS).where(RATINGS.c.player_id == pid)).first() is None
    profile = client.get(f"/api/players/{pid}").json()
    assert [f["hands"] for f in profile["families"]] == [len(records)]
