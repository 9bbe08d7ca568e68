"""Issue 12 on the server: the spec in `welcome`, casual timeouts (only that decision,
a notice with the cards to its owner only), the time bank in the clocks, and a leaver's
seat handed to a bot (after the grace period, or by the table's creator) and back."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from _helpers import wait_until
from chinese_poker.rules import rules_for
from test_server import (
    client,
    connect,
    create,
    first_state,
    held_bots,
    recv,
    recv_until,
    two_humans,
)

__all__ = ["client"]  # the fixture, shared with test_server


def test_welcome_carries_the_compiled_spec(client: TestClient) -> None:
    made = create(client, preset="ofc-western")
    with connect(client, made["table"]["id"], made["token"]) as ws:
        welcome = recv(ws)
    assert welcome["spec"] == rules_for("ofc-western").spec.to_dict()
    assert welcome["table"]["timeouts"] == "hand" and welcome["table"]["grace"] is None


def test_a_casual_timeout_places_one_street_and_the_session_goes_on(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    hold = held_bots(monkeypatch)  # Ann's clock starts after she is connected: the bot
    made = create(  # places first, once the test lets it
        client,
        preset="pineapple",
        time_limit=0.3,
        time_bank=0.2,
        timeouts="decision",
        seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}],
    )
    tid = made["table"]["id"]
    seen: list[Any] = []
    with connect(client, tid, made["token"]) as ws, connect(client, tid) as watcher:
        assert 0 not in first_state(ws, seen)["view"]["to_act"]
        recv(watcher)  # its welcome: the spectator is there before the timeout's notice
        hold.go.set()
        first = recv_until(ws, lambda m: m["type"] == "state" and 0 in m["view"]["to_act"], seen)
        clock = first["clocks"][0]
        assert clock["limit"] == 0.3 and clock["bank"] == 0.2 and clock["remaining"] <= 0.3
        dealt = next(d for d in first["view"]["decisions"] if d["seat"] == 0)["cards"]
        notice = recv_until(ws, lambda m: m["type"] == "notice", seen)
        assert notice["kind"] == "timeout" and notice["player"] == "Ann"
        placed = notice["action"]
        assert sorted(placed["bottom"] + placed["middle"] + placed["top"]) == sorted(dealt)
        # Nothing staged: the rules bot's street (issue 40 item 4; tests/test_timeout_filler.py).
        # Street 2 is Ann's to play (not the engine's): the hand and the session go on.
        nxt = recv_until(ws, lambda m: m["type"] == "state" and 0 in m["view"]["to_act"], seen)
        assert nxt["view"]["street"] == 2 and nxt["view"]["timed_out"] == []
        assert nxt["clocks"][0]["bank"] == 0  # the timeout used the bank up
        other = recv_until(watcher, lambda m: m["type"] == "notice")
        assert "action" not in other  # a spectator is told, but sees no hidden card
    assert not any(m["type"] == "session_end" for m in seen)


def test_a_leaver_is_played_by_a_bot_after_the_grace_and_gets_the_seat_back(
    client: TestClient,
) -> None:
    made, joined = two_humans(client, grace=0.2)
    tid = made["table"]["id"]
    with connect(client, tid, made["token"]) as ann:
        first_state(ann)
        with connect(client, tid, joined["token"]) as bob:
            first_state(bob)
        # Bob left; after 0.2 s a bot plays his seat (he acts first, button 0).
        notice = recv_until(ann, lambda m: m["type"] == "notice")
        assert notice["kind"] == "stand_in" and notice["chair"] == 1
        seats = client.get(f"/api/tables/{tid}").json()["seats"]
        assert seats[1]["stand_in"] is True
        recv_until(ann, lambda m: m["type"] == "state" and 0 in m["view"]["to_act"])
        with connect(client, tid, joined["token"]) as bob:
            recv(bob)
            back = recv_until(ann, lambda m: m["type"] == "notice")
            assert back["kind"] == "back"
            assert client.get(f"/api/tables/{tid}").json()["seats"][1]["stand_in"] is False


def test_a_stand_in_that_is_still_waiting_does_not_move_once_its_person_is_back(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The stand-in is still thinking when Bob is back (it moves only once the test lets
    # it), so the street stays his to play (before, the stand-in played it after he was
    # back).
    hold = held_bots(monkeypatch)
    made, joined = two_humans(client, grace=0.1)
    tid = made["table"]["id"]
    with connect(client, tid, made["token"]) as ann:
        first_state(ann)
        with connect(client, tid, joined["token"]) as bob:
            first_state(bob)
        notice = recv_until(ann, lambda m: m["type"] == "notice")
        assert notice["kind"] == "stand_in"
        with connect(client, tid, joined["token"]) as bob:
            state = first_state(bob)
            assert 1 in state["view"]["to_act"] and state["view"]["street"] == 1
            hold.go.set()
            live = client.app.state.manager.tables[tid]  # type: ignore[attr-defined]
            wait_until(  # it did think, and the server is done with its move
                lambda: hold.moved.is_set() and 1 not in live.bots.tasks,
                "the end of the stand-in's turn",
            )
            view = client.get(f"/api/tables/{tid}").json()
            assert view["seats"][1]["stand_in"] is False
            ws_state = first_state_again(bob)
            assert 1 in ws_state["view"]["to_act"] and ws_state["view"]["street"] == 1


def first_state_again(ws: Any) -> Any:
    """The seat's current state: ask for it afresh and take the newest one."""
    ws.send_json({"type": "sync"})
    return recv_until(ws, lambda m: m["type"] == "state")


def test_only_the_creator_hands_an_absent_seat_to_a_bot(client: TestClient) -> None:
    made, joined = two_humans(client)
    tid = made["table"]["id"]
    url = f"/api/tables/{tid}/seats/1/bot"
    with connect(client, tid, made["token"]) as ann:
        first_state(ann)
        with connect(client, tid, joined["token"]) as bob:
            first_state(bob)
            r = client.post(url, json={"token": made["token"]})
            assert r.status_code == 409  # Bob is here: nobody is away
        r = client.post(f"/api/tables/{tid}/seats/0/bot", json={"token": joined["token"]})
        assert r.status_code == 403 and "creator" in r.json()["detail"]
        r = client.post(url, json={"token": "s-forged"})
        assert r.status_code == 403
        deadline = time.monotonic() + 30
        while True:  # Bob's socket closing reaches the table a moment later
            r = client.post(url, json={"token": made["token"]})
            if r.status_code != 409 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert r.status_code == 200 and r.json()["stand_in"] is True
        assert client.get(f"/api/tables/{tid}").json()["seats"][1]["stand_in"] is True
        assert client.post(url, json={"token": made["token"]}).status_code == 409


def test_a_table_the_server_drops_is_freed_without_the_garbage_collector(
    client: TestClient,
) -> None:
    """A table's parts hold it weakly: dropped, it goes at once by reference counting
    (the server freezes what survives its rare collections, so a cycle would stay)."""
    import gc
    import weakref

    manager = client.app.state.manager  # type: ignore[attr-defined]
    made = create(client, preset="pineapple", next_hand_delay=30)
    tid = made["table"]["id"]
    with connect(client, tid, made["token"]) as ws:
        first_state(ws)
        recv(ws)  # a state with the bot's move or the clocks: the table has been playing
    live = manager.tables[tid]
    parts = [live.flow, live.ownership, live.bots, live.timekeeper, live.presence]
    gone = [weakref.ref(live), *(weakref.ref(p) for p in [*parts, live.dispatch])]
    gc.disable()
    try:
        client.portal.call(manager.drop, live)  # type: ignore[attr-defined]
        del live, parts
        # A bot cancelled mid-think lets go once its task has unwound on the loop.
        wait_until(lambda: all(ref() is None for ref in gone), "the table freed", 10)
    finally:
        gc.enable()
