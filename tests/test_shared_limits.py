"""Rate-limit counts shared by server processes through Redis (server.guard.SharedCounts).

Two SharedCounts on one Redis stand for two server processes; the flood test with real
server processes is in test_server_processes.py. Redis is asked without blocking the
event loop, through one link per process (server.redis_link) with one retry state.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Awaitable, Iterator

import pytest
from limits import parse

from _redis import RedisServer
from chinese_poker.server import guard, redis_link
from chinese_poker.server.app import create_app
from chinese_poker.server.fair_share import FairShare, SharedPlaces
from chinese_poker.server.guard import Limits, RateSpec, SharedCounts
from chinese_poker.server.redis_link import RedisLink

FIVE = parse("5/minute")


def hits(counts: SharedCounts, n: int, *keys: str) -> list[bool]:
    async def run() -> list[bool]:
        return [await counts.hit(FIVE, *keys) for _ in range(n)]

    return asyncio.run(run())


def test_two_processes_count_against_one_limit(redis_server: RedisServer) -> None:
    a, b = SharedCounts(redis_server.url), SharedCounts(redis_server.url)
    assert a.shared and b.shared

    async def run() -> None:
        got = [await counts.hit(FIVE, "join", "203.0.113.7") for counts in (a, b, a, b, a, b, a)]
        assert got == [True] * 5 + [False] * 2
        assert not await a.test(FIVE, "join", "203.0.113.7")
        # Another address, and another kind, have their own counts.
        assert await b.hit(FIVE, "join", "203.0.113.8")
        assert await b.hit(FIVE, "create", "203.0.113.7")

    asyncio.run(run())


def test_memory_counts_are_per_process() -> None:
    a, b = SharedCounts(), SharedCounts()
    assert not a.shared
    assert hits(a, 6, "join", "x") == [True] * 5 + [False]
    assert hits(b, 1, "join", "x") == [True]  # the other process counts on its own


def test_limits_reads_shared_counts(redis_server: RedisServer) -> None:
    spec = RateSpec.parse("create=3/minute")
    first = Limits(spec, SharedCounts(redis_server.url))
    second = Limits(spec, SharedCounts(redis_server.url))

    async def run() -> None:
        got = [await limits.hit("create", "a") for limits in (first, second, first)]
        assert got == [True, True, True]
        assert not await second.hit("create", "a")
        assert not await first.allowed("create", "a")

    asyncio.run(run())


def test_redis_killed_then_restarted(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    clock = [1000.0]
    monkeypatch.setattr(redis_link, "retry_clock", lambda: clock[0])
    counts = SharedCounts(redis_server.url)
    assert hits(counts, 1, "join", "a") == [True]
    redis_server.kill()
    with caplog.at_level(logging.WARNING, logger="chinese_poker.server"):
        # Redis is gone: no request fails, and the limit still holds in this process.
        results = hits(counts, 6, "join", "a")
    assert results == [True] * 5 + [False]
    assert sum("Redis cannot be reached" in r.message for r in caplog.records) == 1
    redis_server.start()  # a fresh Redis: its counts start empty
    assert hits(counts, 1, "join", "a") == [False]  # still in memory until the retry time
    clock[0] += guard.REDIS_RETRY_SECONDS + 0.1
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="chinese_poker.server"):
        assert hits(counts, 1, "join", "a") == [True]  # shared again
    assert any("answers again" in r.message for r in caplog.records)
    other = SharedCounts(redis_server.url)
    assert hits(other, 5, "join", "a") == [True] * 4 + [False]


@pytest.fixture
def hanging_redis() -> Iterator[str]:
    """A Redis that takes connections and never answers (a stalled or cut-off one)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"


def slowest_tick_while(work: Awaitable[object]) -> tuple[float, float]:
    """Run ``work`` beside a 10 ms ticker: how long the work took, and the longest the
    ticker waited between two ticks (how long the event loop was held)."""

    async def run() -> tuple[float, float]:
        done = False
        gaps: list[float] = []

        async def tick() -> None:
            last = time.perf_counter()
            while not done:
                await asyncio.sleep(0.01)
                now = time.perf_counter()
                gaps.append(now - last)
                last = now

        ticker = asyncio.create_task(tick())
        start = time.perf_counter()
        await work
        took = time.perf_counter() - start
        done = True
        await ticker
        return took, max(gaps)

    return asyncio.run(run())


def test_a_hanging_redis_never_holds_the_event_loop(hanging_redis: str) -> None:
    """A throttle and a hint's place wait for a Redis that does not answer (up to its
    timeout, then count in this process), while the loop goes on serving others; the
    retry state is one for both, so the place does not wait again."""
    link = RedisLink(hanging_redis)
    counts = SharedCounts(link)
    share = FairShare(32, 2, shared=SharedPlaces(link))

    async def throttle_then_place() -> None:
        assert await counts.hit(FIVE, "join", "a")  # counted here after the timeout
        assert not link.up
        start = time.perf_counter()
        assert await share.take_admitted("10.0.0.1") is not None
        assert time.perf_counter() - start < 0.1  # Redis known down: not asked again

    took, held = slowest_tick_while(throttle_then_place())
    assert took >= redis_link.REDIS_TIMEOUT * 0.9
    assert held < 0.2, f"the event loop was held {held:.3f} s"


def test_one_link_per_process() -> None:
    """The rate limits, the sign-in throttles and both queues' places share one link."""
    app = create_app("sqlite:///:memory:", hint_processes=False, redis_url="redis://127.0.0.1:9/0")
    holdings = app.state.holdings
    places = holdings.study.places
    assert places is not None
    assert holdings.sign_ins.link is places.link and holdings.sign_ins.link is not None
    assert (
        create_app("sqlite:///:memory:", hint_processes=False).state.holdings.sign_ins.link is None
    )
