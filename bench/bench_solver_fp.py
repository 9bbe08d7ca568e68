"""Each family's equilibrium (fictitious-play) table against the table the solver used
before it, the mode's (``high``, ``lowball`` or ``wheel``, built by self-play under the
``classic`` preset), under the family's own rules.

Both sides are the same setting solver; only the opponent table differs. Every deal is
played in duplicate: heads-up, each side sets the same two hands in both seats (4-player:
the new table in each seat in turn against three with the old one), settled by
``scoring.settle`` with the solver's surrenders and the dealt cards (naturals are the
scorer's); the figure is points per hand (per opponent at 4 players) of the new table
with a 95% interval over deals. Also the solver's time per hand with each table and the
table's own fictitious-play figures (stages, exploitability under the model, the model's
prediction for itself), and what each table's solver predicts for its own heads-up
decisions on the bench's hands (a solver against a copy of itself realises exactly 0).

    .venv/bin/python bench/bench_solver_fp.py                      # every preset family, ~5 min
    .venv/bin/python bench/bench_solver_fp.py --family classic --deals 300 --four 100
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

import numpy as np

from chinese_poker.ai.setting import solve_with_table
from chinese_poker.ai.setting_tables import FAMILIES, OpponentTable, load_table, mode_of, table_for
from chinese_poker.cards import Card
from chinese_poker.rules import Rules
from chinese_poker.scoring import Hand, settle
from shortfall import short, verdict

#: The families the presets use (two_four-plain is the issue's no-royalty reference).
PRESET_FAMILIES = ("classic", "classic-1-6", "classic-low-middle", "classic-wheel")


def _ci(xs: list[float]) -> str:
    return f"{statistics.mean(xs):+.4f} ± {1.96 * statistics.stdev(xs) / math.sqrt(len(xs)):.4f}"


def _ms(ts: list[float]) -> str:
    ms = sorted(1000 * t for t in ts)
    return f"{statistics.median(ms):.2f} / {ms[int(0.99 * (len(ms) - 1))]:.2f}"


def run(
    name: str, deals: int, four_deals: int, seed: int, problems: list[str | None] | None = None
) -> list[str]:
    """The figures of family ``name`` as one markdown table row (and notes); what it
    measured less than asked is added to ``problems`` when given."""
    rules: Rules = FAMILIES[name]
    new, old = table_for(rules), load_table(mode_of(rules))
    if new.meta.get("family") != name:
        raise SystemExit(f"no equilibrium table ships for {name}")
    tables: dict[str, OpponentTable] = {"new": new, "old": old}
    rng = np.random.default_rng(seed)
    times: dict[str, list[float]] = {"new": [], "old": []}
    # What each table's solver expects its own heads-up decisions to collect: against a
    # copy of itself (duplicate, seats swapped) it realises exactly 0.
    predicted: dict[str, list[float]] = {"new": [], "old": []}

    def hand(cards: list[Card], which: str, opponents: int, label: str) -> Hand:
        t0 = time.perf_counter()
        sol = solve_with_table(cards, rules, tables[which], opponents=opponents, top_n=0)
        times[which].append(time.perf_counter() - t0)
        if opponents == 1:
            own = sol.surrender_expected if sol.surrender else sol.expected
            predicted[which].append(float(own or 0.0))
        return Hand(name=label, board=sol.board, surrender=sol.surrender, dealt=tuple(cards))

    same = 0
    hu: list[float] = []
    for _ in range(deals):
        deck = [int(c) for c in rng.permutation(52)]
        a, b = deck[:13], deck[13:26]
        news = {0: hand(a, "new", 1, "new"), 1: hand(b, "new", 1, "new")}
        olds = {0: hand(a, "old", 1, "old"), 1: hand(b, "old", 1, "old")}
        total = 0.0
        for mine in (0, 1):
            total += settle(rules, [news[mine], olds[1 - mine]]).totals["new"]
        same += sum(news[i].board == olds[i].board and news[i].surrender == olds[i].surrender
                    for i in (0, 1))  # fmt: skip
        hu.append(total / 2)
    four: list[float] = []
    for _ in range(four_deals):
        deck = [int(c) for c in rng.permutation(52)]
        cards = [deck[13 * i : 13 * i + 13] for i in range(4)]
        olds4 = [hand(c, "old", 3, f"o{i}") for i, c in enumerate(cards)]
        total = 0.0
        for seat in range(4):
            table = [hand(cards[seat], "new", 3, "new")] + [olds4[j] for j in range(4) if j != seat]
            total += settle(rules, table).totals["new"] / 3
        four.append(total / 4)
    gains, selfs = new.meta["gains"], new.meta["self_values"]
    if problems is not None:
        problems += [short(f"{name}: heads-up deals", len(hu), deals),
                     short(f"{name}: 4-player deals", len(four), four_deals)]  # fmt: skip
    return [
        f"| {name} | {len(gains)} | {gains[-1]:.4f} (stage 1: {gains[0]:.4f}) |"
        f" {selfs[-1]:+.4f} | {len(hu)}: {_ci(hu)} | {len(four)}: {_ci(four)} |"
        f" {same / (2 * deals):.0%} | {_ci(predicted['new'])} | {_ci(predicted['old'])} |"
        f" {_ms(times['new'])} | {_ms(times['old'])} |"
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--family",
        action="append",
        choices=sorted(FAMILIES),
        help="family to measure (repeatable; default: the preset families)",
    )
    ap.add_argument("--deals", type=int, default=2000, help="heads-up deals")
    ap.add_argument("--four", type=int, default=400, help="4-player deals")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    if args.deals < 2 or args.four < 2:
        ap.error("--deals and --four must be at least 2 (an interval needs two)")
    problems: list[str | None] = []
    print(
        "| Family | Stages | Best response's gain (points/hand) | Model's prediction for"
        " itself | Heads-up vs the mode's table: deals, points/hand (95%) | 4 players, per"
        " opponent | Same setting | New solver's prediction for its own hands (realised"
        " against itself: 0) | The old's | ms/hand new median / p99 | old median / p99 |\n"
        "|---|---:|---|---:|---|---|---:|---|---|---|---|",
        flush=True,
    )
    for name in args.family or PRESET_FAMILIES:
        for line in run(name, args.deals, args.four, args.seed, problems):
            print(line, flush=True)
    return verdict("bench_solver_fp", problems)


if __name__ == "__main__":
    sys.exit(main())
