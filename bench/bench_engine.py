"""Engine speed: complete random-legal hands per second on one core.

Each hand: a fresh table (shuffle from a seed and the canonical deal), every action drawn
by ``Table.random_action`` and applied through the full legality check, and the
settlement at the showdown. Run::

    .venv/bin/python bench/bench_engine.py              # the two reference tables
    .venv/bin/python bench/bench_engine.py --all --hands 2000 --json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from chinese_poker.engine import Table
from chinese_poker.rules import preset_names, rules_for

sys.path.insert(0, str(Path(__file__).parent))
from shortfall import short, verdict

REFERENCE = [("pineapple", 2), ("ofc", 4)]
TARGET_PINEAPPLE = 5000.0  # hands/s for 2-player Pineapple (200 us per hand)


def play(preset: str, players: int, hands: int, seed: int = 0) -> dict[str, Any]:
    rules = rules_for(preset)
    rng = random.Random(seed)
    actions = settled = 0
    # Warm up the caches (placement patterns, scorer tables).
    for i in range(50):
        t = Table(rules, players, seed=i)
        while not t.over:
            t.apply(t.random_action(t.to_act[0], rng))
    start = time.perf_counter()
    cpu_start = time.process_time()
    for i in range(hands):
        t = Table(rules, players, button=i % players, seed=seed + i)
        while not t.over:
            t.apply(t.random_action(t.to_act[0], rng))
        actions += t.version
        settled += t.settlement is not None
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    return {
        "preset": preset,
        "players": players,
        "hands": hands,
        "settled": settled,
        "seconds": round(elapsed, 4),
        "cpu_seconds": round(cpu, 4),
        # CPU time of this process: robust when other jobs share the cores.
        "hands_per_second": round(hands / cpu, 1),
        "us_per_hand": round(cpu / hands * 1e6, 1),
        "wall_hands_per_second": round(hands / elapsed, 1),
        "actions_per_hand": round(actions / hands, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5000)
    parser.add_argument("--all", action="store_true", help="every preset at every player count")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    cases = REFERENCE
    if args.all:
        cases = [(p, n) for p in preset_names() for n in rules_for(p).player_counts]
    results = [play(p, n, args.hands) for p, n in cases]
    # A hand counts only if it reached its settlement (a hand cut short would be cheaper).
    problems = [short(f"{r['preset']} x{r['players']}: settled hands", r["settled"], args.hands)
                for r in results]  # fmt: skip
    if args.json:
        print(json.dumps(results, indent=2))
        return verdict("bench_engine", problems)
    print("| Preset | Players | Hands/s | µs/hand | Actions/hand | Wall hands/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['preset']} | {r['players']} | {r['hands_per_second']:,.0f} |"
              f" {r['us_per_hand']:.1f} | {r['actions_per_hand']:.1f} |"
              f" {r['wall_hands_per_second']:,.0f} |")  # fmt: skip
    print("\nHands/s and µs/hand are per CPU second of this process (one core).")
    pine = next((r for r in results if (r["preset"], r["players"]) == ("pineapple", 2)), None)
    if pine is not None:
        met = "meets" if pine["hands_per_second"] >= TARGET_PINEAPPLE else "misses"
        print(f"2-player Pineapple {met} the target of {TARGET_PINEAPPLE:,.0f} hands/s.")
    return verdict("bench_engine", problems)


if __name__ == "__main__":
    sys.exit(main())
