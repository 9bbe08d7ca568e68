"""The learned value of a partial board (docs/bots-research.md, *Round twelve*): its targets
against an exhaustive count with an independent evaluator, the policy and the screen
that read it instead of completions, its training, the shipped data, and ``mc`` with it."""

from __future__ import annotations

import dataclasses
import itertools
import json

import numpy as np
import pytest

from _helpers import table_values
from chinese_poker.ai import rollout, value
from chinese_poker.ai.mc import MonteCarloBot
from chinese_poker.ai.residual import fingerprint
from chinese_poker.ai.rollout import playout, policy
from chinese_poker.cards import parse_cards
from chinese_poker.engine import Table, play_hand
from chinese_poker.engine.actions import iter_placements
from chinese_poker.evaluate import evaluate
from chinese_poker.rules import RulesError, rules_for

PINEAPPLE = rules_for("pineapple")


def _policy_value(t: rollout.Tables, lines: list[list[int]]) -> float:
    """The policy's value of a finished board, from ``evaluate`` (not code sums)."""
    vt, vm, vb = (evaluate(line) for line in lines)
    if vt > vm or vm > vb:
        return -float(t.policy[rollout.POL_FOUL_PENALTY])
    w = float(t.policy[rollout.POL_W])
    hs = [vt >> 16, vm >> 16, vb >> 16]
    return float(sum(t.roy[i, h] + w * t.strength[i, h] for i, h in enumerate(hs)) + t.flv[hs[0]])


def _exhaustive_last_street(t: rollout.Tables, lines: list[list[int]], unseen: list[int]) -> float:
    """The mean, over every three cards of ``unseen``, of the best way to put two of
    them in the board's two open slots."""
    slots = [i for i, size in enumerate((3, 5, 5)) for _ in range(size - len(lines[i]))]
    assert len(slots) == 2
    total = 0.0
    n = 0
    for street in itertools.combinations(unseen, 3):
        best = -1e300
        for kept in itertools.permutations(street, 2):
            board = [list(x) for x in lines]
            for line, card in zip(slots, kept, strict=True):
                board[line].append(card)
            best = max(best, _policy_value(t, board))
        total += best
        n += 1
    return total / n


@pytest.mark.slow
def test_the_last_street_target_is_the_exhaustive_mean() -> None:
    t = rollout.tables_for(PINEAPPLE)
    lines = [list(parse_cards(x)) for x in ("Qh Qd", "9s 9c 4d 4h", "Ah Kh 7h 2h Th")]
    thrown = list(parse_cards("3c 5d 8s"))
    dealt = [c for line in lines for c in line] + thrown
    unseen = [c for c in range(52) if c not in dealt][:24]  # a short deck: a fast count
    expected = _exhaustive_last_street(t, lines, unseen)
    deck = np.array(dealt + unseen, dtype=np.int64)
    decks = np.zeros((1, 52), dtype=np.int64)
    decks[0, : len(deck)] = deck
    code = np.array([[sum(int(t.codes[c]) for c in line) for line in lines]], dtype=np.int64)
    cnt = np.array([[len(line) for line in lines]], dtype=np.int64)
    # The kernel draws from cards dealt + unseen .. 52: put the cut where the short deck ends.
    pos = np.array([52 - len(unseen)], dtype=np.int64)
    decks[0, pos[0] :] = unseen
    out = np.zeros(1)
    value._targets(np.array([0]), decks, code, cnt, pos, np.array([0]), 3, 2, 1, 20_000, 5, 0,
                   t.policy_tables, out)  # fmt: skip
    # 20,000 draws: the standard error is below 0.1 point for a spread of about 12.
    assert out[0] == pytest.approx(expected, abs=0.4)
    assert abs(expected) > 1.0  # a board with something to lose and to win


def _first_street(t: rollout.Tables, seed: int, fills: int) -> list[int]:
    deck = np.arange(52, dtype=np.int64)
    np.random.default_rng(seed).shuffle(deck)
    code = np.zeros(3, dtype=np.int64)
    cnt = np.zeros(3, dtype=np.int64)
    dz = np.zeros(3, dtype=np.int64)
    scratch = np.empty(52, dtype=np.int64)
    pref = np.zeros((policy.pref_rows(fills, 5, t.policy), 14), dtype=np.int64)
    playout.seed_kernels(seed)
    policy.policy_street(code, cnt, dz, deck, 0, 5, 5, 0, 52, fills, 5, 0, *t.policy_tables,
                         scratch, pref)  # fmt: skip
    return [int(x) for x in cnt]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_policy_without_completions_places_by_the_table(seed: int) -> None:
    base = rollout.tables_for(PINEAPPLE)
    table = np.zeros((14, rollout.RES_FEATURES))
    table[5, 3 * 27 : 4 * 27] = 10.0  # a full top after the first street
    on = dataclasses.replace(base, residual=table)
    assert _first_street(on, seed, fills=0)[0] == 3
    table = np.zeros((14, rollout.RES_FEATURES))
    bottom_five = rollout.RES_OFF_BOTTOM + 5 * 13 * 4
    table[5, bottom_five : bottom_five + 13 * 4] = 10.0  # five cards in the bottom
    assert _first_street(dataclasses.replace(base, residual=table), seed, fills=0) == [0, 0, 5]
    # With completions the same table is a correction of weight 0: not read.
    assert _first_street(on, seed, fills=6) == _first_street(base, seed, fills=6)


@pytest.mark.slow
def test_the_screen_without_completions_is_the_table() -> None:
    table = Table(PINEAPPLE, 2, seed=4)
    view = table.view(table.to_act[0])
    sit = rollout.Situation.from_view(view, view.decisions[0])
    sit.tables = sit.tables.with_policy(value=True)
    cands = [sit.candidate(a) for a in iter_placements(sit.decision, view.version)]
    scores, fouls = rollout.static_scores(sit, cands, fills=0, seed=3, choice=5)
    code, cnt, _ = sit.arrays(cands)
    t = sit.tables
    expected = table_values(t, code, cnt)
    assert np.allclose(scores, expected)
    assert not fouls.any()
    assert np.ptp(expected) > 1.0


def test_the_value_and_the_correction_cannot_share_the_table() -> None:
    with pytest.raises(ValueError, match="share one table"):
        rollout.tables_for(PINEAPPLE).with_policy(value=True, residual=1.0)


def _solitaire_value(t: rollout.Tables, fills: int, boards: int = 1500) -> float:
    st = PINEAPPLE.streets
    out = np.zeros((boards, 3), dtype=np.int64)
    streets = (np.array([d for d, _ in st]), np.array([p for _, p in st]),
               np.array([d - p for d, p in st]))  # fmt: skip
    playout.solitaire(boards, 77, streets, fills, 5, t.policy_tables, out)
    w, fp = float(t.policy[rollout.POL_W]), float(t.policy[rollout.POL_FOUL_PENALTY])
    return float(np.mean([policy.lines_value(int(a), int(b), int(c), t.roy, t.flv,
                                             t.strength, w, fp) for a, b, c in out]))  # fmt: skip


@pytest.mark.slow
def test_value_iteration_learns_a_policy_and_is_reproducible() -> None:
    tables = value.iterate(PINEAPPLE, boards=1500, iterations=2, seed=3)
    again = value.iterate(PINEAPPLE, boards=1500, iterations=2, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(tables, again, strict=True))
    base = rollout.tables_for(PINEAPPLE).with_policy(repair=1)
    untrained = _solitaire_value(base, fills=0)  # every placement worth 0: the first legal
    trained = _solitaire_value(dataclasses.replace(base, residual=tables[-1]), fills=0)
    assert trained > untrained + 5.0


def test_the_shipped_tables_are_those_of_their_presets() -> None:
    with open(value.value_path(), encoding="utf-8") as f:
        data = json.load(f)
    assert data["features"] == rollout.RES_FEATURES
    assert [e["preset"] for e in data["tables"]] == list(value.PRESETS)
    for entry in data["tables"]:
        rules = rules_for(entry["preset"])
        assert entry["fingerprint"] == fingerprint(rules)
        assert entry["training"] == value.TRAINING
        placed = {sum(p for _, p in rules.streets[: k + 1]) for k in range(len(rules.streets) - 1)}
        assert {int(k) for k in entry["rows"]} == placed
        table = value.value_table(rules)
        assert all(table[k].any() for k in placed)


def test_rules_without_a_trained_value_are_refused_by_name() -> None:
    with pytest.raises(RulesError, match="pineapple"):
        value.value_table(rules_for("ofc-western"))  # its own royalties: not OFC's table
    with pytest.raises(RulesError, match="board value"):
        rollout.tables_for(rules_for("turbo")).with_policy(value=True)


def test_the_tool_refuses_no_boards(capsys: pytest.CaptureFixture[str]) -> None:
    assert value.main(["--boards", "0"]) == 2
    assert capsys.readouterr().err.strip() == "--boards must be at least 1"


@pytest.mark.parametrize("preset", value.PRESETS)
def test_mc_with_the_learned_value_plays_legal_hands(preset: str) -> None:
    bot = MonteCarloBot(seed=5, level=1)
    switch = {"value": 1, "fills": 0, "screen_fills": 0}
    bot.params = dataclasses.replace(bot.params, **switch)  # OFC's levels
    bot.throwing_params = dataclasses.replace(bot.throwing_params, **switch)
    for seed in (1, 2):
        table = Table(rules_for(preset), 2, seed=seed)
        play_hand(table, [bot, MonteCarloBot(seed=6, level=1)])
        assert table.over
    assert bot.last_analysis  # it decided its streets by rollouts


@pytest.mark.parametrize(("fills", "screen_fills"), [(0, 160), (8, 0)])
def test_a_level_without_completions_needs_the_learned_value(fills: int, screen_fills: int) -> None:
    level = MonteCarloBot.throwing_levels[3]
    with pytest.raises(ValueError, match="needs value=1"):
        dataclasses.replace(level, fills=fills, screen_fills=screen_fills)
    assert dataclasses.replace(level, fills=fills, screen_fills=screen_fills, value=1).value == 1


def test_solitaire_without_completions_needs_the_learned_value() -> None:
    with pytest.raises(ValueError, match="needs the learned value"):
        rollout.solitaire_values(PINEAPPLE, 10, fills=0)


def test_rules_with_the_same_kernel_arrays_share_a_table() -> None:
    # Finnish OFC differs from OFC only in settlement (the deuce), which the policy does
    # not value: it reads OFC's table (docs/bots-research.md, *Round thirteen*).
    finnish, ofc = rules_for("ofc-finnish"), rules_for("ofc")
    assert fingerprint(finnish) == fingerprint(ofc)
    assert np.array_equal(value.value_table(finnish), value.value_table(ofc))
    for preset in ("ofc-western", "ofc-hitspoker"):  # their own royalties or streets
        assert fingerprint(rules_for(preset)) != fingerprint(ofc)
