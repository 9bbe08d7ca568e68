"""The learned value refined on ``mc``'s search means (docs/bots-research.md, *Round fourteen*):
the within-decision regression against a dense computation, a planted table recovered,
the self-play samples, the shipped table, the switch and its refusals."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from chinese_poker.ai import rollout, value
from chinese_poker.ai.mc import MonteCarloBot
from chinese_poker.ai.residual import fingerprint
from chinese_poker.ai.rollout import BoardValue
from chinese_poker.engine import Table, play_hand
from chinese_poker.rules import RulesError, rules_for

PINEAPPLE = rules_for("pineapple")


def _random_samples(rng: np.random.Generator, decisions: int, n_features: int) -> tuple:
    """Rows grouped by decision, each with five one-hot features from five disjoint
    blocks (as the board's five feature indices are)."""
    sizes = rng.integers(1, 9, size=decisions)
    decision = np.repeat(np.arange(decisions), sizes)
    block = n_features // 5
    feats = np.stack([rng.integers(0, block, size=len(decision)) + b * block for b in range(5)], 1)
    return decision, feats.astype(np.int64)


def test_the_normal_equations_within_decisions_match_a_dense_computation() -> None:
    rng = np.random.default_rng(1)
    n_features = 40
    decision, feats = _random_samples(rng, 60, n_features)
    y = rng.normal(size=len(decision))
    gram, rhs = value._demeaned_normal(decision, feats, y, n_features)
    # The oracle: the one-hot matrix, each decision's mean row taken out of X and y.
    x = np.zeros((len(decision), n_features))
    for r, row in enumerate(feats):
        x[r, row] += 1.0
    xd, yd = x.copy(), y.copy()
    for d in np.unique(decision):
        m = decision == d
        xd[m] -= x[m].mean(axis=0)
        yd[m] -= y[m].mean()
    assert np.allclose(gram, xd.T @ xd)
    assert np.allclose(rhs, xd.T @ yd)


def test_refine_recovers_a_planted_order_and_charges_the_aversion() -> None:
    rng = np.random.default_rng(2)
    n = rollout.RES_FEATURES
    decision, feats = _random_samples(rng, 3000, 200)  # indices below 200 only
    base = np.zeros((14, n))
    base[7, :200] = rng.normal(size=200)  # the table the players placed by
    base[[5, 9, 11], :200] = 1.0
    true = base[7].copy()
    true[:200] += rng.normal(size=200)  # what the search's means say
    offset = rng.normal(scale=5.0, size=3000)[decision]  # each decision's own level
    foul = rng.random(len(decision))
    mean = offset + true[feats].sum(axis=1) + 4.0 * foul
    placed = np.full(len(decision), 7, dtype=np.int64)
    order = rng.permutation(len(decision))  # refine sorts the rows by decision itself
    samples = value.SearchSamples(decision[order], placed, feats[order], mean[order],
                                  foul[order], base[7][feats[order]].sum(axis=1),
                                  np.full(len(order), 200))  # fmt: skip
    table = value.refine(samples, base, aversion=4.0, ridge=1e-6)
    fitted = table[7][feats].sum(axis=1)
    planted = true[feats].sum(axis=1)
    for d in range(0, 3000, 97):  # differences within a decision are what the policy reads
        m = decision == d
        assert np.allclose(fitted[m] - fitted[m][0], planted[m] - planted[m][0], atol=1e-3)
    assert np.array_equal(table[[5, 9, 11]], base[[5, 9, 11]])  # rows with no samples
    with pytest.raises(ValueError, match="ridge"):
        value.refine(samples, base, aversion=4.0, ridge=0.0)
    with pytest.raises(ValueError, match="another table"):
        value.refine(samples, np.zeros((14, n)), aversion=4.0)


def test_joined_samples_keep_their_decisions_apart() -> None:
    one = value.SearchSamples(np.array([0, 0, 1]), np.full(3, 5), np.zeros((3, 5), np.int64),
                              np.zeros(3), np.zeros(3), np.zeros(3), np.full(3, 8))  # fmt: skip
    joined = value.SearchSamples.join([one, one])
    assert joined.decision.tolist() == [0, 0, 1, 2, 2, 3]
    assert joined.features.shape == (6, 5) and joined.rollouts.tolist() == [8] * 6


def test_the_sessions_are_split_into_blocks_of_nearly_equal_size() -> None:
    assert value.session_blocks(10, 6, 4) == [(10, 2), (12, 2), (14, 1), (15, 1)]
    assert value.session_blocks(950_000, 1200, 2) == [(950_000, 600), (950_600, 600)]
    for sessions, workers in ((5, 4), (7, 3), (9, 9)):
        blocks = value.session_blocks(0, sessions, workers)
        assert sum(n for _, n in blocks) == sessions and min(n for _, n in blocks) >= 1
        assert [f for f, _ in blocks] == [sum(n for _, n in blocks[:b]) for b in range(workers)]
    with pytest.raises(ValueError, match="workers"):
        value.session_blocks(0, 3, 4)


def test_search_samples_analyse_every_candidate_alike_and_repeat_for_a_seed() -> None:
    a = value.search_samples(PINEAPPLE, 11, 1, level=1, rollouts=8)
    b = value.search_samples(PINEAPPLE, 11, 1, level=1, rollouts=8)
    assert np.array_equal(a.mean, b.mean) and np.array_equal(a.features, b.features)
    assert set(np.unique(a.placed)) == {5, 7, 9, 11}  # every street but the last
    assert (a.rollouts == 8).all()  # no successive halving: every candidate alike
    table = value.value_table(PINEAPPLE)
    assert np.allclose(a.base, table[a.placed[:, None], a.features].sum(axis=1))
    assert ((a.foul >= 0) & (a.foul <= 1)).all()
    level = MonteCarloBot.throwing_levels[1]
    for d in np.unique(a.decision):
        rows = a.decision == d
        (k,) = set(a.placed[rows])
        # The first street's screen keeps the level's candidates; a later street of three
        # cards has at most 3 discards x 9 ways to place two.
        assert rows.sum() == level.candidates if k == 5 else 1 <= rows.sum() <= 27
    with pytest.raises(ValueError, match="learned value"):
        value.search_samples(PINEAPPLE, 1, 1, kind=BoardValue.NONE)


def test_the_shipped_search_table_says_how_it_was_made() -> None:
    with open(value.search_value_path(), encoding="utf-8") as f:
        data = json.load(f)
    assert data["features"] == rollout.RES_FEATURES
    assert [e["preset"] for e in data["tables"]] == list(value.SEARCH_PRESETS)
    for entry in data["tables"]:
        rules = rules_for(entry["preset"])
        assert entry["fingerprint"] == fingerprint(rules)
        assert entry["training"] == value.SEARCH_TRAINING
        refined = value.value_table(rules, BoardValue.SEARCH)
        iterated = value.value_table(rules, BoardValue.ITERATED)
        for k in (5, 7, 9, 11):
            assert not np.array_equal(refined[k], iterated[k])  # each row was refined


def test_the_switch_reads_the_table_of_its_kind() -> None:
    base = rollout.tables_for(PINEAPPLE)
    for kind in (BoardValue.ITERATED, BoardValue.SEARCH):
        read = base.with_policy(value=int(kind)).residual
        assert np.array_equal(read, value.value_table(PINEAPPLE, kind))
    assert not np.array_equal(base.with_policy(value=1).residual,
                              base.with_policy(value=2).residual)  # fmt: skip


def test_the_search_table_is_refused_where_none_was_trained() -> None:
    with pytest.raises(RulesError, match="search"):
        value.value_table(rules_for("ofc"), BoardValue.SEARCH)
    with pytest.raises(ValueError, match="no table"):
        value.value_table(PINEAPPLE, BoardValue.NONE)
    with pytest.raises(ValueError, match=r"0 \(none\), 1 \(iterated\), 2 \(search\), 3 \(live\)"):
        dataclasses.replace(MonteCarloBot.throwing_levels[3], value=4)


def test_the_tool_refuses_bad_sessions(capsys: pytest.CaptureFixture[str]) -> None:
    assert value.main(["--search", "--sessions", "0"]) == 2
    assert value.main(["--search", "--sessions", "2", "--workers", "3"]) == 2
    assert "--sessions must be at least 1" in capsys.readouterr().err
    assert value.main(["--search", "--boards", "100"]) == 2
    assert "--boards is for value iteration" in capsys.readouterr().err


def test_mc_with_the_search_value_plays_legal_hands() -> None:
    bot = MonteCarloBot(seed=5, level=1)
    bot.throwing_params = dataclasses.replace(
        bot.throwing_params, value=int(BoardValue.SEARCH), fills=0, screen_fills=0
    )
    for seed in (1, 2):
        table = Table(PINEAPPLE, 2, seed=seed)
        play_hand(table, [bot, MonteCarloBot(seed=6, level=1)])
        assert table.over
    assert bot.last_analysis
