"""How well ``mc``'s rollouts foresee its own fouls and Fantasyland at the table.

    PYTHONPATH=src .venv/bin/python bench/bench_mc_calibration.py \\
        --a "mc:3:value=1,fills=0,screen_fills=0" --b mc-v1:3 --sessions 100 --seed 23100

Plays heads-up sessions of bot A against bot B (each session twice, seats swapped; the
bot specifications of ``bench_mc_bots.py``). At every open-face street decision of A it
keeps what the rollouts said of the placement A chose (its foul rate, its Fantasyland
rate, its mean points) and, when the hand is settled, whether A's board fouled and
earned Fantasyland. Prints one JSON line per street (cards on the board before it): the
predicted and realised rates, over all decisions and by bins of the prediction. A
prediction above the realised rate means the rollouts' continuation (the playout policy)
fouls, or misses Fantasyland, more than the bot itself does at the table. Fantasyland
hands (set at once) have no street decisions and are not counted. See docs/bots-research.md,
*Round fifteen*.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from typing import Any

import numpy as np

from bench_mc_bots import BotSpec
from chinese_poker.engine import Session, play_hand
from chinese_poker.rules import rules_for
from shortfall import verdict

FOUL_BINS = (0.0, 0.05, 0.15, 0.3, 1.01)
FL_BINS = (0.0, 0.05, 0.2, 0.5, 1.01)


class Unanalysed(Exception):
    """A street decision of A came without its rollouts' analysis: leaving it out would
    measure fewer decisions than were played, and only those the rollouts analysed."""


class Recorder:
    """Plays as ``bot`` and keeps (cards placed before, foul rate, Fantasyland rate, mean)
    of the option it chose at each street decision of the current hand."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.hand: list[tuple[int, float, float, float]] = []

    def act(self, view: Any) -> Any:
        if hasattr(self.bot, "last_analysis"):
            self.bot.last_analysis = []  # not the previous decision's, if it gives none
        action = self.bot.act(view)
        dec = view.decisions[0]
        if dec.kind == "street":
            if not getattr(self.bot, "last_analysis", None):
                raise Unanalysed(
                    f"{getattr(self.bot, 'name', 'bot A')} gave no analysis of a street"
                    f" decision (cards placed {view.board_of(dec.seat, dec.hand).placed}):"
                    " it plays no rollouts here"
                )
            o = self.bot.last_analysis[0]
            placed = view.board_of(dec.seat, dec.hand).placed
            self.hand.append((placed, o.foul_probability, o.fantasyland_probability, o.value))
        return action


def play(preset: str, a: BotSpec, b: BotSpec, seed: int, sessions: int) -> np.ndarray:
    """Rows (placed, predicted foul, predicted FL, predicted mean, fouled, earned FL,
    points of the hand) of every street decision of A."""
    rules = rules_for(preset)
    rows: list[tuple[float, ...]] = []
    for s in range(seed, seed + sessions):
        for names in (["A0", "B1"], ["B0", "A1"]):
            session = Session(rules, names, seed=s)
            agents: dict[str, Any] = {}
            for i, name in enumerate(names):
                if name.startswith("A"):
                    agents[name] = Recorder(a.build(s * 8 + i))
                else:
                    agents[name] = b.build(s * 8 + i)
            me = names[0] if names[0].startswith("A") else names[1]
            while not session.over:
                table = session.start_hand()
                agents[me].hand = []
                play_hand(table, [agents[n] for n in table.players])
                result = session.finish_hand()
                settlement = table.settlement
                assert settlement is not None
                fouled = me in settlement.fouled
                earned = table.players.index(me) in table.fantasyland_next
                points = result.totals.get(me, 0)
                for placed, pf, pfl, mean in agents[me].hand:
                    rows.append((placed, pf, pfl, mean, fouled, earned, points))
        print(f"  session {s}: {len(rows)} decisions", file=sys.stderr, flush=True)
    return np.array(rows, dtype=np.float64).reshape(-1, 7)


def _bins(pred: np.ndarray, real: np.ndarray, edges: tuple[float, ...]) -> list[dict[str, Any]]:
    out = []
    for lo, hi in itertools.pairwise(edges):
        m = (pred >= lo) & (pred < hi)
        if m.any():
            out.append({"from": lo, "to": min(hi, 1.0), "decisions": int(m.sum()),
                        "predicted": round(float(pred[m].mean()), 4),
                        "realised": round(float(real[m].mean()), 4)})  # fmt: skip
    return out


def report(rows: np.ndarray) -> list[dict[str, Any]]:
    out = []
    for placed in sorted({int(x) for x in rows[:, 0]}):
        r = rows[rows[:, 0] == placed]
        out.append({
            "placed_before": placed,
            "decisions": len(r),
            "foul": {"predicted": round(float(r[:, 1].mean()), 4),
                     "realised": round(float(r[:, 4].mean()), 4),
                     "bins": _bins(r[:, 1], r[:, 4], FOUL_BINS)},
            "fantasyland": {"predicted": round(float(r[:, 2].mean()), 4),
                            "realised": round(float(r[:, 5].mean()), 4),
                            "bins": _bins(r[:, 2], r[:, 5], FL_BINS)},
            "mean_predicted": round(float(r[:, 3].mean()), 3),
        })  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--a", default="mc:3")
    p.add_argument("--b", default="mc-v1:3")
    p.add_argument("--preset", default="pineapple")
    p.add_argument("--sessions", type=int, default=100)
    p.add_argument("--seed", type=int, default=23_100)
    args = p.parse_args(argv)
    if args.sessions < 1:
        print("--sessions must be at least 1", file=sys.stderr)
        return 2
    if not rules_for(args.preset).is_open_face:  # a classic hand has no streets to foresee
        print(f"--preset {args.preset} is not open-face: no street decisions", file=sys.stderr)
        return 2
    try:
        rows = play(args.preset, BotSpec(args.a), BotSpec(args.b), args.seed, args.sessions)
    except Unanalysed as exc:
        return verdict("bench_mc_calibration", [str(exc)])
    for line in report(rows):
        print(json.dumps({"preset": args.preset, "a": args.a, "b": args.b, "seed": args.seed,
                          "sessions": args.sessions, **line}), flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
