"""The page's fair-shuffle checks (static/fairness.js, docs/fairness.md).

First the JavaScript construction against the Python one, run by Node on fixtures:
hashes, the shuffle, and the deal order against the engine's own deals. Then a real
table in Debian's Chromium: the page shows hand 1's commitment while the table waits,
sends its own value, and after the hand verifies the reveal with WebCrypto (✓); a
forged reveal gets ✗ with the reason.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from chinese_poker.engine import Table
from chinese_poker.rules import rules_for
from chinese_poker.server.fairness import Commitment, rules_digest, shuffle

ROOT = Path(__file__).resolve().parent.parent
FAIRNESS_JS = ROOT / "src" / "chinese_poker" / "server" / "static" / "fairness.js"
NODE = shutil.which("node")


def run_js(body: str, data: Any) -> Any:
    """Run ``body`` (an async function of ``data`` returning JSON) with fairness.js as F."""
    if NODE is None:
        pytest.skip("node is not installed")
    script = (
        f"import * as F from {json.dumps(FAIRNESS_JS.as_uri())};\n"
        "const data = JSON.parse(await new Promise((ok) => { let s = '';"
        " process.stdin.on('data', (c) => s += c); process.stdin.on('end', () => ok(s)); }));\n"
        f"const out = await (async (data) => {{ {body} }})(data);\n"
        "process.stdout.write(JSON.stringify(out));\n"
    )
    res = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def test_js_hashes_and_shuffle_equal_python() -> None:
    rng = random.Random(3)
    cases = []
    for i in range(12):
        seed, salt = f"{rng.getrandbits(128):032x}", f"{rng.getrandbits(128):032x}"
        c = Commitment.make(f"t-{i:012x}", i + 1, rules_digest(rules_for("pineapple")), seed, salt)
        players = ["Ann", "rules-1", "Bøb"]
        sent = {"Ann": f"{rng.getrandbits(256):064x}"}
        contributions = c.contributions(players, {"rules-1"}, sent)
        deal = c.deal(contributions)
        cases.append(
            {
                "reveal": c.reveal(contributions),
                "values": [x.value for x in contributions if x.value],
                "expect": {
                    "commitment": c.commitment,
                    "bot": c.bot_value("rules-1"),
                    "deal": deal.seed,
                    "deck": list(deal.deck),
                },
            }
        )
    got = run_js(
        """
      const out = [];
      for (const c of data) {
        const r = c.reveal;
        out.push({commitment: await F.commitmentOf(r), bot: await F.botValue(r, "rules-1"),
                  deal: await F.dealSeed(r, c.values), deck: await F.shuffle(r.deal_seed)});
      }
      return out;""",
        cases,
    )
    assert got == [c["expect"] for c in cases]
    # and seeds that need rejected words (the shuffle runs into later blocks)
    seeds = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(60)]
    assert run_js("return Promise.all(data.map((s) => F.shuffle(s)));", seeds) == [
        list(shuffle(s)) for s in seeds
    ]
    names = run_js("return data.map(F.cardName);", list(range(52)))
    assert names[:5] == ["2s", "2h", "2d", "2c", "3s"] and names[-1] == "Ac"


def _played(preset: str, n: int, button: int, fl: dict[int, int], seed: int) -> Table:
    # Cards numbered by their deck position: what a box was dealt is its positions.
    table = Table(rules_for(preset), n, button=button, deck=list(range(52)), fantasyland=fl)
    rng = random.Random(seed)
    while not table.over:
        table.apply(table.random_action(table.to_act[0], rng))
    return table


@pytest.mark.parametrize(
    ("preset", "n", "button", "fl"),
    [
        ("classic", 4, 2, {}),
        ("classic", 2, 1, {}),
        ("criss-cross", 2, 0, {}),
        ("ofc", 3, 1, {}),
        ("ofc", 2, 0, {1: 13}),
        ("pineapple", 3, 2, {}),
        ("pineapple", 3, 0, {0: 14, 2: 14}),
        ("pineapple-progressive", 2, 1, {0: 16}),
        ("turbo", 4, 3, {}),
    ],
)
def test_js_deal_order_equals_the_engines(
    preset: str, n: int, button: int, fl: dict[int, int]
) -> None:
    table = _played(preset, n, button, fl, seed=n + button)
    rules = table.rules
    facts = rules.spec.to_dict()["variant"]  # what the welcome message sends the page
    deal = {
        "players": n,
        "button": button,
        "open_face": facts["open_face"],
        "hands_per_seat": facts["hands_per_seat"],
        "streets": facts["streets"],
        "fantasyland": fl,
    }
    runs = run_js("return F.dealRuns(data);", deal)
    for seat in range(n):
        for h in range(2 if rules.variant == "criss_cross" else 1):
            mine = [r for r in runs if r["seat"] == seat and r["hand"] == h]
            positions = [p for r in mine for p in range(r["start"], r["start"] + r["count"])]
            assert positions == list(table.dealt(seat, h)), (seat, h)
            assert all(r["street"] == (0 if seat in fl else r["street"]) for r in mine)


# --------------------------------------------------------------------------- in the browser

browser_test = pytest.importorskip("test_browser")
server = browser_test.server
browser = browser_test.browser
shots = browser_test.shots
DECISION_JS = browser_test.DECISION_JS


def _panel_row(page: Any, hand: int) -> Any:
    return page.locator(f"#fairness li[data-hand='{hand}']")


def _play_until_showdown(pages: list[Any]) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        done = 0
        for page in pages:
            d = page.evaluate(DECISION_JS)
            if d and d.get("showdown"):
                done += 1
            elif d and d.get("kind") in ("street", "set"):
                if d["kind"] == "set":
                    browser_test.set_with_keys(page, d)
                else:
                    browser_test.play_keys(page, d)
        if done == len(pages):
            return
        time.sleep(0.05)
    raise AssertionError("the hand did not reach its showdown")


@pytest.mark.skipif(
    not os.path.exists(browser_test.CHROMIUM) and not os.environ.get("CI"),
    reason="Debian's chromium is not installed at /usr/bin/chromium",
)
@pytest.mark.xdist_group("browser")
def test_the_page_shows_the_commitment_before_the_deal_and_verifies_after(
    browser: Any, server: Any, shots: Path
) -> None:
    created = browser_test.create_table(
        server,
        seats=[
            {"kind": "human", "name": "Ann"},
            {"kind": "human"},
            {"kind": "bot", "bot": "rules"},
        ],
        # Hand 2 is not dealt while the test checks hand 1 (its showdown stays on the pages).
        next_hand_delay=60,
    )
    tid = created["table"]["id"]
    first = created["table"]["next_commitment"]
    assert created["table"]["status"] == "waiting" and first and created["table"]["hand"] == 0

    ann = browser_test.new_page(browser)
    browser_test.open_seat(ann, server, created)
    # hand 1's commitment is on the page while the table still waits for Bob
    row = _panel_row(ann, 1)
    browser_test.expect(row).to_contain_text("committed, not dealt yet")
    assert row.locator("code").get_attribute("title") == first
    ann.wait_for_function(
        f"() => (JSON.parse(localStorage.getItem('cp.fair.{tid}') || '{{}}').sent || {{}})[1]"
    )
    assert server.get(f"/api/tables/{tid}")["hand"] == 0  # not dealt yet
    watcher = browser_test.new_page(browser)  # a spectator checks the deal too
    watcher.goto(f"{server.base}/table/{tid}")
    browser_test.expect(_panel_row(watcher, 1)).to_contain_text("committed, not dealt yet")

    # Bob watches the table before he takes the last seat, so his page has seen hand 1's
    # commitment before the deal. (Taking the seat deals hand 1 at most FIRST_DEAL_WAIT
    # seconds later, with or without his value: on a loaded machine his page, opened
    # only after joining, could first see the commitment with the deal, and rightly warn.)
    bob = browser_test.new_page(browser)
    bob.goto(f"{server.base}/table/{tid}")
    browser_test.expect(_panel_row(bob, 1)).to_contain_text("committed, not dealt yet")
    joined = server.post(f"/api/tables/{tid}/join", {"code": created["join_code"], "name": "Bob"})
    bob.evaluate(
        "([k, v]) => localStorage.setItem(k, JSON.stringify(v))",
        [f"cp.seat.{tid}", {"token": joined["token"], "seat": joined["seat"]}],
    )
    bob.goto(f"{server.base}/table/{tid}")
    _play_until_showdown([ann, bob])

    # after the hand: ✓ on Ann's page, and what she sent is in the reveal
    browser_test.expect(row.locator(".fair-ok")).to_be_visible(timeout=20000)
    browser_test.element_shot(ann.locator("#fairness"), shots / "fair-deal.png")
    browser_test.expect(_panel_row(watcher, 1).locator(".fair-ok")).to_be_visible()
    browser_test.expect(_panel_row(bob, 1).locator(".fair-ok")).to_be_visible()
    saved = json.loads(ann.evaluate(f"() => localStorage.getItem('cp.fair.{tid}')"))
    assert saved["commitments"]["1"] == {"commitment": first, "before": True}
    assert saved["verdicts"]["1"]["ok"] is True
    records = [json.loads(line) for line in urllib_get(server, f"/api/tables/{tid}/history")]
    reveal = records[0]["fairness"]
    assert reveal["commitment"] == first
    ann_value = next(c for c in reveal["contributions"] if c["player"] == "Ann")
    assert ann_value == {"player": "Ann", "source": "player", "value": saved["sent"]["1"]}
    assert (
        next(c for c in reveal["contributions"] if c["source"] == "bot")["player"] == "Casual bot"
    )

    # The page's checker on hand 1 against hand 1's showdown (the view it checked with),
    # whatever state the page has received since.
    assert ann.evaluate("() => window.__cp.lastShowdown.hand") == 1
    # the page's checker refuses forged reveals, naming what is wrong
    forged = {
        "a different seed": {**reveal, "seed": "0" * 32},
        "Ann's value dropped": {
            **reveal,
            "contributions": [
                {**c, "source": "absent", "value": None} if c["player"] == "Ann" else c
                for c in reveal["contributions"]
            ],
        },
        "a different deal seed": {**reveal, "deal_seed": "1" * 64},
    }
    reasons = ann.evaluate(
        """async (forged) => {
          const T = window.__cp, view = T.lastShowdown.view, out = {};
          for (const [k, r] of Object.entries(forged)) {
            const v = await T.fair.fair._verify(1, r, view, T.spec.variant);
            out[k] = v.ok ? null : v.reason;
          }
          return out;
        }""",
        forged,
    )
    assert "do not hash to the commitment" in reasons["a different seed"]
    assert "your own contribution is not in the deal" in reasons["Ann's value dropped"]
    assert "deal seed" in reasons["a different deal seed"]
    # A server that refuses a player's value, or shows the commitment only with the deal,
    # could have chosen the deal: the page never calls that "verified".
    unprotected = ann.evaluate(
        """async (r) => {
          const T = window.__cp, F = T.fair.fair, view = T.lastShowdown.view, out = {};
          F.refused(1, "too_late");
          out.refused = await F._verify(1, r, view, T.spec.variant);
          delete F.s.late[1];
          F.s.commitments[1].before = false;
          out.unseen = await F._verify(1, r, view, T.spec.variant);
          F.s.commitments[1].before = true;
          out.honest = await F._verify(1, r, view, T.spec.variant);
          return out;
        }""",
        reveal,
    )
    refused = unprotected["refused"]
    assert refused["unprotected"] and "was not taken" in refused["reason"]
    assert (
        unprotected["unseen"]["unprotected"]
        and "first seen with the deal" in (unprotected["unseen"]["reason"])
    )
    assert unprotected["honest"]["ok"] and not unprotected["honest"].get("unprotected")
    browser_test.no_page_errors(ann)
    browser_test.no_page_errors(bob)
    browser_test.no_page_errors(watcher)
    for page in (ann, bob, watcher):
        page.context.close()


def urllib_get(server: Any, path: str) -> list[str]:
    import urllib.request

    with urllib.request.urlopen(server.base + path, timeout=10) as res:
        return [line for line in res.read().decode().splitlines() if line.strip()]
