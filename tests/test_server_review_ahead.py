"""The review ahead of a hand just ended is given the hand's history line by the table
(issue 38 item 5): exactly the stored line, without reading the database for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from _helpers import wait_until
from chinese_poker.server import reviews
from chinese_poker.server.app import create_app
from chinese_poker.server.db import Store
from test_server import connect, first_state, recv_until
from test_table_hold import quick_table


def test_the_review_ahead_gets_the_stored_line_without_reading_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    given: list[tuple[dict[str, Any], int]] = []
    monkeypatch.setattr(
        reviews, "review_record", lambda record, hand: given.append((record, hand)) or {}
    )
    reads: list[tuple[str, int | None]] = []
    records = Store.records

    def counted(store: Store, table_id: str, hand: int | None = None) -> list[dict[str, Any]]:
        reads.append((table_id, hand))
        return records(store, table_id, hand)

    monkeypatch.setattr(Store, "records", counted)
    app = create_app(f"sqlite:///{tmp_path / 'server.db'}", hint_processes=False)
    with TestClient(app) as c:
        made = quick_table(c, pause=30.0)
        tid = made["table"]["id"]
        with connect(c, tid, made["token"]) as ws:
            first_state(ws)
            recv_until(ws, lambda m: m["type"] == "hand_end")
            wait_until(lambda: len(given) == 1, "hand 1's review started unasked")
            assert reads == []  # the table gave the line
            record, hand = given[0]
            assert hand == 1
            assert record == records(app.state.manager.store, tid, 1)[0]
            assert record["fairness"]["seed"]  # the whole line, revealed seed and all
