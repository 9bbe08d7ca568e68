"""The features of a partial board the learned tables are read by (docs/bots-research.md,
*Round eleven* and *Round fifteen*), as kernels, and the partial-line classes they need."""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from chinese_poker import evaluate as _ev
from chinese_poker.ai.rollout.jit import inline_kernel

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
I16 = npt.NDArray[np.int16]


# Learned correction of the policy (docs/bots-research.md, *Round eleven*). A completion's value
# is biased in ways that depend on the board: its random arrangements see every card to
# come at once, and only a few of them are tried. ``chinese_poker.ai.residual`` fits, by
# self-play of the policy, the realised board value minus the completions' estimate as a
# sum of five table entries of the board after a placement (one row of weights per
# number of cards placed); the policy adds it to every placement's total.
#: Feature blocks: the top by (cards, high card or pair rank, trips); the middle and
#: the bottom by (cards, class, a flush still open, a straight still open); the top's
#: class against the middle's by the middle's empty slots; the middle's class against
#: the bottom's by the bottom's empty slots. Classes of a five-card line (partial lines
#: make the first ten only): 0 high card, 1-5 a pair (2-5, 6-9, T-J, Q-K, A), 6 two
#: pair, 7 trips, 8 full house, 9 quads, 10 straight, 11 flush, 12 straight flush.
RES_TOP, RES_LINE, RES_TOP_MIDDLE, RES_MIDDLE_BOTTOM = 4 * 27, 6 * 13 * 4, 7 * 13 * 6, 13 * 13 * 6
RES_OFF_MIDDLE = RES_TOP
RES_OFF_BOTTOM = RES_OFF_MIDDLE + RES_LINE
RES_OFF_TOP_MIDDLE = RES_OFF_BOTTOM + RES_LINE
RES_OFF_MIDDLE_BOTTOM = RES_OFF_TOP_MIDDLE + RES_TOP_MIDDLE
RES_FEATURES = RES_OFF_MIDDLE_BOTTOM + RES_MIDDLE_BOTTOM
NO_CORRECTION: F64 = np.zeros((14, RES_FEATURES), dtype=np.float64)
#: Features of the live cards (``BoardValue.LIVE``), after :data:`RES_FEATURES` in a
#: table's row: the cards the board's draws still need that are not yet seen dealt
#: (:func:`count_live`). The top of one or two unpaired cards led by a queen, king or
#: ace by (cards, that rank, live cards of it 0..3), a pair on top by (below queens, QQ,
#: KK, AA; live cards of its rank 0..2); a middle or bottom of 2-4 cards of one suit by
#: (line, cards, live cards of the suit 0..11+); one of 2-4 cards with one pair by
#: (line, cards, live cards of its rank 0..2); one of four cards open to a straight by
#: (line, live outs 0..8+).
LIVE_TOP, LIVE_TOP_PAIR, LIVE_FLUSH, LIVE_PAIR, LIVE_STRAIGHT = 24, 12, 72, 18, 18
LIVE_OFF_TOP = RES_FEATURES
LIVE_OFF_TOP_PAIR = LIVE_OFF_TOP + LIVE_TOP
LIVE_OFF_FLUSH = LIVE_OFF_TOP_PAIR + LIVE_TOP_PAIR
LIVE_OFF_PAIR = LIVE_OFF_FLUSH + LIVE_FLUSH
LIVE_OFF_STRAIGHT = LIVE_OFF_PAIR + LIVE_PAIR
LIVE_FEATURES = LIVE_TOP + LIVE_TOP_PAIR + LIVE_FLUSH + LIVE_PAIR + LIVE_STRAIGHT
#: A row of a table that reads the live cards.
VALUE_FEATURES = RES_FEATURES + LIVE_FEATURES
#: The live counts of :func:`count_live`: the cards of each suit, then of each rank.
LIVE_COUNTS = 4 + 13
KEY_SPAN = _ev.KEY_SPAN  # rank sums of up to five cards are below
NO_CORRECTION.setflags(write=False)


@lru_cache(maxsize=1)
def partial_line_table() -> I16:
    """By a line's card count and the rank part of its code sum (index ``(n - 1) *
    KEY_SPAN + (code >> 12)`` for 1 to 4 cards; the count is needed because a deuce weighs
    0, and five-card lines are read from the evaluator's table; 2.9 MB): its
    made class so far (0 high card, 1 pair, 2 two pair, 3 trips, 4 full house, 5 quads)
    in bits 0-3, the key rank (0..12: the pair, the higher pair, the trips; a high card
    line's highest) in bits 4-7, and the lowest rank + 1 in bits 8-11 (0 when an ace
    plays low under a five: a wheel is still open).

    >>> from chinese_poker.cards import parse_cards
    >>> codes = _ev.CARD_CODES
    >>> t = partial_line_table()
    >>> x = int(t[2 * KEY_SPAN + (sum(int(codes[c]) for c in parse_cards("Qh Qd 7c")) >> 12)])
    >>> x & 15, x >> 4 & 15  # a pair of queens
    (1, 10)
    """
    span = _ev.KEY_SPAN
    table = np.zeros(4 * span, dtype=np.int16)
    for n in range(1, 5):
        for m in itertools.combinations_with_replacement(range(13), n):
            counts = sorted(((m.count(r), r) for r in set(m)), reverse=True)
            shape = tuple(c for c, _ in counts)
            if shape[0] == 4:
                cat = 5
            elif shape[0] == 3:
                cat = 4 if len(shape) > 1 and shape[1] == 2 else 3
            elif shape[0] == 2:
                cat = 2 if len(shape) > 1 and shape[1] == 2 else 1
            else:
                cat = 0
            rank = counts[0][1] if cat else max(m)
            low = min(m) + 1
            if cat == 0 and 12 in m and max([r for r in m if r != 12] or [0]) <= 3:
                low = 0
            table[(n - 1) * span + sum(_ev.RANK_WEIGHTS[r] for r in m)] = cat | rank << 4 | low << 8
    table.setflags(write=False)
    return table


@inline_kernel
def _pair_class(rank: int) -> int:
    if rank <= 3:
        return 1
    if rank <= 7:
        return 2
    if rank <= 9:
        return 3
    return 4 if rank <= 11 else 5


@inline_kernel
def _line_class(code: int, n: int, t5: Any, fo: Any, pl: Any) -> int:
    """The class of a middle or bottom line (:data:`RES_FEATURES`'s 0..12)."""
    if n == 5:
        v = t5[(code >> 12) + fo[code & 4095]]
        cat = v >> 20
        if cat <= 1:
            return 0 if cat == 0 else _pair_class(((v >> 16) & 15) - 2)
        return (6, 7, 10, 11, 8, 9, 12)[cat - 2]
    if n == 0:
        return 0
    x = pl[(n - 1) * KEY_SPAN + (code >> 12)]
    cat = x & 15
    if cat <= 1:
        return 0 if cat == 0 else _pair_class((x >> 4) & 15)
    return int(cat) + 4


@inline_kernel
def _open_draws(code: int, n: int, pl: Any) -> int:
    """2 x a flush still open + a straight still open, for a line of 2 to 4 cards."""
    if n < 2 or n > 4:
        return 0
    suits = code & 4095
    flush = 0
    for q in range(4):
        if (suits >> (3 * q)) & 7 == n:
            flush = 1
    x = pl[(n - 1) * KEY_SPAN + (code >> 12)]
    straight = 0
    if x & 15 == 0:
        low = (x >> 8) & 15
        if low == 0 or ((x >> 4) & 15) - (low - 1) <= 4:
            straight = 1
    return 2 * flush + straight


@inline_kernel
def feature_indices(
    c0: int, c1: int, c2: int, k0: int, k1: int, k2: int, t5: Any, fo: Any, pl: Any
) -> tuple[int, int, int, int, int]:
    """The five feature indices (:data:`RES_FEATURES`) of the board with line code sums
    ``c0..c2`` and card counts ``k0..k2``."""
    x = pl[(k0 - 1) * KEY_SPAN + (c0 >> 12)] if k0 > 0 else 0
    cat = x & 15
    rank = (x >> 4) & 15
    if k0 == 0:
        f_top = 0
        top = 0
    elif cat == 0:
        f_top = k0 * 27 + rank
        top = 0
    elif cat == 1:
        f_top = k0 * 27 + 13 + rank
        top = _pair_class(rank)
    else:
        f_top = k0 * 27 + 26
        top = 6
    mid = _line_class(c1, k1, t5, fo, pl)
    bot = _line_class(c2, k2, t5, fo, pl)
    return (
        f_top,
        RES_OFF_MIDDLE + (k1 * 13 + mid) * 4 + _open_draws(c1, k1, pl),
        RES_OFF_BOTTOM + (k2 * 13 + bot) * 4 + _open_draws(c2, k2, pl),
        RES_OFF_TOP_MIDDLE + (top * 13 + mid) * 6 + 5 - k1,
        RES_OFF_MIDDLE_BOTTOM + (mid * 13 + bot) * 6 + 5 - k2,
    )


@inline_kernel
def count_live(deck: Any, lo: int, hi: int, live: Any) -> None:
    """``live[0..3]``: the cards of each suit in ``deck[lo:hi]`` (the cards not yet
    dealt); ``live[4 + r]``: those of rank ``r``."""
    live[:] = 0
    for i in range(lo, hi):
        c = deck[i]
        live[c & 3] += 1
        live[4 + (c >> 2)] += 1


@inline_kernel
def _line_draws(code: int, n: int, line: int, pl: Any, codes: Any, live: Any) -> tuple[int, int]:
    """The live-card features of a middle (``line`` 0) or bottom (1) of ``n`` cards: its
    flush draw's and its pair's or straight draw's (-1: none)."""
    if n < 2 or n > 4:
        return -1, -1
    suits = code & 4095
    flush = -1
    for q in range(4):
        if (suits >> (3 * q)) & 7 == n:
            flush = LIVE_OFF_FLUSH + (line * 3 + n - 2) * 12 + min(live[q], 11)
    x = pl[(n - 1) * KEY_SPAN + (code >> 12)]
    cat = x & 15
    rank = (x >> 4) & 15
    if cat == 1:
        return flush, LIVE_OFF_PAIR + (line * 3 + n - 2) * 3 + min(live[4 + rank], 2)
    if cat != 0 or n != 4:
        return flush, -1
    # Four different ranks: the ranks that make a straight, from the weights of the
    # rank part of the code sum (unique sums, so the missing rank is the difference).
    low = (x >> 8) & 15
    rsum = code >> 12
    outs = 0
    if low == 0:  # an ace and three of 2-5: the missing one makes the wheel
        miss = (codes[48] >> 12) - rsum
        for r in range(4):
            miss += codes[4 * r] >> 12
        for r in range(4):
            if codes[4 * r] >> 12 == miss:
                outs = live[4 + r]
    else:
        lo_r = low - 1
        if rank - lo_r == 3:  # four in a row: either end
            if lo_r >= 1:
                outs += live[4 + lo_r - 1]
            elif lo_r == 0:
                outs += live[4 + 12]  # the wheel
            if rank <= 11:
                outs += live[4 + rank + 1]
        elif rank - lo_r == 4:
            miss = -rsum
            for r in range(lo_r, rank + 1):
                miss += codes[4 * r] >> 12
            for r in range(lo_r + 1, rank):
                if codes[4 * r] >> 12 == miss:
                    outs = live[4 + r]
        else:
            return flush, -1
    return flush, LIVE_OFF_STRAIGHT + line * 9 + min(outs, 8)


@inline_kernel
def live_feature_indices(
    c0: int, c1: int, c2: int, k0: int, k1: int, k2: int, pl: Any, codes: Any, live: Any
) -> tuple[int, int, int, int, int]:
    """The five live-card feature indices (:data:`LIVE_FEATURES`, -1: none) of the board
    with line code sums ``c0..c2`` and card counts ``k0..k2``, given the live counts of
    :func:`count_live`."""
    top = -1
    if k0 == 1 or k0 == 2:
        x = pl[(k0 - 1) * KEY_SPAN + (c0 >> 12)]
        rank = (x >> 4) & 15
        if x & 15 == 0:
            if rank >= 10:
                top = LIVE_OFF_TOP + ((k0 - 1) * 3 + rank - 10) * 4 + min(live[4 + rank], 3)
        else:
            group = rank - 9 if rank >= 10 else 0
            top = LIVE_OFF_TOP_PAIR + group * 3 + min(live[4 + rank], 2)
    fm, dm = _line_draws(c1, k1, 0, pl, codes, live)
    fb, db = _line_draws(c2, k2, 1, pl, codes, live)
    return top, fm, fb, dm, db


@inline_kernel
def learned_estimate(
    c0: int, c1: int, c2: int, k0: int, k1: int, k2: int, t5: Any, fo: Any, vf: Any,
    live: Any, codes: Any,
) -> float:  # fmt: skip
    """The learned correction of a completion's value (or the learned value) for the
    board with line code sums ``c0..c2`` and card counts ``k0..k2`` (0 for a complete
    board); a table wider than :data:`RES_FEATURES` also reads the live cards
    (``live``, :func:`count_live`)."""
    pl, table = vf
    placed = k0 + k1 + k2
    if placed >= 13:
        return 0.0
    f = feature_indices(c0, c1, c2, k0, k1, k2, t5, fo, pl)
    row = table[placed]
    v = float(row[f[0]] + row[f[1]] + row[f[2]] + row[f[3]] + row[f[4]])
    if table.shape[1] > RES_FEATURES:
        g = live_feature_indices(c0, c1, c2, k0, k1, k2, pl, codes, live)
        for i in range(5):
            if g[i] >= 0:
                v += row[g[i]]
    return v
