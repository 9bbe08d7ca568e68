"""One server process against two on one PostgreSQL and one Redis (issue 38's benchmarks).

Starts a throwaway PostgreSQL and Redis (``scripts/start-postgres``,
``scripts/start-redis``: Debian's servers on loopback, nothing kept), then runs, in one
invocation and alternating (one process first, ``--rounds`` times each):

* **one process**: one ``chinese-poker serve`` on them, ``--tables`` two-player tables
  in lock step (``bench_server_load``'s saturating clients: every bot acts the moment
  its turn comes);
* **two processes**: two ``serve`` processes on the same database and Redis, twice the
  tables in lock step, each table opened on one process in turn and both of its seats
  connected to that process (the table's owner, docs/server.md "Processes").

and then, unless ``--human 0``, ``--human`` human-paced tables (think 0-2 s, one hand
each) over two processes. Prints each run's row (``bench_server_load``'s table), the
ratio of moves per second (two processes against one: medians of the rounds), the p99
of each side's round trips pooled, and the targets of issue 38: moves per second
>= 1.8x, the two processes' p99 with twice the tables no worse than one process's, and
0 errors among the human-paced tables; and each side's median server CPU per move. A
run that measured less than it was asked (a table short of its hands, a seat
unfinished, an error, an unanswered action) fails the bench (exit 1, one
``bench_processes: FAILED: ...`` line each), as a missed target does. Run::

    .venv/bin/python bench/bench_processes.py                    # 200 vs 400 tables, 6,000 human
    .venv/bin/python bench/bench_processes.py --tables 50 --human 200 --rounds 1   # quick look
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import bench_server_load as load
from shortfall import verdict

ROOT = Path(__file__).resolve().parents[1]
MOVES_RATIO = 1.8
"""Issue 38: two processes play at least this many times the moves per second of one."""


def start_service(script: str) -> tuple[str, str]:
    """Start ``scripts/<script>`` (start-postgres or start-redis): its URL and folder."""
    with tempfile.NamedTemporaryFile("r", suffix=".dir") as where:
        env = dict(os.environ, CP_PG_DIRFILE=where.name, CP_REDIS_DIRFILE=where.name)
        done = subprocess.run(
            ["bash", str(ROOT / "scripts" / script)], capture_output=True, text=True, env=env
        )
        if done.returncode != 0:
            raise SystemExit(f"bench_processes: {script} failed: {done.stderr.strip()}")
        return done.stdout.strip().splitlines()[-1], Path(where.name).read_text().strip()


def stop_service(script: str, folder: str) -> None:
    subprocess.run(["bash", str(ROOT / "scripts" / script), "--stop", folder], check=False)


class Site:
    """``count`` serve processes on one database and one Redis."""

    def __init__(
        self, count: int, database: str, redis: str, sockets: int, logs: Path, ws: str
    ) -> None:
        self.servers: list[tuple[subprocess.Popen[str], str]] = []
        for i in range(count):
            log = logs / f"serve-{count}-{i}.log"
            self.servers.append(
                load.start_server(database, log, ws, sockets, options=("--redis", redis))
            )

    @property
    def urls(self) -> list[str]:
        return [url for _proc, url in self.servers]

    @property
    def pids(self) -> list[int | None]:
        return [proc.pid for proc, _url in self.servers]

    def warm(self) -> None:
        for url in self.urls:
            load.wait_until_warm(url)

    def stop(self) -> None:
        for proc, _url in self.servers:
            load.stop_server(proc)


def play(args: argparse.Namespace, site: Site, tables: int, think: float, hands: int) -> Any:
    """One run of ``tables`` tables spread over the site's processes."""
    run_args = argparse.Namespace(**vars(args))
    run_args.tables, run_args.hands = tables, hands
    result = load.run(run_args, site.urls, think, site.pids)
    result["processes"] = len(site.servers)
    return result


def pooled_p99(runs: list[dict[str, Any]]) -> float:
    got = sorted(x for r in runs for x in r["_rtts"])
    return got[min(len(got) - 1, int(0.99 * len(got)))] * 1000 if got else float("nan")


def cpu_median(runs: list[dict[str, Any]]) -> float | None:
    """The median server CPU per move of these runs (each run's over all its processes;
    with two processes this includes both and their group-commit threads)."""
    got = [r["server_cpu_us_per_action"] for r in runs if r["server_cpu_us_per_action"]]
    return round(statistics.median(got), 1) if got else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200, help="lock-step tables per process")
    parser.add_argument("--hands", type=int, default=2, help="hands per lock-step table")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each side (default 3)")
    parser.add_argument(
        "--human", type=int, default=6000, help="human-paced tables over two processes (0: none)"
    )
    parser.add_argument("--clients", type=int, default=2, help="client processes (default 2)")
    parser.add_argument("--preset", default="pineapple")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ws", default="auto", help="serve --ws")
    parser.add_argument("--json", action="store_true", help="write bench/results/processes.json")
    args = parser.parse_args(argv)
    args.stagger = 0.0
    if args.tables < 1 or args.rounds < 1 or args.human < 0 or args.clients < 1:
        print("bench_processes: --tables, --rounds, --clients >= 1, --human >= 0", file=sys.stderr)
        return 2
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    database, pg_dir = start_service("start-postgres")
    redis, redis_dir = start_service("start-redis")
    sockets = 4 * max(2 * args.tables, args.human)
    results: list[dict[str, Any]] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            sites = {n: Site(n, database, redis, sockets, Path(tmp), args.ws) for n in (1, 2)}
            try:
                for site in sites.values():
                    site.warm()
                for i in range(args.rounds):
                    for n, site in sites.items():
                        r = play(args, site, n * args.tables, 0.0, args.hands) | {"run": i + 1}
                        results.append(r)
                        print(
                            f"round {i + 1}, {n} process(es): {r['tables']} tables,"
                            f" {r['actions_per_second']} moves/s, p99 {r['rtt_ms_p99']} ms,"
                            f" load {r['load_average_before']}",
                            file=sys.stderr,
                        )
                if args.human:
                    r = play(args, sites[2], args.human, 1.0, 1) | {"run": 1}
                    results.append(r)
            finally:
                for site in sites.values():
                    site.stop()
    finally:
        stop_service("start-redis", redis_dir)
        stop_service("start-postgres", pg_dir)
    return report(results, args, started)


def report(results: list[dict[str, Any]], args: argparse.Namespace, started: str) -> int:
    lock = [r for r in results if r["think_seconds"] == 0]
    one = [r for r in lock if r["processes"] == 1]
    two = [r for r in lock if r["processes"] == 2]
    p99_one, p99_two = pooled_p99(one), pooled_p99(two)
    for r in results:
        r.pop("_rtts", None)
    for r in results:
        r["server"] = f"{r['processes']} process(es)"
    load.print_table(results)
    ratio = statistics.median(r["actions_per_second"] for r in two) / statistics.median(
        r["actions_per_second"] for r in one
    )
    loads = [r["load_average_before"] for r in results]
    print(
        f"\n{started}, load average {min(loads)}-{max(loads)}, {os.cpu_count()} cores:"
        f"\nmoves per second, two processes against one (medians of {args.rounds} runs):"
        f" {ratio:.2f}x (target >= {MOVES_RATIO}x)"
        f"\nlock-step p99: {two[0]['tables']} tables over two processes"
        f" {p99_two:.1f} ms, {one[0]['tables']} over one {p99_one:.1f} ms"
        " (target: no worse)"
        f"\nserver CPU a move (medians): one process {cpu_median(one)} us,"
        f" two processes {cpu_median(two)} us"
    )
    human = [r for r in results if r["think_seconds"] > 0]
    for r in human:
        print(
            f"human-paced: {r['tables']} tables over two processes: {r['errors']} errors,"
            f" {r['unfinished_clients']} seats unfinished, p99 {r['rtt_ms_p99']} ms"
        )
    if args.json:
        load.RESULTS.mkdir(exist_ok=True)
        (load.RESULTS / "processes.json").write_text(json.dumps(results, indent=2) + "\n")
    problems = [
        load.run_shortfall(r, f"{r['server']}, run {r['run']} ({r['mode']})") for r in results
    ]
    if ratio < MOVES_RATIO:
        problems.append(f"moves per second {ratio:.2f}x one process's, not >= {MOVES_RATIO}x")
    if p99_two > p99_one:
        problems.append(f"p99 over two processes {p99_two:.1f} ms > {p99_one:.1f} ms over one")
    return verdict("bench_processes", problems)


if __name__ == "__main__":
    sys.exit(main())
