"""The fast policy's line-strength tables: how they are estimated, and what a level reads."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random

import numpy as np
import pytest

from chinese_poker.ai import rollout
from chinese_poker.ai.mc import THROWING_LEVELS, V1_LEVELS, analyse_street
from chinese_poker.ai.rollout import LineStrength, strength_from_values, strength_table
from chinese_poker.engine import Table
from chinese_poker.rules import rules_for


def _valid_buckets(line: int) -> list[int]:
    return [
        h
        for h in range(256)
        if h >> 4 <= 8 and 2 <= h & 15 <= 14 and (line > 0 or h >> 4 in (0, 1, 3))
    ]


def test_the_estimate_counts_weaker_and_stronger_lines_like_a_plain_count() -> None:
    rng = random.Random(7)
    buckets = [_valid_buckets(line) for line in range(3)]
    values = [[rng.choice(buckets[line][:20]) << 16 for line in range(3)] for _ in range(300)]
    rows = strength_from_values(values)
    for line in range(3):
        seen = [v[line] >> 16 for v in values]
        for h, below, above in rows[line]:
            assert below == pytest.approx(sum(x < h for x in seen) / len(seen), abs=6e-5)
            assert above == pytest.approx(sum(x > h for x in seen) / len(seen), abs=6e-5)


@pytest.mark.parametrize("kind", list(LineStrength))
def test_a_stronger_line_is_never_worth_less(kind: LineStrength) -> None:
    table = strength_table(kind)
    assert table.shape == (3, 256)
    assert not table.flags.writeable
    for line in range(3):
        col = [table[line, h] for h in _valid_buckets(line)]
        assert all(-1.0 <= x <= 1.0 for x in col)
        assert all(a <= b + 1e-12 for a, b in itertools.pairwise(col)), line
        assert col[-1] > col[0]


def test_the_table_estimate_is_the_data_it_names() -> None:
    with open(rollout.strength_table_path(), encoding="utf-8") as f:
        doc = json.load(f)
    hands = sum(b - a for a, b in doc["hand_seeds"])
    assert doc["boards"] == 2 * hands  # both boards of every heads-up hand
    assert 0.8 * doc["boards"] < doc["valid"] <= doc["boards"]
    assert len(doc["lines"]) == 3
    for line, rows in enumerate(doc["lines"]):
        assert [r[0] for r in rows] == _valid_buckets(line)
        for _, below, above in rows:
            assert below >= 0.0
            assert above >= 0.0
            assert below + above <= 1.0
    # Boards made at the table are stronger than the policy's alone: a pair of aces in
    # the middle, or a flush in the bottom, beats fewer of them.
    table, alone = strength_table(LineStrength.TABLE), strength_table(LineStrength.POLICY)
    assert table[1, 0x1E] < alone[1, 0x1E]
    assert table[2, 0x5E] < alone[2, 0x5E]


def test_a_level_reads_the_table_it_names_and_nothing_else_changes() -> None:
    base = rollout.tables_for(rules_for("pineapple"))
    level = THROWING_LEVELS[3]
    kw = dict(repair=level.foul_repair, fl_per_opponent=bool(level.fl_per_opponent))
    alone = base.with_policy(**kw)  # type: ignore[arg-type]
    table = base.with_policy(line_strength=LineStrength.TABLE, **kw)  # type: ignore[arg-type]
    assert np.array_equal(alone.strength, strength_table(LineStrength.POLICY))
    assert np.array_equal(table.strength, strength_table(LineStrength.TABLE))
    assert np.array_equal(alone.policy, table.policy)
    assert np.array_equal(alone.flv, table.flv)
    # mc-v1's levels, and mc's, keep the policy's own table.
    assert all(v.line_strength is LineStrength.POLICY for v in V1_LEVELS.values())
    assert all(v.line_strength is LineStrength.POLICY for v in THROWING_LEVELS.values())


@pytest.mark.parametrize("kind", list(LineStrength))
def test_the_rollouts_of_a_level_get_its_table(
    kind: LineStrength, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[np.ndarray] = []
    real = rollout.run_rollouts

    def spy(sit: rollout.Situation, *args: object, **kwargs: object) -> object:
        seen.append(sit.tables.strength)
        return real(sit, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(rollout, "run_rollouts", spy)
    table = Table(rules_for("pineapple"), 2, seed=4)
    view = table.view(table.to_act[0])
    level = dataclasses.replace(V1_LEVELS[1], rollouts=8, line_strength=kind)
    analyse_street(view, view.decisions[0], level, seed=1)
    assert len(seen) == 1
    assert np.array_equal(seen[0], strength_table(kind))
