"""Issue 40 item 1 on the server: a seated player who opens the review or replay of the
hand just played holds the next deal (``hold``), up to table_flow.HOLD_SECONDS, once per
hand; closing it (or leaving) releases it; spectators never hold; everybody is told who
the table waits for; a failover drops the hold (the new owner deals after its pause)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from _helpers import wait_until
from chinese_poker.server import reviews, table_flow
from chinese_poker.server.app import create_app
from test_server import client, connect, create, first_state, quiet, recv, recv_until

__all__ = ["client"]

Msg = dict[str, Any]


def quick_table(client: TestClient, pause: float = 3.0) -> Msg:
    """Ann against a random bot; her streets are made for her after 0.1 s, so a hand
    ends in about a second without her moving; ``pause``: the table's own between hands
    (long enough for a hold sent just after the hand's end to come before the deal on a
    loaded machine)."""
    return create(
        client,
        preset="pineapple",
        time_limit=0.1,
        timeouts="decision",
        next_hand_delay=pause,
        seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}],
    )


@contextmanager
def after_hand_one(client: TestClient, made: Msg) -> Iterator[Any]:
    """Ann's socket just after hand 1's ``hand_end``."""
    with connect(client, made["table"]["id"], made["token"]) as ws:
        first_state(ws)
        recv_until(ws, lambda m: m["type"] == "hand_end")
        yield ws


def no_deal_for(ws: Any, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        assert not any(m["type"] == "hand_start" for m in quiet(ws))
        time.sleep(0.05)


def test_a_hold_waits_up_to_its_limit_even_when_everybody_pressed_next(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_flow, "HOLD_SECONDS", 4.0)
    made = quick_table(client, pause=1.5)
    with after_hand_one(client, made) as ws:
        held_at = time.monotonic()
        ws.send_json({"type": "hold", "on": True})
        told = recv_until(ws, lambda m: m["type"] == "hold")
        assert told["player"] == "Ann" and told["chair"] == 0 and told["seconds"] == 4.0
        ws.send_json({"type": "next"})  # every person present pressed Next: still held
        no_deal_for(ws, 2.5)  # past the table's own 1.5 s pause
        recv_until(ws, lambda m: m["type"] == "hand_start")
        assert time.monotonic() - held_at >= 3.9  # the hold's whole limit


def test_closing_the_review_releases_the_deal_and_a_second_hold_is_refused(
    client: TestClient,
) -> None:
    made = quick_table(client, pause=5.0)
    with after_hand_one(client, made) as ws:
        ws.send_json({"type": "hold", "on": True, "id": 1})
        assert recv_until(ws, lambda m: m["type"] == "hold")["seconds"] == table_flow.HOLD_SECONDS
        ws.send_json({"type": "hold", "on": False, "id": 2})
        released_at = time.monotonic()
        released = recv_until(ws, lambda m: m["type"] in ("hold", "hand_start"))
        assert released["type"] == "hold" and released["seconds"] is None
        # Once per hand: opening it again does not stop the table a second time.
        ws.send_json({"type": "hold", "on": True, "id": 3})
        refused = recv_until(ws, lambda m: m["type"] in ("error", "hand_start"))
        assert refused["type"] == "error" and refused["code"] == "duplicate"
        assert refused["ref"] == 3
        # The deal comes at the end of the table's pause, not of the hold's 30 s.
        start = recv_until(ws, lambda m: m["type"] == "hand_start")
        assert start["hand"] == 2 and time.monotonic() - released_at < 10
        # During a hand there is nothing to hold.
        ws.send_json({"type": "hold", "on": True, "id": 4})
        late = recv_until(ws, lambda m: m["type"] == "error")
        assert late["code"] == "too_late" and late["ref"] == 4


def test_a_spectator_never_holds_and_is_told_who_the_table_waits_for(
    client: TestClient,
) -> None:
    made = quick_table(client)
    tid = made["table"]["id"]
    with connect(client, tid) as watcher, after_hand_one(client, made) as ws:
        recv_until(watcher, lambda m: m["type"] == "hand_end")
        watcher.send_json({"type": "hold", "on": True, "id": 9})
        refused = recv_until(watcher, lambda m: m["type"] == "error")
        assert refused["code"] == "read_only" and refused["ref"] == 9
        ws.send_json({"type": "hold", "on": True})
        told = recv_until(watcher, lambda m: m["type"] == "hold")
        assert told["player"] == "Ann" and told["seconds"] == table_flow.HOLD_SECONDS
        live = client.app.state.manager.tables[tid]  # type: ignore[attr-defined]
        assert list(live.flow.holds) == [0]


def test_leaving_releases_the_hold(client: TestClient) -> None:
    made = quick_table(client)
    tid = made["table"]["id"]
    live = client.app.state.manager.tables[tid]  # type: ignore[attr-defined]
    with connect(client, tid) as watcher:
        with after_hand_one(client, made) as ws:
            ws.send_json({"type": "hold", "on": True})
            recv_until(ws, lambda m: m["type"] == "hold")
        released = recv_until(watcher, lambda m: m["type"] == "hold" and m["seconds"] is None)
        assert released["player"] == "Ann"
        wait_until(lambda: not live.flow.holds, "the hold released")
        recv_until(watcher, lambda m: m["type"] == "hand_start")


def test_a_failover_drops_the_hold_and_deals_after_the_usual_pause(client: TestClient) -> None:
    made = quick_table(client)
    tid = made["table"]["id"]
    manager = client.app.state.manager  # type: ignore[attr-defined]
    with after_hand_one(client, made) as ws:
        ws.send_json({"type": "hold", "on": True})
        recv_until(ws, lambda m: m["type"] == "hold")
        # What the process that takes the table over does: rebuild it from the store.
        fresh = client.portal.call(manager.reload, manager.tables[tid])  # type: ignore[union-attr]
        assert fresh.flow.holds == {}
        start = recv_until(ws, lambda m: m["type"] == "hand_start")
        assert start["hand"] == 2
        recv(ws)  # its state


# --------------------------------------------------------------------------- reviews ahead


def test_a_hand_is_reviewed_as_it_ends_and_opening_it_waits_for_that_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The review itself is replaced (it takes seconds): what is checked is that it
    # starts unasked when the hand ends, once, and that a reader meanwhile gets it.
    calls: list[int] = []
    go = threading.Event()

    def review(record: dict[str, Any], hand: int) -> dict[str, Any]:
        calls.append(hand)
        go.wait(30)
        return {"players": [], "decisions": []}

    monkeypatch.setattr(reviews, "review_record", review)
    app = create_app(f"sqlite:///{tmp_path / 'server.db'}", hint_processes=False)
    with TestClient(app) as c:
        made = quick_table(c, pause=30.0)
        tid = made["table"]["id"]
        with after_hand_one(c, made):
            wait_until(lambda: calls == [1], "hand 1's review started unasked")
            got: list[Any] = []
            reader = threading.Thread(
                target=lambda: got.append(c.get(f"/api/tables/{tid}/hands/1/review"))
            )
            reader.start()
            time.sleep(0.3)  # the reader is waiting for the work under way
            go.set()
            reader.join(30)
            assert got and got[0].status_code == 200, got
            assert got[0].json()["hand"] == 1
            assert calls == [1]  # one piece of work for both
            stored = reviews.stored_review(app.state.manager.store, tid, 1)
            assert stored is not None and stored["table_id"] == tid


def test_a_table_of_bots_only_is_not_reviewed_unasked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    monkeypatch.setattr(reviews, "review_record", lambda _r, hand: calls.append(hand) or {})
    app = create_app(f"sqlite:///{tmp_path / 'server.db'}", hint_processes=False)
    with TestClient(app) as c:
        made = create(
            c, preset="pineapple", seats=[{"kind": "bot", "bot": "random"}] * 2, join=False
        )
        tid = made["table"]["id"]
        with connect(c, tid) as watcher:
            recv_until(watcher, lambda m: m["type"] == "hand_end")
            quiet(watcher)
        assert calls == []
