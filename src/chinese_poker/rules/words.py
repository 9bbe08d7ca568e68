"""Every preset and option in players' words: a name and a one-line explanation each,
and the words of each choice of a closed option (the one table the clients render).

The browser's lobby reads :func:`option_catalogue` (``GET /api/options``) and
:func:`preset_catalogue` (``GET /api/presets``); it keeps no words of its own for
rules. ``tests/test_rule_words.py`` holds this table to :data:`OPTION_NAMES`, the
presets and every value of every option enum, so a new option or value without words
fails there.

>>> [c["label"] for c in option_catalogue() if c["key"] == "wheel_rank"][0]
'A-2-3-4-5'
>>> preset_catalogue()[0]["label"], preset_catalogue()[0]["open_face"]
('Open-face Chinese', True)
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from chinese_poker.cards import RANKS
from chinese_poker.rules import OPTION_NAMES, PRESETS, Rules, rules_for

__all__ = [
    "OPTION_WORDS",
    "PRESET_WORDS",
    "OptionWords",
    "Words",
    "option_catalogue",
    "preset_catalogue",
]


@dataclass(frozen=True, slots=True)
class Words:
    """A name and a one-line explanation."""

    label: str
    help: str


@dataclass(frozen=True, slots=True)
class OptionWords:
    """An option's name and explanation, and its closed choices' words (value -> words)."""

    label: str
    help: str
    choices: Mapping[str, str] = field(default_factory=dict)


PRESET_WORDS: Final[Mapping[str, Words]] = types.MappingProxyType(
    {
        "ofc": Words(
            "Open-face Chinese",
            "The original: 5 cards, then one at a time; American royalties, Fantasyland.",
        ),
        "ofc-western": Words(
            "Open-face, Western royalties",
            "Open-face Chinese with the smaller Western royalty table.",
        ),
        "ofc-hitspoker": Words(
            "Open-face, 2 points a line",
            "Open-face scored 2 points per line won, Western royalties.",
        ),
        "ofc-finnish": Words(
            "Finnish open-face", "Open-face where the 2♠ doubles the royalties of its line."
        ),
        "pineapple": Words(
            "Pineapple",
            "Open-face: 5 cards, then 3 at a time, keep 2, throw 1. Fantasyland on QQ+ up top.",
        ),
        "pineapple-progressive": Words(
            "Progressive Pineapple",
            "Pineapple where a bigger top pair earns a bigger Fantasyland deal.",
        ),
        "turbo": Words("Turbo open-face", "Open-face dealt in fewer, bigger streets: a fast hand."),
        "classic": Words(
            "Classic Chinese poker", "All 13 cards at once, set face down; 2-4 scoring, naturals."
        ),
        "classic-1-6": Words(
            "Classic, 1-6 scoring", "Classic Chinese poker paid 1 a line and 6 for a scoop."
        ),
        "classic-low-middle": Words(
            "Classic, low middle", "Classic where the middle is a 2-7 lowball hand."
        ),
        "classic-wheel": Words(
            "Classic, wheel second", "Classic where A-2-3-4-5 is the second-best straight."
        ),
        "criss-cross": Words(
            "Criss Cross", "Heads-up, two hands each, played across: Pusoy style."
        ),
    }
)

_W = OptionWords

OPTION_WORDS: Final[Mapping[str, OptionWords]] = types.MappingProxyType(
    {
        "variant": _W(
            "Game",
            "Which Chinese poker is played.",
            {
                "classic": "Classic (13 cards at once)",
                "criss_cross": "Criss Cross",
                "ofc": "Open-face",
                "pineapple": "Pineapple",
                "turbo": "Turbo open-face",
            },
        ),
        "scoring_method": _W(
            "Scoring",
            "How lines and scoops are paid.",
            {
                "one_per_line": "1 a line",
                "one_six": "1 a line, 6 for a scoop",
                "two_four": "1 a line and 1 for the most lines (2-4)",
                "one_four": "1 a line, 4 for a scoop",
                "two_per_line": "2 a line",
                "custom": "Custom (line, overall, scoop bonus)",
            },
        ),
        "scoring_custom": _W(
            "Custom scoring", "Three numbers: points a line, for the overall unit, scoop bonus."
        ),
        "overall_unit_rule": _W(
            "Overall unit",
            "When the extra unit of 2-4 scoring is paid.",
            {
                "two_lines_won": "For winning two of the three lines",
                "more_lines_won": "For winning more lines than the opponent",
            },
        ),
        "foul_penalty": _W(
            "Foul penalty",
            "What a fouled board pays each opponent: the scoop value or a fixed number.",
            {"scoop_value": "A scoop"},
        ),
        "foul_pays_opponent_royalties": _W(
            "Fouler pays royalties", "A player who fouls also pays the opponent's royalties."
        ),
        "misset_rule": _W(
            "Mis-set boards",
            "Whether a classic board set out of order is penalised.",
            {"penalty": "Penalised as a foul", "ignore": "Settled as set"},
        ),
        "royalty_table": _W(
            "Royalty table",
            "Bonus points for strong lines.",
            {
                "american": "American",
                "western": "Western (smaller)",
                "classic_standard": "Classic standard",
                "classic_flat": "Classic flat",
                "custom": "Custom",
                "none": "No royalties",
            },
        ),
        "custom_royalties": _W("Custom royalties", "Your own royalty points per line and hand."),
        "middle_trips_royalty": _W(
            "Middle trips bonus", "Points for three of a kind in the middle (American table)."
        ),
        "classic_royal_flush": _W(
            "Classic royal flush",
            "What a royal flush earns in classic royalties (back / middle).",
            {"20/10": "20 back, 10 middle", "14/7": "14 back, 7 middle"},
        ),
        "royalty_award": _W(
            "Royalties paid",
            "Who collects royalties, and how much.",
            {
                "net": "Each pair pays the difference",
                "winner_only": "Only the winner of the line",
                "best_at_table": "Only the best hand at the table",
                "cancel": "Two royalties on one line cancel",
            },
        ),
        "best_at_table_ties": _W(
            "Tied best hands",
            "When two players tie for the best royalty hand.",
            {"each_in_full": "Each collects in full", "split": "They split the pool"},
        ),
        "fl_entry_min": _W(
            "Fantasyland from",
            "The weakest top pair that enters Fantasyland.",
            {"QQ": "Queens", "KK": "Kings"},
        ),
        "natural_source": _W(
            "Naturals counted from",
            "Whether three flushes and straights count as dealt or only as set.",
            {"dealt_cards": "The 13 cards dealt", "set_board": "The board as set"},
        ),
        "max_royalties_per_hand": _W(
            "Royalties per hand", "Unlimited, or only a hand's largest royalty."
        ),
        "royalty_for_dealt_combination": _W(
            "Royalty for a dealt hand",
            "Dealt quads or a straight flush earn their royalty even when broken up.",
        ),
        "royalties_must_be_declared": _W(
            "Declare royalties", "Players must declare royalties (the table announces them)."
        ),
        "finnish_deuce": _W("Finnish deuce", "The 2♠ doubles the royalties on its line."),
        "finnish_deuce_if_holder_fouled": _W(
            "Finnish deuce of a fouler",
            "What the 2♠ does when its holder fouls.",
            {"no_effect": "Nothing", "doubles_opponent_line": "Doubles the opponent's line"},
        ),
        "surrender_allowed": _W("Surrender", "Classic: give up a bad hand for a fixed cost."),
        "surrender_cost": _W("Surrender cost", "Points a surrender pays each opponent."),
        "naturals_enabled": _W(
            "Naturals", "Classic: special 13-card hands (dragon, six pairs, ...) paid at once."
        ),
        "natural_values": _W(
            "Natural values", "Points for a dragon, six pairs, three flushes, three straights."
        ),
        "natural_claim": _W(
            "Naturals claimed",
            "Whether a natural is paid by itself or the player chooses.",
            {"automatic": "Automatically", "optional": "By the player's choice"},
        ),
        "natural_cross_type": _W(
            "Natural against natural", "A tie, or an order of the naturals, high to low."
        ),
        "criss_cross_pairing": _W(
            "Criss Cross pairing",
            "Which of the two hands play each other.",
            {"cross": "Each hand against both", "parallel": "First against first only"},
        ),
        "middle_mode": _W(
            "Middle hand",
            "The usual high middle, or a 2-7 low one.",
            {"high": "High (usual)", "lowball_2_7": "2-7 lowball"},
        ),
        "low_middle_qualifier": _W(
            "Low middle must be",
            "Whether a low middle must qualify.",
            {"none": "Anything", "ten_high_no_pair": "Ten-high or better, no pair"},
        ),
        "low_middle_royalties": _W(
            "Low middle royalties",
            "Bonus points for a good low middle.",
            {"none": "None", "dp_table": "The [DP] table"},
        ),
        "wheel_rank": _W(
            "A-2-3-4-5",
            "Where the wheel ranks among straights.",
            {"lowest": "Lowest straight", "second_highest": "Second highest (Pusoy)"},
        ),
        "fantasyland_enabled": _W(
            "Fantasyland",
            "A top at least as strong as “Fantasyland from” deals your whole next hand at once.",
        ),
        "fl_progressive": _W(
            "Progressive Fantasyland", "A bigger top pair earns more Fantasyland cards."
        ),
        "fl_repeat_middle_min": _W(
            "Stay in Fantasyland with",
            "The weakest middle that keeps you in Fantasyland.",
            {
                "full_house": "A full house",
                "four_of_a_kind": "Four of a kind",
                "none": "No middle rule",
            },
        ),
        "fl_max_consecutive": _W(
            "Fantasyland streak limit", "At most this many Fantasyland hands in a row."
        ),
        "fl_repeat_limit_scope": _W(
            "Streak limit counts",
            "Whether the limit counts stays in a row or in the whole session.",
            {"consecutive": "In a row", "per_session": "In the whole session"},
        ),
        "button_moves_before_fl_hand": _W(
            "Button before Fantasyland", "The button moves before a Fantasyland hand."
        ),
        "unit_value": _W("Money a point", "What one point is worth when the session is settled."),
        "level_minutes": _W(
            "Level length (min)", "Tournament: minutes before the point value rises."
        ),
        "level_values": _W("Chips a point", "Tournament: chips per point at each level."),
        "starting_chips": _W("Starting chips", "Tournament: each player's stack at the start."),
        "insufficient_chips_rule": _W(
            "Short stacks pay",
            "Tournament: how a player who cannot pay in full pays.",
            {"proportional": "In proportion", "seat_order": "In seat order"},
        ),
        "time_limit": _W("Seconds a move", "How long a player has for each decision."),
        "timeout_ends_session": _W(
            "Timeout ends the session",
            "Tournament rule: after a timeout the session ends.",
        ),
        "timed_out_player_in_remaining_hands": _W(
            "A timed-out player",
            "What happens to him in the hands still to play.",
            {"auto_play": "Is played by the table", "sit_out": "Sits out"},
        ),
    }
)

_YES_NO: Final[dict[str, str]] = {"true": "Yes", "false": "No"}


def _closed_values(key: str) -> tuple[str, ...] | None:
    """The values of an option's enum (None: not a closed option)."""
    hint = typing.get_type_hints(Rules)[key]
    for tp in typing.get_args(hint) or (hint,):
        if isinstance(tp, type) and issubclass(tp, StrEnum):
            return tuple(v.value for v in tp)
    return None


def _kind(key: str) -> str:
    """``choice`` (one of the enum's values), ``yes_no``, or ``value`` (typed as text;
    its choices, if any, are the named values it also accepts, as ``foul_penalty``)."""
    hint = typing.get_type_hints(Rules)[key]
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        return "choice"
    if hint is bool:
        return "yes_no"
    return "value"


def option_catalogue() -> list[dict[str, Any]]:
    """Every option of RULES §13 (``variant`` first) for a client to render: ``key``,
    ``label``, ``help``, ``kind`` (see :func:`_kind`) and ``choices`` [{value, label}].
    Defaults are the preset's (``/api/presets`` has each preset's complete rules)."""
    out = []
    names = {f.name for f in dataclasses.fields(Rules)}
    for key in OPTION_NAMES:
        assert key in names, key
        words = OPTION_WORDS[key]
        kind = _kind(key)
        choices = dict(words.choices)
        if kind == "yes_no":
            choices = _YES_NO
        out.append(
            {
                "key": key,
                "label": words.label,
                "help": words.help,
                "kind": kind,
                "choices": [{"value": v, "label": w} for v, w in choices.items()],
            }
        )
    return out


def preset_catalogue() -> list[dict[str, Any]]:
    """Every §14 preset: ``name``, ``label``, ``help``, ``variant``, ``open_face``,
    ``hands_per_seat``, ``players`` (allowed counts), ``fantasyland_entry`` (the weakest
    top pair that enters, ``"QQ"``, or None without Fantasyland) and its complete
    ``rules``."""
    out = []
    for name in PRESETS:
        rules = rules_for(name)
        words = PRESET_WORDS[name]
        fl = rules.spec.scoring.fantasyland
        out.append(
            {
                "name": name,
                "label": words.label,
                "help": words.help,
                "variant": rules.variant,
                "open_face": rules.spec.variant.open_face,
                "hands_per_seat": rules.spec.variant.hands_per_seat,
                "players": list(rules.player_counts),
                "fantasyland_entry": RANKS[fl.entry_min_pair] * 2 if fl.enabled else None,
                "rules": rules.to_dict(),
            }
        )
    return out
