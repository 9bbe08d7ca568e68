"""Rate-limit counts shared by server processes through Redis (server.guard.SharedCounts).

Two SharedCounts on one Redis stand for two server processes; the flood test with real
server processes is in test_server_processes.py.
"""

from __future__ import annotations

import logging

import pytest
from limits import parse

from _redis import RedisServer
from chinese_poker.server import guard
from chinese_poker.server.guard import Limits, RateSpec, SharedCounts

FIVE = parse("5/minute")


def test_two_processes_count_against_one_limit(redis_server: RedisServer) -> None:
    a, b = SharedCounts(redis_server.url), SharedCounts(redis_server.url)
    assert a.shared and b.shared
    hits = [counts.hit(FIVE, "join", "203.0.113.7") for counts in (a, b, a, b, a, b, a)]
    assert hits == [True] * 5 + [False] * 2
    assert not a.test(FIVE, "join", "203.0.113.7")
    # Another address, and another kind, have their own counts.
    assert b.hit(FIVE, "join", "203.0.113.8")
    assert b.hit(FIVE, "create", "203.0.113.7")


def test_memory_counts_are_per_process() -> None:
    a, b = SharedCounts(), SharedCounts()
    assert not a.shared
    assert [a.hit(FIVE, "join", "x") for _ in range(5)] == [True] * 5
    assert not a.hit(FIVE, "join", "x")
    assert b.hit(FIVE, "join", "x")  # the other process counts on its own


def test_limits_reads_shared_counts(redis_server: RedisServer) -> None:
    spec = RateSpec.parse("create=3/minute")
    first = Limits(spec, SharedCounts(redis_server.url))
    second = Limits(spec, SharedCounts(redis_server.url))
    assert [first.hit("create", "a"), second.hit("create", "a"), first.hit("create", "a")] == [
        True,
        True,
        True,
    ]
    assert not second.hit("create", "a")
    assert not first.allowed("create", "a")


def test_redis_killed_then_restarted(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    clock = [1000.0]
    monkeypatch.setattr(guard.time, "monotonic", lambda: clock[0])
    counts = SharedCounts(redis_server.url)
    assert counts.hit(FIVE, "join", "a")
    redis_server.kill()
    with caplog.at_level(logging.WARNING, logger="chinese_poker.server"):
        # Redis is gone: no request fails, and the limit still holds in this process.
        results = [counts.hit(FIVE, "join", "a") for _ in range(6)]
    assert results == [True] * 5 + [False]
    assert any("Redis cannot be reached" in r.message for r in caplog.records)
    assert sum("Redis cannot be reached" in r.message for r in caplog.records) == 1
    redis_server.start()  # a fresh Redis: its counts start empty
    assert not counts.hit(FIVE, "join", "a")  # still in memory until the retry time
    clock[0] += guard.REDIS_RETRY_SECONDS + 0.1
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="chinese_poker.server"):
        assert counts.hit(FIVE, "join", "a")  # shared again
    assert any("answers again" in r.message for r in caplog.records)
    other = SharedCounts(redis_server.url)
    assert [other.hit(FIVE, "join", "a") for _ in range(5)] == [True] * 4 + [False]
