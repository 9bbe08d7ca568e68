"""Simulation throughput: hands per second of ``simulate`` with 1 and 2 local workers.

Heads-up Pineapple, random against rules by default: complete sessions (button orbit,
Fantasyland carry-over), the same job for every worker count (the results are checked to
be identical). Wall time includes starting the worker processes; the CPU time of the
process and its workers shows the parallel overhead independently of other load. Run::

    .venv/bin/python bench/bench_simulate.py                 # 2000 hands, best of 2
    .venv/bin/python bench/bench_simulate.py --quick         # 400 hands, one run
    .venv/bin/python bench/bench_simulate.py --hands 5000 --workers 1 2 4 --json

The machines are shared: the load average before each run is printed next to it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time
from pathlib import Path
from typing import Any

from chinese_poker.ai.simulate import make_job, simulate
from shortfall import simulation_shortfall, verdict

OUT = Path(__file__).resolve().parent / "results" / "simulate.json"


def _cpu() -> float:
    """CPU seconds of this process plus its finished children (the workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(
    preset: str, bots: str, hands: int, workers: int, repeats: int, seed: int
) -> dict[str, Any]:
    job = make_job(preset, bots, hands=hands, seed=seed)
    best: dict[str, Any] | None = None
    summary: dict[str, Any] | None = None
    problems: list[str | None] = []
    for _ in range(repeats):
        load = os.getloadavg()[0]
        started = time.perf_counter()
        cpu_started = _cpu()
        result = simulate(job, workers=workers)
        elapsed = time.perf_counter() - started
        cpu = _cpu() - cpu_started
        summary = result.to_dict(performance=False)
        problems.append(simulation_shortfall(f"{workers} worker(s)", result, hands))
        run = {
            "workers": workers,
            "hands": result.hands,
            "sessions": result.sessions,
            "seconds": round(elapsed, 3),
            "hands_per_second": round(result.hands / elapsed, 1),
            "cpu_seconds": round(cpu, 3),
            # Hands per CPU-second of this process and its workers: equal for 1 and 2
            # workers means no parallel overhead, whatever else runs on the machine.
            "hands_per_cpu_second": round(result.hands / cpu, 1),
            "load_before": round(load, 2),
        }
        if best is None or run["hands_per_second"] > best["hands_per_second"]:
            best = run
        print(
            f"  workers={workers}: {run['hands_per_second']} hands/s (load {load:.2f})",
            file=sys.stderr,
        )
    assert best is not None and summary is not None
    best["summary"] = summary
    best["shortfalls"] = [p for p in problems if p]
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="pineapple")
    parser.add_argument("--bots", default="random,rules")
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="400 hands, one run")
    parser.add_argument("--json", action="store_true", help=f"also write {OUT}")
    args = parser.parse_args(argv)
    if args.quick:
        args.hands, args.repeats = 400, 1
    runs = [
        measure(args.rules, args.bots, args.hands, w, args.repeats, args.seed) for w in args.workers
    ]
    same = all(r["summary"] == runs[0]["summary"] for r in runs)
    base = runs[0]["hands_per_second"]
    print(
        f"{args.rules}, {args.bots}, {args.hands} hands, seed {args.seed},"
        f" {os.cpu_count()} CPUs, Python {platform.python_version()}"
    )
    print()
    print("| Workers | Hands/s (wall) | Speed-up | Seconds | Hands per CPU-s | Load before |")
    print("|---:|---:|---:|---:|---:|---:|")
    for r in runs:
        print(
            f"| {r['workers']} | {r['hands_per_second']:.1f} |"
            f" {r['hands_per_second'] / base:.2f}x | {r['seconds']:.2f} |"
            f" {r['hands_per_cpu_second']:.1f} | {r['load_before']:.2f} |"
        )
    print()
    print(f"Identical results for every worker count: {'yes' if same else 'NO'}")
    if args.json:
        OUT.parent.mkdir(exist_ok=True)
        data = {
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
            "job": {"rules": args.rules, "bots": args.bots, "hands": args.hands, "seed": args.seed},
            "runs": [
                {k: v for k, v in r.items() if k not in ("summary", "shortfalls")} for r in runs
            ],
            "identical": same,
        }
        OUT.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    problems = [p for r in runs for p in r["shortfalls"]]
    if not same:
        problems.append("the worker counts gave different results (the same job must not)")
    return verdict("bench_simulate", problems)


if __name__ == "__main__":
    sys.exit(main())
