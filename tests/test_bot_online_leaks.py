"""A bot's table socket sees exactly what its seat may see (issue 42 item 5): every
message it receives during a hand names only cards its seat may know at that point,
checked by the same replay as the people's sockets (test_server.check_no_leaks), for a
game with hidden boards (classic sets until the showdown) and an open one."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from _bots import bot_lobby, bot_table, challenge, new_bot, person, play, random_answer
from chinese_poker.server.app import create_app
from test_server import check_no_leaks, connect

Msg = dict[str, Any]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'leaks.db'}")) as c:
        yield c


def as_checked(message: Msg) -> Msg:
    """A bot's message in the form the people's check reads: an ``act`` is its view's
    state at the view's version; the rest count at the hand's end."""
    if message["type"] == "act":
        return {**message, "type": "state", "version": message["view"]["version"]}
    return message


@pytest.mark.parametrize("preset", ["classic", "pineapple"])
def test_a_bots_socket_never_receives_a_hidden_card(client: TestClient, preset: str) -> None:
    headers = person(client)
    bot_id, token = new_bot(client, headers)
    with bot_lobby(client, token):
        made = challenge(client, headers, bot_id, preset=preset, time_limit=60)
    tid = made["table"]["id"]
    rng = random.Random(11)
    seen: list[Msg] = []
    with bot_table(client, tid, token) as bot, connect(client, tid, made["token"]) as me:
        play(bot, me, random_answer(rng), rng, until=lambda m: m["type"] == "result", seen=seen)
    hello = seen[0]
    assert hello["type"] == "hello"
    records = [json.loads(x) for x in client.get(f"/api/tables/{tid}/history").text.splitlines()]
    record = records[0]
    # The bot's acts name its hand; as the check compares them with the table's hand.
    for m in seen:
        m.setdefault("hand", record["session"]["hand"])
    checked = check_no_leaks(record, {hello["seat"]: [as_checked(m) for m in seen]})
    acts = [m for m in seen if m["type"] == "act"]
    assert checked == len(seen) and acts
    # What it was asked about is its own seat's view, and the person's cards stay hidden
    # in a classic set until the showdown.
    assert all(a["view"]["seat"] == hello["seat"] for a in acts)
    if preset == "classic":
        other = 1 - hello["seat"]
        assert all(
            not any(
                b["top"] or b["middle"] or b["bottom"]
                for b in a["view"]["boards"][other : other + 1]
            )
            or a["view"]["phase"] == "showdown"
            for a in acts
        )
