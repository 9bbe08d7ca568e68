"""Tests for chinese_poker.scoring: every scoring example of RULES.md §11 (W1-W14), every
scoring option, and properties of random tables (zero sum, seat order, fouls, symmetry)."""

from __future__ import annotations

import doctest
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chinese_poker import scoring
from chinese_poker.cards import Board, parse_board, parse_cards
from chinese_poker.rules import Rules, rules_for
from chinese_poker.scoring import (
    Hand,
    ScoringError,
    Settlement,
    fantasyland_next,
    foul_reason,
    is_fouled,
    line_values,
    natural_of,
    royalties,
    settle,
)

# --------------------------------------------------------------------------- helpers


def hands(*boards: str, **common: Any) -> list[Hand]:
    return [
        Hand(name=f"P{i + 1}", board=parse_board(board), **common) for i, board in enumerate(boards)
    ]


def totals(rules: Rules, *boards: str) -> list[int]:
    return list(settle(rules, hands(*boards)).totals.values())


def first(rules: Rules, a: str, b: str) -> int:
    """What the first of two players scores."""
    return settle(rules, hands(a, b)).totals["P1"]


def test_doctests() -> None:
    import importlib
    import pkgutil

    attempted = 0
    for info in pkgutil.iter_modules(scoring.__path__, prefix="chinese_poker.scoring."):
        module = importlib.import_module(info.name)
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, info.name
        attempted += result.attempted
    assert attempted > 10


# --------------------------------------------------------------------------- W1


W1 = (
    "7s 7h 4d | As Ac Ah 3s 2d | 9s Td Jc Qd Kc",
    "Ad Jh 7c | Qh Qs 3d 3c 5h | 8h 8d 8s 6s 6c",
)


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("two_per_line", 2),
        ("two_four", 2),
        ("one_six", 1),
        ("one_four", 1),
        ("one_per_line", 1),
    ],
)
@pytest.mark.parametrize("table", ["american", "western"])
def test_w1_hitspoker_example(method: str, expected: int, table: str) -> None:
    rules = rules_for("ofc", scoring_method=method, royalty_table=table)
    assert royalties(rules, parse_board(W1[0])) == (2, 2, 2)
    assert royalties(rules, parse_board(W1[1])) == (0, 0, 6)
    result = settle(rules, hands(*W1))
    assert result.totals == {"P1": expected, "P2": -expected}
    pair = result.pairs[0]
    assert pair.lines == (1, 1, -1)
    assert [i.points for i in pair.items if i.kind == "royalty"] == [2, 2, -4]


def test_w1_hitspoker_preset() -> None:
    assert first(rules_for("ofc-hitspoker"), *W1) == 2


# --------------------------------------------------------------------------- W2


W2 = (
    "Ah Qd 4c | Jh Js 9c 9d 2h | 7c 7d 7h 7s Kc",
    "Kd Jc 3h | Th Ts 8c 8d 5s | Qs 9s 6s 4s 3s",
)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, 12),
        ({"royalty_table": "western"}, 10),
        ({"scoring_method": "two_four"}, 10),
        ({"scoring_method": "two_per_line"}, 12),
    ],
)
def test_w2_scoop_plus_quads(options: dict[str, str], expected: int) -> None:
    assert first(rules_for("ofc", **options), *W2) == expected


# --------------------------------------------------------------------------- W3

W3 = (
    "Kh 5d 2c | Qs Qc 8d 5h 3s | As Ad 9c 7h 4d",
    "Ah 9d 3c | Js Jc 9h 6s 2s | Ks Kd Tc 8h 6c",
)


@pytest.mark.parametrize(
    ("method", "expected"),
    [("two_four", 2), ("one_six", 1), ("one_four", 1), ("two_per_line", 2), ("one_per_line", 1)],
)
@pytest.mark.parametrize("preset", ["ofc", "classic"])
def test_w3_two_one_without_royalties(preset: str, method: str, expected: int) -> None:
    rules = rules_for(preset, scoring_method=method)
    result = settle(rules, hands(*W3))
    assert result.pairs[0].lines == (-1, 1, 1)
    assert result.totals["P1"] == expected


# --------------------------------------------------------------------------- W4, W5

W4 = (
    "Qh Qd 7c | Qs Qc 6d 5h 4s | Ah Kh 9h 8h 2h",
    "5c 5d 3h | 9c 9d 9s 2c 3c | Tc Td Th 4c 4d",
)


def test_w4_foul_against_valid_board() -> None:
    rules = rules_for("ofc")
    board = parse_board(W4[0])
    assert foul_reason(rules, board) == "top Q Q 7 beats middle Q Q 6 5 4"
    assert fantasyland_next(rules, board, in_fantasyland=False) is None
    result = settle(rules, hands(*W4))
    assert result.totals == {"P1": -14, "P2": 14}
    assert result.fouled == ("P1",)
    assert result.seat("P1").royalties == (0, 0, 0)
    assert result.seat("P2").royalties == (0, 2, 6)
    assert result.fantasyland == {"P1": None, "P2": None}
    assert result.pairs[0].basis == "foul"
    assert first(rules_for("ofc", scoring_method="two_four"), *W4) == -12


def test_w5_everybody_fouls() -> None:
    both = (
        "Qh Qd 7c | Qs Qc 6d 5h 4s | Ah Kh 9h 8h 2h",
        "9c 9d 9s | 5c 5d 2c 3c 4d | Tc Td Th 4c 3h",
    )
    rules = rules_for("ofc")
    assert totals(rules, *both) == [0, 0]
    third = "Ks Kd 2s | Js Jd 3d 5s 6h | As Ad 7s 8s Ts"
    result = settle(rules, hands(*both, third))
    assert list(result.totals.values()) == [0, 0, 0]
    assert result.fouled == ("P1", "P2", "P3")
    assert all(pair.basis == "both_fouled" for pair in result.pairs)


# --------------------------------------------------------------------------- W6

W6 = (
    "3h 3d 6c | 8h 8d Kc 7s 4c | Jh Jd Jc 2s 5d",
    "3s 3c 2d | 8s 8c Kd 7d 4d | Ts Td Tc 9d 6d",
)


@pytest.mark.parametrize(
    ("method", "expected"),
    [("one_six", 2), ("two_four", 3), ("one_four", 2), ("two_per_line", 4)],
)
def test_w6_kickers_and_tied_line(method: str, expected: int) -> None:
    result = settle(rules_for("ofc", scoring_method=method), hands(*W6))
    assert result.pairs[0].lines == (1, 0, 1)
    assert result.totals["P1"] == expected


def test_overall_unit_rule_more_lines_won() -> None:
    # One win and two ties: the overall unit only under more_lines_won.
    a = "3h 3d 6c | Kh Kc 8d 7s 4c | 9h 8h 7c 6d 5h"
    b = "3s 3c 2d | Ks Kd 8s 7d 4d | 9c 8c 7h 6h 5s"
    two = rules_for("classic", royalty_table="none")
    more = two.replace(overall_unit_rule="more_lines_won")
    assert settle(two, hands(a, b)).pairs[0].lines == (1, 0, 0)
    assert first(two, a, b) == 1
    assert first(more, a, b) == 2
    assert first(rules_for("classic", royalty_table="none"), *W3) == 2  # 2-1 either way
    assert first(more, *W3) == 2


# --------------------------------------------------------------------------- W7

W7 = (
    "2c 2d 2h | 7c 8d 9h Ts Jc | Kd Jd 6d 4d 3d",
    "As Ah Ad | 6c 7h 8h 9d Tc | Kc Ks Kh 4c 4h",
)


def test_w7_royalty_netting() -> None:
    rules = rules_for("ofc")
    assert royalties(rules, parse_board(W7[0])) == (10, 4, 4)
    assert royalties(rules, parse_board(W7[1])) == (22, 4, 6)
    result = settle(rules, hands(*W7))
    assert result.totals["P2"] == 15
    assert [i.points for i in result.pairs[0].items if i.kind == "royalty"] == [-12, 0, -2]
    assert settle(rules.replace(scoring_method="two_four"), hands(*W7)).totals["P2"] == 16
    assert settle(rules.replace(royalty_award="winner_only"), hands(*W7)).totals["P2"] == 25


# --------------------------------------------------------------------------- W8

W8 = (
    "Kh Kd 4c | 9s 9h 9c 5d 2s | Ah Jh 8h 6h 3h",
    "6s 6d Qc | Jc Js 8c 8d Ac | 7c 7d 7s 2c 2d",
    "Ad As 5c | Qs Qd Tc 4d 3c | Ks Kc Th Td 9d",
)
W8_UNITS = {("P1", "P2"): 100.0, ("P3", "P1"): 10.0, ("P2", "P3"): 10.0}


def test_w8_three_players() -> None:
    result = settle(rules_for("pineapple-progressive"), hands(*W8), units=W8_UNITS)
    assert result.points_between("P1", "P2") == 8
    assert result.points_between("P1", "P3") == 20
    assert result.points_between("P2", "P3") == 13
    assert result.points_between("P3", "P2") == -13
    assert result.totals == {"P1": 28, "P2": 5, "P3": -33}
    assert result.money == {"P1": 1000.0, "P2": -670.0, "P3": -330.0}
    assert result.fouled == ("P3",)
    assert result.fantasyland == {"P1": 15, "P2": None, "P3": None}
    assert result.seat("P1").royalties == (8, 2, 4)
    assert result.seat("P2").royalties == (1, 0, 6)
    assert result.seat("P3").foul_reason == "top A A 5 beats middle Q Q T 4 3"
    plain = settle(rules_for("ofc"), hands(*W8))
    assert plain.fantasyland["P1"] == 13
    assert plain.money == {"P1": 28.0, "P2": 5.0, "P3": -33.0}


def test_w8_to_dict_is_json() -> None:
    result = settle(rules_for("pineapple-progressive"), hands(*W8), units=W8_UNITS)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["rules"] == {"variant": "pineapple", "fl_progressive": True}
    assert data["totals"] == {"P1": 28, "P2": 5, "P3": -33}
    assert data["money"] == {"P1": 1000.0, "P2": -670.0, "P3": -330.0}
    assert data["fouled"] == ["P3"]
    assert data["fantasyland"] == {"P1": 15, "P2": None, "P3": None}
    assert [p["points"] for p in data["pairs"]] == [8, 20, 13]
    for pair in data["pairs"]:
        assert sum(item["points"] for item in pair["items"]) == pair["points"]
        assert all(item["text"] for item in pair["items"])
    p3 = data["players"][2]
    assert p3["fouled"] and p3["foul_reason"].startswith("top A A 5")
    assert data["players"][0]["lines"][0]["royalty"] == 8
    text = result.render()
    assert "P3 fouled" in text and "+28" in text and "1,000" in text and "15 cards" in text


# --------------------------------------------------------------------------- W9

W9 = (
    "Qs Qh 4d | Kc Kd 9s 9h 2c | 8s 8h 8d 8c 3s",
    "Ah Ad 5c | Jh Jd Jc 6s 2d | Kh Th 7h 5h 3h",
    "As 9d 4s | Qd Qc 5s 5d Ks | Ts Td Tc 3d 3c",
    "Js 9c 6c | 4h 4c 2s 2h Ac | 7s 7d 7c 6h 6d",
)


def test_w9_four_players_classic() -> None:
    # RULES W9 counts naturals as set (natural_source = set_board).
    no_royalties = rules_for("classic", royalty_table="none", natural_source="set_board")
    result = settle(no_royalties, hands(*W9))
    assert not any(seat.natural for seat in result.seats)  # P3 could set three flushes
    assert {(p.a, p.b): p.points for p in result.pairs} == {
        ("P1", "P2"): -2,
        ("P1", "P3"): 4,
        ("P1", "P4"): 4,
        ("P2", "P3"): 2,
        ("P2", "P4"): 2,
        ("P3", "P4"): 4,
    }
    assert list(result.totals.values()) == [6, 6, -2, -10]
    assert totals(rules_for("classic", natural_source="set_board"), *W9) == [18, 2, -6, -14]
    one_six = rules_for("classic-1-6", royalty_table="none", natural_source="set_board")
    assert totals(one_six, *W9) == [11, 3, -1, -13]


def test_w9_p3_declares_three_flushes_from_the_dealt_cards() -> None:
    """RULES §12.17: Capsa Susun and Pusoy players declare three flushes from the 13 cards
    dealt. W9's P3 holds three clubs, five diamonds and five spades (set otherwise), so by
    default he declares and collects 3 from each player; the others settle as in W9."""
    result = settle(rules_for("classic", royalty_table="none"), hands(*W9))
    natural = result.seat("P3").natural
    assert natural is not None and natural.kind == "three_flushes"
    assert [result.pair(p, "P3").points for p in ("P1", "P2")] == [-3, -3]
    assert result.pair("P3", "P4").points == 3
    assert list(result.totals.values()) == [6 - 4 - 3, 6 - 2 - 3, 9, -10 + 4 - 3]


# --------------------------------------------------------------------------- W10

W10_TOP_MIDDLE = [
    ("Qh Qd 7c", "Qs Qc 6d 5h 4s", True),
    ("Qh Qd 7c", "Qs Qc 9d 8h 2s", False),
    ("Qh Qd 7c", "Qs Qc 7d 5h 4s", False),
    ("Ah Kd 9c", "As Kc 8d 5h 3s", True),
    ("Ah Kd 9c", "As Kc 9d 5h 3s", False),
    ("8h 8d 8c", "7s 7h 7d As Ks", True),
    ("5h 5d Ac", "3s 3c 2d 2h Ks", False),
]
W10_MIDDLE_BOTTOM = [
    ("Ah Jh 9h 6h 2h", "Kd Qd 9d 5d 3d", True),
    ("9c 8d 7h 6s 5c", "9h 8s 7c 6d 5d", False),
]


def _free_straight_flush(used: set[int]) -> str:
    """A straight flush made of cards not in ``used`` (a bottom that beats any middle)."""
    for top in range(12, 3, -1):
        for suit in "shdc":
            cards = parse_cards(
                " ".join(f"{'23456789TJQKA'[r]}{suit}" for r in range(top - 4, top + 1))
            )
            if not used & set(cards):
                return " ".join(f"{'23456789TJQKA'[c >> 2]}{'shdc'[c & 3]}" for c in cards)
    raise AssertionError("no free straight flush")


@pytest.mark.parametrize(("top", "middle", "fouled"), W10_TOP_MIDDLE)
def test_w10_top_against_middle(top: str, middle: str, fouled: bool) -> None:
    bottom = _free_straight_flush(set(parse_cards(f"{top} {middle}")))
    board = parse_board(f"{top} | {middle} | {bottom}")
    assert is_fouled(rules_for("ofc"), board) is fouled
    assert is_fouled(rules_for("classic"), board) is fouled


@pytest.mark.parametrize(("middle", "bottom", "fouled"), W10_MIDDLE_BOTTOM)
def test_w10_middle_against_bottom(middle: str, bottom: str, fouled: bool) -> None:
    board = parse_board(f"2c 3s 4d | {middle} | {bottom}")
    reason = foul_reason(rules_for("ofc"), board)
    assert (reason is not None) is fouled
    if fouled:
        assert reason == "middle A J 9 6 2 (flush) beats bottom K Q 9 5 3 (flush)"


# --------------------------------------------------------------------------- W11

W11 = [
    (
        "Kc 8d 3h | Qh Qd 7c 7d 4c | As Js 9s 5s 2s",
        "Jc Td 2h | 9h 9d 6c 5h 3c | Ks Kh Kd 8c 6h",
        14,
        10,
    ),
    (
        "8d 5c 3h | Qh Jd 7c 6d 4c | 2s 2d Ac Th 9c",
        "Kd Jc 4h | 9h 9d 6c 5h 3c | Ks Kh Kc 8c 8h",
        -18,
        -12,
    ),
]


@pytest.mark.parametrize(("a", "b", "with_deuce", "without"), W11)
def test_w11_finnish_deuce(a: str, b: str, with_deuce: int, without: int) -> None:
    assert first(rules_for("ofc-finnish"), a, b) == with_deuce
    assert first(rules_for("ofc"), a, b) == without
    pair = settle(rules_for("ofc-finnish"), hands(a, b)).pairs[0]
    doubled = [i for i in pair.items if i.factor == 2]
    assert len(doubled) == 1 and doubled[0].line == "bottom"
    assert "Finnish deuce" in scoring.item_text(pair, doubled[0])


def test_finnish_deuce_with_fouled_holder() -> None:
    # A holds the 2s in his top and fouls; B has royalties TT 5, trips 2, full house 6.
    a = "2s 2d Ac | Qh Jd 7c 6d 4c | 9s 9d 8c Tc 3c"
    b = "Th Td 3h | 5s 5d 5h Qd 2h | Ks Kh Kc 8h 8d"
    rules = rules_for("ofc-finnish")
    assert is_fouled(rules, parse_board(a))
    assert royalties(rules, parse_board(b)) == (5, 2, 6)
    assert first(rules, a, b) == -(6 + 13)  # default: no effect
    doubles = rules.replace(finnish_deuce_if_holder_fouled="doubles_opponent_line")
    assert first(doubles, a, b) == -(6 + 13 + 5)  # B's top is doubled
    # A valid holder's line is doubled when his opponent fouls (§7.3 step 4).
    holder = "Qh Qd 3h | 9h 5d 6c 5h 5c | Ks Kh Kc 2s 2h"
    fouled = "Ah Ad Ac | 2d 3d 4c 7d 8d | 9s 9d 8c Th Tc"
    assert royalties(rules, parse_board(holder)) == (7, 2, 6)
    assert first(rules, holder, fouled) == 6 + 7 + 2 + 2 * 6
    assert first(rules.replace(finnish_deuce=False), holder, fouled) == 6 + 15


# --------------------------------------------------------------------------- W12

W12 = (
    "2c 3d 4h | 5s 6c 7d 8h 9s | Tc Jd Qh Ks Ac",
    "2h 7h 9h | 3c 5c 8c Jc Kc | 4d 6d Td Qd 9d",
    "As Kh 2d | Th Ts 5h 4s 3s | Ah Ad 8s 7s 6s",
    "Qc Jh 2s | Kd Qs Js 4c 3h | 5d 6h 7c 8d 9c",
)


def test_w12_naturals() -> None:
    rules = rules_for("classic")
    result = settle(rules, hands(*W12))
    assert [s.natural.kind if s.natural else None for s in result.seats] == [
        "dragon",
        "three_flushes",
        None,
        None,
    ]
    assert result.points_between("P1", "P2") == 13
    assert result.points_between("P2", "P3") == 3
    assert result.points_between("P3", "P4") == 2
    assert result.totals == {"P1": 39, "P2": -7, "P3": -14, "P4": -18}
    assert result.pair("P1", "P2").basis == "natural"
    assert totals(rules.replace(naturals_enabled=False), *W12)[0] != 39


def test_w12_same_type_naturals() -> None:
    rules = rules_for("classic")
    a_high = "2h 3h 5h | 2c 4c 6c 8c Tc | As 3s 5s 7s 9s"
    q_high = "7h 8h 9h | 3c 5c 7c 9c Jc | Qd 2d 4d 6d 8d"
    assert totals(rules, a_high, q_high) == [3, -3]
    assert totals(rules, q_high, a_high) == [-3, 3]
    pairs_a = "2s 2h 3s | 3h 4s 4h 5s 5h | 6s 6h 7s 7h As"
    pairs_b = "2d 2c 3d | 3c 4d 4c 5d 5c | 6d 6c 7d 7c Kd"
    assert natural_of(rules, parse_board(pairs_a)) == scoring.Natural(
        "six_pairs", 3, (5, 4, 3, 2, 1, 0)
    )
    assert totals(rules, pairs_a, pairs_b) == [0, 0]
    higher = "2d 2c 3d | 3c 4d 4c 5d 5c | 6d 6c Ad Ac Kd"
    assert totals(rules, pairs_a, higher) == [-3, 3]
    dragons = (
        "2c 3d 4h | 5s 6c 7d 8h 9s | Tc Jd Qh Ks Ac",
        "2d 3c 4s | 5h 6d 7c 8s 9h | Td Jc Qs Kh Ad",
    )
    assert totals(rules, *dragons) == [0, 0]


def test_three_straights_natural() -> None:
    rules = rules_for("classic")
    queen = "Ah 2d 3c | 4s 5h 6d 7c 8s | 8h 9d Tc Js Qd"
    natural = natural_of(rules, parse_board(queen))
    assert natural is not None and natural.kind == "three_straights"
    ten = "Qh Kc As | 2s 3h 4d 5c 6s | 6h 7d 8c 9s Td"
    assert natural_of(rules, parse_board(ten)) is not None
    # Backs first: Q-high beats T-high.
    assert totals(rules, queen, ten) == [3, -3]
    # A dragon is also three straights; it claims the dragon, worth more.
    assert natural_of(rules, parse_board(W12[0])) == scoring.Natural("dragon", 13)


def test_natural_cross_type_and_values() -> None:
    flushes = "2h 3h 5h | 2c 4c 6c 8c Tc | As 3s 5s 7s 9s"
    pairs = "2d 2s 3d | 3c 4d 4h 5d 5c | 6d 6h 7d 7c Kd"
    rules = rules_for("classic")
    assert totals(rules, flushes, pairs) == [0, 0]  # default: different kinds tie
    ordered = rules.replace(natural_cross_type="dragon>three_straights>three_flushes>six_pairs")
    assert totals(ordered, flushes, pairs) == [3, -3]
    valued = rules.replace(natural_values="dragon=13,six_pairs=5")
    assert totals(valued, flushes, pairs) == [-5, 5]


def test_natural_beats_surrender_and_foul() -> None:
    rules = rules_for("classic")
    table = hands(W12[0], W12[3])
    table[1] = Hand(name="P2", board=table[1].board, surrender=True)
    assert settle(rules, table).totals == {"P1": 13, "P2": -13}
    fouled = "Kh Kd Kc | 2s 3h 4d 5c 7s | 9h 9d 6h 6d 8d"
    assert is_fouled(rules, parse_board(fouled))
    assert totals(rules, W12[0], fouled) == [13, -13]


def test_natural_claim_optional() -> None:
    rules = rules_for("classic", natural_claim="optional")
    table = [
        Hand(name="P1", board=parse_board(W12[1]), declares_natural=False),
        Hand(name="P2", board=parse_board(W12[3])),
    ]
    result = settle(rules, table)
    assert result.seat("P1").natural is None
    # Not claimed, the board plays as set, and as set its middle flush beats its back.
    assert result.pairs[0].basis == "foul"
    assert natural_of(rules, table[0]) is None
    assert natural_of(rules, table[0].board) is not None
    # Under automatic claim the flag is ignored.
    assert settle(rules_for("classic"), table).pairs[0].basis == "natural"


def test_naturals_are_classic_only() -> None:
    assert natural_of(rules_for("ofc"), parse_board(W12[0])) is None
    assert settle(rules_for("ofc"), hands(W12[0], W12[3])).pairs[0].basis == "showdown"


# --------------------------------------------------------------------------- W13

W13 = (
    "Qs Qh 4d | Kc Kd 9s 9h 2c | 8s 8h 8d 8c 3s",  # back quads (4)
    "Jh Jd 5c | As Ad Ac 6s 2d | Kh Th 7h 5h 3h",  # wins only the middle against P1
    "Qd Qc 2s | Js Jc 3d 4s 5s | Ts Td Tc 7s 7d",  # mis-set: QQ front over JJ middle
    "2h 3c 4h | 4c 5d 6h 6d 6c | 7c 9d 9c Ks Ah",  # surrenders
)


def _w13(rules: Rules, *, hide_surrender: bool = False) -> Settlement:
    table = hands(*W13)
    board = Board() if hide_surrender else table[3].board
    table[3] = Hand(name="P4", board=board, surrender=True)
    return settle(rules, table)


@pytest.mark.parametrize("hide_surrender", [False, True])
def test_w13_surrender_and_misset(hide_surrender: bool) -> None:
    result = _w13(rules_for("classic"), hide_surrender=hide_surrender)
    assert result.pair("P1", "P2").lines == (1, -1, 1)
    assert {(p.a, p.b): p.points for p in result.pairs} == {
        ("P1", "P2"): 6,
        ("P1", "P3"): 8,
        ("P1", "P4"): 3,
        ("P2", "P3"): 4,
        ("P2", "P4"): 3,
        ("P3", "P4"): 0,
    }
    assert result.totals == {"P1": 17, "P2": 1, "P3": -12, "P4": -6}
    assert result.fouled == ("P3",)
    assert result.seat("P4").surrendered


def test_misset_rule_ignore_compares_as_set() -> None:
    result = _w13(rules_for("classic", misset_rule="ignore"))
    assert result.fouled == ()
    assert result.seat("P3").foul_reason is not None
    # P1 against P3: front QQ4 beats QQ2, middle KK99 beats JJ, back quads beat the full
    # house: 4 points plus the quads royalty.
    assert result.points_between("P1", "P3") == 8
    assert result.pair("P1", "P3").basis == "showdown"
    assert result.points_between("P3", "P4") == 3  # the mis-set now collects the surrender


def test_misset_without_royalties() -> None:
    result = _w13(rules_for("classic", foul_pays_opponent_royalties=False))
    assert result.points_between("P1", "P3") == 4


def test_surrender_cost_option() -> None:
    result = _w13(rules_for("classic-1-6", surrender_cost=4))
    assert result.points_between("P1", "P4") == 4


def test_surrender_errors() -> None:
    table = hands(*W8[:2])
    table[0] = Hand(name="P1", board=table[0].board, surrender=True)
    with pytest.raises(ScoringError, match="only classic"):
        settle(rules_for("ofc"), table)
    with pytest.raises(ScoringError, match="surrender_allowed"):
        settle(rules_for("classic", surrender_allowed=False), table)


# --------------------------------------------------------------------------- W14


def _around(middle: str) -> Board:
    """A board with ``middle``, a straight flush bottom and a free top (for middle tests)."""
    used = set(parse_cards(middle))
    bottom = _free_straight_flush(used)
    used |= set(parse_cards(bottom))
    free = [c for c in range(52) if c not in used]
    top = [free[0], free[5], free[10]]  # three different ranks, no pair
    return Board(tuple(top), parse_cards(middle), parse_cards(bottom))


def test_w14_low_middle() -> None:
    rules = rules_for("classic-low-middle")

    def middle_value(middle: str) -> int:
        return line_values(rules, _around(middle))[1]

    seven = middle_value("7c 5d 4h 3s 2c")
    eight = middle_value("8d 6h 4c 3d 2h")
    ace = middle_value("As 5h 4d 3c 2s")
    assert seven > eight > ace
    straight = middle_value("6c 5s 4d 3h 2d")
    trips = middle_value("Tc Td Th 5d 4s")
    pair = middle_value("Tc Td 8c 5d 4s")
    assert straight < trips < pair < ace
    # Settled: the better low wins the middle; the order rule is only bottom >= top.
    a = "2s 3h 4d | 7c 5d 4h 3s 2c | As Ks Qs Js 9s"
    b = "2d 3c 4s | 8d 6h 4c 3d 2h | Ah Kh Qh Jh 8h"
    result = settle(rules, hands(a, b))
    assert result.pairs[0].lines == (0, 1, 1)
    assert result.totals["P1"] == 3
    assert result.seat("P1").hands[1] == "7-low: 7 5 4 3 2"
    # A trips middle over a pair top is fine in low middle (bottom still beats top).
    assert not is_fouled(rules, parse_board("Qs Qh 4d | 7c 7d 7h 3s 2c | As Ks Js 9s 8s"))
    assert is_fouled(rules, parse_board("Qs Qh Qd | 7c 5d 4h 3s 2c | As Ks Js 9s 8h"))


def test_low_middle_qualifier_and_royalties() -> None:
    rules = rules_for(
        "classic-low-middle",
        low_middle_qualifier="ten_high_no_pair",
        low_middle_royalties="dp_table",
    )
    for middle, royalty in [
        ("7c 5d 4h 3s 2c", 8),
        ("7c 6d 4h 3h 2c", 4),
        ("8d 6h 4c 3d 2h", 2),
        ("9d 6h 4c 3d 2h", 1),
        ("Td 6h 4c 3d 2h", 0),
    ]:
        board = _around(middle)
        assert royalties(rules, board)[1] == royalty, middle
        assert not is_fouled(rules, board)
        assert royalties(rules_for("classic-low-middle"), board)[1] == 0
    for middle, why in [
        ("Jd 6h 4c 3d 2h", "J-high"),
        ("8d 8h 4c 3d 2h", "one pair"),
        ("9d 7d 5d 4d 2d", "straight or flush"),
        ("6c 5s 4d 3h 2d", "straight or flush"),
    ]:
        reason = foul_reason(rules, _around(middle))
        assert reason is not None and why in reason, (middle, reason)
        assert foul_reason(rules_for("classic-low-middle"), _around(middle)) is None


def test_w14_wheel() -> None:
    wheel, king, ace = "Ah 2d 3c 4s 5h", "9c Td Jh Qs Kd", "Tc Jd Qh Ks Ac"
    top = "2s 3h 6d"

    def bottom(rules: Rules, line: str) -> int:
        middle = "7s 7h 8d 9s Js"
        return line_values(rules, parse_board(f"{top} | {middle} | {line}"))[2]

    low, high = rules_for("classic"), rules_for("classic-wheel")
    assert bottom(low, king) > bottom(low, wheel)
    assert bottom(high, wheel) > bottom(high, king)
    assert bottom(low, ace) > bottom(low, king) and bottom(high, ace) > bottom(high, wheel)
    a = "2s 3h 6d | 7s 7h 8d 9s Js | Ah 2d 3c 4s 5h"
    b = "2c 3d 6h | 7d 7c 8s 9h Jh | 9c Td Jc Qs Kd"
    assert settle(high, hands(a, b)).pairs[0].lines == (0, 0, 1)
    assert settle(low, hands(a, b)).pairs[0].lines == (0, 0, -1)


# --------------------------------------------------------------------------- royalty tables


def test_american_and_western_tables() -> None:
    quads_sf = "As Ah Ad | 9h Th Jh Qh Kh | 7c 7d 7h 7s Kc"
    rf = "Qs Qh Qd | 2c 2d 2s 2h 3c | Tc Jc Qc Kc Ac"
    assert royalties(rules_for("ofc"), parse_board(quads_sf)) == (22, 30, 10)
    assert royalties(rules_for("ofc-western"), parse_board(quads_sf)) == (22, 20, 8)
    assert royalties(rules_for("ofc"), parse_board(rf)) == (20, 20, 25)
    assert royalties(rules_for("ofc-western"), parse_board(rf)) == (20, 16, 15)
    trips = "6s 6h 2d | 9c 9d 9s 2c 3c | Tc Td Th 4c 4d"
    assert royalties(rules_for("ofc"), parse_board(trips)) == (1, 2, 6)
    assert royalties(rules_for("ofc", middle_trips_royalty=0), parse_board(trips)) == (1, 0, 6)
    assert (
        royalties(rules_for("ofc"), parse_board("5s 5h Ad | 9c 9d 9s 2c 3c | Tc Td Th 4c 4d"))[0]
        == 0
    )


def test_line_royalty_matches_royalties() -> None:
    for preset in ("ofc", "ofc-western", "classic", "classic-low-middle"):
        rules = (
            rules_for(preset, low_middle_royalties="dp_table")
            if "low" in preset
            else (rules_for(preset))
        )
        for text in (*W8, *W9, *W7, "2s 3h 4d | 7c 5d 4h 3s 2c | As Ks Qs Js 9s"):
            board = parse_board(text)
            values = line_values(rules, board)
            expected = royalties(rules, board)
            assert tuple(scoring.line_royalty(rules, i, values[i]) for i in range(3)) == expected
    with pytest.raises(ValueError):
        scoring.line_royalty(rules_for("ofc"), 3, 0)


def test_classic_tables() -> None:
    board = parse_board("2s 2h 2d | 9h Th Jh Qh Kh | Tc Jc Qc Kc Ac")
    assert royalties(rules_for("classic"), board) == (3, 10, 10)
    assert royalties(rules_for("classic", classic_royal_flush="14/7"), board) == (3, 10, 7)
    assert royalties(rules_for("classic", royalty_table="classic_flat"), board) == (1, 1, 1)
    full = parse_board("2s 3h 4d | 9h 9d 9c 5h 5d | 6c 6d 6h 6s Kc")
    assert royalties(rules_for("classic"), full) == (0, 2, 4)
    assert royalties(rules_for("classic", royalty_table="none"), board) == (0, 0, 0)


def test_custom_table() -> None:
    rules = rules_for(
        "classic",
        royalty_table="custom",
        custom_royalties="bottom.four_of_a_kind=1,bottom.straight_flush=2,top.AA=3",
    )
    quads = parse_board("Ah Ad 3c | 9h 9d 9c 5h 5d | 7c 7d 7h 7s Kc")
    assert royalties(rules, quads) == (3, 0, 1)
    royal = parse_board("2s 3h 4d | 9h 9d 9c 5h 5d | Tc Jc Qc Kc Ac")
    assert royalties(rules, royal) == (0, 0, 2)  # a royal flush pays as a straight flush


def test_max_one_royalty_per_hand() -> None:
    board = parse_board("2s 2h 2d | 9h 9d 9c 5h 5d | 7c 7d 7h 7s Kc")
    assert royalties(rules_for("classic"), board) == (3, 2, 4)
    assert royalties(rules_for("classic", max_royalties_per_hand=1), board) == (0, 0, 4)
    equal = parse_board("As Ah Ad | 9h Th Jh Qh Kh | 2c 2d 2h 2s 3c")
    # 3 front trips and 8 middle... classic: middle SF 10, back quads 4: keep the 10.
    assert royalties(rules_for("classic", max_royalties_per_hand=1), equal) == (0, 10, 0)


def test_royalty_for_dealt_combination() -> None:
    rules = rules_for("classic", royalty_for_dealt_combination=True)
    # Four sevens dealt, split into front trips and a middle straight ([004]).
    board = parse_board("7c 7d 7h | 3s 4h 5d 6c 7s | Ac Ad As Kc Kd")
    assert royalties(rules_for("classic"), board) == (3, 0, 0)
    assert royalties(rules, board) == (3, 0, 4)
    kept = parse_board("2s 3h 4d | 9h 9d 9c 5h 5d | 7c 7d 7h 7s Kc")
    assert royalties(rules, kept) == royalties(rules_for("classic"), kept)
    # A straight flush dealt but broken up pays the back straight flush royalty.
    broken = parse_board("9c 9h 2s | 5h 6h 7h 8h Ah | Ks Kd Kh Kc 3s")
    assert royalties(rules_for("classic"), broken) == (0, 0, 4)
    assert royalties(rules, broken) == (0, 0, 4 + 5)
    # The dealt cards can also be given: here the pineapple discard completed nothing.
    hand = Hand(name="P1", board=board, dealt=tuple(board.cards))
    other = Hand(name="P2", board=parse_board("2c 3c 4c | 8s 8h 9s 9h Qh | Th Tc Td 2d 2h"))
    result = settle(rules, [hand, other])
    assert result.seat("P1").royalties == (3, 0, 4)
    assert result.seat("P1").dealt_bonus == ("Four sevens",)


# --------------------------------------------------------------------------- award modes


SIXES = "2s 3h 4d | 9h 9d 9c 7h 7d | 6c 6d 6h 6s Kc"  # middle full house 2, back quads 4
FIVES = "2c 3d 4h | Th Td Tc 2h 2d | 5c 5d 5h 5s Kd"  # the same royalties, lower quads


def test_award_winner_only_and_cancel() -> None:
    base = rules_for("classic")
    assert royalties(base, parse_board(SIXES)) == (0, 2, 4)
    assert royalties(base, parse_board(FIVES)) == (0, 2, 4)
    result = settle(base, hands(SIXES, FIVES))
    # Front tied, fives win the middle, sixes the back: no line points under 2-4.
    assert result.pairs[0].lines == (0, -1, 1)
    assert result.totals["P1"] == 4 - 2  # only the winners of the lines collect
    assert first(base.replace(royalty_award="cancel"), SIXES, FIVES) == 0
    assert first(base.replace(royalty_award="net"), SIXES, FIVES) == 0


def test_award_best_at_table() -> None:
    rules = rules_for("classic", royalty_award="best_at_table")
    nothing = "3c 4c 7c | 8s 8h 7s Js Jh | As Ah Ad Qc Qd"
    result = settle(rules, hands(SIXES, FIVES, nothing))
    # Middle: FIVES' tens full are best; back: SIXES' quads are best.
    assert result.points_between("P1", "P2") == 4 - 2
    assert [i.points for i in result.pair("P1", "P3").items if i.kind == "royalty"] == [0, 4]
    assert [i.points for i in result.pair("P2", "P3").items if i.kind == "royalty"] == [2, 0]
    # A fouled board pays S plus the whole royalty total, best at the table or not (§7.3).
    fouled = "Ks Kh Ac | Qs Qh 3s 4s 8d | Jd Jc 8c 9s Ts"
    result = settle(rules, hands(SIXES, FIVES, nothing, fouled))
    assert result.fouled == ("P4",)
    assert result.points_between("P1", "P4") == 4 + 2 + 4
    assert result.points_between("P2", "P4") == 4 + 2 + 4
    assert result.points_between("P1", "P2") == 4 - 2
    # Tied best hands exchange nothing with each other, and both collect from the rest.
    ofc = rules_for("ofc", royalty_award="best_at_table")
    p1 = "Qh Qd 2c | Ks Kh 9c 5d 3s | Ah Jh 8h 6h 3h"
    p2 = "Qs Qc 2d | Kd Kc 9d 5c 4s | As Js 8s 6s 2s"
    p3 = "6c 6d 3c | 7s 7h 7c 8d 9s | Ts Td Th 5h 5s"
    result = settle(ofc, hands(p1, p2, p3))

    def royalty_points(a: str, b: str) -> list[int]:
        return [i.points for i in result.pair(a, b).items if i.kind == "royalty"]

    assert royalty_points("P1", "P2") == [0, 0]
    assert royalty_points("P1", "P3") == [7, -2, -6]
    assert royalty_points("P2", "P3") == [7, -2, -6]


# --------------------------------------------------------------------------- fouls, units


def test_foul_penalty_fixed_and_royalty_option() -> None:
    assert first(rules_for("ofc", foul_penalty=3), *W4) == -(3 + 8)
    assert first(rules_for("ofc", foul_pays_opponent_royalties=False), *W4) == -6


def test_units_and_money() -> None:
    result = settle(rules_for("ofc", unit_value=2.5), hands(*W8))
    assert result.money == {"P1": 70.0, "P2": 12.5, "P3": -82.5}
    assert result.pairs[0].money == 20.0
    with pytest.raises(ScoringError, match="no player 'P9'"):
        settle(rules_for("ofc"), hands(*W8), units={("P1", "P9"): 1})
    with pytest.raises(ScoringError, match=">= 0"):
        settle(rules_for("ofc"), hands(*W8), units={("P1", "P2"): -1})


# --------------------------------------------------------------------------- Criss Cross


def _criss_cross(rules: Rules) -> Settlement:
    boards = [W9[0], W9[1], W9[2], W9[3]]
    table = [
        Hand(name="A#1", player="A", index=0, board=parse_board(boards[0])),
        Hand(name="A#2", player="A", index=1, board=parse_board(boards[1])),
        Hand(name="B#1", player="B", index=0, board=parse_board(boards[2])),
        Hand(name="B#2", player="B", index=1, board=parse_board(boards[3])),
    ]
    return settle(rules, table)


def test_criss_cross_cross_and_parallel() -> None:
    cross = _criss_cross(rules_for("criss-cross", royalty_table="none", natural_source="set_board"))
    # The same as W9's four seats without the two settlements inside each player.
    assert len(cross.pairs) == 4
    assert cross.totals == {"A": 4 + 4 + 2 + 2, "B": -12}
    parallel = _criss_cross(
        rules_for(
            "criss-cross",
            royalty_table="none",
            criss_cross_pairing="parallel",
            natural_source="set_board",
        )
    )
    assert [(p.a, p.b) for p in parallel.pairs] == [("A#1", "B#1"), ("A#2", "B#2")]
    assert parallel.totals == {"A": 4 + 2, "B": -6}
    assert parallel.seat_totals == {"A#1": 4, "A#2": 2, "B#1": -4, "B#2": -2}


def test_criss_cross_needs_two_hands_each() -> None:
    with pytest.raises(ScoringError, match="exactly 2 players"):
        settle(rules_for("criss-cross"), hands(*W9))
    table = [Hand(name="A", board=parse_board(W9[0])), Hand(name="B", board=parse_board(W9[1]))]
    with pytest.raises(ScoringError, match="two hands"):
        settle(rules_for("criss-cross"), table)


# --------------------------------------------------------------------------- Fantasyland


@pytest.mark.parametrize(
    ("preset", "board", "in_fl", "expected"),
    [
        ("ofc", "Qh Qd 4c | Ks Kh 9c 5d 2s | Ah Jh 8h 6h 3h", False, 13),
        ("ofc", "Jh Jd 4c | Ks Kh 9c 5d 2s | Ah Th 8h 6h 3h", False, None),
        ("pineapple", "Qh Qd 4c | Ks Kh 9c 5d 2s | Ah Jh 8h 6h 3h", False, 14),
        ("pineapple-progressive", "Qh Qd 4c | Ks Kh 9c 5d 2s | Ah Jh 8h 6h 3h", False, 14),
        ("pineapple-progressive", "Kh Kd 4c | 9s 9h 9c 5d 2s | Ah Jh 8h 6h 3h", False, 15),
        ("pineapple-progressive", "Ah Ad 4c | Ks Kh 9c 9d 2s | Qh Jh 8h 6h 3h", False, 16),
        ("pineapple-progressive", "4h 4d 4c | Ks Kh Kd 9d 2s | Ah Jh 8h 6h 3h", False, 17),
        ("pineapple-progressive", "4h 4d 4c | Ks Kh Kd 9d 2s | Ah Jh 8h 6h 3h", True, 14),
        ("turbo", "4h 4d 4c | Ks Kh Kd 9d 2s | Ah Jh 8h 6h 3h", False, 13),
        ("ofc", "Ah Ad 4c | Ks Kh 9c 9d 2s | Qh Jh 8h 6h 3h", True, None),
        ("ofc", "4h 4d 4c | Ks Kh Kd 9d 2s | Ah Jh 8h 6h 3h", True, 13),
        ("ofc", "2h 3d 4c | Ks Kh 9c 9d 2s | Ah Ad As Ac 3h", True, 13),
        ("ofc", "2h 3d 4c | Ks Kh Kc 9d 9s | Ah Ad As 3h 3s", True, 13),
        ("pineapple", "2h 3d 4c | Ks Kh Kc 9d 9s | Ah Ad As 3h 3s", True, None),
        ("pineapple", "2h 3d 4c | Ks Kh Kc Kd 9s | Ah Ad As Ac 3h", True, 14),
        ("ofc-hitspoker", "2h 3d 4c | Ks Kh Kc 9d 9s | Ah Ad As 3h 3s", True, None),
        ("ofc-hitspoker", "2h 3d 4c | Ks Kh 9c 9d 2s | Ah Ad As Ac 3h", True, 13),
        ("classic", "Qh Qd 4c | Ks Kh 9c 5d 2s | Ah Jh 8h 6h 3h", False, None),
    ],
)
def test_fantasyland_next(preset: str, board: str, in_fl: bool, expected: int | None) -> None:
    parsed = parse_board(board)
    rules = rules_for(preset)
    assert not is_fouled(rules, parsed)
    assert fantasyland_next(rules, parsed, in_fantasyland=in_fl) == expected


def test_fantasyland_disabled_and_foul() -> None:
    board = parse_board("Qh Qd 4c | Ks Kh 9c 5d 2s | Ah Jh 8h 6h 3h")
    assert (
        fantasyland_next(rules_for("ofc", fantasyland_enabled=False), board, in_fantasyland=False)
        is None
    )
    assert fantasyland_next(rules_for("ofc"), parse_board(W8[2]), in_fantasyland=False) is None


# --------------------------------------------------------------------------- bad tables


def test_bad_tables() -> None:
    rules = rules_for("ofc")
    with pytest.raises(ScoringError, match="appears in both P1 and P2"):
        settle(rules, hands(W8[0], W8[0].replace("Kh Kd 4c", "Ks Qd 4d")))
    with pytest.raises(ScoringError, match="2 to 4 players"):
        settle(rules, hands(W8[0]))
    with pytest.raises(ScoringError, match="2 to 3 players"):
        settle(rules_for("pineapple"), hands(*W9))
    short = Board(
        parse_cards("Ah Ad"), parse_cards("Kh Kd Qs Jc Ts"), parse_cards("9s 9h 9d 5c 5d")
    )
    with pytest.raises(ScoringError, match="not complete"):
        settle(rules, [Hand(name="A", board=short), Hand(name="B", board=parse_board(W4[1]))])
    with pytest.raises(ScoringError, match="called 'P1'"):
        settle(
            rules,
            [Hand(name="P1", board=parse_board(W4[0])), Hand(name="P1", board=parse_board(W4[1]))],
        )
    with pytest.raises(ScoringError, match="only Criss Cross"):
        settle(
            rules,
            [
                Hand(name="a", player="X", board=parse_board(W8[0])),
                Hand(name="b", player="X", board=parse_board(W8[1])),
                Hand(name="c", player="Y", board=parse_board(W8[2])),
            ],
        )
    with pytest.raises(ScoringError, match="Fantasyland"):
        settle(rules_for("classic"), hands(*W4, in_fantasyland=True))
    with pytest.raises(ScoringError, match=r"0\.\.51"):
        settle(
            rules,
            [
                Hand(name="A", board=Board((60, 1, 2), (3, 4, 5, 6, 7), (8, 9, 10, 11, 12))),
                Hand(name="B", board=parse_board(W4[1])),
            ],
        )
    with pytest.raises(ScoringError, match="not complete"):
        line_values(rules, short)


# --------------------------------------------------------------------------- properties

PRESETS = [
    "ofc", "ofc-western", "ofc-hitspoker", "ofc-finnish", "pineapple", "pineapple-progressive",
    "turbo", "classic", "classic-1-6", "classic-low-middle", "classic-wheel", "criss-cross",
]  # fmt: skip

OPTION_CHOICES: dict[str, list[Any]] = {
    "royalty_award": ["net", "winner_only", "best_at_table", "cancel"],
    "finnish_deuce": [True, False],
    "finnish_deuce_if_holder_fouled": ["no_effect", "doubles_opponent_line"],
    "max_royalties_per_hand": [None, 1],
    "royalty_for_dealt_combination": [True, False],
    "misset_rule": ["penalty", "ignore"],
    "foul_penalty": ["scoop_value", 2],
    "foul_pays_opponent_royalties": [True, False],
    "overall_unit_rule": ["two_lines_won", "more_lines_won"],
    "wheel_rank": ["lowest", "second_highest"],
    "natural_cross_type": ["tie", "dragon>three_straights>three_flushes>six_pairs"],
    "natural_claim": ["automatic", "optional"],
    "royalty_table": ["american", "western", "classic_standard", "classic_flat", "none"],
    "scoring_method": ["one_per_line", "one_six", "two_four", "one_four", "two_per_line"],
    "low_middle_qualifier": ["none", "ten_high_no_pair"],
    "low_middle_royalties": ["none", "dp_table"],
    "criss_cross_pairing": ["cross", "parallel"],
}


def _arrange(cards: list[int], tidy: bool) -> Board:
    if tidy:  # low cards on top, high cards at the bottom: most such boards are valid
        cards = sorted(cards)
    return Board(tuple(cards[:3]), tuple(cards[3:8]), tuple(cards[8:13]))


@st.composite
def random_tables(draw: st.DrawFn) -> tuple[Rules, list[Hand]]:
    preset = draw(st.sampled_from(PRESETS))
    chosen = draw(st.lists(st.sampled_from(sorted(OPTION_CHOICES)), max_size=5, unique=True))
    options = {name: draw(st.sampled_from(OPTION_CHOICES[name])) for name in chosen}
    rules = rules_for(preset, **options)
    deck = draw(st.permutations(range(52)))
    if rules.variant == "criss_cross":
        owners = [("A", 0), ("A", 1), ("B", 0), ("B", 1)]
    else:
        count = draw(st.sampled_from(list(rules.player_counts)))
        owners = [(f"P{i + 1}", 0) for i in range(count)]
    table = []
    for seat, (player, index) in enumerate(owners):
        cards = list(deck[13 * seat : 13 * seat + 13])
        board = _arrange(cards, draw(st.booleans()))
        surrender = rules.is_classic and rules.surrender_allowed and draw(st.integers(0, 5)) == 0
        in_fl = rules.is_open_face and draw(st.booleans())
        name = f"{player}#{index + 1}" if rules.variant == "criss_cross" else player
        table.append(
            Hand(
                name=name,
                player=player,
                index=index,
                board=board,
                surrender=surrender,
                in_fantasyland=in_fl,
                declares_natural=draw(st.booleans()),
            )
        )
    return rules, table


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_tables(), st.randoms(use_true_random=False))
def test_random_tables(table: tuple[Rules, list[Hand]], rng: Any) -> None:
    rules, seats = table
    players = sorted({seat.owner for seat in seats})
    units = {
        (a, b): float(rng.choice([0, 1, 2.5, 10, 100]))
        for i, a in enumerate(players)
        for b in players[i + 1 :]
        if rng.random() < 0.5
    }
    result = settle(rules, seats, units=units)
    # Zero sum, per player, per seat and in money.
    assert sum(result.totals.values()) == 0
    assert sum(result.seat_totals.values()) == 0
    assert abs(sum(result.money.values())) < 1e-6
    for player in players:
        expected = sum(
            p.money if p.a_player == player else -p.money
            for p in result.pairs
            if player in (p.a_player, p.b_player)
        )
        assert result.money[player] == pytest.approx(expected)
    for pair in result.pairs:
        assert sum(item.points for item in pair.items) == pair.points
        a, b = result.seat(pair.a), result.seat(pair.b)
        # A fouled board never wins from a board that is not fouled.
        if a.fouled and not b.fouled:
            assert pair.points <= 0
        if b.fouled and not a.fouled:
            assert pair.points >= 0
        if a.fouled and b.fouled:
            assert pair.points == 0
    # Seat order changes nothing but labels; each pair read the other way is negated.
    shuffled = list(seats)
    rng.shuffle(shuffled)
    again = settle(rules, shuffled, units={(b, a): unit for (a, b), unit in units.items()})
    assert again.totals == result.totals
    assert again.money == pytest.approx(result.money)
    assert again.fouled == tuple(s.name for s in shuffled if s.name in result.fouled)
    assert again.fantasyland == result.fantasyland
    for pair in result.pairs:
        assert again.points_between(pair.a, pair.b) == pair.points
        assert again.points_between(pair.b, pair.a) == -pair.points
    # The JSON form is valid and agrees.
    data = json.loads(json.dumps(result.to_dict()))
    assert data["totals"] == dict(result.totals)
    assert result.render()


# --------------------------------------------------------------------------- issue #10 rules


def test_western_quads_example_of_000() -> None:
    """[000]: "if one player has four threes in the back and the other four fours, the
    higher four of a kind takes the royalty". ``ofc-western`` keeps the OFC family's
    ``net`` award (RULES §12, §14), where equal royalties cancel; the article's example is
    ``royalty_award = winner_only`` on the western table (docs/rules-decisions.md)."""
    boards = ("2c 5d 7h | 6s 6h 8c 9d Jc | 3c 3d 3h 3s Kd",
              "2d 5c 7s | 6d 6c 8s 9h Js | 4c 4d 4h 4s Qd")  # fmt: skip
    western = rules_for("ofc-western")
    assert royalties(western, parse_board(boards[1])) == (0, 0, 8)
    assert totals(western, *boards) == [-1, 1]  # the bottom line; 8 - 8 cancels
    assert totals(western.replace(royalty_award="winner_only"), *boards) == [-9, 9]
    assert totals(western.replace(royalty_award="best_at_table"), *boards) == [-9, 9]


def test_best_at_table_ties_split_the_pool() -> None:
    """[002]: the royalty "is divided between the winner or winners". Two equal straight
    flushes (9-high, classic bottom royalty 5) and a board without one: each in full, both
    holders collect 5 from it; split, they share it: 5 // 2 = 2 each (shares are whole
    points, the odd point stays with the payer)."""
    boards = (
        "Ac Kd 2h | Qs Qh Jc Jd 3c | 5h 6h 7h 8h 9h",
        "As Kh 2d | Qc Qd Js Jh 3d | 5s 6s 7s 8s 9s",
        "4c 2c 3h | Tc Td 7c 6c 4h | Ad Ah Kc Ks 8d",
    )
    base = rules_for("classic", royalty_award="best_at_table", naturals_enabled=False)
    table = hands(*boards)
    full = settle(base, table)
    split = settle(base.replace(best_at_table_ties="split"), table)
    royalty = [i for i in full.pair("P1", "P3").items if i.kind == "royalty"]
    assert [(i.line, i.points) for i in royalty] == [("bottom", 5)]
    assert [i.points for i in split.pair("P1", "P3").items if i.kind == "royalty"] == [2]
    assert [i.points for i in split.pair("P1", "P2").items if i.kind == "royalty"] == [0]
    assert full.totals["P3"] - split.totals["P3"] == -(5 - 2) * 2


def test_fl_entry_min_kk() -> None:
    """[003]'s Pineapple section: Fantasyland for a top "above a pair of queens"."""
    queens = parse_board("Qh Qd 4c | 9s 9h 9c 5d 2s | Ah Jh 8h 6h 3h")
    kings = parse_board("Kh Kd 4c | 9s 9h 9c 5d 2s | Ah Jh 8h 6h 3h")
    standard, above_queens = rules_for("pineapple"), rules_for("pineapple", fl_entry_min="KK")
    assert fantasyland_next(standard, queens, in_fantasyland=False) == 14
    assert fantasyland_next(above_queens, queens, in_fantasyland=False) is None
    assert fantasyland_next(above_queens, kings, in_fantasyland=False) == 14


def test_three_straights_declared_from_the_dealt_cards() -> None:
    board = "5c 6d 8s | 2s 3h 4d 5h 6c | 7h 9h Tc Jd Qs"  # 5 6 7 | 2-6 | 8-Q, set otherwise
    dealt = rules_for("classic")
    natural = natural_of(dealt, parse_board(board))
    assert natural is not None and natural.kind == "three_straights"
    assert natural_of(dealt.replace(natural_source="set_board"), parse_board(board)) is None
    assert natural_of(dealt, parse_board("5c 6d 8h | 2s 3h 4d 5h 6c | 8s 9h Tc Jd Qs")) is None


def _oracle_straights(cards: list[int]) -> tuple[int, ...] | None:
    """Every (back, middle, front) run of ranks, compared as multisets (slow and plain)."""
    from collections import Counter

    fives = [(12, 0, 1, 2, 3), *(tuple(range(lo, lo + 5)) for lo in range(9))]
    threes = [(12, 0, 1), *(tuple(range(lo, lo + 3)) for lo in range(11))]
    ranks = Counter(c >> 2 for c in cards)
    keys = [
        (back[-1], middle[-1], front[-1])
        for back in fives for middle in fives for front in threes
        if middle[-1] <= back[-1] and Counter(back) + Counter(middle) + Counter(front) == ranks
    ]  # fmt: skip
    return max(keys) if keys else None


def _oracle_flushes(cards: list[int]) -> bool:
    suits = sorted(sum(1 for c in cards if c & 3 == s) for s in range(4))
    return suits in ([0, 3, 5, 5], [0, 0, 5, 8], [0, 0, 3, 10], [0, 0, 0, 13])


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.data())
def test_dealt_naturals_match_a_plain_search(data: st.DataObject) -> None:
    """Three straights and three flushes from the 13 cards dealt, against a brute-force
    search; half the hands are built from three runs (or three suits) so that plenty are."""
    if data.draw(st.booleans()):
        fives = [(12, 0, 1, 2, 3), *(tuple(range(lo, lo + 5)) for lo in range(9))]
        threes = [(12, 0, 1), *(tuple(range(lo, lo + 3)) for lo in range(11))]
        ranks = [*data.draw(st.sampled_from(fives)), *data.draw(st.sampled_from(fives)),
                 *data.draw(st.sampled_from(threes))]  # fmt: skip
        deck: list[int] = []
        for r in ranks:
            free = [r * 4 + s for s in range(4) if r * 4 + s not in deck]
            deck.append(data.draw(st.sampled_from(free)))
        cards = deck
    else:
        cards = data.draw(st.permutations(range(52)))[:13]
    board = Board(tuple(cards[:3]), tuple(cards[3:8]), tuple(cards[8:]))
    natural = natural_of(rules_for("classic", natural_values="13/3/3/3"), board)
    kinds = {"three_straights": _oracle_straights(cards) is not None,
             "three_flushes": _oracle_flushes(cards)}  # fmt: skip
    from chinese_poker.scoring.naturals import dealt_straights

    packed = sum(1 << 3 * (c >> 2) for c in cards)
    present = 0
    for c in cards:
        present |= 1 << (c >> 2)
    assert dealt_straights(packed, present) == _oracle_straights(cards)
    if natural is None:
        assert not any(kinds.values())
    elif natural.kind in kinds:
        assert kinds[natural.kind]


def test_a_misshapen_board_of_13_cards_is_refused() -> None:
    """Lines of 4, 4 and 5 cards hold 13 cards: still not a complete board."""
    good = parse_board("Ah Qd 4c | Jh Js 9c 9d 2h | 7c 7d 7h 7s Kc")
    cards = parse_cards("Kd Jc 3h Th Ts 8c 8d 5s Qs 9s 6s 4s 3s")
    for shape in ((4, 4, 5), (3, 6, 4), (2, 5, 6)):
        a, b = shape[0], shape[0] + shape[1]
        bad = Board(tuple(cards[:a]), tuple(cards[a:b]), tuple(cards[b:]))
        with pytest.raises(ScoringError, match="is not complete"):
            settle(rules_for("ofc"), [Hand(name="A", board=good), Hand(name="B", board=bad)])


@pytest.mark.parametrize("preset", ["ofc", "pineapple-progressive", "classic", "ofc-finnish"])
def test_heads_up_path_equals_the_general_one(preset: str) -> None:
    """settle's heads-up shortcut gives what the general loops give: a unit table with the
    default unit value takes the general path, so the two settlements must be equal."""
    import random

    rules = rules_for(preset)
    rng = random.Random(7)
    for i in range(300):
        deck = list(range(52))
        rng.shuffle(deck)
        hands = []
        for k, name in enumerate(("A", "B")):
            cards = tuple(deck[13 * k : 13 * k + 13])
            board = Board(cards[:3], cards[3:8], cards[8:])
            fantasyland = rules.is_open_face and i % 5 == k
            hands.append(Hand(name=name, board=board, in_fantasyland=fantasyland))
        fast = settle(rules, hands)
        general = settle(rules, hands, units={("A", "B"): rules.unit_value})
        assert fast.to_dict() == general.to_dict()
        assert list(fast.totals) == list(general.totals)
