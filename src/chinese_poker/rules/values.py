"""Option values (RULES.md §13): each option's checker, which reads the text forms people
write (``"yes"``, ``"unlimited"``, ``"1,1,2"``) and returns the canonical value or raises
:class:`RulesError` naming the option and what it allows; the variants' defaults.

Everything public is importable from :mod:`chinese_poker.rules`.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeVar

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

if TYPE_CHECKING:
    from chinese_poker.rules.ruleset import Rules

__all__ = [
    "AUTO",
    "DEFAULT_NATURAL_VALUES",
    "NATURALS",
    "OPTION_NAMES",
    "RANK_LETTERS",
    "SCORING_METHODS",
    "TOP_ROYALTY_KEYS",
    "VARIANTS",
    "VARIANT_DEFAULTS",
    "FrozenMap",
    "RulesError",
    "allowed_values",
    "coerce_option",
    "default_surrender_cost",
    "normalize_options",
    "option_word",
    "parse_assignment",
    "parse_option",
    "plain_option_value",
    "require_supported",
    "surrender_bounds",
]


VARIANTS: Final[tuple[Variant, ...]] = tuple(Variant)
NATURALS: Final[tuple[NaturalKind, ...]] = tuple(NaturalKind)


class RulesError(ValueError):
    """An unknown option, preset or variant, or an invalid option value.

    The message names the offending option or value and lists what is allowed.
    """

    # Raised and caught as chinese_poker.rules.RulesError, and printed so in tracebacks.
    __module__ = "chinese_poker.rules"


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
# ValueError (with an optional detail message); coerce_option turns that into a RulesError.

_TRUE_WORDS: Final = frozenset({"true", "yes", "on", "1"})
_FALSE_WORDS: Final = frozenset({"false", "no", "off", "0"})
_NONE_WORDS: Final = frozenset({"none", "unlimited", "null", "off", ""})


def option_word(text: str) -> str:
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


def _is_noneword(value: object) -> bool:
    return value is None or (isinstance(value, str) and value.strip().lower() in _NONE_WORDS)


E = TypeVar("E", bound=Option)


def _choice(kind: type[E]) -> Callable[[object], E]:
    """The coercer of a closed option: its text in any case, ``-`` for ``_``, or a member."""
    values = {member.value: member for member in kind}

    def coerce(value: object) -> E:
        if isinstance(value, str):
            member = values.get(option_word(value))
            if member is not None:
                return member
            close = difflib.get_close_matches(option_word(value), list(values), n=1)
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
    if isinstance(value, str) and option_word(value) in ("scoop_value", "scoop"):
        return FoulPenalty.SCOOP_VALUE
    number = _as_int(value)
    if number < 0:
        raise ValueError("must not be negative")
    return number


def _max_royalties(value: object) -> int | None:
    if _is_noneword(value):
        return None
    if _as_int(value) != 1:
        raise ValueError
    return 1


def _fl_max_consecutive(value: object) -> int | None:
    if _is_noneword(value):
        return None
    return _int_at_least(1)(value)


def _time_limit(value: object) -> float | None:
    if _is_noneword(value):
        return None
    return _positive_float(value)


def _split_numbers(text: str) -> list[str]:
    return [part for part in re.split(r"[\s,/;()\[\]]+", text.strip()) if part]


def _scoring_custom(value: object) -> tuple[int, int, int] | None:
    if _is_noneword(value):
        return None
    parts = _number_parts(value)
    if len(parts) != 3:
        raise ValueError("needs exactly three numbers v, o, s")
    v, o, s = (_as_int(part) for part in parts)
    if v < 1 or o < 0 or s < 0:
        raise ValueError("needs v >= 1, o >= 0, s >= 0")
    return (v, o, s)


def _number_parts(value: object) -> list[object]:
    """The parts of a list of numbers given as text ("1 2 3", "1,2,3") or as a list."""
    if isinstance(value, str):
        return list(_split_numbers(value))
    if isinstance(value, list | tuple):
        return list(value)
    raise ValueError


def _level_values(value: object) -> tuple[int, ...]:
    numbers = tuple(_as_int(part) for part in _number_parts(value))
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


DEFAULT_NATURAL_VALUES: Final[FrozenMap[int]] = FrozenMap(
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
    merged = dict(DEFAULT_NATURAL_VALUES)
    for key, number in items:
        name = option_word(str(key))
        if name not in NATURALS:
            raise ValueError(f"unknown natural {key!r}")
        merged[name] = _int_at_least(0)(number)
    return FrozenMap(merged)


def _natural_cross_type(value: object) -> str:
    names: list[str]
    if isinstance(value, str):
        if option_word(value) == "tie":
            return "tie"
        names = [option_word(part) for part in value.split(">")]
    elif isinstance(value, list | tuple):
        names = [option_word(str(part)) for part in value]
    else:
        raise ValueError
    if sorted(names) != sorted(NATURALS):
        raise ValueError("an order must name each natural exactly once")
    return ">".join(names)


RANK_LETTERS: Final = "23456789TJQKA"
TOP_ROYALTY_KEYS: Final[tuple[str, ...]] = tuple(r * 2 for r in RANK_LETTERS) + tuple(
    r * 3 for r in RANK_LETTERS
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
    name = option_word(str(key))
    name = _FIVE_CARD_ALIASES.get(name, name)
    if name in FIVE_CARD_ROYALTY_KEYS:
        return name
    raise ValueError(f"unknown {line} key {key!r} (use {', '.join(FIVE_CARD_ROYALTY_KEYS)})")


def _custom_royalties(value: object) -> FrozenMap[FrozenMap[int]] | None:
    if _is_noneword(value):
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
        line_word = option_word(str(line_name))
        line_word = _LINE_ALIASES.get(line_word, line_word)
        if line_word not in _LINES:
            raise ValueError(f"unknown line {line_name!r} (use top, middle, bottom)")
        table[line_word][_royalty_key(line_word, hand_name)] = _int_at_least(0)(points)
    ordered = {}
    for line in _LINES:
        keys = TOP_ROYALTY_KEYS if line == "top" else FIVE_CARD_ROYALTY_KEYS
        ordered[line] = FrozenMap((k, table[line][k]) for k in keys if table[line].get(k, 0))
    return FrozenMap(ordered)


def plain_option_value(name: str, value: Any) -> Any:
    """The to_dict() form of one option value."""
    if isinstance(value, Option):
        return value.value
    if value is None:
        return "none" if name == "time_limit" else "unlimited"
    if isinstance(value, Mapping):
        return {key: plain_option_value(name, item) for key, item in value.items()}
    if isinstance(value, tuple):
        return list(value)
    return value


# --------------------------------------------------------------------------- option table

SCORING_METHODS: Final[dict[str, tuple[int, int, int]]] = {
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
    key = option_word(name)
    if key in _OPTIONS:
        return key
    close = difflib.get_close_matches(key, OPTION_NAMES, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise RulesError(f"unknown option {name!r}.{hint} Valid options: {', '.join(OPTION_NAMES)}")


def coerce_option(name: str, value: object) -> Any:
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

    >>> from chinese_poker.rules import rules_for
    >>> require_supported(rules_for("ofc"), "bots", royalty_award=("net",))
    >>> require_supported(rules_for("classic"), "bots", royalty_award=("net", "cancel"))
    Traceback (most recent call last):
    ...
    chinese_poker.rules.RulesError: royalty_award='winner_only' is not modelled by bots; ...
    """
    for name, allowed in supported.items():
        value = getattr(rules, _option_name(name))
        if value not in allowed:
            shown = ", ".join(str(plain_option_value(name, item)) for item in allowed)
            raise RulesError(
                f"{name}={plain_option_value(name, value)!r} is not modelled by {consumer};"
                f" supported: {shown}"
            )


def parse_option(name: str, text: str) -> Any:
    """Parse the command-line text of one option into its canonical value.

    Booleans accept true/false, yes/no, on/off and 1/0; counts accept ``unlimited``.

    >>> parse_option("finnish_deuce", "on"), parse_option("fl_max_consecutive", "unlimited")
    (True, None)
    >>> parse_option("scoring_custom", "1,1,2"), parse_option("time_limit", "30")
    ((1, 1, 2), 30.0)
    """
    return coerce_option(_option_name(name), text)


def parse_assignment(text: str) -> tuple[str, Any]:
    """Parse one ``--set option=value`` argument into ``(option, value)``.

    >>> parse_assignment("surrender_cost=4")
    ('surrender_cost', 4)
    """
    name, sep, value = text.partition("=")
    if not sep:
        raise RulesError(f"expected option=value, got {text!r}")
    canonical = _option_name(name)
    return canonical, coerce_option(canonical, value)


def normalize_options(options: Mapping[str, Any]) -> dict[str, Any]:
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


AUTO: Any = _Auto()

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
VARIANT_DEFAULTS: Final[dict[str, dict[str, Any]]] = {
    "classic": _CLASSIC_DEFAULTS,
    "criss_cross": _CLASSIC_DEFAULTS,
    "ofc": _OPEN_DEFAULTS,
    "pineapple": {**_OPEN_DEFAULTS, "fl_repeat_middle_min": "four_of_a_kind"},
    "turbo": _OPEN_DEFAULTS,
}

_STANDARD_SURRENDER_COST: Final = 3


def surrender_bounds(line_values: tuple[int, int, int]) -> tuple[int, int]:
    """(cost of losing 2 of 3 lines, scoop value): a surrender must cost strictly between."""
    v, o, s = line_values
    return v + o, 3 * v + o + s


def default_surrender_cost(line_values: tuple[int, int, int]) -> int:
    low, scoop = surrender_bounds(line_values)
    if low < _STANDARD_SURRENDER_COST < scoop:
        return _STANDARD_SURRENDER_COST
    return scoop - 1
