"""Fantasyland solver: solve times for 13-17 cards, and the value of staying.

Run: ``.venv/bin/python bench/bench_fantasyland.py [--deals 200] [--hands 3000]``

1. Times ``solve_fantasyland`` on random deals of every size under the Pineapple
   (progressive for 15-17) rules: median, p90 and max milliseconds, after warm-up.
2. Estimates the default ``stay_value``: the points a Fantasyland hand is worth over a
   normal hand. Heads-up Pineapple: seat 0 plays a 14-card Fantasyland deal set by the
   solver, seat 1 is the rule-based bot; a normal hand between two rule-based bots is
   worth 0 to either by symmetry, so the mean of seat 0's points (with its 95% interval)
   is the value of one more Fantasyland hand, which is what staying buys.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from chinese_poker.ai import make_bot
from chinese_poker.ai.fantasyland import DEFAULT_STAY_VALUE, solve_fantasyland
from chinese_poker.engine import Place, Table
from chinese_poker.engine.views import View
from chinese_poker.rules import rules_for

sys.path.insert(0, str(Path(__file__).parent))
from shortfall import short, verdict


def time_solver(deals: int, seed: int) -> list[tuple[int, float, float, float]]:
    rng = random.Random(seed)
    rows = []
    for n in range(13, 18):
        rules = rules_for("pineapple-progressive" if n > 14 else "pineapple")
        solve_fantasyland(rng.sample(range(52), n), rules)  # warm-up (compiles once)
        times = []
        for _ in range(deals):
            cards = rng.sample(range(52), n)
            t0 = time.perf_counter()
            solve_fantasyland(cards, rules)
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        rows.append((n, statistics.median(times), times[int(0.9 * len(times))], times[-1]))
    return rows


class SolverSeat:
    """Sets a Fantasyland deal with the solver; plays normal streets like ``fallback``."""

    def __init__(self, stay_value: float, fallback_seed: int) -> None:
        self.stay_value = stay_value
        self.fallback = make_bot("rules", seed=fallback_seed)
        self.solved = 0  # Fantasyland deals this seat set with the solver

    def act(self, view: View) -> Place:
        decision = view.decisions[0]
        if decision.kind != "set":
            return self.fallback.act(view)  # type: ignore[return-value]
        rules = rules_for("pineapple")
        sol = solve_fantasyland(decision.cards, rules, stay_value=self.stay_value)
        self.solved += 1
        b = sol.board
        return Place(view.seat, b.top, b.middle, b.bottom, sol.discards, version=view.version)


def stay_value_estimate(hands: int, seed: int) -> tuple[float, float, float, int]:
    """Seat 0's mean points, its 95% half-width, the stay rate, and how many of the hands
    were Fantasyland hands set by the solver (each should be)."""
    rules = rules_for("pineapple")
    points, stays, solved = [], 0, 0
    for i in range(hands):
        table = Table(rules, 2, button=1, seed=seed * 1_000_003 + i, fantasyland={0: 14})
        seat = SolverSeat(DEFAULT_STAY_VALUE, i)
        agents = {0: seat, 1: make_bot("rules", seed=i)}
        while not table.over:
            s = table.to_act[0]
            table.apply(agents[s].act(table.view(s)))
        points.append(table.totals[table.players[0]])
        stays += table.fantasyland_next.get(0) is not None
        solved += seat.solved == 1
    mean = statistics.fmean(points)
    half = 1.96 * statistics.stdev(points) / len(points) ** 0.5 if len(points) > 1 else 0.0
    return mean, half, stays / hands, solved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    if args.deals < 1 or args.hands < 2:
        parser.error("--deals must be at least 1 and --hands at least 2 (for an interval)")
    print("| Cards | Median ms | p90 ms | Max ms |\n|---:|---:|---:|---:|")
    for n, med, p90, worst in time_solver(args.deals, args.seed):
        print(f"| {n} | {med:.2f} | {p90:.2f} | {worst:.2f} |")
    t0 = time.perf_counter()
    mean, half, stay_rate, solved = stay_value_estimate(args.hands, args.seed)
    print(
        f"\nFantasyland hand (14 cards, solver) vs rules bot, {args.hands} hands: "
        f"{mean:+.2f} ± {half:.2f} points/hand; stays {stay_rate:.1%} "
        f"({time.perf_counter() - t0:.0f} s)"
    )
    # A hand the solver did not set (no Fantasyland deal) would not measure its value.
    return verdict("bench_fantasyland", [short("Fantasyland hands set by the solver", solved,
                                               args.hands)])  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
