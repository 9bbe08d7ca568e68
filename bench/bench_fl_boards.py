"""What the Fantasyland boards ``mc`` plays out gain over the exact solver's board.

    PYTHONPATH=src .venv/bin/python bench/bench_fl_boards.py --preset pineapple \\
        --deals 400 --seed 1 --opponent mc-v1:3

The exact solver sets a Fantasyland deal for the most royalties plus the stay; what the
board's lines win against the opponents is left out. ``mc`` levels with ``fl_boards``
play out the solver's board and the best by royalties, the stay and the policy's line
strength (``mc.analyse_fantasyland``). For each deal, seat 0 gets a Fantasyland deal of
``--cards`` cards and the other seats play the hand normally (``--opponent``, the
specifications of ``bench_mc_bots.py``). A Fantasyland board is set face down before
anyone plays, so the opponents' boards do not depend on it: the hand is played once and
both of seat 0's boards (the solver's, and the one ``--bot`` chose) are settled against
the same opponents' boards by ``scoring.settle``. The gain of a deal is the difference
of seat 0's points plus the stay value (``mc.view_stay_value``) times the difference of
the stays. Prints one JSON line: the mean gain per Fantasyland hand with its 95%
interval, split into points and stays, how often the boards differ, and the median and
p99 time of ``--bot``'s decision. See docs/bots-research.md, *Round sixteen*.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

import numpy as np

from bench_mc_bots import BotSpec
from chinese_poker.ai import mc
from chinese_poker.cards import Board
from chinese_poker.engine import Table, play_hand
from chinese_poker.engine.actions import Place
from chinese_poker.evaluate import evaluate, evaluate3
from chinese_poker.rules import Rules, rules_for
from chinese_poker.scoring import Hand, settle
from shortfall import short, verdict


def _stays(rules: Rules, board: Board) -> bool:
    wheel = rules.spec.scoring.wheel
    return rules.spec.scoring.fantasyland.stays(
        evaluate3(*board.top), evaluate(board.middle, wheel=wheel),
        evaluate(board.bottom, wheel=wheel),
    )  # fmt: skip


def _points(rules: Rules, table: Table, mine: Board) -> float:
    names = table.players
    hands = [Hand(name=names[s], board=mine if s == 0 else table.board(s))
             for s in range(table.n_seats)]  # fmt: skip
    return float(settle(rules, hands).totals[names[0]])


def run(preset: str, deals: int, seed: int, cards: int, players: int, bot: BotSpec,
        opponent: BotSpec) -> dict[str, Any]:  # fmt: skip
    rules = rules_for(preset)
    gains, points, stays, times = [], [], [], []
    differ = sets = 0
    for k in range(seed, seed + deals):
        table = Table(rules, players, seed=k, fantasyland={0: cards})
        view = table.view(0)
        dec = view.decisions[0]
        sets += dec.kind == "set"
        stay = mc.view_stay_value(view, dec)
        solver = mc.MonteCarloBot._solver_place(view, dec)
        ours = bot.build(k)
        t0 = time.perf_counter()
        chosen = ours.act(view)
        times.append(time.perf_counter() - t0)
        assert isinstance(chosen, Place)
        table.apply(solver)
        play_hand(table, {s: opponent.build(k * 8 + s) for s in range(1, players)})
        a = Board(solver.top, solver.middle, solver.bottom)
        b = Board(chosen.top, chosen.middle, chosen.bottom)
        differ += a != b
        dp = _points(rules, table, b) - _points(rules, table, a)
        ds = stay * (int(_stays(rules, b)) - int(_stays(rules, a)))
        points.append(dp)
        stays.append(ds)
        gains.append(dp + ds)
    g = np.array(gains)
    half = 1.96 * float(g.std(ddof=1)) / np.sqrt(len(g)) if len(g) > 1 else float("nan")
    ms = sorted(1000 * t for t in times)
    return {
        "preset": preset, "cards": cards, "players": players, "bot": bot.text,
        "opponent": opponent.text, "deals": deals, "fantasyland_sets": sets, "seed": seed,
        "gain_per_fantasyland_hand": round(float(g.mean()), 3), "ci95": round(half, 3),
        "points": round(float(np.mean(points)), 3), "stays": round(float(np.mean(stays)), 3),
        "boards_differ": round(differ / deals, 3),
        "median_ms": round(statistics.median(ms), 1),
        "p99_ms": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 1),
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--preset", default="pineapple")
    p.add_argument("--deals", type=int, default=400)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cards", type=int, help="Fantasyland cards (default: the preset's entry)")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--bot", default="mc:3", help="the bot that sets seat 0's deal")
    p.add_argument("--opponent", default="mc-v1:3")
    args = p.parse_args(argv)
    if args.deals < 2:
        print("--deals must be at least 2 (an interval needs two)", file=sys.stderr)
        return 2
    rules = rules_for(args.preset)
    if not (rules.is_open_face and rules.fantasyland_enabled):
        print(f"--preset {args.preset} has no open-face Fantasyland", file=sys.stderr)
        return 2
    cards = args.cards or rules.fantasyland_cards(None, repeat=False)
    if not 13 <= cards <= 17:
        print(f"--cards must be 13 to 17, not {cards}", file=sys.stderr)
        return 2
    low, high = rules.spec.variant.player_counts
    if not low <= args.players <= high:
        print(f"--players {args.players} is not a table size of {args.preset}", file=sys.stderr)
        return 2
    row = run(args.preset, args.deals, args.seed, cards, args.players, BotSpec(args.bot),
              BotSpec(args.opponent))  # fmt: skip
    print(json.dumps(row), flush=True)
    # A deal that did not open with seat 0's Fantasyland set compares no Fantasyland boards.
    return verdict("bench_fl_boards", [short("deals opening with seat 0's Fantasyland set",
                                             row["fantasyland_sets"], args.deals)])  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
