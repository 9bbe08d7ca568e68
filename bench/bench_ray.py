"""Ray throughput: what ``--engine ray`` costs to start and how it scales with workers.

The same job (heads-up Pineapple, random against rules by default) is played

* in this process (the reference, ``engine="local"``, one worker, after a first run);
* on a local Ray instance with 1, then 2 workers: the first call pays Ray's start-up,
  the later ones reuse the running instance (as every simulate() call of a program does);
* with ``--cluster``, on a two-node cluster (``ray.cluster_utils.Cluster``, one CPU per
  node, loopback), the driver joining it with ``address=``.

Every run's summary is checked to be identical to the reference. Ray runs with token
authentication and a throwaway token (nothing is written to ``~/.ray``). Run::

    .venv/bin/python bench/bench_ray.py                  # 1000 hands
    .venv/bin/python bench/bench_ray.py --cluster --json # also the two-node cluster

The machines are shared: the load average before each run is printed next to it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import secrets
import sys
import time
from pathlib import Path
from typing import Any

from chinese_poker.ai.simulate import Job, make_job, simulate
from shortfall import simulation_shortfall, verdict

OUT = Path(__file__).resolve().parent / "results" / "ray.json"


def _token_auth() -> None:
    """Ray's token authentication with a fresh token, and loopback addresses kept."""
    os.environ.setdefault("RAY_AUTH_MODE", "token")
    os.environ.setdefault("RAY_AUTH_TOKEN", secrets.token_hex(16))
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    from ray._raylet import Config

    Config.initialize("")


def _run(
    label: str, job: Job, reference: dict[str, Any], repeats: int = 1, **kwargs: Any
) -> dict[str, Any]:
    """The best of ``repeats`` runs (the machine is shared: the best is the least
    disturbed); every run's summary must equal ``reference``."""
    rows = [_once(label, job, reference, **kwargs) for _ in range(repeats)]
    best = max(rows, key=lambda row: float(row["hands_per_second"]))
    short = [row["shortfall"] for row in rows if row["shortfall"]]
    return {**best, "identical": all(row["identical"] for row in rows), "shortfall": short}


def _once(label: str, job: Job, reference: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    load = os.getloadavg()[0]
    started = time.perf_counter()
    result = simulate(job, **kwargs)
    wall = time.perf_counter() - started
    same = result.to_dict(performance=False) == reference
    row = {
        "run": label,
        "workers": result.workers,
        "nodes": len(result.nodes),
        "seconds": round(wall, 2),
        "hands_per_second": round(result.hands / wall, 1),
        "identical": same,
        "load_before": round(load, 2),
        "shortfall": simulation_shortfall(label, result, job.hands),
    }
    print(f"  {label}: {row['hands_per_second']} hands/s, {wall:.2f} s (load {load:.2f})",
          file=sys.stderr)  # fmt: skip
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="pineapple")
    parser.add_argument("--bots", default="random,rules")
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=2, help="best of N warm runs")
    parser.add_argument("--cluster", action="store_true", help="also a two-node cluster")
    parser.add_argument("--json", action="store_true", help=f"also write {OUT}")
    args = parser.parse_args(argv)
    _token_auth()
    import ray

    job = make_job(args.rules, args.bots, hands=args.hands, seed=args.seed)
    # The same job twice, timing the second: warm caches, as in the Ray runs below (each
    # Ray worker keeps its process, and with it its caches, from one call to the next).
    reference = simulate(job)
    problems = [simulation_shortfall("in this process", reference, args.hands)]
    base = 0.0
    for _ in range(args.repeats):
        started = time.perf_counter()
        simulate(job)
        base = max(base, args.hands / (time.perf_counter() - started))
    rows: list[dict[str, Any]] = [
        {"run": "in this process (engine local)", "workers": 1, "nodes": 0,
         "seconds": round(args.hands / base, 2), "hands_per_second": round(base, 1),
         "identical": True, "load_before": round(os.getloadavg()[0], 2)},
    ]  # fmt: skip
    ref = reference.to_dict(performance=False)
    rows.append(_run("local Ray, 1 worker, first call (starts Ray)", job, ref,
                     engine="ray", workers=1))  # fmt: skip
    n = args.repeats
    rows.append(_run("local Ray, 1 worker", job, ref, n, engine="ray", workers=1))
    rows.append(_run("local Ray, 2 workers", job, ref, n, engine="ray", workers=2))
    ray.shutdown()
    if args.cluster:
        from ray.cluster_utils import Cluster

        where = {"node_ip_address": "127.0.0.1", "num_cpus": 1}
        head = {**where, "include_dashboard": False}
        cluster = Cluster(initialize_head=True, head_node_args=head)
        try:
            cluster.add_node(**where)
            cluster.wait_for_nodes()
            rows.append(_run("two-node cluster, first call (connects)", job, ref,
                             engine="ray", address=cluster.address))  # fmt: skip
            address = cluster.address
            rows.append(_run("two-node cluster", job, ref, n, engine="ray", address=address))
            ray.shutdown()
        finally:
            cluster.shutdown()
    print(
        f"{args.rules}, {args.bots}, {args.hands} hands, seed {args.seed},"
        f" {os.cpu_count()} CPUs, Python {platform.python_version()}, Ray {ray.__version__}"
    )
    print()
    print("| Run | Workers | Nodes | Seconds | Hands/s | vs. in-process | Same result | Load |")
    print("|---|---:|---:|---:|---:|---:|:---:|---:|")
    for r in rows:
        print(f"| {r['run']} | {r['workers']} | {r['nodes'] or '-'} | {r['seconds']:.2f} |"
              f" {r['hands_per_second']:.1f} | {r['hands_per_second'] / base:.2f}x |"
              f" {'yes' if r['identical'] else 'NO'} | {r['load_before']:.2f} |")  # fmt: skip
    if args.json:
        OUT.parent.mkdir(exist_ok=True)
        data = {
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                        "ray": ray.__version__},
            "job": {"rules": args.rules, "bots": args.bots, "hands": args.hands,
                    "seed": args.seed},
            "runs": rows,
        }  # fmt: skip
        OUT.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    for r in rows[1:]:
        problems += r["shortfall"]
        if not r["identical"]:
            problems.append(f"{r['run']}: a result differs from the one in this process")
    return verdict("bench_ray", problems)


if __name__ == "__main__":
    sys.exit(main())
