"""Environment speed: PettingZoo AEC steps per second with random legal actions.

Each episode is one hand: ``reset()``, then the usual AEC loop (``agent_iter``,
``last()``, ``step``) where every live agent draws a uniformly random action from its
observation's ``action_mask`` and every finished agent steps ``None``. Two figures:

* **actions/s** -- decisions taken (``step`` with an action), the stricter figure;
* **step()/s** -- every ``step`` call, including the ``None`` steps of finished agents.

Both per CPU second of this process (one core), best of ``--repeats``. The raw
environment (``raw_env``) and PettingZoo's order-enforcing wrapper (``aec_env``, what
users get by default) are both timed. Run::

    .venv/bin/python bench/bench_env.py               # heads-up Pineapple, the target
    .venv/bin/python bench/bench_env.py --all --hands 300
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from chinese_poker.env import aec_env, raw_env
from chinese_poker.rules import preset_names, rules_for

sys.path.insert(0, str(Path(__file__).parent))
from shortfall import short, verdict

TARGET = 20000.0  # actions/s for heads-up Pineapple on one core


def run(env: Any, hands: int, seed: int) -> tuple[int, int, float, int]:
    """Play ``hands`` episodes; return (actions, step calls, CPU seconds, whole hands:
    episodes that ended by the hand's end, not truncated)."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    actions = calls = whole = 0
    start = time.process_time()
    for _ in range(hands):
        env.reset()
        cut = False
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            calls += 1
            if terminated or truncated:
                cut = cut or bool(truncated)
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            actions += 1
        whole += not cut
    return actions, calls, time.process_time() - start, whole


def measure(preset: str, players: int, hands: int, repeats: int, wrapped: bool) -> dict[str, Any]:
    env = (aec_env if wrapped else raw_env)(preset, players)
    run(env, max(5, hands // 20), seed=99)  # warm up caches (and numba for classic)
    best: tuple[int, int, float] | None = None
    for r in range(repeats):
        result = run(env, hands, seed=r)
        if best is None or result[2] < best[2]:
            best = result
    assert best is not None
    actions, calls, cpu, whole = best
    return {
        "preset": preset,
        "players": players,
        "env": "aec_env (wrapped)" if wrapped else "raw_env",
        "hands": hands,
        "whole_hands": whole,
        "cpu_seconds": round(cpu, 4),
        "actions_per_second": round(actions / cpu, 1),
        "steps_per_second": round(calls / cpu, 1),
        "actions_per_hand": round(actions / hands, 2),
        "us_per_hand": round(cpu / hands * 1e6, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000, help="hands per repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--all", action="store_true", help="every preset, every player count")
    parser.add_argument("--json", action="store_true", help="also print the results as JSON")
    parser.add_argument("--out", default="bench/results/env.json")
    args = parser.parse_args(argv)

    cases: list[tuple[str, int, bool]] = [("pineapple", 2, False), ("pineapple", 2, True)]
    if args.all:
        for preset in preset_names():
            for n in rules_for(preset).player_counts:
                if (preset, n) != ("pineapple", 2):
                    cases.append((preset, n, False))
    results = []
    for preset, n, wrapped in cases:
        closed = not rules_for(preset).is_open_face
        hands = max(10, args.hands // 20) if closed else args.hands
        print(f"{preset} x{n} {'wrapped' if wrapped else 'raw'} ...", file=sys.stderr)
        results.append(measure(preset, n, hands, args.repeats, wrapped))

    print(
        "| Preset | Players | Environment | Actions/s | `step()` calls/s | Actions/hand | µs/hand |"
    )
    print("|---|---:|---|---:|---:|---:|---:|")
    for r in results:
        rates = [f"{r['actions_per_second']:,.0f}", f"{r['steps_per_second']:,.0f}"]
        cells = [r["preset"], r["players"], r["env"], *rates, r["actions_per_hand"],
                 r["us_per_hand"]]  # fmt: skip
        print("| " + " | ".join(map(str, cells)) + " |")
    print("\nPer CPU second of this process (one core); classic presets include the set solver.")
    ref = results[0]["actions_per_second"]
    met = "meets" if ref >= TARGET else "MISSES"
    print(f"Heads-up Pineapple (`raw_env`) {met} the target of {TARGET:,.0f} actions/s.")
    # A truncated episode is less than the hand it is counted as.
    problems = [short(f"{r['preset']} x{r['players']} {r['env']}: whole hands", r["whole_hands"],
                      r["hands"]) for r in results]  # fmt: skip
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(results, indent=2))
    return verdict("bench_env", problems)


if __name__ == "__main__":
    sys.exit(main())
