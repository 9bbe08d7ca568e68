"""Issue 40 item 5: one rule for a player's name wherever it is given (a table's
seats at creation, a join, the profile), with the same 400 and words."""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from chinese_poker.engine import TableError, validate_player_name
from chinese_poker.server.accounts import PLAYERS, bot_player
from chinese_poker.server.bot_names import STRENGTHS, bot_name
from test_server import client

__all__ = ["client"]  # the fixture, shared with test_server

#: A bad name and the words of its refusal.
BAD = [
    ("Ann\x00", "control characters"),
    ("Ann\nBob", "control characters"),
    ("Ann\u2028Bob", "control characters"),
    ("\u200b\u200b", "visible characters"),
    ("\u202eabc", "direction overrides"),
    ("a\u2066b", "direction overrides"),
    ("  ", "visible characters"),
    ("\u3164", "visible characters"),
]
GOOD = ["Zoë Ångström", "Иван Петров", "李雷", "Ann-Marie O'Neil"]


def _create(client: TestClient, first: str | None) -> Any:
    seat: dict[str, Any] = {"kind": "human"}
    if first is not None:
        seat["name"] = first
    body = {"bot_delay": 0, "next_hand_delay": 0, "seats": [seat, {"kind": "human"}]}
    return client.post("/api/tables", json=body)


def _join(client: TestClient, name: str) -> Any:
    made = _create(client, "Host").json()
    url = f"/api/tables/{made['table']['id']}/join"
    return client.post(url, json={"code": made["join_code"], "name": name})


def _profile(client: TestClient, name: str) -> Any:
    key = secrets.token_urlsafe(24)
    return client.put("/api/me/name", json={"name": name}, headers={"X-Player-Key": key})


ENTRIES = {"create": _create, "join": _join, "profile": _profile}


@pytest.mark.parametrize("entry", sorted(ENTRIES))
@pytest.mark.parametrize(("name", "words"), BAD)
def test_every_entry_refuses_a_bad_name_in_the_same_words(
    client: TestClient, entry: str, name: str, words: str
) -> None:
    answer = ENTRIES[entry](client, name)
    assert answer.status_code == 400, answer.text
    assert words in answer.json()["detail"]
    with pytest.raises(TableError, match=words):
        validate_player_name(name)


@pytest.mark.parametrize("entry", sorted(ENTRIES))
@pytest.mark.parametrize("name", GOOD)
def test_every_entry_takes_an_accented_or_cyrillic_name(
    client: TestClient, entry: str, name: str
) -> None:
    answer = ENTRIES[entry](client, name)
    assert answer.status_code in (200, 201), answer.text
    data = answer.json()
    shown = {
        "create": lambda: data["table"]["seats"][0]["name"],
        "join": lambda: data["player"],
        "profile": lambda: data["name"],
    }[entry]()
    assert shown == name


def test_a_join_without_a_name_still_gets_a_default(client: TestClient) -> None:
    answer = _join(client, "")
    assert answer.status_code == 200, answer.text
    assert answer.json()["player"] == "Player 2"


def test_a_long_name_made_unique_stays_within_the_limit(client: TestClient) -> None:
    long = "x" * 40
    made = _create(client, long).json()
    url = f"/api/tables/{made['table']['id']}/join"
    answer = client.post(url, json={"code": made["join_code"], "name": long})
    assert answer.status_code == 200, answer.text
    assert answer.json()["player"] == "x" * 36 + " (2)"


def test_an_emoji_with_joiners_is_a_name() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert validate_player_name(family) == family


def _saved(client: TestClient, name: str) -> dict[str, str]:
    """The headers of a player who saved ``name`` on his profile."""
    headers = {"X-Player-Key": secrets.token_urlsafe(24)}
    assert client.put("/api/me/name", json={"name": name}, headers=headers).status_code == 200
    return headers


def test_the_profile_name_is_the_name_at_a_table_created_without_one(
    client: TestClient,
) -> None:
    me = _saved(client, "Зоя")
    body = {"bot_delay": 0, "next_hand_delay": 0, "seats": [{"kind": "human"}, {"kind": "human"}]}
    made = client.post("/api/tables", json=body, headers=me).json()
    assert made["table"]["seats"][made["seat"]]["name"] == "Зоя"
    named = {**body, "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human"}]}
    made = client.post("/api/tables", json=named, headers=me).json()
    assert made["table"]["seats"][made["seat"]]["name"] == "Ann"  # a name given wins
    stranger = {"X-Player-Key": secrets.token_urlsafe(24)}
    made = client.post("/api/tables", json=body, headers=stranger).json()
    assert made["table"]["seats"][made["seat"]]["name"] == "Player 1"


def test_the_profile_name_is_the_name_at_a_table_joined_without_one(
    client: TestClient,
) -> None:
    me = _saved(client, "Host")  # the creator's own name clashes with nobody's
    made = _create(client, None).json()
    url = f"/api/tables/{made['table']['id']}/join"
    joined = client.post(url, json={"code": made["join_code"]}, headers=_saved(client, "Zoë"))
    assert joined.status_code == 200, joined.text
    assert joined.json()["player"] == "Zoë"
    made = _create(client, "Host").json()
    url = f"/api/tables/{made['table']['id']}/join"
    joined = client.post(url, json={"code": made["join_code"], "name": ""}, headers=me)
    assert joined.json()["player"] == "Host (2)"  # unique at the table as any name is
    bad_key = {"X-Player-Key": "short"}
    made = _create(client, "Host").json()
    url = f"/api/tables/{made['table']['id']}/join"
    joined = client.post(url, json={"code": made["join_code"]}, headers=bad_key)
    assert joined.json()["player"] == "Player 2"


STATIC = Path(__file__).resolve().parents[1] / "src/chinese_poker/server/static"


def test_the_server_names_strengths_as_the_lobby_offers_them() -> None:
    words = (STATIC / "js/words.js").read_text()
    rows = re.findall(r'\{ id: "(\w+)",.*?bot: "([\w-]+)", level: (null|\d+) \}', words)
    catalogue = json.loads((STATIC / "i18n/en.json").read_text())
    offered = {
        (bot, None if level == "null" else int(level)): catalogue[f"bot.{strength}"]
        for strength, bot, level in rows
    }
    assert offered == STRENGTHS
    for (bot, level), word in offered.items():  # the one-click table's bot seat
        assert catalogue["join.bot_of"].format(level=word) == bot_name(bot, level)


@pytest.mark.parametrize(("bot", "level"), [("rules", None), ("random", None), ("mc", 1)])
def test_a_bot_has_one_name_at_the_table_in_the_history_and_on_the_leaderboard(
    client: TestClient, bot: str, level: int | None
) -> None:
    seat: dict[str, Any] = {"kind": "bot", "bot": bot}
    if level is not None:
        seat["level"] = level
    body = {"bot_delay": 0, "next_hand_delay": 0, "seats": [{"kind": "human"}, seat]}
    made = client.post("/api/tables", json=body).json()
    at_table = made["table"]["seats"][1]["name"]
    assert at_table == bot_name(bot, level)
    store = client.app.state.store  # type: ignore[attr-defined]
    with store.engine.begin() as conn:
        pid = bot_player(conn, bot, level)
        assert conn.execute(select(PLAYERS.c.name).where(PLAYERS.c.id == pid)).scalar() == at_table
        conn.execute(update(PLAYERS).where(PLAYERS.c.id == pid).values(name=f"{bot} bot"))
        bot_player(conn, bot, level)  # a row named by the older rule is renamed
        assert conn.execute(select(PLAYERS.c.name).where(PLAYERS.c.id == pid)).scalar() == at_table
    assert client.get(f"/api/players/{pid}").json()["name"] == at_table
