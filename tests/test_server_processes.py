"""Several ``chinese-poker serve`` processes share their limits through one Redis.

Three real processes on one SQLite file and one throwaway redis-server: tables opened
through all three, in turn, meet the one ``create`` limit the site was given; without
Redis each process counts alone and lets through three times as many (which shows the
test can fail). ``serve --redis`` with a Redis that does not answer stops in one line.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from _redis import RedisServer
from test_server_restart import Server

LIMIT = 4


def open_a_table(url: str) -> int:
    return httpx2.post(
        url + "/api/tables",
        json={"preset": "pineapple", "seats": [{"kind": "human"}, {"kind": "human"}]},
        timeout=30,
    ).status_code


def flood(servers: list[Server], requests: int) -> list[int]:
    return [open_a_table(servers[i % len(servers)].url) for i in range(requests)]


@pytest.mark.slow
@pytest.mark.parametrize("shared", [True, False], ids=["redis", "memory"])
def test_a_flood_over_all_processes_meets_one_limit(
    shared: bool, redis_server: RedisServer, tmp_path: Path
) -> None:
    database = f"sqlite:///{tmp_path / 'site.db'}"
    extra = ["--rate-limits", f"create={LIMIT}/minute"]
    if shared:
        extra += ["--redis", redis_server.url]
    servers: list[Server] = []
    try:
        for i in range(3):
            servers.append(Server(database, tmp_path / f"serve{i}.log", *extra))
        codes = flood(servers, 3 * LIMIT + 3)
    finally:
        for server in servers:
            server.stop()
    assert set(codes) <= {201, 429}, codes
    expected = LIMIT if shared else 3 * LIMIT
    assert codes.count(201) == expected, codes
    assert codes[:expected].count(201) == expected  # the first ones, then only refusals


def serve_with_redis(tmp_path: Path, redis_url: str) -> list[str]:
    """``serve`` given ``redis_url``: its error lines (it must stop, without a traceback)."""
    done = subprocess.run(
        [sys.executable, "-m", "chinese_poker.cli", "serve", "--port", "0",
         "--database-url", f"sqlite:///{tmp_path / 'x.db'}", "--redis", redis_url],
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    return done.stderr.strip().splitlines()


def test_serve_with_a_redis_that_does_not_answer_stops_in_one_line(tmp_path: Path) -> None:
    lines = serve_with_redis(tmp_path, "redis://127.0.0.1:9/0")
    assert len(lines) == 1 and "cannot reach Redis at redis://127.0.0.1:9/0" in lines[0], lines


def test_serve_with_a_bad_redis_url_stops_in_one_line(tmp_path: Path) -> None:
    lines = serve_with_redis(tmp_path, "http://nowhere")
    assert len(lines) == 1 and "bad Redis URL" in lines[0], lines
