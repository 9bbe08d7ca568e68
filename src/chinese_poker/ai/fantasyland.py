"""The exact Fantasyland solver: the best 13 of 13–17 cards, set face down.

The objective (issue #4): the royalties of the three lines (the Finnish deuce
doubling its line when the rules use it) plus ``stay_value`` when the board
qualifies to stay in Fantasyland (RULES §9.4), over every valid arrangement of
every 13 of the cards. Ties go to the stronger bottom, then middle, then top.

The search is exact: every 5-card bottom, every 5-card middle no stronger than it,
and for that pair the best top no stronger than the middle, with a bound that skips
a bottom or a middle only when even the best remaining royalties could not reach
the best found. The kernel is compiled by numba (a dependency; the compiled code is
cached on disk) and still runs as plain Python where numba is missing.

>>> from chinese_poker.rules import rules_for
>>> from chinese_poker.cards import parse_cards
>>> sol = solve_fantasyland(parse_cards("As Ah Ad Kc Kd Qh Qs Js Ts 9s 8s 7s 2d 3c"),
...                         rules_for("pineapple"), stay_value=0)
>>> str(sol.board), sol.royalties
('Kd Kc 3c | As Ah Ad Qs Qh | Js Ts 9s 8s 7s', (8, 12, 15))
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt

from chinese_poker.cards import Board, Card, CardError, cards_str, parse_card
from chinese_poker.evaluate import THREE_OF_A_KIND, evaluate_batch
from chinese_poker.rules import Rules, require_supported

__all__ = [
    "DEFAULT_STAY_VALUE",
    "FL_STAY_CHANCE",
    "FL_VALUES",
    "FantasylandSolution",
    "fantasyland_boards",
    "fantasyland_value",
    "points_scale",
    "solve_fantasyland",
]

#: The default value of qualifying to stay in Fantasyland, in points: one more
#: Fantasyland hand. Estimated by ``bench/bench_fantasyland.py``: a 14-card Pineapple
#: Fantasyland hand set by this solver scored +15.3 ± 0.2 points against the
#: rule-based bot over 4,000 hands, where a normal hand between two such bots is worth
#: 0 (docs/solvers.md).
DEFAULT_STAY_VALUE = 15.0

#: Value, in points, of *playing* one Fantasyland hand with this many cards under 1-6
#: scoring: measured heads-up as the mc bot in Fantasyland against the mc bot playing
#: normally (``bench/bench_bots.py --fl``: 10.4, 12.7, 17.8, 20.9, 25.1) and taken a
#: little lower, since a stronger opponent fouls less (docs/bots-research.md).
FL_VALUES: dict[int, float] = {13: 9.5, 14: 11.5, 15: 16.0, 16: 19.0, 17: 22.5}

#: Measured chance of staying (a repeat) from a Fantasyland hand of this many cards.
FL_STAY_CHANCE: dict[int, float] = {13: 0.08, 14: 0.10, 15: 0.21, 16: 0.33, 17: 0.59}


def fantasyland_value(rules: Rules, cards: int, *, repeat_possible: bool = True) -> float:
    """Value of earning a Fantasyland deal of ``cards`` cards: the hand itself plus the
    chance of a repeat (worth one repeat deal; the default limit allows one repeat).

    >>> from chinese_poker.rules import rules_for
    >>> fantasyland_value(rules_for("ofc"), 13) < fantasyland_value(rules_for("pineapple"), 14)
    True
    """
    if not rules.is_open_face or not rules.fantasyland_enabled:
        return 0.0
    value = FL_VALUES.get(cards, FL_VALUES[17])
    limit = rules.fl_max_consecutive
    if repeat_possible and (limit is None or limit >= 2):
        repeat = rules.fantasyland_cards(None, repeat=True)
        value += FL_STAY_CHANCE.get(cards, 0.3) * FL_VALUES[repeat]
    return value * points_scale(rules)


def points_scale(rules: Rules) -> float:
    """Points scale of the rules relative to 1-6 with american royalties (the estimate's)."""
    return rules.scoop_value / 6.0 if rules.scoop_value > 0 else 1.0


_DEUCE_OF_SPADES = parse_card("2s")
F = TypeVar("F", bound=Callable[..., Any])
F64 = npt.NDArray[np.float64]


def _jit(fn: F) -> F:
    try:
        import numba
    except ImportError:  # pragma: no cover - numba is optional
        return fn
    return cast(F, numba.njit(cache=True, nogil=True)(fn))


@dataclass(frozen=True, slots=True)
class FantasylandSolution:
    """The best Fantasyland board and what it is worth."""

    board: Board
    discards: tuple[Card, ...]
    royalties: tuple[int, int, int]
    stays: bool
    score: float

    @property
    def total_royalties(self) -> int:
        return sum(self.royalties)

    def to_dict(self) -> dict[str, Any]:
        return {
            "board": str(self.board),
            "discards": cards_str(self.discards),
            "royalties": {"top": self.royalties[0], "middle": self.royalties[1],
                          "bottom": self.royalties[2], "total": self.total_royalties},
            "stays": self.stays,
            "score": self.score,
        }  # fmt: skip

    def to_json(self) -> str:
        return json.dumps(self.to_dict())


@cache
def _combos(n: int, k: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """All k-subsets of n positions: (index rows, position bit masks)."""
    rows = np.array(list(itertools.combinations(range(n), k)), dtype=np.int64).reshape(-1, k)
    masks = np.bitwise_or.reduce(np.left_shift(1, rows), axis=1).astype(np.int64)
    return rows, masks


#: The option values the solver models; it refuses the rest with a RulesError. (Its
#: objective is the player's own royalties and the stay, whatever the award mode. Under
#: ``misset_rule = ignore`` it still sets valid boards only, as the setting solver does.)
SUPPORTED: dict[str, tuple[object, ...]] = {
    "variant": ("ofc", "pineapple", "turbo"),
    "middle_mode": ("high",),
    "misset_rule": ("penalty", "ignore"),
    "max_royalties_per_hand": (None,),
    "royalty_for_dealt_combination": (False,),
}


def _middle_stays(rules: Rules, values: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    need = rules.spec.scoring.fantasyland.stay_middle_min
    if need is None:
        return np.zeros(values.shape, dtype=np.bool_)
    return (values >> 20) >= need


@dataclass(frozen=True)
class _Deal:
    """A deal's five- and three-card subsets with their values, royalties and stays,
    the five-card ones strongest first."""

    cards: tuple[Card, ...]
    stay: float
    rows5: npt.NDArray[np.int64]
    rows3: npt.NDArray[np.int64]
    order5: npt.NDArray[np.int64]
    m5: npt.NDArray[np.int64]  # the sorted arrays from here on
    v5: npt.NDArray[np.int64]
    rb: npt.NDArray[np.float64]
    rm: npt.NDArray[np.float64]
    sb: npt.NDArray[np.bool_]
    sm: npt.NDArray[np.bool_]
    run_start: npt.NDArray[np.int64]
    m3: npt.NDArray[np.int64]
    v3: npt.NDArray[np.int64]
    rt: npt.NDArray[np.float64]
    st: npt.NDArray[np.bool_]

    def solution(self, b: int, m: int, t: int) -> FantasylandSolution:
        """The board of sorted five-card indices ``b``, ``m`` and three-card index ``t``."""
        cards = self.cards
        bi, mi = int(self.order5[b]), int(self.order5[m])
        bottom = _display_order(cards[i] for i in self.rows5[bi])
        middle = _display_order(cards[i] for i in self.rows5[mi])
        top = _display_order(cards[i] for i in self.rows3[t])
        used = set(bottom) | set(middle) | set(top)
        royalties = (int(self.rt[t]), int(self.rm[m]), int(self.rb[b]))
        stays = bool(self.sb[b] or self.sm[m] or self.st[t])
        return FantasylandSolution(
            board=Board(top, middle, bottom),
            discards=tuple(c for c in cards if c not in used),
            royalties=royalties,
            stays=stays,
            score=float(sum(royalties)) + (self.stay if stays else 0.0),
        )


def _deal(cards: Sequence[Card], rules: Rules, stay_value: float | None) -> _Deal:
    cards = tuple(cards)
    n = len(cards)
    if not 13 <= n <= 17:
        raise CardError(f"a Fantasyland deal has 13 to 17 cards, got {n}")
    if len(set(cards)) != n:
        raise CardError("a Fantasyland deal cannot hold the same card twice")
    if min(cards) < 0 or max(cards) > 51:
        raise CardError("a card number is outside 0..51")
    require_supported(rules, "the Fantasyland solver", **SUPPORTED)
    sc = rules.spec.scoring
    stay = DEFAULT_STAY_VALUE if stay_value is None else float(stay_value)
    deck = np.asarray(cards, dtype=np.int64)
    roy = np.asarray(sc.royalties.lookup, dtype=np.int64)

    rows5, masks5 = _combos(n, 5)
    rows3, masks3 = _combos(n, 3)
    wheel = sc.wheel
    v5 = evaluate_batch(deck[rows5], wheel=wheel, check=False).astype(np.int64)
    v3 = evaluate_batch(deck[rows3], check=False).astype(np.int64)
    rb = roy[2, v5 >> 16]
    rm = roy[1, v5 >> 16]
    rt = roy[0, v3 >> 16]
    if sc.finnish_deuce and _DEUCE_OF_SPADES in cards:
        # The deuce doubles its line's royalty against every opponent (RULES §7.6).
        pos = 1 << cards.index(_DEUCE_OF_SPADES)
        rb = np.where(masks5 & pos, 2 * rb, rb)
        rm = np.where(masks5 & pos, 2 * rm, rm)
        rt = np.where(masks3 & pos, 2 * rt, rt)
    fl = sc.fantasyland
    fl_on = fl.enabled
    stay_b = (v5 >> 20 >= fl.stay_bottom_min) & fl_on
    stay_m = _middle_stays(rules, v5) & fl_on
    stay_t = (v3 >> 20 == THREE_OF_A_KIND) & fl_on

    # Five-card subsets strongest first.
    order5 = np.argsort(-v5, kind="stable")
    sv5 = v5[order5]
    srm = rm[order5].astype(np.float64)
    ssm = stay_m[order5]
    # Where each value's run of equals starts: a middle may equal its bottom.
    run_start = np.searchsorted(-sv5, -sv5, side="left").astype(np.int64)
    return _Deal(
        cards=cards, stay=stay, rows5=rows5, rows3=rows3, order5=order5,
        m5=masks5[order5], v5=sv5, rb=rb[order5].astype(np.float64), rm=srm,
        sb=stay_b[order5], sm=ssm, run_start=run_start, m3=masks3, v3=v3,
        rt=rt.astype(np.float64), st=stay_t,
    )  # fmt: skip


def solve_fantasyland(
    cards: Sequence[Card], rules: Rules, *, stay_value: float | None = None
) -> FantasylandSolution:
    """The exact best arrangement of a Fantasyland deal of 13 to 17 cards.

    ``stay_value`` (default :data:`DEFAULT_STAY_VALUE`) is added when the board
    qualifies to stay (trips on top, quads or better on the bottom, or a middle of
    at least ``rules.fl_repeat_middle_min``).
    """
    d = _deal(cards, rules, stay_value)
    return d.solution(*_best(d))


def _caps(d: _Deal, top_gain: F64, middle_gain: F64) -> tuple[F64, F64]:
    """The bounds both searches prune by, from what each top and each (sorted) middle
    adds: per five-card value, the best top gain among tops no stronger than it
    (disjointness ignored), and the suffix maxima over middles (weaker ones come later)
    of what a middle and its top can add, which let the middle loop stop early."""
    by_v3 = np.argsort(d.v3, kind="stable")
    prefix = np.maximum.accumulate(top_gain[by_v3])
    upto = np.searchsorted(d.v3[by_v3], d.v5, side="right") - 1
    top_cap = np.where(upto >= 0, prefix[np.maximum(upto, 0)], -np.inf)
    suffix_cap = np.maximum.accumulate((middle_gain + top_cap)[::-1])[::-1].copy()
    return top_cap, suffix_cap


def _best(d: _Deal) -> tuple[int, int, int]:
    # Tops in two orders (with and without the stay bonus for trips), best first and
    # stronger first among equals.
    t_gain = d.rt + d.stay * d.st
    top_cap, suffix_cap = _caps(d, t_gain, d.rm + d.stay * d.sm)
    order_t_stay = np.lexsort((-d.v3, -t_gain)).astype(np.int64)
    order_t_plain = np.lexsort((-d.v3, -d.rt)).astype(np.int64)
    best = _search(
        d.m5, d.v5, d.run_start, d.rb, d.rm, d.sb, d.sm, top_cap, suffix_cap,
        d.m3, d.v3, d.rt, d.st, order_t_stay, order_t_plain, d.stay,
    )  # fmt: skip
    if best[0] < 0:  # pragma: no cover - 13+ cards always admit a valid board
        raise RuntimeError("no valid board found")
    return best


def fantasyland_boards(
    cards: Sequence[Card],
    rules: Rules,
    *,
    stay_value: float | None = None,
    line_bonus: npt.ArrayLike | None = None,
    count: int = 16,
    solver_first: bool = False,
) -> list[FantasylandSolution]:
    """The ``count`` best valid arrangements of a Fantasyland deal with different line
    values, by their score (the royalties and the stay, as :func:`solve_fantasyland`
    counts them) plus a bonus of each line, best first.

    ``line_bonus[line, value >> 16]`` (line 0 the top, 1 the middle, 2 the bottom, in
    ``evaluate``'s values) is what a line is worth beyond its royalty: for example how
    often it wins its line against an opponent. Boards whose three lines have the same
    values differ only in suits and the discard, so each set of line values is
    represented by one board. Among boards of equal score and bonus the stronger bottom
    comes first, then middle, then top, as the solver breaks ties, so boards that differ
    only in their kickers follow each other. The search is exact: the solver's branch
    and bound with the bonus in its bounds, pruning against the ``count``-th best board
    found so far. With no bonus the first board is :func:`solve_fantasyland`'s.
    ``solver_first``: :func:`solve_fantasyland`'s board first whatever the bonus, then
    the best others, ``count`` in all (one precomputation of the deal for both).

    >>> from chinese_poker.rules import rules_for
    >>> from chinese_poker.cards import parse_cards
    >>> deal = parse_cards("As Ah Ad Kc Kd Qh Qs Js Ts 9s 8s 7s 2d 3c")
    >>> [str(b.board) for b in fantasyland_boards(deal, rules_for("pineapple"), count=2)]
    ['Kd Kc 3c | As Ah Ad Qs Qh | Js Ts 9s 8s 7s', 'Kd Kc 2d | As Ah Ad Qs Qh | Js Ts 9s 8s 7s']
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count must be a positive whole number, not {count!r}")
    d = _deal(cards, rules, stay_value)
    bonus = np.zeros((3, 256)) if line_bonus is None else np.asarray(line_bonus, np.float64)
    if bonus.shape != (3, 256) or not np.isfinite(bonus).all():
        raise ValueError("line_bonus must be a 3 x 256 array of finite numbers")
    bb, bm, bt = bonus[2, d.v5 >> 16], bonus[1, d.v5 >> 16], bonus[0, d.v3 >> 16]
    # The solver's bounds with the bonus in them.
    top_cap, suffix_cap = _caps(d, d.rt + d.stay * d.st + bt, d.rm + d.stay * d.sm + bm)
    idx3 = np.full(1 << len(d.cards), -1, dtype=np.int64)
    idx3[d.m3] = np.arange(len(d.m3))
    found = np.zeros((count, 3), dtype=np.int64)
    keys = np.zeros(count)
    n = _top_boards(d.m5, d.v5, d.run_start, d.rb, d.rm, d.sb, d.sm, bb, bm, top_cap,
                    suffix_cap, d.v3, d.rt, d.st, bt, d.stay, idx3,
                    (1 << len(d.cards)) - 1, found, keys)  # fmt: skip
    b, m, t = found[:n, 0], found[:n, 1], found[:n, 2]
    # Best key first; among equals the stronger bottom, middle, top (as the solver).
    order = np.lexsort((-d.v3[t], -d.v5[m], -d.v5[b], -keys[:n]))
    boards = [d.solution(int(b[i]), int(m[i]), int(t[i])) for i in order]
    if not solver_first:
        return boards
    best = d.solution(*_best(d))
    return [best, *(sol for sol in boards if sol.board != best.board)][:count]


def _display_order(line: Iterable[Card]) -> tuple[Card, ...]:
    """A line as players write it: bigger groups first, then higher ranks."""
    cards = list(line)
    count = {r: sum(1 for c in cards if c >> 2 == r) for r in {c >> 2 for c in cards}}
    return tuple(sorted(cards, key=lambda c: (-count[c >> 2], -(c >> 2), c & 3)))


#: A line value above every real one: a bound's lines not chosen yet count as this strong.
#: A numpy integer, as the other arguments are: a literal constant in a kernel's call
#: compiles another copy of the callee for it.
_ANY_LINE = cast(int, np.int64(1 << 62))


@_jit
def _ranks_before(
    score: float, vb: int, vm: int, vt: int, other: float, ob: int, om: int, ot: int
) -> bool:
    """Whether a board of ``score`` and line values ``vb``, ``vm``, ``vt`` ranks before one
    of score ``other`` and line values ``ob``, ``om``, ``ot``: a higher score, or the same
    with stronger lines (bottom, then middle, then top, as the solver breaks ties)."""
    if score != other:
        return score > other
    if vb != ob:
        return vb > ob
    if vm != om:
        return vm > om
    return vt > ot


@_jit
def _search(
    m5: Any, v5: Any, run_start: Any, rb: Any, rm: Any, sb: Any, sm: Any,
    top_cap: Any, suffix_cap: Any,
    m3: Any, v3: Any, rt: Any, st: Any, ot_stay: Any, ot_plain: Any, stay: float,
) -> tuple[int, int, int]:  # fmt: skip
    """Branch and bound over (bottom, middle), the best top for each pair.

    The five-card arrays are sorted by value, strongest first, so the first solution
    found at a score has the strongest bottom; a later candidate needs a higher
    score, or the same score with stronger lines, and the bounds prune exactly that.
    Returns indices into the sorted five-card arrays (bottom, middle) and into the
    three-card arrays (top).
    """
    n5 = m5.shape[0]
    best = -1e300
    best_b = -1
    best_m = -1
    best_t = -1
    best_vb = -1
    best_vm = -1
    best_vt = -1
    for b in range(n5):
        vb = v5[b]
        base_b = rb[b] + (stay if sb[b] else 0.0)
        start = run_start[b]
        cap = base_b + suffix_cap[start]
        if not _ranks_before(cap, vb, _ANY_LINE, _ANY_LINE, best, best_vb, best_vm, best_vt):
            continue
        mb = m5[b]
        for m in range(start, n5):
            vm = v5[m]
            cap = base_b + suffix_cap[m]
            if not _ranks_before(cap, vb, vm, _ANY_LINE, best, best_vb, best_vm, best_vt):
                break  # every later middle is weaker and can add no more
            if m == b or m5[m] & mb:
                continue
            stayed = sb[b] or sm[m]
            base = rb[b] + rm[m]
            if base + (stay if stayed else 0.0) + top_cap[m] < best:
                continue
            used = mb | m5[m]
            order = ot_plain if stayed else ot_stay
            t = -1
            for k in range(m3.shape[0]):  # the first fitting top in this order is the best
                if not (m3[order[k]] & used or v3[order[k]] > vm):
                    t = order[k]
                    break
            if t < 0:
                continue
            score = base + rt[t] + (stay if stayed or st[t] else 0.0)
            if _ranks_before(score, vb, vm, v3[t], best, best_vb, best_vm, best_vt):
                best = score
                best_b, best_m, best_t = b, m, t
                best_vb, best_vm, best_vt = vb, vm, v3[t]
    return best_b, best_m, best_t


@_jit
def _top_boards(
    m5: Any, v5: Any, run_start: Any, rb: Any, rm: Any, sb: Any, sm: Any, bb: Any, bm: Any,
    top_cap: Any, suffix_cap: Any, v3: Any, rt: Any, st: Any, bt: Any, stay: float,
    idx3: Any, full: int, found: Any, keys: Any,
) -> int:  # fmt: skip
    """Branch and bound for the best ``len(keys)`` boards of different line values by
    score plus bonus (:func:`fantasyland_boards`): fills ``found`` with (bottom, middle,
    top) indices and ``keys`` with their keys, returns how many. A board is skipped only
    when its bound is below the worst key kept while the table is full."""
    k = keys.shape[0]
    n = 0
    floor = -np.inf
    n5 = m5.shape[0]
    rest = np.zeros(17, dtype=np.int64)
    for b in range(n5):
        base_b = rb[b] + (stay if sb[b] else 0.0) + bb[b]
        start = run_start[b]
        if base_b + suffix_cap[start] < floor:
            continue
        mb = m5[b]
        vb = v5[b]
        for m in range(start, n5):
            if base_b + suffix_cap[m] < floor:
                break  # every later middle is weaker and can add no more
            if m == b or m5[m] & mb:
                continue
            stayed = sb[b] or sm[m]
            base = rb[b] + rm[m] + bb[b] + bm[m]
            if base + (stay if stayed else 0.0) + top_cap[m] < floor:
                continue
            left = full & ~(mb | m5[m])
            c = 0
            for i in range(17):
                if left >> i & 1:
                    rest[c] = 1 << i
                    c += 1
            vm = v5[m]
            for i in range(c):
                for j in range(i + 1, c):
                    for h in range(j + 1, c):
                        t = idx3[rest[i] | rest[j] | rest[h]]
                        vt = v3[t]
                        if vt > vm:
                            continue
                        key = base + rt[t] + bt[t]
                        if stayed or st[t]:
                            key += stay
                        if key < floor:
                            continue
                        slot = -1
                        for q in range(n):
                            if (v5[found[q, 0]] == vb and v5[found[q, 1]] == vm
                                    and v3[found[q, 2]] == vt):  # fmt: skip
                                slot = q
                                break
                        if slot >= 0:  # these line values are kept: this board must beat them
                            if not _beats(key, vb, vm, vt, keys[slot], found[slot], v5, v3):
                                continue
                        elif n < k:
                            slot = n
                            n += 1
                        else:  # new line values replace the worst kept board, if they beat it
                            slot = 0
                            for q in range(1, n):
                                w = found[slot]
                                if _beats(keys[slot], v5[w[0]], v5[w[1]], v3[w[2]], keys[q],
                                          found[q], v5, v3):  # fmt: skip
                                    slot = q
                            if not _beats(key, vb, vm, vt, keys[slot], found[slot], v5, v3):
                                continue
                        keys[slot] = key
                        found[slot, 0] = b
                        found[slot, 1] = m
                        found[slot, 2] = t
                        if n == k:
                            floor = keys[0]
                            for q in range(1, n):
                                floor = min(floor, keys[q])
    return n


@_jit
def _beats(key: float, vb: int, vm: int, vt: int, other: float, row: Any, v5: Any, v3: Any) -> bool:
    """Whether a board of ``key`` and line values ``vb``, ``vm``, ``vt`` ranks before the
    kept board ``row`` of key ``other``: a higher key, or the same with stronger lines
    (bottom, then middle, then top, as the solver breaks ties)."""
    if key != other:
        return key > other
    ob: int = v5[row[0]]
    om: int = v5[row[1]]
    ot: int = v3[row[2]]
    if vb != ob:
        return vb > ob
    if vm != om:
        return vm > om
    return vt > ot
