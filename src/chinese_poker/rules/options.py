"""The closed options of RULES.md §13, one StrEnum each.

A member equals its text (``RoyaltyAward.NET == "net"``), prints and reprs as that text,
and is what the checkers of :mod:`chinese_poker.rules.values` store, so a misspelt value fails
when a ruleset is built instead of comparing unequal forever after.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

__all__ = [
    "FIVE_CARD_ROYALTY_KEYS",
    "BestAtTableTies",
    "ClassicRoyalFlush",
    "CrissCrossPairing",
    "DeuceIfHolderFouled",
    "FlEntryMin",
    "FlRepeatLimitScope",
    "FlRepeatMiddleMin",
    "FoulPenalty",
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
    "ScoringMethod",
    "TimedOutPlayer",
    "Variant",
    "WheelRank",
]


#: The hands a custom middle or bottom royalty table names, weakest first.
FIVE_CARD_ROYALTY_KEYS: Final[tuple[str, ...]] = (
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
)


class Option(StrEnum):
    """Base of the option enums: the repr is the value's, so rulesets print as text."""

    def __repr__(self) -> str:
        return repr(self.value)


class Variant(Option):
    """The game (RULES.md §5)."""

    CLASSIC = "classic"
    CRISS_CROSS = "criss_cross"
    OFC = "ofc"
    PINEAPPLE = "pineapple"
    TURBO = "turbo"


class ScoringMethod(Option):
    ONE_PER_LINE = "one_per_line"
    ONE_SIX = "one_six"
    TWO_FOUR = "two_four"
    ONE_FOUR = "one_four"
    TWO_PER_LINE = "two_per_line"
    CUSTOM = "custom"


class OverallUnitRule(Option):
    TWO_LINES_WON = "two_lines_won"
    MORE_LINES_WON = "more_lines_won"


class FoulPenalty(Option):
    """The named value of ``foul_penalty`` (the other values are fixed numbers)."""

    SCOOP_VALUE = "scoop_value"


class MissetRule(Option):
    PENALTY = "penalty"
    IGNORE = "ignore"


class RoyaltyTable(Option):
    AMERICAN = "american"
    WESTERN = "western"
    CLASSIC_STANDARD = "classic_standard"
    CLASSIC_FLAT = "classic_flat"
    CUSTOM = "custom"
    NONE = "none"


class ClassicRoyalFlush(Option):
    TWENTY_TEN = "20/10"
    FOURTEEN_SEVEN = "14/7"


class RoyaltyAward(Option):
    NET = "net"
    WINNER_ONLY = "winner_only"
    BEST_AT_TABLE = "best_at_table"
    CANCEL = "cancel"


class BestAtTableTies(Option):
    """Seats tied for the best royalty hand under ``best_at_table`` ([002]: the pool is
    "divided among the winner(s)")."""

    EACH_IN_FULL = "each_in_full"
    SPLIT = "split"


class FlEntryMin(Option):
    """The weakest top pair that enters Fantasyland ([003]'s Pineapple: above queens)."""

    QQ = "QQ"
    KK = "KK"


class NaturalSource(Option):
    """Whether three flushes and three straights count from the 13 cards dealt (declared,
    as Capsa Susun and Pusoy players do) or only as the board is set."""

    DEALT_CARDS = "dealt_cards"
    SET_BOARD = "set_board"


class DeuceIfHolderFouled(Option):
    NO_EFFECT = "no_effect"
    DOUBLES_OPPONENT_LINE = "doubles_opponent_line"


class NaturalClaim(Option):
    AUTOMATIC = "automatic"
    OPTIONAL = "optional"


class NaturalKind(Option):
    """The classic naturals of §7.10, in the order NATURALS lists them."""

    DRAGON = "dragon"
    SIX_PAIRS = "six_pairs"
    THREE_FLUSHES = "three_flushes"
    THREE_STRAIGHTS = "three_straights"


class CrissCrossPairing(Option):
    CROSS = "cross"
    PARALLEL = "parallel"


class MiddleMode(Option):
    HIGH = "high"
    LOWBALL_2_7 = "lowball_2_7"


class LowMiddleQualifier(Option):
    NONE = "none"
    TEN_HIGH_NO_PAIR = "ten_high_no_pair"


class LowMiddleRoyalties(Option):
    NONE = "none"
    DP_TABLE = "dp_table"


class WheelRank(Option):
    LOWEST = "lowest"
    SECOND_HIGHEST = "second_highest"


class FlRepeatMiddleMin(Option):
    FULL_HOUSE = "full_house"
    FOUR_OF_A_KIND = "four_of_a_kind"
    NONE = "none"


class FlRepeatLimitScope(Option):
    CONSECUTIVE = "consecutive"
    PER_SESSION = "per_session"


class InsufficientChipsRule(Option):
    PROPORTIONAL = "proportional"
    SEAT_ORDER = "seat_order"


class TimedOutPlayer(Option):
    AUTO_PLAY = "auto_play"
    SIT_OUT = "sit_out"
