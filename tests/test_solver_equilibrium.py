"""The equilibrium opponent model (fictitious play) and how the solver picks its table."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from chinese_poker.ai import equilibrium, setting_tables
from chinese_poker.ai.equilibrium import fictitious_play, require_modelled
from chinese_poker.ai.setting import (
    evaluate_hand,
    expected_points,
    heuristic_setter,
    random_setting,
    score_terms,
    solve_setting,
    solve_with_table,
)
from chinese_poker.ai.setting_tables import (
    FAMILIES,
    OpponentTable,
    family_cache_path,
    family_digest,
    family_key,
    family_path,
    load_table,
    mode_of,
    table_for,
)
from chinese_poker.cards import parse_cards
from chinese_poker.rules import Rules, RulesError, rules_for
from chinese_poker.scoring import Hand, settle

FAMILY = FAMILIES["two_four-plain"]


#: Presets (and aliases) -> the shipped family their rules belong to.
PRESET_FAMILIES = {
    "classic": "classic",
    "criss-cross": "classic",
    "capsa-susun": "classic",
    "pusoy": "classic",
    "classic-1-6": "classic-1-6",
    "classic-low-middle": "classic-low-middle",
    "classic-wheel": "classic-wheel",
}

#: Options that change what a setting is worth, each relative to ``classic``.
VALUE_CHANGES: list[dict[str, object]] = [
    {"scoring_method": "one_six"},
    {"scoring_method": "one_six", "surrender_cost": 4},
    {"overall_unit_rule": "more_lines_won"},
    {"foul_penalty": 5},
    {"foul_pays_opponent_royalties": False},
    {"misset_rule": "ignore"},
    {"royalty_table": "none"},
    {"royalty_table": "american"},
    {"royalty_table": "american", "middle_trips_royalty": 0},  # (classic has none)
    {"royalty_award": "net"},
    {"max_royalties_per_hand": 1},
    {"finnish_deuce": True},
    {"surrender_allowed": False},
    {"naturals_enabled": False},
    {"natural_values": "dragon=26,six_pairs=3,three_flushes=3,three_straights=3"},
    {"middle_mode": "lowball_2_7"},
    {"wheel_rank": "second_highest"},
]


def test_family_key_names_the_family_of_every_classic_preset() -> None:
    for preset, name in PRESET_FAMILIES.items():
        assert family_key(rules_for(preset)) == name, preset
    assert family_key(FAMILY) == "two_four-plain"
    # The money value of a point, session options, time limits: the same family.
    assert family_key(FAMILY.replace(unit_value=5)) == "two_four-plain"
    assert family_key(rules_for("classic", time_limit=30, starting_chips=50)) == "classic"


def test_family_key_separates_every_option_that_changes_a_settings_worth() -> None:
    keys = {"classic": family_key(rules_for("classic"))}
    for change in VALUE_CHANGES:
        keys[repr(change)] = family_key(rules_for("classic", **change))
    assert len(set(keys.values())) == len(keys), keys
    # Stable across processes: a digest of the options, not Python's salted hash.
    code = ("from chinese_poker.ai.setting_tables import family_digest;"
            "from chinese_poker.rules import rules_for;"
            "print(family_digest(rules_for('classic-1-6', surrender_cost=4)))")  # fmt: skip
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONHASHSEED": "123"})  # fmt: skip
    assert other.stdout.strip() == family_digest(rules_for("classic-1-6", surrender_cost=4))


def _settlements(rules: Rules, deals: list[list[list[int]]]) -> list[int]:
    out = []
    surrender = rules.spec.scoring.surrender_cost is not None
    for hands in deals:
        seats = []
        for i, cards in enumerate(hands):
            board = random_setting(cards, rules, np.random.default_rng(i))
            seats.append(
                Hand(name=f"p{i}", board=board, surrender=i == 2 and surrender, dealt=tuple(cards))
            )
        out.extend(settle(rules, seats).totals[f"p{i}"] for i in range(len(hands)))
    return out


@pytest.mark.slow
def test_rules_of_one_family_settle_every_board_alike() -> None:
    """An independent oracle for the key: the scorer. Rules in one family settle the same
    boards to the same points; rules that settle any of them differently differ in key."""
    rng = np.random.default_rng(11)
    deals = []
    for _ in range(60):
        deck = [int(c) for c in rng.permutation(52)]
        deals.append([deck[13 * i : 13 * i + 13] for i in range(4)])
    dragon = parse_cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    rest = [c for c in range(52) if c not in dragon]
    deals.append([list(dragon), rest[:13], rest[13:26], rest[26:39]])
    variants = [rules_for("classic"), rules_for("capsa-susun"), rules_for("classic", unit_value=3),
                *(rules_for("classic", **change) for change in VALUE_CHANGES)]  # fmt: skip
    variants = [r for r in variants if not r.spec.scoring.lowball_middle]  # other boards
    points = [_settlements(r, deals) for r in variants]
    for i, a in enumerate(variants):
        for j in range(i):
            if points[i] != points[j]:
                assert family_key(a) != family_key(variants[j])
    assert points[0] == points[1] == points[2] and family_key(variants[2]) == "classic"


def test_every_shipped_family_table_loads_and_serves_its_presets() -> None:
    for name, rules in FAMILIES.items():
        path = family_path(name)
        assert path.is_file(), f"no table ships for {name}"
        table = OpponentTable.load(path)
        assert table.meta["family"] == name and table.mode == mode_of(rules)
        assert table.meta["digest"] == family_digest(rules)
        assert table.setter == f"fp-{table.meta['stages']}"
        assert len(table.meta["gains"]) == table.meta["stages"]
    for preset, name in PRESET_FAMILIES.items():
        table = table_for(rules_for(preset))
        assert table.meta["family"] == name, preset
        assert table.counts[1].sum() == OpponentTable.load(family_path(name)).counts[1].sum()


def test_a_table_built_on_demand_is_cached_and_found_for_its_family_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CHINESE_POKER_CACHE", str(tmp_path))
    mine = rules_for("classic", royalty_table="american", unit_value=2)
    other = rules_for("classic", royalty_table="western")
    table_for.cache_clear()
    try:
        assert table_for(mine).meta == load_table("high").meta  # nothing built yet
        table_for.cache_clear()
        argv = ["--rules", "classic", "--set", "royalty_table=american", "--hands", "60"]
        code = equilibrium.main([*argv, "--eval-hands", "6", "--max-stages", "2"])
        assert code == 0
        path = family_cache_path(mine)
        assert path.parent == tmp_path and path.is_file()
        assert family_digest(mine) in path.name and str(path) in capsys.readouterr().out
        built = table_for(mine)
        assert built.meta["digest"] == family_digest(mine) and built.meta["stages"] == 2
        assert built.hands == 120 and "--set royalty_table=american" in built.meta["command"]
        # Another family (other royalties) does not use it.
        assert table_for(other).meta == load_table("high").meta
        # A shipped family is still served its shipped table.
        assert table_for(rules_for("classic")).meta["family"] == "classic"
        # A file under the family's name that is another family's table is not trusted.
        OpponentTable.load(family_path("classic-wheel")).save(family_cache_path(other))
        table_for.cache_clear()
        assert table_for(other).meta == load_table("high").meta
    finally:
        table_for.cache_clear()


def test_the_solver_uses_the_family_table_when_it_ships(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = table_for(FAMILY)
    assert table.setter.startswith("fp-") and table.meta["family"] == "two_four-plain"
    cards = parse_cards("Ks 2s 6h Ah 4h Ad 7h 3d Qc 2d 7s Jh Qd")
    assert solve_setting(cards, FAMILY) == solve_with_table(cards, FAMILY, table)
    # Rules of no shipped family and nothing cached: the mode's table.
    monkeypatch.setenv("CHINESE_POKER_CACHE", str(tmp_path))
    lone = rules_for("classic-wheel", royalty_table="american")
    table_for.cache_clear()
    try:
        assert table_for(lone).meta == load_table("wheel").meta
    finally:
        table_for.cache_clear()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"natural_claim": "optional"}, "natural that is chosen"),
        ({"natural_source": "set_board"}, "natural that is chosen"),
        ({"max_royalties_per_hand": 1}, "cap"),
        ({"finnish_deuce": True}, "Finnish deuce"),
        ({"variant": "ofc"}, "variant"),
    ],
)  # fmt: skip
def test_what_the_model_cannot_represent_is_refused(
    change: dict[str, object], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    preset = "ofc" if change.get("variant") == "ofc" else "classic"
    opts = {k: v for k, v in change.items() if k != "variant"}
    rules = rules_for(preset, **opts)
    with pytest.raises(RulesError, match=words):
        require_modelled(rules)
    with pytest.raises(RulesError, match=words):
        fictitious_play(rules, hands=8, eval_hands=2, max_stages=1)
    argv = ["--rules", preset, *itertools.chain(*(("--set", f"{k}={v}") for k, v in opts.items()))]
    with pytest.raises(SystemExit) as exc:
        equilibrium.main([*argv, "--hands", "8", "--max-stages", "1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and err.count("\n") == 1


@pytest.mark.slow
def test_the_gain_values_each_decision_as_the_solver_does() -> None:
    """Heads-up, the value fictitious play gives the solver's own decision (a setting, a
    surrender or a natural) is what the solver expects it to collect."""
    rules = rules_for("classic")
    table = load_table("high")
    terms = score_terms(rules, 1, table)
    rng = np.random.default_rng(2)
    hands = [parse_cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")]
    hands += [[int(c) for c in rng.permutation(52)[:13]] for _ in range(400)]
    seen = set()
    for cards in hands:
        hand = evaluate_hand(tuple(cards), rules)
        decision, natural = equilibrium._decide(hand, rules, table)
        sol = solve_with_table(cards, rules, table, opponents=1, top_n=0)
        value = equilibrium._value(
            decision, natural, expected_points(hand, rules, terms, table), terms
        )
        want = sol.surrender_expected if sol.surrender else sol.expected
        assert value == pytest.approx(want, abs=1e-9)
        seen.add("natural" if sol.natural else "surrender" if sol.surrender else "play")
    assert seen == {"natural", "surrender", "play"}


def test_fictitious_play_pools_the_best_responses_and_measures_their_gain() -> None:
    table, report = fictitious_play("two_four-plain", hands=120, eval_hands=12, max_stages=3,
                                    target=0.0, strata=4)  # fmt: skip
    assert isinstance(table, OpponentTable)
    assert len(report.gains) == 3 and table.hands == 3 * 120
    assert table.meta["stages"] == 3 and table.setter == "fp-3"
    assert all(g >= 0 for g in report.gains)  # nothing beats the best response
    # The gain is the best setting's EV minus the pool's own choices, under the model:
    # a setter that always plays the best response to this model gains nothing.
    terms = score_terms(FAMILY, 1, table)
    rng = np.random.default_rng(5)
    hand = evaluate_hand(tuple(int(c) for c in rng.permutation(52)[:13]), FAMILY)
    ev = expected_points(hand, FAMILY, terms, table)
    sol = solve_with_table([int(c) for c in hand.cards], FAMILY, table, opponents=1, top_n=0)
    assert sol.expected == pytest.approx(float(ev.max()) + terms.const, abs=1e-9)


def test_table_from_pools_equal_parts_like_one_simulation() -> None:
    high = rules_for("classic")
    setter = heuristic_setter(high)
    a = setting_tables.deal_and_set("high", setter, hands=80, seed=3, stage=0)
    b = setting_tables.deal_and_set("high", setter, hands=80, seed=3, stage=1)
    pooled = setting_tables.table_from("high", [a, b], strata=4, seed=3, setter="x", meta={})
    assert pooled.hands == 160
    assert pooled.played == len(a.idx) + len(b.idx)
    assert pooled.fouls == a.fouls + b.fouls
    for line in range(3):
        want = np.bincount(np.concatenate([a.idx[:, line], b.idx[:, line]]),
                           minlength=pooled.counts[line].shape[2])  # fmt: skip
        assert np.array_equal(pooled.counts[line].sum(axis=(0, 1)), want)


def test_fouls_are_counted_under_the_familys_rules() -> None:
    # A low middle must be ten-high without a pair here: boards the mode's own rules
    # (no qualifier) accept foul under the family's, and the model must count them so.
    strict = rules_for("classic-low-middle", low_middle_qualifier="ten_high_no_pair")
    setter = heuristic_setter(strict)
    loose = setting_tables.deal_and_set("lowball", setter, hands=80, seed=3, stage=0)
    mine = setting_tables.deal_and_set("lowball", setter, hands=80, seed=3, stage=0,
                                       rules=strict)  # fmt: skip
    assert mine.fouls > loose.fouls and len(mine.idx) + mine.fouls == len(loose.idx) + loose.fouls
    with pytest.raises(ValueError, match="mode"):
        setting_tables.deal_and_set("high", setter, hands=4, seed=1, stage=0, rules=strict)
