"""``bench/bench_processes.py`` (issue 38: one server process against two): its verdict
holds the runs to the issue's targets and fails a run that measured less than asked."""

from __future__ import annotations

import argparse
from typing import Any

from _helpers import bench_module


def run(processes: int, per_second: float, rtts: list[float], **more: Any) -> dict[str, Any]:
    tables = more.pop("tables", 10 * processes)
    return {
        "mode": "saturating" if not more.get("think_seconds") else "human-paced",
        "think_seconds": 0.0,
        "stagger_seconds": 0.0,
        "processes": processes,
        "run": 1,
        "tables": tables,
        "connections": 2 * tables,
        "actions": 10 * tables,
        "actions_sent": 10 * tables,
        "actions_per_second": per_second,
        "tables_played": tables,
        "hands_played": tables,
        "hands_per_table": 1,
        "unfinished_clients": 0,
        "errors": 0,
        "error_codes": {},
        "failures": [],
        "closed_by_server": {},
        "_rtts": rtts,
        "rtt_ms_p50": 1.0,
        "rtt_ms_p99": 1.0,
        "rtt_ms_max": 1.0,
        "server_cpu_us_per_action": 100.0,
        "client_cpu_us_per_action": 10.0,
        "load_average_before": 1.0,
        "server_rss_mib": 1.0,
        "server_action_ms_p50": 1.0,
        "server_action_ms_p99": 1.0,
        "server_loop_lag_ms_p99": 1.0,
        "server_gc_pause_ms_max": None,
        "client_loop_lag_ms_p99": 1.0,
    } | more


def verdict(results: list[dict[str, Any]], capsys: Any) -> tuple[int, list[str]]:
    bench = bench_module("bench_processes")
    status = bench.report(results, argparse.Namespace(rounds=1, json=False), "now")
    failed = [x for x in capsys.readouterr().err.splitlines() if "FAILED" in x]
    return status, failed


def test_two_processes_meeting_the_targets_pass(capsys: Any) -> None:
    results = [run(1, 1000.0, [0.05] * 100), run(2, 1900.0, [0.04] * 100)]
    results.append(run(2, 50.0, [0.01], think_seconds=1.0, tables=6000))
    assert verdict(results, capsys) == (0, [])


def test_too_few_moves_a_worse_p99_or_an_error_fail(capsys: Any) -> None:
    results = [run(1, 1000.0, [0.05] * 100), run(2, 1700.0, [0.06] * 100, errors=1)]
    status, failed = verdict(results, capsys)
    assert status == 1
    assert [line.split(": ", 2)[2][:22] for line in failed] == [
        "2 process(es), run 1 (",
        "moves per second 1.70x",
        "p99 over two processes",
    ]
