"""A first run never waits on numba's compiler (issue 39): the server's address is shown
once it accepts connections, decisions asked for while the open-face kernels are cold are
answered at once by a cheaper exact method, and the study desk's and the hint's workers
are never restarted cold while a request waits. By construction (a fake cold state), not
by timing."""

from __future__ import annotations

import asyncio
import fcntl
import io
import math
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chinese_poker.ai import warm
from chinese_poker.ai.hints import hint
from chinese_poker.ai.mc import MonteCarloBot
from chinese_poker.ai.simple import RuleBot
from chinese_poker.cli import build_parser
from chinese_poker.cli import serve as serve_command
from chinese_poker.engine import Table
from chinese_poker.engine.position import parse_position
from chinese_poker.engine.views import View
from chinese_poker.rules import rules_for
from chinese_poker.server import scheduling
from chinese_poker.server.desk import StudyPool, hint_position
from chinese_poker.server.scheduling import warm_worker
from chinese_poker.server.tables import make_server_bot

POSITION = (Path(__file__).resolve().parent.parent / "examples" / "positions"
            / "pineapple-street3.txt").read_text()  # fmt: skip


class _Stop(Exception):
    """Raised by the fake ``print`` once the address line was checked."""


def test_the_address_is_printed_only_once_the_server_accepts_connections(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    connected: list[bool] = []

    def fake_print(*values: Any, **_: Any) -> None:
        text = " ".join(str(v) for v in values)
        if "open http://" not in text:
            return
        port = int(text.split("open http://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
        try:
            # At the moment the line is shown, a browser opening it must be let in.
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            connected.append(True)
        except OSError:
            connected.append(False)
        raise _Stop

    monkeypatch.setattr(serve_command, "print", fake_print, raising=False)
    args = build_parser().parse_args(
        ["serve", "--port", "0", "--database-url", f"sqlite:///{tmp_path / 'cp.db'}"]
    )
    with pytest.raises(_Stop):
        serve_command.run(args)
    assert connected == [True]


# --------------------------------------------------------------------------- a fake cold state


@pytest.fixture
def cold(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[threading.Event]:
    """The open-face kernels "compiling" in this process: their warmer reports a numba
    compilation and then blocks until the returned event is set (at the latest when the
    test ends). The other families are warm; the lock files live in ``tmp_path``."""
    from numba.core import event

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(warm, "_done", {p for p in warm.PARTS if p != warm.OPEN_FACE})
    monkeypatch.setattr(warm, "_compiling", set())
    release = threading.Event()

    def compiling_open_face() -> None:
        event.start_event("numba:compile", data={"dispatcher": None, "args": ()})  # type: ignore[no-untyped-call]
        waited = not release.wait(60)  # the test is over by then, unless it waits here
        event.end_event("numba:compile", data={"dispatcher": None, "args": ()})  # type: ignore[no-untyped-call]
        if waited:
            raise RuntimeError("a decision waited for the compilation")

    monkeypatch.setitem(warm._WARMERS, warm.OPEN_FACE, compiling_open_face)
    yield release
    release.set()
    # The background warming ends before the fake state is undone.
    for thread in threading.enumerate():
        if thread.name == "warm-kernels":
            thread.join(30)


def _street_view(seed: int = 4) -> View:
    table = Table(rules_for("pineapple"), 2, seed=seed)
    return table.view(table.to_act[0])


def test_a_bot_at_a_server_table_plays_the_rules_bot_while_cold_and_mc_once_warm(
    cold: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = _street_view()
    bot = make_server_bot("mc", 1, 7)
    assert isinstance(bot, warm.UntilWarm) and bot.name == "mc" and bot.level == 1
    assert bot.act(view) == RuleBot(seed=7).act(view) and bot.quick_decisions == 1
    monkeypatch.setattr(warm, "_done", set(warm.PARTS))  # warm: exactly the mc bot's choice
    assert bot.act(view) == MonteCarloBot(seed=7, level=1).act(view)
    assert bot.quick_decisions == 1
    assert not isinstance(make_server_bot("rules", None, 7), warm.UntilWarm)


def test_a_hint_while_the_kernels_compile_is_the_rules_bots_legal_action(
    cold: threading.Event,
) -> None:
    table = Table(rules_for("pineapple"), 2, seed=4)
    view = table.view(table.to_act[0])
    entries = hint(view, level=1, when_cold="quick")
    assert len(entries) == 1 and entries[0].quick
    assert entries[0].action in table.legal_actions(table.to_act[0])
    shown = entries[0].to_dict()
    assert shown["value"] is None and shown["foul_probability"] is None and shown["quick"]
    assert math.isnan(entries[0].value)
    # The compilation is still going on in the background, and is not waited for again.
    assert warm.OPEN_FACE in warm._compiling and not warm.is_warm((warm.OPEN_FACE,))
    desk = hint_position(parse_position(POSITION), 1, 0, 1.0)
    assert desk["options"] == 1 and desk["hints"][0]["interval"] is None
    cold.set()


def test_a_worker_starts_warm_for_the_solvers_and_does_not_wait_for_open_face(
    cold: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(warm, "_done", set())  # every family cold; only open-face compiles
    started = threading.Thread(target=warm_worker, daemon=True)
    started.start()
    started.join(60)  # the old worker warmed everything first: it would still be waiting
    assert not started.is_alive()
    assert warm.is_warm(("setting", "fantasyland")) and not warm.is_warm((warm.OPEN_FACE,))
    cold.set()
    for _ in range(600):
        if warm.is_warm((warm.OPEN_FACE,)):
            break
        threading.Event().wait(0.05)
    assert warm.is_warm((warm.OPEN_FACE,))


def test_a_process_waits_for_another_compiling_the_same_family_then_loads(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(warm, "_done", set())
    monkeypatch.setattr(warm, "_compiling", set())
    ran: list[str] = []
    monkeypatch.setitem(warm._WARMERS, "setting", lambda: ran.append("setting"))
    with open(warm._lock_path("setting"), "a") as other:  # another process compiles
        fcntl.flock(other, fcntl.LOCK_EX)
        other.write(warm.COMPILING)
        other.flush()
        assert warm.warm_unless_compiling(("setting",)) is False
        assert ran == [] and "setting" in warm._compiling
        other.truncate(0)
        fcntl.flock(other, fcntl.LOCK_UN)
    for _ in range(600):
        if warm.is_warm(("setting",)):
            break
        threading.Event().wait(0.05)
    assert ran == ["setting"] and warm.warm_unless_compiling(("setting",)) is True


def test_a_process_that_only_loads_is_waited_for(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Another process holding the lock without compiling (loading from the cache, a
    second or so) is no reason for a quick answer: the many hint commands of a test run
    would otherwise all have answered quickly."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(warm, "_done", set())
    monkeypatch.setattr(warm, "_compiling", set())
    monkeypatch.setitem(warm._WARMERS, "setting", lambda: None)
    answers: list[bool] = []
    with open(warm._lock_path("setting"), "a") as other:
        fcntl.flock(other, fcntl.LOCK_EX)
        asking = threading.Thread(
            target=lambda: answers.append(warm.warm_unless_compiling(("setting",)))
        )
        asking.start()
        asking.join(0.5)
        assert answers == []  # still waiting for the lock
        fcntl.flock(other, fcntl.LOCK_UN)
    asking.join(60)
    assert answers == [True]


def test_a_study_request_budget_runs_from_its_start_not_from_the_queue() -> None:
    pool = StudyPool(threads=1)
    release = threading.Event()

    def long_request() -> str:
        release.wait(30)
        return "long"

    async def both() -> list[Any]:
        first = asyncio.ensure_future(pool.run(long_request, budget=30.0))
        await asyncio.sleep(0.05)
        # Asked while the only worker is busy: on the old pool its budget (and the grace
        # of 1 s) ran out while it waited, and it was answered 503.
        second = asyncio.ensure_future(pool.run(str, "short", budget=0.01))
        await asyncio.sleep(2.0)
        release.set()
        return list(await asyncio.gather(first, second, return_exceptions=True))

    try:
        assert asyncio.run(both()) == ["long", "short"]
    finally:
        pool.close()


def test_play_suggests_the_rules_bots_choice_while_the_kernels_compile(
    cold: threading.Event,
) -> None:
    from rich.console import Console

    from chinese_poker.terminal.game import Game, GameConfig

    config = GameConfig(rules_for("pineapple"), title="pineapple", seed=3)
    game = Game(config, console=Console(file=io.StringIO()), input_fn=lambda *_: "q")
    table = Table(rules_for("pineapple"), 2, seed=4)
    view = table.view(table.to_act[0])
    action, note = game._suggest(table, view, view.decisions[0])
    assert note == "the rules bot's choice"
    assert action is not None and table.check(action) is None


def test_a_study_worker_still_compiling_keeps_the_grace_of_its_start(
    cold: threading.Event,
) -> None:
    """A worker whose kernels are not all loaded yet (compiling in its background) is
    not stopped for a request that ran over its budget meanwhile (it was slow because of
    the compiling, and a fresh worker would have to start it again): the grace of a
    worker's start lasts until it is warm. The rule for worker processes, on a thread
    whose process is cold by construction."""
    pool = StudyPool(threads=1)
    pool.processes = True

    def slow() -> str:
        threading.Event().wait(1.5)  # longer than the 1 s grace of a warm worker
        return "slow"

    async def both() -> list[str]:
        first = await pool.run(str, "first", budget=1.0)
        second = await pool.run(slow, budget=0.01)
        return [first, second]

    try:
        assert asyncio.run(both()) == ["first", "slow"]
    finally:
        pool.close()


def test_the_servers_warm_up_holds_no_bot_thread_while_the_worker_compiles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server's own load of the kernels waits for the hint worker's compiling (a
    minute or more on a fresh machine); the bots' moves go on meanwhile, in every one of
    their threads (the rules bot moving for mc)."""
    entered, release = threading.Event(), threading.Event()

    def compiling_elsewhere() -> None:
        entered.set()
        release.wait(120)

    monkeypatch.setattr(scheduling, "_warm_kernels", compiling_elsewhere)
    workers = scheduling.Workers(bot_threads=1, hint_processes=True)
    try:
        workers.warm()
        assert entered.wait(240)  # the worker is up; the server's load has begun

        async def move() -> str:
            return await asyncio.wait_for(workers.bot(str, "moved"), 60)

        assert asyncio.run(move()) == "moved"
        assert not workers.kernels_warm.is_set()
        release.set()
        assert workers.kernels_warm.wait(60)
    finally:
        release.set()
        workers.close()
