"""The server's deferred work (scheduling.Deferred): settlements wait for the
acknowledgements, but are never starved."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace
from typing import Any

import pytest

from _helpers import FakeClock
from chinese_poker.server import scheduling
from chinese_poker.server.scheduling import Deferred


def stopped_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """The deferred work's clock, moved only by the test: how quiet the loop has been and
    how long a piece has waited are what the test says, however slowly the machine runs
    the loop (its timers still fire on the loop's real clock)."""
    clock = FakeClock()
    monkeypatch.setattr(scheduling, "time", SimpleNamespace(perf_counter=clock))
    return clock


async def until_done(done: list[Any], count: int = 1) -> None:
    """Let the loop run until ``done`` has ``count`` entries (a generous bound on the wait)."""
    for _ in range(10_000):
        if len(done) >= count:
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"the deferred work never ran: {done}")


def test_deferred_work_waits_while_messages_are_handled_then_runs_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = stopped_clock(monkeypatch)
    monkeypatch.setattr(scheduling, "DEFER_MAX_WAIT", 30.0)

    async def main() -> list[str]:
        done: list[str] = []
        deferred = Deferred()
        deferred.busy()
        deferred.add(lambda: done.append("a"))
        deferred.add(lambda: done.append("b"))
        assert len(deferred) == 2
        for _ in range(200):  # a message every half quiet period: never quiet
            clock.now += scheduling.DEFER_QUIET / 2
            deferred.busy()
            await asyncio.sleep(scheduling.DEFER_QUIET)  # its timer does fire, and waits on
            assert done == []
        clock.now += 2 * scheduling.DEFER_QUIET  # quiet now
        await until_done(done, 2)
        return done

    assert asyncio.run(main()) == ["a", "b"]


def test_deferred_work_is_not_starved_by_a_steady_flow_of_messages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = stopped_clock(monkeypatch)

    async def main() -> list[float]:
        ran: list[float] = []
        deferred = Deferred()
        added = clock.now
        deferred.add(lambda: ran.append(clock.now - added))
        for _ in range(10_000):
            if ran:
                break
            clock.now += scheduling.DEFER_QUIET / 2
            deferred.busy()  # never quiet
            await asyncio.sleep(scheduling.DEFER_QUIET / 2)
        return ran

    ran = asyncio.run(main())
    assert ran, "starved"
    # Never quiet, so it ran because it had waited DEFER_MAX_WAIT (and not before).
    assert ran[0] >= scheduling.DEFER_MAX_WAIT


def test_deferred_work_runs_in_slices_and_survives_a_failing_piece(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = stopped_clock(monkeypatch)
    slices: list[int] = []

    async def main() -> list[int]:
        done: list[int] = []
        deferred = Deferred()
        loop = asyncio.get_running_loop()
        marks: list[int] = []

        def piece(i: int) -> None:
            if i == 3:
                raise RuntimeError("boom")
            clock.now += 0.002  # each piece takes 2 ms: a slice of 3 ms holds two
            done.append(i)

        for i in range(8):
            deferred.add(lambda i=i: piece(i))  # type: ignore[misc]

        def count() -> None:  # between slices the loop runs other callbacks
            marks.append(len(done))
            if len(done) < 7:
                loop.call_soon(count)

        loop.call_soon(count)
        await until_done(done, 7)
        slices.extend(sorted(set(marks)))
        return done

    monkeypatch.setattr(scheduling, "DEFER_SLICE", 0.003)
    with caplog.at_level(logging.ERROR):
        done = asyncio.run(main())
    assert done == [0, 1, 2, 4, 5, 6, 7]
    assert "deferred work failed" in caplog.text
    assert slices == [2, 4, 6, 7]  # two pieces a slice (the failing one took no time)


def test_drain_runs_everything_now() -> None:
    async def main() -> list[int]:
        done: list[int] = []
        deferred = Deferred()
        deferred.busy()
        for i in range(3):
            deferred.add(lambda i=i: done.append(i))  # type: ignore[misc]
        deferred.drain()
        assert len(deferred) == 0
        await asyncio.sleep(scheduling.DEFER_QUIET * 3)
        return done

    assert asyncio.run(main()) == [0, 1, 2]
