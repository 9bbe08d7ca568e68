"""A learned value of a partial board, fitted by value iteration over self-play boards.

The fast policy (:mod:`chinese_poker.ai.rollout`) values a placement by completions:
random draws of the cards to come, each placed in the best of a few random arrangements.
Every arrangement sees all of its cards at once, hindsight a player does not have, and
the policy is bolder than play can be (docs/bots-research.md, *Round two*). This module learns a
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
Progressive Pineapple and plain OFC). Rebuild them with ``.venv/bin/python -m
chinese_poker.ai.value --write`` (docs/bots-research.md, *Round twelve* and *Round thirteen*).

**Refined on search** (``Level.value`` = 2, :attr:`~chinese_poker.ai.rollout.BoardValue.SEARCH`;
docs/bots-research.md, *Round fourteen*). The table above values a board by what the policy
alone makes of it, alone at the table. ``mc`` plays each street by a search over
rollouts against the opponents' boards, so its own choices are a better policy than
the table's. :func:`search_samples` plays heads-up sessions of ``mc`` in value mode and
analyses every decision's candidates with the same number of rollouts each (no
successive halving, whose early cuts would bias the means); :func:`refine` fits a
correction of the table to those means by a ridge regression within each decision
(each decision's own mean is taken out, since only the order of a street's placements
matters to the policy), so that the policy imitates the search. ``.venv/bin/python -m
chinese_poker.ai.value --search --write`` rebuilds ``data/board_value_search.json``
(Pineapple, :data:`SEARCH_PRESETS`).

**With the live cards** (``Level.value`` = 3, :attr:`~chinese_poker.ai.rollout.BoardValue.LIVE`;
docs/bots-research.md, *Round fifteen*). The five features cannot see whether a draw's cards are
still live. The same value iteration fits a row that also has the features of
:data:`~chinese_poker.ai.rollout.LIVE_FEATURES` (a flush draw by the live cards of its
suit, a pair by those of its rank, a four-card straight draw by its live outs, a queen,
king or ace on top by the live cards of its rank), counted from the cards not yet dealt;
the training deals an opponent's streets from each board's deck before ours, so that
the live counts are about those of heads-up play (his thrown cards are dealt away, which
at the table stay unseen and live, and he always places first). ``.venv/bin/python -m
chinese_poker.ai.value --live --write`` rebuilds ``data/board_value_live.json``
(:data:`LIVE_PRESETS`).

This module is the trainer; what play needs, the tables' loader (:func:`value_table`), is in
:mod:`chinese_poker.ai.rollout` and re-exported here.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from chinese_poker.ai import rollout
from chinese_poker.ai.mc import THROWING_LEVELS, MonteCarloBot, analyse_street
from chinese_poker.ai.residual import fit
from chinese_poker.ai.rollout.features import (
    LIVE_COUNTS,
    RES_FEATURES,
    VALUE_FEATURES,
    count_live,
    feature_indices,
    learned_estimate,
    live_feature_indices,
)
from chinese_poker.ai.rollout.jit import kernel
from chinese_poker.ai.rollout.learned import (
    LIVE_PRESETS,
    SEARCH_PRESETS,
    BoardValue,
    live_value_path,
    search_value_path,
    value_path,
)
from chinese_poker.ai.rollout.learned import VALUE_PRESETS as PRESETS
from chinese_poker.ai.rollout.parameters import (
    POL_FOUL_PENALTY,
    POL_W,
    fingerprint,
    value_table,
)
from chinese_poker.ai.rollout.playout import new_board, scratch_boards
from chinese_poker.ai.rollout.policy import (
    board_value,
    pattern_sums,
    policy_street,
    random_street,
)
from chinese_poker.engine import Session, play_hand
from chinese_poker.rules import Rules, rules_for

__all__ = [
    "LIVE_PRESETS",
    "LIVE_TRAINING",
    "PRESETS",
    "SEARCH_PRESETS",
    "SEARCH_TRAINING",
    "TRAINING",
    "SearchSamples",
    "iterate",
    "live_value_path",
    "refine",
    "search_samples",
    "search_value_path",
    "session_blocks",
    "train",
    "train_search",
    "value_path",
    "value_table",
]

#: How the shipped tables were trained.
TRAINING = {"boards": 60_000, "seed": 200, "exploration": 0.25, "draws": 24,
            "iterations": 5, "pooled": 2, "fills": 8, "choice": 5, "repair": 1,
            "ridge": 20.0}  # fmt: skip
#: How the shipped tables with the live cards' features were trained: as
#: :data:`TRAINING`, with one opponent's streets dealt from each board's deck.
LIVE_TRAINING = {**TRAINING, "live": 1, "burn": 1}

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]


@kernel
def _states(
    n_boards: int, seed: int, st_cards: Any, st_place: Any, st_disc: Any, n_fills: int,
    choice: int, exploration: float, burn: int, pt: Any,
    decks: Any, s_code: Any, s_cnt: Any, s_pos: Any, s_board: Any,
) -> int:  # fmt: skip
    """Boards completed from scratch by the policy (``n_fills`` 0: the table's); every
    board after every street but the last is kept (code sums, counts, cards dealt so
    far, which deck). Before each street ``burn`` opponents' streets of as many cards are
    dealt from the same deck and not played (they place first on every street): cards
    the live-card features must not count."""
    ev, roy, flv, st, vf, pol = pt
    codes = ev[0]
    deck, scratch, pref, code, cnt, dz = scratch_boards(seed, n_fills, choice, pol)
    n_streets = st_cards.shape[0]
    row = 0
    for b in range(n_boards):
        new_board(deck, code, cnt, dz)
        decks[b] = deck
        pos = 0
        for k in range(n_streets - 1):
            n = st_cards[k]
            pos += n * burn
            if np.random.random() < exploration:
                random_street(code, cnt, dz, deck, pos, n, st_place[k], st_disc[k], codes)
            else:
                policy_street(code, cnt, dz, deck, pos, n, st_place[k], st_disc[k], 52, n_fills,
                              choice, 0, ev, roy, flv, st, vf, pol, scratch,
                              pref)  # fmt: skip
            pos += n
            s_code[row] = code
            s_cnt[row] = cnt
            s_pos[row] = pos
            s_board[row] = b
            row += 1
    return row


@kernel
def _targets(
    rows: Any, decks: Any, s_code: Any, s_cnt: Any, s_pos: Any, s_board: Any,
    n_next: int, place_next: int, disc_next: int, n_draws: int, seed: int, burn: int,
    pt: Any, out: Any,
) -> None:  # fmt: skip
    """For each kept board ``rows[i]``: the mean over ``n_draws`` draws of the next street
    (from the cards it has not seen, with ``burn`` opponents' streets after it) of its
    best placement's value (``pt``: the policy's tables)."""
    ev, roy, flv, st, vf, pol = pt
    codes, t3, t5, fo = ev
    live = np.empty(LIVE_COUNTS, dtype=np.int64)
    wide = vf[1].shape[1] > RES_FEATURES
    n_drawn = n_next * (1 + burn)
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
            # partial Fisher-Yates: rest[0:n_next] is the street, then the opponents'
            for j in range(min(n_drawn, n_rest)):
                k = j + np.random.randint(0, n_rest - j)
                c = rest[k]
                rest[k] = rest[j]
                rest[j] = c
            if wide:
                count_live(rest, min(n_drawn, n_rest), n_rest, live)
            best = -1e300
            for d in range(n_discards):
                if disc_next != 1:
                    d = -1
                for a in range(n_patterns):
                    ok, c0, c1, c2, k0, k1 = pattern_sums(code, cnt, rest, 0, n_next, d, a,
                                                           codes)  # fmt: skip
                    if not ok:
                        continue
                    if placed_after >= 13:
                        v = board_value(c0, c1, c2, t3, t5, fo, roy, flv, st, w, foul_penalty)
                    else:
                        v = learned_estimate(c0, c1, c2, k0, k1, placed_after - k0 - k1, t5, fo,
                                             vf, live, codes)  # fmt: skip
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
            opts["choice"], opts["exploration"], opts.get("burn", 0), t.policy_tables,
            decks, s_code, s_cnt, s_pos, s_board)  # fmt: skip
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
    width = _width(opts)
    t = _tables(rules, opts, np.zeros((14, width)))
    decks, s_code, s_cnt, s_pos, s_board = states
    streets = rules.streets
    placed = s_cnt.sum(axis=1)
    new = np.zeros((14, width))
    pl = rollout.partial_line_table()
    feats = _features(s_code, s_cnt, decks, s_pos, s_board, width > RES_FEATURES, t.codes,
                      t.t5, t.fo, pl)  # fmt: skip
    for k in range(len(streets) - 2, -1, -1):
        n_placed = int(sum(p for _, p in streets[: k + 1]))
        sel = np.flatnonzero(placed == n_placed)
        d_next, p_next = streets[k + 1]
        target = np.zeros(len(sel))
        _targets(sel, decks, s_code, s_cnt, s_pos, s_board, d_next, p_next,
                 int(d_next - p_next), opts["draws"], (seed + k) % (2**31 - 1),
                 opts.get("burn", 0), (t.ev, t.roy, t.flv, t.strength, (pl, new), t.policy),
                 target)  # fmt: skip
        row = fit(feats[sel], placed[sel], target, ridge=opts["ridge"], width=width)
        new[n_placed] = row[n_placed]
    return new


def iterate(rules: Rules, **training: Any) -> list[F64]:
    """The table after each round of value iteration: boards from the completion policy
    first, then from each table's own policy, every round fitted on its boards and the
    round before's (so that the policy's boards do not swing between rounds)."""
    opts = {**TRAINING, **training}
    burn = opts.get("burn", 0)
    dealt = (1 + burn) * sum(d for d, _ in rules.streets)
    if burn < 0:
        raise ValueError(f"burn must be 0 or more opponents, not {burn}")
    if dealt > 52:
        raise ValueError(f"burn={burn}: our streets and the opponents' need {dealt} cards, "
                         "more than a deck's 52")  # fmt: skip
    table = np.zeros((14, _width(opts)))
    played: list[States] = []
    out = []
    for it in range(opts["iterations"]):
        fills = opts["fills"] if it == 0 else 0
        played.append(_play(rules, opts, table, fills, opts["seed"] + 1000 * it))
        table = _refit(rules, opts, _pool(played[-opts["pooled"] :]), opts["seed"] + 1000 * it)
        out.append(table)
    return out


def _width(opts: dict[str, Any]) -> int:
    """The features of a row: with the live cards' (``live``) or without."""
    return VALUE_FEATURES if opts.get("live", 0) else RES_FEATURES


@kernel
def _features(
    s_code: Any, s_cnt: Any, decks: Any, s_pos: Any, s_board: Any, wide: bool, codes: Any,
    t5: Any, fo: Any, pl: Any,
) -> Any:  # fmt: skip
    """The feature indices of each kept board: its five, and when ``wide`` the five of
    its live cards (the rest of its deck; -1: none)."""
    out = np.full((s_code.shape[0], 10 if wide else 5), -1, dtype=np.int64)
    live = np.empty(LIVE_COUNTS, dtype=np.int64)
    for i in range(s_code.shape[0]):
        c0, c1, c2 = s_code[i, 0], s_code[i, 1], s_code[i, 2]
        k0, k1, k2 = s_cnt[i, 0], s_cnt[i, 1], s_cnt[i, 2]
        f = feature_indices(c0, c1, c2, k0, k1, k2, t5, fo, pl)
        for j in range(5):
            out[i, j] = f[j]
        if wide:
            count_live(decks[s_board[i]], s_pos[i], 52, live)
            g = live_feature_indices(c0, c1, c2, k0, k1, k2, pl, codes, live)
            for j in range(5):
                out[i, 5 + j] = g[j]
    return out


def _shipped_rows(rules: Rules, table: F64) -> dict[str, list[float]]:
    """The rows of ``table`` a policy reads (cards placed after each street but the last),
    rounded as they are shipped."""
    streets = rules.streets
    placed = [int(sum(p for _, p in streets[: k + 1])) for k in range(len(streets) - 1)]
    return {str(k): [round(float(x), 4) for x in table[k]] for k in placed}


def train(preset: str, **training: Any) -> dict[str, Any]:
    """One shipped entry: the table for ``preset`` with how it was made."""
    opts = {**TRAINING, **training}
    rules = rules_for(preset)
    table = iterate(rules, **opts)[-1]
    return {
        "preset": preset,
        "fingerprint": fingerprint(rules),
        "training": opts,
        "rows": _shipped_rows(rules, table),
    }


# ===================================================================== refined on search

#: How the shipped table refined on search means was made (:func:`train_search`).
#: The aversion is the one the players' level chooses by (``mc`` level 3 in Pineapple).
SEARCH_TRAINING = {"sessions": 1200, "seed": 950_000, "workers": 2, "level": 3,
                   "rollouts": 200, "aversion": THROWING_LEVELS[3].foul_aversion,
                   "ridge": 1.0}  # fmt: skip


@dataclass(frozen=True)
class SearchSamples:
    """Every candidate ``mc``'s search analysed with full rollouts, one row each:
    ``decision`` (which decision, in order), ``placed`` (cards on the board after the
    candidate), ``features`` (its five feature indices), ``mean`` (its mean points over
    the rollouts), ``foul`` (its foul rate there), ``base`` (the value of the board in
    the table the players placed by) and ``rollouts`` (how many it was given)."""

    decision: I64
    placed: I64
    features: I64
    mean: F64
    foul: F64
    base: F64
    rollouts: I64

    @staticmethod
    def join(parts: list[SearchSamples]) -> SearchSamples:
        """Several sets as one (their decision numbers shifted apart)."""
        shift = 0
        decisions = []
        for p in parts:
            decisions.append(p.decision + shift)
            shift += int(p.decision.max()) + 1 if len(p.decision) else 0
        return SearchSamples(
            np.concatenate(decisions),
            np.concatenate([p.placed for p in parts]),
            np.concatenate([p.features for p in parts]).reshape(-1, 5),
            np.concatenate([p.mean for p in parts]),
            np.concatenate([p.foul for p in parts]),
            np.concatenate([p.base for p in parts]),
            np.concatenate([p.rollouts for p in parts]),
        )


class _Recorder:
    """An ``mc`` player that, after each street decision, analyses every candidate of
    that decision again with ``rollouts`` rollouts each and keeps the rows."""

    def __init__(self, bot: Any, rollouts: int, base: F64, rows: list[tuple[Any, ...]],
                 counter: list[int]) -> None:  # fmt: skip
        self.bot = bot
        self.rollouts = rollouts
        self.base = base
        self.rows = rows
        self.counter = counter
        self.rng = random.Random(bot.rng.getrandbits(32))

    def act(self, view: Any) -> Any:
        action = self.bot.act(view)
        dec = view.decisions[0]
        if dec.kind != "street":
            return action
        sit = rollout.Situation.from_view(view, dec)
        # The level the bot plays these rules at; keep >= every candidate: one round, the
        # same rollouts for each (no halving).
        level = dataclasses.replace(self.bot.level_for(view.rules), keep=300,
                                    rollouts=self.rollouts)  # fmt: skip
        for o in analyse_street(view, dec, level, seed=self.rng.getrandbits(32)):
            if o.rollouts <= 0:  # dropped by the first street's screen
                continue
            cand = sit.candidate(o.action)
            lines = (cand.top, cand.middle, cand.bottom)
            placed = sum(len(x) for x in lines)
            if placed >= 13:  # a finished board: the policy values it exactly
                continue
            f = rollout.residual_features(lines, view.rules)
            base = float(sum(self.base[placed][j] for j in f))
            self.rows.append((self.counter[0], placed, *f, o.value, o.foul_probability, base,
                              o.rollouts))  # fmt: skip
        self.counter[0] += 1
        return action


def search_samples(
    rules: Rules, first_session: int, sessions: int, *, level: int = 3, rollouts: int = 200,
    kind: BoardValue = BoardValue.ITERATED,
) -> SearchSamples:  # fmt: skip
    """Heads-up sessions ``first_session`` .. ``first_session + sessions - 1`` of two
    ``mc`` players at ``level`` placing by the table ``kind`` alone (``fills`` 0),
    every candidate of every street decision analysed with ``rollouts`` rollouts."""
    if kind not in (BoardValue.ITERATED, BoardValue.SEARCH):
        raise ValueError(
            "search samples are of a policy that places by a learned value of the board's "
            f"five features (iterated or search), not {kind.name.lower()}"
        )
    if sessions < 1 or rollouts < 1:
        raise ValueError(f"sessions and rollouts must be at least 1, not {sessions}, {rollouts}")
    base = value_table(rules, kind)
    rows: list[tuple[Any, ...]] = []
    counter = [0]

    def player(seed: int) -> _Recorder:
        bot = MonteCarloBot(seed=seed, level=level)
        bot.params = dataclasses.replace(bot.params, value=int(kind), fills=0, screen_fills=0)
        bot.throwing_params = dataclasses.replace(
            bot.throwing_params, value=int(kind), fills=0, screen_fills=0
        )
        return _Recorder(bot, rollouts, base, rows, counter)

    for s in range(first_session, first_session + sessions):
        session = Session(rules, ["P0", "P1"], seed=s)
        agents = {"P0": player(s * 8), "P1": player(s * 8 + 1)}
        while not session.over:
            table = session.start_hand()
            play_hand(table, [agents[name] for name in table.players])
            session.finish_hand()
    a = np.array(rows, dtype=np.float64).reshape(-1, 11)
    return SearchSamples(a[:, 0].astype(np.int64), a[:, 1].astype(np.int64),
                         a[:, 2:7].astype(np.int64), a[:, 7], a[:, 8], a[:, 9],
                         a[:, 10].astype(np.int64))  # fmt: skip


@kernel
def _demeaned_normal(decision: Any, feats: Any, y: Any, n_features: int) -> Any:
    """The normal equations (X'X, X'y) of one-hot features ``feats`` with each
    decision's mean taken out of X and y (rows sorted by ``decision``)."""
    gram = np.zeros((n_features, n_features))
    rhs = np.zeros(n_features)
    share = np.zeros(n_features)
    seen = np.empty(n_features, dtype=np.int64)
    marked = np.zeros(n_features, dtype=np.bool_)
    n = decision.shape[0]
    i = 0
    while i < n:
        j = i
        while j < n and decision[j] == decision[i]:
            j += 1
        size = j - i
        y_mean = 0.0
        for r in range(i, j):
            y_mean += y[r]
        y_mean /= size
        m = 0
        for r in range(i, j):
            for a in range(5):
                fa = feats[r, a]
                rhs[fa] += y[r] - y_mean
                for b in range(5):
                    gram[fa, feats[r, b]] += 1.0
                if not marked[fa]:
                    marked[fa] = True
                    seen[m] = fa
                    m += 1
                share[fa] += 1.0
        # sum over the decision of (x - mean)(x - mean)' = sum x x' - size * mean mean'
        for p in range(m):
            for q in range(m):
                gram[seen[p], seen[q]] -= share[seen[p]] * share[seen[q]] / size
        for p in range(m):
            share[seen[p]] = 0.0
            marked[seen[p]] = False
        i = j
    return gram, rhs


def refine(samples: SearchSamples, base: F64, *, aversion: float,
           ridge: float = 1.0) -> F64:  # fmt: skip
    """``base`` (14 x features, the table the samples' players placed by) plus, row by
    row, the ridge fit within decisions of the samples' ``mean - aversion x foul`` (what
    ``mc`` chooses by) less the base's value: the table whose order of a street's
    placements follows the search's."""
    if not ridge > 0:
        raise ValueError(f"ridge must be positive, not {ridge}")
    valued = np.asarray(base)[samples.placed[:, None], samples.features].sum(axis=1)
    if not np.allclose(valued, samples.base, atol=1e-6):
        raise ValueError("the samples were valued with another table than base")
    new = np.array(base, dtype=np.float64)
    for k in np.unique(samples.placed):
        sel = np.flatnonzero(samples.placed == k)
        sel = sel[np.argsort(samples.decision[sel], kind="stable")]
        y = samples.mean[sel] - aversion * samples.foul[sel] - samples.base[sel]
        gram, rhs = _demeaned_normal(samples.decision[sel], samples.features[sel], y,
                                     RES_FEATURES)  # fmt: skip
        gram[np.diag_indices(RES_FEATURES)] += ridge
        new[int(k)] += np.linalg.solve(gram, rhs)
    return new


def _samples_block(args: tuple[str, int, int, int, int]) -> SearchSamples:
    preset, first, sessions, level, rollouts = args
    return search_samples(rules_for(preset), first, sessions, level=level, rollouts=rollouts)


def session_blocks(first: int, sessions: int, workers: int) -> list[tuple[int, int]]:
    """Sessions ``first`` .. ``first + sessions - 1`` as ``workers`` consecutive blocks
    (first session, how many) whose sizes differ by at most one.

    >>> session_blocks(100, 5, 2)
    [(100, 3), (103, 2)]
    """
    if workers < 1 or sessions < workers:
        raise ValueError(f"need 1 <= workers <= sessions, not {workers} and {sessions}")
    size, extra = divmod(sessions, workers)
    out, at = [], first
    for b in range(workers):
        n = size + (b < extra)
        out.append((at, n))
        at += n
    return out


def train_search(preset: str, **training: Any) -> dict[str, Any]:
    """One shipped entry refined on search means (:data:`SEARCH_TRAINING`): the sessions
    are split into ``workers`` consecutive blocks played in parallel."""
    opts = {**SEARCH_TRAINING, **training}
    rules = rules_for(preset)
    workers = int(opts["workers"])
    split = session_blocks(opts["seed"], int(opts["sessions"]), workers)
    blocks = [(preset, first, n, opts["level"], opts["rollouts"]) for first, n in split]
    if workers == 1:
        parts = [_samples_block(blocks[0])]
    else:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(_samples_block, blocks))
    samples = SearchSamples.join(parts)
    table = refine(samples, value_table(rules), aversion=opts["aversion"], ridge=opts["ridge"])
    return {
        "preset": preset,
        "fingerprint": fingerprint(rules),
        "training": opts,
        "samples": len(samples.mean),
        "decisions": len(np.unique(samples.decision)),
        "rows": _shipped_rows(rules, table),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m chinese_poker.ai.value",
        description="Fit the learned value of a partial board by value iteration "
        "(--search: refine it on mc's own search means).",
    )
    parser.add_argument(
        "--boards",
        type=int,
        default=None,
        help=f"boards a round of value iteration (default {TRAINING['boards']})",
    )
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--search",
        action="store_true",
        help="refine the shipped table on search means (board_value_search.json)",
    )
    parser.add_argument(
        "--sessions",
        type=int,
        default=SEARCH_TRAINING["sessions"],
        help="with --search: heads-up sessions of self-play",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=SEARCH_TRAINING["workers"],
        help="with --search: processes playing them",
    )
    parser.add_argument(
        "--live",
        action="store_true",
        help="value iteration with the live cards' features (board_value_live.json)",
    )
    parser.add_argument("--write", action="store_true", help="replace the shipped tables")
    args = parser.parse_args(argv)
    if args.search and args.live:
        print("--search and --live build different tables: give one", file=sys.stderr)
        return 2
    if args.search:
        if args.boards is not None:
            print("--boards is for value iteration, not --search (use --sessions)", file=sys.stderr)
            return 2
        if args.sessions < 1 or not 1 <= args.workers <= args.sessions:
            print(
                "--sessions must be at least 1 and --workers from 1 to --sessions", file=sys.stderr
            )
            return 2
        seed = SEARCH_TRAINING["seed"] if args.seed is None else args.seed
        data = {
            "what": "learned value of a partial board refined on search means "
                    "(chinese_poker.ai.value, --search)",
            "features": RES_FEATURES,
            "tables": [train_search(p, sessions=args.sessions, workers=args.workers, seed=seed)
                       for p in SEARCH_PRESETS],
        }  # fmt: skip
        path = search_value_path()
    else:
        boards = TRAINING["boards"] if args.boards is None else args.boards
        if boards < 1:
            print("--boards must be at least 1", file=sys.stderr)
            return 2
        seed = TRAINING["seed"] if args.seed is None else args.seed
        if args.live:
            data = {
                "what": "learned value of a partial board with the live cards' features "
                        "(chinese_poker.ai.value, --live)",
                "features": VALUE_FEATURES,
                "tables": [train(p, **{**LIVE_TRAINING, "boards": boards, "seed": seed})
                           for p in LIVE_PRESETS],
            }  # fmt: skip
            path = live_value_path()
        else:
            data = {
                "what": "learned value of a partial board (chinese_poker.ai.value)",
                "features": RES_FEATURES,
                "tables": [train(p, boards=boards, seed=seed) for p in PRESETS],
            }
            path = value_path()
    text = json.dumps(data, separators=(",", ":")) + "\n"
    if args.write:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {path}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
