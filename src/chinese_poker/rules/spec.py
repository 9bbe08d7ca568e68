"""The compiled form of a ruleset: what the scorer, the solvers, the kernels and the browser read.

A :class:`~chinese_poker.rules.Rules` is validated option values; a :class:`RulesSpec` is
those values turned into what the consumers execute: royalty tables indexed by line value,
Fantasyland thresholds as hand categories, the line order as a flag, the streets. It is
built once per ruleset (``rules.spec``, cached on the value) and is plain data, so it
serialises to JSON for the browser (:meth:`RulesSpec.to_json`).

>>> from chinese_poker.rules import rules_for
>>> spec = rules_for("ofc").spec
>>> spec.scoring.royalties.middle_of(0x6C << 16)  # a full house, queens full
12
>>> spec.scoring.fantasyland.entry_cards(0x1C << 16)  # QQ on top enters with 13 cards
13
>>> spec.variant.streets[1], spec.variant.hands_per_seat, spec.variant.player_counts
((1, 1), 1, (2, 4))
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Literal

from chinese_poker.cards import RANKS, parse_cards
from chinese_poker.evaluate import (
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    ONE_PAIR,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    evaluate_low27,
    low27_high_card,
)
from chinese_poker.rules.options import (
    FIVE_CARD_ROYALTY_KEYS,
    FlRepeatLimitScope,
    RoyaltyAward,
    RoyaltyTable,
    Variant,
)

if TYPE_CHECKING:
    from chinese_poker.rules import Rules

__all__ = [
    "FantasylandSpec",
    "NaturalsSpec",
    "RoyaltySpec",
    "RulesSpec",
    "ScoringSpec",
    "VariantSpec",
    "compile_spec",
]

Wheel = Literal["lowest", "second_highest"]

# (trips, straight, flush, full house, quads, straight flush, royal flush) per table (§7.4).
_AMERICAN_MIDDLE = (2, 4, 8, 12, 20, 30, 50)
_AMERICAN_BOTTOM = (0, 2, 4, 6, 10, 15, 25)
_WESTERN_MIDDLE = (2, 4, 8, 12, 16, 20, 30)
_WESTERN_BOTTOM = (0, 2, 4, 6, 8, 10, 15)
_FIVE_CATEGORIES = (THREE_OF_A_KIND, STRAIGHT, FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH)
_FIVE_KEYS = FIVE_CARD_ROYALTY_KEYS[:6]  # without the royal flush, which is apart
_ACE = 14  # the rank of an ace in a line value's key nibbles
_TEN_INDEX = 8  # a ten as a rank index (0 = deuce): the ceiling of [DP]'s low qualifier
# The [DP] low-middle royalties (§8.1) by the low's top card (rank index: 5 = seven,
# 6 = eight, 7 = nine), and the best low, 7-5-4-3-2 (any mixed suits), apart.
_DP_LOW_MIDDLE = (0, 0, 0, 0, 0, 4, 2, 1, 0, 0, 0, 0, 0)
_DP_LOW_BEST = 8
LOW_75432 = evaluate_low27(parse_cards("7c 5d 4h 3s 2c"))


@dataclass(frozen=True, slots=True)
class RoyaltySpec:
    """Royalties of the three lines (§7.4, §8.1) and how they are paid (§7.5).

    ``top_pair``/``top_trips`` are indexed by rank (0 = deuce), ``middle``/``bottom`` by
    hand category (0 = high card .. 8 = straight flush), with the royal flush apart.
    ``lookup`` holds the same per line by ``value >> 16`` (category and leading rank) of a
    high line value, the form the solvers and the kernels index.
    """

    table: RoyaltyTable
    top_pair: tuple[int, ...]
    top_trips: tuple[int, ...]
    middle: tuple[int, ...]
    middle_royal: int
    bottom: tuple[int, ...]
    bottom_royal: int
    low_middle_dp: bool
    low_middle: tuple[int, ...]  # a low middle's royalty by its top card's rank index
    low_middle_best: int  # ... and of the best low, 7-5-4-3-2
    award: RoyaltyAward
    split_ties: bool  # best_at_table: tied best holders share what each other seat pays
    max_per_hand: int | None
    dealt_combination: bool
    lookup: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]

    def top_of(self, value: int) -> int:
        """The royalty of a top of value ``value``."""
        cat = value >> 20
        if cat == ONE_PAIR:
            return self.top_pair[((value >> 16) & 15) - 2]
        if cat == THREE_OF_A_KIND:
            return self.top_trips[((value >> 16) & 15) - 2]
        return 0

    def middle_of(self, value: int) -> int:
        """The royalty of a high middle of value ``value``."""
        cat = value >> 20
        if cat == STRAIGHT_FLUSH and (value >> 16) & 15 == _ACE:
            return self.middle_royal
        return self.middle[cat]

    def low_middle_of(self, low: int) -> int:
        """The royalty of a low middle of low value ``low`` (0 without the [DP] table)."""
        high = low27_high_card(low)
        if high is None:
            return 0
        return self.low_middle_best if low == LOW_75432 else self.low_middle[high]

    def bottom_of(self, value: int) -> int:
        """The royalty of a bottom of value ``value``."""
        cat = value >> 20
        if cat == STRAIGHT_FLUSH and (value >> 16) & 15 == _ACE:
            return self.bottom_royal
        return self.bottom[cat]


@dataclass(frozen=True, slots=True)
class NaturalsSpec:
    """Classic naturals (§7.10): values, who claims, how different kinds compare."""

    values: Mapping[str, int]
    from_dealt_cards: bool  # three flushes / straights from the 13 cards, not the setting
    optional_claim: bool
    cross_order: tuple[str, ...] | None  # high to low; None: different kinds of equal value tie


@dataclass(frozen=True, slots=True)
class FantasylandSpec:
    """Fantasyland (§9): who enters with how many cards, who stays, the repeat limits."""

    enabled: bool
    entry_min_pair: int  # rank index of the weakest top pair that enters (10 = QQ)
    entry: Mapping[str, int]  # cards dealt on entry by the top that earned it: QQ .. trips
    repeat: int  # cards dealt on a repeat
    stay_middle_min: int | None  # weakest middle category that stays; None: the middle never does
    stay_bottom_min: int  # weakest bottom category that stays
    max_consecutive: int | None
    limit_scope: FlRepeatLimitScope
    button_moves: bool
    entry_by_top: tuple[int, ...] = ()  # entry_cards by ``top >> 16``, 0 for none

    def __post_init__(self) -> None:
        if not self.entry_by_top:
            by_top = [0] * 64  # a top's category is at most trips (3)
            for hi in range(64):
                if 2 <= hi & 15 <= _ACE:
                    by_top[hi] = self.entry_cards(hi << 16) or 0
            object.__setattr__(self, "entry_by_top", tuple(by_top))

    def entry_cards(self, top: int) -> int | None:
        """Cards for the next hand earned by a valid board's top of value ``top``, if any."""
        if not self.enabled:
            return None
        cat = top >> 20
        if cat == THREE_OF_A_KIND:
            return self.entry["trips"]
        if cat == ONE_PAIR:
            rank = ((top >> 16) & 15) - 2
            if rank >= self.entry_min_pair:
                return self.entry[RANKS[rank] * 2]
        return None

    def stays(self, top: int, middle: int, bottom: int) -> bool:
        """True if a valid Fantasyland board of these line values earns a repeat (§9.4)."""
        return self.enabled and (
            top >> 20 == THREE_OF_A_KIND
            or bottom >> 20 >= self.stay_bottom_min
            or (self.stay_middle_min is not None and middle >> 20 >= self.stay_middle_min)
        )


@dataclass(frozen=True, slots=True)
class ScoringSpec:
    """How a table settles (§7, §8): the scorer's and the kernels' one source."""

    line_values: tuple[int, int, int]  # (v, o, s) of §7.2
    scoop_value: int
    more_lines_won: bool  # overall unit for winning more lines, else for winning two
    #: Line points, overall unit and scoop of a showdown by its outcome: index
    #: 13 + 9 x top + 3 x middle + bottom, each +1 won, 0 tied, -1 lost (from A's side).
    showdown_points: tuple[int, ...]
    foul_value: int
    foul_is_scoop: bool
    foul_pays_royalties: bool
    misset_penalised: bool
    royalties: RoyaltySpec
    finnish_deuce: bool
    deuce_doubles_when_holder_fouled: bool
    lowball_middle: bool
    low_qualifier: bool  # a low middle must be ten-high with no pair, straight or flush
    #: The highest card a qualifying low middle may hold (rank index: 0 deuce .. 8 ten);
    #: None without a qualifier. The scorer and the browser's eval.js read it.
    low_qualifier_high: int | None
    wheel: Wheel
    naturals: NaturalsSpec | None  # None: no naturals in this game
    surrender_cost: int | None  # None: no surrender in this game
    fantasyland: FantasylandSpec
    parallel_pairing: bool  # Criss Cross hand 1 plays hand 1 only
    unit_value: float


@dataclass(frozen=True, slots=True)
class VariantSpec:
    """The shape of a hand (§5, §6): streets, seats, what the others see."""

    name: Variant
    open_face: bool
    streets: tuple[tuple[int, int], ...]  # per street: (cards dealt, cards placed)
    hands_per_seat: int
    player_counts: tuple[int, int]  # fewest and most players
    boards_face_down: bool  # classic boards are set face down and shown at the showdown
    fantasyland_face_down: bool  # a Fantasyland board is shown only when complete
    fantasyland_sizes: tuple[int, ...]  # every deal a Fantasyland player can get
    has_naturals: bool
    has_surrender: bool

    @property
    def throws_cards(self) -> bool:
        """Whether a street deals more cards than it places (Pineapple: 3, keep 2).

        >>> from chinese_poker.rules import rules_for
        >>> [rules_for(p).spec.variant.throws_cards for p in ("pineapple", "ofc", "turbo")]
        [True, False, False]
        """
        return any(dealt > placed for dealt, placed in self.streets)

    @property
    def criss_cross(self) -> bool:
        """Whether each seat plays two separate 13-card hands (§5, Criss Cross): the one
        place that says what two hands a seat mean.

        >>> from chinese_poker.rules import rules_for
        >>> [rules_for(p).spec.variant.criss_cross for p in ("criss-cross", "classic", "ofc")]
        [True, False, False]
        """
        return self.hands_per_seat == 2


@dataclass(frozen=True, slots=True)
class RulesSpec:
    """A ruleset compiled: :class:`ScoringSpec` plus :class:`VariantSpec`."""

    scoring: ScoringSpec
    variant: VariantSpec
    #: What a consumer works out once from this spec, by the consumer's name (the
    #: scorer's look-ups): held here, it lives and dies with the ruleset's one compiled
    #: spec, so no cache keyed by id() or by comparing whole rulesets is needed. Not part
    #: of the spec's value (equality, JSON).
    derived: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __getstate__(self) -> tuple[ScoringSpec, VariantSpec]:
        # What consumers derived is rebuilt on demand rather than pickled with the spec.
        return self.scoring, self.variant

    def __setstate__(self, state: tuple[ScoringSpec, VariantSpec]) -> None:
        object.__setattr__(self, "scoring", state[0])
        object.__setattr__(self, "variant", state[1])
        object.__setattr__(self, "derived", {})

    def opponent_hands(self, players: int) -> int:
        """How many opponent hands one hand settles against at a table of ``players``
        (Criss Cross: both of the opponent's, or one under parallel pairing).

        >>> from chinese_poker.rules import rules_for
        >>> rules_for("ofc").spec.opponent_hands(3), rules_for("criss-cross").spec.opponent_hands(2)
        (2, 2)
        """
        if self.variant.criss_cross:
            return 1 if self.scoring.parallel_pairing else 2
        return max(1, min(3, players - 1))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (the browser reads this; tuples become lists)."""
        return {"scoring": _plain(self.scoring), "variant": _plain(self.variant)}

    def to_json(self) -> str:
        """The spec as compact JSON text.

        >>> from chinese_poker.rules import rules_for
        >>> data = json.loads(rules_for("pineapple").spec.to_json())
        >>> data["variant"]["streets"][1], data["scoring"]["royalties"]["lookup"][2][0x8E]
        ([3, 2], 25)
        """
        return json.dumps(self.to_dict(), separators=(",", ":"))


def _plain(value: Any) -> Any:
    if hasattr(value, "__dataclass_fields__"):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value) if f.compare}
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if isinstance(value, str):
        return str(value)
    return value


# --------------------------------------------------------------------------- compiling


def _by_category(row: Sequence[int]) -> tuple[tuple[int, ...], int]:
    """Per category (0..8) royalty, and the royal flush, from a 7-entry row."""
    table = [0] * 9
    for cat, amount in zip(_FIVE_CATEGORIES, row[:6], strict=True):
        table[cat] = amount
    return tuple(table), row[6]


def _royalty_rows(
    rules: Rules,
) -> tuple[list[int], list[int], Sequence[int], Sequence[int]]:
    """(top pairs, top trips, middle row, bottom row) of ``rules.royalty_table``."""
    table = rules.royalty_table
    top_pair = [0] * 13
    top_trips = [0] * 13
    none = (0,) * 7
    if table in ("american", "western"):
        top_pair[4:] = range(1, 10)  # 66 = 1 .. AA = 9
        top_trips[:] = range(10, 23)  # 222 = 10 .. AAA = 22
        mid = _AMERICAN_MIDDLE if table == "american" else _WESTERN_MIDDLE
        # middle_trips_royalty is read for both tables (it only changes anything when 0).
        bottom = _AMERICAN_BOTTOM if table == "american" else _WESTERN_BOTTOM
        return top_pair, top_trips, (rules.middle_trips_royalty, *mid[1:]), bottom
    if table == "classic_standard":
        royal_mid, royal_bot = (20, 10) if rules.classic_royal_flush == "20/10" else (14, 7)
        return top_pair, [3] * 13, (0, 0, 0, 2, 8, 10, royal_mid), (0, 0, 0, 0, 4, 5, royal_bot)
    if table == "classic_flat":
        return top_pair, [1] * 13, (0, 0, 0, 1, 1, 1, 1), (0, 0, 0, 0, 1, 1, 1)
    if table == "custom":
        custom = rules.custom_royalties or {}
        top = custom.get("top", {})
        for r, rank in enumerate(RANKS):
            top_pair[r] = top.get(rank * 2, 0)
            top_trips[r] = top.get(rank * 3, 0)
        rows = []
        for line in ("middle", "bottom"):
            given = custom.get(line, {})
            row = [given.get(key, 0) for key in _FIVE_KEYS]
            # A royal flush is a straight flush: without its own entry it pays as one.
            row.append(given.get("royal_flush", row[-1]))
            rows.append(row)
        return top_pair, top_trips, rows[0], rows[1]
    return top_pair, top_trips, none, none


def _royalties(rules: Rules) -> RoyaltySpec:
    top_pair, top_trips, mid_row, bot_row = _royalty_rows(rules)
    middle, middle_royal = _by_category(mid_row)
    bottom, bottom_royal = _by_category(bot_row)
    low_dp = rules.middle_mode == "lowball_2_7" and rules.low_middle_royalties == "dp_table"
    partial = RoyaltySpec(
        table=rules.royalty_table,
        top_pair=tuple(top_pair),
        top_trips=tuple(top_trips),
        middle=middle,
        middle_royal=middle_royal,
        bottom=bottom,
        bottom_royal=bottom_royal,
        low_middle_dp=low_dp,
        low_middle=_DP_LOW_MIDDLE if low_dp else (0,) * 13,
        low_middle_best=_DP_LOW_BEST if low_dp else 0,
        award=rules.royalty_award,
        split_ties=rules.best_at_table_ties == "split",
        max_per_hand=rules.max_royalties_per_hand,
        dealt_combination=rules.royalty_for_dealt_combination,
        lookup=((), (), ()),
    )
    rows: list[tuple[int, ...]] = []
    for line_of in (partial.top_of, partial.middle_of, partial.bottom_of):
        row = [0] * 256
        for hi in range(256):
            if hi >> 4 <= STRAIGHT_FLUSH and 2 <= (hi & 15) <= _ACE:
                row[hi] = line_of(hi << 16)
        rows.append(tuple(row))
    return replace(partial, lookup=(rows[0], rows[1], rows[2]))


def _fantasyland(rules: Rules) -> FantasylandSpec:
    enabled = rules.is_open_face and rules.fantasyland_enabled
    entry: dict[str, int] = {}
    repeat = 0
    if rules.is_open_face:
        for name in ("QQ", "KK", "AA", "trips"):
            entry[name] = rules.fantasyland_cards(name, repeat=False)
        repeat = rules.fantasyland_cards(None, repeat=True)
    middle_min = {"full_house": FULL_HOUSE, "four_of_a_kind": FOUR_OF_A_KIND}.get(
        rules.fl_repeat_middle_min
    )
    return FantasylandSpec(
        enabled=enabled,
        entry_min_pair=RANKS.index(str(rules.fl_entry_min)[0]),
        entry=entry,
        repeat=repeat,
        stay_middle_min=middle_min,
        stay_bottom_min=FOUR_OF_A_KIND,
        max_consecutive=rules.fl_max_consecutive,
        limit_scope=rules.fl_repeat_limit_scope,
        button_moves=rules.button_moves_before_fl_hand,
    )


def _scoring(rules: Rules) -> ScoringSpec:
    naturals = None
    if rules.is_classic and rules.naturals_enabled:
        cross = rules.natural_cross_type
        naturals = NaturalsSpec(
            values=dict(rules.natural_values),
            from_dealt_cards=rules.natural_source == "dealt_cards",
            optional_claim=rules.natural_claim == "optional",
            cross_order=None if cross == "tie" else tuple(cross.split(">")),
        )
    lowball = rules.middle_mode == "lowball_2_7"
    qualifier = lowball and rules.low_middle_qualifier == "ten_high_no_pair"
    more_lines = rules.overall_unit_rule == "more_lines_won"
    return ScoringSpec(
        line_values=rules.line_values,
        scoop_value=rules.scoop_value,
        more_lines_won=more_lines,
        showdown_points=_showdown_points(rules.line_values, more_lines),
        foul_value=rules.foul_value,
        foul_is_scoop=rules.foul_penalty == "scoop_value",
        foul_pays_royalties=rules.foul_pays_opponent_royalties,
        misset_penalised=rules.misset_rule == "penalty",
        royalties=_royalties(rules),
        finnish_deuce=rules.finnish_deuce,
        deuce_doubles_when_holder_fouled=(
            rules.finnish_deuce_if_holder_fouled == "doubles_opponent_line"
        ),
        lowball_middle=lowball,
        low_qualifier=qualifier,
        low_qualifier_high=_TEN_INDEX if qualifier else None,
        wheel="second_highest" if rules.wheel_rank == "second_highest" else "lowest",
        naturals=naturals,
        surrender_cost=(
            rules.surrender_cost if rules.is_classic and rules.surrender_allowed else None
        ),
        fantasyland=_fantasyland(rules),
        parallel_pairing=rules.variant == "criss_cross" and rules.criss_cross_pairing == "parallel",
        unit_value=rules.unit_value,
    )


def _showdown_points(line_values: tuple[int, int, int], more_lines: bool) -> tuple[int, ...]:
    v, o, s = line_values
    out = []
    for outcome in itertools.product((-1, 0, 1), repeat=3):
        wins, losses = outcome.count(1), outcome.count(-1)
        points = v * (wins - losses)
        a_gets, b_gets = (wins > losses, losses > wins) if more_lines else (wins >= 2, losses >= 2)
        points += o * (a_gets - b_gets) + s * ((wins == 3) - (losses == 3))
        out.append(points)
    return tuple(out)


def _variant(rules: Rules, scoring: ScoringSpec) -> VariantSpec:
    counts = rules.player_counts
    fl = scoring.fantasyland
    sizes = tuple(sorted({*fl.entry.values(), fl.repeat})) if fl.enabled else ()
    return VariantSpec(
        name=rules.variant,
        open_face=rules.is_open_face,
        streets=rules.streets,
        hands_per_seat=2 if rules.variant == "criss_cross" else 1,
        player_counts=(counts.start, counts.stop - 1),
        boards_face_down=rules.is_classic,
        fantasyland_face_down=fl.enabled,
        fantasyland_sizes=sizes,
        has_naturals=scoring.naturals is not None,
        has_surrender=scoring.surrender_cost is not None,
    )


def compile_spec(rules: Rules) -> RulesSpec:
    """Compile ``rules`` (use ``rules.spec``, which caches the result on the value)."""
    scoring = _scoring(rules)
    return RulesSpec(scoring=scoring, variant=_variant(rules, scoring))
