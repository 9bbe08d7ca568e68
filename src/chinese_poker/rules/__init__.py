"""Rulesets: a variant plus option values (RULES.md §13), presets (§14) and file formats.

A :class:`Rules` is an immutable, hashable value. Every option is validated when it is built,
whatever the source (keyword arguments, a dict, a TOML or JSON file, ``--set name=value``
strings from a command line). Options left out take the variant's defaults.

>>> rules = rules_for("ofc-hitspoker")
>>> rules.scoring_method, rules.royalty_table, rules.scoop_value
('two_per_line', 'western', 6)
>>> Rules.for_variant("classic").line_values
(1, 1, 0)
>>> rules_for("pusoy") == rules_for("classic")
True

The package is split by concern: :mod:`.options` (the closed options' values),
:mod:`.values` (each option's checker, the variants' defaults), :mod:`.ruleset` (the
ruleset, its file formats and the presets) and :mod:`.spec` (the compiled form every
consumer reads); everything public is importable from here.
"""

from __future__ import annotations

from chinese_poker.rules.options import (
    FIVE_CARD_ROYALTY_KEYS,
    BestAtTableTies,
    ClassicRoyalFlush,
    CrissCrossPairing,
    DeuceIfHolderFouled,
    FlEntryMin,
    FlRepeatLimitScope,
    FlRepeatMiddleMin,
    FoulPenalty,
    InsufficientChipsRule,
    LowMiddleQualifier,
    LowMiddleRoyalties,
    MiddleMode,
    MissetRule,
    NaturalClaim,
    NaturalKind,
    NaturalSource,
    Option,
    OverallUnitRule,
    RoyaltyAward,
    RoyaltyTable,
    ScoringMethod,
    TimedOutPlayer,
    Variant,
    WheelRank,
)
from chinese_poker.rules.ruleset import (
    ALIASES,
    PRESETS,
    Rules,
    describe_differences,
    preset_names,
    resolve_preset,
    rules_for,
    rules_from_document,
)
from chinese_poker.rules.spec import RulesSpec
from chinese_poker.rules.values import (
    NATURALS,
    OPTION_NAMES,
    TOP_ROYALTY_KEYS,
    VARIANTS,
    FrozenMap,
    RulesError,
    allowed_values,
    parse_assignment,
    parse_option,
    require_supported,
)

__all__ = [
    "ALIASES",
    "FIVE_CARD_ROYALTY_KEYS",
    "NATURALS",
    "OPTION_NAMES",
    "PRESETS",
    "TOP_ROYALTY_KEYS",
    "VARIANTS",
    "BestAtTableTies",
    "ClassicRoyalFlush",
    "CrissCrossPairing",
    "DeuceIfHolderFouled",
    "FlEntryMin",
    "FlRepeatLimitScope",
    "FlRepeatMiddleMin",
    "FoulPenalty",
    "FrozenMap",
    "InsufficientChipsRule",
    "LowMiddleQualifier",
    "LowMiddleRoyalties",
    "MiddleMode",
    "MissetRule",
    "NaturalClaim",
    "NaturalKind",
    "NaturalSource",
    "Option",
    "OverallUnitRule",
    "RoyaltyAward",
    "RoyaltyTable",
    "Rules",
    "RulesError",
    "RulesSpec",
    "ScoringMethod",
    "TimedOutPlayer",
    "Variant",
    "WheelRank",
    "allowed_values",
    "describe_differences",
    "parse_assignment",
    "parse_option",
    "preset_names",
    "require_supported",
    "resolve_preset",
    "rules_for",
    "rules_from_document",
]
