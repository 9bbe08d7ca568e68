"""The rules bot against ``random`` and against ``mc-v1``, on duplicate deals.

Every pairing is a :func:`chinese_poker.ai.simulate.simulate` job with ``duplicate``:
each session (the button orbit plus the Fantasyland hands it earns) is played again with
the seats rotated, so both bots get the same cards; the figure is the first bot's points
per hand with a 95% interval over the duplicate groups, its foul rate (fouled boards per
board) and its Fantasyland rate (boards that earned Fantasyland per hand), and how often
it plays the articles' first-street moves.

    .venv/bin/python bench/bench_rulebot.py              # ~3 minutes on one core
    .venv/bin/python bench/bench_rulebot.py --quick      # ~1 minute
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter

from chinese_poker.ai.simple import RuleBot
from chinese_poker.ai.simulate import make_job, simulate
from chinese_poker.ai.warm import warm_kernels
from chinese_poker.engine import Place, Table
from chinese_poker.rules import rules_for
from shortfall import simulation_shortfall, verdict


def pairing(preset: str, bots: str, players: int, hands: int, seed: int) -> tuple[str, str | None]:
    """The pairing's table row, and what it measured less than ``hands`` (None: nothing)."""
    job = make_job(preset, bots, players=players, hands=hands, seed=seed, duplicate=True)
    result = simulate(job)
    first = result.bots[0]
    p = first.points
    # Fewer than two duplicate groups give no interval: a figure without one is short.
    interval = "no interval" if p.ci95 is None else f"± {p.ci95:.2f}"
    problems = [simulation_shortfall(f"{preset} {bots}", result, hands)]
    if p.ci95 is None:
        problems.append(f"{preset} {bots}: no 95% interval (fewer than two duplicate groups)")
    return (f"| {preset} | {players} | {bots.replace(',', ' vs ')} | {result.hands} | "
            f"{p.mean:+.2f} {interval} | {first.foul_rate:.1%} | "
            f"{first.fl_earned_rate:.1%} |",
            "; ".join(x for x in problems if x) or None)  # fmt: skip


def first_streets(deals: int, seed: int) -> tuple[str, list[str]]:
    """How often the rules bot keeps a four-card flush or a pair in the bottom, puts a
    pair on top, or a jack or better in the middle with nothing else, on random deals."""
    rng = random.Random(seed)
    seen: Counter[str] = Counter()
    done: Counter[str] = Counter()
    for _ in range(deals):
        table = Table(rules_for("pineapple"), 2, seed=rng.getrandbits(32))
        view = table.view(table.to_act[0])
        cards = view.decisions[0].cards
        place = RuleBot(seed=1).act(view)
        assert isinstance(place, Place)
        suits = Counter(c & 3 for c in cards)
        ranks = Counter(c >> 2 for c in cards)
        suit, most = suits.most_common(1)[0]
        if most >= 4:
            seen["four-card flush"] += 1
            done["four-card flush"] += sum(1 for c in place.bottom if c & 3 == suit) >= 4
        elif max(ranks.values()) >= 2:
            seen["a pair"] += 1
            low = min(r for r, n in ranks.items() if n >= 2)
            done["a pair"] += all(c in place.bottom for c in cards if c >> 2 == low) or (
                sum(1 for c in place.bottom if c >> 2 == low) == 0
                and any(c >> 2 == low for c in place.middle)
                and len([r for r, n in ranks.items() if n >= 2]) > 1
            )
        else:
            seen["nothing"] += 1
            done["nothing"] += all(c >> 2 < 9 for c in place.middle)
    rows = ["| first five | deals | played as the articles say |", "|---|---|---|"]
    kinds = ("four-card flush", "a pair", "nothing")
    for kind in kinds:
        share = f"{done[kind] / seen[kind]:.0%}" if seen[kind] else "no deal"
        rows.append(f"| {kind} | {seen[kind]} | {share} |")
    # A kind no deal showed has no share to report.
    missing = [f"first streets: no deal with {kind} in {deals}" for kind in kinds if not seen[kind]]
    return "\n".join(rows), missing


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--hands", type=int, help="hands per pairing (default 1000 against random, "
                    "150 against mc-v1; --quick a quarter)")  # fmt: skip
    ap.add_argument("--deals", type=int, help="first streets checked (default 400)")
    args = ap.parse_args(argv)
    warm_kernels()
    scale = 4 if args.quick else 1
    problems: list[str | None] = []
    print("| preset | players | bots | hands | points/hand of the first (95%) | its fouls |"
          " its Fantasyland |\n|---|---|---|---|---|---|---|")  # fmt: skip
    for preset, bots, players, hands in [
        ("pineapple", "rules,random", 2, 1000),
        ("ofc", "rules,random", 2, 1000),
        ("pineapple", "rules,mc-v1", 2, 150),
        ("ofc", "rules,mc-v1", 2, 150),
    ]:
        row, problem = pairing(preset, bots, players, args.hands or hands // scale, args.seed)
        print(row, flush=True)
        problems.append(problem)
    print()
    table, missing = first_streets(args.deals or 400 // scale, args.seed)
    print(table)
    problems += missing
    return verdict("bench_rulebot", problems)


if __name__ == "__main__":
    sys.exit(main())
