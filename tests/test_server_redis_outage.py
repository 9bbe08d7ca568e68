"""Redis killed and restarted mid-play, at the server level (issue 38, hostile tests).

Three real ``chinese-poker serve`` processes on one database (PostgreSQL when
``CHINESE_POKER_TEST_POSTGRES_URL`` names one, else an SQLite file) and one throwaway
redis-server. Two people and a bot play a table, each person on a process picked at
random (following ``moved``). Redis is killed (SIGKILL) right after an action was sent:

* play goes on (a move needs no Redis): nothing is refused for the outage, no request
  answers 500, no traceback is logged; each process counts its limits alone meanwhile
  (a flood of reads spread over the three meets three limits, not one);
* Redis is started again on the same port: once its retry interval has passed, every
  process counts in it again (the same flood meets one limit), and the stored history,
  which a fresh process rebuilds, holds every acknowledged action exactly once.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx2
import pytest

from _redis import RedisServer
from chinese_poker.server.redis_link import REDIS_RETRY_SECONDS
from test_server_failover import (
    People,
    check_nothing_lost_or_doubled,
    open_table,
    stored_people_actions,
)
from test_server_restart import Server, own_postgres_database

READS = 6
"""The read limit per minute the site is given (reads are what the flood sends)."""


@pytest.fixture
def database_url(tmp_path: Path) -> Iterator[str]:
    """PostgreSQL if the tests were given one (as the other multi-process tests), else
    an SQLite file every process opens."""
    import os

    if os.environ.get("CHINESE_POKER_TEST_POSTGRES_URL"):
        with own_postgres_database("cp_redis_outage") as url:
            yield url
    else:
        yield f"sqlite:///{tmp_path / 'site.db'}"


def read_flood(servers: list[Server], table_id: str, requests: int) -> list[int]:
    """GET the table ``requests`` times, over the processes in turn: the status codes."""
    return [
        httpx2.get(f"{servers[i % len(servers)].url}/api/tables/{table_id}", timeout=30).status_code
        for i in range(requests)
    ]


def play(people: People, servers: list[Server], table_id: str, moves: int) -> None:
    with ExitStack() as stack:
        people.sit(stack, servers, table_id)
        for _ in range(moves):
            people.progress()


@pytest.mark.slow
def test_redis_killed_and_restarted_mid_play(
    database_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    rng = random.Random(2026)
    extra = ("--lease-seconds", "2", "--redis", redis_server.url,
             "--rate-limits", f"read={READS}/minute")  # fmt: skip
    logs = [tmp_path / f"serve{i}.log" for i in range(3)]
    servers = [Server(database_url, log, *extra) for log in logs]
    try:
        table_id, people = open_table(servers[0], rng)  # type: ignore[arg-type]
        play(people, servers, table_id, 4)
        with ExitStack() as stack:
            people.sit(stack, servers, table_id)
            chair = people.to_act()
            if chair is not None:
                people.send(chair)  # Redis dies right after it: stored or not
            redis_server.kill()
            killed = time.monotonic()
            people.progress()
            for _ in range(4):
                people.progress()
        play(people, servers, table_id, 4)  # reconnecting anywhere meanwhile
        # Each process counts alone: the flood meets one limit per process.
        codes = read_flood(servers, table_id, 3 * READS + 3)
        assert set(codes) <= {200, 409, 429}, codes  # 409: asked of a process not its owner
        assert codes.count(429) == 3, codes
        redis_server.start()  # the same port, empty: the counts start again
        time.sleep(REDIS_RETRY_SECONDS + 0.5)
        recovered = time.monotonic() - killed
        codes = read_flood(servers, table_id, 3 * READS + 3)
        assert codes.count(429) == 2 * READS + 3, codes  # one limit for the three again
        play(people, servers, table_id, 4)
    finally:
        for server in servers:
            server.stop()
    stored = stored_people_actions(database_url, table_id, people.seats)
    check_nothing_lost_or_doubled(people, stored)
    assert len(people.acked) >= 5  # the people's own (the bot made the other moves)
    for log in logs:
        text = log.read_text()
        assert "Traceback" not in text and " 500 " not in text, text[-3000:]
    assert any("Redis cannot be reached" in log.read_text() for log in logs)
    assert any("Redis answers again" in log.read_text() for log in logs)
    # The history as stored is one the engine takes: a fresh process rebuilds the table.
    fresh = Server(database_url, tmp_path / "fresh.log", "--lease-seconds", "2")
    try:
        deadline = time.monotonic() + 10
        while (
            got := httpx2.get(f"{fresh.url}/api/tables/{table_id}", timeout=30)
        ).status_code == 409:
            assert time.monotonic() < deadline, got.text
            time.sleep(0.2)
        assert got.status_code == 200, got.text
    finally:
        fresh.stop()
    print(f"redis outage: shared again {recovered:.1f} s after the kill")
