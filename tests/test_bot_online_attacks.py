"""The bot sockets under attack (issue 42 item 5): what tests/test_bot_accounts.py and
tests/test_bot_online.py do not already try. Each attack gets a clear error or close
code on the attacker's own socket and changes nothing at the table or in the account:
a socket that never says hello, a bot at a table it holds no seat at, huge and deeply
nested messages, a lone surrogate, two table sockets of one bot at one table, a bot
farming its owner's rating through a challenge, a paused bot offered to a match."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from starlette.websockets import WebSocketDisconnect

from _bots import (
    bot_lobby,
    bot_table,
    challenge,
    hello,
    my_bot,
    new_bot,
    person,
    play,
    poll,
    random_answer,
    seated,
)
from _helpers import wait_until
from chinese_poker.server import bot_socket
from chinese_poker.server.app import create_app
from chinese_poker.server.bot_matches import online_accounts
from chinese_poker.server.holdings import store_of
from chinese_poker.server.messages import MAX_MESSAGE
from chinese_poker.server.ratings import RATINGS, rate_pending
from test_server import connect, recv, recv_until

Msg = dict[str, Any]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'attacks.db'}")) as c:
        yield c


def version_of(client: TestClient, table_id: str) -> int:
    with connect(client, table_id) as watcher:
        state = recv_until(watcher, lambda m: m["type"] == "state")
    version: int = state["view"]["version"]
    return version


def test_a_socket_that_never_says_hello_is_closed(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bot_socket, "HELLO_SECONDS", 0.3)
    for path in ("/ws/bot", "/ws/bot/tables/t-x"):
        with client.websocket_connect(path) as ws, pytest.raises(WebSocketDisconnect) as closed:
            recv(ws, 5)
        assert closed.value.code == 4400 and "hello" in closed.value.reason


def test_a_bot_cannot_sit_at_a_table_it_holds_no_seat_at(client: TestClient) -> None:
    """Another person's table (the bot's own token is good) and a table that is not."""
    _h, _bot_id, _token, made = seated(client, time_limit=60)
    tid = made["table"]["id"]
    before = version_of(client, tid)
    intruder = person(client, "eve")
    _other, token = new_bot(client, intruder, "Sneak")
    with bot_table(client, tid, token) as ws, pytest.raises(WebSocketDisconnect) as closed:
        recv(ws)
    assert closed.value.code == 4403
    with bot_table(client, "t-nothere", token) as ws, pytest.raises(WebSocketDisconnect) as gone:
        recv(ws)
    assert gone.value.code == 4403
    assert version_of(client, tid) == before


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"type": "ping", "pad": "x" * (MAX_MESSAGE + 1)}),
        "[" * 100_000 + "]" * 100_000,  # deeper than Python's parser goes
    ],
    ids=["huge", "deep"],
)
def test_huge_or_deep_messages_get_an_error_and_the_sockets_read_on(
    client: TestClient, text: str
) -> None:
    headers, bot_id, token, made = seated(client, time_limit=60)
    tid = made["table"]["id"]
    before = version_of(client, tid)
    with bot_lobby(client, token) as lobby:
        recv_until(lobby, lambda m: m["type"] == "invite")
        lobby.send_text(text)
        error = recv(lobby)
        assert error["type"] == "error" and error["code"] in ("too_large", "bad_json")
        lobby.send_json({"type": "ping", "id": 1})
        assert recv(lobby) == {"type": "pong", "id": 1}
    with bot_table(client, tid, token) as bot:
        recv_until(bot, lambda m: m["type"] == "act")
        bot.send_text(text)
        error = recv(bot)
        assert error["type"] == "error" and error["code"] in ("too_large", "bad_json")
        bot.send_json({"type": "ping", "id": 2})
        assert recv(bot) == {"type": "pong", "id": 2}
    assert version_of(client, tid) == before
    assert my_bot(client, headers, bot_id)["faults"] <= 1  # the socket left with an open act


def test_a_lone_surrogate_is_refused_and_changes_nothing(client: TestClient) -> None:
    headers, bot_id, token, made = seated(client, time_limit=60)
    tid = made["table"]["id"]
    before = version_of(client, tid)
    # In the hello's token: an error, and the socket still takes a good hello.
    with client.websocket_connect("/ws/bot") as ws:
        ws.send_text('{"type": "hello", "protocol": 1, "token": "cpb-\\ud800"}')
        assert recv(ws)["code"] == "bad_json"
        ws.send_json(hello(token))
        assert recv(ws)["type"] == "welcome"
    # In an action's cards.
    with bot_table(client, tid, token) as bot:
        act = recv_until(bot, lambda m: m["type"] == "act")
        seat = act["view"]["seat"]
        bad = {"type": "place", "seat": seat, "hand": 0, "top": ["CARD"]}
        text = json.dumps({"type": "action", "id": act["id"], "action": bad})
        bot.send_text(text.replace("CARD", "\\ud800"))  # an escape JSON allows
        assert recv_until(bot, lambda m: m["type"] == "error")["code"] == "bad_json"
        assert poll(bot, 0.3) is None
    assert version_of(client, tid) == before
    assert my_bot(client, headers, bot_id)["faults"] <= 1  # the socket left with an open act


def test_a_second_table_socket_of_a_bot_takes_the_place_of_the_first(
    client: TestClient,
) -> None:
    """One bot, two sockets at its seat: the newer plays, the older is closed (4408),
    and a decision the bot lets run out is one fault, not one per socket."""
    headers, bot_id, token, made = seated(client, time_limit=1.0)
    tid = made["table"]["id"]
    rng = random.Random(4)
    with connect(client, tid, made["token"]) as me, bot_table(client, tid, token) as first:
        recv_until(first, lambda m: m["type"] == "act")
        with bot_table(client, tid, token) as second:
            with pytest.raises(WebSocketDisconnect) as closed:
                for _ in range(100):
                    recv(first)
            assert closed.value.code == 4408
            # The newer socket lets its decision run out: one timeout, one fault.
            play(second, me, lambda act: None, rng, until=lambda m: m["type"] == "result")
    assert my_bot(client, headers, bot_id)["faults"] == 1


def test_a_person_challenging_his_own_bot_rates_nobody(client: TestClient) -> None:
    """The same-owner rule on the challenge's path: the owner's seat is linked to him,
    the hands are stored, and neither he nor his bot gets a rating from them; the same
    hands against another person's bot are rated (so the check can fail)."""
    rng = random.Random(7)
    store = store_of(client)
    for owner_plays in (True, False):
        owner = person(client, "ann")
        bot_id, token = new_bot(client, owner, "Mine")
        challenger = owner if owner_plays else person(client, "bob")
        with bot_lobby(client, token):
            made = challenge(client, challenger, bot_id, preset="pineapple", time_limit=60)
        tid = made["table"]["id"]
        with bot_table(client, tid, token) as bot, connect(client, tid, made["token"]) as me:
            play(bot, me, random_answer(rng), rng, until=lambda m: m["type"] == "result")
        wait_until(lambda t=tid: bool(client.get(f"/api/tables/{t}/history").text), "stored", 10)
        rate_pending(store)
        with store.engine.connect() as conn:
            rated = set(conn.execute(select(RATINGS.c.player_id)).scalars())
        me_id = client.post("/api/me", headers=challenger).json()["id"]
        if owner_plays:
            assert not rated & {bot_id, me_id}
        else:
            assert {bot_id, me_id} <= rated


def test_a_paused_bot_is_offered_to_no_match_and_no_challenge(client: TestClient) -> None:
    headers = person(client)
    bot_id, token = new_bot(client, headers)
    store = store_of(client)
    with bot_lobby(client, token):
        with store.engine.connect() as conn:
            assert [b.player_id for b in online_accounts(conn, "pineapple")] == [bot_id]
        # Paused while connected (as three faults do): its lobby socket closes.
        from chinese_poker.server.bot_accounts import record_fault

        for _ in range(3):
            record_fault(store.engine, bot_id)
    with store.engine.connect() as conn:
        assert online_accounts(conn, "pineapple") == []
    r = client.post(f"/api/bots/{bot_id}/challenge", json={}, headers=person(client, "bob"))
    assert r.status_code == 404
    assert my_bot(client, headers, bot_id)["paused"]
