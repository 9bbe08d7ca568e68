"""The classic setting solver: the best way to set 13 cards against a table of opponents.

Every one of the 72,072 settings of 13 cards (a 5-card bottom, a 5-card middle from the
other 8, the last 3 on top) is scored by its expected points against the opponent model
of :mod:`chinese_poker.ai.setting_tables` (opponents who set random hands with this same
solver), under the given rules: line points, the overall unit and the scoop bonus of the
scoring method, royalties under the award mode, the Finnish deuce, the opponents'
naturals, fouls and surrenders. Fouled settings are never chosen. The solver also says
whether surrendering is worth more than playing, and claims naturals. The model and its
approximations are described in ``docs/solvers.md``.

The search is vectorised: the per-line terms are gathered for the 1,287 five-card and
286 three-card subsets of the hand, and one kernel (numba when installed, else numpy)
sums them over all settings.

>>> from chinese_poker.cards import parse_cards
>>> from chinese_poker.rules import rules_for
>>> cards = parse_cards("As Ah Ad Kc Kd 9h 8h 7h 5h 3c Js Ts 2d")
>>> sol = solve_setting(cards, rules_for("classic"))
>>> str(sol.board), sol.surrender, sol.natural
('5h 3c 2d | Js Ts 9h 8h 7h | As Ah Ad Kd Kc', False, None)
>>> str(heuristic_setting(cards, rules_for("classic")))
'5h 3c 2d | Js Ts 9h 8h 7h | As Ah Ad Kd Kc'
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple, TypeVar, cast

import numpy as np
import numpy.typing as npt

from chinese_poker.ai.setting_tables import (
    Mode,
    OpponentTable,
    Setter,
    TableSetters,
    table_for,
    value_scale,
)
from chinese_poker.cards import Board, Card, CardError
from chinese_poker.evaluate import (
    FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    evaluate_batch,
    evaluate_low27_batch,
)
from chinese_poker.rules import NATURALS, RoyaltyAward, Rules, RulesError, require_supported
from chinese_poker.scoring import DEUCE_OF_SPADES, Natural, line_royalty, natural_of, royalties

__all__ = [
    "TABLE_SETTERS",
    "EvaluatedHand",
    "ScoreTerms",
    "SettingSolution",
    "best_setting_index",
    "describe_solution",
    "evaluate_hand",
    "expected_points",
    "heuristic_setter",
    "heuristic_setting",
    "random_setting",
    "score_terms",
    "solve_setting",
    "solve_with_table",
    "solver_setter",
]

F = TypeVar("F", bound=Callable[..., Any])
I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
F64 = npt.NDArray[np.float64]
B8 = npt.NDArray[np.bool_]

#: Number of settings of 13 cards: C(13,5) bottoms x C(8,5) middles.
SETTINGS = 72072
_LOW_CEILING = 1 << 24


def _jit(fn: F) -> F:
    try:
        import numba
    except ImportError:  # pragma: no cover - numba is optional
        return fn
    return cast(F, numba.njit(cache=True, nogil=True)(fn))


try:  # the numpy fallback is used (and tested) when numba is missing
    import numba as _numba  # noqa: F401

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    HAVE_NUMBA = False


# =========================================================================== the answer


@dataclass(frozen=True, slots=True)
class SettingSolution:
    """The solver's answer for one hand.

    ``board`` is the best valid setting (or, with a natural, the natural's arrangement) and
    ``expected`` its expected points against all the opponents together (``opponents``
    of :func:`solve_setting`); with a natural it is what claiming is expected to collect.
    ``surrender`` is true when surrendering is worth more than playing ``board``;
    ``surrender_expected`` is what surrendering is expected to cost (None when the rules
    do not allow it). ``natural`` is the kind claimed (``dragon``, ``six_pairs``,
    ``three_flushes``, ``three_straights``) or None. ``royalties`` are the board's
    royalties (zero for a natural, which is paid instead). ``alternatives`` are the next
    best settings with different line values, best first, with their expected points.
    """

    board: Board
    expected: float
    surrender: bool
    natural: str | None
    royalties: tuple[int, int, int]
    alternatives: tuple[tuple[Board, float], ...]
    surrender_expected: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe form: boards as ``"top | middle | bottom"`` text.

        >>> from chinese_poker.cards import parse_board
        >>> board = parse_board("Ah Kd 2c | Qs Qh 9d 8c 3s | Js Jh Jd 5c 4h")
        >>> SettingSolution(board, 1.5, False, None, (0, 0, 0), ()).to_dict()["board"]
        'Ah Kd 2c | Qs Qh 9d 8c 3s | Js Jh Jd 5c 4h'
        """
        return {
            "board": str(self.board),
            "expected": self.expected,
            "surrender": self.surrender,
            "surrender_expected": self.surrender_expected,
            "natural": self.natural,
            "royalties": {"top": self.royalties[0], "middle": self.royalties[1],
                          "bottom": self.royalties[2], "total": sum(self.royalties)},
            "alternatives": [{"board": str(b), "expected": e} for b, e in self.alternatives],
        }  # fmt: skip

    def to_json(self) -> str:
        return json.dumps(self.to_dict())


# =========================================================================== settings of 13


class _Settings(NamedTuple):
    rows5: I64  # (1287, 5) positions of each five-card subset
    rows3: I64  # (286, 3) positions of each three-card subset
    bottom: I64  # (72072,) index into rows5
    middle: I64  # (72072,) index into rows5
    top: I64  # (72072,) index into rows3


@lru_cache(maxsize=1)
def _settings() -> _Settings:
    """Every setting of 13 positions as (bottom, middle, top) subset indices, built once."""
    rows5 = np.array(list(itertools.combinations(range(13), 5)), dtype=np.int64)
    rows3 = np.array(list(itertools.combinations(range(13), 3)), dtype=np.int64)
    index5 = {int(m): i for i, m in enumerate((1 << rows5).sum(axis=1))}
    index3 = {int(m): i for i, m in enumerate((1 << rows3).sum(axis=1))}
    full = (1 << 13) - 1
    out = np.empty((SETTINGS, 3), dtype=np.int64)
    n = 0
    for b, row in enumerate(rows5):
        bmask = int((1 << row).sum())
        rest = [p for p in range(13) if not bmask >> p & 1]
        for mid in itertools.combinations(rest, 5):
            mmask = sum(1 << p for p in mid)
            out[n] = (b, index5[mmask], index3[full ^ bmask ^ mmask])
            n += 1
    return _Settings(rows5, rows3, out[:, 0].copy(), out[:, 1].copy(), out[:, 2].copy())


class EvaluatedHand(NamedTuple):
    """One hand's subsets, evaluated."""

    cards: tuple[Card, ...]
    deck: I64
    high5: I32  # five-card high values (the rules' wheel)
    mid: I32  # the middle's comparison value: high5, or the 2-7 low value
    mid_ok: B8  # the middle meets the low qualifier (always true without one)
    top3: I32  # three-card values
    lowball: bool


#: The option values the solver models; it refuses the rest with a RulesError. (Under
#: ``misset_rule = ignore`` it still sets valid boards only, its opponents' mis-sets
#: cost nothing.)
SUPPORTED: dict[str, tuple[object, ...]] = {
    "variant": ("classic", "criss_cross"),
    "royalty_for_dealt_combination": (False,),
}


def _check(cards: Sequence[Card], rules: Rules) -> tuple[Card, ...]:
    if not isinstance(rules, Rules):
        raise RulesError(f"expected a Rules object, got {type(rules).__name__}")
    require_supported(rules, "the setting solver", **SUPPORTED)
    royalties = rules.spec.scoring.royalties
    if royalties.max_per_hand == 1 and royalties.award in (
        RoyaltyAward.CANCEL,
        RoyaltyAward.BEST_AT_TABLE,
    ):
        # Which line's royalty is left after the cap decides what cancels or is best at
        # the table; the model values lines one at a time (a property test found both).
        raise RulesError(
            f"the setting solver does not model royalty_award={royalties.award} together "
            "with max_royalties_per_hand=1"
        )
    if rules.spec.scoring.low_qualifier and not rules.spec.scoring.misset_penalised:
        # A low middle that fails the qualifier is valued as a foul, which
        # misset_rule=ignore does not penalise (a property test found the two disagree).
        raise RulesError(
            "the setting solver does not model misset_rule=ignore together with "
            "low_middle_qualifier=ten_high_no_pair"
        )
    try:
        hand = tuple(int(c) for c in cards)
    except (TypeError, ValueError):
        raise CardError(f"cards must be integers 0..51, got {cards!r}") from None
    if len(hand) != 13:
        raise CardError(f"a classic hand has 13 cards, got {len(hand)}")
    if len(set(hand)) != 13:
        dup = next(c for c in hand if hand.count(c) > 1)
        raise CardError(f"a hand cannot hold the same card twice (card number {dup})")
    if min(hand) < 0 or max(hand) > 51:
        raise CardError("a card number is outside 0..51")
    return hand


def evaluate_hand(cards: tuple[Card, ...], rules: Rules) -> EvaluatedHand:
    """Every line of every setting of 13 checked cards, valued under ``rules``."""
    st = _settings()
    deck = np.asarray(cards, dtype=np.int64)
    lines5 = deck[st.rows5]
    sc = rules.spec.scoring
    high5 = evaluate_batch(lines5, wheel=sc.wheel, check=False)
    top3 = evaluate_batch(deck[st.rows3], check=False)
    lowball = sc.lowball_middle
    if lowball:
        mid = evaluate_low27_batch(lines5)
        if sc.low_qualifier_high is not None:
            high = _LOW_CEILING - mid.astype(np.int64)
            mid_ok = (high >> 20 == 0) & (((high >> 16) & 15) - 2 <= sc.low_qualifier_high)
        else:
            mid_ok = np.ones(len(mid), dtype=np.bool_)
    else:
        mid = high5
        mid_ok = np.ones(len(mid), dtype=np.bool_)
    return EvaluatedHand(cards, deck, high5, mid, mid_ok, top3, lowball)


def _valid(hand: EvaluatedHand) -> B8:
    st = _settings()
    if hand.lowball:
        return (hand.top3[st.top] <= hand.high5[st.bottom]) & hand.mid_ok[st.middle]
    vm = hand.high5[st.middle]
    return (hand.top3[st.top] <= vm) & (vm <= hand.high5[st.bottom])


def _sorted_line(cards: Sequence[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=lambda c: (-(c >> 2), c & 3)))


def _board(hand: EvaluatedHand, i: int) -> Board:
    st = _settings()
    c = hand.cards
    return Board(
        _sorted_line([c[p] for p in st.rows3[st.top[i]]]),
        _sorted_line([c[p] for p in st.rows5[st.middle[i]]]),
        _sorted_line([c[p] for p in st.rows5[st.bottom[i]]]),
    )


# =========================================================================== simple setters


def heuristic_setting(cards: Sequence[Card], rules: Rules) -> Board:
    """A simple rule-based setter: the strongest bottom, then the strongest middle.

    The top gets the three cards left. Among settings that keep the line order (all of
    them in high mode) it takes the strongest bottom, then the strongest middle (the best
    deuce-to-seven low under ``lowball_2_7``), then the strongest top. It is the baseline
    the solver is measured against.

    >>> from chinese_poker.cards import parse_cards
    >>> from chinese_poker.rules import rules_for
    >>> str(heuristic_setting(parse_cards("2c 3d 4h 5s 7c 8d 9h Ts Jc Qd Kh As Ac"),
    ...                       rules_for("classic")))
    '9h 8d 7c | As 5s 4h 3d 2c | Ac Kh Qd Jc Ts'
    """
    hand = evaluate_hand(_check(cards, rules), rules)
    st = _settings()
    valid = _valid(hand)
    pool = np.flatnonzero(valid) if valid.any() else np.arange(SETTINGS)
    order = np.lexsort(
        (hand.top3[st.top[pool]], hand.mid[st.middle[pool]], hand.high5[st.bottom[pool]])
    )
    return _board(hand, int(pool[order[-1]]))


def random_setting(cards: Sequence[Card], rules: Rules, rng: np.random.Generator) -> Board:
    """A uniformly random setting that keeps the line order (any one if none does).

    >>> from chinese_poker.cards import parse_cards
    >>> from chinese_poker.rules import rules_for
    >>> from chinese_poker.scoring import is_fouled
    >>> board = random_setting(parse_cards("2c 3d 4h 5s 7c 8d 9h Ts Jc Qd Kh As Ac"),
    ...                        rules_for("classic"), np.random.default_rng(1))
    >>> is_fouled(rules_for("classic"), board)
    False
    """
    hand = evaluate_hand(_check(cards, rules), rules)
    valid = np.flatnonzero(_valid(hand))
    pool = valid if len(valid) else np.arange(SETTINGS)
    return _board(hand, int(pool[rng.integers(len(pool))]))


# =========================================================================== the model


@lru_cache(maxsize=64)
def _royalty_amounts(rules: Rules, mode: Mode) -> tuple[F64, F64, F64]:
    """The royalty of every value index of each line (:func:`scoring.line_royalty`).

    Per-hand rules (the one-royalty cap) are applied per setting by the solver.
    """
    out = [
        np.array([line_royalty(rules, line, int(v)) for v in value_scale(line, mode)],
                 dtype=np.float64)
        for line in range(3)
    ]  # fmt: skip
    return out[0], out[1], out[2]


@dataclass(frozen=True, eq=False)
class ScoreTerms:
    """Everything the kernel needs from the rules and the table, per line and value index.

    Per opponent: ``base`` line points (v x (P win - P lose)) and ``roy`` the royalty
    exchange, both weighted by the chance the opponent plays; ``coll`` the part of the
    royalties we collect when ``max_one`` (the cap) must choose one line, else zero;
    ``amount`` our royalty; ``win``/``loss`` per stratum (value x stratum) for the overall
    unit and scoop terms with stratum weights ``weights``.
    """

    base: tuple[F64, F64, F64]
    roy: tuple[F64, F64, F64]
    coll: tuple[F64, F64, F64]
    amount: tuple[F64, F64, F64]
    win: tuple[F64, F64, F64]
    loss: tuple[F64, F64, F64]
    weights: F64
    o: float
    s: float
    more: bool
    max_one: bool
    const: float
    p_natural: float
    surrender_ev: float
    fouled_ev: float


@lru_cache(maxsize=64)
def score_terms(rules: Rules, opponents: int, table: OpponentTable) -> ScoreTerms:
    """The :class:`ScoreTerms` of ``rules`` against ``opponents`` who set as ``table``."""
    mode = table.mode
    sc = rules.spec.scoring
    v, o, s = sc.line_values
    surrender_on = sc.surrender_cost is not None
    total = float(table.hands)
    nat_count = float(sum(table.naturals))
    if sc.naturals is None:
        total -= nat_count
        nat_count = 0.0
    fouls = float(table.fouls)
    if not sc.misset_penalised:
        total -= fouls
        fouls = 0.0
    played = [c[0] + c[1] if not surrender_on else c[0] for c in table.counts]
    n_played = float(played[0].sum())
    n_surr = float(table.counts[0][1].sum()) if surrender_on else 0.0
    total = max(total, 1.0)
    c_play = n_played / total
    p_foul = fouls / total
    p_surr = n_surr / total
    p_nat = nat_count / total
    # What the opponents' naturals are expected to collect from us, per opponent.
    nat_pay = 0.0
    if sc.naturals is not None and nat_count:
        values = sc.naturals.values
        nat_pay = sum(table.naturals[i] * values[k] for i, k in enumerate(NATURALS)) / total
    fpr = 1.0 if sc.foul_pays_royalties else 0.0
    max_one = sc.royalties.max_per_hand == 1
    amounts = _royalty_amounts(rules, mode)
    award = sc.royalties.award
    n_other = opponents - 1

    base: list[F64] = []
    roy: list[F64] = []
    coll: list[F64] = []
    win: list[F64] = []
    loss: list[F64] = []
    opp_royalty = 0.0
    per_stratum = played[0].sum(axis=1).astype(np.float64)
    weights = per_stratum / max(per_stratum.sum(), 1.0)
    for line in range(3):
        counts = played[line].astype(np.float64)  # (K, V)
        nk = np.maximum(counts.sum(axis=1, keepdims=True), 1.0)
        below = (np.cumsum(counts, axis=1) - counts) / nk
        above = 1.0 - below - counts / nk
        win.append(np.ascontiguousarray(below.T))
        loss.append(np.ascontiguousarray(np.clip(above, 0.0, 1.0).T))
        p = counts.sum(axis=0) / max(counts.sum(), 1.0)
        le = np.cumsum(p)
        lt = le - p
        gt = np.clip(1.0 - le, 0.0, 1.0)
        r = amounts[line]
        rp = r * p
        opp_royalty += float(rp.sum())
        tail = rp.sum() - np.cumsum(rp)  # sum over opponent values strictly above
        if award == RoyaltyAward.NET:
            collect = r.copy()
            pay = np.full_like(r, -float(rp.sum()))
        elif award == RoyaltyAward.CANCEL:
            collect = r * (np.cumsum(p * (r == 0)) - p * (r == 0))
            pay = -np.where(r == 0, tail, 0.0)
        elif award == RoyaltyAward.BEST_AT_TABLE:
            collect = r * lt * le**n_other
            weighted = rp * le**n_other
            pay = -(weighted.sum() - np.cumsum(weighted))
        else:  # winner_only
            collect = r * lt
            pay = -tail
        base.append(c_play * v * (lt - gt))
        if max_one:
            roy.append(c_play * pay)
            coll.append(c_play * collect + p_foul * fpr * r)
        else:
            roy.append(c_play * (collect + pay) + p_foul * fpr * r)
            coll.append(np.zeros_like(r))
    const = p_foul * sc.foul_value - nat_pay
    cost = float(sc.surrender_cost or rules.surrender_cost)
    if surrender_on:
        const += p_surr * cost
    return ScoreTerms(
        base=(base[0], base[1], base[2]),
        roy=(roy[0], roy[1], roy[2]),
        coll=(coll[0], coll[1], coll[2]),
        amount=amounts,
        win=(win[0], win[1], win[2]),
        loss=(loss[0], loss[1], loss[2]),
        weights=np.ascontiguousarray(weights * c_play),
        o=float(o),
        s=float(s),
        more=sc.more_lines_won,
        max_one=max_one,
        const=const,
        p_natural=p_nat,
        surrender_ev=-cost * c_play - nat_pay,
        fouled_ev=-c_play * (sc.foul_value + fpr * opp_royalty) - nat_pay,
    )


# =========================================================================== the kernel


@_jit
def _ev_kernel(
    tb: Any, tm: Any, tt: Any, vb: Any, vm: Any, vt: Any, mid_ok: Any, lowball: bool,
    lin_b: Any, lin_m: Any, lin_t: Any, col_b: Any, col_m: Any, col_t: Any,
    r_b: Any, r_m: Any, r_t: Any, max_one: bool,
    win_b: Any, loss_b: Any, win_m: Any, loss_m: Any, win_t: Any, loss_t: Any,
    w: Any, o: float, s: float, more: bool, out: Any,
) -> None:  # fmt: skip
    """Expected points per opponent of every setting; ``-inf`` where it fouls."""
    n = tb.shape[0]
    nk = w.shape[0]
    joint = o != 0.0 or s != 0.0
    for i in range(n):
        b = tb[i]
        m = tm[i]
        t = tt[i]
        ok = (vt[t] <= vb[b] and mid_ok[m]) if lowball else (vt[t] <= vm[m] <= vb[b])
        if not ok:
            out[i] = -np.inf
            continue
        e = lin_b[b] + lin_m[m] + lin_t[t]
        if max_one:  # the biggest royalty only; on equal amounts the lower line
            if r_b[b] >= r_m[m] and r_b[b] >= r_t[t]:
                e += col_b[b]
            elif r_m[m] >= r_t[t]:
                e += col_m[m]
            else:
                e += col_t[t]
        if joint:
            g = 0.0
            for k in range(nk):
                a1 = win_t[t, k]
                a2 = win_m[m, k]
                a3 = win_b[b, k]
                l1 = loss_t[t, k]
                l2 = loss_m[m, k]
                l3 = loss_b[b, k]
                w3 = a1 * a2 * a3
                z3 = l1 * l2 * l3
                if more:
                    t1 = 1.0 - a1 - l1
                    t2 = 1.0 - a2 - l2
                    t3 = 1.0 - a3 - l3
                    up = (w3 + a1 * a2 * t3 + a1 * t2 * a3 + t1 * a2 * a3
                          + a1 * a2 * l3 + a1 * l2 * a3 + l1 * a2 * a3
                          + a1 * t2 * t3 + t1 * a2 * t3 + t1 * t2 * a3)  # fmt: skip
                    down = (z3 + l1 * l2 * t3 + l1 * t2 * l3 + t1 * l2 * l3
                            + l1 * l2 * a3 + l1 * a2 * l3 + a1 * l2 * l3
                            + l1 * t2 * t3 + t1 * l2 * t3 + t1 * t2 * l3)  # fmt: skip
                else:
                    up = a1 * a2 + a1 * a3 + a2 * a3 - 2.0 * w3
                    down = l1 * l2 + l1 * l3 + l2 * l3 - 2.0 * z3
                g += w[k] * (o * (up - down) + s * (w3 - z3))
            e += g
        out[i] = e


def _ev_numpy(
    tb: I64, tm: I64, tt: I64, vb: I32, vm: I32, vt: I32, mid_ok: B8, lowball: bool,
    lin_b: F64, lin_m: F64, lin_t: F64, col_b: F64, col_m: F64, col_t: F64,
    r_b: F64, r_m: F64, r_t: F64, max_one: bool,
    win_b: F64, loss_b: F64, win_m: F64, loss_m: F64, win_t: F64, loss_t: F64,
    w: F64, o: float, s: float, more: bool, out: F64,
) -> None:  # fmt: skip
    """The same as :func:`_ev_kernel` in numpy (used without numba)."""
    ok = (vt[tt] <= vb[tb]) & mid_ok[tm] if lowball else (vt[tt] <= vm[tm]) & (vm[tm] <= vb[tb])
    e = lin_b[tb] + lin_m[tm] + lin_t[tt]
    if max_one:
        rb, rm, rt = r_b[tb], r_m[tm], r_t[tt]
        pick_b = (rb >= rm) & (rb >= rt)
        pick_m = ~pick_b & (rm >= rt)
        e += np.where(pick_b, col_b[tb], np.where(pick_m, col_m[tm], col_t[tt]))
    if o or s:
        a1, a2, a3 = win_t[tt], win_m[tm], win_b[tb]
        l1, l2, l3 = loss_t[tt], loss_m[tm], loss_b[tb]
        w3 = a1 * a2 * a3
        z3 = l1 * l2 * l3
        if more:
            t1, t2, t3 = 1.0 - a1 - l1, 1.0 - a2 - l2, 1.0 - a3 - l3
            up = _more_wins(a1, a2, a3, t1, t2, t3, l1, l2, l3)
            down = _more_wins(l1, l2, l3, t1, t2, t3, a1, a2, a3)
        else:
            up = a1 * a2 + a1 * a3 + a2 * a3 - 2.0 * w3
            down = l1 * l2 + l1 * l3 + l2 * l3 - 2.0 * z3
        e += (o * (up - down) + s * (w3 - z3)) @ w
    out[:] = np.where(ok, e, -np.inf)


def _more_wins(
    a1: F64, a2: F64, a3: F64, t1: F64, t2: F64, t3: F64, l1: F64, l2: F64, l3: F64
) -> F64:
    """P(more lines won than lost) from per-line win/tie/loss chances (independent)."""
    three = a1 * a2 * a3
    two = a1 * a2 * (t3 + l3) + a1 * a3 * (t2 + l2) + a2 * a3 * (t1 + l1)
    one = a1 * t2 * t3 + t1 * a2 * t3 + t1 * t2 * a3
    return three + two + one


def expected_points(hand: EvaluatedHand, rules: Rules, terms: ScoreTerms, table: OpponentTable, *,
              use_numba: bool = True) -> F64:  # fmt: skip
    """Expected points per opponent of every setting (``-inf`` for fouled ones)."""
    st = _settings()
    mode = table.mode
    i5 = np.searchsorted(value_scale(2, mode), hand.high5)
    im = np.searchsorted(value_scale(1, mode), hand.mid)
    i3 = np.searchsorted(value_scale(0, mode), hand.top3)
    d5 = np.ones(len(i5))
    d3 = np.ones(len(i3))
    if rules.spec.scoring.finnish_deuce and DEUCE_OF_SPADES in hand.cards:
        pos = hand.cards.index(DEUCE_OF_SPADES)
        d5 = np.where((st.rows5 == pos).any(axis=1), 2.0, 1.0)
        d3 = np.where((st.rows3 == pos).any(axis=1), 2.0, 1.0)
    b, r, c, a = terms.base, terms.roy, terms.coll, terms.amount
    out = np.empty(SETTINGS, dtype=np.float64)
    kernel = _ev_kernel if use_numba else _ev_numpy
    kernel(
        st.bottom, st.middle, st.top, hand.high5, hand.high5, hand.top3, hand.mid_ok,
        hand.lowball,
        b[2][i5] + d5 * r[2][i5], b[1][im] + d5 * r[1][im], b[0][i3] + d3 * r[0][i3],
        d5 * c[2][i5], d5 * c[1][im], d3 * c[0][i3], a[2][i5], a[1][im], a[0][i3],
        terms.max_one,
        terms.win[2][i5], terms.loss[2][i5], terms.win[1][im], terms.loss[1][im],
        terms.win[0][i3], terms.loss[0][i3],
        terms.weights, terms.o, terms.s, terms.more, out,
    )  # fmt: skip
    return out


# =========================================================================== naturals


def _best_natural(hand: EvaluatedHand, rules: Rules, board: Board) -> tuple[Natural | None, Board]:
    """The most valuable natural the hand can claim over *every* setting, and a board
    that shows it (``board``, the best-EV setting, when that shows it or for no natural).

    Dragons and six pairs, and every natural under ``natural_source = dealt_cards``,
    come from the 13 cards; otherwise three flushes and three straights exist only as
    the board is set, so the best setting of each kind is checked as well.
    """
    ns = rules.spec.scoring.naturals
    if ns is None:
        return None, board
    best = natural_of(rules, board)
    shown = board
    kinds = ("three_flushes", "three_straights")
    for kind in kinds:
        if best is not None and best.kind == kind:
            continue  # the best board shows it already
        i = _natural_board(hand, kind)
        if i is None:
            continue
        candidate = _board(hand, i)
        found = natural_of(rules, candidate)
        if found is not None and (best is None or found.value > best.value):
            best, shown = found, candidate
    if best is not None and best.kind in kinds and shown is board and ns.from_dealt_cards:
        i = _natural_board(hand, best.kind)  # show the natural when a setting can
        if i is not None:
            shown = _board(hand, i)
    return best, shown


def _natural_board(hand: EvaluatedHand, kind: str) -> int | None:
    """The best setting that shows a three-flushes or three-straights natural."""
    st = _settings()
    deck = hand.deck
    tops = deck[st.rows3]
    cat5 = hand.high5 >> 20
    if kind == "three_flushes":
        top_ok = (tops & 3 == (tops[:, :1] & 3)).all(axis=1)
        five_ok = (cat5 == FLUSH) | (cat5 == STRAIGHT_FLUSH)
    elif kind == "three_straights":
        ranks = np.sort(tops >> 2, axis=1)
        run = (ranks[:, 1] == ranks[:, 0] + 1) & (ranks[:, 2] == ranks[:, 1] + 1)
        top_ok = run | ((ranks[:, 0] == 0) & (ranks[:, 1] == 1) & (ranks[:, 2] == 12))
        five_ok = (cat5 == STRAIGHT) | (cat5 == STRAIGHT_FLUSH)
    else:
        return None
    vb, vm = hand.high5[st.bottom], hand.high5[st.middle]
    ok = top_ok[st.top] & five_ok[st.bottom] & five_ok[st.middle] & (vm <= vb)
    pool = np.flatnonzero(ok)
    if not len(pool):
        return None
    order = np.lexsort((hand.top3[st.top[pool]], vm[pool], vb[pool]))
    return int(pool[order[-1]])


# =========================================================================== the solver


def solve_setting(
    cards: Sequence[Card], rules: Rules, *, opponents: int = 3, top_n: int = 5
) -> SettingSolution:
    """The setting of 13 cards with the highest expected points against ``opponents``.

    The opponents are the shipped model for the rules' family when one ships (an
    equilibrium table, :mod:`chinese_poker.ai.equilibrium`), else for their mode (see
    :func:`chinese_poker.ai.setting_tables.table_for`); ``expected`` is the sum over the
    ``opponents`` (1 to 3) pairwise settlements. ``top_n`` runner-up settings (with
    different line values) are listed in ``alternatives``. Raises
    :class:`~chinese_poker.cards.CardError` for anything but 13 distinct cards and
    :class:`~chinese_poker.rules.RulesError` for non-classic rules.

    >>> from chinese_poker.cards import parse_cards
    >>> from chinese_poker.rules import rules_for
    >>> dragon = parse_cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    >>> sol = solve_setting(dragon, rules_for("classic"))
    >>> sol.natural, sol.expected > 30
    ('dragon', True)
    """
    _check(cards, rules)
    table = table_for(rules, TABLE_SETTERS)
    return solve_with_table(cards, rules, table, opponents=opponents, top_n=top_n)


def heuristic_setter(rules: Rules) -> Setter:
    """Opponents who set with :func:`heuristic_setting` (an opponent table's stage 0)."""

    def setter(cards: Sequence[Card]) -> tuple[Board, bool, str | None]:
        board = heuristic_setting(cards, rules)
        natural = natural_of(rules, board)
        return board, False, None if natural is None else natural.kind

    return setter


def solver_setter(rules: Rules, table: OpponentTable) -> Setter:
    """Opponents who set with the solver against ``table`` (the later stages)."""

    def setter(cards: Sequence[Card]) -> tuple[Board, bool, str | None]:
        sol = solve_with_table(cards, rules, table, opponents=3, top_n=0)
        return sol.board, sol.surrender, sol.natural

    return setter


#: How the solver's opponents set while their tables are built (handed to
#: :mod:`chinese_poker.ai.setting_tables`, which does not import the solver).
TABLE_SETTERS = TableSetters(first=heuristic_setter, next=solver_setter)


def solve_with_table(
    cards: Sequence[Card],
    rules: Rules,
    table: OpponentTable,
    *,
    opponents: int = 3,
    top_n: int = 5,
    use_numba: bool = True,
) -> SettingSolution:
    """:func:`solve_setting` against a given opponent table (for building tables, tests)."""
    hand = evaluate_hand(_check(cards, rules), rules)
    if not 1 <= opponents <= 3:
        raise ValueError(f"opponents must be 1 to 3, got {opponents}")
    if top_n < 0:
        raise ValueError(f"top_n must be >= 0, got {top_n}")
    terms = score_terms(rules, opponents, table)
    ev = expected_points(hand, rules, terms, table, use_numba=use_numba and HAVE_NUMBA)
    best_per = float(ev.max())
    n = float(opponents)
    if best_per == -np.inf:  # every setting fouls (a low middle with a qualifier)
        best = best_setting_index(hand, np.zeros(SETTINGS, dtype=np.float64))
        play_total = n * terms.fouled_ev
        alternatives: tuple[tuple[Board, float], ...] = ()
    else:
        best = best_setting_index(hand, ev)
        play_total = n * (best_per + terms.const)
        alternatives = _alternatives(hand, ev, best, top_n, terms.const, n)
    board = _board(hand, best)
    sc = rules.spec.scoring
    surrender_total = n * terms.surrender_ev if sc.surrender_cost is not None else None

    natural, shown = _best_natural(hand, rules, board)
    if natural is not None and sc.naturals is not None:
        claim_total = n * (1.0 - terms.p_natural) * natural.value
        # A natural of the 13 cards is claimed whether or not it pays (automatic claim);
        # one that only a setting shows is claimed by setting it, when that pays most.
        forced = not sc.naturals.optional_claim and (
            sc.naturals.from_dealt_cards or natural.kind in NATURALS[:2]  # dragon, six pairs
        )
        if forced or claim_total >= max(
            play_total, surrender_total if surrender_total is not None else -np.inf
        ):
            return SettingSolution(
                board=shown,
                expected=claim_total,
                surrender=False,
                natural=natural.kind,
                royalties=(0, 0, 0),
                alternatives=alternatives,
                surrender_expected=surrender_total,
            )
    surrender = surrender_total is not None and surrender_total > play_total
    return SettingSolution(
        board=board,
        expected=play_total,
        surrender=surrender,
        natural=None,
        royalties=royalties(rules, board, dealt=hand.cards),
        alternatives=alternatives,
        surrender_expected=surrender_total,
    )


def best_setting_index(hand: EvaluatedHand, ev: F64) -> int:
    """The best setting; ties go to the stronger bottom, then middle, then top."""
    st = _settings()
    top = ev.max()
    pool = np.flatnonzero(ev == top)
    order = np.lexsort(
        (hand.top3[st.top[pool]], hand.mid[st.middle[pool]], hand.high5[st.bottom[pool]])
    )
    return int(pool[order[-1]])


def _alternatives(
    hand: EvaluatedHand, ev: F64, best: int, top_n: int, const: float, n: float
) -> tuple[tuple[Board, float], ...]:
    if top_n == 0:
        return ()
    st = _settings()
    valid = int(np.isfinite(ev).sum())
    k = min(valid, 64 + 16 * top_n)
    while True:
        cand = np.argpartition(-ev, k - 1)[:k] if k < SETTINGS else np.arange(SETTINGS)
        cand = cand[np.isfinite(ev[cand])]
        order = np.lexsort(
            (-hand.top3[st.top[cand]], -hand.mid[st.middle[cand]],
             -hand.high5[st.bottom[cand]], -ev[cand])
        )  # fmt: skip
        seen = {_triple(hand, best)}
        out: list[tuple[Board, float]] = []
        for i in cand[order]:
            key = _triple(hand, int(i))
            if key in seen:
                continue
            seen.add(key)
            out.append((_board(hand, int(i)), n * (float(ev[i]) + const)))
            if len(out) == top_n:
                return tuple(out)
        if k >= valid:
            return tuple(out)
        k = min(valid, 4 * k)


def _triple(hand: EvaluatedHand, i: int) -> tuple[int, int, int]:
    st = _settings()
    return (
        int(hand.top3[st.top[i]]),
        int(hand.mid[st.middle[i]]),
        int(hand.high5[st.bottom[i]]),
    )


def describe_solution(solution: SettingSolution) -> str:
    """One line for people: the board, what it is worth, and the advice.

    >>> from chinese_poker.cards import parse_board
    >>> board = parse_board("Ah Kd 2c | Qs Qh 9d 8c 3s | Js Jh Jd 5c 4h")
    >>> describe_solution(SettingSolution(board, 1.25, False, None, (0, 0, 0), ()))
    'Ah Kd 2c | Qs Qh 9d 8c 3s | Js Jh Jd 5c 4h  (+1.25 expected)'
    """
    text = f"{solution.board}  ({solution.expected:+.2f} expected)"
    if solution.natural:
        text += f", natural: {solution.natural.replace('_', ' ')}"
    elif solution.surrender:
        text += f", surrender ({solution.surrender_expected:+.2f})"
    return text
