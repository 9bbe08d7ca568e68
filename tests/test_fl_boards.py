"""``mc`` plays out Fantasyland boards the exact solver ranks below its own: the solver
counts royalties and the stay, and leaves out what the lines win (round sixteen)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from _helpers import bench_module, fake_search_clock
from chinese_poker.ai import mc
from chinese_poker.ai.fantasyland import solve_fantasyland
from chinese_poker.ai.simple import RuleBot
from chinese_poker.cards import Board, parse_cards
from chinese_poker.engine import Table, play_hand
from chinese_poker.engine.actions import Place
from chinese_poker.rules import rules_for
from chinese_poker.scoring import Hand, royalties, settle

# Both boards below pay 6 in royalties, and neither stays. The solver breaks the tie by
# the stronger bottom (a full house) and leaves a king-high middle and a seven-high top;
# the other keeps a flush bottom, trips in the middle and an ace on top.
DEAL = parse_cards("4d 7c Qs 3d Kh Jd 8c Ad 4h Ah 6d 4c 2s Td")
SOLVERS = Board.parse("7c 6d 3d | Kh Qs Jd Td 8c | 4h 4d 4c Ah Ad")
LINED = Board.parse("Ah 8c 7c | 4h 4d 4c Kh Qs | Ad Jd Td 6d 3d")


def _table(seed: int) -> Table:
    rules = rules_for("pineapple")
    rest = [c for c in range(52) if c not in DEAL]
    random.Random(seed).shuffle(rest)
    return Table(rules, 2, deck=[*DEAL, *rest], fantasyland={0: 14})


def _board(action: Any) -> Board:
    assert isinstance(action, Place)
    return Board(action.top, action.middle, action.bottom)


def test_the_deal_is_the_documented_tie() -> None:
    rules = rules_for("pineapple")
    view = _table(0).view(0)
    stay = mc.view_stay_value(view, view.decisions[0])
    assert solve_fantasyland(DEAL, rules, stay_value=stay).board == SOLVERS
    assert sum(royalties(rules, SOLVERS)) == sum(royalties(rules, LINED)) == 6


@pytest.mark.slow
def test_mc_sets_the_stronger_lines_and_they_win_more_against_another_bot() -> None:
    # The oracle is independent of the rollouts: the rules bot plays the opponent's seat
    # on 150 shuffles of the rest of the deck, and the scorer settles both boards against
    # the same opponent boards (a Fantasyland board is face down: they do not depend on it).
    rules = rules_for("pineapple")
    chosen = _board(mc.MonteCarloBot(seed=3).act(_table(0).view(0)))
    assert chosen != SOLVERS
    gain = 0.0
    for k in range(150):
        table = _table(k)
        view = table.view(0)
        table.apply(mc.MonteCarloBot._solver_place(view, view.decisions[0]))
        play_hand(table, {1: RuleBot(seed=k)})
        opp = Hand(name=table.players[1], board=table.board(1))
        for board, sign in ((chosen, 1.0), (SOLVERS, -1.0)):
            me = Hand(name=table.players[0], board=board)
            gain += sign * settle(rules, [me, opp]).totals[table.players[0]]
    assert gain / 150 > 1.0  # points a hand, against the same boards


def test_analysed_boards_are_legal_and_include_the_solvers() -> None:
    table = _table(1)
    view = table.view(0)
    dec = view.decisions[0]
    level = mc.THROWING_LEVELS[3]
    options = mc.analyse_fantasyland(view, dec, level, seed=5)
    assert 2 <= len(options) <= level.fl_boards
    assert all(table.can(o.action) for o in options)
    boards = [_board(o.action) for o in options]
    assert SOLVERS in boards and LINED in boards and len(set(boards)) == len(boards)
    most = max(o.rollouts for o in options)
    survivors = [o.value for o in options if o.rollouts == most]
    assert options[0].rollouts == most and survivors == sorted(survivors, reverse=True)
    assert all(o.foul_probability == 0.0 for o in options)  # a set board never fouls


@pytest.mark.parametrize("bot", [mc.MonteCarloBotV1(seed=1), mc.MonteCarloBot(seed=1, level=2)])
def test_levels_without_boards_set_the_solvers_board(bot: Any) -> None:
    view = _table(2).view(0)
    assert _board(bot.act(view)) == SOLVERS


def test_the_opponents_boards_do_not_depend_on_the_fantasyland_board() -> None:
    # What the bench rests on: the Fantasyland board is face down, so the other seats
    # play the same hand whichever board seat 0 sets.
    boards = []
    for board in (SOLVERS, LINED):
        table = _table(5)
        view = table.view(0)
        dec = view.decisions[0]
        thrown = tuple(c for c in DEAL if c not in board.cards)
        table.apply(Place(0, board.top, board.middle, board.bottom, thrown, dec.hand,
                          view.version))  # fmt: skip
        play_hand(table, {1: mc.MonteCarloBot(seed=9, level=1)})
        boards.append(table.board(1))
    assert boards[0] == boards[1]


def test_the_bench_settles_both_boards(capsys: Any) -> None:
    bench = bench_module("bench_fl_boards")
    spec = bench_module("bench_mc_bots").BotSpec
    # mc-v1 sets the solver's board: nothing differs, nothing is gained.
    same = bench.run("pineapple", 3, 11, 14, 2, spec("mc-v1:1"), spec("rules"))
    assert (same["boards_differ"], same["gain_per_fantasyland_hand"], same["ci95"]) == (0, 0, 0)
    row = bench.run("ofc", 6, 11, 13, 2, spec("mc:1:fl_boards=4"), spec("rules"))
    assert row["deals"] == 6 and row["boards_differ"] > 0
    assert row["gain_per_fantasyland_hand"] == pytest.approx(row["points"] + row["stays"])
    for argv, message in ((["--deals", "1"], "--deals must be at least 2"),
                          (["--preset", "classic"], "no open-face Fantasyland"),
                          (["--cards", "12"], "--cards must be 13 to 17"),
                          (["--players", "5"], "not a table size")):  # fmt: skip
        assert bench.main(argv) == 2
        assert message in capsys.readouterr().err


def test_a_tight_budget_sets_the_solvers_board_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # The searches read a clock that only the test moves: a budget is "tight" or "roomy"
    # by its size, not by how busy the machine is while the boards are searched.
    fake_search_clock(monkeypatch)
    bot = mc.MonteCarloBot(seed=4, time_budget=mc.FL_BOARDS_MIN_SECONDS / 2)
    action = bot.act(_table(3).view(0))
    assert _board(action) == SOLVERS
    roomy = mc.MonteCarloBot(seed=4, time_budget=1.0).act(_table(3).view(0))
    assert _board(roomy) != SOLVERS
