"""A learned correction of the playout policy's value, fitted by self-play of the policy.

The fast policy (:mod:`chinese_poker.ai.rollout`) values a placement by the best of a few
random arrangements of random completions. That estimate is biased, and not evenly: each
arrangement sees every card to come at once, and only a few are tried, so some boards
are overrated (a low pair on top with an empty middle) and others underrated. This module
measures the bias and ships it as arrays:

1. the policy completes boards from scratch, each street chosen as it plays (a quarter
   of the streets but the last placed at random instead, so that the boards it would
   not choose are seen too);
2. after every street but the last it records the board's five feature indices
   (:func:`~chinese_poker.ai.rollout.residual_features`) and the completions' estimate
   of it (fresh completions), and at the end the board value the policy scores (the same
   royalties, Fantasyland value, line strength and foul penalty);
3. a ridge regression of realised minus estimated value on the features, one per
   number of cards placed, gives the table.

The policy then adds the table's correction to every placement's value
(``Level.residual``, the weight). Rebuild the shipped tables with
``.venv/bin/python -m chinese_poker.ai.residual --write`` (docs/bots-research.md, *Round eleven*).
This module is the trainer; what play needs, the tables' loader (:func:`residual_table`),
is in :mod:`chinese_poker.ai.rollout` and re-exported here.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np
import numpy.typing as npt

from chinese_poker.ai import rollout
from chinese_poker.ai.rollout.features import RES_FEATURES, feature_indices
from chinese_poker.ai.rollout.jit import kernel
from chinese_poker.ai.rollout.learned import CORRECTION_PRESETS as PRESETS
from chinese_poker.ai.rollout.learned import residual_path
from chinese_poker.ai.rollout.parameters import (
    POL_FOUL_PENALTY,
    POL_RESIDUAL,
    POL_W,
    Tables,
    fingerprint,
    residual_table,
)
from chinese_poker.ai.rollout.playout import new_board, scratch_boards, static_values
from chinese_poker.ai.rollout.policy import board_value, policy_street, random_street
from chinese_poker.rules import Rules, rules_for

__all__ = ["PRESETS", "fingerprint", "fit", "residual_path", "residual_table", "train"]

#: How the shipped tables were trained (the policy of ``mc``'s Pineapple level 3).
TRAINING = {"boards": 150_000, "seed": 100, "exploration": 0.25, "fills": 8, "choice": 5,
            "repair": 1, "ridge": 20.0}  # fmt: skip

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]


@kernel
def _collect(
    n_boards: int, seed: int, st_cards: Any, st_place: Any, st_disc: Any, n_fills: int,
    choice: int, exploration: float, pt: Any,
    feats: Any, placed: Any, estimate: Any, realised: Any,
) -> int:  # fmt: skip
    ev, roy, flv, st, vf, pol = pt
    codes, t3, t5, fo = ev
    deck, scratch, pref, code, cnt, dz = scratch_boards(seed, n_fills, choice, pol)
    one_code = np.empty((1, 3), dtype=np.int64)
    one_cnt = np.empty((1, 3), dtype=np.int64)
    est = np.empty(1)
    est_foul = np.empty(1)
    n_streets = st_cards.shape[0]
    row = 0
    for _ in range(n_boards):
        new_board(deck, code, cnt, dz)
        pos = 0
        first = row
        for k in range(n_streets):
            n = st_cards[k]
            if k < n_streets - 1 and np.random.random() < exploration:
                random_street(code, cnt, dz, deck, pos, n, st_place[k], st_disc[k], codes)
            else:
                policy_street(code, cnt, dz, deck, pos, n, st_place[k], st_disc[k], 52, n_fills,
                              choice, 0, ev, roy, flv, st, vf, pol, scratch,
                              pref)  # fmt: skip
            pos += n
            if k < n_streets - 1:
                f = feature_indices(code[0], code[1], code[2], cnt[0], cnt[1], cnt[2], t5,
                                    fo, vf[0])  # fmt: skip
                for i in range(5):
                    feats[row, i] = f[i]
                placed[row] = cnt[0] + cnt[1] + cnt[2]
                one_code[0] = code
                one_cnt[0] = cnt
                static_values(deck[pos:], np.random.randint(0, 2**31 - 1), n_fills, choice,
                              one_code, one_cnt, pt, est, est_foul)  # fmt: skip
                estimate[row] = est[0]
                row += 1
        value = board_value(code[0], code[1], code[2], t3, t5, fo, roy, flv, st,
                            pol[POL_W], pol[POL_FOUL_PENALTY])  # fmt: skip
        for r in range(first, row):
            realised[r] = value
    return row


def _training_tables(rules: Rules, repair: int) -> Tables:
    t = rollout.tables_for(rules).with_policy(repair=repair)
    assert t.policy[POL_RESIDUAL] == 0.0  # the estimates are the uncorrected policy's
    return t


def collect(
    rules: Rules, boards: int, *, seed: int, exploration: float = 0.25, fills: int = 8,
    choice: int = 5, repair: int = 1,
) -> tuple[I64, I64, F64, F64]:  # fmt: skip
    """Self-play records: (features N x 5, cards placed N, estimate N, realised N)."""
    t = _training_tables(rules, repair)
    streets = rules.streets
    rows = boards * (len(streets) - 1)
    feats = np.zeros((rows, 5), dtype=np.int64)
    placed = np.zeros(rows, dtype=np.int64)
    estimate = np.zeros(rows)
    realised = np.zeros(rows)
    n = _collect(boards, seed % (2**31 - 1),
                 np.array([d for d, _ in streets], dtype=np.int64),
                 np.array([p for _, p in streets], dtype=np.int64),
                 np.array([d - p for d, p in streets], dtype=np.int64), fills, choice,
                 exploration, t.policy_tables, feats, placed,
                 estimate, realised)  # fmt: skip
    return feats[:n], placed[:n], estimate[:n], realised[:n]


def fit(
    feats: I64, placed: I64, target: F64, *, ridge: float = 20.0, width: int = RES_FEATURES
) -> F64:
    """Ridge regression of ``target`` on the one-hot features (``feats``: N x the
    indices of a board's features, -1 where it has none), one per cards placed: the
    table (14 x ``width``) whose entries for a board's features sum to the fitted value."""
    table = np.zeros((14, width))
    for k in np.unique(placed):
        m = placed == k
        f, y = feats[m], target[m]
        gram = np.zeros((width, width))
        rhs = np.zeros(width)
        for i in range(f.shape[1]):
            on = f[:, i] >= 0
            np.add.at(rhs, f[on, i], y[on])
            for j in range(f.shape[1]):
                both = on & (f[:, j] >= 0)
                np.add.at(gram, (f[both, i], f[both, j]), 1.0)
        gram[np.diag_indices(width)] += ridge
        table[int(k)] = np.linalg.solve(gram, rhs)
    return table


def train(preset: str, **training: Any) -> dict[str, Any]:
    """One shipped entry: the table for ``preset`` with how it was made."""
    opts = {**TRAINING, **training}
    rules = rules_for(preset)
    feats, placed, estimate, realised = collect(
        rules, opts["boards"], seed=opts["seed"], exploration=opts["exploration"],
        fills=opts["fills"], choice=opts["choice"], repair=opts["repair"],
    )  # fmt: skip
    table = fit(feats, placed, realised - estimate, ridge=opts["ridge"])
    return {
        "preset": preset,
        "fingerprint": fingerprint(rules),
        "training": opts,
        "records": len(placed),
        "rows": {
            str(int(k)): [round(float(x), 4) for x in table[int(k)]] for k in np.unique(placed)
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m chinese_poker.ai.residual",
        description="Fit the playout policy's learned correction by self-play.",
    )
    parser.add_argument("--boards", type=int, default=TRAINING["boards"])
    parser.add_argument("--seed", type=int, default=TRAINING["seed"])
    parser.add_argument("--write", action="store_true", help="replace the shipped tables")
    args = parser.parse_args(argv)
    if args.boards < 1:
        print("--boards must be at least 1", file=sys.stderr)
        return 2
    data = {
        "what": "learned correction of the playout policy's completion value "
        "(chinese_poker.ai.residual)",
        "features": RES_FEATURES,
        "tables": [train(p, boards=args.boards, seed=args.seed) for p in PRESETS],
    }
    text = json.dumps(data, separators=(",", ":")) + "\n"
    if args.write:
        with open(residual_path(), "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {residual_path()}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
