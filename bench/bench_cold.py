"""Benchmark of cold starts: the first decision of each command with an empty numba cache
(a fresh install) and with a warm one, and how well ``mc`` keeps a time budget.

Each command runs as its own process, as a user runs it, with ``NUMBA_CACHE_DIR`` pointing
at a fresh empty directory (cold), then again on the cache that run wrote (warm), then
once more after ``python -m chinese_poker.ai.warm`` (what an install step or CI runs).
``bot --bot mc`` is timed to its ``ready`` answer and to its first action.

The budget check plays heads-up Pineapple and OFC hands with ``mc`` at a fixed budget
(after warming) and reports how far past the budget the decisions ended, in wall-clock
time and in the process's CPU time (the difference is the machine's other load).

    .venv/bin/python bench/bench_cold.py            # ~2 minutes
    .venv/bin/python bench/bench_cold.py --quick    # budgets only
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

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "chinese_poker"]
SETTING = ["4d", "Td", "Qc", "3s", "Js", "8d", "2h", "7d", "9s", "6s", "5s", "Tc", "Jc"]
FANTASYLAND = ["As", "Ks", "Qh", "Jh", "Td", "9d", "8c", "7c", "6s", "5s", "4h", "3h", "2d", "2c"]
VIEW = str(ROOT / "examples" / "pineapple-view.json")

COMMANDS: dict[str, list[str]] = {
    "solve setting": ["solve", "setting", *SETTING],
    "solve fantasyland": ["solve", "fantasyland", *FANTASYLAND],
    "hint (level 3, Pineapple first street)": ["hint", VIEW],
    "hint --time-budget 1": ["hint", "--time-budget", "1", VIEW],
}


def _env(cache: str) -> dict[str, str]:
    return {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT / "src")}


def _timed(args: list[str], cache: str) -> tuple[float, str]:
    start = time.perf_counter()
    run = subprocess.run([*CLI, *args], env=_env(cache), capture_output=True, text=True,
                         check=True, cwd=ROOT)  # fmt: skip
    return time.perf_counter() - start, run.stderr.strip()


def _bot(cache: str) -> tuple[float, float, str]:
    """Seconds to ``ready`` and to the first action of ``chinese-poker bot --bot mc``."""
    from chinese_poker.ai.protocol import act_message
    from chinese_poker.engine import Table
    from chinese_poker.rules import rules_for

    table = Table(rules_for("pineapple"), 2, seed=5)
    view = table.view(table.to_act[0])
    start = time.perf_counter()
    proc = subprocess.Popen([*CLI, "bot", "--bot", "mc"], env=_env(cache), text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT)  # fmt: skip
    assert proc.stdin and proc.stdout and proc.stderr
    hello = {"type": "hello", "protocol": 1, "rules": view.rules.to_dict(), "seat": 0}
    proc.stdin.write(json.dumps(hello) + "\n")
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["type"] == "ready"
    ready = time.perf_counter() - start
    asked = time.perf_counter()
    proc.stdin.write(json.dumps(act_message(view, 1, 10.0)) + "\n")
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["type"] == "action"
    first = time.perf_counter() - asked
    proc.stdin.write('{"type": "quit"}\n')
    proc.stdin.close()
    proc.wait(timeout=30)
    return ready, first, proc.stderr.read().strip()


def cold_starts() -> None:
    print(
        "| command | cold cache (s) | warm cache (s) | after `python -m chinese_poker.ai.warm`"
        " (s) | notice on the cold run |\n|---|---|---|---|---|"
    )
    for name, args in COMMANDS.items():
        with tempfile.TemporaryDirectory() as cold, tempfile.TemporaryDirectory() as ahead:
            c, note = _timed(args, cold)
            w, _ = _timed(args, cold)
            subprocess.run([*CLI[:1], "-m", "chinese_poker.ai.warm"], env=_env(ahead),
                           check=True, capture_output=True)  # fmt: skip
            a, _ = _timed(args, ahead)
        print(f"| `{name}` | {c:.1f} | {w:.1f} | {a:.1f} | {'yes' if note else 'no'} |", flush=True)
    with tempfile.TemporaryDirectory() as cold, tempfile.TemporaryDirectory() as ahead:
        r0, f0, note = _bot(cold)
        r1, f1, _ = _bot(cold)
        subprocess.run([*CLI[:1], "-m", "chinese_poker.ai.warm"], env=_env(ahead),
                       check=True, capture_output=True)  # fmt: skip
        r2, f2, _ = _bot(ahead)
    said = "yes" if note else "no"
    print(f"| `bot --bot mc`: to `ready` | {r0:.1f} | {r1:.1f} | {r2:.1f} | {said} |")
    print(f"| `bot --bot mc`: `ready` to first action | {f0:.2f} | {f1:.2f} | {f2:.2f} | |")


def budgets(hands: int) -> None:
    from chinese_poker.ai.mc import MonteCarloBot
    from chinese_poker.ai.warm import warm_kernels
    from chinese_poker.engine import Table
    from chinese_poker.rules import rules_for

    warm_kernels()
    print(
        "\n| preset | budget (ms) | decisions | median over (ms) | p99 over (ms) |"
        " max over (ms) | max over in CPU time (ms) |\n|---|---|---|---|---|---|---|"
    )
    for preset in ("pineapple", "ofc"):
        for budget in (0.1, 0.02):
            over: list[float] = []
            cpu_over: list[float] = []
            for seed in range(hands):
                table = Table(rules_for(preset), 2, seed=seed)
                bots = [MonteCarloBot(seed=2 * seed + i, level=5, time_budget=budget)
                        for i in range(2)]  # fmt: skip
                while not table.over:
                    seat = table.to_act[0]
                    view = table.view(seat)
                    start, cpu = time.monotonic(), time.process_time()
                    action = bots[seat].act(view)
                    over.append((time.monotonic() - start - budget) * 1000)
                    cpu_over.append((time.process_time() - cpu - budget) * 1000)
                    table.apply(action)
            over.sort()
            cpu_over.sort()
            p99 = over[min(len(over) - 1, int(0.99 * len(over)))]
            print(f"| {preset} | {budget * 1000:.0f} | {len(over)} | "
                  f"{statistics.median(over):+.1f} | {p99:+.1f} | {over[-1]:+.1f} | "
                  f"{cpu_over[-1]:+.1f} |",
                  flush=True)  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="only the budget check")
    ap.add_argument("--hands", type=int, default=10, help="hands per budget check")
    args = ap.parse_args()
    if not args.quick:
        cold_starts()
    budgets(args.hands)


if __name__ == "__main__":
    main()
