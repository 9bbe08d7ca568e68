"""The Monte Carlo bot: legal everywhere, the solvers where they apply, exact scoring
kernels, deterministic by seed, rarely fouls, and clearly beats the random bot.

Low levels keep this file fast; the strength figures come from bench/bench_bots.py.
"""

from __future__ import annotations

import doctest
import random
import zlib

import pytest

from _helpers import fake_search_clock
from chinese_poker.ai import BOTS, make_bot, mc, rollout
from chinese_poker.ai.fantasyland import solve_fantasyland
from chinese_poker.ai.mc import MonteCarloBot, analyse_street, fantasyland_stay_value
from chinese_poker.ai.simple import RandomBot, RuleBot
from chinese_poker.cards import Board
from chinese_poker.engine import Place, Session, Table, Timeout, play_hand, play_session
from chinese_poker.engine.actions import iter_placements
from chinese_poker.evaluate import evaluate3
from chinese_poker.rules import Rules, preset_names, rules_for
from chinese_poker.scoring import Hand, settle

OPEN_FACE = [p for p in preset_names() if rules_for(p).is_open_face]


@pytest.mark.parametrize("module", [mc, rollout])
def test_doctests(module: object) -> None:
    assert doctest.testmod(module).failed == 0  # type: ignore[arg-type]


def test_registered_and_built_by_name() -> None:
    assert "mc" in BOTS
    bot = make_bot("MC", seed=3, level=1, time_budget=2.0)
    assert isinstance(bot, MonteCarloBot) and bot.name == "mc"
    assert (bot.level, bot.time_budget) == (1, 2.0)
    assert make_bot("mc").level == mc.DEFAULT_LEVEL  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="level"):
        make_bot("mc", level=99)
    with pytest.raises(ValueError, match="takes no option"):
        make_bot("rules", level=2)
    with pytest.raises(ValueError, match="time_budget"):
        MonteCarloBot(time_budget=0)


@pytest.mark.parametrize("name", ["mc", "mc-v1"])
def test_only_the_established_levels_are_offered(name: str) -> None:
    """Levels 4 and 5 were never shown stronger than level 3 (docs/benchmarks.md, *The
    level ladder*): a player cannot choose them, and the refusal names the range."""
    for level in mc.OFFERED_LEVELS:
        assert make_bot(name, level=level).level == level  # type: ignore[attr-defined]
    for level in (0, 4, 5):
        with pytest.raises(ValueError, match=f"{name} level must be 1 to 3, not {level}"):
            make_bot(name, level=level)
    bot = make_bot(name)
    offered = list(mc.OFFERED_LEVELS)
    assert sorted(bot.levels) == sorted(bot.throwing_levels) == offered  # type: ignore[attr-defined]
    # The default is the strongest offered level.
    assert max(mc.OFFERED_LEVELS) == mc.DEFAULT_LEVEL


@pytest.mark.parametrize("preset", OPEN_FACE)
def test_legal_in_every_open_face_preset_and_player_count(preset: str) -> None:
    rules = rules_for(preset)
    for n in rules.player_counts:
        # A Fantasyland seat now and then: the others sample its hidden deal.
        fl = {1: rules.fantasyland_cards("KK", repeat=False)} if n == 2 else {}
        table = Table(rules, n, seed=n, button=n % 2, fantasyland=fl)
        bots = [MonteCarloBot(seed=i, level=1) for i in range(n)]
        play_hand(table, bots)  # apply() raises on an illegal action
        assert table.over and sum(table.totals.values()) == 0


def test_legal_with_timed_out_and_fantasyland_opponents() -> None:
    rules = rules_for("pineapple")
    table = Table(rules, 3, seed=11, fantasyland={2: 14})
    table.apply(Timeout(1))
    bot = MonteCarloBot(seed=5, level=1)
    while not table.over:
        seat = table.to_act[0]
        action = bot.act(table.view(seat)) if seat == 0 else RandomBot(seed=1).act(
            table.view(seat))  # fmt: skip
        table.apply(action)
    assert table.over


def test_fantasyland_uses_the_exact_solver() -> None:
    rules = rules_for("pineapple-progressive")
    for k in range(3):
        table = Table(rules, 2, seed=k, fantasyland={0: 15 + k})
        dec = table.view(0).decisions[0]
        bot = MonteCarloBot(seed=k, level=1)
        action = bot.act(table.view(0))
        assert isinstance(action, Place) and table.can(action)
        best = solve_fantasyland(dec.cards, rules, stay_value=fantasyland_stay_value(rules, 1))
        assert Board(action.top, action.middle, action.bottom) == best.board
        assert set(action.discard) == set(best.discards)


def test_classic_uses_the_setting_solver() -> None:
    from chinese_poker.ai.setting import solve_setting

    rules = rules_for("classic")
    table = Table(rules, 4, seed=3)
    bots = [MonteCarloBot(seed=i, level=1) for i in range(4)]
    first = table.view(0).decisions[0]
    action = bots[0].act(table.view(0))
    assert isinstance(action, Place)
    best = solve_setting(first.cards, rules, opponents=3).board
    assert Board(action.top, action.middle, action.bottom) == best
    play_hand(table, bots)
    assert table.over
    cc = Table(rules_for("criss-cross"), 2, seed=4)
    play_hand(cc, [MonteCarloBot(seed=1, level=1), MonteCarloBot(seed=2, level=1)])
    assert cc.over


def test_deterministic_with_a_seed() -> None:
    def run() -> list[str]:
        session = Session(rules_for("pineapple"), ["A", "B"], seed=9)
        bots = {"A": make_bot("mc", seed=1, level=1), "B": make_bot("rules", seed=2)}
        results = play_session(session, bots)
        return [str(a) for r in results for a in r.record["actions"]]

    assert run() == run()


def test_time_budget_always_answers_legally(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each reading of the searches' clock is a second later: the budget has run out at
    # the first look, on any machine, and the search still answers with a legal move
    # (how long a budget really takes is measured in bench/, not asserted here).
    fake_search_clock(monkeypatch, tick=1.0)
    rules = rules_for("pineapple")
    table = Table(rules, 2, seed=21)
    bot = MonteCarloBot(seed=1, level=3, time_budget=0.02)
    action = bot.act(table.view(table.to_act[0]))
    assert table.can(action)


def test_last_street_is_exact_and_best() -> None:
    """With every other board complete, the last street is settled exactly: the choice
    must be the best of the placements by the scorer's own numbers."""
    rules = rules_for("ofc")
    table = Table(rules, 2, seed=31, button=1)  # seat 0 acts first, seat 1 last
    bots = [RuleBot(seed=1), RuleBot(seed=2)]
    while not (table.to_act == (1,) and len(table.board(1).cards) == 12):
        s = table.to_act[0]
        table.apply(bots[s].act(table.view(s)))
    view = table.view(1)
    dec = view.decisions[0]
    options = analyse_street(view, dec, mc.LEVELS[1], seed=1)
    assert all(o.rollouts == 1 for o in options)
    truth = []
    for action in iter_placements(dec, view.version):
        b = table.board(1)
        board = Board(b.top + action.top, b.middle + action.middle, b.bottom + action.bottom)
        res = settle(rules, [Hand(name="a", board=board), Hand(name="b", board=table.board(0))])
        truth.append(res.totals["a"] + _fl_bonus(rules, board, res.fouled))
    assert sorted(o.value for o in options) == pytest.approx(sorted(truth))
    assert options[0].value == pytest.approx(max(truth))


def _fl_bonus(rules: Rules, board: Board, fouled: tuple[str, ...]) -> float:
    if "a" in fouled:
        return 0.0
    t = rollout.tables_for(rules)
    return float(t.flv[evaluate3(*board.top) >> 16])


@pytest.mark.parametrize(
    "preset,options",
    [
        ("ofc", {}),
        ("ofc-western", {}),
        ("ofc-hitspoker", {}),
        ("ofc-finnish", {}),
        ("ofc-finnish", {"finnish_deuce_if_holder_fouled": "doubles_opponent_line",
                         "royalty_award": "winner_only"}),
        ("pineapple", {"royalty_award": "cancel", "scoring_method": "two_four"}),
        ("turbo", {"foul_pays_opponent_royalties": False, "overall_unit_rule": "more_lines_won",
                   "scoring_method": "two_four"}),
    ],
)  # fmt: skip
def test_pair_kernel_matches_the_scorer(preset: str, options: dict[str, object]) -> None:
    rules = rules_for(preset, **options)
    rng = random.Random(zlib.crc32(preset.encode()))  # the same deals in every process
    deuce_bias = rules.finnish_deuce
    for _ in range(300):
        deck = list(range(52))
        rng.shuffle(deck)
        if deuce_bias and rng.random() < 0.5:
            deck.remove(0)
            deck.insert(rng.randrange(26), 0)
        boards = []
        for k in range(2):
            cards = deck[13 * k : 13 * k + 13]
            # Sort some lines so that plenty of boards are valid.
            if rng.random() < 0.6:
                cards.sort(key=lambda c: (c >> 2, c & 3))
            boards.append(Board(tuple(cards[:3]), tuple(cards[3:8]), tuple(cards[8:])))
        res = settle(rules, [Hand(name="a", board=boards[0]), Hand(name="b", board=boards[1])])
        got = rollout.kernel_totals(rules, [boards[0].lines, boards[1].lines])[0]
        assert got == res.totals["a"], (str(boards[0]), str(boards[1]))


def test_rarely_fouls() -> None:
    rules = rules_for("pineapple")
    fouls = 0
    hands = 24
    for k in range(hands):
        table = Table(rules, 2, seed=400 + k, button=k % 2)
        play_hand(table, [MonteCarloBot(seed=k, level=1), RuleBot(seed=k)])
        fouls += "P1" in table.settlement.fouled  # type: ignore[union-attr]
    assert fouls <= 6, f"{fouls} fouls in {hands} hands"


def test_beats_random_in_a_duplicate_match() -> None:
    """Each deal twice with the seats swapped; random fouls most boards, so the margin
    is large (about +15 a hand): +6 is far outside the noise of 10 deals."""
    rules = rules_for("pineapple")
    per_deal = []
    for k in range(10):
        total = 0
        for swap in (False, True):
            table = Table(rules, ["mc", "rnd"] if not swap else ["rnd", "mc"], seed=900 + k)
            agents = {"mc": MonteCarloBot(seed=k, level=1), "rnd": RandomBot(seed=k)}
            play_hand(table, [agents[name] for name in table.players])
            total += table.totals["mc"]
        per_deal.append(total / 2)
    assert sum(per_deal) / len(per_deal) > 6.0, per_deal


def test_policy_keeps_a_board_valid() -> None:
    """The playout policy does not put a king on a top pair of kings over a weak middle
    (trips on top would need a middle of a straight or better)."""
    from chinese_poker.cards import parse_cards

    rules = rules_for("pineapple")
    lines = (parse_cards("Kh Kd"), parse_cards("2c 3d"), parse_cards("7s 8s 9s"))
    street = parse_cards("Ks 4h 5c")
    seen = set(street) | {c for line in lines for c in line}
    unseen = [c for c in range(52) if c not in seen]
    for seed in range(5):
        top, middle, bottom, thrown = rollout.policy_place(
            rules, lines, street, 2, unseen, seed=seed
        )
        assert len(top + middle + bottom) == 2 and len(thrown) == 1
        assert parse_cards("Ks")[0] not in top
