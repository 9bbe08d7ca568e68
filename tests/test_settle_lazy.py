"""``settle`` settles the totals at once and builds the itemised breakdown when first read.

A differential test holds the result (totals, money, fouls, Fantasyland, every seat and
pair item by item) to a plain reference written here from the public per-board functions
and RULES.md §7.3, and to ``settle_totals``, on random tables of every preset and of the
options with their own arithmetic; the rest checks that a settlement read in any order,
pickled or compared is the same value.
"""

from __future__ import annotations

import pickle
import random
from collections.abc import Mapping
from typing import Any

import pytest

from chinese_poker.cards import Board
from chinese_poker.rules import PRESETS, Rules, rules_for
from chinese_poker.scoring import (
    DEUCE_OF_SPADES,
    Hand,
    Natural,
    PairResult,
    ScoringError,
    SeatResult,
    Settlement,
    fantasyland_next,
    foul_reason,
    is_fouled,
    line_name,
    line_values,
    natural_of,
    royalties,
    settle,
    settle_totals,
)

# Options whose arithmetic no preset exercises, on top of every preset.
_VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("ofc", {"royalty_award": "winner_only"}),
    ("ofc", {"royalty_award": "cancel"}),
    ("ofc", {"misset_rule": "ignore"}),
    ("ofc", {"foul_pays_opponent_royalties": False, "foul_penalty": 4}),
    ("ofc", {"overall_unit_rule": "more_lines_won", "scoring_method": "one_six"}),
    ("ofc-finnish", {"finnish_deuce_if_holder_fouled": "doubles_opponent_line"}),
    ("pineapple", {"fantasyland_enabled": False}),
    ("classic", {"natural_claim": "optional"}),
    ("classic", {"natural_source": "set_board"}),
    ("classic", {"max_royalties_per_hand": 1}),
    ("classic", {"royalty_for_dealt_combination": True}),
    ("classic", {"royalty_award": "best_at_table"}),
    ("classic", {"royalty_award": "best_at_table", "best_at_table_ties": "split"}),
]
RULESETS: list[tuple[str, dict[str, Any]]] = [(name, {}) for name in PRESETS] + _VARIANTS


def _board(cards: list[int]) -> Board:
    return Board(tuple(cards[:3]), tuple(cards[3:8]), tuple(cards[8:13]))


def _table(
    rng: random.Random, rules: Rules
) -> tuple[list[Hand], dict[tuple[str, str], float] | None]:
    """Seats for ``rules``: most boards set in line order, some fouled, with Fantasyland,
    surrender (some boards not shown), dealt cards, declined naturals, other owners and
    unit values mixed in."""
    variant = rules.spec.variant
    low, high = variant.player_counts
    per = variant.hands_per_seat
    players = rng.randint(low, high) if per == 1 else 2
    deck = list(range(52))
    rng.shuffle(deck)
    hands = []
    for p in range(players * per):
        cards = deck[13 * p : 13 * p + 13]
        board = _board(cards)
        for _ in range(60 if rng.random() < 0.6 else 0):
            if not is_fouled(rules, board):
                break
            rng.shuffle(cards)
            board = _board(cards)
        seat: dict[str, Any] = {"name": f"S{p}"}
        if per == 2:
            seat.update(name=f"P{p // 2}-{p % 2}", player=f"P{p // 2}", index=p % 2)
        elif rng.random() < 0.2:
            seat["player"] = f"player {p}"
        if variant.open_face and rng.random() < 0.3:
            seat["in_fantasyland"] = True
        if not variant.open_face:
            if rng.random() < 0.5:
                seat["dealt"] = tuple(cards)
            if variant.has_surrender and rng.random() < 0.15:
                seat["surrender"] = True
                if rng.random() < 0.5:
                    board = Board((), (), ())
            if rng.random() < 0.2:
                seat["declares_natural"] = False
        hands.append(Hand(board=board, **seat))
    units = None
    if per == 1 and rng.random() < 0.15:
        units = {(hands[0].owner, hands[1].owner): rng.choice([0.5, 2.0, 10.0])}
    return hands, units


# ============================================================================ the reference


def _deuce_line(board: Board) -> int:
    for line, cards in enumerate(board.lines):
        if DEUCE_OF_SPADES in cards:
            return line
    return -1


def _reference_seat(rules: Rules, hand: Hand) -> dict[str, Any]:
    """One seat from the public per-board functions."""
    sc = rules.spec.scoring
    board = hand.board
    if hand.surrender and not len(board):
        return {"shown": False, "natural": None, "surrendered": True, "fouled": False,
                "royalties": (0, 0, 0), "fantasyland": None, "deuce": -1}  # fmt: skip
    natural = natural_of(rules, hand)
    surrendered = hand.surrender and natural is None
    reason = foul_reason(rules, board)
    fouled = reason is not None and sc.misset_penalised and natural is None and not surrendered
    plays = not (fouled or surrendered or natural is not None)
    earned = None
    if reason is None:
        earned = fantasyland_next(rules, board, in_fantasyland=hand.in_fantasyland)
    return {
        "shown": True,
        "values": line_values(rules, board),
        "hands": tuple(line_name(rules, line, cards) for line, cards in enumerate(board.lines)),
        "reason": reason,
        "natural": natural,
        "surrendered": surrendered,
        "fouled": fouled,
        "royalties": royalties(rules, board, dealt=hand.dealt) if plays else (0, 0, 0),
        "fantasyland": earned,
        "deuce": _deuce_line(board) if sc.finnish_deuce else -1,
    }


def _natural_points(rules: Rules, na: Natural | None, nb: Natural | None) -> int:
    """§7.10: what B pays A when at least one of them claims a natural."""
    if na is None or nb is None:
        return na.value if na is not None else -nb.value  # type: ignore[union-attr]
    if na.value != nb.value:
        return na.value if na.value > nb.value else -nb.value
    if na.kind == nb.kind:
        return 0 if na.key == nb.key else (na.value if na.key > nb.key else -nb.value)
    order = rules.spec.scoring.naturals.cross_order  # type: ignore[union-attr]
    if order is None:
        return 0
    return na.value if order.index(na.kind) < order.index(nb.kind) else -nb.value


def _foul_points(rules: Rules, winner: dict[str, Any], loser: dict[str, Any]) -> int:
    sc = rules.spec.scoring
    total = sc.foul_value
    if sc.foul_pays_royalties:
        doubled = -1
        if sc.finnish_deuce:
            doubled = winner["deuce"]
            if doubled < 0 and sc.deuce_doubles_when_holder_fouled:
                doubled = loser["deuce"]
        total += sum(
            r * (2 if line == doubled else 1) for line, r in enumerate(winner["royalties"])
        )
    return total


def _showdown_points(rules: Rules, a: dict[str, Any], b: dict[str, Any], best: Any) -> int:
    """§7.2, §7.5, §7.6: lines, the overall unit, the scoop and royalties."""
    sc = rules.spec.scoring
    v, o, s = sc.line_values
    won = [(x > y) - (x < y) for x, y in zip(a["values"], b["values"], strict=True)]
    wins, losses = won.count(1), won.count(-1)
    total = v * (wins - losses)
    a_overall = wins > losses if sc.more_lines_won else wins >= 2
    b_overall = losses > wins if sc.more_lines_won else losses >= 2
    total += o * (a_overall - b_overall) + s * ((wins == 3) - (losses == 3))
    doubled = a["deuce"] if a["deuce"] >= 0 else b["deuce"]
    award = str(rules.royalty_award)
    for line in range(3):
        ra, rb = a["royalties"][line], b["royalties"][line]
        if award == "net":
            points = ra - rb
        elif award == "best_at_table":
            a_best, b_best = best[line].get(a["name"], 0), best[line].get(b["name"], 0)
            points = ra // a_best if a_best and not b_best else (
                -(rb // b_best) if b_best and not a_best else 0)  # fmt: skip
        elif award == "cancel" and ra and rb:
            points = 0
        else:
            points = ra if won[line] > 0 else -rb if won[line] < 0 else 0
        total += points * (2 if line == doubled and sc.finnish_deuce else 1)
    return total


def _pair_points(rules: Rules, a: dict[str, Any], b: dict[str, Any], best: Any) -> int:
    """§7.3 in order: naturals, surrender, fouls, the showdown."""
    if a["natural"] is not None or b["natural"] is not None:
        return _natural_points(rules, a["natural"], b["natural"])
    cost = rules.spec.scoring.surrender_cost or 0
    if a["surrendered"] or b["surrendered"]:
        if a["surrendered"] and b["surrendered"]:
            return 0
        if a["surrendered"]:
            return 0 if b["fouled"] else -cost
        return 0 if a["fouled"] else cost
    if a["fouled"] or b["fouled"]:
        if a["fouled"] and b["fouled"]:
            return 0
        return -_foul_points(rules, b, a) if a["fouled"] else _foul_points(rules, a, b)
    return _showdown_points(rules, a, b, best)


def _best_at_table(rules: Rules, seats: list[dict[str, Any]], hands: list[Hand]) -> Any:
    """Per line, the seats with the best royalty hand (the line value, or the dealt
    combination's where that scored the bottom), each with how many share the pool."""
    split = str(rules.best_at_table_ties) == "split"
    best: list[dict[str, int]] = [{}, {}, {}]
    groups: dict[int, list[tuple[dict[str, Any], Hand]]] = {}
    for seat, hand in zip(seats, hands, strict=True):
        if not (seat["fouled"] or seat["surrendered"] or seat["natural"] is not None):
            key = hand.index if rules.spec.scoring.parallel_pairing else 0
            groups.setdefault(key, []).append((seat, hand))
    for group in groups.values():
        for line in range(3):
            holders = [seat for seat, _ in group if seat["royalties"][line]]
            if holders:
                top = max(seat["strength"][line] for seat in holders)
                tied = [seat["name"] for seat in holders if seat["strength"][line] == top]
                best[line].update(dict.fromkeys(tied, len(tied) if split else 1))
    return best


def _reference(
    rules: Rules, hands: list[Hand], units: Mapping[tuple[str, str], float] | None,
    settled: Settlement,
) -> dict[str, Any]:  # fmt: skip
    seats = [_reference_seat(rules, hand) for hand in hands]
    for seat, hand, got in zip(seats, hands, settled.seats, strict=True):
        seat["name"], seat["player"], seat["index"] = hand.name, hand.owner, hand.index
        # The royalty strength under a dealt combination is the scorer's own judgement.
        seat["strength"] = got.royalty_strength
    best = (
        _best_at_table(rules, seats, hands) if str(rules.royalty_award) == "best_at_table" else None
    )
    players = list(dict.fromkeys(hand.owner for hand in hands))
    totals = dict.fromkeys(players, 0)
    seat_totals = dict.fromkeys([hand.name for hand in hands], 0)
    money = dict.fromkeys(players, 0.0)
    pairs = []
    parallel = rules.spec.scoring.parallel_pairing
    for i, a in enumerate(seats):
        for b in seats[i + 1 :]:
            if a["player"] == b["player"] or (parallel and a["index"] != b["index"]):
                continue
            points = _pair_points(rules, a, b, best)
            unit = (units or {}).get((a["player"], b["player"])) or (units or {}).get(
                (b["player"], a["player"]), rules.unit_value)  # fmt: skip
            pairs.append((a["name"], b["name"], points, unit))
            totals[a["player"]] += points
            totals[b["player"]] -= points
            seat_totals[a["name"]] += points
            seat_totals[b["name"]] -= points
            money[a["player"]] += points * unit
            money[b["player"]] -= points * unit
    return {
        "seats": seats,
        "pairs": pairs,
        "totals": totals,
        "seat_totals": seat_totals,
        "money": {p: pytest.approx(m, abs=1e-9) for p, m in money.items()},
        "fouled": tuple(seat["name"] for seat in seats if seat["fouled"]),
        "fantasyland": {seat["name"]: seat["fantasyland"] for seat in seats},
    }


def _check_seat(want: dict[str, Any], got: SeatResult) -> None:
    assert got.natural == want["natural"]
    assert (got.surrendered, got.fouled) == (want["surrendered"], want["fouled"])
    assert got.royalties == want["royalties"]
    assert got.fantasyland == want["fantasyland"]
    assert got.deuce_line == want["deuce"]
    if want["shown"]:
        assert got.values == want["values"]
        assert got.hands == want["hands"]
        assert got.foul_reason == want["reason"]
        assert got.plays == (not got.fouled and not got.surrendered and got.natural is None)


def _check_pair(want: tuple[str, str, int, float], got: PairResult) -> None:
    assert (got.a, got.b, got.points, got.unit) == want
    assert sum(item.points for item in got.items) == got.points


@pytest.mark.parametrize("name, options", RULESETS, ids=lambda v: str(v) if v else "")
def test_settle_equals_the_reference_and_the_totals_path(
    name: str, options: dict[str, Any]
) -> None:
    rules = rules_for(name, **options)
    rng = random.Random(f"{name} {sorted(options.items())}")
    for _ in range(120):
        hands, units = _table(rng, rules)
        settled = settle(rules, hands, units=units)
        # The fields settled at once, read before the breakdown is built.
        early = (dict(settled.totals), dict(settled.seat_totals), dict(settled.money),
                 settled.fouled, dict(settled.fantasyland))  # fmt: skip
        want = _reference(rules, hands, units, settled)
        assert early == (want["totals"], want["seat_totals"], want["money"], want["fouled"],
                         want["fantasyland"])  # fmt: skip
        for seat_want, seat in zip(want["seats"], settled.seats, strict=True):
            _check_seat(seat_want, seat)
        assert len(settled.pairs) == len(want["pairs"])
        for pair_want, pair in zip(want["pairs"], settled.pairs, strict=True):
            _check_pair(pair_want, pair)
        if units is None:
            assert settle_totals(rules, hands) == want["totals"]
        # Read in the other order, the settlement is the same value.
        again = settle(rules, hands, units=units)
        assert again.pairs == settled.pairs and again == settled


def _heads_up() -> tuple[Rules, list[Hand]]:
    rules = rules_for("ofc")
    return rules, [
        Hand(name="A", board=Board.parse("Ah Qd 4c | Jh Js 9c 9d 2h | 7c 7d 7h 7s Kc")),
        Hand(name="B", board=Board.parse("Kd Jc 3h | Th Ts 8c 8d 5s | Qs 9s 6s 4s 3s")),
    ]


def test_a_deferred_settlement_builds_its_breakdown_once_when_first_read() -> None:
    rules, hands = _heads_up()
    full = settle(rules, hands)
    calls = []

    def build(seats: Any, pairs: Any) -> Any:
        calls.append(1)
        return seats, pairs

    deferred = Settlement.deferred(
        rules, full.totals, full.seat_totals, full.money, full.fouled, full.fantasyland,
        (build, full.seats, full.pairs),
    )  # fmt: skip
    assert deferred.totals == full.totals and deferred.fouled == full.fouled
    assert not calls
    assert deferred.pairs == full.pairs and deferred.seats == full.seats
    assert calls == [1]
    assert deferred == full and deferred == tuple(full)


def test_a_settlement_behaves_as_the_named_tuple_it_was() -> None:
    rules, hands = _heads_up()
    settled = settle(rules, hands)
    eager = Settlement(*settled)
    assert settled == eager
    assert not settled != eager  # noqa: SIM202  (the != of the class, not of ==)
    assert len(settled) == 8 and settled[3] == settled.totals and settled[-1] == settled.fantasyland
    r, seats, pairs, totals, *_ = settled
    assert (r, seats, pairs, totals) == (rules, settled.seats, settled.pairs, settled.totals)
    assert list(settled._asdict()) == list(Settlement._fields)
    assert settled._replace(fouled=("A",)).fouled == ("A",)
    assert Settlement._make(list(settled)) == settled
    match settled:
        case Settlement(_, _, _, {"A": points}):
            assert points == 12
        case _:
            pytest.fail("a settlement matches its fields by position")
    with pytest.raises(ValueError, match="unexpected field names"):
        settled._replace(points=1)
    with pytest.raises(AttributeError):
        settled.totals = {}  # type: ignore[misc]
    with pytest.raises(TypeError):
        hash(settled)
    assert repr(settle(rules, hands)) == repr(eager)
    assert pickle.loads(pickle.dumps(settle(rules, hands))) == settled
    assert settle(rules, hands).to_dict() == eager.to_dict()
    assert settle(rules, hands).render() == eager.render()


def test_the_breakdown_is_settled_from_the_hands_given_not_a_list_changed_later() -> None:
    rules, hands = _heads_up()
    want = settle(rules, list(hands)).pairs
    seats = list(hands)
    settled = settle(rules, seats)
    seats.reverse()
    assert settled.pairs == want


@pytest.mark.parametrize("card", [-1, -52, -53, -104, -105, -160, 52, 103, 104])
def test_a_card_number_off_the_deck_is_refused(card: int) -> None:
    """Whatever the look-ups make of it (a negative index reads a real card's code)."""
    rules, hands = _heads_up()
    board = hands[1].board
    bad = Hand(name="B", board=Board(board.top, board.middle, (card, *board.bottom[1:])))
    with pytest.raises(ScoringError, match=rf"card numbers must be 0\.\.51, got {card}"):
        settle(rules, [hands[0], bad])
    with pytest.raises(ScoringError, match="card numbers must be 0"):
        settle_totals(rules, [hands[0], bad])
