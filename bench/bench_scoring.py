"""How many tables ``chinese_poker.scoring.settle`` settles per second on one core.

Run ``python bench/bench_scoring.py [--tables N] [--seconds S]``. Each scenario pre-deals N
random tables (4 players, 13 cards each, set into boards), then settles them in a loop
for about S seconds, the itemised breakdown included. "valid" tables re-deal each board
until it keeps the line order, so every pair goes to the showdown (the slowest path);
"random" tables take the boards as set at random (most of them foul).

Not part of the test suite. The target is 20,000 four-player tables a second (50 µs each).

The heads-up section (issue #10) settles valid heads-up OFC pairs three ways in the same
process: the ``settle`` of the last commit before the compiled rules spec (the baseline,
its source read from git and loaded as a module), today's ``settle`` (itemised) and
``settle_totals`` (totals only). Targets: itemised >= 1.5x, totals only >= 3x the baseline.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chinese_poker.cards import Board
from chinese_poker.rules import Rules, rules_for
from chinese_poker.scoring import Hand, is_fouled, settle, settle_totals

TARGET_PER_SECOND = 20_000


def _board(cards: list[int]) -> Board:
    return Board(tuple(cards[:3]), tuple(cards[3:8]), tuple(cards[8:13]))


def _deal(rng: random.Random, rules: Rules, players: int, valid: bool) -> list[Hand]:
    deck = list(range(52))
    rng.shuffle(deck)
    hands = []
    for p in range(players):
        cards = deck[13 * p : 13 * (p + 1)]
        board = _board(cards)
        tries = 0
        while valid and is_fouled(rules, board) and tries < 500:
            rng.shuffle(cards)
            board = _board(cards)
            tries += 1
        hands.append(Hand(name=f"P{p + 1}", board=board))
    return hands


def _measure(run: Callable[[], None], seconds: float) -> float:
    """Calls per CPU second of ``run``: best of three timed stretches.

    CPU time of this process, not wall time, so that other jobs sharing the machine do
    not count against the scorer.
    """
    best = 0.0
    for _ in range(3):
        count = 0
        start = time.process_time()
        while True:
            run()
            count += 1
            elapsed = time.process_time() - start
            if elapsed >= seconds / 3:
                break
        best = max(best, count / elapsed)
    return best


def _baseline() -> tuple[str, Any] | None:
    """The scoring module as it was before the compiled spec, loaded from git."""
    root = Path(__file__).resolve().parents[1]
    path = "src/chinese_poker/scoring.py"

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()

    try:
        removed = git("rev-list", "-1", "HEAD", "--", path)  # the commit that split it
        commit = git("rev-parse", "--short", f"{removed}^")
        source = git("show", f"{commit}:{path}")
    except (OSError, subprocess.CalledProcessError):
        return None
    module = types.ModuleType("baseline_scoring")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, f"{commit}:{path}", "exec"), module.__dict__)
    return commit, module


def heads_up(seconds: float, seed: int, count: int = 300) -> None:
    """Valid heads-up OFC pairs: the baseline settle, settle, settle_totals."""
    rules = rules_for("ofc")
    rng = random.Random(seed)
    pairs = [_deal(rng, rules, 2, True) for _ in range(count)]
    baseline = _baseline()
    runs: list[tuple[str, Callable[[Rules, list[Any]], object], list[list[Any]]]] = []
    if baseline is not None:
        commit, old = baseline
        old_pairs = [[old.Hand(name=h.name, board=h.board) for h in p] for p in pairs]
        runs.append((f"baseline settle ({commit})", old.settle, old_pairs))
    runs += [("settle (itemised)", settle, pairs), ("settle_totals", settle_totals, pairs)]
    print("\nheads-up OFC, valid boards")
    print(f"{'path':<32}{'µs/pair':>9}{'× baseline':>12}")
    base_us = None
    for name, fn, tables in runs:

        def run(fn: Callable[[Rules, list[Any]], object] = fn, tables: list[Any] = tables) -> None:
            for table in tables:
                fn(rules, table)

        us = 1e6 / (_measure(run, seconds) * len(tables))
        base_us = base_us or (us if baseline is not None else None)
        ratio = f"{base_us / us:>11.2f}×" if base_us else "           -"
        print(f"{name:<32}{us:>9.2f}{ratio}")
    if baseline is None:
        print("(no git history: the baseline cannot be loaded)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=500, help="tables dealt per scenario")
    parser.add_argument("--seconds", type=float, default=1.5, help="time per scenario")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    scenarios = [
        ("ofc", "valid", rules_for("ofc")),
        ("ofc", "random", rules_for("ofc")),
        ("ofc-finnish", "valid", rules_for("ofc-finnish")),
        ("classic", "valid", rules_for("classic")),
        ("classic", "random", rules_for("classic")),
        ("classic best_at_table", "valid", rules_for("classic", royalty_award="best_at_table")),
    ]
    print(f"{'rules':<24}{'boards':<8}{'tables/s':>10}{'µs/table':>10}  target")
    for name, kind, rules in scenarios:
        rng = random.Random(args.seed)
        tables = [_deal(rng, rules, 4, kind == "valid") for _ in range(args.tables)]
        position = 0

        def run(rules: Rules = rules, tables: list[list[Hand]] = tables) -> None:
            nonlocal position
            settle(rules, tables[position])
            position = (position + 1) % len(tables)

        rate = _measure(run, args.seconds)
        ok = "ok" if rate >= TARGET_PER_SECOND else "SLOW"
        print(f"{name:<24}{kind:<8}{rate:>10,.0f}{1e6 / rate:>10.1f}  {ok}")
    heads_up(args.seconds, args.seed)


if __name__ == "__main__":
    main()
