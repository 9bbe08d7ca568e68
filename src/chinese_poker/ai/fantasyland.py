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
    "FantasylandSolution",
    "solve_fantasyland",
]

#: The default value of qualifying to stay in Fantasyland, in points: one more
#: Fantasyland hand. Estimated by ``bench/bench_fantasyland.py``: a 14-card Pineapple
#: Fantasyland hand set by this solver scored +15.3 ± 0.2 points against the
#: rule-based bot over 4,000 hands, where a normal hand between two such bots is worth
#: 0 (docs/solvers.md).
DEFAULT_STAY_VALUE = 15.0

_DEUCE_OF_SPADES = parse_card("2s")
F = TypeVar("F", bound=Callable[..., Any])


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


def solve_fantasyland(
    cards: Sequence[Card], rules: Rules, *, stay_value: float | None = None
) -> FantasylandSolution:
    """The exact best arrangement of a Fantasyland deal of 13 to 17 cards.

    ``stay_value`` (default :data:`DEFAULT_STAY_VALUE`) is added when the board
    qualifies to stay (trips on top, quads or better on the bottom, or a middle of
    at least ``rules.fl_repeat_middle_min``).
    """
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

    # Five-card subsets strongest first; tops in two orders (with and without the
    # stay bonus for trips), best first and stronger first among equals.
    order5 = np.argsort(-v5, kind="stable")
    sv5 = v5[order5]
    srb = rb[order5].astype(np.float64)
    srm = rm[order5].astype(np.float64)
    ssb = stay_b[order5]
    ssm = stay_m[order5]
    # Where each value's run of equals starts: a middle may equal its bottom.
    run_start = np.searchsorted(-sv5, -sv5, side="left").astype(np.int64)
    t_gain = rt.astype(np.float64) + stay * stay_t
    # Best top gain among tops no stronger than each five-card value (disjointness
    # ignored): an upper bound used to prune middles.
    by_v3 = np.argsort(v3, kind="stable")
    prefix_gain = np.maximum.accumulate(t_gain[by_v3])
    upto = np.searchsorted(v3[by_v3], sv5, side="right") - 1
    top_cap = np.where(upto >= 0, prefix_gain[np.maximum(upto, 0)], -np.inf)
    # Suffix maxima over middles (weaker ones come later) of everything a middle and
    # its top can add: lets the middle loop stop early.
    middle_cap = srm + stay * ssm + top_cap
    suffix_cap = np.maximum.accumulate(middle_cap[::-1])[::-1].copy()
    order_t_stay = np.lexsort((-v3, -t_gain)).astype(np.int64)
    order_t_plain = np.lexsort((-v3, -rt)).astype(np.int64)
    best = _search(
        masks5[order5], sv5, run_start, srb, srm, ssb, ssm, top_cap, suffix_cap,
        masks3, v3, rt.astype(np.float64), stay_t, order_t_stay, order_t_plain, stay,
    )  # fmt: skip
    if best[0] < 0:  # pragma: no cover - 13+ cards always admit a valid board
        raise RuntimeError("no valid board found")
    bi, mi, ti = int(order5[best[0]]), int(order5[best[1]]), int(best[2])
    bottom = _display_order(cards[i] for i in rows5[bi])
    middle = _display_order(cards[i] for i in rows5[mi])
    top = _display_order(cards[i] for i in rows3[ti])
    used = set(bottom) | set(middle) | set(top)
    royalties = (int(rt[ti]), int(rm[mi]), int(rb[bi]))
    stays = bool(stay_b[bi] or stay_m[mi] or stay_t[ti])
    return FantasylandSolution(
        board=Board(top, middle, bottom),
        discards=tuple(c for c in cards if c not in used),
        royalties=royalties,
        stays=stays,
        score=float(sum(royalties)) + (stay if stays else 0.0),
    )


def _display_order(line: Iterable[Card]) -> tuple[Card, ...]:
    """A line as players write it: bigger groups first, then higher ranks."""
    cards = list(line)
    count = {r: sum(1 for c in cards if c >> 2 == r) for r in {c >> 2 for c in cards}}
    return tuple(sorted(cards, key=lambda c: (-count[c >> 2], -(c >> 2), c & 3)))


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
    n3 = m3.shape[0]
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
        if cap < best or (cap == best and vb < best_vb):
            continue
        mb = m5[b]
        for m in range(start, n5):
            vm = v5[m]
            cap = base_b + suffix_cap[m]
            if cap < best or (cap == best and (vb < best_vb or (vb == best_vb and vm < best_vm))):
                break  # every later middle is weaker and can add no more
            if m == b or m5[m] & mb:
                continue
            stayed = sb[b] or sm[m]
            base = rb[b] + rm[m]
            pair_cap = base + (stay if stayed else 0.0) + top_cap[m]
            if pair_cap < best:
                continue
            used = mb | m5[m]
            order = ot_plain if stayed else ot_stay
            for k in range(n3):
                t = order[k]
                if m3[t] & used or v3[t] > vm:
                    continue
                score = base + rt[t]
                if stayed or st[t]:
                    score += stay
                vt = v3[t]
                if score > best or (
                    score == best
                    and (vb > best_vb or (vb == best_vb and (
                        vm > best_vm or (vm == best_vm and vt > best_vt))))
                ):  # fmt: skip
                    best = score
                    best_b, best_m, best_t = b, m, t
                    best_vb, best_vm, best_vt = vb, vm, vt
                break  # the first fitting top in this order is the best for the pair
    return best_b, best_m, best_t
