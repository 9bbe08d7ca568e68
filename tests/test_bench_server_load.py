"""``bench/bench_server_load.py`` plays every table it is asked for, and a run that
measured less (here: seats refused by the server's per-address socket limit) prints what
fell short in one line and exits 1. Each test starts one server on loopback (a few
seconds); 40 tables of one hand are more than the 32 that the default limit of 64
sockets per address seats."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _helpers import bench_module

TABLES = 40


def runs_of(err: str) -> list[dict[str, Any]]:
    """The JSON line the bench prints on stderr for each run."""
    return [json.loads(line) for line in err.splitlines() if line.startswith("{")]


def failures_of(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("bench_server_load: FAILED")]


@pytest.mark.slow
@pytest.mark.parametrize(
    "mode",
    [[], ["--think", "0.05", "--clients", "2"]],
    ids=["lock step", "human-paced, two client processes"],
)
def test_every_table_asked_for_is_played(mode: list[str], capsys: Any) -> None:
    load = bench_module("bench_server_load")
    # --cold: no wait for the server's kernels (minutes while the numba cache is rebuilt)
    argv = ["--tables", str(TABLES), "--hands", "1", "--timeout", "120", "--cold", *mode]
    status = load.main(argv)
    err = capsys.readouterr().err
    assert failures_of(err) == [] and status == 0, err[-2000:]
    (run,) = runs_of(err)
    assert run["tables_played"] == TABLES and run["hands_played"] == TABLES
    assert run["unfinished_clients"] == 0 and run["errors"] == 0
    assert run["closed_by_server"] == {}
    # Pineapple heads-up: five placements a seat in a hand (one in Fantasyland).
    assert run["actions"] == run["actions_sent"] >= 2 * TABLES


@pytest.fixture
def default_server(tmp_path: Path) -> Iterator[str]:
    """A server started as the bench starts it, but with the default socket limit."""
    load = bench_module("bench_server_load")
    proc, url = load.start_server(tmp_path / "bench.db", tmp_path / "server.log")
    try:
        yield url
    finally:
        load.stop_server(proc)
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.mark.slow
def test_a_run_that_falls_short_says_so_and_exits_1(default_server: str, capsys: Any) -> None:
    load = bench_module("bench_server_load")
    argv = ["--url", default_server, "--tables", str(TABLES), "--hands", "1", "--timeout", "60"]
    status = load.main(argv)
    err = capsys.readouterr().err
    assert status == 1
    (line,) = failures_of(err)
    # 64 sockets from one address, 16 seats refused (4429). The seats connect at once,
    # so the refusals may fall on both seats of 8 tables or spread over a few more:
    # at most 32 tables play, and the line says how many did.
    (run,) = runs_of(err)
    played = run["tables_played"]
    assert 24 <= played <= 32
    assert f"tables that played their 1 hand(s): measured {played} of {TABLES} asked" in line
    assert f"{2 * (TABLES - played)} of {2 * TABLES} seats unfinished" in line
    assert "16 x '4429 too many open connections from your address (limit 64)'" in line


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--hands", "3"], "--hands must be 1 to 2, not 3"),
        (["--tables", "0"], "--tables must be at least 1, not 0"),
        (["--clients", "0"], "--clients and --runs must be at least 1"),
        (["--sockets-per-address", "0"], "--sockets-per-address must be at least 1, not 0"),
    ],
)
def test_a_bad_argument_is_refused_in_one_line(argv: list[str], message: str, capsys: Any) -> None:
    assert bench_module("bench_server_load").main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"bench_server_load: {message}") and len(err.splitlines()) == 1


def test_the_shortfall_line_names_every_shortfall_of_a_run() -> None:
    load = bench_module("bench_server_load")
    run = {
        "hands_per_table": 2, "tables": 10, "tables_played": 10, "hands_played": 20,
        "actions": 199, "actions_sent": 200, "unfinished_clients": 0, "connections": 20,
        "errors": 1, "error_codes": {"stale": 1}, "failures": [], "closed_by_server": {},
    }  # fmt: skip
    assert load.run_shortfall(run, "run 1") == (
        "run 1: actions acknowledged (of those sent): measured 199 of 200 asked;"
        " 1 error(s) from the server (1 stale)"
    )
    whole = run | {"actions": 200, "errors": 0, "error_codes": {}}
    assert load.run_shortfall(whole, "run 1") is None


def test_a_hint_flood_that_measured_nothing_says_so() -> None:
    load = bench_module("bench_server_load")
    flood = {"hints_answered": 0, "bot_moves_alone": 0}
    assert load.flood_shortfall(flood) == (
        "hint flood: no hint was answered (the flood measured nothing); the bot table made"
        " no move without the flood (no rate to compare)"
    )
    assert load.flood_shortfall({"hints_answered": 5, "bot_moves_alone": 40}) is None
