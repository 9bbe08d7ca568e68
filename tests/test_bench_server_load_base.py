"""``bench_server_load.py --base COMMIT`` (issue 38 item 5: server CPU per move against
another commit, measured in the same run): the comparison line, the refusal of what it
cannot be combined with, and a commit's package taken out of the repository without
touching the working tree."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from _helpers import bench_module

REPO = Path(__file__).resolve().parents[1]


def test_the_last_line_compares_the_medians_of_both_servers_runs() -> None:
    load = bench_module("bench_server_load")
    results = [
        {"server": "base abc1234", "server_cpu_us_per_action": cpu} for cpu in (300.0, 250.0, 240.0)
    ] + [{"server": "current", "server_cpu_us_per_action": cpu} for cpu in (100.0, 90.0, 500.0)]
    assert load.compare_cpu(results, "abc1234") == (
        "server CPU per action (median of 3 interleaved runs each): current 100.0 us,"
        " base abc1234 250.0 us: 0.40x the base's"
    )
    assert load.compare_cpu(results[:3], "abc1234") == "server CPU per action: not measured"


@pytest.mark.parametrize("other", [["--url", "http://127.0.0.1:1"], ["--hint-flood"]])
def test_base_is_refused_with_a_server_it_does_not_start(other: list[str], capsys: Any) -> None:
    assert bench_module("bench_server_load").main(["--base", "HEAD", *other]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "bench_server_load: --base starts its own servers: not with --url or --hint-flood"
    ]


def git(*args: str) -> bytes:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, check=True).stdout


def test_a_commits_package_is_extracted_from_the_repository(tmp_path: Path) -> None:
    load = bench_module("bench_server_load")
    src, short = load.commit_source("HEAD", tmp_path)
    assert short == git("rev-parse", "HEAD").decode().strip()[:7]
    assert src.is_relative_to(tmp_path)
    views = src / "chinese_poker" / "engine" / "views.py"
    assert views.read_bytes() == git("show", "HEAD:src/chinese_poker/engine/views.py")
    views.write_text("kept for the next run")
    assert load.commit_source("HEAD", tmp_path) == (src, short)  # not extracted again
    assert views.read_text() == "kept for the next run"
    with pytest.raises(SystemExit, match="--base no-such-commit"):
        load.commit_source("no-such-commit", tmp_path)


def test_each_servers_runs_are_apart_for_the_p99_and_the_targets() -> None:
    """A base commit's runs are not pooled into the current tree's p99 nor judged
    against its targets (they were, before)."""
    load = bench_module("bench_server_load")
    runs = [
        {"server": "base abc1234", "run": 1},
        {"server": "current", "run": 1},
        {"server": "base abc1234", "run": 2},
        {"server": "current", "run": 2},
    ]
    assert load.by_server(runs) == {"base": runs[0::2], "current": runs[1::2]}
    assert load.by_server([{"run": 1}]) == {"": [{"run": 1}]}


def test_several_servers_timings_are_the_slowest_ones() -> None:
    load = bench_module("bench_server_load")

    def timings(p99: float, lag: float | None, blocks: int) -> dict[str, Any]:
        return {
            "actions": {"p50_ms": 1.0, "p99_ms": p99, "max_ms": p99},
            "loop_lag": {"p99_ms": lag, "max_ms": lag},
            "gc_pauses": {"max_ms": None, "total_ms": 0},
            "allocated_blocks": blocks,
            "gc_frozen": 1,
        }

    both = load.slowest([timings(5.0, None, 10), timings(9.0, 3.0, 20)])
    assert both["actions"] == {"p50_ms": 1.0, "p99_ms": 9.0, "max_ms": 9.0}
    assert both["loop_lag"] == {"p99_ms": 3.0, "max_ms": 3.0}
    assert both["gc_pauses"] == {"max_ms": None, "total_ms": 0}
    assert (both["allocated_blocks"], both["gc_frozen"]) == (30, 2)
