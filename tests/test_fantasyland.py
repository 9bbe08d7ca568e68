"""The Fantasyland solver is exact: it matches a brute force over every arrangement."""

from __future__ import annotations

import itertools
import random
from functools import cache

import numpy as np
import numpy.typing as npt
import pytest

from chinese_poker.ai.fantasyland import (
    DEFAULT_STAY_VALUE,
    FantasylandSolution,
    fantasyland_boards,
    solve_fantasyland,
)
from chinese_poker.cards import CardError, parse_card, parse_cards
from chinese_poker.evaluate import evaluate_batch
from chinese_poker.rules import Rules, rules_for
from chinese_poker.scoring import fantasyland_next, is_fouled, line_royalty, royalties

DEUCE = parse_card("2s")


@cache
def _arrangements() -> npt.NDArray[np.int64]:
    """Every (bottom, middle, top) split of 13 positions: 72,072 rows of 13 positions."""
    rows = []
    for bottom in itertools.combinations(range(13), 5):
        rest = [i for i in range(13) if i not in bottom]
        for middle in itertools.combinations(rest, 5):
            top = [i for i in rest if i not in middle]
            rows.append((*bottom, *middle, *top))
    return np.array(rows, dtype=np.int64)


def _royalty_of(rules: Rules, line: int, values: npt.NDArray[np.int32]) -> npt.NDArray[np.int64]:
    uniq, inverse = np.unique(values, return_inverse=True)
    per = np.array([line_royalty(rules, line, int(v)) for v in uniq], dtype=np.int64)
    return per[inverse]


def brute_boards(
    cards: list[int], rules: Rules, stay: float, bonus: npt.NDArray[np.float64] | None = None
) -> npt.NDArray[np.float64]:
    """Every valid arrangement of every 13 of ``cards``: rows of (score, bottom value,
    middle value, top value, score plus ``bonus[line, value >> 16]`` of the lines)."""
    arr = _arrangements()
    out = []
    fl_middle = {"full_house": 6, "four_of_a_kind": 7}.get(rules.fl_repeat_middle_min, 99)
    for keep in itertools.combinations(cards, 13):
        boards = np.asarray(keep, dtype=np.int64)[arr]
        bottom, middle, top = boards[:, :5], boards[:, 5:10], boards[:, 10:]
        vb = evaluate_batch(bottom, wheel=rules.wheel_rank)
        vm = evaluate_batch(middle, wheel=rules.wheel_rank)
        vt = evaluate_batch(top)
        valid = (vt <= vm) & (vm <= vb)
        rb, rm, rt = (_royalty_of(rules, i, v) for i, v in ((2, vb), (1, vm), (0, vt)))
        if rules.finnish_deuce:
            rb = rb * np.where((bottom == DEUCE).any(axis=1), 2, 1)
            rm = rm * np.where((middle == DEUCE).any(axis=1), 2, 1)
            rt = rt * np.where((top == DEUCE).any(axis=1), 2, 1)
        stays = ((vt >> 20) == 3) | ((vb >> 20) >= 7) | ((vm >> 20) >= fl_middle)
        if not rules.fantasyland_enabled:
            stays[:] = False
        score = (rb + rm + rt).astype(np.float64) + stay * stays
        key = score.copy()
        if bonus is not None:
            key += bonus[0, vt >> 16] + bonus[1, vm >> 16] + bonus[2, vb >> 16]
        out.append(np.stack([score, vb, vm, vt, key], axis=1)[valid])
    return np.concatenate(out)


def brute_force(cards: list[int], rules: Rules, stay: float) -> tuple[float, int, int, int]:
    """Best (score, bottom value, middle value, top value) over all arrangements."""
    rows = brute_boards(cards, rules, stay)
    i = np.lexsort((rows[:, 3], rows[:, 2], rows[:, 1], rows[:, 0]))[-1]
    return float(rows[i, 0]), int(rows[i, 1]), int(rows[i, 2]), int(rows[i, 3])


CASES = [
    ("pineapple", {}, 14, 10.0),
    ("pineapple", {}, 14, 0.0),
    ("pineapple", {}, 14, 60.0),
    ("ofc", {}, 13, DEFAULT_STAY_VALUE),
    ("pineapple", {}, 14, DEFAULT_STAY_VALUE),
    ("ofc-western", {}, 13, 5.0),
    ("ofc-hitspoker", {}, 13, 10.0),
    ("ofc-finnish", {}, 13, 10.0),
    ("pineapple-progressive", {"finnish_deuce": True}, 15, 10.0),
    ("pineapple", {"fl_repeat_middle_min": "full_house"}, 14, 25.0),
    ("turbo", {"middle_trips_royalty": 0}, 13, 10.0),
]


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "options", "n", "stay"), CASES)
def test_matches_brute_force(preset: str, options: dict[str, object], n: int, stay: float) -> None:
    rules = rules_for(preset, **options)
    rng = random.Random(f"{preset}{n}{stay}")
    deals = 4 if n == 13 else (2 if n == 14 else 1)
    for _ in range(deals):
        cards = rng.sample(range(52), n)
        if rules.finnish_deuce and DEUCE not in cards:
            cards[0] = DEUCE if DEUCE not in cards else cards[0]
        sol = solve_fantasyland(cards, rules, stay_value=stay)
        want = brute_force(cards, rules, stay)
        vb, vm, vt = (
            int(evaluate_batch(np.array([line]), wheel=rules.wheel_rank)[0])
            for line in (sol.board.bottom, sol.board.middle, sol.board.top)
        )
        assert (sol.score, vb, vm, vt) == pytest.approx(want), (cards, str(sol.board))
        assert not is_fouled(rules, sol.board)
        assert sorted(sol.board.cards + sol.discards) == sorted(cards)


def _values(rules: Rules, sol: FantasylandSolution) -> tuple[int, int, int]:
    """(bottom, middle, top) values of a solution's board."""
    b = sol.board
    return (int(evaluate_batch(np.array([b.bottom]), wheel=rules.wheel_rank)[0]),
            int(evaluate_batch(np.array([b.middle]), wheel=rules.wheel_rank)[0]),
            int(evaluate_batch(np.array([b.top]))[0]))  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "options", "n", "stay"), CASES[3:9])
def test_boards_by_a_line_bonus_match_brute_force(
    preset: str, options: dict[str, object], n: int, stay: float
) -> None:
    # An arbitrary bonus per line and value (not the policy's table): the boards must be
    # the best of every arrangement by score plus bonus, one for each set of three line
    # values, ties to the stronger bottom, middle, top.
    rules = rules_for(preset, **options)
    rng = random.Random(f"bonus{preset}{n}")
    bonus = np.random.default_rng(len(preset) + n).normal(0.0, 1.5, (3, 256))
    for _ in range(2 if n == 13 else 1):
        cards = rng.sample(range(52), n)
        got = fantasyland_boards(cards, rules, stay_value=stay, line_bonus=bonus, count=12)
        rows = brute_boards(cards, rules, stay, bonus)
        vb, vm, vt = (rows[:, i].astype(np.int64) for i in (1, 2, 3))
        best: dict[tuple[int, int, int], float] = {}  # the Finnish deuce: keys may differ
        for key, b, m, t in zip(rows[:, 4].tolist(), vb.tolist(), vm.tolist(), vt.tolist(),
                                strict=True):  # fmt: skip
            best[(b, m, t)] = max(best.get((b, m, t), -np.inf), key)
        want = sorted(((key, *v) for v, key in best.items()), reverse=True)[:12]
        assert len(got) == len(want)
        for sol, (key, b, m, t) in zip(got, want, strict=True):
            assert not is_fouled(rules, sol.board)
            assert sorted(sol.board.cards + sol.discards) == sorted(cards)
            gb, gm, gt = _values(rules, sol)
            got_key = sol.score + bonus[0, gt >> 16] + bonus[1, gm >> 16] + bonus[2, gb >> 16]
            assert (got_key, gb, gm, gt) == pytest.approx((key, b, m, t)), cards


def test_boards_without_a_bonus_start_with_the_solvers() -> None:
    rules = rules_for("pineapple-progressive")
    rng = random.Random(11)
    for k in range(25):
        cards = rng.sample(range(52), 13 + k % 5)  # 13 to 17 cards
        first = fantasyland_boards(cards, rules, stay_value=12.0, count=3)
        assert first[0] == solve_fantasyland(cards, rules, stay_value=12.0)
        assert [s.score for s in first] == sorted((s.score for s in first), reverse=True)


def test_solver_first_puts_the_solvers_board_before_the_best_others() -> None:
    # With a bonus large enough to reorder the boards, the solver's board still comes
    # first, then the other boards in their order, none twice, ``count`` in all.
    rules = rules_for("pineapple")
    rng = random.Random(12)
    bonus = np.random.default_rng(12).uniform(0, 8, (3, 256))
    moved = 0
    for k in range(20):
        cards = rng.sample(range(52), 14 + k % 4)
        plain = fantasyland_boards(cards, rules, stay_value=10.0, line_bonus=bonus, count=5)
        first = fantasyland_boards(cards, rules, stay_value=10.0, line_bonus=bonus, count=5,
                                   solver_first=True)  # fmt: skip
        solver = solve_fantasyland(cards, rules, stay_value=10.0)
        assert first[0] == solver and len(first) == 5
        assert first[1:] == [s for s in plain if s.board != solver.board][:4]
        moved += plain[0] != solver
    assert moved  # the bonus did reorder some deals


def test_boards_refuse_bad_arguments() -> None:
    rules = rules_for("pineapple")
    cards = list(range(14))
    for count in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="count"):
            fantasyland_boards(cards, rules, count=count)  # type: ignore[arg-type]
    for bonus in (np.zeros((3, 10)), np.full((3, 256), np.nan)):
        with pytest.raises(ValueError, match="line_bonus"):
            fantasyland_boards(cards, rules, line_bonus=bonus)
    with pytest.raises(CardError, match="13 to 17"):
        fantasyland_boards(cards[:12], rules)


def test_rich_hands_match_brute_force() -> None:
    # Hands full of royalties stress the pruning: quads, straight flushes, trips.
    rules = rules_for("pineapple")
    for text in (
        "As Ah Ad Ac Ks Kh Kd Qs Js Ts 9s 8s 2c 3c",
        "2s 2h 2d 2c 3s 4s 5s 6s 7h 7d 7c Kh Kd Ad",
        "Ts Js Qs Ks As Th Jh Qh Kh Ah 9c 9d 9h 2s",
    ):
        cards = list(parse_cards(text))
        sol = solve_fantasyland(cards, rules)
        want = brute_force(cards, rules, DEFAULT_STAY_VALUE)
        assert sol.score == pytest.approx(want[0]), text


def test_solution_reports_royalties_and_stay() -> None:
    rules = rules_for("pineapple")
    cards = parse_cards("As Ah Ad Kc Kd Qh Qs Js Ts 9s 8s 7s 2d 3c")
    sol = solve_fantasyland(cards, rules, stay_value=0)
    assert sol.royalties == royalties(rules, sol.board)
    assert sol.total_royalties == 35
    # The straight flush bottom keeps Pineapple's Fantasyland (quads or better).
    assert sol.stays
    assert fantasyland_next(rules, sol.board, in_fantasyland=True) is not None
    d = sol.to_dict()
    assert d["royalties"]["total"] == 35 and d["board"] == str(sol.board)
    # A big stay value picks the board that stays: here trips on top.
    cards = parse_cards("7s 7h 7d As Ks Js 9s 4s Qd Jh Th 9h 8c 2d")
    keen = solve_fantasyland(cards, rules, stay_value=100)
    assert keen.stays and len({c >> 2 for c in keen.board.top}) == 1
    assert keen.score == keen.total_royalties + 100
    assert fantasyland_next(rules, keen.board, in_fantasyland=True) is not None
    # Without a way to stay, the stay value changes nothing.
    cards = parse_cards("As Ah Ad Kc Kd Qh Qs Js Ts 9s 8c 7d 2d 3c")
    plain = solve_fantasyland(cards, rules, stay_value=0)
    keen = solve_fantasyland(cards, rules, stay_value=100)
    assert not keen.stays and keen.board == plain.board and plain.total_royalties == 18


def best_royalties(cards: list[int], rules: Rules) -> float:
    """The most royalties any valid board of 13 of ``cards`` earns (no Finnish deuce, no
    stay value), by every split into a bottom, a middle and a top: for each middle, every
    bottom of the cards left and every top of the cards left after it. Independent of the
    solver and quick enough for 17 cards (the brute force over arrangements is not)."""
    assert not rules.finnish_deuce
    n = len(cards)
    deal = np.asarray(cards, dtype=np.int64)
    five = np.array(list(itertools.combinations(range(n), 5)), dtype=np.int64)
    three = np.array(list(itertools.combinations(range(n), 3)), dtype=np.int64)
    v5 = evaluate_batch(deal[five], wheel=rules.wheel_rank)
    v3 = evaluate_batch(deal[three])
    rb, rm, rt = _royalty_of(rules, 2, v5), _royalty_of(rules, 1, v5), _royalty_of(rules, 0, v3)
    index5 = np.full(1 << n, -1, dtype=np.int64)
    index5[np.left_shift(1, five).sum(axis=1)] = np.arange(len(five))
    index3 = np.full(1 << n, -1, dtype=np.int64)
    index3[np.left_shift(1, three).sum(axis=1)] = np.arange(len(three))
    # Positions among the n - 5 cards a middle leaves: a bottom of 5, then a top of 3 of
    # the rest.
    splits = [
        (b, t)
        for b in itertools.combinations(range(n - 5), 5)
        for t in itertools.combinations([i for i in range(n - 5) if i not in b], 3)
    ]
    local_b = np.array([b for b, _ in splits], dtype=np.int64)
    local_t = np.array([t for _, t in splits], dtype=np.int64)
    # Middles by a bound of what they can earn (the best bottom no weaker and the best top
    # no stronger, the cards' overlap ignored): once it cannot beat the best found, stop.
    by_v5, by_v3 = np.argsort(v5), np.argsort(v3)
    best_bottom = np.maximum.accumulate(rb[by_v5][::-1])[::-1]
    best_top = np.maximum.accumulate(rt[by_v3])
    bound = (rm + best_bottom[np.searchsorted(v5[by_v5], v5, side="left")]
             + best_top[np.searchsorted(v3[by_v3], v5, side="right") - 1])  # fmt: skip
    best = -np.inf
    for m in np.argsort(-bound, kind="stable"):
        if bound[m] <= best:
            break
        left = np.array([i for i in range(n) if i not in five[m]], dtype=np.int64)
        b = index5[np.left_shift(1, left[local_b]).sum(axis=1)]
        t = index3[np.left_shift(1, left[local_t]).sum(axis=1)]
        valid = (v5[b] >= v5[m]) & (v3[t] <= v5[m])
        if valid.any():
            best = max(best, float(rm[m] + (rb[b] + rt[t])[valid].max()))
    return best


def test_the_royalty_oracle_matches_brute_force() -> None:
    rules = rules_for("pineapple-progressive")
    cards = list(parse_cards("As Ah Ad Kc Kd Qh Qs Js Ts 9s 8s 7s 2d 3c"))
    assert best_royalties(cards, rules) == brute_force(cards, rules, 0.0)[0]


@pytest.mark.parametrize(
    "text",
    [
        "As Ah Ad Ac Ks Kh Kd Qs Js Ts 9s 8s 2c 3c 4c 5c 6c",  # royalties everywhere
        "7s 7h 7d 6c 6d 5s 4s 3s 2s Jh 9h 8h 4h Td Kc Qd 2d",  # a straight flush, a flush
    ],
)
def test_progressive_seventeen_cards_is_exact_on_a_rich_deal(text: str) -> None:
    rules = rules_for("pineapple-progressive")
    cards = list(parse_cards(text))
    sol = solve_fantasyland(cards, rules, stay_value=0)
    assert len(sol.discards) == 4
    assert not is_fouled(rules, sol.board)
    assert sol.score == sol.total_royalties == best_royalties(cards, rules)


def test_bad_input() -> None:
    rules = rules_for("pineapple")
    with pytest.raises(CardError, match="13 to 17"):
        solve_fantasyland(parse_cards("As Ah Ad"), rules)
    with pytest.raises(CardError, match="twice"):
        solve_fantasyland([0] * 14, rules)
    with pytest.raises(CardError, match="outside"):
        solve_fantasyland([*list(range(13)), 60], rules)
