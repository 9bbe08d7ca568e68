"""The playout kernels and the totals-only path settle exactly like ``scoring.settle``.

Property tests over random rulesets drawn from every option value the kernels accept
(``rollout.SUPPORTED``), on random boards and on near-foul boards (a valid-looking board
with a card or two swapped between lines, where the line comparisons are close).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chinese_poker.ai import fantasyland, rollout, setting
from chinese_poker.cards import Board
from chinese_poker.rules import (
    FIVE_CARD_ROYALTY_KEYS,
    BestAtTableTies,
    ClassicRoyalFlush,
    DeuceIfHolderFouled,
    MiddleMode,
    MissetRule,
    NaturalSource,
    OverallUnitRule,
    RoyaltyAward,
    RoyaltyTable,
    Rules,
    RulesError,
    ScoringMethod,
    Variant,
    WheelRank,
    rules_for,
)
from chinese_poker.scoring import Hand, ScoringError, is_fouled, settle, settle_totals


def values_of(option: str, values: type[StrEnum], modelled: bool = False) -> st.SearchStrategy[str]:
    """Every value of an option's enum (a value added to it is drawn too); with
    ``modelled``, those the playout kernels model (``rollout.SUPPORTED``)."""
    members = [str(v) for v in values]
    if modelled and option in rollout.SUPPORTED:
        members = [v for v in members if v in rollout.SUPPORTED[option]]
    assert members, option
    return st.sampled_from(members)


@st.composite
def custom_royalties(draw: st.DrawFn) -> dict[str, dict[str, int]]:
    amounts = st.integers(0, 30)
    top = {key: draw(amounts) for key in draw(st.sets(st.sampled_from(
        ["66", "99", "QQ", "KK", "AA", "222", "777", "AAA"]), max_size=5))}  # fmt: skip
    lines = {
        line: {key: draw(amounts) for key in draw(st.sets(st.sampled_from(FIVE_CARD_ROYALTY_KEYS)))}
        for line in ("middle", "bottom")
    }
    return {"top": top, **lines}


@st.composite
def open_face_rules(draw: st.DrawFn) -> Rules:
    """A ruleset of any option values the playout kernels model."""
    enums: dict[str, type[StrEnum]] = {
        "scoring_method": ScoringMethod,
        "overall_unit_rule": OverallUnitRule,
        "misset_rule": MissetRule,
        "royalty_table": RoyaltyTable,
        "classic_royal_flush": ClassicRoyalFlush,
        "royalty_award": RoyaltyAward,
        "best_at_table_ties": BestAtTableTies,
        "finnish_deuce_if_holder_fouled": DeuceIfHolderFouled,
        "wheel_rank": WheelRank,
    }
    options: dict[str, Any] = {name: draw(values_of(name, e, modelled=True))
                               for name, e in enums.items()}  # fmt: skip
    options.update({
        "foul_penalty": draw(st.one_of(st.just("scoop_value"), st.integers(0, 12))),
        "foul_pays_opponent_royalties": draw(st.booleans()),
        "middle_trips_royalty": draw(st.sampled_from([2, 0])),
        "max_royalties_per_hand": draw(
            st.sampled_from(rollout.SUPPORTED["max_royalties_per_hand"])),
        "finnish_deuce": draw(st.booleans()),
        "fantasyland_enabled": draw(st.booleans()),
    })  # fmt: skip
    if options["scoring_method"] == "custom":
        options["scoring_custom"] = (draw(st.integers(1, 3)), draw(st.integers(0, 3)),
                                     draw(st.integers(0, 6)))  # fmt: skip
    if options["royalty_table"] == "custom":
        options["custom_royalties"] = draw(custom_royalties())
    variant = draw(values_of("variant", Variant, modelled=True))
    return Rules.for_variant(str(variant), **options)


def _lines(cards: list[int]) -> Board:
    return Board(tuple(cards[:3]), tuple(cards[3:8]), tuple(cards[8:]))


@st.composite
def boards(draw: st.DrawFn, rules: Rules) -> list[Board]:
    """2 to the variant's most players: random boards, boards set low to high, and
    near-foul boards (set low to high, then one or two cards swapped between lines)."""
    low, high = rules.spec.variant.player_counts
    n = draw(st.integers(low, high))
    deck = draw(st.permutations(range(52)))
    if rules.finnish_deuce and draw(st.booleans()):  # the 2s at the table, on any line
        deck = [0, *(c for c in deck if c != 0)]
        at = draw(st.integers(0, 13 * n - 1))
        deck[0], deck[at] = deck[at], deck[0]
    out = []
    for k in range(n):
        cards = list(deck[13 * k : 13 * k + 13])
        mode = draw(st.sampled_from(["random", "sorted", "near_foul"]))
        if mode != "random":
            cards.sort(key=lambda c: (c >> 2, c & 3))
        if mode == "near_foul":
            for _ in range(draw(st.integers(1, 2))):
                i = draw(st.integers(0, 7))  # top or middle
                j = draw(st.integers(max(i + 1, 3), 12))  # a later line
                cards[i], cards[j] = cards[j], cards[i]
        out.append(_lines(cards))
    return out


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_kernel_settles_like_the_scorer(data: st.DataObject) -> None:
    rules = data.draw(open_face_rules())
    table = data.draw(boards(rules))
    hands = [Hand(name=f"P{i}", board=b) for i, b in enumerate(table)]
    truth = settle(rules, hands).totals
    got = rollout.kernel_totals(rules, [b.lines for b in table])
    assert got == [truth[f"P{i}"] for i in range(len(table))], (rules, [str(b) for b in table])


@st.composite
def any_rules(draw: st.DrawFn) -> Rules:
    """Open-face rulesets, plus classic ones with naturals, low middles and the rest."""
    if draw(st.booleans()):
        return draw(open_face_rules())
    enums: dict[str, type[StrEnum]] = {
        "royalty_award": RoyaltyAward,
        "best_at_table_ties": BestAtTableTies,
        "natural_source": NaturalSource,
        "misset_rule": MissetRule,
        "middle_mode": MiddleMode,
        "wheel_rank": WheelRank,
    }
    options: dict[str, Any] = {name: draw(values_of(name, e)) for name, e in enums.items()}
    options.update({
        "max_royalties_per_hand": draw(st.sampled_from([None, 1])),
        "naturals_enabled": draw(st.booleans()),
        "finnish_deuce": draw(st.booleans()),
    })  # fmt: skip
    return Rules.for_variant("classic", **options)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_totals_only_path_equals_settle(data: st.DataObject) -> None:
    rules = data.draw(any_rules())
    table = data.draw(boards(rules))
    hands = [Hand(name=f"P{i}", board=b) for i, b in enumerate(table)]
    assert settle_totals(rules, hands) == dict(settle(rules, hands).totals)


def test_totals_only_path_checks_like_settle() -> None:
    rules = rules_for("ofc")
    board = _lines(list(range(13)))
    with pytest.raises(Exception, match="card") as settled:
        settle(rules, [Hand(name="A", board=board), Hand(name="B", board=board)])
    with pytest.raises(type(settled.value), match="card"):
        settle_totals(rules, [Hand(name="A", board=board), Hand(name="B", board=board)])


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    "rules,option",
    [
        (rules_for("ofc", royalty_for_dealt_combination=True), "royalty_for_dealt_combination"),
        (rules_for("ofc", middle_mode="lowball_2_7"), "middle_mode"),
        (rules_for("classic"), "variant"),
    ],
)
def test_kernels_refuse_what_they_do_not_model(rules: Rules, option: str) -> None:
    with pytest.raises(RulesError, match=f"^{option}=.* is not modelled by the playout kernels"):
        rollout.tables_for(rules)


def test_fantasyland_solver_refuses_what_it_does_not_model() -> None:
    with pytest.raises(RulesError, match="max_royalties_per_hand=1 is not modelled by the Fan"):
        fantasyland.solve_fantasyland(list(range(13)), rules_for("ofc", max_royalties_per_hand=1))
    # misset_rule=ignore: it sets a valid board, the same as under the penalty.
    ignore = fantasyland.solve_fantasyland(list(range(13)), rules_for("ofc", misset_rule="ignore"))
    penalty = fantasyland.solve_fantasyland(list(range(13)), rules_for("ofc"))
    assert ignore.board == penalty.board and not is_fouled(rules_for("ofc"), ignore.board)


def test_setting_solver_refuses_what_it_does_not_model() -> None:
    with pytest.raises(RulesError, match="dealt_combination=True is not modelled by the setting"):
        setting.solve_setting(
            list(range(13)), rules_for("classic", royalty_for_dealt_combination=True)
        )


def test_totals_only_path_refuses_like_settle() -> None:
    rules = rules_for("ofc")
    a = _lines(list(range(13)))
    b = _lines(list(range(13, 26)))
    for table in (
        [Hand(name="A", board=a), Hand(name="A", board=b)],  # one name twice
        [Hand(name="A", board=a), Hand(name="B", board=b, player="A")],  # one player twice
        [Hand(name="A", board=a)],  # too few players
        [Hand(name="A", board=a), Hand(name="B", board=Board(b.top, b.middle, b.bottom[:4]))],
    ):
        with pytest.raises(ScoringError) as settled:
            settle(rules, table)
        with pytest.raises(ScoringError, match=str(settled.value)[:20]):
            settle_totals(rules, table)


def test_totals_only_path_on_criss_cross_and_fantasyland() -> None:
    deck = list(range(52))
    boards_ = [_lines(deck[13 * k : 13 * k + 13]) for k in range(4)]
    rules = rules_for("criss-cross", naturals_enabled=False)
    table = [Hand(name=f"{p}#{i}", player=p, index=i, board=boards_[2 * j + i])
             for j, p in enumerate("AB") for i in range(2)]  # fmt: skip
    assert settle_totals(rules, table) == dict(settle(rules, table).totals)
    ofc = rules_for("ofc")
    table = [Hand(name="A", board=boards_[0], in_fantasyland=True),
             Hand(name="B", board=boards_[3])]  # fmt: skip
    assert settle_totals(ofc, table) == dict(settle(ofc, table).totals)


def test_kernel_splits_tied_best_royalties_like_the_scorer() -> None:
    from chinese_poker.cards import parse_board

    table = [parse_board(text) for text in (
        "Ac Kd 2h | Qs Qh Jc Jd 3c | 5h 6h 7h 8h 9h",
        "As Kh 2d | Qc Qd Js Jh 3d | 5s 6s 7s 8s 9s",
        "4c 2c 3h | Tc Td 7c 6c 4h | Ad Ah Kc Ks 8d",
    )]  # fmt: skip
    paid = []
    for ties in ("each_in_full", "split"):
        rules = rules_for("ofc", royalty_award="best_at_table", best_at_table_ties=ties)
        truth = settle(rules, [Hand(name=f"P{i}", board=b) for i, b in enumerate(table)]).totals
        assert rollout.kernel_totals(rules, [b.lines for b in table]) == list(truth.values())
        paid.append(truth["P2"])
    # Two 9-high straight flushes on the bottom (american: 15): in full the third board
    # pays each 15; split, each 15 // 2 = 7.
    assert paid[1] - paid[0] == 2 * (15 - 7)
