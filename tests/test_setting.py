"""Tests for the classic setting solver (chinese_poker.ai.setting) and its opponent tables."""

from __future__ import annotations

import doctest
import itertools
import json
import math
from collections.abc import Sequence
from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from chinese_poker.ai import setting as setting_module
from chinese_poker.ai import setting_tables
from chinese_poker.ai.setting import (
    TABLE_SETTERS,
    SettingSolution,
    heuristic_setting,
    random_setting,
    solve_setting,
    solve_with_table,
)
from chinese_poker.ai.setting_tables import (
    MODES,
    SHIPPED,
    OpponentTable,
    build_table,
    load_table,
    mode_of,
    table_path,
    value_scale,
)
from chinese_poker.cards import Board, Card, CardError, parse_board, parse_card, parse_cards
from chinese_poker.evaluate import (
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    category,
    is_royal_flush,
)
from chinese_poker.rules import NATURALS, Rules, RulesError, rules_for
from chinese_poker.rules.options import FIVE_CARD_ROYALTY_KEYS
from chinese_poker.scoring import Hand, is_fouled, line_royalty, line_values, natural_of, settle

CLASSIC_PRESETS = ("classic", "classic-1-6", "classic-low-middle", "classic-wheel", "criss-cross")


def deal(seed: int, hands: int = 1) -> list[tuple[Card, ...]]:
    deck = [int(c) for c in np.random.default_rng(seed).permutation(52)]
    return [tuple(deck[13 * i : 13 * i + 13]) for i in range(hands)]


# --------------------------------------------------------------------------- basic answers


@pytest.mark.parametrize("preset", CLASSIC_PRESETS)
def test_valid_setting_with_the_same_cards(preset: str) -> None:
    rules = rules_for(preset)
    for seed in range(12):
        (cards,) = deal(seed)
        sol = solve_setting(cards, rules, opponents=1 if preset == "criss-cross" else 3)
        assert sorted(sol.board.cards) == sorted(cards)
        assert sol.board.complete
        if sol.natural is None:
            assert not is_fouled(rules, sol.board), (preset, str(sol.board))
        # Alternatives are valid, different and no better than the answer.
        for board, expected in sol.alternatives:
            assert sorted(board.cards) == sorted(cards)
            assert not is_fouled(rules, board)
            assert expected <= sol.expected + 1e-9 or sol.natural is not None
        triples = {line_values(rules, b) for b, _ in sol.alternatives}
        assert len(triples) == len(sol.alternatives)


def test_never_fouls_and_beats_alternatives_on_many_hands() -> None:
    rules = rules_for("classic")
    for seed in range(100, 160):
        (cards,) = deal(seed)
        sol = solve_setting(cards, rules, top_n=3)
        assert not is_fouled(rules, sol.board)
        values = [e for _, e in sol.alternatives]
        assert values == sorted(values, reverse=True)


def test_solution_to_dict_is_json_safe() -> None:
    (cards,) = deal(7)
    sol = solve_setting(cards, rules_for("classic"), top_n=2)
    data = json.loads(json.dumps(sol.to_dict()))
    assert parse_board(data["board"]) == Board(*(tuple(x) for x in sol.board.lines))
    assert data["royalties"]["total"] == sum(sol.royalties)
    assert len(data["alternatives"]) == 2
    assert math.isclose(data["expected"], sol.expected)
    assert isinstance(sol, SettingSolution)
    assert json.loads(sol.to_json())["surrender"] is sol.surrender


def test_input_errors() -> None:
    rules = rules_for("classic")
    (cards,) = deal(1)
    with pytest.raises(CardError, match="13 cards"):
        solve_setting(cards[:12], rules)
    with pytest.raises(CardError, match="twice"):
        solve_setting((*cards[:12], cards[0]), rules)
    with pytest.raises(CardError):
        solve_setting((*cards[:12], 52), rules)
    with pytest.raises(RulesError, match="classic"):
        solve_setting(cards, rules_for("ofc"))
    with pytest.raises(RulesError):
        heuristic_setting(cards, rules_for("pineapple"))
    with pytest.raises(ValueError, match="opponents"):
        solve_setting(cards, rules, opponents=0)
    with pytest.raises(ValueError, match="top_n"):
        solve_setting(cards, rules, top_n=-1)
    with pytest.raises(CardError):
        heuristic_setting(cards[:5], rules)


def test_heuristic_and_random_setters_are_valid() -> None:
    rng = np.random.default_rng(3)
    for preset in ("classic", "classic-wheel", "classic-low-middle"):
        rules = rules_for(preset)
        for seed in range(10):
            (cards,) = deal(seed)
            for board in (heuristic_setting(cards, rules), random_setting(cards, rules, rng)):
                assert sorted(board.cards) == sorted(cards)
                assert not is_fouled(rules, board)
    # The heuristic's bottom is the strongest five cards of the hand.
    rules = rules_for("classic")
    (cards,) = deal(42)
    board = heuristic_setting(cards, rules)
    best = max(_high(c) for c in itertools.combinations(cards, 5))
    assert _high(board.bottom) == best


def _high(cards: Sequence[Card]) -> int:
    from chinese_poker.evaluate import evaluate

    return evaluate(tuple(cards))


# --------------------------------------------------------------------------- naturals


def test_dragon_from_w12() -> None:
    rules = rules_for("classic")
    cards = parse_cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    sol = solve_setting(cards, rules)
    assert sol.natural == "dragon"
    assert not sol.surrender
    assert sol.royalties == (0, 0, 0)
    assert 3 * 13 * 0.97 < sol.expected <= 3 * 13
    assert sorted(sol.board.cards) == sorted(cards)


def test_three_flushes_from_w12_shows_the_natural() -> None:
    rules = rules_for("classic")
    cards = parse_cards("2h 7h 9h 3c 5c 8c Jc Kc 4d 6d Td Qd 9d")
    sol = solve_setting(cards, rules)
    assert sol.natural == "three_flushes"
    suits = [{c & 3 for c in line} for line in sol.board.lines]
    assert all(len(s) == 1 for s in suits)
    assert natural_of(rules, sol.board) is not None


def test_naturals_off_plays_the_hand() -> None:
    rules = rules_for("classic", naturals_enabled=False)
    cards = parse_cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    sol = solve_setting(cards, rules)
    assert sol.natural is None
    assert not is_fouled(rules, sol.board)


def test_optional_natural_is_claimed_when_worth_more() -> None:
    cards = parse_cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    sol = solve_setting(cards, rules_for("classic", natural_claim="optional"))
    assert sol.natural == "dragon"


# --------------------------------------------------------------------------- surrender

TERRIBLE = parse_cards("2c 2d 3h 4s 6c 7d 8h Ts Jc Qd 3s 4d 6h")


def test_surrender_on_a_terrible_hand_when_it_pays() -> None:
    # Under 1-6 a scoop costs 6, surrender 3 (or 2): a hand that is scooped too often folds.
    for rules in (rules_for("classic-1-6"), rules_for("classic-1-6", surrender_cost=2)):
        sol = solve_setting(TERRIBLE, rules)
        assert sol.surrender
        assert sol.surrender_expected is not None
        assert sol.surrender_expected > sol.expected + 1.0
        assert sol.natural is None
        assert not is_fouled(rules, sol.board)
        # Settled as advised, the surrender costs exactly the surrender cost per opponent.
        rest = [int(c) for c in np.random.default_rng(0).permutation(52) if c not in TERRIBLE]
        others = [heuristic_setting(rest[13 * i : 13 * i + 13], rules) for i in range(3)]
        assert all(natural_of(rules, b) is None for b in others)
        hands = [Hand(name="me", board=sol.board, surrender=True)]
        hands += [Hand(name=f"o{i}", board=b) for i, b in enumerate(others)]
        assert settle(rules, hands).totals["me"] == -3 * rules.surrender_cost


def test_never_surrender_when_not_allowed() -> None:
    for rules in (
        rules_for("classic-1-6", surrender_cost=2, surrender_allowed=False),
        rules_for("classic", surrender_allowed=False),
    ):
        sol = solve_setting(TERRIBLE, rules)
        assert not sol.surrender
        assert sol.surrender_expected is None
        for seed in range(20):
            (cards,) = deal(seed)
            assert not solve_setting(cards, rules, top_n=0).surrender


def test_good_hands_do_not_surrender() -> None:
    cards = parse_cards("As Ah Ad Kc Kd Ks Qh Qs Js Ts 9s 8s 2c")
    assert not solve_setting(cards, rules_for("classic-1-6", surrender_cost=2)).surrender


# --------------------------------------------------------------------------- variants


def test_low_middle_settings_are_valid_and_use_a_low() -> None:
    rules = rules_for("classic-low-middle")
    strict = rules.replace(low_middle_qualifier="ten_high_no_pair")
    for seed in range(15):
        (cards,) = deal(200 + seed)
        sol = solve_setting(cards, rules)
        if sol.natural is None:
            assert not is_fouled(rules, sol.board)
        sol2 = solve_setting(cards, strict)
        if sol2.natural is None:
            valid_exists = any(
                not is_fouled(strict, board) for board in _some_boards(cards, strict)
            )
            assert not is_fouled(strict, sol2.board) or not valid_exists
    # A hand with a perfect low: the middle takes it.
    cards = parse_cards("7c 5d 4h 3s 2c As Ah Ad Kc Kd Ks Qh Qs")
    sol = solve_setting(cards, rules)
    assert sorted(c >> 2 for c in sol.board.middle) == [0, 1, 2, 3, 5]


def _some_boards(cards: Sequence[Card], rules: Rules) -> list[Board]:
    rng = np.random.default_rng(0)
    return [random_setting(cards, rules, rng) for _ in range(3)]


def test_wheel_mode_uses_its_own_ranking() -> None:
    rules = rules_for("classic-wheel")
    assert mode_of(rules) == "wheel"
    for seed in range(15):
        (cards,) = deal(300 + seed)
        sol = solve_setting(cards, rules)
        if sol.natural is None:
            assert not is_fouled(rules, sol.board)
    # The wheel beats a king-high straight only under second_highest: the order of the
    # two straights follows the option.
    cards = parse_cards("Ah 2d 3c 4s 5h 9c Td Jh Qs Kd 7c 7d 8s")
    wheel = [0, 1, 2, 3, 12]
    for preset, wheel_on_bottom in (("classic-wheel", True), ("classic", False)):
        rules = rules_for(preset)
        sol = solve_setting(cards, rules)
        _, middle, bottom = line_values(rules, sol.board)
        assert category(middle) == category(bottom) == STRAIGHT  # two straights are kept
        assert wheel in (sorted(c >> 2 for c in line) for line in sol.board.lines[1:])
        assert (sorted(c >> 2 for c in sol.board.bottom) == wheel) is wheel_on_bottom


def test_finnish_deuce_and_other_options_give_valid_boards() -> None:
    variants = [
        rules_for("classic", finnish_deuce=True),
        rules_for("classic", royalty_award="net"),
        rules_for("classic", royalty_award="cancel"),
        rules_for("classic", royalty_award="best_at_table"),
        rules_for("classic", max_royalties_per_hand=1),
        rules_for("classic", overall_unit_rule="more_lines_won"),
        rules_for("classic", scoring_method="one_per_line"),
        rules_for("classic", royalty_table="classic_flat"),
        rules_for("classic", misset_rule="ignore"),
        rules_for("classic-low-middle", low_middle_royalties="dp_table"),
    ]
    for rules in variants:
        for seed in range(4):
            (cards,) = deal(400 + seed)
            sol = solve_setting(cards, rules, top_n=1)
            if sol.natural is None:
                assert not is_fouled(rules, sol.board), rules


def test_criss_cross_solves_each_hand() -> None:
    rules = rules_for("criss-cross")
    a, b = deal(9, 2)
    for cards in (a, b):
        sol = solve_setting(cards, rules, opponents=2)
        assert not is_fouled(rules, sol.board) or sol.natural


# --------------------------------------------------------------------------- the EV formula


@cache
def _classic_royalty(line: int, value: int) -> int:
    """classic_standard royalties, written out from RULES §7.4 (an independent table)."""
    cat = category(value)
    if line == 0:
        return 3 if cat == THREE_OF_A_KIND else 0
    if cat == STRAIGHT_FLUSH:
        if is_royal_flush(value):
            return 20 if line == 1 else 10
        return 10 if line == 1 else 5
    if cat == FOUR_OF_A_KIND:
        return 8 if line == 1 else 4
    if cat == FULL_HOUSE and line == 1:
        return 2
    return 0


def brute_force(
    cards: Sequence[Card], rules: Rules, table: OpponentTable, opponents: int
) -> dict[Board, float]:
    """Expected points of every valid setting, straight from the table's counts.

    The model of docs/solvers.md, written plainly: per stratum, the 27 win/tie/loss
    outcomes of the three lines are enumerated; royalties use ``winner_only`` or ``net``.
    """
    assert rules.royalty_table == "classic_standard" and rules.max_royalties_per_hand is None
    v, o, s = rules.line_values
    surr_on = rules.surrender_allowed
    hist = [c[0] if surr_on else c[0] + c[1] for c in table.counts]
    total = table.hands
    played = int(hist[0].sum())
    c_play = played / total
    p_surr = (int(table.counts[0][1].sum()) / total) if surr_on else 0.0
    p_foul = table.fouls / total
    e_nat = (
        sum(n * rules.natural_values[k] for n, k in zip(table.naturals, NATURALS, strict=True))
        / total
    )
    strata = [k for k in range(table.strata) if hist[0][k].sum() > 0]
    weight = {k: hist[0][k].sum() / played for k in strata}
    scales = [value_scale(line, table.mode) for line in range(3)]

    @cache
    def stats(line: int, value: int) -> tuple[dict[int, tuple[float, float]], float, float]:
        x = int(np.searchsorted(scales[line], value))
        assert scales[line][x] == value
        per: dict[int, tuple[float, float]] = {}
        for k in strata:
            row = hist[line][k]
            n = row.sum()
            per[k] = (row[:x].sum() / n, row[x + 1 :].sum() / n)
        row = hist[line].sum(axis=0)
        n = row.sum()
        win = row[:x].sum() / n
        lose = row[x + 1 :].sum() / n
        ours = _classic_royalty(line, value)
        theirs = [_classic_royalty(line, int(y)) * row[i] / n for i, y in enumerate(scales[line])
                  if row[i]]  # fmt: skip
        if rules.royalty_award == "net":
            roy = ours - sum(theirs)
        else:
            assert rules.royalty_award == "winner_only"
            above = [_classic_royalty(line, int(scales[line][i])) * row[i] / n
                     for i in range(x + 1, len(row)) if row[i]]  # fmt: skip
            roy = ours * win - sum(above)
        return per, v * (win - lose) + roy, float(ours)

    # The 27 outcomes of three lines (0 won, 1 tied, 2 lost) and what each scores beyond
    # the line points: the overall unit and the scoop.
    outcomes = list(itertools.product(range(3), repeat=3))
    extra = []
    for outcome in outcomes:
        wins, losses = outcome.count(0), outcome.count(2)
        if rules.overall_unit_rule == "two_lines_won":
            pts = o * ((wins >= 2) - (losses >= 2))
        else:
            pts = o * ((wins > losses) - (losses > wins))
        extra.append(pts + s * ((wins == 3) - (losses == 3)))
    pick = np.array(outcomes).T  # (3 lines, 27)
    weights = np.array([weight[k] for k in strata])

    @cache
    def joint(values: tuple[int, int, int]) -> float:
        probs = []
        for line in range(3):
            per = stats(line, values[line])[0]
            probs.append(np.array([(per[k][0], 1 - per[k][0] - per[k][1], per[k][1])
                                   for k in strata]))  # fmt: skip
        each = probs[0][:, pick[0]] * probs[1][:, pick[1]] * probs[2][:, pick[2]]  # (K, 27)
        return float(weights @ each @ np.array(extra, dtype=np.float64))

    out: dict[Board, float] = {}
    for bottom in itertools.combinations(cards, 5):
        rest = [c for c in cards if c not in bottom]
        for middle in itertools.combinations(rest, 5):
            top = tuple(c for c in rest if c not in middle)
            board = Board(top, middle, bottom)
            if is_fouled(rules, board):
                continue
            values = line_values(rules, board)
            parts = [stats(line, values[line]) for line in range(3)]
            ev = c_play * (sum(p[1] for p in parts) + joint(values))
            ev += p_foul * (rules.foul_value + sum(p[2] for p in parts))
            ev += p_surr * rules.surrender_cost - e_nat
            out[board] = opponents * ev
    return out


@pytest.mark.slow
@pytest.mark.parametrize(
    ("preset", "overrides", "seed", "opponents"),
    [
        ("classic", {}, 11, 3),
        ("classic", {}, 12, 1),
        ("classic-1-6", {"royalty_award": "net"}, 13, 2),
    ],
)
def test_solver_matches_brute_force(
    preset: str, overrides: dict[str, str], seed: int, opponents: int
) -> None:
    rules = rules_for(preset, **overrides)
    table = load_table(mode_of(rules))
    (cards,) = deal(seed)
    sol = solve_with_table(cards, rules, table, opponents=opponents, top_n=3)
    assert sol.natural is None
    evs = brute_force(cards, rules, table, opponents)
    best = max(evs.values())
    assert sol.expected == pytest.approx(best, abs=1e-9)
    assert evs[_canonical(sol.board, evs)] == pytest.approx(best, abs=1e-9)
    for board, expected in sol.alternatives:
        assert evs[_canonical(board, evs)] == pytest.approx(expected, abs=1e-9)


def _canonical(board: Board, boards: dict[Board, float]) -> Board:
    for b in boards:
        if all(set(x) == set(y) for x, y in zip(b.lines, board.lines, strict=True)):
            return b
    raise AssertionError(f"{board} not among the valid settings")


def test_numpy_fallback_matches_kernel() -> None:
    rules = rules_for("classic", overall_unit_rule="more_lines_won", max_royalties_per_hand=1)
    table = load_table("high")
    for seed in (21, 22):
        (cards,) = deal(seed)
        hand = setting_module.evaluate_hand(cards, rules)
        terms = setting_module.score_terms(rules, 3, table)
        a = setting_module.expected_points(hand, rules, terms, table, use_numba=True)
        b = setting_module.expected_points(hand, rules, terms, table, use_numba=False)
        assert np.array_equal(np.isfinite(a), np.isfinite(b))
        ok = np.isfinite(a)
        assert np.allclose(a[ok], b[ok], atol=1e-12)


# --------------------------------------------------------------------------- strength


@pytest.mark.slow
def test_solver_beats_the_heuristic_heads_up() -> None:
    """Duplicate heads-up: both seats of each deal, solver against the heuristic setter."""
    rules = rules_for("classic")
    results = []
    for d in range(250):
        a, b = deal(10_000 + d, 2)
        for mine, theirs in ((a, b), (b, a)):
            sol = solve_setting(mine, rules, opponents=1, top_n=0)
            hands = [
                Hand(name="solver", board=sol.board, surrender=sol.surrender),
                Hand(name="heuristic", board=heuristic_setting(theirs, rules)),
            ]
            results.append(settle(rules, hands).totals["solver"])
    per_deal = np.array(results, dtype=np.float64).reshape(-1, 2).mean(axis=1)
    mean = per_deal.mean()
    se = per_deal.std(ddof=1) / math.sqrt(len(per_deal))
    assert mean - 3 * se > 0.5, (mean, se)


# --------------------------------------------------------------------------- tables


def test_shipped_tables_load_and_are_small() -> None:
    for mode in SHIPPED:
        path = table_path(mode)
        assert path.is_file(), path
        assert path.stat().st_size < 1_000_000
        table = load_table(mode)
        assert table.mode == mode
        assert table.hands >= 10_000
        assert table.played + sum(table.naturals) + table.fouls == table.hands
        for line in range(3):
            assert table.counts[line].shape[2] == len(value_scale(line, mode))
            assert int(table.counts[line].sum()) == table.played


def test_value_scales() -> None:
    for mode in MODES:
        assert [len(value_scale(line, mode)) for line in range(3)] == [455, 7462, 7462]
        for line in range(3):
            assert (np.diff(value_scale(line, mode)) > 0).all()


def test_table_build_is_reproducible_and_round_trips(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    one = build_table("high", setters=TABLE_SETTERS, hands=48, seed=5, iterations=1, strata=4)
    two = build_table("high", setters=TABLE_SETTERS, hands=48, seed=5, iterations=1, strata=4)
    for a, b in zip(one.counts, two.counts, strict=True):
        assert np.array_equal(a, b)
    assert one.hands == 48 and one.setter == "solver-1"
    path = tmp_path / "t.npz"
    one.save(path)
    back = OpponentTable.load(path)
    assert back.naturals == one.naturals and back.fouls == one.fouls
    for a, b in zip(one.counts, back.counts, strict=True):
        assert np.array_equal(a, b)
    with pytest.raises(ValueError):
        build_table("high", setters=TABLE_SETTERS, hands=3, seed=1)


def test_missing_table_is_built_and_cached(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    monkeypatch.setenv("CHINESE_POKER_CACHE", str(tmp_path))
    monkeypatch.setattr(setting_tables, "ON_THE_FLY_HANDS", 60)
    monkeypatch.setattr(setting_tables, "table_path", lambda mode: tmp_path / "none.npz")
    setting_tables.load_table.cache_clear()
    try:
        with pytest.raises(ValueError, match="pass setters"):
            setting_tables.load_table("lowball_wheel")  # nothing to build it with
        table = setting_tables.load_table("lowball_wheel", TABLE_SETTERS)
        assert table.mode == "lowball_wheel" and table.hands == 60
        assert list(tmp_path.glob("setting_lowball_wheel_v*.npz"))
        setting_tables.load_table.cache_clear()
        again = setting_tables.load_table("lowball_wheel", TABLE_SETTERS)
        assert np.array_equal(again.counts[1], table.counts[1])
    finally:
        setting_tables.load_table.cache_clear()


def test_doctests() -> None:
    for module in (setting_module, setting_tables):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, module.__name__


# --------------------------------------------------------------------------- against settle


def _table_of(boards: Sequence[Board], rules: Rules) -> OpponentTable:
    """An opponent table holding exactly ``boards``, each its own stratum: then the
    solver's model (lines independent within a stratum) is exact, and its expectation must
    equal the mean of real settlements against those boards."""
    mode = mode_of(rules)
    scales = [value_scale(line, mode) for line in range(3)]
    counts = tuple(np.zeros((2, len(boards), len(scales[line])), dtype=np.int64)
                   for line in range(3))  # fmt: skip
    for k, board in enumerate(boards):
        for line, value in enumerate(line_values(rules, board)):
            index = int(np.searchsorted(scales[line], value))
            assert scales[line][index] == value
            counts[line][0, k, index] += 1
    return OpponentTable(mode=mode, counts=(counts[0], counts[1], counts[2]),
                         hands=len(boards), naturals=(0, 0, 0, 0), fouls=0, seed=0,
                         setter="test", meta={})  # fmt: skip


def _settled_mean(rules: Rules, board: Board, opponents: Sequence[Board]) -> float:
    points = [
        settle(rules, [Hand(name="me", board=board), Hand(name="opp", board=opp)]).totals["me"]
        for opp in opponents
    ]
    return sum(points) / len(points)


@st.composite
def _custom_royalties(draw: st.DrawFn) -> dict[str, dict[str, int]]:
    """A custom table whose royalties never fall as the hand rises (as every preset's):
    on a line the best royalty hand is then the best hand, the reading the solver's
    ``best_at_table`` term takes (a table paying trips but not quads in the middle would
    make the losing trips the best royalty hand)."""

    def rising(keys: Sequence[str]) -> dict[str, int]:
        total, out = 0, {}
        for key in keys:
            total += draw(st.integers(0, 4))
            out[key] = total
        return out

    ranks = "23456789TJQKA"
    return {"top": rising([r * 2 for r in ranks] + [r * 3 for r in ranks]),
            "middle": rising(FIVE_CARD_ROYALTY_KEYS),
            "bottom": rising(FIVE_CARD_ROYALTY_KEYS)}  # fmt: skip


@st.composite
def _solver_rules(draw: st.DrawFn) -> Rules:
    """A classic ruleset of any option values the setting solver models (its SUPPORTED
    refuses only dealt-combination royalties), naturals and surrender apart."""
    options: dict[str, object] = {
        "naturals_enabled": False,
        "surrender_allowed": False,
        "scoring_method": draw(st.sampled_from(
            ["two_four", "one_six", "one_per_line", "one_four", "two_per_line", "custom"])),
        "overall_unit_rule": draw(st.sampled_from(["two_lines_won", "more_lines_won"])),
        "royalty_table": draw(st.sampled_from(
            ["classic_standard", "classic_flat", "none", "american", "custom"])),
        "classic_royal_flush": draw(st.sampled_from(["20/10", "14/7"])),
        "royalty_award": draw(st.sampled_from(["net", "winner_only", "cancel", "best_at_table"])),
        "best_at_table_ties": draw(st.sampled_from(["each_in_full", "split"])),
        "max_royalties_per_hand": draw(st.sampled_from([None, 1])),
        "wheel_rank": draw(st.sampled_from(["lowest", "second_highest"])),
        "finnish_deuce": draw(st.booleans()),
        "finnish_deuce_if_holder_fouled": draw(st.sampled_from(
            ["no_effect", "doubles_opponent_line"])),
        "misset_rule": draw(st.sampled_from(["penalty", "ignore"])),
        "foul_penalty": draw(st.one_of(st.just("scoop_value"), st.integers(0, 12))),
        "foul_pays_opponent_royalties": draw(st.booleans()),
    }  # fmt: skip
    if options["scoring_method"] == "custom":
        options["scoring_custom"] = (draw(st.integers(1, 3)), draw(st.integers(0, 3)),
                                     draw(st.integers(0, 6)))  # fmt: skip
    if options["royalty_table"] == "custom":
        options["custom_royalties"] = draw(_custom_royalties())
    if options["royalty_award"] in ("cancel", "best_at_table"):
        # One royalty a hand under these awards is refused by the solver (the next test).
        options["max_royalties_per_hand"] = None
    if draw(st.booleans()):
        options["middle_mode"] = "lowball_2_7"
        options["low_middle_qualifier"] = draw(
            st.sampled_from(
                ["none", "ten_high_no_pair"] if options["misset_rule"] == "penalty" else ["none"]
            )
        )  # the solver refuses the qualifier with mis-sets ignored (the next test)
        options["low_middle_royalties"] = draw(st.sampled_from(["none", "dp_table"]))
    return rules_for("classic", **options)


@st.composite
def _small_case(draw: st.DrawFn) -> tuple[Rules, list[int], list[Board]]:
    rules = draw(_solver_rules())
    deck = draw(st.permutations(range(52)))
    mine = list(deck[:13])
    # The field as the solver's model defines it (docs/solvers.md). Valid boards only:
    # the table it reads keeps fouled boards out of its histograms (a count apart), so a
    # field that fouls is no small exact case, and under the low-middle qualifier the
    # heuristic setter fouls often (the valid ones are kept). No 2♠ in an opponent's board under the
    # Finnish deuce: opponents' deuces are not modelled (docs/solvers.md); ours is.
    deuce = parse_card("2s")
    field = [heuristic_setting(deck[13 * k : 13 * k + 13], rules) for k in range(1, 4)]
    # Under one royalty a hand, the opponents' cap is ignored (ibid.): their boards hold
    # royalties on one line at most.
    others = [
        board for board in field
        if not is_fouled(rules, board)
        and not (rules.finnish_deuce and deuce in board.cards)
        and not (rules.max_royalties_per_hand == 1
                 and sum(line_royalty(rules, i, v) > 0
                         for i, v in enumerate(line_values(rules, board))) > 1)
    ]  # fmt: skip
    assume(others)
    return rules, mine, others[: draw(st.integers(2, 3))]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    # The same 60 cases every run: a CI run must not be the first to meet a new case
    # (to look for new ones, run it with derandomize off and other --hypothesis-seed).
    derandomize=True,
)
@given(_small_case())
def test_expectation_equals_exhaustive_settlement(
    case: tuple[Rules, list[int], list[Board]],
) -> None:
    """Heads-up against a small known field: the solver's expected points of its best
    setting and of each alternative are the mean of ``settle`` over the field."""
    rules, mine, field = case
    sol = solve_with_table(mine, rules, _table_of(field, rules), opponents=1, top_n=4)
    assert sol.expected == pytest.approx(_settled_mean(rules, sol.board, field), abs=1e-9)
    for board, expected in sol.alternatives:
        assert expected == pytest.approx(_settled_mean(rules, board, field), abs=1e-9)


def test_cancel_with_one_royalty_a_hand_is_refused_not_valued_another_way() -> None:
    rules = rules_for("classic", royalty_award="cancel", max_royalties_per_hand=1)
    with pytest.raises(RulesError, match="royalty_award=cancel together with max_royalties"):
        solve_setting(deal(5, 1)[0], rules)
    best = rules_for("classic", royalty_award="best_at_table", max_royalties_per_hand=1)
    with pytest.raises(RulesError, match="best_at_table together with max_royalties"):
        solve_setting(deal(5, 1)[0], best)
    # The case the property test found: a pair in a qualified low middle, valued as a foul
    # that misset_rule=ignore does not penalise.
    low = rules_for("classic", misset_rule="ignore", middle_mode="lowball_2_7",
                    low_middle_qualifier="ten_high_no_pair")  # fmt: skip
    with pytest.raises(RulesError, match="misset_rule=ignore together with low_middle"):
        solve_setting(deal(5, 1)[0], low)


def test_best_setting_is_the_best_by_exhaustive_settlement() -> None:
    """Every valid setting of one hand settled against a field of three boards: none
    beats the solver's choice."""
    rules = rules_for("classic", naturals_enabled=False, surrender_allowed=False)
    (mine, *rest) = deal(77, 4)
    field = [heuristic_setting(cards, rules) for cards in rest]
    sol = solve_with_table(mine, rules, _table_of(field, rules), opponents=1, top_n=0)
    best = -math.inf
    for bottom in itertools.combinations(mine, 5):
        left = [c for c in mine if c not in bottom]
        for middle in itertools.combinations(left, 5):
            board = Board(tuple(c for c in left if c not in middle), middle, bottom)
            if not is_fouled(rules, board):
                best = max(best, _settled_mean(rules, board, field))
    assert sol.expected == pytest.approx(best, abs=1e-9)
