"""Helpers of the bot-account tests: a person with an account, his bot accounts, a bot's
lobby and table sockets over the TestClient."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator
from typing import Any

from fastapi.testclient import TestClient

Msg = dict[str, Any]


def person(client: TestClient, name: str = "ann") -> dict[str, str]:
    """The headers of a new person who chose a handle and password (an account)."""
    headers = {"X-Player-Key": secrets.token_urlsafe(24)}
    r = client.post(
        "/api/me/password",
        json={"handle": f"{name}-{secrets.token_hex(3)}", "password": "correct horse"},
        headers=headers,
    )
    assert r.status_code == 200, r.text
    return headers


def new_bot(client: TestClient, headers: dict[str, str], name: str = "Robo") -> tuple[str, str]:
    """(bot id, token) of a new bot account of the person."""
    r = client.post("/api/me/bots", json={"name": name, "description": "d"}, headers=headers)
    assert r.status_code == 201, r.text
    return r.json()["bot"]["id"], r.json()["token"]


def hello(token: str, **accepts: Any) -> Msg:
    return {"type": "hello", "protocol": 1, "token": token, "accepts": accepts}


@contextlib.contextmanager
def bot_lobby(client: TestClient, token: str, **accepts: Any) -> Iterator[Any]:
    """A bot's lobby socket, past its welcome."""
    with client.websocket_connect("/ws/bot") as ws:
        ws.send_json(hello(token, **accepts))
        welcome = ws.receive_json()
        assert welcome["type"] == "welcome", welcome
        yield ws


@contextlib.contextmanager
def bot_table(client: TestClient, table_id: str, token: str) -> Iterator[Any]:
    with client.websocket_connect(f"/ws/bot/tables/{table_id}") as ws:
        ws.send_json(hello(token))
        yield ws


def challenge(client: TestClient, headers: dict[str, str], bot_id: str, **body: Any) -> Msg:
    r = client.post(f"/api/bots/{bot_id}/challenge", json=body, headers=headers)
    assert r.status_code == 201, r.text
    made: Msg = r.json()
    return made


def my_bot(client: TestClient, headers: dict[str, str], bot_id: str) -> Msg:
    """The person's bot account as /api/me/bots shows it (faults, paused, ...)."""
    bots: list[Msg] = client.get("/api/me/bots", headers=headers).json()
    return next(b for b in bots if b["id"] == bot_id)


def seated(client: TestClient, **body: Any) -> tuple[dict[str, str], str, str, Msg]:
    """A person, his bot online (its lobby socket closed again), and a challenge."""
    headers = person(client)
    bot_id, token = new_bot(client, headers)
    with bot_lobby(client, token):
        made = challenge(client, headers, bot_id, preset="pineapple", **body)
    return headers, bot_id, token, made


def poll(ws: Any, seconds: float = 0.05) -> Msg | None:
    """The next message of a TestClient socket, or None if none came within ``seconds``."""
    from test_server import recv

    try:
        return recv(ws, seconds)
    except TimeoutError:
        return None


def play(
    bot: Any,
    person: Any,
    answer: Any,
    rng: Any,
    *,
    until: Any,
    seen: list[Msg] | None = None,
    rounds: int = 4000,
) -> Msg:
    """Drive a bot's table socket (``answer(act) -> message or None``) and a person's
    seat (random legal actions) until the bot's socket receives a message ``until``
    holds for; the bot's messages go to ``seen``."""
    from _helpers import random_action

    for _ in range(rounds):
        m = poll(bot)
        if m is not None:
            if seen is not None:
                seen.append(m)
            if until(m):
                return m
            if m["type"] == "act":
                reply = answer(m)
                if reply is not None:
                    bot.send_json(reply)
        p = poll(person, 0.01)
        if p is not None and p["type"] == "state" and p["view"]["decisions"]:
            person.send_json({"type": "action", "action": random_action(p["view"], rng)})
    raise AssertionError("the awaited message never came")


def random_answer(rng: Any) -> Any:
    """A bot that answers every act with one of its legal actions (or a random one)."""
    from _helpers import random_action

    def answer(act: Msg) -> Msg:
        legal = act["legal"]
        action = rng.choice(legal) if legal else random_action(act["view"], rng, seat=True)
        return {"type": "action", "id": act["id"], "action": action}

    return answer
