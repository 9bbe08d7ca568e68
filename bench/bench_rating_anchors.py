"""The bots' rating anchors: heads-up bot-against-bot hands rated with openskill.

Every pairing of the bots plays the same deals twice, seats swapped (duplicate deals),
the pairings interleaved, and every hand is rated as the server rates one
(``chinese_poker.server.ratings.rate_hand``), the rules bot pinned at the library's
default mean of 25. The bots' final means are the anchors of
``chinese_poker.server.ratings.BOT_ANCHORS`` (docs/browser.md, "Ratings"); a run prints them as a
markdown table and as the dictionary to paste.

    .venv/bin/python bench/bench_rating_anchors.py [--deals 40] [--seed 1]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time

from chinese_poker.ai import make_bot
from chinese_poker.engine import Table
from chinese_poker.rules import rules_for
from chinese_poker.server.ratings import BOT_SIGMA, Participant, model, rate_hand
from shortfall import short, verdict

FAMILIES = {"open-face": "pineapple", "classic": "classic"}
# The Monte Carlo bot sets a classic hand with the setting solver at every level: one
# anchor for all its levels there (level None). Levels 4 and 5 take too long to measure.
BOTS: dict[str, list[tuple[str, int | None]]] = {
    "open-face": [("random", None), ("rules", None), ("mc", 1), ("mc", 2), ("mc", 3)],
    "classic": [("random", None), ("rules", None), ("mc", None)],
}


def _bot(name: str, level: int | None, seed: int) -> object:
    return make_bot(name, seed=seed, level=level)


def run(
    family: str, deals: int, seed: int, rated: list[int] | None = None
) -> dict[tuple[str, int | None], tuple[float, float]]:
    """The bots' (mu, sigma) after ``deals`` deals of every pairing; each hand rated is
    counted in ``rated[0]`` when given."""
    rules = rules_for(FAMILIES[family])
    m = model()
    bots = BOTS[family]
    ratings = {b: (m.mu, m.sigma) for b in bots}
    ratings[("rules", None)] = (m.mu, BOT_SIGMA)
    pairs = list(itertools.combinations(bots, 2))
    started = time.perf_counter()
    for deal in range(deals):
        for k, (a, b) in enumerate(pairs):
            hand_seed = seed * 1_000_003 + deal * 101 + k
            for first, second in ((a, b), (b, a)):
                table = Table(rules, ["P1", "P2"], seed=hand_seed)
                agents = [_bot(*first, seed=hand_seed), _bot(*second, seed=hand_seed + 1)]
                while not table.over:
                    s = table.to_act[0]
                    table.apply(agents[s].act(table.view(s)))  # type: ignore[attr-defined]
                who = [first, second]
                parts = [Participant(*ratings[x], anchor=x == ("rules", None)) for x in who]
                after = rate_hand(parts, [table.totals["P1"], table.totals["P2"]])
                for x, r in zip(who, after, strict=True):
                    ratings[x] = r
                if rated is not None:
                    rated[0] += 1
        print(f"{family}: deal {deal + 1}/{deals} ({time.perf_counter() - started:.0f} s)",
              file=sys.stderr)  # fmt: skip
    return ratings


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=40, help="deals per pairing (each played twice)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--family", choices=list(FAMILIES), action="append")
    args = p.parse_args(argv)
    counts = {f: [0] for f in args.family or list(FAMILIES)}
    results = {f: run(f, args.deals, args.seed, counts[f]) for f in counts}
    print("| family | bot | mu | sigma |\n|---|---|---|---|")
    for family, ratings in results.items():
        for (name, level), (mu, sigma) in ratings.items():
            label = name + (f" {level}" if level is not None else "")
            print(f"| {family} | {label} | {mu:.1f} | {sigma:.2f} |")
    print()
    for family, ratings in results.items():
        print(f'    "{family}": {{')
        for (name, level), (mu, _) in ratings.items():
            print(f'        ("{name}", {level}): {mu:.1f},')
        print("    },")
    # Every pairing's every deal is two rated hands (seats swapped).
    asked = {f: args.deals * len(list(itertools.combinations(BOTS[f], 2))) * 2 for f in counts}
    problems = [short(f"{f}: hands rated", counts[f][0], asked[f]) for f in counts]
    return verdict("bench_rating_anchors", problems)


if __name__ == "__main__":
    sys.exit(main())
