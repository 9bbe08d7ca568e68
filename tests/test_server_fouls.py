"""The ``fouls`` message (docs/server-protocol.md): a seat asks which placements of its
street foul whatever comes and gets engine.views.placement_fouls' answer, worked out once
per seat and table version; a bad request is answered to its sender only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chinese_poker.engine.views import placement_fouls
from chinese_poker.server import table_dispatch
from chinese_poker.server.app import create_app
from test_server import (
    connect,
    create,
    first_state,
    first_turn,
    quiet,
    recv,
    recv_until,
    two_humans,
)


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 'server.db'}")
    with TestClient(app) as c:
        yield c


def test_fouls_answers_the_views_placements_once_per_version(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers: list[dict[str, Any]] = []
    exact = placement_fouls

    def counted(view: Any) -> dict[str, Any]:
        answer = exact(view)
        answers.append(answer)
        return answer

    monkeypatch.setattr(table_dispatch, "placement_fouls", counted)
    made = create(
        client,
        preset="pineapple",
        seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}],
    )
    with connect(client, made["table"]["id"], made["token"]) as ws:
        state = first_turn(ws, 0)
        ws.send_json({"type": "fouls", "id": 7})
        reply = recv(ws)
        ws.send_json({"type": "fouls", "id": 8})
        again = recv(ws)
    assert reply["type"] == "fouls" and reply["ref"] == 7
    assert reply["version"] == state["version"]
    assert reply["fouls"] == answers[0] == {}  # five cards on an empty board never foul
    assert again["ref"] == 8 and again["fouls"] == reply["fouls"]
    assert len(answers) == 1, "the same seat and version is answered from the cache"


def test_a_bad_fouls_request_is_answered_to_its_sender_only(client: TestClient) -> None:
    made, joined = two_humans(client)
    tid = made["table"]["id"]
    with connect(client, tid, made["token"]) as ann, connect(client, tid, joined["token"]) as bob:
        first_state(ann), first_state(bob)
        quiet(bob)
        ann.send_json({"type": "fouls", "id": "f1", "street": 2})
        error = recv_until(ann, lambda m: m["type"] == "error")
        assert error["type"] == "error" and error["code"] == "bad_message"
        assert error["ref"] == "f1" and "street" in error["message"]
        ann.send_json({"type": "fouls", "id": True})
        assert recv_until(ann, lambda m: m["type"] == "error")["code"] == "bad_message"
        assert [m for m in quiet(bob) if m["type"] == "error"] == []
        with connect(client, tid) as watcher:
            first_state(watcher)
            quiet(watcher)
            watcher.send_json({"type": "fouls", "id": 3})
            refused = recv_until(watcher, lambda m: m["type"] == "error")
            assert refused["code"] == "read_only" and refused["ref"] == 3
        assert [m for m in quiet(ann) if m["type"] == "error"] == []
