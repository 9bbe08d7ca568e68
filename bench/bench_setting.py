"""Benchmark of the classic setting solver: milliseconds per hand, and strength in play.

Speed: ``solve_setting`` on random hands after a warm-up (numba compiles on first use),
median and 90th percentile on one core.

Strength: random deals settled with ``scoring.settle`` under the ``classic`` preset, the
solver in one seat against simple setters in the others. Each deal is played in
*duplicate*: the solver takes every seat in turn with the same cards, so the card luck
cancels out; one deal (all rotations) is one sample for the 95% interval. The solver
surrenders and claims naturals as it advises; the other setters never surrender (the
scorer claims their naturals automatically).

    .venv/bin/python bench/bench_setting.py                 # ~2 minutes
    .venv/bin/python bench/bench_setting.py --deals 200 --hu-deals 400 --hands 50   # quick
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from chinese_poker.ai.setting import heuristic_setting, random_setting, solve_setting
from chinese_poker.ai.setting_tables import load_table, mode_of
from chinese_poker.cards import Board, Card
from chinese_poker.rules import Rules, rules_for
from chinese_poker.scoring import Hand, settle

sys.path.insert(0, str(Path(__file__).parent))
from shortfall import short, verdict

Setter = Callable[[Sequence[Card]], Board]


def bench_speed(rules: Rules, hands: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    load_table(mode_of(rules))
    for _ in range(5):  # warm-up: numba compilation (or its cache), tables, lookups
        solve_setting([int(c) for c in rng.permutation(52)[:13]], rules)
    times = []
    for _ in range(hands):
        cards = [int(c) for c in rng.permutation(52)[:13]]
        start = time.perf_counter()
        solve_setting(cards, rules)
        times.append(1000 * (time.perf_counter() - start))
    times.sort()
    return {
        "hands": len(times),
        "median_ms": statistics.median(times),
        "p90_ms": times[int(0.9 * (len(times) - 1))],
        "mean_ms": statistics.fmean(times),
        "max_ms": times[-1],
    }


def play(
    rules: Rules, players: int, deals: int, seed: int, opponents: dict[str, Setter]
) -> dict[str, dict[str, float]]:
    """Duplicate deals: the solver in each seat in turn against each kind of opponent."""
    rng = np.random.default_rng(seed)
    samples: dict[str, list[float]] = {name: [] for name in opponents}
    surrenders = naturals = 0
    for _ in range(deals):
        deck = [int(c) for c in rng.permutation(52)]
        hands = [tuple(deck[13 * i : 13 * i + 13]) for i in range(players)]
        solved = [solve_setting(h, rules, opponents=players - 1, top_n=0) for h in hands]
        surrenders += sum(s.surrender for s in solved)
        naturals += sum(s.natural is not None for s in solved)
        for name, setter in opponents.items():
            theirs = [setter(h) for h in hands]
            total = 0
            for seat in range(players):
                table = [
                    Hand(name=f"S{i}", board=solved[i].board, surrender=solved[i].surrender)
                    if i == seat
                    else Hand(name=f"S{i}", board=theirs[i])
                    for i in range(players)
                ]
                total += settle(rules, table).totals[f"S{seat}"]
            samples[name].append(total / players)
    out: dict[str, dict[str, float]] = {}
    for name, xs in samples.items():
        mean = statistics.fmean(xs)
        half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))
        out[name] = {
            "deals": len(xs),
            "mean": mean,
            "ci_low": mean - half,
            "ci_high": mean + half,
            "per_opponent": mean / (players - 1),
            "solver_surrender_rate": surrenders / (deals * players),
            "solver_natural_rate": naturals / (deals * players),
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=200, help="hands timed")
    parser.add_argument("--deals", type=int, default=2000, help="4-player duplicate deals")
    parser.add_argument("--hu-deals", type=int, default=4000, help="heads-up duplicate deals")
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.hands < 1 or args.deals < 2 or args.hu_deals < 2:
        parser.error("--hands must be at least 1, --deals and --hu-deals at least 2")
    rules = rules_for(args.preset)
    started = time.perf_counter()

    speed = bench_speed(rules, args.hands, args.seed)
    rng = np.random.default_rng(args.seed + 1)
    opponents: dict[str, Setter] = {
        "heuristic": lambda cards: heuristic_setting(cards, rules),
        "random valid": lambda cards: random_setting(cards, rules, rng),
    }
    four = play(rules, 4, args.deals, args.seed + 2, opponents)
    heads_up = play(rules, 2, args.hu_deals, args.seed + 3, opponents)

    print(f"## Classic setting solver ({args.preset})\n")
    print("| measure | median | p90 | mean | hands |")
    print("|---|---|---|---|---|")
    print(
        f"| ms per hand (one core, after warm-up) | {speed['median_ms']:.2f} |"
        f" {speed['p90_ms']:.2f} | {speed['mean_ms']:.2f} | {speed['hands']} |"
    )
    print()
    print("| table | solver against | deals | solver points/hand | 95% interval | per opponent |")
    print("|---|---|---|---|---|---|")
    for label, result in (("4 players", four), ("heads-up", heads_up)):
        for name, r in result.items():
            print(
                f"| {label} | {name} | {int(r['deals'])} | {r['mean']:+.3f} |"
                f" [{r['ci_low']:+.3f}, {r['ci_high']:+.3f}] | {r['per_opponent']:+.3f} |"
            )
    rates = four["heuristic"]
    print(
        f"\nSolver surrendered {100 * rates['solver_surrender_rate']:.2f}% and claimed a natural"
        f" in {100 * rates['solver_natural_rate']:.2f}% of its 4-player hands."
        f" ({time.perf_counter() - started:.0f} s)"
    )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        figures = {"preset": args.preset, "speed": speed, "four_players": four,
                   "heads_up": heads_up}  # fmt: skip
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    problems = [short("hands timed", int(speed["hands"]), args.hands)]
    for label, result, asked in (("4 players", four, args.deals),
                                 ("heads-up", heads_up, args.hu_deals)):  # fmt: skip
        problems += [short(f"{label} against {name}: deals", int(r["deals"]), asked)
                     for name, r in result.items()]  # fmt: skip
    return verdict("bench_setting", problems)


if __name__ == "__main__":
    sys.exit(main())
