"""Tests for chinese_poker.scoring.validity: "can this board still be valid, whatever
comes" answered exactly, held to a brute-force oracle that tries every way to finish."""

from __future__ import annotations

import doctest
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chinese_poker import scoring
from chinese_poker.cards import Board, Card, parse_board, parse_cards
from chinese_poker.rules import Rules, rules_for
from chinese_poker.scoring import certain_foul, foul_reason, is_fouled, validity


def _board(text: str) -> Board:
    return Board(*(tuple(parse_cards(line)) for line in text.split("|")))


def _some_finish_is_valid(rules: Rules, board: Board, coming: list[Card]) -> bool:
    """The oracle: every way to finish ``board`` from ``coming``, card by card."""
    lines = (board.top, board.middle, board.bottom)
    need = [size - len(cards) for cards, size in zip(lines, (3, 5, 5), strict=True)]
    pool = [c for c in coming if c not in board.cards]
    for top in itertools.combinations(pool, need[0]):
        rest = [c for c in pool if c not in top]
        for middle in itertools.combinations(rest, need[1]):
            left = [c for c in rest if c not in middle]
            for bottom in itertools.combinations(left, need[2]):
                full = Board(lines[0] + top, lines[1] + middle, lines[2] + bottom)
                if not is_fouled(rules, full):
                    return True
    return False


def _rules(name: str) -> Rules:
    if name == "low-middle-ten":  # a low middle that must be ten-high with no pair
        return rules_for("ofc").replace(
            middle_mode="lowball_2_7", low_middle_qualifier="ten_high_no_pair"
        )
    return rules_for(name)


def test_doctests() -> None:
    assert doctest.testmod(validity).failed == 0


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_answer_is_the_brute_force_one(data: st.DataObject) -> None:
    """Small boards (few cards missing, a small pool) against every way to finish.

    Half the decks are sorted high first (with noise), so strong tops and crossing lines,
    where a foul is certain, come often; the variants cover a high middle, a low middle
    with and without its qualifier, and the wheel ranked second highest."""
    name = data.draw(
        st.sampled_from(["ofc", "classic-low-middle", "low-middle-ten", "classic-wheel"])
    )
    rules = _rules(name)
    deck = data.draw(st.permutations(range(52)))
    if data.draw(st.booleans()):
        noise = data.draw(st.lists(st.integers(0, 5), min_size=52, max_size=52))
        deck = sorted(deck, key=lambda c: -(c >> 2) + noise[c])
    # At least 7 cards placed: at most 6 missing keeps the oracle quick.
    top = data.draw(st.integers(0, 3))
    middle = data.draw(st.integers(2 - top if top < 2 else 0, 5))
    sizes = [top, middle, data.draw(st.integers(max(0, 7 - top - middle), 5))]
    lines, at = [], 0
    for n in sizes:
        lines.append(tuple(deck[at : at + n]))
        at += n
    board = Board(*lines)
    missing = 13 - at
    coming = list(deck[at : at + missing + data.draw(st.integers(0, 3))])
    answer = certain_foul(rules, board, coming)
    assert (answer is None) == _some_finish_is_valid(rules, board, coming)
    if answer is not None:
        assert answer.kind in ("beats", "low_middle", "squeezed")


def test_the_reason_names_the_lines_that_cross() -> None:
    ofc = rules_for("ofc")
    beats = certain_foul(
        ofc, _board("Ah | Ac Kc Ad Kd Qd | Kh As Ks 9d"), parse_cards("Tc 9h Jd 8d 8s")
    )
    assert beats is not None
    assert (beats.kind, beats.line, beats.below) == ("beats", "middle", "bottom")
    assert str(beats) == ("middle A A K K Q beats anything the bottom K K A 9 can still become")
    # Each pair alone could be kept in order, but the middle needs a king to beat the
    # top and the bottom needs the other to beat the middle: both cannot have them.
    squeezed = certain_foul(
        ofc, _board("Ah Kd Ac | Qd Ad Qs Kh | Jd As Tc"), parse_cards("Th Ks Js 9c Kc")
    )
    assert squeezed is not None
    assert (squeezed.kind, squeezed.line, squeezed.below) == ("squeezed", "middle", None)
    low = _rules("low-middle-ten")
    ceiling = certain_foul(
        low, _board("2c 3d | Kh 4s | Ac Ad As"), parse_cards("5c 6d 7h 8s 9c Tc")
    )
    assert ceiling is not None
    assert (ceiling.kind, ceiling.line, ceiling.ceiling) == ("low_middle", "middle", "T")


def test_what_may_come_decides() -> None:
    """The same board is safe while the last nine may come and fouls once it cannot."""
    rules = rules_for("ofc")
    board = _board("Qh Qd | 9s 9h 7c 4d | Ah Kh")
    assert certain_foul(rules, board, parse_cards("3c 9d 2h 5h 8h")) is None
    reason = certain_foul(rules, board, parse_cards("3c 3d 2h 5h 8h"))
    # Without the nine the middle stays below the queens: one pair at most.
    assert reason is not None and (reason.line, reason.below) == ("top", "middle")


def test_a_complete_board_is_judged_by_the_scorer() -> None:
    rules = rules_for("ofc")
    board = parse_board("Qh Qd 7c | Qs Qc 6d 5h 4s | Ah Kh 9h 8h 2h")
    assert certain_foul(rules, board, []) == foul_reason(rules, board)
    fine = parse_board("Qh Qd 7c | Qs Qc 7d 5h 4s | Ah Kh 9h 8h 2h")
    assert certain_foul(rules, fine, []) is None


def test_too_few_cards_to_finish_is_an_error() -> None:
    with pytest.raises(ValueError, match="lacks 4 cards but only 2"):
        certain_foul(
            rules_for("ofc"), _board("Ah | 2c 3c 4c 5c | 6d 7d 8d 9d"), parse_cards("Kh Kd")
        )


def test_exported_from_scoring() -> None:
    assert scoring.certain_foul is certain_foul
