"""Bot accounts (issue 42): made by a person with an account, a token shown once and
revocable, presence and invitations on the bot's lobby socket, a person's challenge, and
the bot playing its seat over the bot protocol's act/action (server/bot_accounts.py,
server/bot_socket.py)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from _bots import (
    bot_lobby,
    bot_table,
    challenge,
    hello,
    new_bot,
    person,
    play,
    random_answer,
)
from _helpers import wait_until
from chinese_poker.server.app import create_app
from test_server import connect


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'bots.db'}")) as c:
        yield c


def test_a_bot_account_needs_an_account_and_its_token_is_shown_once(client: TestClient) -> None:
    anonymous = {"X-Player-Key": "k" * 30}
    assert client.post("/api/me", headers=anonymous).status_code == 200
    r = client.post("/api/me/bots", json={"name": "Robo"}, headers=anonymous)
    assert r.status_code == 403 and "handle and password" in r.json()["detail"]
    assert client.post("/api/me/bots", json={"name": "Robo"}).status_code == 401
    h = person(client)
    bot_id, token = new_bot(client, h, "Robo")
    assert token.startswith("cpb-") and bot_id.startswith("b-")
    mine = client.get("/api/me/bots", headers=h).json()
    assert [b["name"] for b in mine] == ["Robo"] and token not in str(mine)
    assert mine[0]["has_token"] and not mine[0]["paused"] and not mine[0]["online"]
    r = client.put(f"/api/me/bots/{bot_id}", json={"description": "plays fast"}, headers=h)
    assert r.json()[0]["description"] == "plays fast"
    # Another person can neither see nor change it.
    other = person(client, "bob")
    assert client.get("/api/me/bots", headers=other).json() == []
    r = client.delete(f"/api/me/bots/{bot_id}/token", headers=other)
    assert r.status_code == 404
    # Like a player: its public profile is a bot's.
    profile = client.get(f"/api/players/{bot_id}").json()
    assert profile["kind"] == "bot" and profile["name"] == "Robo"


def test_a_bad_name_is_refused(client: TestClient) -> None:
    h = person(client)
    r = client.post("/api/me/bots", json={"name": "a\nb"}, headers=h)
    assert r.status_code == 400


def test_the_token_is_never_taken_from_the_url(client: TestClient) -> None:
    h = person(client)
    _bot_id, token = new_bot(client, h)
    for path in ("/ws/bot", "/ws/bot/tables/t-x"):
        with client.websocket_connect(f"{path}?token={token}") as ws:
            ws.send_json(hello(token))
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
        assert closed.value.code == 4400 and "not the URL" in closed.value.reason


def test_a_wrong_token_is_refused_and_counted_like_a_wrong_join_code(
    client: TestClient,
) -> None:
    codes = []
    for _ in range(12):
        with client.websocket_connect("/ws/bot") as ws:
            ws.send_json(hello("cpb-" + "x" * 40))
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            codes.append(closed.value.code)
    assert codes[0] == 4401 and codes[-1] == 4429  # bad_code: 10/minute per address


def test_an_online_bot_is_listed_by_what_it_accepts_and_challenged(client: TestClient) -> None:
    h = person(client)
    bot_id, token = new_bot(client, h, "Robo")
    r = client.post(f"/api/bots/{bot_id}/challenge", json={"preset": "pineapple"}, headers=h)
    assert r.status_code == 404  # not online
    with bot_lobby(client, token, presets=["pineapple"], players=[2]) as lobby:
        online = client.get("/api/bots/online").json()
        assert [b["id"] for b in online] == [bot_id] and "token" not in str(online)
        assert client.get("/api/bots/online?preset=pineapple").json()[0]["id"] == bot_id
        assert client.get("/api/bots/online?preset=ofc").json() == []
        assert client.get("/api/bots/online?preset=pineapple&players=3").json() == []
        r = client.post(f"/api/bots/{bot_id}/challenge", json={"preset": "ofc"}, headers=h)
        assert r.status_code == 409
        made = challenge(client, person(client, "cid"), bot_id, preset="pineapple")
        invite = lobby.receive_json()
        assert invite == {
            "type": "invite",
            "table_id": made["table"]["id"],
            "seat": made["bot"]["seat"],
            "preset": "pineapple",
            "players": 2,
        }
        assert made["table"]["status"] == "playing"
        names = [s["name"] for s in made["table"]["seats"]]
        assert "Robo" in names
    # Offline once its socket closed (the socket's end is handled just after).
    wait_until(lambda: client.get("/api/bots/online").json() == [], "the bot offline", 10)


def test_a_bot_plays_whole_hands_against_a_person(client: TestClient) -> None:
    h = person(client)
    bot_id, token = new_bot(client, h)
    rng = random.Random(3)
    with bot_lobby(client, token):
        made = challenge(client, h, bot_id, preset="pineapple", hands="continuous")
    tid = made["table"]["id"]
    seen: list[dict[str, object]] = []
    with bot_table(client, tid, token) as bot, connect(client, tid, made["token"]) as me:
        for _ in range(2):
            result = play(
                bot, me, random_answer(rng), rng, until=lambda m: m["type"] == "result", seen=seen
            )
            assert set(result["totals"]) == set(result["view"]["players"])
    kinds = [m["type"] for m in seen]
    assert kinds[0] == "hello" and kinds.count("hello") == 1 and "error" not in kinds
    assert seen[0]["protocol"] == 1 and seen[0]["seat"] in (0, 1)
    acts = [m for m in seen if m["type"] == "act"]
    assert len(acts) >= 10 and all(a["view"]["seat"] == seen[0]["seat"] for a in acts)
    # Its hands are in the table's history like any player's.
    history = client.get(f"/api/tables/{tid}/history").text.splitlines()
    assert len(history) >= 2


def test_a_revoked_token_closes_the_bots_sockets(client: TestClient) -> None:
    h = person(client)
    bot_id, token = new_bot(client, h)
    with bot_lobby(client, token) as lobby:
        made = challenge(client, h, bot_id, preset="pineapple")
        assert lobby.receive_json()["type"] == "invite"
        with bot_table(client, made["table"]["id"], token) as seat:
            assert seat.receive_json()["type"] == "hello"  # playing
            r = client.delete(f"/api/me/bots/{bot_id}/token", headers=h)
            assert r.status_code == 200 and not r.json()[0]["has_token"]
            for ws in (lobby, seat):  # both of its sockets close
                with pytest.raises(WebSocketDisconnect) as closed:
                    for _ in range(100):
                        ws.receive_json()
                assert closed.value.code == 4401
    with client.websocket_connect(f"/ws/bot/tables/{made['table']['id']}") as ws:
        ws.send_json(hello(token))
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4401
    # A new token works again.
    r = client.post(f"/api/me/bots/{bot_id}/token", headers=h)
    with bot_lobby(client, r.json()["token"]) as lobby:
        assert lobby.receive_json()["table_id"] == made["table"]["id"]


def test_a_second_lobby_socket_of_a_bot_takes_the_place_of_the_first(client: TestClient) -> None:
    h = person(client)
    _bot_id, token = new_bot(client, h)
    with bot_lobby(client, token) as first, bot_lobby(client, token):
        with pytest.raises(WebSocketDisconnect) as closed:
            for _ in range(100):
                first.receive_json()
        assert closed.value.code == 4408 and "took its place" in closed.value.reason
