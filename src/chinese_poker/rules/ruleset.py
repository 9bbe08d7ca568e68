"""The ruleset (RULES.md §13): :class:`Rules`, a variant plus every option, immutable and
hashable; its file formats; the presets of §14.

Everything public is importable from :mod:`chinese_poker.rules`.
"""

from __future__ import annotations

import difflib
import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

from chinese_poker.rules.options import (
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
    NaturalSource,
    OverallUnitRule,
    RoyaltyAward,
    RoyaltyTable,
    ScoringMethod,
    TimedOutPlayer,
    Variant,
    WheelRank,
)
from chinese_poker.rules.spec import RulesSpec, compile_spec
from chinese_poker.rules.values import (
    AUTO,
    DEFAULT_NATURAL_VALUES,
    OPTION_NAMES,
    RANK_LETTERS,
    SCORING_METHODS,
    VARIANT_DEFAULTS,
    VARIANTS,
    RulesError,
    coerce_option,
    default_surrender_cost,
    normalize_options,
    option_word,
    plain_option_value,
    surrender_bounds,
)

__all__ = [
    "ALIASES",
    "PRESETS",
    "Rules",
    "describe_differences",
    "preset_names",
    "resolve_preset",
    "rules_for",
    "rules_from_document",
]


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
    scoring_method: ScoringMethod = AUTO
    scoring_custom: tuple[int, int, int] | None = None
    overall_unit_rule: OverallUnitRule = OverallUnitRule.TWO_LINES_WON
    foul_penalty: FoulPenalty | int = FoulPenalty.SCOOP_VALUE
    foul_pays_opponent_royalties: bool = True
    misset_rule: MissetRule = MissetRule.PENALTY
    royalty_table: RoyaltyTable = AUTO
    custom_royalties: Mapping[str, Mapping[str, int]] | None = None
    middle_trips_royalty: int = 2
    classic_royal_flush: ClassicRoyalFlush = ClassicRoyalFlush.TWENTY_TEN
    royalty_award: RoyaltyAward = AUTO
    best_at_table_ties: BestAtTableTies = BestAtTableTies.EACH_IN_FULL
    fl_entry_min: FlEntryMin = FlEntryMin.QQ
    natural_source: NaturalSource = NaturalSource.DEALT_CARDS
    max_royalties_per_hand: int | None = None
    royalty_for_dealt_combination: bool = False
    royalties_must_be_declared: bool = False
    finnish_deuce: bool = False
    finnish_deuce_if_holder_fouled: DeuceIfHolderFouled = DeuceIfHolderFouled.NO_EFFECT
    surrender_allowed: bool = AUTO
    surrender_cost: int = AUTO
    naturals_enabled: bool = AUTO
    natural_values: Mapping[str, int] = DEFAULT_NATURAL_VALUES
    natural_claim: NaturalClaim = NaturalClaim.AUTOMATIC
    natural_cross_type: str = "tie"
    criss_cross_pairing: CrissCrossPairing = CrissCrossPairing.CROSS
    middle_mode: MiddleMode = MiddleMode.HIGH
    low_middle_qualifier: LowMiddleQualifier = LowMiddleQualifier.NONE
    low_middle_royalties: LowMiddleRoyalties = LowMiddleRoyalties.NONE
    wheel_rank: WheelRank = WheelRank.LOWEST
    fantasyland_enabled: bool = AUTO
    fl_progressive: bool = False
    fl_repeat_middle_min: FlRepeatMiddleMin = AUTO
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
        variant = coerce_option("variant", self.variant)
        defaults = VARIANT_DEFAULTS[variant]
        values: dict[str, Any] = {"variant": variant}
        for name in OPTION_NAMES[1:]:
            raw = getattr(self, name)
            if raw is AUTO:
                if name == "surrender_cost":
                    continue
                raw = defaults[name]
            values[name] = coerce_option(name, raw)

        if values["scoring_method"] == "custom":
            if values["scoring_custom"] is None:
                raise RulesError(
                    "scoring_method 'custom' needs scoring_custom = three integers v,o,s"
                    " (e.g. scoring_custom=1,1,2)"
                )
            line_values: tuple[int, int, int] = values["scoring_custom"]
        else:
            line_values = SCORING_METHODS[values["scoring_method"]]
        if values["royalty_table"] == "custom" and values["custom_royalties"] is None:
            raise RulesError(
                "royalty_table 'custom' needs custom_royalties, e.g."
                " custom_royalties=bottom.four_of_a_kind=1,bottom.straight_flush=2"
            )
        if values["fl_progressive"] and variant != "pineapple":
            raise RulesError(
                f"option 'fl_progressive' can be true only for variant 'pineapple', not {variant!r}"
            )
        low, scoop = surrender_bounds(line_values)
        if "surrender_cost" not in values:
            values["surrender_cost"] = default_surrender_cost(line_values)
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
        options = normalize_options(overrides)
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
        options = normalize_options(changes)
        current: dict[str, Any] = {name: getattr(self, name) for name in OPTION_NAMES}
        if "surrender_cost" not in options and self.surrender_cost == default_surrender_cost(
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
            result[name] = plain_option_value(name, value)
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
            word = option_word(str(key))
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
        options = normalize_options(items)
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
        return SCORING_METHODS[self.scoring_method]

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
        if len(name) == 3 and name[0] in RANK_LETTERS and name == name[0] * 3:
            name = "TRIPS"
        cards = {"QQ": 14, "KK": 15, "AA": 16, "TRIPS": 17}.get(name)
        if cards is None:
            raise RulesError(
                f"invalid Fantasyland entry {top_value_name!r}; allowed: QQ, KK, AA, trips"
            )
        return cards


def _differences(rules: Rules) -> dict[str, Any]:
    base = Rules.for_variant(rules.variant)
    result: dict[str, Any] = {}
    for name in OPTION_NAMES[1:]:
        value = getattr(rules, name)
        default = (
            default_surrender_cost(rules.line_values)
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
    return {name: plain_option_value(name, value) for name, value in _differences(rules).items()}


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
    options.update(normalize_options(overrides))
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
