"""The ``fouls`` message (docs/server-protocol.md): a seat asks which placements of its
street foul whatever comes and gets engine.views.placement_fouls' answer, worked out once
per seat and table version; a bad request is answered to its sender only."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chinese_poker.cards import Board, parse_card, parse_cards
from chinese_poker.engine.views import placement_fouls
from chinese_poker.rules import rules_for
from chinese_poker.scoring import certain_foul, placements_that_foul
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

ROOT = Path(__file__).resolve().parent.parent


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


# The browser's warning against the server's answer, on a board the page's old heuristic
# (eval.js compared neighbouring lines only) called safe: the bottom's pair of fours is
# complete, so kings on top foul whatever comes, whatever the middle becomes.
BOARD = {"top": ["Kd"], "middle": ["9s"], "bottom": ["9c", "Ah", "4s", "Ks", "4h"]}
DEALT = ["Kc", "6s", "2h"]  # Pineapple street 2: two to place, one to discard
STAGINGS: list[list[tuple[str, str]]] = [
    [],
    [("Kc", "top")],  # kings on top already: every way on fouls
    [("Kc", "middle")],
    [("Kc", "top"), ("6s", "top")],
    [("Kc", "middle"), ("6s", "top")],
    [("6s", "top"), ("2h", "middle")],
]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_pages_foul_warning_is_the_servers_answer() -> None:
    rules = rules_for("pineapple")
    lines = {k: tuple(parse_cards(" ".join(v))) for k, v in BOARD.items()}
    board = Board(lines["top"], lines["middle"], lines["bottom"])
    dealt = parse_cards(" ".join(DEALT))
    coming = frozenset(range(52)) - set(board.cards) - set(dealt)
    free = (3 - len(board.top), 5 - len(board.middle), 5 - len(board.bottom))
    # The server's answer, as engine.views.placement_fouls words it for hand 0.
    fouls = {
        f"0:{code}": {**reason.as_dict(), "text": str(reason)}
        for code, reason in placements_that_foul(rules, board, dealt, 2, free, coming).items()
    }
    assert fouls, "the board must have fouling placements"
    done = subprocess.run(
        ["node", "tests/js/staged_fouls.mjs"],
        input=json.dumps(
            {"board": BOARD, "dealt": DEALT, "free": free, "fouls": fouls, "stagings": STAGINGS}
        ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
        env={**os.environ, "NODE_NO_WARNINGS": "1"},
    )
    assert done.returncode == 0, done.stderr
    pages = json.loads(done.stdout)
    assert pages and all(p["asks"] for p in pages), "the page asks when the street starts"
    for moves, page in zip(STAGINGS, pages, strict=True):
        # Exact: the staging fouls when every way to place the rest fouls whatever comes.
        expected = _staging_fouls(rules, board, dealt, moves, coming)
        assert (page["warning"] is not None) == (expected is not None), (moves, page)
        if expected is not None:
            assert str(expected) in page["warning"], (moves, page)
            # Kings on top are worth +8, but not on a board that fouls whatever comes.
            assert not page["royalties"], (moves, page)
        if len([m for m in moves if m[1] != "discard"]) == 2:
            assert page["step"] == ("foul" if expected else "send"), (moves, page)
    assert pages[1]["warning"] and not pages[2]["warning"]


def _staging_fouls(
    rules: Any,
    board: Board,
    dealt: Sequence[int],
    moves: list[tuple[str, str]],
    coming: frozenset[int],
) -> Any:
    """certain_foul's reason when every completion of the staging fouls (the shortest one),
    else None: what the page must conclude from the server's per-placement answer."""
    staged = {parse_card(card): line for card, line in moves}
    rest = [c for c in dealt if c not in staged]
    first = None
    for lines in itertools.product(("top", "middle", "bottom", "discard"), repeat=len(rest)):
        where = {**staged, **dict(zip(rest, lines, strict=True))}
        if sum(line != "discard" for line in where.values()) != 2:
            continue
        after = Board(
            *(
                (*getattr(board, name), *(c for c in dealt if where[c] == name))
                for name in ("top", "middle", "bottom")
            )
        )
        if len(after.top) > 3 or len(after.middle) > 5 or len(after.bottom) > 5:
            continue
        reason = certain_foul(rules, after, coming)
        if reason is None:
            return None
        if first is None or len(str(reason)) < len(str(first)):
            first = reason
    return first
