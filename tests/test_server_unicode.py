"""JSON text with a lone surrogate escape is refused where it enters the server (issue
39): a request body is answered 400 naming the escape, a WebSocket message an error to
that client only, and nothing is stored or logged as a crash. It used to reach the
database or a response's encoder: 500, and a traceback in the log.

Valid text around it is untouched: an escaped surrogate pair is a character (here an
emoji), and an escaped backslash before ``ud800`` is plain text.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chinese_poker.server.app import create_app
from chinese_poker.server.guard import lone_surrogate

LONE = "\\ud800"  # as it is written in JSON text: a backslash, u, d800
PROBLEM = "the JSON text has a lone surrogate \\ud800: strings must be valid Unicode"
KEY = "k" * 30


@pytest.fixture()
def client(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> Iterator[TestClient]:
    caplog.set_level(logging.WARNING)
    with TestClient(create_app(f"sqlite:///{tmp_path / 'server.db'}")) as c:
        yield c
    crashes = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not crashes, [r.getMessage() for r in crashes]


def _post(client: TestClient, url: str, text: str, **headers: str) -> Any:
    return client.post(
        url, content=text.encode(), headers={"content-type": "application/json", **headers}
    )


def _table(client: TestClient, name: str) -> Any:
    body = '{"name": "NAME", "bot_delay": 0, "next_hand_delay": 0}'.replace("NAME", name)
    return _post(client, "/api/tables", body)


def test_a_lone_surrogate_in_a_table_name_is_refused(client: TestClient) -> None:
    answer = _table(client, f"Ann{LONE}'s table")
    assert (answer.status_code, answer.json()) == (400, {"detail": PROBLEM})
    assert client.get("/api/tables").json() == []  # nothing stored


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/api/score", '{"rules": "ofc", "players": [{"name": "A@", "board": ""}]}'),
        ("/api/board", '{"rules": "ofc", "board": "Ah@"}'),
        ("/api/me/name", '{"name": "Bob@"}'),
    ],
)
def test_every_json_body_is_checked(client: TestClient, url: str, body: str) -> None:
    send = client.put if url == "/api/me/name" else client.post
    if url == "/api/me/name":
        assert client.post("/api/me", headers={"x-player-key": KEY}).status_code == 200
    answer = send(
        url,
        content=body.replace("@", LONE).encode(),
        headers={"content-type": "application/json", "x-player-key": KEY},
    )
    assert (answer.status_code, answer.json()) == (400, {"detail": PROBLEM})


def test_a_surrogate_pair_and_an_escaped_backslash_are_text(client: TestClient) -> None:
    answer = _table(client, "\\ud83c\\udccf table")
    assert answer.status_code == 201, answer.text
    assert answer.json()["table"]["name"] == "\U0001f0cf table"
    answer = _table(client, "a \\\\ud800 b")
    assert answer.status_code == 201, answer.text
    assert answer.json()["table"]["name"] == "a \\ud800 b"


def test_a_lone_surrogate_over_the_websocket_is_an_error_to_that_client(
    client: TestClient,
) -> None:
    made = _table(client, "sockets").json()
    table = made["table"]["id"]
    with client.websocket_connect(f"/ws/tables/{table}?role=seat") as seat, \
            client.websocket_connect(f"/ws/tables/{table}") as watcher:  # fmt: skip
        seat.send_json({"type": "auth", "token": made["token"]})
        assert json.loads(seat.receive_text())["type"] == "welcome"
        assert json.loads(watcher.receive_text())["type"] == "welcome"
        seat.send_text('{"type": "ping", "id": "p@"}'.replace("@", LONE))
        seat.send_text('{"type": "ping", "id": 2}')
        seen: list[dict[str, Any]] = []
        while not seen or seen[-1].get("type") != "pong":
            seen.append(json.loads(seat.receive_text()))
        errors = [m for m in seen if m["type"] == "error"]
        assert errors == [
            {"type": "error", "ref": None, "code": "bad_json", "message": PROBLEM, "version": None}
        ]
        assert seen[-1]["ref"] == 2  # the socket reads on
        watcher.send_text('{"type": "ping", "id": "w"}')
        heard = [json.loads(watcher.receive_text()) for _ in range(1)]
        while heard[-1].get("type") != "pong":
            heard.append(json.loads(watcher.receive_text()))
        assert not any(m["type"] == "error" for m in heard)  # the watcher heard nothing of it


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (r'"\ud800"', r"\ud800"),
        (r'"\udfff x"', r"\udfff"),
        (r'"\ud83c\udccf"', None),
        (r'"\ud83c \udccf"', r"\ud83c"),
        (r'"\ud83c\ud83c\udccf"', r"\ud83c"),
        (r'"\\ud800"', None),
        (r'"\\\ud800"', r"\ud800"),
        (r'"\u00e9\n\"\/"', None),
        (r'"\ud83c"', r"\ud83c"),
    ],
)
def test_lone_surrogate(text: str, found: str | None) -> None:
    assert lone_surrogate(text) == found
