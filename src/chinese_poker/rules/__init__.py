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
"""

from __future__ import annotations

import difflib
import json
import math
import re
import tomllib
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, TypeVar

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
from chinese_poker.rules.spec import RulesSpec, compile_spec

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


VARIANTS: Final[tuple[Variant, ...]] = tuple(Variant)
NATURALS: Final[tuple[NaturalKind, ...]] = tuple(NaturalKind)


class RulesError(ValueError):
    """An unknown option, preset or variant, or an invalid option value.

    The message names the offending option or value and lists what is allowed.
    """


# --------------------------------------------------------------------------- immutable mapping

V = TypeVar("V")


class FrozenMap(Mapping[str, V]):
    """A small immutable, hashable ``str``-keyed mapping that keeps insertion order.

    It compares equal to any mapping with the same items (a plain ``dict`` included).

    >>> m = FrozenMap({"dragon": 13})
    >>> m["dragon"], m == {"dragon": 13}, hash(m) == hash(FrozenMap({"dragon": 13}))
    (13, True, True)
    """

    __slots__ = ("_data",)
    _data: dict[str, V]

    def __init__(self, items: Mapping[str, V] | Iterable[tuple[str, V]] = ()) -> None:
        data: dict[str, V] = dict(items.items()) if isinstance(items, Mapping) else dict(items)
        object.__setattr__(self, "_data", data)

    def __getitem__(self, key: str) -> V:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._data.items(), key=lambda item: item[0])))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self._data == dict(other.items())
        return NotImplemented

    def __repr__(self) -> str:
        return repr(self._data)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("FrozenMap is immutable")

    def __reduce__(self) -> tuple[type[FrozenMap[V]], tuple[dict[str, V]]]:
        return (type(self), (self._data,))


# --------------------------------------------------------------------------- value coercion
#
# Every option has one coercer. It accepts the option's native value, its to_dict() form, and
# the text a user types on a command line, and returns the canonical value. It raises
# ValueError (with an optional detail message); _coerce turns that into a RulesError.

_TRUE_WORDS: Final = frozenset({"true", "yes", "on", "1"})
_FALSE_WORDS: Final = frozenset({"false", "no", "off", "0"})
_NONE_WORDS: Final = frozenset({"none", "unlimited", "null", "off", ""})


def _word(text: str) -> str:
    """Normalise a keyword: case-insensitive, ``-`` and spaces read as ``_``."""
    return text.strip().lower().replace("-", "_").replace(" ", "_")


def _as_bool(value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE_WORDS:
            return True
        if text in _FALSE_WORDS:
            return False
    raise ValueError


def _as_int(value: object) -> int:
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            raise ValueError("not an integer") from None
    raise ValueError("not an integer")


def _as_float(value: object) -> float:
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    if isinstance(value, int | float):
        result = float(value)
    elif isinstance(value, str):
        try:
            result = float(value.strip())
        except ValueError:
            raise ValueError("not a number") from None
    else:
        raise ValueError("not a number")
    if not math.isfinite(result):
        raise ValueError("not a finite number")
    return result


def _is_none_word(value: object) -> bool:
    return value is None or (isinstance(value, str) and value.strip().lower() in _NONE_WORDS)


E = TypeVar("E", bound=Option)


def _choice(kind: type[E]) -> Callable[[object], E]:
    """The coercer of a closed option: its text in any case, ``-`` for ``_``, or a member."""
    values = {member.value: member for member in kind}

    def coerce(value: object) -> E:
        if isinstance(value, str):
            member = values.get(_word(value))
            if member is not None:
                return member
            close = difflib.get_close_matches(_word(value), list(values), n=1)
            if close:
                raise ValueError(f"did you mean {close[0]!r}?")
        raise ValueError

    return coerce


def _listed(kind: type[Option]) -> str:
    return ", ".join(member.value for member in kind)


def _int_at_least(low: int) -> Callable[[object], int]:
    def coerce(value: object) -> int:
        number = _as_int(value)
        if number < low:
            raise ValueError(f"must be at least {low}")
        return number

    return coerce


def _positive_float(value: object) -> float:
    number = _as_float(value)
    if number <= 0:
        raise ValueError("must be positive")
    return number


def _fl_entry_min(value: object) -> FlEntryMin:
    if isinstance(value, str) and value.strip().upper() in tuple(FlEntryMin):
        return FlEntryMin(value.strip().upper())
    raise ValueError


def _middle_trips_royalty(value: object) -> int:
    number = _as_int(value)
    if number not in (2, 0):
        raise ValueError
    return number


def _classic_royal_flush(value: object) -> ClassicRoyalFlush:
    if isinstance(value, str):
        text = re.sub(r"[\s_\-:,]+", "/", value.strip()).strip("/")
        if text in tuple(ClassicRoyalFlush):
            return ClassicRoyalFlush(text)
    raise ValueError


def _foul_penalty(value: object) -> FoulPenalty | int:
    if isinstance(value, str) and _word(value) in ("scoop_value", "scoop"):
        return FoulPenalty.SCOOP_VALUE
    number = _as_int(value)
    if number < 0:
        raise ValueError("must not be negative")
    return number


def _max_royalties(value: object) -> int | None:
    if _is_none_word(value):
        return None
    if _as_int(value) != 1:
        raise ValueError
    return 1


def _fl_max_consecutive(value: object) -> int | None:
    if _is_none_word(value):
        return None
    return _int_at_least(1)(value)


def _time_limit(value: object) -> float | None:
    if _is_none_word(value):
        return None
    return _positive_float(value)


def _split_numbers(text: str) -> list[str]:
    return [part for part in re.split(r"[\s,/;()\[\]]+", text.strip()) if part]


def _scoring_custom(value: object) -> tuple[int, int, int] | None:
    if _is_none_word(value):
        return None
    parts: list[object]
    if isinstance(value, str):
        parts = list(_split_numbers(value))
    elif isinstance(value, list | tuple):
        parts = list(value)
    else:
        raise ValueError
    if len(parts) != 3:
        raise ValueError("needs exactly three numbers v, o, s")
    v, o, s = (_as_int(part) for part in parts)
    if v < 1 or o < 0 or s < 0:
        raise ValueError("needs v >= 1, o >= 0, s >= 0")
    return (v, o, s)


def _level_values(value: object) -> tuple[int, ...]:
    parts: list[object]
    if isinstance(value, str):
        parts = list(_split_numbers(value))
    elif isinstance(value, list | tuple):
        parts = list(value)
    else:
        raise ValueError
    numbers = tuple(_as_int(part) for part in parts)
    if not numbers or min(numbers) < 1:
        raise ValueError("needs at least one level, each a positive integer")
    return numbers


def _key_value_pairs(text: str) -> list[tuple[str, str]]:
    pairs = []
    for item in re.split(r"[,;]", text):
        if not item.strip():
            continue
        key, sep, number = item.partition("=")
        if not sep:
            raise ValueError(f"expected key=value, got {item.strip()!r}")
        pairs.append((key.strip(), number.strip()))
    return pairs


_DEFAULT_NATURAL_VALUES: Final[FrozenMap[int]] = FrozenMap(
    {"dragon": 13, "six_pairs": 3, "three_flushes": 3, "three_straights": 3}
)


def _natural_values(value: object) -> FrozenMap[int]:
    items: Iterable[tuple[object, object]]
    if isinstance(value, str):
        if "=" in value:
            items = _key_value_pairs(value)
        else:
            numbers = _split_numbers(value)
            if len(numbers) != len(NATURALS):
                raise ValueError(
                    "needs four numbers: dragon/six_pairs/three_flushes/three_straights"
                )
            items = zip(NATURALS, numbers, strict=True)
    elif isinstance(value, Mapping):
        items = value.items()
    else:
        raise ValueError
    merged = dict(_DEFAULT_NATURAL_VALUES)
    for key, number in items:
        name = _word(str(key))
        if name not in NATURALS:
            raise ValueError(f"unknown natural {key!r}")
        merged[name] = _int_at_least(0)(number)
    return FrozenMap(merged)


def _natural_cross_type(value: object) -> str:
    names: list[str]
    if isinstance(value, str):
        if _word(value) == "tie":
            return "tie"
        names = [_word(part) for part in value.split(">")]
    elif isinstance(value, list | tuple):
        names = [_word(str(part)) for part in value]
    else:
        raise ValueError
    if sorted(names) != sorted(NATURALS):
        raise ValueError("an order must name each natural exactly once")
    return ">".join(names)


_RANKS: Final = "23456789TJQKA"
TOP_ROYALTY_KEYS: Final[tuple[str, ...]] = tuple(r * 2 for r in _RANKS) + tuple(
    r * 3 for r in _RANKS
)
_FIVE_CARD_ALIASES: Final = {"trips": "three_of_a_kind", "quads": "four_of_a_kind"}
_LINES: Final[tuple[str, ...]] = ("top", "middle", "bottom")
_LINE_ALIASES: Final = {"front": "top", "back": "bottom"}


def _royalty_key(line: str, key: object) -> str:
    if line == "top":
        name = str(key).strip().upper().replace("10", "T")
        if name in TOP_ROYALTY_KEYS:
            return name
        raise ValueError(f"unknown top key {key!r} (use pairs 22..AA or trips 222..AAA)")
    name = _word(str(key))
    name = _FIVE_CARD_ALIASES.get(name, name)
    if name in FIVE_CARD_ROYALTY_KEYS:
        return name
    raise ValueError(f"unknown {line} key {key!r} (use {', '.join(FIVE_CARD_ROYALTY_KEYS)})")


def _custom_royalties(value: object) -> FrozenMap[FrozenMap[int]] | None:
    if _is_none_word(value):
        return None
    table: dict[str, dict[str, int]] = {line: {} for line in _LINES}
    entries: list[tuple[object, object, object]] = []
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise ValueError("invalid JSON") from None
    if isinstance(value, str):
        for path, number in _key_value_pairs(value):
            line_text, dot, key = path.partition(".")
            if not dot:
                raise ValueError(f"expected line.key=value, got {path!r}")
            entries.append((line_text, key, number))
    elif isinstance(value, Mapping):
        for line_key, row in value.items():
            if not isinstance(row, Mapping):
                raise ValueError(f"line {line_key!r} must map hand names to points")
            entries.extend((line_key, key, number) for key, number in row.items())
    else:
        raise ValueError
    for line_name, hand_name, points in entries:
        line_word = _word(str(line_name))
        line_word = _LINE_ALIASES.get(line_word, line_word)
        if line_word not in _LINES:
            raise ValueError(f"unknown line {line_name!r} (use top, middle, bottom)")
        table[line_word][_royalty_key(line_word, hand_name)] = _int_at_least(0)(points)
    ordered = {}
    for line in _LINES:
        keys = TOP_ROYALTY_KEYS if line == "top" else FIVE_CARD_ROYALTY_KEYS
        ordered[line] = FrozenMap((k, table[line][k]) for k in keys if table[line].get(k, 0))
    return FrozenMap(ordered)


# --------------------------------------------------------------------------- option table

_SCORING_METHODS: Final[dict[str, tuple[int, int, int]]] = {
    "one_per_line": (1, 0, 0),
    "one_six": (1, 0, 3),
    "two_four": (1, 1, 0),
    "one_four": (1, 0, 1),
    "two_per_line": (2, 0, 0),
}

_BOOL = "true/false (also yes/no, on/off, 1/0)"

# name -> (coercer, allowed values as shown in error messages)
_OPTIONS: Final[dict[str, tuple[Callable[[object], Any], str]]] = {
    "variant": (_choice(Variant), _listed(Variant)),
    "scoring_method": (_choice(ScoringMethod), _listed(ScoringMethod)),
    "scoring_custom": (_scoring_custom, "none, or three integers v,o,s with v >= 1"),
    "overall_unit_rule": (_choice(OverallUnitRule), _listed(OverallUnitRule)),
    "foul_penalty": (_foul_penalty, "scoop_value, or an integer >= 0"),
    "foul_pays_opponent_royalties": (_as_bool, _BOOL),
    "misset_rule": (_choice(MissetRule), _listed(MissetRule)),
    "royalty_table": (_choice(RoyaltyTable), _listed(RoyaltyTable)),
    "custom_royalties": (
        _custom_royalties,
        "none, a table {top: {66: 1, ..., AAA: 22}, middle: {...}, bottom: {...}}"
        f" (middle/bottom keys: {', '.join(FIVE_CARD_ROYALTY_KEYS)}),"
        " JSON text, or 'line.key=points,...'",
    ),
    "middle_trips_royalty": (_middle_trips_royalty, "2, 0"),
    "classic_royal_flush": (_classic_royal_flush, _listed(ClassicRoyalFlush)),
    "royalty_award": (_choice(RoyaltyAward), _listed(RoyaltyAward)),
    "best_at_table_ties": (_choice(BestAtTableTies), _listed(BestAtTableTies)),
    "fl_entry_min": (_fl_entry_min, _listed(FlEntryMin)),
    "natural_source": (_choice(NaturalSource), _listed(NaturalSource)),
    "max_royalties_per_hand": (_max_royalties, "unlimited, 1"),
    "royalty_for_dealt_combination": (_as_bool, _BOOL),
    "royalties_must_be_declared": (_as_bool, _BOOL),
    "finnish_deuce": (_as_bool, _BOOL),
    "finnish_deuce_if_holder_fouled": (_choice(DeuceIfHolderFouled), _listed(DeuceIfHolderFouled)),
    "surrender_allowed": (_as_bool, _BOOL),
    "surrender_cost": (
        _int_at_least(0),
        "an integer above the cost of losing 2 of 3 lines (v + o) and below the scoop value S",
    ),
    "naturals_enabled": (_as_bool, _BOOL),
    "natural_values": (
        _natural_values,
        "integers >= 0 for dragon/six_pairs/three_flushes/three_straights,"
        " as a table, 'a/b/c/d' or 'dragon=13,six_pairs=3'",
    ),
    "natural_claim": (_choice(NaturalClaim), _listed(NaturalClaim)),
    "natural_cross_type": (
        _natural_cross_type,
        "tie, or all four naturals ordered high to low joined by '>'"
        " (e.g. dragon>three_straights>three_flushes>six_pairs)",
    ),
    "criss_cross_pairing": (_choice(CrissCrossPairing), _listed(CrissCrossPairing)),
    "middle_mode": (_choice(MiddleMode), _listed(MiddleMode)),
    "low_middle_qualifier": (_choice(LowMiddleQualifier), _listed(LowMiddleQualifier)),
    "low_middle_royalties": (_choice(LowMiddleRoyalties), _listed(LowMiddleRoyalties)),
    "wheel_rank": (_choice(WheelRank), _listed(WheelRank)),
    "fantasyland_enabled": (_as_bool, _BOOL),
    "fl_progressive": (_as_bool, _BOOL + "; true only for pineapple"),
    "fl_repeat_middle_min": (_choice(FlRepeatMiddleMin), _listed(FlRepeatMiddleMin)),
    "fl_max_consecutive": (_fl_max_consecutive, "unlimited, or an integer >= 1"),
    "fl_repeat_limit_scope": (_choice(FlRepeatLimitScope), _listed(FlRepeatLimitScope)),
    "button_moves_before_fl_hand": (_as_bool, _BOOL),
    "unit_value": (_positive_float, "a positive number"),
    "level_minutes": (_positive_float, "a positive number of minutes"),
    "level_values": (_level_values, "one or more positive integers, e.g. 10,20,30"),
    "starting_chips": (_int_at_least(1), "an integer >= 1"),
    "insufficient_chips_rule": (_choice(InsufficientChipsRule), _listed(InsufficientChipsRule)),
    "time_limit": (_time_limit, "none, or a positive number of seconds"),
    "timeout_ends_session": (_as_bool, _BOOL),
    "timed_out_player_in_remaining_hands": (_choice(TimedOutPlayer), _listed(TimedOutPlayer)),
}

OPTION_NAMES: Final[tuple[str, ...]] = tuple(_OPTIONS)


def _option_name(name: str) -> str:
    """Canonical option name, or a RulesError that suggests the closest one."""
    key = _word(name)
    if key in _OPTIONS:
        return key
    close = difflib.get_close_matches(key, OPTION_NAMES, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise RulesError(f"unknown option {name!r}.{hint} Valid options: {', '.join(OPTION_NAMES)}")


def _coerce(name: str, value: object) -> Any:
    coerce, allowed = _OPTIONS[name]
    try:
        return coerce(value)
    except (ValueError, TypeError) as exc:
        detail = f" ({exc})" if str(exc) else ""
        raise RulesError(
            f"invalid value {value!r} for option {name!r}{detail}; allowed: {allowed}"
        ) from None


def allowed_values(name: str) -> str:
    """What option ``name`` accepts, as text (for help screens).

    >>> allowed_values("royalty_award")
    'net, winner_only, best_at_table, cancel'
    """
    return _OPTIONS[_option_name(name)][1]


def require_supported(rules: Rules, consumer: str, **supported: Collection[Any]) -> None:
    """Raise a RulesError unless every named option of ``rules`` has a value in ``supported``.

    Each consumer of a ruleset (the scorer, the playout kernels, the solvers) declares the
    option values it models, so that none of them plays another game without a word.

    >>> require_supported(rules_for("ofc"), "bots", royalty_award=("net",))
    >>> require_supported(rules_for("classic"), "bots", royalty_award=("net", "cancel"))
    Traceback (most recent call last):
    ...
    chinese_poker.rules.RulesError: royalty_award='winner_only' is not modelled by bots; ...
    """
    for name, allowed in supported.items():
        value = getattr(rules, _option_name(name))
        if value not in allowed:
            shown = ", ".join(str(_dump(name, item)) for item in allowed)
            raise RulesError(
                f"{name}={_dump(name, value)!r} is not modelled by {consumer}; supported: {shown}"
            )


def parse_option(name: str, text: str) -> Any:
    """Parse the command-line text of one option into its canonical value.

    Booleans accept true/false, yes/no, on/off and 1/0; counts accept ``unlimited``.

    >>> parse_option("finnish_deuce", "on"), parse_option("fl_max_consecutive", "unlimited")
    (True, None)
    >>> parse_option("scoring_custom", "1,1,2"), parse_option("time_limit", "30")
    ((1, 1, 2), 30.0)
    """
    return _coerce(_option_name(name), text)


def parse_assignment(text: str) -> tuple[str, Any]:
    """Parse one ``--set option=value`` argument into ``(option, value)``.

    >>> parse_assignment("surrender_cost=4")
    ('surrender_cost', 4)
    """
    name, sep, value = text.partition("=")
    if not sep:
        raise RulesError(f"expected option=value, got {text!r}")
    canonical = _option_name(name)
    return canonical, _coerce(canonical, value)


def _normalize_options(options: Mapping[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name, value in options.items():
        canonical = _option_name(str(name))
        if canonical in result:
            raise RulesError(f"option {canonical!r} is given twice")
        result[canonical] = value
    return result


# --------------------------------------------------------------------------- variant defaults


class _Auto:
    """Marks an option left to its variant-dependent default."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<variant default>"


_AUTO: Any = _Auto()

_CLASSIC_DEFAULTS: Final[dict[str, Any]] = {
    "scoring_method": "two_four",
    "royalty_table": "classic_standard",
    "royalty_award": "winner_only",
    "surrender_allowed": True,
    "naturals_enabled": True,
    "fantasyland_enabled": False,
    "fl_repeat_middle_min": "full_house",
}
_OPEN_DEFAULTS: Final[dict[str, Any]] = {
    "scoring_method": "one_six",
    "royalty_table": "american",
    "royalty_award": "net",
    "surrender_allowed": False,
    "naturals_enabled": False,
    "fantasyland_enabled": True,
    "fl_repeat_middle_min": "full_house",
}
_VARIANT_DEFAULTS: Final[dict[str, dict[str, Any]]] = {
    "classic": _CLASSIC_DEFAULTS,
    "criss_cross": _CLASSIC_DEFAULTS,
    "ofc": _OPEN_DEFAULTS,
    "pineapple": {**_OPEN_DEFAULTS, "fl_repeat_middle_min": "four_of_a_kind"},
    "turbo": _OPEN_DEFAULTS,
}

_STANDARD_SURRENDER_COST: Final = 3


def _surrender_bounds(line_values: tuple[int, int, int]) -> tuple[int, int]:
    """(cost of losing 2 of 3 lines, scoop value): a surrender must cost strictly between."""
    v, o, s = line_values
    return v + o, 3 * v + o + s


def _default_surrender_cost(line_values: tuple[int, int, int]) -> int:
    low, scoop = _surrender_bounds(line_values)
    if low < _STANDARD_SURRENDER_COST < scoop:
        return _STANDARD_SURRENDER_COST
    return scoop - 1


# --------------------------------------------------------------------------- the ruleset


@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class Rules:
    """A complete, validated ruleset: a variant plus every option of RULES.md §13.

    Options not given take the variant's defaults. Values may also be given in their text
    forms (``"yes"``, ``"unlimited"``, ``"1,1,2"``); they are stored in canonical form.

    >>> r = Rules(variant="classic", scoring_method="one_six")
    >>> r.scoop_value, r.surrender_cost, r.naturals_enabled
    (6, 3, True)
    >>> r
    Rules(variant='classic', scoring_method='one_six')
    >>> r.replace(finnish_deuce="on").finnish_deuce
    True
    """

    variant: Variant
    scoring_method: ScoringMethod = _AUTO
    scoring_custom: tuple[int, int, int] | None = None
    overall_unit_rule: OverallUnitRule = OverallUnitRule.TWO_LINES_WON
    foul_penalty: FoulPenalty | int = FoulPenalty.SCOOP_VALUE
    foul_pays_opponent_royalties: bool = True
    misset_rule: MissetRule = MissetRule.PENALTY
    royalty_table: RoyaltyTable = _AUTO
    custom_royalties: Mapping[str, Mapping[str, int]] | None = None
    middle_trips_royalty: int = 2
    classic_royal_flush: ClassicRoyalFlush = ClassicRoyalFlush.TWENTY_TEN
    royalty_award: RoyaltyAward = _AUTO
    best_at_table_ties: BestAtTableTies = BestAtTableTies.EACH_IN_FULL
    fl_entry_min: FlEntryMin = FlEntryMin.QQ
    natural_source: NaturalSource = NaturalSource.DEALT_CARDS
    max_royalties_per_hand: int | None = None
    royalty_for_dealt_combination: bool = False
    royalties_must_be_declared: bool = False
    finnish_deuce: bool = False
    finnish_deuce_if_holder_fouled: DeuceIfHolderFouled = DeuceIfHolderFouled.NO_EFFECT
    surrender_allowed: bool = _AUTO
    surrender_cost: int = _AUTO
    naturals_enabled: bool = _AUTO
    natural_values: Mapping[str, int] = _DEFAULT_NATURAL_VALUES
    natural_claim: NaturalClaim = NaturalClaim.AUTOMATIC
    natural_cross_type: str = "tie"
    criss_cross_pairing: CrissCrossPairing = CrissCrossPairing.CROSS
    middle_mode: MiddleMode = MiddleMode.HIGH
    low_middle_qualifier: LowMiddleQualifier = LowMiddleQualifier.NONE
    low_middle_royalties: LowMiddleRoyalties = LowMiddleRoyalties.NONE
    wheel_rank: WheelRank = WheelRank.LOWEST
    fantasyland_enabled: bool = _AUTO
    fl_progressive: bool = False
    fl_repeat_middle_min: FlRepeatMiddleMin = _AUTO
    fl_max_consecutive: int | None = 2
    fl_repeat_limit_scope: FlRepeatLimitScope = FlRepeatLimitScope.CONSECUTIVE
    button_moves_before_fl_hand: bool = False
    unit_value: float = 1.0
    level_minutes: float = 30.0
    level_values: tuple[int, ...] = (10, 20, 30, 50, 75, 100, 150, 200)
    starting_chips: int = 1000
    insufficient_chips_rule: InsufficientChipsRule = InsufficientChipsRule.PROPORTIONAL
    time_limit: float | None = None
    timeout_ends_session: bool = True
    timed_out_player_in_remaining_hands: TimedOutPlayer = TimedOutPlayer.AUTO_PLAY
    # Computed once in __post_init__ / on first use: hashing walks every option, and the
    # scorer and the kernels hash rulesets on every call.
    _hash: int = field(default=0, init=False, repr=False, compare=False)
    _spec: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        variant = _coerce("variant", self.variant)
        defaults = _VARIANT_DEFAULTS[variant]
        values: dict[str, Any] = {"variant": variant}
        for name in OPTION_NAMES[1:]:
            raw = getattr(self, name)
            if raw is _AUTO:
                if name == "surrender_cost":
                    continue
                raw = defaults[name]
            values[name] = _coerce(name, raw)

        if values["scoring_method"] == "custom":
            if values["scoring_custom"] is None:
                raise RulesError(
                    "scoring_method 'custom' needs scoring_custom = three integers v,o,s"
                    " (e.g. scoring_custom=1,1,2)"
                )
            line_values: tuple[int, int, int] = values["scoring_custom"]
        else:
            line_values = _SCORING_METHODS[values["scoring_method"]]
        if values["royalty_table"] == "custom" and values["custom_royalties"] is None:
            raise RulesError(
                "royalty_table 'custom' needs custom_royalties, e.g."
                " custom_royalties=bottom.four_of_a_kind=1,bottom.straight_flush=2"
            )
        if values["fl_progressive"] and variant != "pineapple":
            raise RulesError(
                f"option 'fl_progressive' can be true only for variant 'pineapple', not {variant!r}"
            )
        low, scoop = _surrender_bounds(line_values)
        if "surrender_cost" not in values:
            values["surrender_cost"] = _default_surrender_cost(line_values)
        elif not low < values["surrender_cost"] < scoop:
            raise RulesError(
                f"invalid value {values['surrender_cost']!r} for option 'surrender_cost';"
                f" allowed: an integer above {low} (losing 2 of 3 lines) and below {scoop}"
                f" (the scoop value) under scoring {values['scoring_method']!r}"
            )
        for name, value in values.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_hash", hash(tuple(values[name] for name in OPTION_NAMES)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Rules):
            return NotImplemented
        if self._hash != other._hash:
            return False
        return all(getattr(self, name) == getattr(other, name) for name in OPTION_NAMES)

    def __getstate__(self) -> tuple[Any, ...]:
        # The compiled spec is rebuilt on demand rather than pickled with every ruleset.
        return tuple(getattr(self, name) for name in OPTION_NAMES)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        values = dict(zip(OPTION_NAMES, state, strict=True))
        for name, value in values.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_hash", hash(state))
        object.__setattr__(self, "_spec", None)

    @property
    def spec(self) -> RulesSpec:
        """The compiled form every consumer reads (built once per ruleset, then cached).

        >>> spec = rules_for("ofc").spec
        >>> spec.scoring.line_values, spec.variant.streets[:2]
        ((1, 0, 3), ((5, 5), (1, 1)))
        """
        compiled: RulesSpec | None = self._spec
        if compiled is None:
            compiled = compile_spec(self)
            object.__setattr__(self, "_spec", compiled)
        return compiled

    def __repr__(self) -> str:
        shown = [f"variant={self.variant!r}"]
        for name, value in _differences(self).items():
            shown.append(f"{name}={value!r}")
        return f"Rules({', '.join(shown)})"

    # ----------------------------------------------------------------- construction

    @classmethod
    def for_variant(cls, variant: str, **overrides: Any) -> Rules:
        """The §13 defaults of ``variant``, with ``overrides`` applied.

        >>> Rules.for_variant("pineapple").fl_repeat_middle_min
        'four_of_a_kind'
        """
        options = _normalize_options(overrides)
        if "variant" in options:
            raise RulesError("give the variant once, as the first argument")
        return cls(variant=variant, **options)  # type: ignore[arg-type]

    @classmethod
    def from_preset(cls, name: str, **overrides: Any) -> Rules:
        """The ruleset of a §14 preset (or alias), with ``overrides`` applied.

        >>> Rules.from_preset("OFC_Western", finnish_deuce="yes").royalty_table
        'western'
        """
        return rules_for(name, **overrides)

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed, validated like a new ruleset.

        Other options keep their values, except that a ``surrender_cost`` equal to the default
        derived from the scoring method is derived again for the new scoring method.

        >>> rules_for("classic").replace(scoring_method="one_per_line").surrender_cost
        2
        """
        options = _normalize_options(changes)
        current: dict[str, Any] = {name: getattr(self, name) for name in OPTION_NAMES}
        if "surrender_cost" not in options and self.surrender_cost == _default_surrender_cost(
            self.line_values
        ):
            del current["surrender_cost"]
        current.update(options)
        return Rules(**current)

    # ----------------------------------------------------------------- serialisation

    def to_dict(self) -> dict[str, Any]:
        """Every option as plain JSON/TOML data (``from_dict`` reverses it exactly).

        ``None`` is written as ``"unlimited"`` (counts) or ``"none"`` (``time_limit``);
        ``scoring_custom`` and ``custom_royalties`` are left out when unset.

        >>> d = rules_for("ofc").to_dict()
        >>> d["variant"], d["fl_max_consecutive"], d["time_limit"]
        ('ofc', 2, 'none')
        >>> Rules.from_dict(d) == rules_for("ofc")
        True
        """
        result: dict[str, Any] = {}
        for name in OPTION_NAMES:
            value = getattr(self, name)
            if value is None and name in ("scoring_custom", "custom_royalties"):
                continue
            result[name] = _dump(name, value)
        return result

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Build a ruleset from plain data: a ``variant`` or a ``preset``, plus options.

        The preset may also be given under the key ``rules``. If ``rules`` is a table, only
        that table is read (so a larger configuration file can keep its rules in ``[rules]``).

        >>> Rules.from_dict({"preset": "classic", "wheel_rank": "second_highest"}).wheel_rank
        'second_highest'
        >>> Rules.from_dict({"rules": {"variant": "turbo"}}).streets
        ((5, 5), (4, 4), (4, 4))
        """
        if not isinstance(data, Mapping):
            raise RulesError(f"rules must be a table/object, not {type(data).__name__}")
        items: dict[str, Any] = {}
        preset: str | None = None
        for key, value in data.items():
            word = _word(str(key))
            if word == "rules" and isinstance(value, Mapping):
                return cls.from_dict(value)
            if word in ("preset", "rules"):
                if not isinstance(value, str):
                    raise RulesError(f"{key!r} must name a preset, not {value!r}")
                if preset is not None and resolve_preset(value) != resolve_preset(preset):
                    raise RulesError(f"two different presets given: {preset!r} and {value!r}")
                preset = value
            else:
                items[key] = value
        options = _normalize_options(items)
        if preset is not None:
            return rules_for(preset, **options)
        if "variant" not in options:
            raise RulesError(
                "rules need a 'variant' or a 'preset';"
                f" variants: {', '.join(VARIANTS)}; presets: {', '.join(preset_names())}"
            )
        return cls(**options)

    def to_json(self) -> str:
        """The ruleset as a JSON object (see :meth:`to_dict`)."""
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_json(cls, text: str) -> Rules:
        """Read a JSON object written by :meth:`to_json` or by hand.

        >>> Rules.from_json('{"preset": "pineapple-progressive"}').fl_progressive
        True
        """
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RulesError(f"invalid JSON: {exc}") from None
        return cls.from_dict(data)

    def to_toml(self) -> str:
        """The ruleset as a TOML document (see :meth:`to_dict`)."""
        import tomli_w

        text: str = tomli_w.dumps(self.to_dict())
        return text

    @classmethod
    def from_toml(cls, text: str) -> Rules:
        """Read a TOML document written by :meth:`to_toml` or by hand.

        >>> Rules.from_toml('preset = "ofc"\\nfinnish_deuce = "on"').finnish_deuce
        True
        """
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise RulesError(f"invalid TOML: {exc}") from None
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> Rules:
        """Read a ``.toml`` or ``.json`` rules file."""
        file = Path(path)
        reader = {".toml": cls.from_toml, ".json": cls.from_json}.get(file.suffix.lower())
        if reader is None:
            raise RulesError(f"unknown rules file type {file.suffix!r}; use .toml or .json")
        return reader(file.read_text(encoding="utf-8"))

    def save(self, path: str | Path) -> None:
        """Write a ``.toml`` or ``.json`` rules file, chosen by the extension."""
        file = Path(path)
        suffix = file.suffix.lower()
        if suffix == ".toml":
            text = self.to_toml()
        elif suffix == ".json":
            text = self.to_json() + "\n"
        else:
            raise RulesError(f"unknown rules file type {file.suffix!r}; use .toml or .json")
        file.write_text(text, encoding="utf-8")

    # ----------------------------------------------------------------- derived values

    @property
    def line_values(self) -> tuple[int, int, int]:
        """The scoring triple (v, o, s) of §7.2.

        >>> rules_for("classic").line_values, rules_for("ofc").line_values
        ((1, 1, 0), (1, 0, 3))
        """
        if self.scoring_method == "custom":
            assert self.scoring_custom is not None
            return self.scoring_custom
        return _SCORING_METHODS[self.scoring_method]

    @property
    def scoop_value(self) -> int:
        """S = 3v + o + s: what a scoop wins and (by default) what a foul costs."""
        v, o, s = self.line_values
        return 3 * v + o + s

    @property
    def foul_value(self) -> int:
        """Points a fouled board pays each valid opponent, royalties not included."""
        if isinstance(self.foul_penalty, int):
            return self.foul_penalty
        return self.scoop_value

    @property
    def is_open_face(self) -> bool:
        """True for OFC, Pineapple and Turbo."""
        return self.variant in ("ofc", "pineapple", "turbo")

    @property
    def is_classic(self) -> bool:
        """True for classic and Criss Cross."""
        return self.variant in ("classic", "criss_cross")

    @property
    def player_counts(self) -> range:
        """Allowed numbers of players (§5).

        >>> list(rules_for("pineapple").player_counts)
        [2, 3]
        """
        top = {"criss_cross": 2, "pineapple": 3}.get(self.variant, 4)
        return range(2, top + 1)

    @property
    def streets(self) -> tuple[tuple[int, int], ...]:
        """Per street: (cards dealt, cards placed). Classic variants deal one 13-card street.

        >>> rules_for("pineapple").streets
        ((5, 5), (3, 2), (3, 2), (3, 2), (3, 2))
        """
        if self.variant == "ofc":
            return ((5, 5),) + ((1, 1),) * 8
        if self.variant == "pineapple":
            return ((5, 5),) + ((3, 2),) * 4
        if self.variant == "turbo":
            return ((5, 5), (4, 4), (4, 4))
        return ((13, 13),)

    def fantasyland_cards(self, top_value_name: str | None, repeat: bool) -> int:
        """Cards dealt to a Fantasyland player (§9.2).

        ``top_value_name`` is the top that earned entry: ``"QQ"``, ``"KK"``, ``"AA"`` or
        ``"trips"`` (a trips name such as ``"777"`` also works). It only matters for an
        entry (``repeat`` false) in Progressive Pineapple.

        >>> rules_for("pineapple-progressive").fantasyland_cards("KK", repeat=False)
        15
        >>> rules_for("pineapple-progressive").fantasyland_cards(None, repeat=True)
        14
        """
        if not self.is_open_face:
            raise RulesError(f"variant {self.variant!r} has no Fantasyland")
        if self.variant != "pineapple":
            return 13
        if not self.fl_progressive or repeat:
            return 14
        name = (top_value_name or "").strip().upper()
        if len(name) == 3 and name[0] in _RANKS and name == name[0] * 3:
            name = "TRIPS"
        cards = {"QQ": 14, "KK": 15, "AA": 16, "TRIPS": 17}.get(name)
        if cards is None:
            raise RulesError(
                f"invalid Fantasyland entry {top_value_name!r}; allowed: QQ, KK, AA, trips"
            )
        return cards


def _dump(name: str, value: Any) -> Any:
    """The to_dict() form of one option value."""
    if isinstance(value, Option):
        return value.value
    if value is None:
        return "none" if name == "time_limit" else "unlimited"
    if isinstance(value, Mapping):
        return {key: _dump(name, item) for key, item in value.items()}
    if isinstance(value, tuple):
        return list(value)
    return value


def _differences(rules: Rules) -> dict[str, Any]:
    base = Rules.for_variant(rules.variant)
    result: dict[str, Any] = {}
    for name in OPTION_NAMES[1:]:
        value = getattr(rules, name)
        default = (
            _default_surrender_cost(rules.line_values)
            if name == "surrender_cost"
            else getattr(base, name)
        )
        if value != default:
            result[name] = value
    return result


def describe_differences(rules: Rules) -> dict[str, Any]:
    """The options of ``rules`` that differ from its variant's defaults, in to_dict() form.

    A ``surrender_cost`` is compared with the default derived for the ruleset's own scoring.

    >>> describe_differences(rules_for("ofc-hitspoker"))
    {'scoring_method': 'two_per_line', 'royalty_table': 'western', 'fl_repeat_middle_min': 'none'}
    """
    return {name: _dump(name, value) for name, value in _differences(rules).items()}


# --------------------------------------------------------------------------- presets (§14)


def _frozen(options: dict[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(options)


PRESETS: Final[Mapping[str, Mapping[str, Any]]] = MappingProxyType(
    {
        "ofc": _frozen({"variant": "ofc"}),
        "ofc-western": _frozen({"variant": "ofc", "royalty_table": "western"}),
        "ofc-hitspoker": _frozen(
            {
                "variant": "ofc",
                "scoring_method": "two_per_line",
                "royalty_table": "western",
                "fl_repeat_middle_min": "none",
            }
        ),
        "ofc-finnish": _frozen({"variant": "ofc", "finnish_deuce": True}),
        "pineapple": _frozen({"variant": "pineapple"}),
        "pineapple-progressive": _frozen({"variant": "pineapple", "fl_progressive": True}),
        "turbo": _frozen({"variant": "turbo"}),
        "classic": _frozen({"variant": "classic"}),
        "classic-1-6": _frozen({"variant": "classic", "scoring_method": "one_six"}),
        "classic-low-middle": _frozen({"variant": "classic", "middle_mode": "lowball_2_7"}),
        "classic-wheel": _frozen({"variant": "classic", "wheel_rank": "second_highest"}),
        "criss-cross": _frozen({"variant": "criss_cross"}),
    }
)
"""The named rulesets of RULES.md §14: a variant plus the options that differ from §13."""

ALIASES: Final[Mapping[str, str]] = MappingProxyType({"capsa-susun": "classic", "pusoy": "classic"})
"""Other names accepted for presets."""


def preset_names() -> list[str]:
    """The canonical preset names, in §14 order (aliases not included).

    >>> preset_names()[:3]
    ['ofc', 'ofc-western', 'ofc-hitspoker']
    """
    return list(PRESETS)


def resolve_preset(name: str) -> str:
    """The canonical name of a preset or alias; case, ``_`` and ``-`` do not matter.

    >>> resolve_preset("Capsa_Susun"), resolve_preset("CLASSIC_1_6")
    ('classic', 'classic-1-6')
    """
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    key = ALIASES.get(key, key)
    if key in PRESETS:
        return key
    known = [*PRESETS, *ALIASES]
    close = difflib.get_close_matches(key, known, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise RulesError(
        f"unknown preset {name!r}.{hint} Presets: {', '.join(PRESETS)};"
        f" aliases: {', '.join(ALIASES)}"
    )


def rules_for(preset: str, **overrides: Any) -> Rules:
    """The ruleset of a preset, with single options overridden.

    >>> r = rules_for("classic", surrender_allowed="no", scoring_method="one_six")
    >>> r.surrender_allowed, r.scoop_value
    (False, 6)
    """
    options: dict[str, Any] = dict(PRESETS[resolve_preset(preset)])
    options.update(_normalize_options(overrides))
    return Rules(**options)


def rules_from_document(given: object, options: object = None, **overrides: Any) -> Rules:
    """The rules a document names (a score table, a position, a study request): ``given``
    is a preset name or an object of options; ``options`` go over it, then ``overrides``.
    :class:`RulesError` with one line if they cannot be.

    >>> rules_from_document("ofc", {"finnish_deuce": "on"}).finnish_deuce
    True
    >>> rules_from_document(3)
    Traceback (most recent call last):
    ...
    chinese_poker.rules.RulesError: "rules" must be a preset name or an object of options
    """
    if isinstance(given, str):
        rules = rules_for(given)
    elif isinstance(given, Mapping):
        rules = Rules.from_dict(dict(given))
    else:
        raise RulesError('"rules" must be a preset name or an object of options')
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise RulesError('"options" must be an object, e.g. {"finnish_deuce": true}')
    changes = {**options, **overrides}
    if not changes:
        return rules
    try:
        return rules.replace(**changes)
    except TypeError as exc:  # an option name that is not a valid keyword
        raise RulesError(str(exc)) from None
