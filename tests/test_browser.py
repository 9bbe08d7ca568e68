"""The browser table in a real browser: Playwright drives Debian's Chromium.

The tests start the real server (``chinese-poker serve``) as a subprocess on 127.0.0.1
with a temporary SQLite database, then play through the UI exactly as a person would:
the lobby, a Pineapple hand against a bot (clicks, drag and drop, keyboard), two people
in two browser contexts (invite link), a reload in the middle of a street, a Fantasyland
hand, the phone layout, and the client-side evaluator against the engine's.

Chromium comes from Debian (``scripts/install-browser``); ``playwright install`` is never
used. Without /usr/bin/chromium the tests are skipped.

Screenshots go to a temporary folder; set ``CP_SCREENSHOT_DIR=docs/screenshots`` to
refresh the ones the docs show.
"""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = [
    # In CI the browser must be there (scripts/test installs it): never skip silently.
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM) and not os.environ.get("CI"),
        reason="Debian's chromium is not installed at /usr/bin/chromium"
        " (run scripts/install-browser)",
    ),
    pytest.mark.xdist_group("browser"),
]

# The viewports the browser files play in: a desktop, a phone and a short phone.
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SHORT_PHONE = {"width": 360, "height": 740}

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing")
Page = sync_api.Page
expect = sync_api.expect
# An assertion waits as long as an action does (new_page's default): Playwright's own
# 5 s is short for a hint, a solver or a broadcast on a loaded 2-core machine. One
# setting for the process, so every browser module (they all import this one) shares it.
expect.set_options(timeout=15_000)

ROOT = Path(__file__).resolve().parent.parent

# --------------------------------------------------------------------------- the server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, proc: subprocess.Popen[bytes], base: str, log: Path) -> None:
        self.proc = proc
        self.base = base
        self.log = log

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.base + path, timeout=10) as res:
            return json.loads(res.read().decode())

    def post(self, path: str, body: dict[str, Any], timeout: float = 10) -> Any:
        req = urllib.request.Request(
            self.base + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=timeout) as res:
            return json.loads(res.read().decode())

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


def start_server(workdir: Path, launcher: str | None = None, extra: Sequence[str] = ()) -> Server:
    """Run ``chinese-poker serve`` (or ``launcher``, which runs the same command in a
    prepared process; ``extra``: more of its arguments) on a free port and wait until it
    answers."""
    port = _free_port()
    args = ["serve", "--host", "127.0.0.1", "--port", str(port),
            "--database-url", f"sqlite:///{workdir / 'server.db'}", *extra]  # fmt: skip
    if launcher is None:
        cmd = [sys.executable, "-m", "chinese_poker.cli", *args]
    else:
        cmd = [sys.executable, "-c", launcher, *args]
    log = workdir / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=workdir)
    server = Server(proc, f"http://127.0.0.1:{port}", log)
    deadline = time.monotonic() + 60
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited: {log.read_text()[-2000:]}")
        try:
            if server.get("/api/health").get("ok"):
                return server
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        if time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"the server did not answer: {log.read_text()[-2000:]}")
        time.sleep(0.1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = start_server(tmp_path_factory.mktemp("server"))
    yield s
    s.stop()


# A stacked deck for the Fantasyland test. The server draws every hand's seed from
# `secrets` (fair shuffles), and its protocol has no testing hook to fix a deck, so this
# launcher replaces the deck of every hand before running the real `serve` command.
# Pineapple, two players, button 0: the bot (seat 1) acts first on every street, so the
# human (seat 0) receives cards 5-9, then 13-15, 19-21, 25-27 and 31-33.
FL_HUMAN = {
    5: "Qs Qh As Ad Ac",
    13: "Ks Kh 2c",
    19: "Kd 4c 3d",
    25: "5c 6d 2d",
    31: "7h 8c 3h",
}
FL_LAUNCHER = f"""
import sys
from chinese_poker.cards import parse_cards
import chinese_poker.server.game as game
human = {FL_HUMAN!r}
deck = [None] * 52
for start, text in human.items():
    for i, card in enumerate(parse_cards(text)):
        deck[start + i] = card
rest = iter(c for c in range(52) if c not in deck)
DECK = tuple(c if c is not None else next(rest) for c in deck)
game.deck_for = lambda *_: DECK
from chinese_poker.cli import main
sys.exit(main(sys.argv[1:]))
"""


# --------------------------------------------------------------------------- the browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    d = os.environ.get("CP_SCREENSHOT_DIR")
    path = (ROOT / d) if d and not os.path.isabs(d) else Path(d) if d else tmp_path
    path.mkdir(parents=True, exist_ok=True)
    return path


def new_page(browser: Any, **kw: Any) -> Page:
    ctx = browser.new_context(viewport=kw.pop("viewport", DESKTOP), **kw)
    page = ctx.new_page()
    page.set_default_timeout(15000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page._cp_errors = errors  # type: ignore[attr-defined]
    return page


def element_shot(locator: Any, path: Path) -> None:
    """A screenshot of one element, for the docs; never a test's verdict.

    The page may re-render the element between finding it and capturing it (a state
    message arriving), which detaches the handle. The locator finds it again, so a few
    tries are enough; after them the last error is raised.
    """
    for attempt in range(5):
        try:
            locator.screenshot(path=str(path), timeout=5000)
            return
        except sync_api.Error:
            if attempt == 4:
                raise
            time.sleep(0.2)


def no_page_errors(page: Page) -> None:
    assert page._cp_errors == []  # type: ignore[attr-defined]


def create_table(server: Server, **body: Any) -> dict[str, Any]:
    spec = {
        "name": "test",
        "preset": "pineapple",
        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "rules"}],
        "bot_delay": 0,
        "next_hand_delay": 0.3,
        "button": 0,
        "join": True,
    }
    spec.update(body)
    return server.post("/api/tables", spec)


def custom_form(page: Page, server: Server, seats: str, preset: str | None = None) -> None:
    """The lobby's Custom table opened for Ann, with ``seats`` seats (the ``preset``
    picked before them, where given, in the order the form is filled in)."""
    page.goto(server.base + "/")
    page.wait_for_selector("#f-preset option[value=pineapple]", state="attached")
    page.click("#custom summary")
    page.fill("#f-player", "Ann")
    if preset is not None:
        page.select_option("#f-preset", preset)
    page.select_option("#f-count", seats)


def open_seat(page: Page, server: Server, created: dict[str, Any]) -> None:
    """Open the table in ``page`` with the seat's token, as the lobby would store it."""
    tid = created["table"]["id"]
    page.goto(server.base + "/")
    page.evaluate(
        "([k, v]) => localStorage.setItem(k, JSON.stringify(v))",
        [f"cp.seat.{tid}", {"token": created["token"], "seat": created["seat"]}],
    )
    page.goto(f"{server.base}/table/{tid}")


DECISION_JS = """() => {
  const T = window.__cp;
  if (!T || !T.view) return null;
  if (T.view.phase === 'showdown') return {showdown: true};
  const d = (T.view.decisions || []).find((x) => x.seat === T.seat);
  if (!d || !(T.view.to_act || []).includes(T.seat) || T.sending !== null) return null;
  return {kind: d.kind, cards: d.cards, place: d.place, discard: d.discard, free: d.free,
          street: d.street, staged: T.moves.length, version: T.view.version};
}"""


def wait_decision(page: Page, timeout: float = 20) -> dict[str, Any]:
    """Wait until the seat has something to do (or the hand is at its showdown)."""
    handle = page.wait_for_function(DECISION_JS, timeout=timeout * 1000)
    return handle.json_value()  # type: ignore[no-any-return]


def play_keys(page: Page, d: dict[str, Any]) -> None:
    """Place a street with the keyboard: bottom first, then middle, then top; Enter."""
    free = list(d["free"])
    for _ in range(d["place"]):
        i = 2 if free[2] else 1 if free[1] else 0
        free[i] -= 1
        page.keyboard.press("1")
        page.keyboard.press("tmb"[i])
    confirm_keys(page, d)


def confirm_keys(page: Page, d: dict[str, Any]) -> None:
    """Enter; a second Enter when the page asks about a certain foul."""
    page.keyboard.press("Enter")
    if page.evaluate("() => window.__cp.foulAsked"):
        page.keyboard.press("Enter")
    page.wait_for_function(f"() => !window.__cp.view || window.__cp.view.version > {d['version']}")


def set_with_keys(page: Page, d: dict[str, Any]) -> None:
    """Set a whole deal with the keyboard: 5 bottom, 5 middle, 3 top (the rest discarded)."""
    for line, n in (("b", 5), ("m", 5), ("t", 3)):
        for _ in range(n):
            page.keyboard.press("1")
            page.keyboard.press(line)
    confirm_keys(page, d)


def staged_count(page: Page) -> int:
    return int(page.evaluate("() => window.__cp.moves.length"))


def my_board_count(page: Page) -> int:
    return page.locator("#my-board .line-row .card:not(.staged)").count()


# --------------------------------------------------------------------------- tests


def test_pineapple_hand_against_a_bot(browser: Any, server: Server, shots: Path) -> None:
    page = new_page(browser)
    custom_form(page, server, "2", preset="pineapple")
    page.fill("#f-name", "Pineapple vs bot")
    page.select_option(".seat-row[data-seat='1'] .s-kind", "bot")
    page.select_option(".seat-row[data-seat='1'] .s-bot", "casual")
    page.click("#f-add-option")
    page.select_option(".option-row .o-name", "unit_value")
    page.fill(".option-row .o-value", "2")
    page.fill("#f-time", "120")
    page.fill("#f-botdelay", "0")
    page.fill("#f-nextdelay", "0.5")
    page.select_option("#f-mode", "session")  # RULES §10's one orbit: the session ends
    page.screenshot(path=str(shots / "lobby.png"), full_page=True)
    page.click("#create-btn")
    page.wait_for_url("**/table/*")

    # Street 1 by clicks (select a card, click a line), with an undo, and one drag.
    d = wait_decision(page)
    assert d["kind"] == "street" and d["street"] == 1 and len(d["cards"]) == 5
    expect(page.locator("#shortcuts")).to_contain_text("undo")
    cards = d["cards"]
    page.click(f"#hand [data-card='{cards[0]}']")
    page.click("[data-drop='bottom']")
    assert staged_count(page) == 1
    page.click("#undo-btn")
    assert staged_count(page) == 0
    page.click(f"#hand [data-card='{cards[0]}']")
    page.click("[data-drop='bottom']")
    page.click(f"#hand [data-card='{cards[1]}']")
    page.click("[data-drop='bottom']")
    page.drag_and_drop(f"#hand [data-card='{cards[2]}']", "[data-drop='middle']")
    page.click(f"#hand [data-card='{cards[3]}']")
    page.click("[data-drop='middle']")
    expect(page.locator("#confirm-btn")).to_be_disabled()
    page.click(f"#hand [data-card='{cards[4]}']")
    page.click("[data-drop='top']")
    assert staged_count(page) == 5
    page.click("#confirm-btn")

    # Streets 2-5 by keyboard; a screenshot in the middle of street 3.
    while True:
        d = wait_decision(page)
        if d.get("showdown"):
            break
        assert d["place"] == 2 and d["discard"] == 1
        if d["street"] == 3:
            page.keyboard.press("1")
            page.keyboard.press("t")
            expect(page.locator("#my-board .card.staged")).to_have_count(1)
            expect(page.locator("#your-turn")).to_be_visible()
            page.screenshot(path=str(shots / "table-mid-hand.png"), full_page=True)
            page.keyboard.press("u")
            assert staged_count(page) == 0
        play_keys(page, d)

    breakdown = page.locator("#breakdown")
    expect(breakdown).to_contain_text("Hand 1 result")
    expect(breakdown).to_contain_text("Ann vs")
    expect(page.locator("#ledger svg polyline")).to_have_count(2)
    page.screenshot(path=str(shots / "showdown.png"), full_page=True)

    # The replay of hand 1 and its history download.
    page.locator("#hands [data-act='replay'][data-hand='1']").click()
    expect(page.locator("#replay")).to_be_visible()
    expect(page.locator("#replay-step")).to_contain_text("Hand dealt")
    page.click("#replay-next")
    expect(page.locator("#replay-step")).to_contain_text("Casual bot")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay-step")).to_contain_text("Ann")
    page.keyboard.press("Escape")
    expect(page.locator("#replay")).to_have_count(0)
    href = page.locator("#hands a[href*='history?hand=1']").get_attribute("href")
    assert href
    res = page.request.get(server.base + href)
    assert res.ok
    record = json.loads(res.text().splitlines()[0])
    assert record["format"] == "chinese-poker-hand" and record["players"][0] == "Ann"

    # Hand 2: street 1 by keyboard, then a hint on street 2, used and confirmed.
    d = wait_decision(page)
    if not d.get("showdown") and d["kind"] == "street" and d["street"] == 1:
        play_keys(page, d)
        d = wait_decision(page)
        if not d.get("showdown") and d["kind"] == "street":
            page.keyboard.press("h")
            use = page.locator("#hints [data-act='use-hint']").first
            expect(use).to_be_visible(timeout=90000)  # the first hint may compile numba code
            expect(page.locator("#hints")).to_contain_text("expected points")
            use.click()
            assert staged_count(page) == 3
            confirm_keys(page, d)
    deadline = time.monotonic() + 60
    while not page.evaluate("() => window.__cp.sessionOver"):
        assert time.monotonic() < deadline, "the session did not end"
        d = wait_decision(page)
        if d.get("showdown"):
            page.wait_for_function(
                "() => window.__cp.sessionOver || (window.__cp.view"
                " && window.__cp.view.phase !== 'showdown')"
            )
            continue
        if d["kind"] == "set":
            set_with_keys(page, d)
        else:
            play_keys(page, d)
    ledger = page.locator("#ledger")
    expect(ledger).to_contain_text("final")
    # "final" shows at the session's end, before the page's re-fetch of the ledger with
    # the last hand has come back: wait for that hand's points on the chart.
    tid = page.url.rsplit("/", 1)[1]
    hands = len(server.get(f"/api/tables/{tid}/ledger")["hands"])
    assert hands >= 2
    expect(page.locator("#ledger svg circle")).to_have_count(2 * (hands + 1))  # start + hands
    page.wait_for_timeout(300)  # the side panel re-renders as the last messages arrive
    box = ledger.bounding_box()
    assert box is not None
    page.screenshot(path=str(shots / "ledger-chart.png"), clip=box, full_page=True)

    # The page of the table's hands survives a reload and replays any hand.
    page.goto(f"{server.base}/?hands={tid}")
    page.reload()
    page.locator("#replay-list [data-hand='2']").click()
    page.click("[data-r='last']")
    expect(page.locator("#replay-step")).to_contain_text("Showdown")
    no_page_errors(page)
    page.context.close()


def test_two_people_with_an_invite_link(browser: Any, server: Server, shots: Path) -> None:
    ann = new_page(browser)
    ann.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.base)
    custom_form(ann, server, "2", preset="pineapple")
    ann.select_option(".seat-row[data-seat='1'] .s-kind", "human")
    ann.click("#create-btn")
    invite = ann.locator("#invite-url")
    expect(invite).to_be_visible()
    ann.click("#copy-invite")
    expect(ann.locator(".toast")).to_contain_text("copied")
    url = invite.input_value()
    assert "/join/" in url and "code=" in url
    copied = ann.evaluate("() => navigator.clipboard.readText()")
    assert copied == url
    ann.click("#go-table")
    expect(ann.locator("#waiting-room")).to_contain_text("free")

    bob = new_page(browser)
    bob.goto(url)
    bob.fill("#j-name", "Bob")
    bob.click("#join-btn")
    bob.wait_for_url("**/table/*")

    # Button 0: Bob (seat 1) acts first.
    d = wait_decision(bob)
    assert d["street"] == 1
    expect(ann.locator("#whose-turn")).to_contain_text("Bob")
    play_keys(bob, d)
    expect(ann.locator("#opponents [data-seat='1'] .card")).to_have_count(5)
    d = wait_decision(ann)
    play_keys(ann, d)
    expect(bob.locator("#opponents [data-seat='0'] .card")).to_have_count(5)

    # The lobby lists the table; a third person can watch it.
    lobby = ann.context.new_page()
    lobby.goto(server.base + "/")
    row = lobby.locator(f"tr[data-table='{url.split('/join/')[1].split('?')[0]}']")
    expect(row).to_contain_text("Bob")
    lobby.screenshot(path=str(shots / "lobby-tables.png"), full_page=True)
    row.get_by_role("button", name="Watch").click()
    expect(lobby.locator(".table-head")).to_contain_text("spectating")
    expect(lobby.locator("#opponents [data-seat='1'] .card")).to_have_count(5)
    no_page_errors(ann)
    no_page_errors(bob)
    ann.context.close()
    bob.context.close()


def test_reload_in_the_middle_of_a_street(browser: Any, server: Server, shots: Path) -> None:
    created = create_table(server)
    page = new_page(browser)
    open_seat(page, server, created)
    play_keys(page, wait_decision(page))
    d = wait_decision(page)
    assert d["street"] == 2
    page.keyboard.press("1")
    page.keyboard.press("t")
    assert staged_count(page) == 1

    # An error from the server (a stale version) is shown, and the staging survives.
    page.evaluate("() => { window.__cp.view.version -= 1; }")
    page.keyboard.press("1")
    page.keyboard.press("m")
    page.keyboard.press("Enter")
    if page.evaluate("() => window.__cp.foulAsked"):
        page.keyboard.press("Enter")
    toast = page.locator(".toast").last
    expect(toast).to_contain_text("moved on")
    page.wait_for_function("() => window.__cp.sending === null")
    assert staged_count(page) == 2
    expect(page.locator("#confirm-btn")).to_be_enabled()

    # Reload: the staged cards are kept (localStorage), the confirmed street 1 is intact.
    page.reload()
    d = wait_decision(page)
    assert d["street"] == 2 and d["staged"] == 2 and len(d["cards"]) == 3
    expect(page.locator("#hand .card")).to_have_count(1)
    expect(page.locator("#my-board .card.staged")).to_have_count(2)
    assert my_board_count(page) == 5
    confirm_keys(page, d)
    d = wait_decision(page)
    assert d["street"] == 3
    assert my_board_count(page) == 7
    no_page_errors(page)
    page.context.close()


def test_fantasyland_hand(browser: Any, tmp_path: Path, shots: Path) -> None:
    fl_server = start_server(tmp_path, launcher=FL_LAUNCHER)
    try:
        # The solver's Fantasyland board (a wheel straight flush in the bottom) stays in
        # Fantasyland, so hand 3 is dealt, Ann's board hidden again, next_hand_delay after
        # hand 2's showdown: at 0.3 s a loaded machine once showed the watcher hand 3
        # before the checks of hand 2's showdown ran. The showdown now lasts until Ann
        # presses Next (the longest delay allowed), which she does after hand 1 only.
        created = create_table(fl_server, name="Fantasyland", next_hand_delay=60)
        page = new_page(browser)
        open_seat(page, fl_server, created)
        # Hand 1: build Qs Qh 4c | Ks Kh Kd 5c 7h | As Ad Ac 6d 8c by clicking.
        plan = [
            {"top": "Qs Qh", "bottom": "As Ad Ac"},
            {"middle": "Ks Kh"},
            {"middle": "Kd", "top": "4c"},
            {"middle": "5c", "bottom": "6d"},
            {"middle": "7h", "bottom": "8c"},
        ]
        for street in plan:
            d = wait_decision(page)
            for line, cards in street.items():
                for card in cards.split():
                    page.click(f"#hand [data-card='{card}']")
                    page.click(f"[data-drop='{line}']")
            if d["street"] == 5:
                expect(page.locator("#warnings")).to_contain_text("Fantasyland")
                expect(page.locator("#royalty-total")).to_contain_text("+9")
            page.click("#confirm-btn")
            page.wait_for_function(f"() => window.__cp.view.version > {d['version']}")
        breakdown = page.locator("#breakdown")
        expect(breakdown).to_contain_text("Fantasyland next: 14")
        page.click("#next-btn")

        # Hand 2: the Fantasyland setter with 14 cards; a spectator sees the board hidden.
        d = wait_decision(page)
        while d.get("showdown"):
            page.wait_for_function("() => window.__cp.hand === 2")
            d = wait_decision(page)
        assert d["kind"] == "set" and len(d["cards"]) == 14 and d["place"] == 13
        expect(page.locator("#hand-zone")).to_contain_text("Fantasyland")
        watcher = new_page(browser)
        watcher.goto(f"{fl_server.base}/watch/{created['table']['id']}")
        expect(watcher.locator("[data-seat='0'] .hidden-board")).to_contain_text(
            "hidden until the showdown"
        )
        for key in "1b1b1b1b1b1m1m":
            page.keyboard.press(key)
        page.screenshot(path=str(shots / "fantasyland-setter.png"), full_page=True)
        page.click("[data-act='reset']")
        assert staged_count(page) == 0
        # Auto-arrange: the server's hint module (the exact Fantasyland solver) sets it.
        page.click("#auto-btn")
        page.wait_for_function("() => window.__cp.moves.length === 14", timeout=90000)
        expect(page.locator("#discard-zone .card")).to_have_count(1)
        page.keyboard.press("Enter")
        page.wait_for_function(
            "() => window.__cp.hand === 2 && window.__cp.view.phase === 'showdown'",
            timeout=30000,
        )
        expect(watcher.locator("[data-seat='0'] .hidden-board")).to_have_count(0)
        expect(watcher.locator("[data-seat='0'] .card")).to_have_count(13)
        no_page_errors(page)
        watcher.context.close()
        page.context.close()
    finally:
        fl_server.stop()


def test_phone_layout_and_four_colour_deck(browser: Any, server: Server, shots: Path) -> None:
    created = create_table(server, seats=[
        {"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "rules"},
        {"kind": "bot", "bot": "random"}])  # fmt: skip
    page = new_page(
        browser,
        viewport=PHONE,
        is_mobile=True,
        has_touch=True,
        device_scale_factor=2,
    )
    open_seat(page, server, created)
    d = wait_decision(page)
    page.tap(f"#hand [data-card='{d['cards'][0]}']")
    page.tap("[data-drop='bottom']")
    page.tap(f"#hand [data-card='{d['cards'][1]}']")
    page.tap("[data-drop='middle']")
    assert staged_count(page) == 2
    # On a phone the switch is behind the top bar's menu button (js/topmenu.js).
    page.tap("#menu-button")
    page.check("#four-colour")
    assert "four-colour" in (page.get_attribute("body", "class") or "")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 391, f"the page is {width}px wide on a 390px phone"
    page.screenshot(path=str(shots / "phone.png"), full_page=True)
    page.reload()
    wait_decision(page)
    assert page.is_checked("#four-colour")
    assert "four-colour" in (page.get_attribute("body", "class") or "")
    no_page_errors(page)
    page.context.close()


def test_client_evaluator_agrees_with_the_engine(browser: Any, server: Server) -> None:
    from chinese_poker.cards import card_name, parse_board
    from chinese_poker.evaluate import describe, evaluate, evaluate3
    from chinese_poker.rules import rules_for
    from chinese_poker.scoring import is_fouled, royalties

    rng = random.Random(7)
    cases = []
    presets = ["ofc", "ofc-western", "classic", "classic-low-middle", "classic-wheel"]
    for i in range(600):
        deck = list(range(52))
        rng.shuffle(deck)
        if i % 3 == 0:  # sorted cards make many pairs, straights and flushes
            deck = sorted(deck[:20]) + deck[20:]
        names = [card_name(c) for c in deck[:13]]
        rules = rules_for(presets[i % len(presets)])
        top, middle, bottom = " ".join(names[:3]), " ".join(names[3:8]), " ".join(names[8:])
        board = parse_board(f"{top} | {middle} | {bottom}")
        mid = evaluate(board.middle, wheel=rules.wheel_rank)
        cases.append({
            "spec": rules.spec.to_dict(),
            "top": names[:3], "middle": names[3:8], "bottom": names[8:],
            "values": [evaluate3(*board.top), mid, evaluate(board.bottom, wheel=rules.wheel_rank)],
            "names": [describe(evaluate3(*board.top)), describe(mid)],
            "royalties": list(royalties(rules, board)), "fouled": is_fouled(rules, board),
        })  # fmt: skip
    page = new_page(browser)
    page.goto(server.base + "/")
    bad = page.evaluate(
        """async (cases) => {
          const E = await import('/static/js/eval.js');
          const bad = [];
          for (const c of cases) {
            const w = c.spec.scoring.wheel;
            const v = [E.evaluate(c.top, {five: false}), E.evaluate(c.middle, {wheel: w}),
                       E.evaluate(c.bottom, {wheel: w})];
            const a = E.analyseBoard(c, c.spec);
            const got = {values: v, names: [E.describe(v[0]), E.describe(v[1])],
              royalties: [a.lines.top.royalty, a.lines.middle.royalty, a.lines.bottom.royalty],
              fouled: a.fouled};
            const want = {values: c.values, names: c.names, royalties: c.royalties,
                          fouled: c.fouled};
            if (JSON.stringify(got) !== JSON.stringify(want)) bad.push({c, got});
          }
          return bad;
        }""",
        cases,
    )
    assert bad == []
    page.context.close()
