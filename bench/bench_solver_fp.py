"""The equilibrium (fictitious-play) table against the shipped ``high`` table, under the
``two_four`` family without royalties, naturals or surrender.

Both sides are the same setting solver; only the opponent table differs. Every deal is
played in duplicate: heads-up, each side sets the same two hands in both seats (4-player:
the new table in each seat in turn against three with the shipped one), settled by
``scoring.settle``; the figure is points per hand (per opponent at 4 players) of the new
table with a 95% interval over deals. Also the solver's time per hand with each table
and the table's own fictitious-play figures (exploitability under the model, the model's
prediction for itself).

    .venv/bin/python bench/bench_solver_fp.py            # ~2 minutes
    .venv/bin/python bench/bench_solver_fp.py --deals 300
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np

from chinese_poker.ai.setting import solve_with_table
from chinese_poker.ai.setting_tables import FAMILIES, load_table, table_for
from chinese_poker.cards import Card
from chinese_poker.scoring import Hand, settle

RULES = FAMILIES["two_four-plain"]


def _ci(xs: list[float]) -> str:
    return f"{statistics.mean(xs):+.4f} ± {1.96 * statistics.stdev(xs) / math.sqrt(len(xs)):.4f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=3000, help="heads-up deals")
    ap.add_argument("--four", type=int, default=400, help="4-player deals")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    new, old = table_for(RULES), load_table("high")
    assert new is not old, "no equilibrium table shipped for the family"
    rng = np.random.default_rng(args.seed)
    times: dict[str, list[float]] = {"new": [], "old": []}
    same = 0

    def solve(cards: list[Card], which: str, opponents: int) -> Hand:
        t0 = time.perf_counter()
        sol = solve_with_table(cards, RULES, new if which == "new" else old,
                               opponents=opponents, top_n=0)  # fmt: skip
        times[which].append(time.perf_counter() - t0)
        return Hand(name=which, board=sol.board)

    hu: list[float] = []
    for _ in range(args.deals):
        deck = [int(c) for c in rng.permutation(52)]
        a, b = deck[:13], deck[13:26]
        total = 0.0
        boards = {}
        for first, second in ((a, b), (b, a)):
            x, y = solve(first, "new", 1), solve(second, "old", 1)
            boards[tuple(first)] = x.board
            total += settle(RULES, [x, Hand(name="old", board=y.board)]).totals["new"]
        same += sum(1 for cards in (a, b) if boards[tuple(cards)] ==
                    solve(cards, "old", 1).board)  # fmt: skip
        hu.append(total / 2)
    four: list[float] = []
    for _ in range(args.four):
        deck = [int(c) for c in rng.permutation(52)]
        hands = [deck[13 * i : 13 * i + 13] for i in range(4)]
        olds = [solve(h, "old", 3).board for h in hands]
        total = 0.0
        for seat in range(4):
            mine = solve(hands[seat], "new", 3)
            table = [Hand(name="new", board=mine.board)] + [
                Hand(name=f"o{j}", board=olds[j]) for j in range(4) if j != seat]
            total += settle(RULES, table).totals["new"] / 3
        four.append(total / 4)
    print("| Pairing | Deals | Points/hand of the new table (95%) |\n|---|---:|---|")
    print(f"| heads-up | {args.deals} | {_ci(hu)} |")
    print(f"| 4 players (per opponent) | {args.four} | {_ci(four)} |")
    print(f"\nSame setting as the shipped table: {same / (2 * args.deals):.0%} of hands.")
    for which in ("new", "old"):
        ms = sorted(1000 * t for t in times[which])
        print(f"Solver with the {which} table: median {statistics.median(ms):.2f} ms,"
              f" p99 {ms[int(0.99 * (len(ms) - 1))]:.2f} ms per hand")
    gains, selfs = new.meta.get("gains", []), new.meta.get("self_values", [])
    if gains:
        print(f"\nFictitious play: {len(gains)} stages of {new.meta.get('hands_per_stage')} hands;"
              f" best response's gain against the model {gains[-1]:.4f}/hand (stage 1:"
              f" {gains[0]:.4f}); the model's prediction for itself {selfs[-1]:+.4f}/hand.")


if __name__ == "__main__":
    main()
