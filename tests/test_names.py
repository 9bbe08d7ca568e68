"""Issue 40 item 5: one rule for a player's name wherever it is given (a table's
seats at creation, a join, the profile), with the same 400 and words."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chinese_poker.engine import TableError, validate_player_name
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
