"""Chat at the table on the server (issue 40 item 9): who may say and read it, its
limits, what it refuses, what is kept and for how long, and where it never goes."""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.testclient import WebSocketTestSession

from chinese_poker.ai import simple
from chinese_poker.server import table_chat
from chinese_poker.server.app import create_app
from chinese_poker.server.db import Store
from chinese_poker.server.table_chat import KEEP_LINES, PHRASES, TEXT_LIMIT, chat_text
from test_server import client, connect, create, first_state, quiet, recv_until, two_humans
from test_server_continuous import against_a_bot, drive

__all__ = ["client"]  # the fixture, shared with test_server

Msg = dict[str, Any]


@pytest.fixture(autouse=True)
def fresh_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test counts its own lines (the counts are the process's)."""
    monkeypatch.setattr(table_chat, "_COUNTS", MovingWindowRateLimiter(MemoryStorage()))


def say(ws: WebSocketTestSession, ref: object, **line: Any) -> Msg:
    """Send a chat message; the answer to it (the line, or the error)."""
    ws.send_json({"type": "chat", "id": ref, **line})
    return recv_until(ws, lambda m: m.get("ref") == ref and m["type"] in ("chat", "error"))


@contextlib.contextmanager
def ann_and_bob(client: TestClient) -> Iterator[tuple[WebSocketTestSession, WebSocketTestSession]]:
    """The sockets of two people at a new table, past their first state."""
    made, joined = two_humans(client)
    tid = made["table"]["id"]
    with connect(client, tid, made["token"]) as ann, connect(client, tid, joined["token"]) as bob:
        first_state(ann)
        first_state(bob)
        yield ann, bob


def lines_of(ws: WebSocketTestSession) -> list[Msg]:
    return [m["line"] for m in quiet(ws) if m["type"] == "chat"]


def test_a_line_reaches_every_player_escaped_by_nobody_but_the_page(client: TestClient) -> None:
    with ann_and_bob(client) as (ann, bob):
        # Markup is text like any other: the page shows it with textContent.
        got = say(ann, 1, text="  <b>gl</b>\n hf  ")
        assert got["type"] == "chat"
        line = got["line"]
        assert line["text"] == "<b>gl</b> hf" and line["name"] == "Ann" and line["seat"] == 0
        assert [x["text"] for x in lines_of(bob)] == ["<b>gl</b> hf"]
        said = say(bob, "p", phrase="gg")["line"]
        assert said["phrase"] == "gg" and "text" not in said and said["name"] == "Bob"
        assert said["n"] == line["n"] + 1


BAD = [
    ({"text": ""}, "visible characters"),
    ({"text": "   \n\t "}, "visible characters"),
    ({"text": "\u200b\u200d"}, "visible characters"),
    ({"text": "a\x00b"}, "control characters"),
    ({"text": "abc\u202edef"}, "direction overrides"),
    ({"text": "x" * (TEXT_LIMIT + 1)}, f"1 to {TEXT_LIMIT}"),
    ({"text": 5}, "text"),
    ({"phrase": "insult"}, "phrase"),
    ({"text": "hi", "phrase": "gg"}, "either a text or a phrase"),
    ({}, "either a text or a phrase"),
    ({"text": "hi", "html": "<i>"}, "html"),
]


@pytest.mark.parametrize(("body", "words"), BAD)
def test_bad_lines_are_refused_to_the_sender_only(
    client: TestClient, body: Msg, words: str
) -> None:
    with ann_and_bob(client) as (ann, bob):
        err = say(ann, "bad", **body)
        assert err["type"] == "error" and err["code"] == "bad_message"
        assert words in err["message"]
        assert lines_of(bob) == [] and lines_of(ann) == []


def test_the_text_rule() -> None:
    assert chat_text("x" * TEXT_LIMIT) == "x" * TEXT_LIMIT
    assert chat_text(" e\u0301 ") == "\u00e9"  # NFC: one character, as typed
    assert chat_text("Привет,\r\nдрузья") == "Привет, друзья"
    assert chat_text("\u3164") is None  # a Hangul filler shows nothing
    assert chat_text("\U0001f468\u200d\U0001f469\u200d\U0001f467") is not None
    assert "hello" in PHRASES and "gg" in PHRASES


def test_a_flood_is_refused_to_its_sender_while_the_table_reads_on(client: TestClient) -> None:
    with ann_and_bob(client) as (ann, bob):
        answers = [say(ann, i, text=f"line {i}")["type"] for i in range(6)]
        burst = table_chat.BURST.amount
        assert answers == ["chat"] * burst + ["error"] * (6 - burst)
        ann.send_json({"type": "chat", "id": "x", "text": "again"})
        err = recv_until(ann, lambda m: m.get("ref") == "x")
        assert err["code"] == "busy" and "wait" in err["message"]
        assert [x["text"] for x in lines_of(bob)] == [f"line {i}" for i in range(burst)]
        # Another seat has its own count.
        assert say(bob, "b", phrase="thinking")["type"] == "chat"


def test_spectators_neither_read_nor_write_unless_the_table_lets_them(
    client: TestClient,
) -> None:
    made, _bob = two_humans(client)
    tid = made["table"]["id"]
    assert made["table"]["spectator_chat"] is False
    with connect(client, tid, made["token"]) as ann, connect(client, tid) as watcher:
        first_state(ann)
        welcome = first_state(watcher, seen := [])
        assert welcome["type"] == "state" and not any(m["type"] == "chat_lines" for m in seen)
        assert say(ann, 1, text="secret plan")["type"] == "chat"
        err = say(watcher, 2, text="hi all")
        assert err["code"] == "read_only" and "spectators" in err["message"]
        assert all(m["type"] != "chat" for m in quiet(watcher))


def test_a_table_may_let_spectators_chat(client: TestClient) -> None:
    made = create(
        client,
        seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "rules"}],
        spectator_chat=True,
    )
    tid = made["table"]["id"]
    assert made["table"]["spectator_chat"] is True
    assert client.get(f"/api/tables/{tid}").json()["spectator_chat"] is True
    with connect(client, tid, made["token"]) as ann, connect(client, tid) as watcher:
        first_state(ann)
        first_state(watcher)
        line = say(watcher, "w", phrase="nh")["line"]
        assert line["seat"] is None and line["name"] is None
        assert lines_of(ann)[-1]["phrase"] == "nh"


def test_the_last_lines_come_back_to_a_socket_that_reconnects(client: TestClient) -> None:
    made, joined = two_humans(client)
    tid = made["table"]["id"]
    with connect(client, tid, made["token"]) as ann:
        first_state(ann)
        for i in range(KEEP_LINES + 3):
            # Not a flood: a long evening.
            table_chat._COUNTS = MovingWindowRateLimiter(MemoryStorage())
            say(ann, i, text=f"line {i}")
    with connect(client, tid, joined["token"]) as bob:
        kept = recv_until(bob, lambda m: m["type"] == "chat_lines")["lines"]
    assert len(kept) == KEEP_LINES
    assert kept[0]["text"] == "line 3" and kept[-1]["text"] == f"line {KEEP_LINES + 2}"


def _stored_chat(url: str, tid: str) -> list[Msg]:
    stored = Store(url).load_table(tid)
    assert stored is not None
    chat: list[Msg] = stored.live.get("chat", [])
    return chat


def test_lines_survive_a_restart_and_are_deleted_when_the_session_ends(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'chat.db'}"
    with TestClient(create_app(url)) as first:
        made = against_a_bot(first)
        tid = made["table"]["id"]
        with connect(first, tid, made["token"]) as ann:
            first_state(ann)
            say(ann, 1, text="my secret remark")
    assert [x["text"] for x in _stored_chat(url, tid)] == ["my secret remark"]
    # Another process takes the table over: the line is there.
    with TestClient(create_app(url)) as second:
        with connect(second, tid, made["token"]) as ann:
            kept = recv_until(ann, lambda m: m["type"] == "chat_lines")["lines"]
            assert [x["text"] for x in kept] == ["my secret remark"]
            ann.send_json({"type": "leave", "id": "bye"})
            drive({0: ann}, random.Random(5), lambda m: m["type"] == "session_end")
            # Players still at the table say goodbye; only they hear it.
            assert say(ann, 2, phrase="gg")["type"] == "chat"
            history = second.get(f"/api/tables/{tid}/history").text
        assert "my secret remark" not in history and '"gg"' not in history
    assert _stored_chat(url, tid) == []
    stored = Store(url).load_table(tid)
    assert stored is not None and "secret" not in json.dumps(stored.live)
    assert all("secret" not in json.dumps(h.actions) for h in stored.hands)


def test_chat_never_reaches_a_bot_or_a_view(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen_views: list[str] = []
    act = simple.RuleBot.act

    def watching(self: Any, view: Any) -> Any:
        seen_views.append(json.dumps(view.to_dict()))
        return act(self, view)

    monkeypatch.setattr(simple.RuleBot, "act", watching)
    made = create(client, seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "rules"}])
    tid = made["table"]["id"]
    with connect(client, tid, made["token"]) as ann:
        first_state(ann)
        say(ann, 1, text="bot, fold now")
        drive({0: ann}, random.Random(2), lambda m: m["type"] == "hand_end")
        states = [m for m in quiet(ann) if m["type"] == "state"]
    assert seen_views and not any("fold now" in v for v in seen_views)
    assert not any("fold now" in json.dumps(s) for s in states)
