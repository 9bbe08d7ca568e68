"""The level ladder: every level a player can choose against the one below it.

    PYTHONPATH=src .venv/bin/python bench/bench_levels.py --hands 1000 --seed 31000 \\
        --presets pineapple ofc --bots mc --jobs 2

For each bot (``mc``, ``mc-v1``), each preset and each offered level above the lowest
(:data:`chinese_poker.ai.mc.OFFERED_LEVELS`, read from the bot itself, so the ladder is
exactly what a player can choose), level L plays level L-1 heads-up on duplicate whole
sessions (``bench_mc_bots.measure``: each session seed once per seating, the Fantasyland
hands it earns included), and the figure is L's points a hand with a 95% interval over
the groups. No time budget: a level's strength does not depend on the machine's load.

Prints one JSON line per step and a table; exits 1 when a step's interval does not lie
above 0 (the level is not shown stronger than the one below, so it should not be
offered), and 2 for bad arguments. Every step plays at least ``--hands`` hands or the
run fails.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench_mc_bots import BotSpec, measure
from chinese_poker.ai import make_bot
from chinese_poker.rules import PRESETS
from shortfall import short, verdict


def ladder(bot: str) -> list[int]:
    """The levels ``bot`` offers, lowest first (its own table: nothing written here)."""
    offered: dict[int, Any] = getattr(make_bot(bot, seed=0), "levels", {})
    return sorted(offered)


def steps(bots: list[str], presets: list[str]) -> list[tuple[str, str, str]]:
    """(preset, A, B) for every step of every ladder: A one level above B."""
    out = []
    for bot in bots:
        levels = ladder(bot)
        for preset in presets:
            for low, high in itertools.pairwise(levels):
                out.append((preset, f"{bot}:{high}", f"{bot}:{low}"))
    return out


def run_step(job: tuple[str, str, str, int, int]) -> dict[str, Any]:
    preset, a, b, hands, seed = job
    return measure(preset, 2, BotSpec(a), BotSpec(b), hands, seed)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bots", nargs="+", default=["mc"])
    p.add_argument("--presets", nargs="+", default=["pineapple", "ofc"])
    p.add_argument("--hands", type=int, default=1000, help="hands per step (at least)")
    p.add_argument("--seed", type=int, default=31000)
    p.add_argument("--jobs", type=int, default=1, help="steps run at once (processes)")
    args = p.parse_args(argv)
    for preset in args.presets:
        if preset not in PRESETS:
            print(f"bench_levels: unknown preset {preset!r}", file=sys.stderr)
            return 2
    if args.hands < 2 or args.jobs < 1:
        print("bench_levels: --hands must be at least 2 and --jobs at least 1", file=sys.stderr)
        return 2
    try:
        plan = steps(args.bots, args.presets)
    except ValueError as exc:
        print(f"bench_levels: {exc}", file=sys.stderr)
        return 2
    if not plan:
        print("bench_levels: no bot named has two levels to compare", file=sys.stderr)
        return 2
    jobs = [(pr, a, b, args.hands, args.seed + 100 * i) for i, (pr, a, b) in enumerate(plan)]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(run_step, jobs))
    failed: list[str | None] = []
    print("| preset | step | hands | points a hand (95%) | fouls A (B) | Fantasyland A (B) |"
          " median ms A (B) |")  # fmt: skip
    print("|---|---|---:|---|---:|---:|---:|")
    for res in results:
        print(json.dumps(res), file=sys.stderr)
        step = f"{res['a']} over {res['b']} in {res['preset']}"
        a_side, b_side = res["a_side"], res["b_side"]
        shown = f"{res['mean']:+.2f} ± {res['ci95']:.2f}"
        print(f"| {res['preset']} | {res['a']} over {res['b']} | {res['hands']:,} | {shown} | "
              f"{a_side['foul_rate']:.1%} ({b_side['foul_rate']:.1%}) | "
              f"{a_side['fantasyland_rate']:.1%} ({b_side['fantasyland_rate']:.1%}) | "
              f"{a_side['median_ms']:.1f} ({b_side['median_ms']:.1f}) |")  # fmt: skip
        failed.append(short(f"{step}, hands", res["hands"], args.hands))
        if not res["mean"] - res["ci95"] > 0:
            failed.append(f"{step}: {shown} does not lie above 0")
    return verdict("bench_levels", failed)


if __name__ == "__main__":
    sys.exit(main())
