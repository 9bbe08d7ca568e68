"""How far a learned board value's own choices fall from ``mc``'s search (docs/bots-research.md).

    PYTHONPATH=src .venv/bin/python bench/bench_value_search.py --sessions 300 --seed 990000

Plays heads-up sessions of ``mc`` in value mode (``ai.value.search_samples``: every
candidate of every street decision analysed with the same rollouts, no halving) on
sessions the shipped tables were not fitted on, and for each table (``iterated``, the
value iteration of round twelve; ``search``, that table refined on search means) and
each street reports the *regret* of the table's greedy choice: the search's best
``mean - aversion x foul`` less that of the placement the table ranks first, averaged
over decisions, and how often the two agree. The search means are noisy (``--rollouts``
each), so both tables' regrets carry the same upward bias; compare them, not the
figures alone. Prints one JSON line per street on stdout (progress on stderr).
See docs/bots-research.md, *Round fourteen*.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from chinese_poker.ai import value
from chinese_poker.ai.rollout import BoardValue
from chinese_poker.rules import rules_for
from shortfall import short, verdict


def regrets(samples: value.SearchSamples, table: np.ndarray, placed: int,
            aversion: float) -> tuple[float, float, int]:  # fmt: skip
    """(mean regret, share of decisions where the table's first is the search's, decisions)."""
    sel = np.flatnonzero(samples.placed == placed)
    crit = samples.mean[sel] - aversion * samples.foul[sel]
    mine = table[placed][samples.features[sel]].sum(axis=1)
    dec = samples.decision[sel]
    lost, agree, n = 0.0, 0, 0
    for d in np.unique(dec):
        m = dec == d
        c, v = crit[m], mine[m]
        lost += float(c.max() - c[np.argmax(v)])
        agree += int(np.argmax(v) == np.argmax(c))
        n += 1
    return lost / max(n, 1), agree / max(n, 1), n


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preset", default="pineapple")
    p.add_argument("--sessions", type=int, default=300)
    p.add_argument("--seed", type=int, default=990_000, help="first session's seed")
    p.add_argument("--rollouts", type=int, default=value.SEARCH_TRAINING["rollouts"])
    p.add_argument("--aversion", type=float, default=value.SEARCH_TRAINING["aversion"])
    args = p.parse_args(argv)
    rules = rules_for(args.preset)
    print(f"playing {args.sessions} sessions...", file=sys.stderr, flush=True)
    samples = value.search_samples(rules, args.seed, args.sessions, rollouts=args.rollouts)
    tables = {kind.name.lower(): value.value_table(rules, kind)
              for kind in (BoardValue.ITERATED, BoardValue.SEARCH)}  # fmt: skip
    problems = []
    if samples.placed.size == 0:
        problems.append(f"no decision sampled in {args.sessions} session(s)")
    for placed in sorted(int(k) for k in np.unique(samples.placed)):
        row: dict[str, object] = {"preset": args.preset, "seed": args.seed,
                                  "sessions": args.sessions, "placed": placed}  # fmt: skip
        for name, table in tables.items():
            lost, agree, n = regrets(samples, table, placed, args.aversion)
            row[name] = {"regret": round(lost, 3), "agree": round(agree, 3)}
            row["decisions"] = n
        print(json.dumps(row), flush=True)
        # Each session plays at least one hand, so every street has a decision per session.
        problems.append(short(f"{placed} cards placed: decisions", n, args.sessions))
    return verdict("bench_value_search", problems)


if __name__ == "__main__":
    sys.exit(main())
