"""A learned value of a partial board, fitted by value iteration over self-play boards.

The fast policy (:mod:`chinese_poker.ai.rollout`) values a placement by completions:
random draws of the cards to come, each placed in the best of a few random arrangements.
Every arrangement sees all of its cards at once, hindsight a player does not have, and
the policy is bolder than play can be (docs/bots.md, *Round two*). This module learns a
value that looks only one street ahead, as a player does:

1. boards are completed from scratch (by the completion policy at first, then by the
   table's own policy), a quarter of the streets but the last placed at random, and
   every board after every street but the last is kept with the cards still unseen;
2. from the last street back to the first, each kept board's target is the mean, over
   random draws of the next street, of the best placement's value: the exact board value
   (royalties, Fantasyland's value, the line strength, the foul penalty, as the policy
   scores a finished board) when the board is then complete, else the table's value of
   the board after it, fitted a step before;
3. a ridge regression of the targets on the five feature indices of
   :func:`~chinese_poker.ai.rollout.residual_features`, one row per number of cards
   placed, gives the table.

With ``Level.value`` = 1 and ``Level.fills`` = 0 the policy places each street by
this table alone (no completions), and with ``screen_fills`` = 0 the first street's
screen does too. Tables are shipped for the presets of :data:`PRESETS` (Pineapple,
Progressive Pineapple and plain OFC). Rebuild them with ``python -m
chinese_poker.ai.value --write`` (docs/bots.md, *Round twelve* and *Round thirteen*).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

from chinese_poker.ai import rollout
from chinese_poker.ai.residual import fingerprint, fit, table_of
from chinese_poker.ai.rollout import (
    POL_FOUL_PENALTY,
    POL_W,
    RES_FEATURES,
    _board_value,
    _jit,
    _new_board,
    _pattern_sums,
    _policy_street,
    _random_street,
    _residual,
    _scratch_boards,
)
from chinese_poker.rules import Rules, RulesError, rules_for

__all__ = ["PRESETS", "TRAINING", "iterate", "train", "value_path", "value_table"]

#: The presets a table is trained and shipped for (rules with the same kernel arrays,
#: :func:`~chinese_poker.ai.residual.fingerprint`, share it).
PRESETS = ("pineapple", "pineapple-progressive", "ofc")
#: How the shipped tables were trained.
TRAINING = {"boards": 60_000, "seed": 200, "exploration": 0.25, "draws": 24,
            "iterations": 5, "pooled": 2, "fills": 8, "choice": 5, "repair": 1,
            "ridge": 20.0}  # fmt: skip

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]


def value_path() -> str:
    """Where the shipped tables are kept (in the package's data)."""
    return str(resources.files("chinese_poker") / "data" / "board_value.json")


@lru_cache(maxsize=1)
def _shipped() -> dict[str, Any]:
    with open(value_path(), encoding="utf-8") as f:
        return dict(json.load(f))


@lru_cache(maxsize=8)
def value_table(rules: Rules) -> F64:
    """The shipped value table (14 x features) for ``rules``; a RulesError when none was
    trained for rules with the same kernel arrays."""
    table = table_of(_shipped(), rules)
    if table is not None:
        return table
    raise RulesError(
        "the learned board value was trained for the presets "
        f"{', '.join(PRESETS)} only; these rules differ in what the policy values "
        "(use a level with completions, fills >= 1)"
    )


@_jit
def _states(
    n_boards: int, seed: int, st_cards: Any, st_place: Any, st_disc: Any, n_fills: int,
    choice: int, exploration: float,
    ev: Any, roy: Any, flv: Any, st: Any, vf: Any, pol: Any,
    decks: Any, s_code: Any, s_cnt: Any, s_pos: Any, s_board: Any,
) -> int:  # fmt: skip
    """Boards completed from scratch by the policy (``n_fills`` 0: the table's); every
    board after every street but the last is kept (code sums, counts, cards dealt so
    far, which deck)."""
    codes = ev[0]
    deck, scratch, pref, code, cnt, dz = _scratch_boards(seed, n_fills, choice, pol)
    n_streets = st_cards.shape[0]
    row = 0
    for b in range(n_boards):
        _new_board(deck, code, cnt, dz)
        decks[b] = deck
        pos = 0
        for k in range(n_streets - 1):
            n = st_cards[k]
            if np.random.random() < exploration:
                _random_street(code, cnt, dz, deck, pos, n, st_place[k], st_disc[k], codes)
            else:
                _policy_street(code, cnt, dz, deck, pos, n, st_place[k], st_disc[k], 52,
                               n_fills, choice, 0, ev, roy, flv, st, vf, pol, scratch,
                               pref)  # fmt: skip
            pos += n
            s_code[row] = code
            s_cnt[row] = cnt
            s_pos[row] = pos
            s_board[row] = b
            row += 1
    return row


@_jit
def _targets(
    rows: Any, decks: Any, s_code: Any, s_cnt: Any, s_pos: Any, s_board: Any,
    n_next: int, place_next: int, disc_next: int, n_draws: int, seed: int,
    ev: Any, roy: Any, flv: Any, st: Any, vf: Any, pol: Any, out: Any,
) -> None:  # fmt: skip
    """For each kept board ``rows[i]``: the mean over ``n_draws`` draws of the next street
    (from the cards it has not seen) of its best placement's value."""
    codes, t3, t5, fo = ev
    np.random.seed(seed)
    w = pol[POL_W]
    foul_penalty = pol[POL_FOUL_PENALTY]
    rest = np.empty(52, dtype=np.int64)
    code = np.empty(3, dtype=np.int64)
    cnt = np.empty(3, dtype=np.int64)
    n_discards = n_next if disc_next == 1 else 1
    n_patterns = 3**place_next
    for i in range(rows.shape[0]):
        r = rows[i]
        b = s_board[r]
        pos = s_pos[r]
        n_rest = 52 - pos
        for j in range(n_rest):
            rest[j] = decks[b, pos + j]
        for line in range(3):
            code[line] = s_code[r, line]
            cnt[line] = s_cnt[r, line]
        placed_after = cnt[0] + cnt[1] + cnt[2] + place_next
        total = 0.0
        for _ in range(n_draws):
            for j in range(n_next):  # partial Fisher-Yates: rest[0:n_next] is the street
                k = j + np.random.randint(0, n_rest - j)
                c = rest[k]
                rest[k] = rest[j]
                rest[j] = c
            best = -1e300
            for d in range(n_discards):
                if disc_next != 1:
                    d = -1
                for a in range(n_patterns):
                    ok, c0, c1, c2, k0, k1 = _pattern_sums(code, cnt, rest, 0, n_next, d, a,
                                                           codes)  # fmt: skip
                    if not ok:
                        continue
                    if placed_after >= 13:
                        v = _board_value(c0, c1, c2, t3, t5, fo, roy, flv, st, w, foul_penalty)
                    else:
                        v = _residual(c0, c1, c2, k0, k1, placed_after - k0 - k1, t5, fo, vf)
                    if v > best:
                        best = v
            total += best
        out[i] = total / n_draws


States = tuple[I64, I64, I64, I64, I64]  # decks, code sums, counts, cards dealt, deck


def _play(rules: Rules, opts: dict[str, Any], table: F64, n_fills: int, seed: int) -> States:
    """Boards played from scratch by the policy (``n_fills`` 0: the table's own)."""
    t = _tables(rules, opts, table)
    streets = rules.streets
    boards = opts["boards"]
    rows = boards * (len(streets) - 1)
    decks = np.zeros((boards, 52), dtype=np.int64)
    s_code = np.zeros((rows, 3), dtype=np.int64)
    s_cnt = np.zeros((rows, 3), dtype=np.int64)
    s_pos = np.zeros(rows, dtype=np.int64)
    s_board = np.zeros(rows, dtype=np.int64)
    st_cards = np.array([d for d, _ in streets], dtype=np.int64)
    st_place = np.array([p for _, p in streets], dtype=np.int64)
    _states(boards, seed % (2**31 - 1), st_cards, st_place, st_cards - st_place, n_fills,
            opts["choice"], opts["exploration"], t.ev, t.roy, t.flv, t.strength, t.vf,
            t.policy, decks, s_code, s_cnt, s_pos, s_board)  # fmt: skip
    return decks, s_code, s_cnt, s_pos, s_board


def _pool(states: list[States]) -> States:
    """Several sets of boards as one (their deck indices shifted)."""
    shift = np.cumsum([0] + [len(x[0]) for x in states[:-1]])
    return (
        np.concatenate([x[0] for x in states]),
        np.concatenate([x[1] for x in states]),
        np.concatenate([x[2] for x in states]),
        np.concatenate([x[3] for x in states]),
        np.concatenate([x[4] + k for x, k in zip(states, shift, strict=True)]),
    )


def _tables(rules: Rules, opts: dict[str, Any], table: F64) -> rollout.Tables:
    base = rollout.tables_for(rules).with_policy(repair=opts["repair"])
    return dataclasses.replace(base, residual=table)


def _refit(rules: Rules, opts: dict[str, Any], states: States, seed: int) -> F64:
    """The table fitted to the boards ``states`` row by row, from the last street back
    (each row's targets read the row fitted before it)."""
    t = _tables(rules, opts, np.zeros((14, RES_FEATURES)))
    decks, s_code, s_cnt, s_pos, s_board = states
    streets = rules.streets
    placed = s_cnt.sum(axis=1)
    new = np.zeros((14, RES_FEATURES))
    pl = rollout.partial_line_table()
    feats = _features(s_code, s_cnt, t.t5, t.fo, pl)
    for k in range(len(streets) - 2, -1, -1):
        n_placed = int(sum(p for _, p in streets[: k + 1]))
        sel = np.flatnonzero(placed == n_placed)
        d_next, p_next = streets[k + 1]
        target = np.zeros(len(sel))
        _targets(sel, decks, s_code, s_cnt, s_pos, s_board, d_next, p_next,
                 int(d_next - p_next), opts["draws"], (seed + k) % (2**31 - 1), t.ev, t.roy,
                 t.flv, t.strength, (pl, new), t.policy, target)  # fmt: skip
        row = fit(feats[sel], placed[sel], target, ridge=opts["ridge"])
        new[n_placed] = row[n_placed]
    return new


def iterate(rules: Rules, **training: Any) -> list[F64]:
    """The table after each round of value iteration: boards from the completion policy
    first, then from each table's own policy, every round fitted on its boards and the
    round before's (so that the policy's boards do not swing between rounds)."""
    opts = {**TRAINING, **training}
    table = np.zeros((14, RES_FEATURES))
    played: list[States] = []
    out = []
    for it in range(opts["iterations"]):
        fills = opts["fills"] if it == 0 else 0
        played.append(_play(rules, opts, table, fills, opts["seed"] + 1000 * it))
        table = _refit(rules, opts, _pool(played[-opts["pooled"] :]), opts["seed"] + 1000 * it)
        out.append(table)
    return out


@_jit
def _features(s_code: Any, s_cnt: Any, t5: Any, fo: Any, pl: Any) -> Any:
    out = np.empty((s_code.shape[0], 5), dtype=np.int64)
    for i in range(s_code.shape[0]):
        f = rollout._residual_features(s_code[i, 0], s_code[i, 1], s_code[i, 2], s_cnt[i, 0],
                                       s_cnt[i, 1], s_cnt[i, 2], t5, fo, pl)  # fmt: skip
        for j in range(5):
            out[i, j] = f[j]
    return out


def train(preset: str, **training: Any) -> dict[str, Any]:
    """One shipped entry: the table for ``preset`` with how it was made."""
    opts = {**TRAINING, **training}
    rules = rules_for(preset)
    table = iterate(rules, **opts)[-1]
    placed = [int(sum(p for _, p in rules.streets[: k + 1])) for k in range(len(rules.streets) - 1)]
    return {
        "preset": preset,
        "fingerprint": fingerprint(rules),
        "training": opts,
        "rows": {str(k): [round(float(x), 4) for x in table[k]] for k in placed},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m chinese_poker.ai.value",
        description="Fit the learned value of a partial board by value iteration.",
    )
    parser.add_argument("--boards", type=int, default=TRAINING["boards"])
    parser.add_argument("--seed", type=int, default=TRAINING["seed"])
    parser.add_argument("--write", action="store_true", help="replace the shipped tables")
    args = parser.parse_args(argv)
    if args.boards < 1:
        print("--boards must be at least 1", file=sys.stderr)
        return 2
    data = {
        "what": "learned value of a partial board (chinese_poker.ai.value)",
        "features": RES_FEATURES,
        "tables": [train(p, boards=args.boards, seed=args.seed) for p in PRESETS],
    }
    text = json.dumps(data, separators=(",", ":")) + "\n"
    if args.write:
        with open(value_path(), "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {value_path()}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
