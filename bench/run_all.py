"""Every benchmark whose figures the docs show, at the documented sizes, at one commit.

    .venv/bin/python bench/run_all.py --list            # the plan and its estimated time
    .venv/bin/python bench/run_all.py                   # the short run (~35 minutes, quiet machine)
    .venv/bin/python bench/run_all.py --budget 10       # only the benches that fit in 10 minutes
    .venv/bin/python bench/run_all.py --only evaluate scoring
    .venv/bin/python bench/run_all.py --smallest --allow-dirty   # proves the runner works

Each bench runs in its own process, one after another, with the load average read before
and after it. The results go to one JSON file (``bench/results/published.json`` for a run
at the documented sizes, committed; ``bench/results/smallest.json`` for ``--smallest``,
not to be published): the commit, whether the tree had local changes, the machine (cores,
CPU model), and per bench its command, start, seconds, load before and after, exit status,
its report (the Markdown it printed) and the figures of that report, one per table cell.
Only the whole short run writes ``published.json`` unless ``--out`` names it; ``--only``
and ``--budget`` write ``bench/results/partial.json``.
A published run then rewrites the section of docs/benchmarks.md between the markers
(:mod:`results_to_md`), so the page shows exactly that run's figures.

A bench that measured less than it says prints ``<bench>: FAILED: ...`` lines
(bench/shortfall.py); they are kept as the run's ``short`` lines, and so is a bench that
ended with an error. A missed speed target (``SLOW``) is a figure, not a failure. The
runner exits 1 when any bench fell short or failed; the file is written anyway, with the
lines, so nothing short is published without saying so.

Benches that take hours (strength over hundreds of duplicate deals) are not in the short
run: ``--list`` names them with their commands, ``--only NAME`` runs one of them into its
own file (``--out``), and their figures are separate dated runs in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = ROOT / "bench" / "results" / "published.json"
SMALLEST = ROOT / "bench" / "results" / "smallest.json"
PARTIAL = ROOT / "bench" / "results" / "partial.json"


@dataclass(frozen=True)
class Bench:
    """One command of the run: ``script`` with ``argv`` at the documented sizes, or with
    ``smallest`` under ``--smallest``; ``minutes`` is its estimated wall-clock time at the
    documented sizes on a quiet 2-core machine."""

    name: str
    script: str
    argv: str
    smallest: str
    minutes: float
    short_run: bool = True

    def command(self, smallest: bool = False) -> list[str]:
        return ["bench/" + self.script, *shlex.split(self.smallest if smallest else self.argv)]


SERVER = "bench_server_load.py"
LONG = False  # short_run=LONG: a separate dated run
BENCHES: tuple[Bench, ...] = (
    Bench("evaluate", "bench_evaluate.py", "",
          "--hands 2000 --batch 20000 --repeats 1 --out bench/results/evaluate-smallest.json",
          0.5),
    Bench("scoring", "bench_scoring.py", "",
          "--tables 4 --seconds 0.05 --rounds 1 --only classic", 3.0),
    Bench("engine", "bench_engine.py", "", "--hands 20", 0.3),
    Bench("env", "bench_env.py", "",
          "--hands 20 --repeats 1 --out bench/results/env-smallest.json", 1.0),
    Bench("fantasyland", "bench_fantasyland.py", "--deals 200 --hands 4000",
          "--deals 2 --hands 4", 2.0),
    Bench("setting", "bench_setting.py", "", "--hands 3 --deals 3 --hu-deals 3", 2.5),
    Bench("simulate", "bench_simulate.py", "--workers 1 2",
          "--hands 8 --workers 1 --repeats 1", 1.0),
    Bench("bots-times", "bench_bots.py", "--no-docs --skip-strength",
          "--no-docs --skip-strength --quick --levels 1", 2.0),
    Bench("rulebot", "bench_rulebot.py", "", "--hands 8 --deals 80", 3.0),
    Bench("cold", "bench_cold.py", "", "--quick --hands 1", 2.5),
    Bench("cold-first-run", "bench_cold.py", "--first-run", "--first-run --no-install", 5.0),
    Bench("server-lockstep", SERVER, "--target lockstep", "--tables 4 --hands 1", 1.5),
    Bench("server-human", SERVER, "--target human", "--tables 4 --hands 1 --think 0.1", 3.0),
    Bench("server-memory", SERVER, "--target memory", "--tables 4 --hands 1 --runs 2", 2.5),
    Bench("server-flood", SERVER, "--target flood", "--hint-flood --flood-seconds 2", 1.0),
    Bench("failover", "bench_failover.py", "", "--kills 1 --modes reconnect", 7.0),
    # Separate dated runs: hours of duplicate deals, or a second install (Ray).
    Bench("bots-strength", "bench_bots.py", "--no-docs --skip-times",
          "--no-docs --skip-times --quick", 20.0, LONG),
    Bench("levels", "bench_levels.py",
          "--hands 600 --seed 31000 --presets pineapple ofc --bots mc --jobs 2",
          "--hands 2 --presets pineapple --bots mc", 70.0, LONG),
    Bench("rating-anchors", "bench_rating_anchors.py", "--family open-face --deals 80 --seed 2",
          "--family classic --deals 2", 7.0, LONG),
    Bench("solver-fp", "bench_solver_fp.py", "--family classic --deals 2000 --four 400",
          "--family classic --deals 4 --four 2", 15.0, LONG),
    Bench("ray", "bench_ray.py", "--cluster", "--hands 8 --repeats 1", 3.0, LONG),
    Bench("processes", "bench_processes.py", "--tables 200 --rounds 3 --human 6000",
          "--tables 4 --hands 1 --human 0 --rounds 1", 30.0, LONG),
)  # fmt: skip
# Research benches (docs/benchmarks.md, the rounds of issue 11): each figure there is a
# separate dated run whose command is written beside it; none is in the short run.
RESEARCH = (
    "bench_mc_bots.py",
    "bench_fl_boards.py",
    "bench_mc_oracle.py",
    "bench_mc_calibration.py",
    "bench_ofc_fantasyland.py",
    "bench_value_search.py",
)
FAILED = re.compile(r"^(bench_\w+): FAILED: (.*)$")


def by_name(names: Sequence[str]) -> list[Bench]:
    known = {b.name: b for b in BENCHES}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"run_all: no bench named {', '.join(unknown)} (see --list)")
    return [known[n] for n in names]


def plan(budget: float | None, only: Sequence[str] | None) -> list[Bench]:
    """The benches to run, in order: ``only`` as named, else the short run's that fit
    ``budget`` minutes one after another."""
    if only:
        return by_name(only)
    chosen, spent = [], 0.0
    for bench in BENCHES:
        if bench.short_run and (budget is None or spent + bench.minutes <= budget):
            chosen.append(bench)
            spent += bench.minutes
    return chosen


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def machine() -> dict[str, Any]:
    model = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    versions = {}
    for module in ("numpy", "numba"):
        try:
            versions[module] = __import__(module).__version__
        except ImportError:
            versions[module] = None
    return {
        "cores": os.cpu_count(),
        "cpu": model or platform.processor(),
        "system": f"{platform.system()} {platform.release()} {platform.machine()}",
        "python": platform.python_version(),
        **versions,
    }


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip


def table_figures(report: str) -> list[dict[str, str]]:
    """Every cell of every Markdown table in ``report`` but the first column, as a
    figure: the table's first header cell, the row's first cell, the column, the value."""
    figures: list[dict[str, str]] = []
    header: list[str] = []
    for line in report.splitlines():
        if not line.startswith("|"):
            header = []
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not header:
            header = cells
        elif not all(set(c) <= set(":- ") for c in cells):
            for column, value in zip(header[1:], cells[1:], strict=False):
                figures.append({"table": header[0], "row": cells[0], "column": column,
                                "value": value})  # fmt: skip
    return figures


def run_one(bench: Bench, smallest: bool = False, timeout: float | None = None) -> dict[str, Any]:
    """Run one bench in its own process; what it printed, how long, and what fell short."""
    argv = bench.command(smallest)
    command = shlex.join([".venv/bin/python", *argv])
    print(f"== {bench.name}: {command} (about {bench.minutes:g} min)", file=sys.stderr,
          flush=True)  # fmt: skip
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    before = load_average()
    t0 = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    try:
        done = subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=timeout)  # fmt: skip
        status, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:
        status = -1
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        err = f"run_all: stopped after {timeout:g} s"
    seconds = time.perf_counter() - t0
    short = [m.group(0) for m in map(FAILED.match, err.splitlines()) if m]
    slow = any("SLOW" in line for line in err.splitlines())
    if status != 0 and not short and not slow:
        tail = " / ".join(err.strip().splitlines()[-3:])
        short.append(f"{bench.script}: FAILED: exit status {status}: {tail}")
    print(f"   {seconds:.0f} s, exit {status}" + "".join(f"\n   {s}" for s in short),
          file=sys.stderr, flush=True)  # fmt: skip
    return {
        "name": bench.name,
        "script": bench.script,
        "command": command,
        "smallest": smallest,
        "started": started,
        "seconds": round(seconds, 1),
        "load_before": before,
        "load_after": load_average(),
        "exit_status": status,
        "short": short,
        "report": out.rstrip("\n"),
        "figures": table_figures(out),
    }


def run(benches: Sequence[Bench], smallest: bool, out: Path, dirty: bool) -> dict[str, Any]:
    results: dict[str, Any] = {
        "commit": git("rev-parse", "HEAD"),
        "dirty": dirty,
        "smallest": smallest,
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": machine(),
        "load_before": load_average(),
        "runs": [],
        "separate": [
            {
                "name": b.name,
                "command": shlex.join([".venv/bin/python", *b.command()]),
                "minutes": b.minutes,
            }
            for b in BENCHES
            if not b.short_run
        ],
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    for bench in benches:
        results["runs"].append(run_one(bench, smallest))
        results["load_after"] = load_average()
        results["ended"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        # Written after every bench, so a stopped run keeps what it measured.
        out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return results


def print_plan(benches: Sequence[Bench]) -> None:
    total = sum(b.minutes for b in benches)
    print(f"{len(benches)} bench(es), about {total:.0f} minutes on a quiet 2-core machine:")
    for b in benches:
        print(f"  {b.name:16} {b.minutes:5.1f} min  {shlex.join(b.command())}")
    separate = [b for b in BENCHES if not b.short_run]
    print("Separate dated runs (not in the short run; --only NAME --out FILE):")
    for b in separate:
        print(f"  {b.name:16} {b.minutes:5.1f} min  {shlex.join(b.command())}")
    print("Research benches (each figure a dated run with its command beside it): "
          + ", ".join(RESEARCH))  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--list", action="store_true", help="print the plan and its time, run nothing")
    ap.add_argument("--budget", type=float, help="minutes: only the short run's benches that fit")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="these benches (see --list)")
    ap.add_argument("--smallest", action="store_true",
                    help="the smallest sizes: proves the runner, publishes nothing")  # fmt: skip
    defaults = f"{PUBLISHED.name} for the whole short run, {SMALLEST.name}, {PARTIAL.name}"
    ap.add_argument("--out", type=Path, help=f"results file (default: {defaults})")
    ap.add_argument("--allow-dirty", action="store_true",
                    help="run although src/ or bench/ have uncommitted changes")  # fmt: skip
    ap.add_argument("--no-docs", action="store_true", help="do not rewrite docs/benchmarks.md")
    args = ap.parse_args(argv)
    if args.budget is not None and args.only:
        ap.error("--budget chooses among the short run's benches; --only names them")
    benches = plan(args.budget, args.only)
    print_plan(benches)
    if args.list:
        return 0
    dirty = bool(git("status", "--porcelain", "--", "src", "bench", "pyproject.toml"))
    if dirty and not args.allow_dirty:
        print("run_all: src/ or bench/ have uncommitted changes: the figures would belong to "
              "no commit (commit them, or --allow-dirty for a trial)", file=sys.stderr)  # fmt: skip
        return 2
    # Only the whole short run at the documented sizes is published by default: a part of
    # it would leave the page with the figures of the benches it did not run missing.
    whole = not (args.smallest or args.only or args.budget is not None)
    out = args.out or (PUBLISHED if whole else SMALLEST if args.smallest else PARTIAL)
    results = run(benches, args.smallest, out, dirty)
    print(f"results in {out}", file=sys.stderr)
    if out == PUBLISHED and not args.no_docs:
        sys.path.insert(0, str(Path(__file__).parent))
        import results_to_md

        results_to_md.write_docs(results)
        print(f"figures written to {results_to_md.DOCS.relative_to(ROOT)}", file=sys.stderr)
    short = [line for r in results["runs"] for line in r["short"]]
    for line in short:
        print(f"run_all: FAILED: {line}", file=sys.stderr)
    return 1 if short else 0


if __name__ == "__main__":
    sys.exit(main())
