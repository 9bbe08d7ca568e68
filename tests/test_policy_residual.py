"""The learned correction of the playout policy (docs/bots-research.md, *Round eleven*): its
features against an independent count, its fit, its use by the policy, the shipped data."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter

import numpy as np
import pytest

from _helpers import table_values
from chinese_poker.ai import residual, rollout
from chinese_poker.ai.rollout import playout, policy
from chinese_poker.cards import card_rank, card_suit
from chinese_poker.engine.actions import iter_placements
from chinese_poker.evaluate import category, evaluate, key_ranks
from chinese_poker.rules import RulesError, rules_for

PINEAPPLE = rules_for("pineapple")

# ------------------------------------------------------------------ an independent oracle


def _made(ranks: list[int]) -> tuple[int, int]:
    """(class so far, key rank) of a partial line, counted."""
    counts = Counter(ranks)
    shape = sorted(counts.values(), reverse=True)
    by = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    if not ranks:
        return 0, 0
    if shape[0] == 4:
        return 5, by[0]
    if shape[0] == 3:
        return (4 if shape[1:2] == [2] else 3), by[0]
    if shape[0] == 2:
        return (2 if shape[1:2] == [2] else 1), by[0]
    return 0, max(ranks)


def _pair_class(rank: int) -> int:
    return 1 if rank <= 3 else 2 if rank <= 7 else 3 if rank <= 9 else 4 if rank <= 11 else 5


def _class(line: list[int]) -> int:
    if len(line) == 5:
        v = evaluate(line)
        cat = category(v)
        if cat == 1:
            return _pair_class(key_ranks(v)[0])
        return {0: 0, 2: 6, 3: 7, 4: 10, 5: 11, 6: 8, 7: 9, 8: 12}[cat]
    cat, rank = _made([card_rank(c) for c in line])
    return _pair_class(rank) if cat == 1 else (0 if cat == 0 else cat + 4)


def _draws(line: list[int]) -> int:
    if not 2 <= len(line) <= 4:
        return 0
    flush = len({card_suit(c) for c in line}) == 1
    ranks = [card_rank(c) for c in line]
    straight = False
    if len(set(ranks)) == len(ranks):
        straight = max(ranks) - min(ranks) <= 4
        low = [r for r in ranks if r != 12]
        straight = straight or (12 in ranks and max(low, default=0) <= 3)
    return 2 * flush + straight


def _oracle(top: list[int], middle: list[int], bottom: list[int]) -> tuple[int, ...]:
    cat, rank = _made([card_rank(c) for c in top])
    if not top:
        f_top, tc = 0, 0
    elif cat == 0:
        f_top, tc = len(top) * 27 + rank, 0
    elif cat == 1:
        f_top, tc = len(top) * 27 + 13 + rank, _pair_class(rank)
    else:
        f_top, tc = len(top) * 27 + 26, 6
    mc, bc = _class(middle), _class(bottom)
    return (
        f_top,
        rollout.RES_OFF_MIDDLE + (len(middle) * 13 + mc) * 4 + _draws(middle),
        rollout.RES_OFF_BOTTOM + (len(bottom) * 13 + bc) * 4 + _draws(bottom),
        rollout.RES_OFF_TOP_MIDDLE + (tc * 13 + mc) * 6 + 5 - len(middle),
        rollout.RES_OFF_MIDDLE_BOTTOM + (mc * 13 + bc) * 6 + 5 - len(bottom),
    )


def _random_board(rng: random.Random) -> tuple[list[int], list[int], list[int]]:
    deck = list(range(52))
    rng.shuffle(deck)
    n = (rng.randint(0, 3), rng.randint(0, 5), rng.randint(0, 5))
    return deck[: n[0]], deck[n[0] : n[0] + n[1]], deck[n[0] + n[1] : sum(n)]


def _structured_board(rng: random.Random) -> tuple[list[int], list[int], list[int]]:
    """Boards with pairs, trips, deuces, flush and wheel draws, which random deals
    rarely make."""
    ranks = rng.sample(range(13), 4)
    if rng.random() < 0.5:
        ranks[0] = 0  # deuces weigh nothing in the code sums
    if rng.random() < 0.3:
        ranks = [12, 0, 1, 3]  # A 2 3 5: a wheel draw
    cards = [r * 4 + s for r in ranks for s in rng.sample(range(4), rng.randint(1, 3))]
    if rng.random() < 0.3:
        suit = rng.randrange(4)
        cards = [r * 4 + suit for r in rng.sample(range(13), 5)]
    cards = list(dict.fromkeys(cards))[:13]
    rng.shuffle(cards)
    lines: list[list[int]] = [[], [], []]
    for c in cards:
        room = [i for i, cap in enumerate((3, 5, 5)) if len(lines[i]) < cap]
        lines[rng.choice(room)].append(c)
    return lines[0], lines[1], lines[2]


def test_the_features_match_an_independent_count() -> None:
    rng = random.Random(7)
    for i in range(3000):
        board = _random_board(rng) if i % 2 else _structured_board(rng)
        assert rollout.residual_features(board, PINEAPPLE) == _oracle(*board), board


def test_the_partial_line_table_tells_apart_lines_that_differ_only_in_deuces() -> None:
    """A deuce weighs 0 in the rank sums: ``Q Q`` and ``Q Q 2 2`` share a sum, and the
    table is read by card count as well."""
    from chinese_poker.cards import parse_cards

    qq = rollout.residual_features([parse_cards("Qh Qd"), [], []], PINEAPPLE)
    assert qq[0] == 2 * 27 + 13 + 10
    two_pair = rollout.residual_features([[], parse_cards("Qh Qd 2c 2s"), []], PINEAPPLE)
    assert two_pair[1] == rollout.RES_OFF_MIDDLE + (4 * 13 + 6) * 4


# ------------------------------------------------------------------ the fit


def test_the_fit_recovers_an_additive_model() -> None:
    rng = np.random.default_rng(3)
    truth = rng.normal(size=rollout.RES_FEATURES)
    n = 40_000
    blocks = [(0, rollout.RES_TOP), (rollout.RES_OFF_MIDDLE, 40), (rollout.RES_OFF_BOTTOM, 40),
              (rollout.RES_OFF_TOP_MIDDLE, 30), (rollout.RES_OFF_MIDDLE_BOTTOM, 30)]  # fmt: skip
    feats = np.stack([lo + rng.integers(0, size, n) for lo, size in blocks], axis=1)
    placed = np.where(rng.random(n) < 0.5, 5, 7)
    y = truth[feats].sum(axis=1) * np.where(placed == 5, 1.0, -1.0)
    table = residual.fit(feats, placed, y + rng.normal(scale=0.1, size=n), ridge=1e-3)
    for k, sign in ((5, 1.0), (7, -1.0)):
        m = placed == k
        fitted = table[k][feats[m]].sum(axis=1)
        assert np.abs(fitted - sign * truth[feats[m]].sum(axis=1)).max() < 0.1
    assert not table[9].any()  # no records, no correction


# ------------------------------------------------------------------ the policy uses it


def _first_street(t: rollout.Tables, seed: int) -> list[int]:
    deck = np.arange(52, dtype=np.int64)
    np.random.default_rng(seed).shuffle(deck)
    code = np.zeros(3, dtype=np.int64)
    cnt = np.zeros(3, dtype=np.int64)
    dz = np.zeros(3, dtype=np.int64)
    scratch = np.empty(52, dtype=np.int64)
    pref = np.zeros((policy.pref_rows(6, 5, t.policy), 14), dtype=np.int64)
    playout.seed_kernels(seed)
    policy.policy_street(code, cnt, dz, deck, 0, 5, 5, 0, 52, 6, 5, 0, *t.policy_tables,
                         scratch, pref)  # fmt: skip
    return [int(x) for x in cnt]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_policy_follows_the_correction_by_its_weight(seed: int) -> None:
    base = rollout.tables_for(rules_for("pineapple"))
    table = np.zeros((14, rollout.RES_FEATURES))
    table[5, 3 * 27 : 4 * 27] = 1000.0  # a full top after the first street
    on = dataclasses.replace(base, residual=table, policy=base.policy.copy())
    on.policy[rollout.POL_RESIDUAL] = 1.0
    off = dataclasses.replace(on, policy=base.policy)  # the same table, weight 0
    assert _first_street(base, seed)[0] < 3
    assert _first_street(on, seed)[0] == 3
    assert _first_street(off, seed) == _first_street(base, seed)


@pytest.mark.parametrize("seed", [1, 2])
def test_the_climb_adds_the_correction_too(seed: int) -> None:
    """With the hill climb of a street's best placements, the climbed totals are
    corrected as the plain ones are."""
    base = rollout.tables_for(rules_for("pineapple")).with_policy(climb=3)
    table = np.zeros((14, rollout.RES_FEATURES))
    table[5, 3 * 27 : 4 * 27] = 1000.0
    on = dataclasses.replace(base, residual=table, policy=base.policy.copy())
    on.policy[rollout.POL_RESIDUAL] = 1.0
    assert _first_street(base, seed)[0] < 3
    assert _first_street(on, seed)[0] == 3


def test_the_feature_blocks_tile_the_table() -> None:
    """Each block's largest index, from its own ranges, lies below the next block's
    offset, and the last fills the table exactly: no two features share a weight."""
    top = 3 * 27 + 26  # three cards, trips
    line = (5 * 13 + 12) * 4 + 3  # five cards, the highest class, both draws
    top_middle = (6 * 13 + 12) * 6 + 5  # trips on top, the highest middle, no card in it
    middle_bottom = (12 * 13 + 12) * 6 + 5
    assert top < rollout.RES_OFF_MIDDLE
    assert rollout.RES_OFF_MIDDLE + line < rollout.RES_OFF_BOTTOM
    assert rollout.RES_OFF_BOTTOM + line < rollout.RES_OFF_TOP_MIDDLE
    assert rollout.RES_OFF_TOP_MIDDLE + top_middle < rollout.RES_OFF_MIDDLE_BOTTOM
    assert rollout.RES_OFF_MIDDLE_BOTTOM + middle_bottom == rollout.RES_FEATURES - 1


@pytest.mark.slow
def test_the_screen_adds_the_correction() -> None:
    from chinese_poker.engine import Table

    table = Table(rules_for("pineapple"), 2, seed=4)
    view = table.view(table.to_act[0])
    sit = rollout.Situation.from_view(view, view.decisions[0])
    cands = [sit.candidate(a) for a in iter_placements(sit.decision, view.version)]
    plain, _ = rollout.static_scores(sit, cands, fills=16, seed=3, choice=5)
    sit.tables = sit.tables.with_policy(residual=1.0)
    corrected, _ = rollout.static_scores(sit, cands, fills=16, seed=3, choice=5)
    code, cnt, _ = sit.arrays(cands)
    t = sit.tables
    expected = table_values(t, code, cnt)
    assert np.allclose(corrected - plain, expected)
    assert np.ptp(expected) > 0.5


@pytest.mark.parametrize(("ours", "theirs", "expected"), [(1.0, -1.0, 1.0), (1.0, 0.0, 0.0),
                                                        (0.0, 1.5, 1.5)])  # fmt: skip
def test_the_opponents_correction_is_ours_unless_a_level_says(
    ours: float, theirs: float, expected: float
) -> None:
    t = rollout.tables_for(rules_for("pineapple")).with_policy(residual=ours, opp_residual=theirs)
    opol = playout.opponent_policy(t.policy)
    assert opol[rollout.POL_RESIDUAL] == expected
    assert t.policy[rollout.POL_RESIDUAL] == ours
    assert t.residual.any()  # the table is loaded whenever either side uses it


# ------------------------------------------------------------------ the shipped tables


def test_the_shipped_tables_are_those_of_their_presets() -> None:
    with open(residual.residual_path(), encoding="utf-8") as f:
        data = json.load(f)
    assert data["features"] == rollout.RES_FEATURES
    assert [e["preset"] for e in data["tables"]] == list(residual.PRESETS)
    for entry in data["tables"]:
        rules = rules_for(entry["preset"])
        assert entry["fingerprint"] == residual.fingerprint(rules)
        assert entry["training"] == residual.TRAINING
        placed = {sum(p for _, p in rules.streets[: k + 1]) for k in range(len(rules.streets) - 1)}
        assert {int(k) for k in entry["rows"]} == placed
        table = residual.residual_table(rules)
        assert table.shape == (14, rollout.RES_FEATURES)
        assert all(table[k].any() for k in placed)


def test_rules_without_a_trained_table_are_refused_by_name() -> None:
    with pytest.raises(RulesError, match="pineapple"):
        residual.residual_table(rules_for("ofc"))
    with pytest.raises(RulesError, match="residual"):
        rollout.tables_for(rules_for("ofc")).with_policy(residual=1.0)
    # Pineapple's streets and royalties, another line order: the policy values differ.
    with pytest.raises(RulesError, match="pineapple"):
        residual.residual_table(rules_for("pineapple", wheel_rank="second_highest"))


@pytest.mark.slow
def test_training_is_reproducible_and_small_runs_work() -> None:
    a = residual.train("pineapple", boards=150, seed=9)
    b = residual.train("pineapple", boards=150, seed=9)
    assert a == b
    assert a["records"] == 150 * 4


def test_the_tool_refuses_no_boards(capsys: pytest.CaptureFixture[str]) -> None:
    assert residual.main(["--boards", "0"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "--boards must be at least 1"
