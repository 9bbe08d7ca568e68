"""A table played by another server of the same database, as a person meets it in
Chromium (docs/server.md "Processes"): two real ``serve`` processes share one SQLite file;
the table is A's. Ann's page of it at B goes to A with her seat; Bob's invite link opened
at B takes him to A's join page; both play there.
"""

from __future__ import annotations

import json
import time
import urllib.error
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

import test_browser
from test_browser import new_page, no_page_errors, start_server
from test_browser_session import play_all

browser = test_browser.browser

# The same marks as test_browser: never skipped silently in CI.
pytestmark = test_browser.pytestmark


def test_a_page_at_another_server_goes_to_the_one_that_plays_the_table(
    browser: Any, tmp_path: Path
) -> None:
    shared = ["--database-url", f"sqlite:///{tmp_path / 'shared.db'}"]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = start_server(tmp_path / "a", extra=shared)
    b = start_server(tmp_path / "b", extra=shared)
    try:
        made = a.post(
            "/api/tables",
            {
                "preset": "pineapple",
                "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human"}],
                "join": True,
                "next_hand_delay": 30,
            },
        )
        tid = made["table"]["id"]
        # Ann's seat is stored in her browser at B (where she found the table).
        ann = new_page(browser)
        ann.goto(b.base + "/")
        ann.evaluate(
            "([k, v]) => localStorage.setItem(k, JSON.stringify(v))",
            [f"cp.seat.{tid}", {"token": made["token"], "seat": made["seat"]}],
        )
        ann.goto(f"{b.base}/table/{tid}")
        ann.wait_for_url(f"{a.base}/table/{tid}")  # the token's fragment already gone
        expect(ann.locator("#conn")).to_contain_text("Ann")
        # Bob opens the invite link at B: he is taken to A's join page, code and all.
        bob = new_page(browser)
        bob.goto(f"{b.base}/join/{tid}?code={made['join_code']}")
        bob.wait_for_url(lambda url: url.startswith(f"{a.base}/join/{tid}?code="))
        bob.fill("#j-name", "Bob")
        bob.click("#join-btn")
        bob.wait_for_url(f"{a.base}/table/*")
        expect(bob.locator("#conn")).to_contain_text("Bob")
        street = "() => window.__cp.view && window.__cp.view.street >= 2"
        play_all([ann, bob], lambda: bool(ann.evaluate(street)), time.monotonic() + 60)
        no_page_errors(ann)
        no_page_errors(bob)
        # B never played it: it still sends whoever asks to A.
        with pytest.raises(urllib.error.HTTPError) as refused:
            b.get(f"/api/tables/{tid}")
        assert refused.value.code == 409
        assert json.loads(refused.value.read())["moved"]["to"] == a.base
    finally:
        a.stop()
        b.stop()
