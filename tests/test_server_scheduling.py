"""The server's deferred work (scheduling.Deferred): settlements wait for the
acknowledgements, but are never starved."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from chinese_poker.server import scheduling
from chinese_poker.server.scheduling import Deferred


def test_deferred_work_waits_while_messages_are_handled_then_runs_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(scheduling, "DEFER_QUIET", 0.3)  # long: a busy machine's sleeps
    monkeypatch.setattr(scheduling, "DEFER_MAX_WAIT", 30.0)

    async def main() -> list[str]:
        done: list[str] = []
        deferred = Deferred()
        deferred.busy()
        deferred.add(lambda: done.append("a"))
        deferred.add(lambda: done.append("b"))
        assert len(deferred) == 2
        until = time.perf_counter() + 0.5
        while time.perf_counter() < until:  # a message every 10 ms: never quiet
            deferred.busy()
            await asyncio.sleep(0.01)
            assert done == []
        deadline = time.perf_counter() + 10
        while not done and time.perf_counter() < deadline:  # quiet now
            await asyncio.sleep(0.05)
        return done

    assert asyncio.run(main()) == ["a", "b"]


def test_deferred_work_is_not_starved_by_a_steady_flow_of_messages() -> None:
    async def main() -> tuple[list[float], float]:
        ran: list[float] = []
        deferred = Deferred()
        start = time.perf_counter()
        deferred.add(lambda: ran.append(time.perf_counter() - start))
        while not ran and time.perf_counter() - start < 5:
            deferred.busy()  # never quiet
            await asyncio.sleep(0)
        return ran, start

    ran, _start = asyncio.run(main())
    assert ran and ran[0] >= scheduling.DEFER_MAX_WAIT * 0.9


def test_deferred_work_runs_in_slices_and_survives_a_failing_piece(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    slices: list[int] = []

    async def main() -> list[int]:
        done: list[int] = []
        deferred = Deferred()
        loop = asyncio.get_running_loop()
        marks: list[int] = []

        def piece(i: int) -> None:
            if i == 3:
                raise RuntimeError("boom")
            time.sleep(0.002)
            done.append(i)

        for i in range(8):
            deferred.add(lambda i=i: piece(i))  # type: ignore[misc]

        def count() -> None:  # between slices the loop runs other callbacks
            marks.append(len(done))
            if len(done) < 7:
                loop.call_soon(count)

        loop.call_soon(count)
        while len(done) < 7:
            await asyncio.sleep(0.001)
        slices.extend(sorted(set(marks)))
        return done

    monkeypatch.setattr(scheduling, "DEFER_SLICE", 0.003)
    with caplog.at_level(logging.ERROR):
        done = asyncio.run(main())
    assert done == [0, 1, 2, 4, 5, 6, 7]
    assert "deferred work failed" in caplog.text
    assert len(slices) > 2  # not all at once: the loop ran in between


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
