"""Tests for chinese_poker.rules: options (RULES.md §13), presets (§14), file formats."""

from __future__ import annotations

import dataclasses
import doctest
import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chinese_poker import rules as rules_module
from chinese_poker.rules import (
    ALIASES,
    FIVE_CARD_ROYALTY_KEYS,
    NATURALS,
    OPTION_NAMES,
    PRESETS,
    TOP_ROYALTY_KEYS,
    VARIANTS,
    FrozenMap,
    Rules,
    RulesError,
    allowed_values,
    describe_differences,
    parse_assignment,
    parse_option,
    preset_names,
    resolve_preset,
    rules_for,
)

# --------------------------------------------------------------------------- presets

# §14: each preset's variant and the options that differ from the §13 defaults.
EXPECTED_PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "ofc": ("ofc", {}),
    "ofc-western": ("ofc", {"royalty_table": "western"}),
    "ofc-hitspoker": (
        "ofc",
        {
            "scoring_method": "two_per_line",
            "royalty_table": "western",
            "fl_repeat_middle_min": "none",
        },
    ),
    "ofc-finnish": ("ofc", {"finnish_deuce": True}),
    "pineapple": ("pineapple", {}),
    "pineapple-progressive": ("pineapple", {"fl_progressive": True}),
    "turbo": ("turbo", {}),
    "classic": ("classic", {}),
    "classic-1-6": ("classic", {"scoring_method": "one_six"}),
    "classic-low-middle": ("classic", {"middle_mode": "lowball_2_7"}),
    "classic-wheel": ("classic", {"wheel_rank": "second_highest"}),
    "criss-cross": ("criss_cross", {}),
}

# §13 defaults that do not depend on the variant.
COMMON_DEFAULTS: dict[str, Any] = {
    "scoring_custom": None,
    "overall_unit_rule": "two_lines_won",
    "foul_penalty": "scoop_value",
    "foul_pays_opponent_royalties": True,
    "misset_rule": "penalty",
    "custom_royalties": None,
    "middle_trips_royalty": 2,
    "classic_royal_flush": "20/10",
    "best_at_table_ties": "each_in_full",
    "fl_entry_min": "QQ",
    "natural_source": "dealt_cards",
    "max_royalties_per_hand": None,
    "royalty_for_dealt_combination": False,
    "royalties_must_be_declared": False,
    "finnish_deuce": False,
    "finnish_deuce_if_holder_fouled": "no_effect",
    "surrender_cost": 3,
    "natural_values": {"dragon": 13, "six_pairs": 3, "three_flushes": 3, "three_straights": 3},
    "natural_claim": "automatic",
    "natural_cross_type": "tie",
    "criss_cross_pairing": "cross",
    "middle_mode": "high",
    "low_middle_qualifier": "none",
    "low_middle_royalties": "none",
    "wheel_rank": "lowest",
    "fl_progressive": False,
    "fl_max_consecutive": 2,
    "fl_repeat_limit_scope": "consecutive",
    "button_moves_before_fl_hand": False,
    "unit_value": 1.0,
    "level_minutes": 30.0,
    "level_values": (10, 20, 30, 50, 75, 100, 150, 200),
    "starting_chips": 1000,
    "insufficient_chips_rule": "proportional",
    "time_limit": None,
    "timeout_ends_session": True,
    "timed_out_player_in_remaining_hands": "auto_play",
}

CLASSIC_DEFAULTS: dict[str, Any] = {
    "scoring_method": "two_four",
    "royalty_table": "classic_standard",
    "royalty_award": "winner_only",
    "surrender_allowed": True,
    "naturals_enabled": True,
    "fantasyland_enabled": False,
}
OPEN_DEFAULTS: dict[str, Any] = {
    "scoring_method": "one_six",
    "royalty_table": "american",
    "royalty_award": "net",
    "surrender_allowed": False,
    "naturals_enabled": False,
    "fantasyland_enabled": True,
}


def test_preset_names_are_exactly_section_14() -> None:
    assert preset_names() == list(EXPECTED_PRESETS)
    assert set(PRESETS) == set(EXPECTED_PRESETS)
    assert dict(ALIASES) == {"capsa-susun": "classic", "pusoy": "classic"}


@pytest.mark.parametrize("name", list(EXPECTED_PRESETS))
def test_preset_is_variant_defaults_plus_listed_options(name: str) -> None:
    variant, options = EXPECTED_PRESETS[name]
    rules = rules_for(name)
    assert rules.variant == variant
    assert rules == Rules.for_variant(variant, **options)
    assert rules == Rules.from_preset(name)
    assert describe_differences(rules) == options
    for option, value in options.items():
        assert getattr(rules, option) == value


def test_preset_specific_values() -> None:
    hits = rules_for("ofc-hitspoker")
    assert hits.scoring_method == "two_per_line"
    assert hits.royalty_table == "western"
    assert hits.fl_repeat_middle_min == "none"
    assert hits.line_values == (2, 0, 0)
    assert hits.scoop_value == 6
    assert rules_for("ofc-western").royalty_table == "western"
    assert rules_for("ofc-finnish").finnish_deuce is True
    assert rules_for("pineapple-progressive").fl_progressive is True
    assert rules_for("classic-1-6").scoring_method == "one_six"
    assert rules_for("classic-low-middle").middle_mode == "lowball_2_7"
    assert rules_for("classic-wheel").wheel_rank == "second_highest"
    assert rules_for("criss-cross").criss_cross_pairing == "cross"


@pytest.mark.parametrize("variant", VARIANTS)
def test_variant_defaults(variant: str) -> None:
    rules = Rules.for_variant(variant)
    expected = dict(COMMON_DEFAULTS)
    expected.update(CLASSIC_DEFAULTS if variant in ("classic", "criss_cross") else OPEN_DEFAULTS)
    expected["fl_repeat_middle_min"] = "four_of_a_kind" if variant == "pineapple" else "full_house"
    for option, value in expected.items():
        assert getattr(rules, option) == value, option
    assert set(expected) | {"variant"} == set(OPTION_NAMES)
    assert Rules(variant=variant) == rules  # type: ignore[arg-type]


@pytest.mark.parametrize("alias", ["capsa-susun", "pusoy", "Capsa_Susun", "PUSOY", " capsa susun "])
def test_aliases_build_classic(alias: str) -> None:
    assert rules_for(alias) == rules_for("classic")


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [
        ("OFC_Western", "ofc-western"),
        ("ofc_hitspoker", "ofc-hitspoker"),
        ("CLASSIC_1_6", "classic-1-6"),
        ("criss_cross", "criss-cross"),
        ("Pineapple-Progressive", "pineapple-progressive"),
    ],
)
def test_preset_spellings(spelling: str, canonical: str) -> None:
    assert resolve_preset(spelling) == canonical
    assert rules_for(spelling) == rules_for(canonical)


def test_preset_with_overrides() -> None:
    rules = rules_for("ofc-hitspoker", finnish_deuce="on", fl_max_consecutive="unlimited")
    assert rules.finnish_deuce is True
    assert rules.fl_max_consecutive is None
    assert rules.scoring_method == "two_per_line"
    assert rules_for("classic", scoring_method="one_per_line").surrender_cost == 2


def test_presets_mapping_is_read_only() -> None:
    with pytest.raises(TypeError):
        PRESETS["x"] = {}  # type: ignore[index]
    with pytest.raises(TypeError):
        PRESETS["ofc"]["variant"] = "turbo"  # type: ignore[index]


# --------------------------------------------------------------------------- error messages


def test_unknown_preset_lists_presets_and_aliases() -> None:
    with pytest.raises(RulesError) as info:
        rules_for("ofc-westren")
    message = str(info.value)
    assert "ofc-westren" in message
    assert "ofc-western" in message
    for name in [*PRESETS, *ALIASES]:
        assert name in message


def test_unknown_option_lists_options_and_suggests() -> None:
    with pytest.raises(RulesError) as info:
        rules_for("ofc", fl_max_consecutiv=3)
    message = str(info.value)
    assert "fl_max_consecutiv" in message
    assert "did you mean 'fl_max_consecutive'" in message.lower()
    for name in OPTION_NAMES:
        assert name in message
    with pytest.raises(RulesError, match="zzz_option"):
        parse_option("zzz_option", "1")
    with pytest.raises(RulesError, match="royalty_tabel"):
        Rules.from_dict({"variant": "ofc", "royalty_tabel": "western"})


@pytest.mark.parametrize(
    ("option", "value", "allowed"),
    [
        ("royalty_table", "bogus", ["american", "western", "classic_standard", "custom"]),
        ("scoring_method", "three_six", ["one_six", "two_four", "two_per_line", "custom"]),
        ("royalty_award", "all", ["net", "winner_only", "best_at_table", "cancel"]),
        ("finnish_deuce", "maybe", ["yes", "on", "true"]),
        ("variant", "holdem", list(VARIANTS)),
        ("middle_trips_royalty", "3", ["2", "0"]),
        ("classic_royal_flush", "25/15", ["20/10", "14/7"]),
        ("max_royalties_per_hand", "2", ["unlimited", "1"]),
        ("fl_max_consecutive", "0", ["unlimited"]),
        ("natural_cross_type", "dragon>six_pairs", ["tie"]),
        ("foul_penalty", "-1", ["scoop_value"]),
        ("time_limit", "-5", ["seconds"]),
    ],
)
def test_bad_value_names_option_value_and_allowed(
    option: str, value: str, allowed: list[str]
) -> None:
    with pytest.raises(RulesError) as info:
        parse_option(option, value)
    message = str(info.value)
    assert repr(value) in message
    assert repr(option) in message
    for word in allowed:
        assert word in message
    # the same value through a dict and through keyword arguments
    overrides: dict[str, Any] = {option: value}
    with pytest.raises(RulesError, match=option):
        Rules.from_dict({"preset": "pineapple", **overrides})
    if option != "variant":
        with pytest.raises(RulesError, match=option):
            rules_for("classic", **overrides)


def test_rules_error_is_value_error() -> None:
    assert issubclass(RulesError, ValueError)


def test_missing_variant() -> None:
    with pytest.raises(RulesError, match="variant"):
        Rules.from_dict({"finnish_deuce": True})


def test_fl_progressive_only_for_pineapple() -> None:
    for variant in ("ofc", "turbo", "classic", "criss_cross"):
        with pytest.raises(RulesError, match="fl_progressive"):
            Rules.for_variant(variant, fl_progressive=True)
        assert Rules.for_variant(variant, fl_progressive=False).fl_progressive is False
    assert Rules.for_variant("pineapple", fl_progressive="on").fl_progressive is True


def test_custom_choices_need_their_tables() -> None:
    with pytest.raises(RulesError, match="scoring_custom"):
        rules_for("ofc", scoring_method="custom")
    with pytest.raises(RulesError, match="custom_royalties"):
        rules_for("classic", royalty_table="custom")


# --------------------------------------------------------------------------- scoring values


@pytest.mark.parametrize(
    ("method", "values", "scoop"),
    [
        ("one_per_line", (1, 0, 0), 3),
        ("one_six", (1, 0, 3), 6),
        ("two_four", (1, 1, 0), 4),
        ("one_four", (1, 0, 1), 4),
        ("two_per_line", (2, 0, 0), 6),
    ],
)
def test_line_values_and_scoop(method: str, values: tuple[int, int, int], scoop: int) -> None:
    for preset in ("ofc", "classic"):
        rules = rules_for(preset, scoring_method=method)
        assert rules.line_values == values
        assert rules.scoop_value == scoop
        assert rules.foul_value == scoop
        assert rules.replace(foul_penalty=5).foul_value == 5


def test_custom_scoring() -> None:
    rules = rules_for("classic", scoring_method="custom", scoring_custom="2,1,3")
    assert rules.line_values == (2, 1, 3)
    assert rules.scoop_value == 10
    assert rules_for("ofc", scoring_custom=[1, 1, 1]).line_values == (1, 0, 3)  # inert
    for bad in ("1,1", "0,1,1", "1,-1,0", "a,b,c"):
        with pytest.raises(RulesError, match="scoring_custom"):
            parse_option("scoring_custom", bad)


# --------------------------------------------------------------------------- surrender cost


@pytest.mark.parametrize(
    ("method", "valid", "default"),
    [
        ("one_per_line", [2], 2),
        ("one_six", [2, 3, 4, 5], 3),
        ("two_four", [3], 3),
        ("one_four", [2, 3], 3),
        ("two_per_line", [3, 4, 5], 3),
    ],
)
def test_surrender_cost_range(method: str, valid: list[int], default: int) -> None:
    base = rules_for("classic", scoring_method=method)
    assert base.surrender_cost == default
    for cost in range(0, 12):
        if cost in valid:
            rules = rules_for("classic", scoring_method=method, surrender_cost=cost)
            assert rules.surrender_cost == cost
        else:
            with pytest.raises(RulesError, match="surrender_cost"):
                rules_for("classic", scoring_method=method, surrender_cost=cost)


def test_surrender_cost_default_with_custom_scoring() -> None:
    # lose-2-of-3 costs v + o = 3, so the standard 3 is out of range: default S - 1 = 9
    rules = rules_for("classic", scoring_method="custom", scoring_custom=(2, 1, 3))
    assert rules.surrender_cost == 9
    small = rules_for("classic", scoring_method="custom", scoring_custom=(1, 0, 0))
    assert small.surrender_cost == 2


def test_replace_rederives_default_surrender_cost_only() -> None:
    classic = rules_for("classic")
    assert classic.replace(scoring_method="one_per_line").surrender_cost == 2
    assert (
        classic.replace(scoring_method="one_per_line").replace(scoring_method="two_four") == classic
    )
    explicit = rules_for("classic", scoring_method="one_six", surrender_cost=5)
    with pytest.raises(RulesError, match="surrender_cost"):
        explicit.replace(scoring_method="two_four")
    assert explicit.replace(scoring_method="two_four", surrender_cost=3) == classic


# --------------------------------------------------------------------------- variant facts


def test_player_counts_and_families() -> None:
    counts = {v: list(Rules.for_variant(v).player_counts) for v in VARIANTS}
    assert counts == {
        "classic": [2, 3, 4],
        "criss_cross": [2],
        "ofc": [2, 3, 4],
        "pineapple": [2, 3],
        "turbo": [2, 3, 4],
    }
    for variant in VARIANTS:
        rules = Rules.for_variant(variant)
        assert rules.is_open_face == (variant in ("ofc", "pineapple", "turbo"))
        assert rules.is_classic == (not rules.is_open_face)


def test_streets() -> None:
    ofc = rules_for("ofc").streets
    assert ofc == ((5, 5),) + ((1, 1),) * 8
    assert rules_for("pineapple").streets == ((5, 5),) + ((3, 2),) * 4
    assert rules_for("turbo").streets == ((5, 5), (4, 4), (4, 4))
    assert rules_for("classic").streets == ((13, 13),)
    assert rules_for("criss-cross").streets == ((13, 13),)
    dealt = {v: sum(d for d, _ in Rules.for_variant(v).streets) for v in VARIANTS}
    assert dealt["pineapple"] == 17 and dealt["ofc"] == dealt["turbo"] == 13
    for variant in VARIANTS:
        assert sum(p for _, p in Rules.for_variant(variant).streets) == 13
        # the deck suffices for the largest table
        max_players = Rules.for_variant(variant).player_counts[-1]
        assert dealt[variant] * max_players <= 52


def test_fantasyland_cards() -> None:
    for preset in ("ofc", "turbo", "ofc-hitspoker"):
        rules = rules_for(preset)
        for entry in ("QQ", "KK", "AA", "trips"):
            assert rules.fantasyland_cards(entry, repeat=False) == 13
        assert rules.fantasyland_cards(None, repeat=True) == 13
    pineapple = rules_for("pineapple")
    assert pineapple.fantasyland_cards("AA", repeat=False) == 14
    assert pineapple.fantasyland_cards(None, repeat=True) == 14
    progressive = rules_for("pineapple-progressive")
    expected = {"QQ": 14, "KK": 15, "AA": 16, "trips": 17, "qq": 14, "TRIPS": 17, "777": 17}
    for entry, cards in expected.items():
        assert progressive.fantasyland_cards(entry, repeat=False) == cards
        assert progressive.fantasyland_cards(entry, repeat=True) == 14
    with pytest.raises(RulesError, match="JJ"):
        progressive.fantasyland_cards("JJ", repeat=False)
    with pytest.raises(RulesError, match="classic"):
        rules_for("classic").fantasyland_cards("QQ", repeat=False)


# --------------------------------------------------------------------------- text forms


@pytest.mark.parametrize("word", ["true", "on", "yes", "1", "TRUE", " On ", "Yes"])
def test_true_words(word: str) -> None:
    assert parse_option("finnish_deuce", word) is True
    assert Rules.from_dict({"variant": "ofc", "finnish_deuce": word}).finnish_deuce is True


@pytest.mark.parametrize("word", ["false", "off", "no", "0", "FALSE", "Off", "No"])
def test_false_words(word: str) -> None:
    assert parse_option("surrender_allowed", word) is False
    assert Rules.from_dict({"preset": "classic", "surrender_allowed": word}).surrender_allowed is (
        False
    )


@pytest.mark.parametrize(
    ("option", "text", "value"),
    [
        ("fl_max_consecutive", "unlimited", None),
        ("fl_max_consecutive", "3", 3),
        ("max_royalties_per_hand", "1", 1),
        ("max_royalties_per_hand", "Unlimited", None),
        ("surrender_cost", "4", 4),
        ("scoring_custom", "1,1,2", (1, 1, 2)),
        ("scoring_custom", "(1, 0, 3)", (1, 0, 3)),
        ("scoring_custom", "2/0/0", (2, 0, 0)),
        ("foul_penalty", "6", 6),
        ("foul_penalty", "scoop_value", "scoop_value"),
        ("time_limit", "30", 30.0),
        ("time_limit", "2.5", 2.5),
        ("time_limit", "none", None),
        ("unit_value", "10", 10.0),
        ("level_values", "10,20,40", (10, 20, 40)),
        ("starting_chips", "1500", 1500),
        ("middle_trips_royalty", "0", 0),
        ("classic_royal_flush", "14/7", "14/7"),
        ("classic_royal_flush", "14-7", "14/7"),
        ("scoring_method", "Two-Four", "two_four"),
        ("middle_mode", "lowball-2-7", "lowball_2_7"),
        ("variant", "Criss-Cross", "criss_cross"),
        ("natural_cross_type", "TIE", "tie"),
        (
            "natural_cross_type",
            "dragon > three_straights > three_flushes > six_pairs",
            "dragon>three_straights>three_flushes>six_pairs",
        ),
        (
            "natural_values",
            "26/3/4/5",
            {"dragon": 26, "six_pairs": 3, "three_flushes": 4, "three_straights": 5},
        ),
        (
            "natural_values",
            "dragon=26",
            {"dragon": 26, "six_pairs": 3, "three_flushes": 3, "three_straights": 3},
        ),
        (
            "custom_royalties",
            "back.quads=1, bottom.straight_flush=2, front.qq=3, top.1010=2",
            {
                "top": {"TT": 2, "QQ": 3},
                "middle": {},
                "bottom": {"four_of_a_kind": 1, "straight_flush": 2},
            },
        ),
        (
            "custom_royalties",
            '{"top": {"AAA": 5, "66": 0}, "middle": {"full_house": 2}}',
            {"top": {"AAA": 5}, "middle": {"full_house": 2}, "bottom": {}},
        ),
        ("custom_royalties", "none", None),
    ],
)
def test_parse_option(option: str, text: str, value: Any) -> None:
    assert parse_option(option, text) == value
    assert parse_assignment(f"{option}={text}") == (option, value)


def test_parse_option_accepts_hyphenated_names() -> None:
    assert parse_option("fl-max-consecutive", "4") == 4
    assert parse_assignment("Finnish-Deuce=yes") == ("finnish_deuce", True)
    with pytest.raises(RulesError, match="option=value"):
        parse_assignment("finnish_deuce")


def test_booleans_reject_non_words() -> None:
    for bad in ("2", "yess", "", "enabled"):
        with pytest.raises(RulesError):
            parse_option("naturals_enabled", bad)
    with pytest.raises(RulesError, match="surrender_cost"):
        rules_for("classic", surrender_cost=True)


def test_allowed_values() -> None:
    assert "western" in allowed_values("royalty-table")
    with pytest.raises(RulesError):
        allowed_values("nope")


# --------------------------------------------------------------------------- value semantics


def test_frozen_hashable_and_equal() -> None:
    a = rules_for("ofc", natural_values={"dragon": 20})
    b = rules_for("ofc", natural_values={"three_straights": 3, "dragon": 20})
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b, rules_for("ofc")}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.variant = "turbo"  # type: ignore[misc]
    assert isinstance(a.natural_values, FrozenMap)
    with pytest.raises(TypeError):
        a.natural_values["dragon"] = 1  # type: ignore[index]
    assert pickle.loads(pickle.dumps(a)) == a


def test_repr_is_short_and_evaluable() -> None:
    assert repr(rules_for("ofc")) == "Rules(variant='ofc')"
    assert repr(rules_for("ofc-western")) == "Rules(variant='ofc', royalty_table='western')"
    rules = rules_for("classic", custom_royalties="bottom.quads=1", royalty_table="custom")
    assert eval(repr(rules), vars(rules_module)) == rules


def test_replace_validates() -> None:
    rules = rules_for("ofc")
    assert rules.replace(royalty_table="western") == rules_for("ofc-western")
    with pytest.raises(RulesError, match="royalty_table"):
        rules.replace(royalty_table="eastern")
    with pytest.raises(RulesError, match="nonsense"):
        rules.replace(nonsense=1)


def test_from_dict_forms() -> None:
    assert Rules.from_dict({"rules": "ofc-western"}) == rules_for("ofc-western")
    assert Rules.from_dict({"Preset": "PUSOY"}) == rules_for("classic")
    assert Rules.from_dict({"rules": {"preset": "turbo"}, "server": {"port": 1}}) == rules_for(
        "turbo"
    )
    assert Rules.from_dict({"preset": "classic", "variant": "criss_cross"}) == rules_for(
        "criss-cross"
    )
    with pytest.raises(RulesError, match="preset"):
        Rules.from_dict({"preset": "ofc", "rules": "classic"})
    with pytest.raises(RulesError, match="nope"):
        Rules.from_dict({"preset": "nope"})
    with pytest.raises(RulesError):
        Rules.from_dict(["ofc"])  # type: ignore[arg-type]


def test_to_dict_is_complete_and_plain() -> None:
    data = rules_for("ofc").to_dict()
    assert set(data) == set(OPTION_NAMES) - {"scoring_custom", "custom_royalties"}
    assert data["fl_max_consecutive"] == 2
    assert data["max_royalties_per_hand"] == "unlimited"
    assert data["time_limit"] == "none"
    assert data["level_values"] == [10, 20, 30, 50, 75, 100, 150, 200]
    assert json.loads(json.dumps(data)) == data
    unlimited = rules_for("ofc", fl_max_consecutive=None).to_dict()
    assert unlimited["fl_max_consecutive"] == "unlimited"


def test_handwritten_toml_and_json() -> None:
    toml_text = """
preset = "classic"
scoring_method = "one-six"
surrender_allowed = "no"
natural_values = { dragon = 26 }

[custom_royalties.back]
quads = 1
straight_flush = 2
"""
    rules = Rules.from_toml(toml_text)
    assert rules.scoring_method == "one_six"
    assert rules.surrender_allowed is False
    assert rules.natural_values["dragon"] == 26
    assert rules.custom_royalties == {
        "top": {},
        "middle": {},
        "bottom": {"four_of_a_kind": 1, "straight_flush": 2},
    }
    assert Rules.from_json('{"variant": "pineapple", "fl_progressive": "yes"}') == rules_for(
        "pineapple-progressive"
    )
    with pytest.raises(RulesError, match="TOML"):
        Rules.from_toml("preset = ")
    with pytest.raises(RulesError, match="JSON"):
        Rules.from_json("{")


@pytest.mark.parametrize("name", [*EXPECTED_PRESETS, *ALIASES])
def test_every_preset_round_trips(name: str) -> None:
    rules = rules_for(name)
    assert Rules.from_dict(rules.to_dict()) == rules
    assert Rules.from_json(rules.to_json()) == rules
    assert Rules.from_toml(rules.to_toml()) == rules


@pytest.mark.parametrize("suffix", [".toml", ".json", ".TOML"])
def test_save_and_load(tmp_path: Path, suffix: str) -> None:
    rules = rules_for("ofc-hitspoker", time_limit=45, fl_max_consecutive="unlimited")
    path = tmp_path / f"rules{suffix}"
    rules.save(path)
    assert Rules.load(path) == rules
    assert Rules.load(str(path)) == rules


def test_save_and_load_reject_other_extensions(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match=r"\.yaml"):
        rules_for("ofc").save(tmp_path / "rules.yaml")
    (tmp_path / "rules.ini").write_text("x")
    with pytest.raises(RulesError, match=r"\.toml or \.json"):
        Rules.load(tmp_path / "rules.ini")


# --------------------------------------------------------------------------- property tests


def _bool_forms() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.booleans(), st.sampled_from(["yes", "no", "on", "off", "true", "false", "1", "0"])
    )


def _royalty_table() -> st.SearchStrategy[dict[str, dict[str, int]]]:
    points = st.integers(0, 60)
    return st.fixed_dictionaries(
        {},
        optional={
            "top": st.dictionaries(st.sampled_from(TOP_ROYALTY_KEYS), points, max_size=6),
            "middle": st.dictionaries(st.sampled_from(FIVE_CARD_ROYALTY_KEYS), points),
            "bottom": st.dictionaries(st.sampled_from(FIVE_CARD_ROYALTY_KEYS), points),
        },
    )


OPTION_STRATEGIES: dict[str, st.SearchStrategy[Any]] = {
    "scoring_method": st.sampled_from(
        ["one_per_line", "one_six", "two_four", "one_four", "two_per_line", "custom"]
    ),
    "scoring_custom": st.tuples(st.integers(1, 4), st.integers(0, 4), st.integers(0, 4)),
    "overall_unit_rule": st.sampled_from(["two_lines_won", "more_lines_won"]),
    "foul_penalty": st.one_of(st.just("scoop_value"), st.integers(0, 30)),
    "foul_pays_opponent_royalties": _bool_forms(),
    "misset_rule": st.sampled_from(["penalty", "ignore"]),
    "royalty_table": st.sampled_from(
        ["american", "western", "classic_standard", "classic_flat", "custom", "none"]
    ),
    "custom_royalties": _royalty_table(),
    "middle_trips_royalty": st.sampled_from([2, 0]),
    "classic_royal_flush": st.sampled_from(["20/10", "14/7"]),
    "royalty_award": st.sampled_from(["net", "winner_only", "best_at_table", "cancel"]),
    "best_at_table_ties": st.sampled_from(["each_in_full", "split", "Each-In-Full"]),
    "fl_entry_min": st.sampled_from(["QQ", "KK", "kk", " qq "]),
    "natural_source": st.sampled_from(["dealt_cards", "set_board", "set board"]),
    "max_royalties_per_hand": st.sampled_from([None, 1, "unlimited"]),
    "royalty_for_dealt_combination": _bool_forms(),
    "royalties_must_be_declared": _bool_forms(),
    "finnish_deuce": _bool_forms(),
    "finnish_deuce_if_holder_fouled": st.sampled_from(["no_effect", "doubles_opponent_line"]),
    "surrender_allowed": _bool_forms(),
    "naturals_enabled": _bool_forms(),
    "natural_values": st.fixed_dictionaries(
        {}, optional={name: st.integers(0, 100) for name in NATURALS}
    ),
    "natural_claim": st.sampled_from(["automatic", "optional"]),
    "natural_cross_type": st.one_of(st.just("tie"), st.permutations(NATURALS).map(">".join)),
    "criss_cross_pairing": st.sampled_from(["cross", "parallel"]),
    "middle_mode": st.sampled_from(["high", "lowball_2_7"]),
    "low_middle_qualifier": st.sampled_from(["none", "ten_high_no_pair"]),
    "low_middle_royalties": st.sampled_from(["none", "dp_table"]),
    "wheel_rank": st.sampled_from(["lowest", "second_highest"]),
    "fantasyland_enabled": _bool_forms(),
    "fl_progressive": _bool_forms(),
    "fl_repeat_middle_min": st.sampled_from(["full_house", "four_of_a_kind", "none"]),
    "fl_max_consecutive": st.one_of(st.none(), st.integers(1, 10)),
    "fl_repeat_limit_scope": st.sampled_from(["consecutive", "per_session"]),
    "button_moves_before_fl_hand": _bool_forms(),
    "unit_value": st.floats(min_value=0.01, max_value=1e6, allow_nan=False),
    "level_minutes": st.floats(min_value=0.5, max_value=600, allow_nan=False),
    "level_values": st.lists(st.integers(1, 10**6), min_size=1, max_size=10).map(tuple),
    "starting_chips": st.integers(1, 10**7),
    "insufficient_chips_rule": st.sampled_from(["proportional", "seat_order"]),
    "time_limit": st.one_of(st.none(), st.floats(min_value=0.1, max_value=3600)),
    "timeout_ends_session": _bool_forms(),
    "timed_out_player_in_remaining_hands": st.sampled_from(["auto_play", "sit_out"]),
}


def test_strategies_cover_every_option() -> None:
    assert set(OPTION_STRATEGIES) | {"variant", "surrender_cost"} == set(OPTION_NAMES)


@st.composite
def random_rules(draw: st.DrawFn) -> Rules:
    variant = draw(st.sampled_from(VARIANTS))
    options = draw(st.fixed_dictionaries({}, optional=OPTION_STRATEGIES))
    if variant != "pineapple":
        options.pop("fl_progressive", None)
    if options.get("scoring_method") == "custom" and "scoring_custom" not in options:
        options["scoring_custom"] = draw(OPTION_STRATEGIES["scoring_custom"])
    if options.get("royalty_table") == "custom" and "custom_royalties" not in options:
        options["custom_royalties"] = draw(_royalty_table())
    rules = Rules.for_variant(variant, **options)
    if draw(st.booleans()):
        v, o, s = rules.line_values
        rules = rules.replace(surrender_cost=draw(st.integers(v + o + 1, 3 * v + o + s - 1)))
    return rules


def _cli_text(name: str, value: Any) -> str:
    """What a user would type after ``--set name=`` for ``value`` (a to_dict() value)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    if name == "natural_values":
        return ",".join(f"{key}={number}" for key, number in value.items())
    if name == "custom_royalties":
        return json.dumps(value)
    return str(value)


@settings(max_examples=150, deadline=None)
@given(random_rules())
def test_random_rules_round_trip(rules: Rules) -> None:
    assert Rules.from_dict(rules.to_dict()) == rules
    assert Rules.from_json(rules.to_json()) == rules
    assert Rules.from_toml(rules.to_toml()) == rules
    assert Rules.from_dict(json.loads(rules.to_json())) == rules
    assert eval(repr(rules), vars(rules_module)) == rules
    assert pickle.loads(pickle.dumps(rules)) == rules
    assert hash(Rules.from_toml(rules.to_toml())) == hash(rules)
    assert rules.replace() == rules


@settings(max_examples=100, deadline=None)
@given(random_rules())
def test_random_rules_from_command_line_text(rules: Rules) -> None:
    for name, value in rules.to_dict().items():
        assert parse_option(name, _cli_text(name, value)) == getattr(rules, name), name
    assignments = dict(
        parse_assignment(f"{name}={_cli_text(name, value)}")
        for name, value in rules.to_dict().items()
    )
    assert Rules(**assignments) == rules


@settings(max_examples=100, deadline=None)
@given(random_rules())
def test_differences_rebuild_the_rules(rules: Rules) -> None:
    differences = describe_differences(rules)
    assert "variant" not in differences
    assert Rules.for_variant(rules.variant, **differences) == rules
    assert Rules.from_dict({"variant": rules.variant, **differences}) == rules


@settings(max_examples=100, deadline=None)
@given(random_rules())
def test_derived_values_are_consistent(rules: Rules) -> None:
    v, o, s = rules.line_values
    assert rules.scoop_value == 3 * v + o + s
    assert v + o < rules.surrender_cost < rules.scoop_value
    assert rules.foul_value == (
        rules.scoop_value if rules.foul_penalty == "scoop_value" else rules.foul_penalty
    )
    assert rules.is_open_face != rules.is_classic


# --------------------------------------------------------------------------- doctests


def test_doctests() -> None:
    """Every module of the package, the ruleset's own and its options' checkers."""
    import importlib
    import pkgutil

    attempted = 0
    for name in ["", *(f".{info.name}" for info in pkgutil.iter_modules(rules_module.__path__))]:
        module = importlib.import_module(f"chinese_poker.rules{name}")
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, module.__name__
        attempted += result.attempted
    assert attempted > 20


def test_criss_cross_is_said_in_one_place() -> None:
    """``VariantSpec.criss_cross`` is the one reading of "two hands a seat": no module
    compares ``hands_per_seat`` with 2 itself (it was written in seven places)."""
    import pathlib

    import chinese_poker
    from chinese_poker.rules import preset_names, rules_for

    assert [p for p in preset_names() if rules_for(p).spec.variant.criss_cross] == ["criss-cross"]
    src = pathlib.Path(chinese_poker.__file__).parent
    spec = src / "rules" / "spec.py"
    found = [
        f"{path.relative_to(src)}:{n}"
        for path in sorted(src.rglob("*.py"))
        if path != spec
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if "hands_per_seat ==" in line or "hands_per_seat !=" in line
    ]
    assert not found, found


def test_what_consumers_derive_rides_on_the_spec_but_is_not_its_value() -> None:
    """``RulesSpec.derived`` holds a consumer's look-ups (the scorer's, once it settled):
    per ruleset, not compared, not in the JSON the browser reads, not pickled."""
    from chinese_poker.cards import parse_board
    from chinese_poker.scoring import Hand, settle

    rules, twin = rules_for("ofc"), rules_for("ofc")
    a = Hand(name="A", board=parse_board("Ah Qd 4c | Jh Js 9c 9d 2h | 7c 7d 7h 7s Kc"))
    b = Hand(name="B", board=parse_board("Kd Jc 3h | Th Ts 8c 8d 5s | Qs 9s 6s 4s 3s"))
    assert settle(rules, [a, b]).totals == {"A": 12, "B": -12}
    assert "settle" in rules.spec.derived and twin.spec.derived == {}
    assert rules.spec == twin.spec
    assert "derived" not in rules.spec.to_dict() and "settle" not in rules.spec.to_json()
    copy = pickle.loads(pickle.dumps(rules.spec))
    assert copy == rules.spec and copy.derived == {}
