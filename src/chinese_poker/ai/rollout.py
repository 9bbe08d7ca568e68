"""Fast open-face playouts: the policy and the Monte Carlo kernels behind the ``mc`` bot.

A *rollout* deals the cards a seat cannot see (a uniform shuffle of everything not
visible to it: the deck, the opponents' discards, hidden Fantasyland deals) and plays
the hand out: every seat that still has streets to play places them with the **fast
policy**, and the completed boards are settled exactly like the scorer does (line
points, the overall unit and the scoop, royalties under the award mode, the Finnish
deuce, fouls) plus a value for earning (or keeping) Fantasyland.

The fast policy places one street at a time. It scores each legal placement of the
street by the average, over a few random completions of the empty slots drawn from
the cards still undealt, of a simple board value:

* royalties of the three lines,
* the Fantasyland entry value when the top qualifies,
* ``w`` x the line strength: how often a line of that category and rank beats the same
  line of a typical completed board (``+1`` always, ``-1`` never; estimated from the
  policy's own boards, see :func:`strength_table`),
* minus ``foul_penalty`` when the completion fouls.

It takes the best placement, so it keeps its board valid, puts a card on top only when
that is safe, and chases royalties and Fantasyland when the completions say they come
often enough. A plain random completion would undervalue every draw: it puts the cards
to come into random lines and ignores that Pineapple keeps 2 of 3. So each completion
draws the extra cards the player will also see, and counts the best of ``choice``
random ways to use them (see :func:`_draw_fills`).

Everything hot runs in numba kernels (plain Python without numba, much slower) on
card *code sums* (see :mod:`chinese_poker.evaluate`): a line's value is one table
look-up of the sum of its cards' codes, so completing a line is an addition.

Common random numbers: every candidate placement of one decision is played out on the
same shuffled decks, and the opponents' boards (which do not depend on our placement)
are completed once per deck, so differences between candidates are measured precisely.

>>> from chinese_poker.rules import rules_for
>>> from chinese_poker.engine import Table
>>> table = Table(rules_for("pineapple"), 2, seed=5)
>>> view = table.view(table.to_act[0])
>>> sit = Situation.from_view(view)
>>> len(sit.pool), sit.events_who.tolist()
(47, [0, -1, 0, -1, 0, -1, 0, -1, 0])
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from functools import lru_cache
from importlib import resources
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt

from chinese_poker import evaluate as _ev
from chinese_poker.cards import Card, parse_card
from chinese_poker.engine.actions import Decision, Place
from chinese_poker.engine.views import View
from chinese_poker.rules import Rules, RulesError, require_supported

__all__ = [
    "FL_VALUES",
    "Candidate",
    "LineStrength",
    "RolloutStats",
    "Situation",
    "Tables",
    "fantasyland_value",
    "line_values",
    "policy_place",
    "run_rollouts",
    "static_scores",
    "strength_table",
    "tables_for",
]

F = TypeVar("F", bound=Callable[..., Any])
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
I16 = npt.NDArray[np.int16]

DEUCE_OF_SPADES = parse_card("2s")
assert DEUCE_OF_SPADES == 0  # the kernels test ``card == 0`` for the Finnish deuce


def _jit(fn: F) -> F:
    try:
        import numba
    except ImportError:  # pragma: no cover - numba is optional
        return fn
    return cast(F, numba.njit(cache=True, nogil=True)(fn))


def _jit_inline(fn: F) -> F:
    """A small kernel helper compiled into its callers (the innermost loops)."""
    try:
        import numba
    except ImportError:  # pragma: no cover - numba is optional
        return fn
    return cast(F, numba.njit(cache=True, nogil=True, inline="always")(fn))


# =========================================================================== Fantasyland

#: Value, in points, of *playing* one Fantasyland hand with this many cards under 1-6
#: scoring: measured heads-up as the mc bot in Fantasyland against the mc bot playing
#: normally (``bench/bench_bots.py --fl``: 10.4, 12.7, 17.8, 20.9, 25.1) and taken a
#: little lower, since a stronger opponent fouls less (docs/bots-research.md).
FL_VALUES: dict[int, float] = {13: 9.5, 14: 11.5, 15: 16.0, 16: 19.0, 17: 22.5}

#: Measured chance of staying (a repeat) from a Fantasyland hand of this many cards.
FL_STAY_CHANCE: dict[int, float] = {13: 0.08, 14: 0.10, 15: 0.21, 16: 0.33, 17: 0.59}


def fantasyland_value(rules: Rules, cards: int, *, repeat_possible: bool = True) -> float:
    """Value of earning a Fantasyland deal of ``cards`` cards: the hand itself plus the
    chance of a repeat (worth one repeat deal; the default limit allows one repeat).

    >>> from chinese_poker.rules import rules_for
    >>> fantasyland_value(rules_for("ofc"), 13) < fantasyland_value(rules_for("pineapple"), 14)
    True
    """
    if not rules.is_open_face or not rules.fantasyland_enabled:
        return 0.0
    value = FL_VALUES.get(cards, FL_VALUES[17])
    limit = rules.fl_max_consecutive
    if repeat_possible and (limit is None or limit >= 2):
        repeat = rules.fantasyland_cards(None, repeat=True)
        value += FL_STAY_CHANCE.get(cards, 0.3) * FL_VALUES[repeat]
    return value * _scale(rules)


def _scale(rules: Rules) -> float:
    """Points scale of the rules relative to 1-6 with american royalties (the estimate's)."""
    return rules.scoop_value / 6.0 if rules.scoop_value > 0 else 1.0


# =========================================================================== tables


# Named indices of the two parameter arrays the kernels read. ``Tables.policy`` (floats)
# steers the fast policy; ``Tables.scoring`` (integers) is the settlement of the compiled
# ScoringSpec, which the kernels reproduce exactly (tests/test_kernel_property.py).
(
    POL_W,
    POL_FOUL_PENALTY,
    POL_STAY_VALUE,
    POL_STAY_MIDDLE_MIN,
    POL_FL_ENABLED,
    POL_THROWN,
    POL_STAY_BOTTOM_MIN,
    POL_PICK_MAX,
    POL_REPAIR,
    POL_CLIMB,
    POL_CLIMB_ROUNDS,
    POL_REPAIR_SPARE,
    POL_FL_PER_OPP,
    POL_OPP_FOUL_SCALE,
    POL_OPP_REPAIR,
    POL_OPP_FILLS,
    POL_EXACT_LAST,
    POL_RESIDUAL,
    POL_OPP_RESIDUAL,
) = range(19)
(
    SC_V, SC_O, SC_S, SC_MORE_LINES, SC_FOUL_VALUE, SC_FOUL_PAYS, SC_AWARD, SC_FINNISH,
    SC_DEUCE_FOULED, SC_PENALISED, SC_MAX_ONE, SC_SPLIT_TIES, SC_SHOWDOWN,
) = range(13)  # fmt: skip
#: SC_SHOWDOWN starts the spec's 27 showdown points (lines, overall unit and scoop by
#: outcome, index 13 + 9 x top + 3 x middle + bottom with +1 won, 0 tied, -1 lost).
#: The royalty award modes by their kernel number (the order of the SC_AWARD values).
AWARDS: tuple[str, ...] = ("net", "winner_only", "cancel", "best_at_table")
AWARD_NET, AWARD_WINNER_ONLY, AWARD_CANCEL, AWARD_BEST = range(4)

#: The option values the kernels model; tables_for refuses the rest with a RulesError.
SUPPORTED: dict[str, tuple[object, ...]] = {
    "variant": ("ofc", "pineapple", "turbo"),
    "middle_mode": ("high",),
    "royalty_award": AWARDS,
    "best_at_table_ties": ("each_in_full", "split"),
    "misset_rule": ("penalty", "ignore"),
    "max_royalties_per_hand": (None, 1),
    "royalty_for_dealt_combination": (False,),
}


class LineStrength(StrEnum):
    """Whose completed boards a line-strength table was estimated from."""

    #: The policy's own boards, completed from scratch with no opponent (``_STRENGTH_CDF``;
    #: every level's of ``mc`` and ``mc-v1``, in every variant).
    POLICY = "policy"
    #: The boards the bots make at the table: heads-up Pineapple hands of ``mc`` against
    #: ``mc-v1`` (``data/line_strength_table.json``, ``bench/bench_bots.py
    #: --strength-from-play``), so that a line's strength is its chance against the line
    #: the bots make at the table. Estimated from Pineapple boards only; an experiment
    #: (docs/bots-research.md, *Round nine*).
    TABLE = "table"


class BoardValue(IntEnum):
    """Which learned value of a partial board the policy reads (``Level.value``)."""

    #: None: the policy values a placement by its completions.
    NONE = 0
    #: Fitted by value iteration over the policy's own solitaire boards
    #: (``data/board_value.json``; docs/bots-research.md, *Round twelve*).
    ITERATED = 1
    #: That table refined on the means of ``mc``'s own searches in self-play, head to
    #: head (``data/board_value_search.json``; docs/bots-research.md, *Round fourteen*).
    SEARCH = 2
    #: Value iteration as ``ITERATED``, with features of the live cards
    #: (:data:`LIVE_FEATURES`) and an opponent's streets dealt from the same deck
    #: (``data/board_value_live.json``; docs/bots-research.md, *Round fifteen*).
    LIVE = 3


@dataclass(frozen=True)
class Tables:
    """Everything the kernels need about the rules, as arrays (built once per rules)."""

    rules: Rules
    codes: I64  # card -> code (rank weight << 12 | suit weight)
    t3: I64  # three-card value by (code sum >> 12)
    t5: I64  # five-card value by (code sum >> 12) + flush offset
    fo: I64  # flush offset by (code sum & 4095)
    roy: F64  # royalty by (line, value >> 16)
    flv: F64  # Fantasyland entry value by (top value >> 16); 0 when it does not qualify
    strength: F64  # line strength in [-1, 1] by (line, value >> 16)
    policy: F64  # by the POL_* indices
    scoring: I64  # by the SC_* indices
    #: The learned correction of the policy's completion value by (cards placed, feature),
    #: :func:`residual_features`; zeros (and weight 0 in ``policy``) unless a level asks.
    residual: F64 = dataclasses.field(default_factory=lambda: _NO_RESIDUAL)

    @property
    def vf(self) -> tuple[I16, F64]:
        """The learned value correction as the kernels take it: (partial-line classes,
        residual table)."""
        return (partial_line_table(), self.residual)

    @property
    def line_bonus(self) -> F64:
        """What the policy values a line at beyond its royalty, by line and ``value >> 16``:
        its weight ``w`` times the line strength (the ``line_bonus`` of
        :func:`~chinese_poker.ai.fantasyland.fantasyland_boards`)."""
        return np.asarray(self.policy[POL_W] * self.strength, dtype=np.float64)

    @property
    def ev(self) -> tuple[I64, I64, I64, I64]:
        """The evaluation look-ups as the kernels take them: (codes, t3, t5, fo)."""
        return (self.codes, self.t3, self.t5, self.fo)

    def with_stay(self, stay_value: float) -> Tables:
        """These tables with another value for staying in Fantasyland."""
        policy = self.policy.copy()
        policy[POL_STAY_VALUE] = stay_value
        return dataclasses.replace(self, policy=policy)

    def with_policy(
        self,
        *,
        foul_scale: float = 1.0,
        strength_scale: float = 1.0,
        fl_scale: float = 1.0,
        pick_max: float = 1.0,
        repair: int = 0,
        climb: int = 0,
        climb_rounds: int = 2,
        repair_spare: bool = False,
        fl_per_opponent: bool = False,
        opp_foul_scale: float = 1.0,
        opp_repair: int = -1,
        opp_fills: int = -1,
        line_strength: LineStrength = LineStrength.POLICY,
        exact_last: bool = False,
        residual: float = 0.0,
        opp_residual: float = -1.0,
        value: int = 0,
    ) -> Tables:
        """These tables with the fast policy's foul penalty and line-strength weight, and
        the value of earning or keeping Fantasyland, multiplied by these factors; a
        completion worth ``pick_max`` x its best arrangement + the rest x their mean;
        ``repair``: rounds of swaps that try to turn a completion whose best arrangement
        fouls into a valid board (:func:`_repair`); ``climb``: how many of a street's
        best placements (2 or more; 0, none) get their completions improved by up to
        ``climb_rounds`` rounds of the best swap before the policy chooses among them
        (:func:`_climb`);
        ``repair_spare``: the repair may also swap a placed card for one the completion
        throws (Pineapple); ``fl_per_opponent``: a rollout's result counts earning (or
        keeping) Fantasyland once per opponent, as it counts the points of the hand (the
        values are heads-up figures, and a Fantasyland hand is played against every
        opponent at the table); ``opp_foul_scale``, ``opp_repair`` and ``opp_fills``: the
        foul penalty factor, repair rounds and completions per placement of the policy
        that completes the *opponents'* boards in the rollouts (-1, and for
        ``opp_fills`` any number below 1: ours), so that they can foul about as often
        as real players do (the policy alone fouls three to four times as often; the
        opponents' completions are played once per rollout for all candidates);
        ``line_strength``: whose boards the line-strength table was estimated from
        (:class:`LineStrength`); ``exact_last``: in a rollout our last street is placed
        by the points it scores against the opponents' completed boards, Fantasyland
        included, as a player who saw them would place it (:func:`_exact_street`), not by
        the policy's board value; ``residual``: the weight of the learned correction of
        the policy's completion value (:mod:`chinese_poker.ai.residual`; 0, none), which
        needs a table trained for these rules (a RulesError if none was);
        ``opp_residual``: that weight for the policy that completes the opponents' boards
        (-1: ours); ``value``: the table the kernels read is the learned value of a
        partial board (:mod:`chinese_poker.ai.value`; a :class:`BoardValue`, 0 none),
        which a policy with no completions (``fills`` 0) places its streets by, instead
        of the correction (so ``residual`` must then be 0); a table wider than
        :data:`RES_FEATURES` (``BoardValue.LIVE``) also reads the live cards."""
        policy = self.policy.copy()
        table = self.residual
        if value:
            if residual != 0.0 or opp_residual > 0.0:
                raise ValueError("the learned value and the correction share one table")
            from chinese_poker.ai.value import value_table  # the data, on demand

            table = value_table(self.rules, BoardValue(value))
        elif residual != 0.0 or opp_residual > 0.0:
            from chinese_poker.ai.residual import residual_table  # the data, on demand

            table = residual_table(self.rules)
        policy[POL_RESIDUAL] = residual
        policy[POL_OPP_RESIDUAL] = opp_residual
        policy[POL_OPP_FOUL_SCALE] = opp_foul_scale
        policy[POL_OPP_REPAIR] = opp_repair
        policy[POL_OPP_FILLS] = opp_fills
        policy[POL_PICK_MAX] = pick_max
        policy[POL_REPAIR] = repair
        policy[POL_CLIMB] = climb
        policy[POL_CLIMB_ROUNDS] = climb_rounds
        policy[POL_REPAIR_SPARE] = float(repair_spare)
        policy[POL_FL_PER_OPP] = float(fl_per_opponent)
        policy[POL_EXACT_LAST] = float(exact_last)
        policy[POL_FOUL_PENALTY] *= foul_scale
        policy[POL_W] *= strength_scale
        policy[POL_STAY_VALUE] *= fl_scale
        return dataclasses.replace(
            self,
            policy=policy,
            flv=self.flv * fl_scale,
            strength=strength_table(line_strength),
            residual=table,
        )


def _scoring_array(rules: Rules) -> I64:
    sc = rules.spec.scoring
    v, o, s = sc.line_values
    row = [0] * SC_SHOWDOWN
    row[SC_V], row[SC_O], row[SC_S] = v, o, s
    row[SC_MORE_LINES] = int(sc.more_lines_won)
    row[SC_FOUL_VALUE] = sc.foul_value
    row[SC_FOUL_PAYS] = int(sc.foul_pays_royalties)
    row[SC_AWARD] = AWARDS.index(sc.royalties.award)
    row[SC_FINNISH] = int(sc.finnish_deuce)
    row[SC_DEUCE_FOULED] = int(sc.deuce_doubles_when_holder_fouled)
    row[SC_PENALISED] = int(sc.misset_penalised)
    row[SC_MAX_ONE] = int(sc.royalties.max_per_hand == 1)
    row[SC_SPLIT_TIES] = int(sc.royalties.split_ties)
    return np.array([*row, *sc.showdown_points], dtype=np.int64)


def models(rules: Rules) -> bool:
    """Whether the kernels model every option of ``rules`` (else :func:`tables_for`
    refuses them): the bots that play through rollouts fall back on simpler play then.

    >>> from chinese_poker.rules import rules_for
    >>> models(rules_for("pineapple")), models(rules_for("ofc", middle_mode="lowball_2_7"))
    (True, False)
    """
    try:
        require_supported(rules, "the playout kernels", **SUPPORTED)
    except RulesError:
        return False
    return True


@lru_cache(maxsize=32)
def tables_for(rules: Rules) -> Tables:
    """The kernel tables of ``rules``; a RulesError names any option they do not model.

    >>> from chinese_poker.rules import rules_for
    >>> tables_for(rules_for("ofc", royalty_for_dealt_combination=True))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    chinese_poker.rules.RulesError: royalty_for_dealt_combination=True is not modelled by the...
    """
    require_supported(rules, "the playout kernels", **SUPPORTED)
    spec = rules.spec
    fl = spec.scoring.fantasyland
    roy = np.asarray(spec.scoring.royalties.lookup, dtype=np.float64)
    flv = np.zeros(256, dtype=np.float64)
    for hi in range(256):
        if hi >> 4 <= 8 and 2 <= hi & 15 <= 14:
            cards = fl.entry_cards(hi << 16)
            if cards is not None:
                flv[hi] = fantasyland_value(rules, cards)
    v, o, s = spec.scoring.line_values
    stay = FL_VALUES[fl.repeat] * _scale(rules) if fl.enabled else 0.0
    # The policy's weights: a line is worth about v, plus a share of the overall unit and
    # the scoop; a foul costs the foul payment plus the opponent's typical royalties
    # (about 3 points) and whatever our own board would have earned.
    w = v + (o + s) / 3.0
    foul_penalty = spec.scoring.foul_value + 3.0 * _scale(rules)
    # Cards a player will see but throw, per card still to place (Pineapple: 1 per 2).
    later = spec.variant.streets[1:]
    thrown = sum(d - p for d, p in later) / max(1, sum(p for _, p in later))
    policy = [0.0] * (POL_OPP_RESIDUAL + 1)
    # A completion is worth its best arrangement (1) or a blend of the best and the mean
    # of the arrangements tried (docs/bots-research.md, the ablation): 1 unless a level says so.
    policy[POL_PICK_MAX] = 1.0
    policy[POL_CLIMB_ROUNDS] = 2  # read only when a level climbs (POL_CLIMB > 0)
    policy[POL_OPP_FOUL_SCALE] = 1.0
    policy[POL_OPP_REPAIR] = -1  # the opponents' completions repair as ours do
    policy[POL_OPP_FILLS] = -1  # and are as many
    policy[POL_OPP_RESIDUAL] = -1  # and are corrected as ours are
    policy[POL_W], policy[POL_FOUL_PENALTY], policy[POL_STAY_VALUE] = w, foul_penalty, stay
    policy[POL_STAY_MIDDLE_MIN] = 99 if fl.stay_middle_min is None else fl.stay_middle_min
    policy[POL_FL_ENABLED] = float(fl.enabled)
    policy[POL_THROWN] = thrown
    policy[POL_STAY_BOTTOM_MIN] = fl.stay_bottom_min
    lines = _ev.line_tables(spec.scoring.wheel)
    return Tables(
        rules=rules,
        codes=lines.card_codes_array.astype(np.int64),
        t3=lines.line3_array.astype(np.int64),
        t5=lines.line5_array.astype(np.int64),
        fo=lines.flush_offset_array.astype(np.int64),
        roy=roy,
        flv=flv,
        strength=strength_table(),
        policy=np.array(policy, dtype=np.float64),
        scoring=_scoring_array(rules),
    )


# Line strength: for each line and (category, leading rank) bucket (``value >> 16``), the
# chance that a typical completed valid board's same line is weaker, and that it is
# stronger. Estimated from 40,000 boards the policy itself completed from scratch in
# Pineapple, iterated twice from a rougher table (``bench/bench_bots.py --strength``
# prints a fresh estimate in this form); the same table serves OFC and Turbo.
# fmt: off
_STRENGTH_CDF: tuple[tuple[tuple[int, float, float], ...], ...] = (
    (  # top
        (0x002, 0.0000, 1.0000), (0x003, 0.0000, 1.0000), (0x004, 0.0000, 0.9999),
        (0x005, 0.0001, 0.9986), (0x006, 0.0014, 0.9957), (0x007, 0.0043, 0.9892),
        (0x008, 0.0108, 0.9776), (0x009, 0.0224, 0.9574), (0x00a, 0.0426, 0.9244),
        (0x00b, 0.0756, 0.8714), (0x00c, 0.1286, 0.7552), (0x00d, 0.2448, 0.5501),
        (0x00e, 0.4499, 0.2617), (0x012, 0.7383, 0.2272), (0x013, 0.7728, 0.1977),
        (0x014, 0.8023, 0.1727), (0x015, 0.8273, 0.1539), (0x016, 0.8461, 0.1330),
        (0x017, 0.8670, 0.1109), (0x018, 0.8891, 0.0913), (0x019, 0.9087, 0.0746),
        (0x01a, 0.9254, 0.0608), (0x01b, 0.9392, 0.0502), (0x01c, 0.9498, 0.0280),
        (0x01d, 0.9720, 0.0117), (0x01e, 0.9883, 0.0004), (0x032, 0.9996, 0.0003),
        (0x033, 0.9997, 0.0002), (0x034, 0.9998, 0.0002), (0x035, 0.9998, 0.0001),
        (0x036, 0.9999, 0.0001), (0x037, 0.9999, 0.0001), (0x038, 0.9999, 0.0001),
        (0x039, 0.9999, 0.0000), (0x03a, 1.0000, 0.0000), (0x03b, 1.0000, 0.0000),
        (0x03c, 1.0000, 0.0000), (0x03d, 1.0000, 0.0000), (0x03e, 1.0000, 0.0000),
    ),
    (  # middle
        (0x002, 0.0000, 1.0000), (0x003, 0.0000, 1.0000), (0x004, 0.0000, 1.0000),
        (0x005, 0.0000, 1.0000), (0x006, 0.0000, 1.0000), (0x007, 0.0000, 1.0000),
        (0x008, 0.0000, 1.0000), (0x009, 0.0000, 0.9998), (0x00a, 0.0002, 0.9990),
        (0x00b, 0.0010, 0.9963), (0x00c, 0.0037, 0.9870), (0x00d, 0.0130, 0.9524),
        (0x00e, 0.0476, 0.8521), (0x012, 0.1479, 0.8116), (0x013, 0.1884, 0.7681),
        (0x014, 0.2319, 0.7215), (0x015, 0.2785, 0.6718), (0x016, 0.3282, 0.6173),
        (0x017, 0.3827, 0.5661), (0x018, 0.4339, 0.5133), (0x019, 0.4867, 0.4614),
        (0x01a, 0.5386, 0.4115), (0x01b, 0.5885, 0.3624), (0x01c, 0.6376, 0.3201),
        (0x01d, 0.6799, 0.2694), (0x01e, 0.7306, 0.2173), (0x022, 0.7827, 0.2173),
        (0x023, 0.7827, 0.2142), (0x024, 0.7858, 0.2078), (0x025, 0.7922, 0.1987),
        (0x026, 0.8013, 0.1880), (0x027, 0.8120, 0.1732), (0x028, 0.8268, 0.1563),
        (0x029, 0.8437, 0.1382), (0x02a, 0.8618, 0.1186), (0x02b, 0.8814, 0.0990),
        (0x02c, 0.9010, 0.0830), (0x02d, 0.9170, 0.0671), (0x02e, 0.9329, 0.0528),
        (0x032, 0.9472, 0.0494), (0x033, 0.9506, 0.0451), (0x034, 0.9549, 0.0414),
        (0x035, 0.9586, 0.0381), (0x036, 0.9619, 0.0342), (0x037, 0.9658, 0.0305),
        (0x038, 0.9695, 0.0266), (0x039, 0.9734, 0.0232), (0x03a, 0.9768, 0.0195),
        (0x03b, 0.9805, 0.0161), (0x03c, 0.9839, 0.0134), (0x03d, 0.9866, 0.0109),
        (0x03e, 0.9891, 0.0088), (0x042, 0.9912, 0.0088), (0x043, 0.9912, 0.0088),
        (0x044, 0.9912, 0.0088), (0x045, 0.9912, 0.0081), (0x046, 0.9919, 0.0077),
        (0x047, 0.9923, 0.0074), (0x048, 0.9926, 0.0071), (0x049, 0.9929, 0.0069),
        (0x04a, 0.9931, 0.0067), (0x04b, 0.9933, 0.0064), (0x04c, 0.9936, 0.0061),
        (0x04d, 0.9939, 0.0057), (0x04e, 0.9943, 0.0053), (0x052, 0.9947, 0.0053),
        (0x053, 0.9947, 0.0053), (0x054, 0.9947, 0.0053), (0x055, 0.9947, 0.0053),
        (0x056, 0.9947, 0.0053), (0x057, 0.9947, 0.0053), (0x058, 0.9947, 0.0053),
        (0x059, 0.9947, 0.0053), (0x05a, 0.9947, 0.0051), (0x05b, 0.9949, 0.0046),
        (0x05c, 0.9954, 0.0042), (0x05d, 0.9958, 0.0038), (0x05e, 0.9962, 0.0028),
        (0x062, 0.9972, 0.0023), (0x063, 0.9977, 0.0021), (0x064, 0.9979, 0.0019),
        (0x065, 0.9981, 0.0017), (0x066, 0.9983, 0.0015), (0x067, 0.9985, 0.0013),
        (0x068, 0.9987, 0.0010), (0x069, 0.9990, 0.0009), (0x06a, 0.9991, 0.0006),
        (0x06b, 0.9994, 0.0003), (0x06c, 0.9997, 0.0002), (0x06d, 0.9998, 0.0001),
        (0x06e, 0.9999, 0.0001), (0x072, 0.9999, 0.0001), (0x073, 0.9999, 0.0001),
        (0x074, 0.9999, 0.0001), (0x075, 0.9999, 0.0001), (0x076, 0.9999, 0.0001),
        (0x077, 0.9999, 0.0001), (0x078, 0.9999, 0.0001), (0x079, 0.9999, 0.0000),
        (0x07a, 1.0000, 0.0000), (0x07b, 1.0000, 0.0000), (0x07c, 1.0000, 0.0000),
        (0x07d, 1.0000, 0.0000), (0x07e, 1.0000, 0.0000), (0x082, 1.0000, 0.0000),
        (0x083, 1.0000, 0.0000), (0x084, 1.0000, 0.0000), (0x085, 1.0000, 0.0000),
        (0x086, 1.0000, 0.0000), (0x087, 1.0000, 0.0000), (0x088, 1.0000, 0.0000),
        (0x089, 1.0000, 0.0000), (0x08a, 1.0000, 0.0000), (0x08b, 1.0000, 0.0000),
        (0x08c, 1.0000, 0.0000), (0x08d, 1.0000, 0.0000), (0x08e, 1.0000, 0.0000),
    ),
    (  # bottom
        (0x002, 0.0000, 1.0000), (0x003, 0.0000, 1.0000), (0x004, 0.0000, 1.0000),
        (0x005, 0.0000, 1.0000), (0x006, 0.0000, 1.0000), (0x007, 0.0000, 1.0000),
        (0x008, 0.0000, 1.0000), (0x009, 0.0000, 1.0000), (0x00a, 0.0000, 1.0000),
        (0x00b, 0.0000, 1.0000), (0x00c, 0.0000, 0.9999), (0x00d, 0.0001, 0.9988),
        (0x00e, 0.0012, 0.9918), (0x012, 0.0082, 0.9871), (0x013, 0.0129, 0.9807),
        (0x014, 0.0193, 0.9736), (0x015, 0.0264, 0.9653), (0x016, 0.0347, 0.9540),
        (0x017, 0.0460, 0.9416), (0x018, 0.0584, 0.9263), (0x019, 0.0737, 0.9079),
        (0x01a, 0.0921, 0.8853), (0x01b, 0.1147, 0.8597), (0x01c, 0.1403, 0.8340),
        (0x01d, 0.1660, 0.8076), (0x01e, 0.1924, 0.7801), (0x022, 0.2199, 0.7801),
        (0x023, 0.2199, 0.7767), (0x024, 0.2233, 0.7703), (0x025, 0.2297, 0.7599),
        (0x026, 0.2401, 0.7462), (0x027, 0.2538, 0.7292), (0x028, 0.2708, 0.7068),
        (0x029, 0.2932, 0.6797), (0x02a, 0.3203, 0.6436), (0x02b, 0.3564, 0.5988),
        (0x02c, 0.4012, 0.5530), (0x02d, 0.4470, 0.5004), (0x02e, 0.4996, 0.4494),
        (0x032, 0.5506, 0.4409), (0x033, 0.5591, 0.4320), (0x034, 0.5680, 0.4224),
        (0x035, 0.5776, 0.4119), (0x036, 0.5881, 0.4020), (0x037, 0.5980, 0.3899),
        (0x038, 0.6101, 0.3774), (0x039, 0.6226, 0.3637), (0x03a, 0.6363, 0.3489),
        (0x03b, 0.6511, 0.3335), (0x03c, 0.6665, 0.3190), (0x03d, 0.6810, 0.3040),
        (0x03e, 0.6960, 0.2896), (0x042, 0.7104, 0.2896), (0x043, 0.7104, 0.2896),
        (0x044, 0.7104, 0.2896), (0x045, 0.7104, 0.2853), (0x046, 0.7147, 0.2813),
        (0x047, 0.7187, 0.2769), (0x048, 0.7231, 0.2721), (0x049, 0.7279, 0.2675),
        (0x04a, 0.7325, 0.2622), (0x04b, 0.7378, 0.2563), (0x04c, 0.7437, 0.2500),
        (0x04d, 0.7500, 0.2430), (0x04e, 0.7570, 0.2382), (0x052, 0.7618, 0.2382),
        (0x053, 0.7618, 0.2382), (0x054, 0.7618, 0.2382), (0x055, 0.7618, 0.2382),
        (0x056, 0.7618, 0.2382), (0x057, 0.7618, 0.2381), (0x058, 0.7619, 0.2374),
        (0x059, 0.7626, 0.2351), (0x05a, 0.7649, 0.2312), (0x05b, 0.7688, 0.2237),
        (0x05c, 0.7763, 0.2115), (0x05d, 0.7885, 0.1924), (0x05e, 0.8076, 0.1614),
        (0x062, 0.8386, 0.1521), (0x063, 0.8479, 0.1425), (0x064, 0.8575, 0.1319),
        (0x065, 0.8681, 0.1208), (0x066, 0.8792, 0.1106), (0x067, 0.8894, 0.1009),
        (0x068, 0.8991, 0.0907), (0x069, 0.9093, 0.0791), (0x06a, 0.9209, 0.0672),
        (0x06b, 0.9328, 0.0554), (0x06c, 0.9446, 0.0441), (0x06d, 0.9559, 0.0323),
        (0x06e, 0.9677, 0.0226), (0x072, 0.9774, 0.0214), (0x073, 0.9786, 0.0198),
        (0x074, 0.9802, 0.0187), (0x075, 0.9813, 0.0172), (0x076, 0.9828, 0.0158),
        (0x077, 0.9842, 0.0144), (0x078, 0.9856, 0.0126), (0x079, 0.9874, 0.0107),
        (0x07a, 0.9893, 0.0090), (0x07b, 0.9910, 0.0066), (0x07c, 0.9934, 0.0043),
        (0x07d, 0.9957, 0.0026), (0x07e, 0.9974, 0.0008), (0x082, 0.9992, 0.0008),
        (0x083, 0.9992, 0.0008), (0x084, 0.9992, 0.0008), (0x085, 0.9992, 0.0008),
        (0x086, 0.9992, 0.0007), (0x087, 0.9993, 0.0007), (0x088, 0.9993, 0.0006),
        (0x089, 0.9994, 0.0005), (0x08a, 0.9995, 0.0004), (0x08b, 0.9996, 0.0003),
        (0x08c, 0.9997, 0.0002), (0x08d, 0.9998, 0.0001), (0x08e, 0.9999, 0.0000),
    ),
)
# fmt: on


def strength_table(kind: LineStrength = LineStrength.POLICY) -> F64:
    """The line-strength table (3 x 256, by line and ``value >> 16``).

    >>> t = strength_table(LineStrength.TABLE)
    >>> t.shape, bool(t[2, 0x62] > t[2, 0x4e] > t[2, 0x1e])  # full house, straight, pair
    ((3, 256), True)
    """
    return _strength_array(LineStrength(kind))


def strength_table_path() -> str:
    """Where the :attr:`LineStrength.TABLE` estimate is kept (in the package's data)."""
    return str(resources.files("chinese_poker") / "data" / "line_strength_table.json")


@lru_cache(maxsize=2)
def _strength_array(kind: LineStrength) -> F64:
    if kind is LineStrength.POLICY:
        cdf: Sequence[Sequence[Sequence[float]]] = _STRENGTH_CDF
    else:
        with open(strength_table_path(), encoding="utf-8") as f:
            cdf = json.load(f)["lines"]
    table = np.zeros((3, 256), dtype=np.float64)
    for line, rows in enumerate(cdf):
        for hi, below, above in rows:
            table[line, int(hi)] = below - above
    table.setflags(write=False)
    return table


def strength_from_values(values: npt.ArrayLike) -> list[list[tuple[int, float, float]]]:
    """Estimate the strength table from completed valid boards' line values (N x 3).

    For every (line, bucket) seen: (bucket, P(line below the bucket), P(line above)).
    """
    arr = np.asarray(values, dtype=np.int64)
    out: list[list[tuple[int, float, float]]] = []
    for line in range(3):
        hi = arr[:, line] >> 16
        counts = np.bincount(hi, minlength=256).astype(np.float64)
        total = counts.sum()
        below = np.concatenate(([0.0], np.cumsum(counts)[:-1])) / total
        above = 1.0 - below - counts / total
        rows = []
        for h in range(256):
            cat, rank = h >> 4, h & 15
            if cat <= 8 and 2 <= rank <= 14 and (line > 0 or cat in (0, 1, 3)):
                rows.append((h, round(float(below[h]), 4), round(float(max(above[h], 0.0)), 4)))
        out.append(rows)
    return out


# Learned correction of the policy (docs/bots-research.md, *Round eleven*). A completion's value
# is biased in ways that depend on the board: its random arrangements see every card to
# come at once, and only a few of them are tried. ``chinese_poker.ai.residual`` fits, by
# self-play of the policy, the realised board value minus the completions' estimate as a
# sum of five table entries of the board after a placement (one row of weights per
# number of cards placed); the policy adds it to every placement's total.
#: Feature blocks: the top by (cards, high card or pair rank, trips); the middle and
#: the bottom by (cards, class, a flush still open, a straight still open); the top's
#: class against the middle's by the middle's empty slots; the middle's class against
#: the bottom's by the bottom's empty slots. Classes of a five-card line (partial lines
#: make the first ten only): 0 high card, 1-5 a pair (2-5, 6-9, T-J, Q-K, A), 6 two
#: pair, 7 trips, 8 full house, 9 quads, 10 straight, 11 flush, 12 straight flush.
RES_TOP, RES_LINE, RES_TOP_MIDDLE, RES_MIDDLE_BOTTOM = 4 * 27, 6 * 13 * 4, 7 * 13 * 6, 13 * 13 * 6
RES_OFF_MIDDLE = RES_TOP
RES_OFF_BOTTOM = RES_OFF_MIDDLE + RES_LINE
RES_OFF_TOP_MIDDLE = RES_OFF_BOTTOM + RES_LINE
RES_OFF_MIDDLE_BOTTOM = RES_OFF_TOP_MIDDLE + RES_TOP_MIDDLE
RES_FEATURES = RES_OFF_MIDDLE_BOTTOM + RES_MIDDLE_BOTTOM
_NO_RESIDUAL: F64 = np.zeros((14, RES_FEATURES), dtype=np.float64)
#: Features of the live cards (``BoardValue.LIVE``), after :data:`RES_FEATURES` in a
#: table's row: the cards the board's draws still need that are not yet seen dealt
#: (:func:`_live_counts`). The top of one or two unpaired cards led by a queen, king or
#: ace by (cards, that rank, live cards of it 0..3), a pair on top by (below queens, QQ,
#: KK, AA; live cards of its rank 0..2); a middle or bottom of 2-4 cards of one suit by
#: (line, cards, live cards of the suit 0..11+); one of 2-4 cards with one pair by
#: (line, cards, live cards of its rank 0..2); one of four cards open to a straight by
#: (line, live outs 0..8+).
LIVE_TOP, LIVE_TOP_PAIR, LIVE_FLUSH, LIVE_PAIR, LIVE_STRAIGHT = 24, 12, 72, 18, 18
LIVE_OFF_TOP = RES_FEATURES
LIVE_OFF_TOP_PAIR = LIVE_OFF_TOP + LIVE_TOP
LIVE_OFF_FLUSH = LIVE_OFF_TOP_PAIR + LIVE_TOP_PAIR
LIVE_OFF_PAIR = LIVE_OFF_FLUSH + LIVE_FLUSH
LIVE_OFF_STRAIGHT = LIVE_OFF_PAIR + LIVE_PAIR
LIVE_FEATURES = LIVE_TOP + LIVE_TOP_PAIR + LIVE_FLUSH + LIVE_PAIR + LIVE_STRAIGHT
#: A row of a table that reads the live cards.
VALUE_FEATURES = RES_FEATURES + LIVE_FEATURES
#: The live counts of :func:`_live_counts`: the cards of each suit, then of each rank.
LIVE_COUNTS = 4 + 13
KEY_SPAN = _ev.KEY_SPAN  # rank sums of up to five cards are below
_NO_RESIDUAL.setflags(write=False)


@lru_cache(maxsize=1)
def partial_line_table() -> I16:
    """By a line's card count and the rank part of its code sum (index ``(n - 1) *
    KEY_SPAN + (code >> 12)`` for 1 to 4 cards; the count is needed because a deuce weighs
    0, and five-card lines are read from the evaluator's table; 2.9 MB): its
    made class so far (0 high card, 1 pair, 2 two pair, 3 trips, 4 full house, 5 quads)
    in bits 0-3, the key rank (0..12: the pair, the higher pair, the trips; a high card
    line's highest) in bits 4-7, and the lowest rank + 1 in bits 8-11 (0 when an ace
    plays low under a five: a wheel is still open).

    >>> from chinese_poker.cards import parse_cards
    >>> codes = _ev.CARD_CODES
    >>> t = partial_line_table()
    >>> x = int(t[2 * KEY_SPAN + (sum(int(codes[c]) for c in parse_cards("Qh Qd 7c")) >> 12)])
    >>> x & 15, x >> 4 & 15  # a pair of queens
    (1, 10)
    """
    span = _ev.KEY_SPAN
    table = np.zeros(4 * span, dtype=np.int16)
    for n in range(1, 5):
        for m in itertools.combinations_with_replacement(range(13), n):
            counts = sorted(((m.count(r), r) for r in set(m)), reverse=True)
            shape = tuple(c for c, _ in counts)
            if shape[0] == 4:
                cat = 5
            elif shape[0] == 3:
                cat = 4 if len(shape) > 1 and shape[1] == 2 else 3
            elif shape[0] == 2:
                cat = 2 if len(shape) > 1 and shape[1] == 2 else 1
            else:
                cat = 0
            rank = counts[0][1] if cat else max(m)
            low = min(m) + 1
            if cat == 0 and 12 in m and max([r for r in m if r != 12] or [0]) <= 3:
                low = 0
            table[(n - 1) * span + sum(_ev.RANK_WEIGHTS[r] for r in m)] = cat | rank << 4 | low << 8
    table.setflags(write=False)
    return table


# =========================================================================== kernels


@_jit
def _board_value(
    ct: int, cm: int, cb: int, t3: Any, t5: Any, fo: Any, roy: Any, flv: Any, st: Any,
    w: float, foul_penalty: float,
) -> float:  # fmt: skip
    """The policy's value of a completed board given by its lines' code sums."""
    vt = t3[ct >> 12]
    vm = t5[(cm >> 12) + fo[cm & 4095]]
    vb = t5[(cb >> 12) + fo[cb & 4095]]
    return _lines_value(vt, vm, vb, roy, flv, st, w, foul_penalty)


@_jit_inline
def _lines_value(
    vt: int, vm: int, vb: int, roy: Any, flv: Any, st: Any, w: float, foul_penalty: float
) -> float:
    """The policy's value of a completed board given by its line values: royalties,
    Fantasyland's value and ``w`` x the line strength, or ``-foul_penalty`` if it fouls."""
    if vt > vm or vm > vb:
        return -foul_penalty
    ht = vt >> 16
    hm = vm >> 16
    hb = vb >> 16
    return float(
        roy[0, ht] + roy[1, hm] + roy[2, hb] + flv[ht]
        + w * (st[0, ht] + st[1, hm] + st[2, hb])
    )  # fmt: skip


@_jit_inline
def _pair_class(rank: int) -> int:
    if rank <= 3:
        return 1
    if rank <= 7:
        return 2
    if rank <= 9:
        return 3
    return 4 if rank <= 11 else 5


@_jit_inline
def _line_class(code: int, n: int, t5: Any, fo: Any, pl: Any) -> int:
    """The class of a middle or bottom line (:data:`RES_FEATURES`'s 0..12)."""
    if n == 5:
        v = t5[(code >> 12) + fo[code & 4095]]
        cat = v >> 20
        if cat <= 1:
            return 0 if cat == 0 else _pair_class(((v >> 16) & 15) - 2)
        return (6, 7, 10, 11, 8, 9, 12)[cat - 2]
    if n == 0:
        return 0
    x = pl[(n - 1) * KEY_SPAN + (code >> 12)]
    cat = x & 15
    if cat <= 1:
        return 0 if cat == 0 else _pair_class((x >> 4) & 15)
    return int(cat) + 4


@_jit_inline
def _open_draws(code: int, n: int, pl: Any) -> int:
    """2 x a flush still open + a straight still open, for a line of 2 to 4 cards."""
    if n < 2 or n > 4:
        return 0
    suits = code & 4095
    flush = 0
    for q in range(4):
        if (suits >> (3 * q)) & 7 == n:
            flush = 1
    x = pl[(n - 1) * KEY_SPAN + (code >> 12)]
    straight = 0
    if x & 15 == 0:
        low = (x >> 8) & 15
        if low == 0 or ((x >> 4) & 15) - (low - 1) <= 4:
            straight = 1
    return 2 * flush + straight


@_jit_inline
def _residual_features(
    c0: int, c1: int, c2: int, k0: int, k1: int, k2: int, t5: Any, fo: Any, pl: Any
) -> tuple[int, int, int, int, int]:
    """The five feature indices (:data:`RES_FEATURES`) of the board with line code sums
    ``c0..c2`` and card counts ``k0..k2``."""
    x = pl[(k0 - 1) * KEY_SPAN + (c0 >> 12)] if k0 > 0 else 0
    cat = x & 15
    rank = (x >> 4) & 15
    if k0 == 0:
        f_top = 0
        top = 0
    elif cat == 0:
        f_top = k0 * 27 + rank
        top = 0
    elif cat == 1:
        f_top = k0 * 27 + 13 + rank
        top = _pair_class(rank)
    else:
        f_top = k0 * 27 + 26
        top = 6
    mid = _line_class(c1, k1, t5, fo, pl)
    bot = _line_class(c2, k2, t5, fo, pl)
    return (
        f_top,
        RES_OFF_MIDDLE + (k1 * 13 + mid) * 4 + _open_draws(c1, k1, pl),
        RES_OFF_BOTTOM + (k2 * 13 + bot) * 4 + _open_draws(c2, k2, pl),
        RES_OFF_TOP_MIDDLE + (top * 13 + mid) * 6 + 5 - k1,
        RES_OFF_MIDDLE_BOTTOM + (mid * 13 + bot) * 6 + 5 - k2,
    )


@_jit_inline
def _live_counts(deck: Any, lo: int, hi: int, live: Any) -> None:
    """``live[0..3]``: the cards of each suit in ``deck[lo:hi]`` (the cards not yet
    dealt); ``live[4 + r]``: those of rank ``r``."""
    live[:] = 0
    for i in range(lo, hi):
        c = deck[i]
        live[c & 3] += 1
        live[4 + (c >> 2)] += 1


@_jit_inline
def _line_draws(code: int, n: int, line: int, pl: Any, codes: Any, live: Any) -> tuple[int, int]:
    """The live-card features of a middle (``line`` 0) or bottom (1) of ``n`` cards: its
    flush draw's and its pair's or straight draw's (-1: none)."""
    if n < 2 or n > 4:
        return -1, -1
    suits = code & 4095
    flush = -1
    for q in range(4):
        if (suits >> (3 * q)) & 7 == n:
            flush = LIVE_OFF_FLUSH + (line * 3 + n - 2) * 12 + min(live[q], 11)
    x = pl[(n - 1) * KEY_SPAN + (code >> 12)]
    cat = x & 15
    rank = (x >> 4) & 15
    if cat == 1:
        return flush, LIVE_OFF_PAIR + (line * 3 + n - 2) * 3 + min(live[4 + rank], 2)
    if cat != 0 or n != 4:
        return flush, -1
    # Four different ranks: the ranks that make a straight, from the weights of the
    # rank part of the code sum (unique sums, so the missing rank is the difference).
    low = (x >> 8) & 15
    rsum = code >> 12
    outs = 0
    if low == 0:  # an ace and three of 2-5: the missing one makes the wheel
        miss = (codes[48] >> 12) - rsum
        for r in range(4):
            miss += codes[4 * r] >> 12
        for r in range(4):
            if codes[4 * r] >> 12 == miss:
                outs = live[4 + r]
    else:
        lo_r = low - 1
        if rank - lo_r == 3:  # four in a row: either end
            if lo_r >= 1:
                outs += live[4 + lo_r - 1]
            elif lo_r == 0:
                outs += live[4 + 12]  # the wheel
            if rank <= 11:
                outs += live[4 + rank + 1]
        elif rank - lo_r == 4:
            miss = -rsum
            for r in range(lo_r, rank + 1):
                miss += codes[4 * r] >> 12
            for r in range(lo_r + 1, rank):
                if codes[4 * r] >> 12 == miss:
                    outs = live[4 + r]
        else:
            return flush, -1
    return flush, LIVE_OFF_STRAIGHT + line * 9 + min(outs, 8)


@_jit_inline
def _live_features(
    c0: int, c1: int, c2: int, k0: int, k1: int, k2: int, pl: Any, codes: Any, live: Any
) -> tuple[int, int, int, int, int]:
    """The five live-card feature indices (:data:`LIVE_FEATURES`, -1: none) of the board
    with line code sums ``c0..c2`` and card counts ``k0..k2``, given the live counts of
    :func:`_live_counts`."""
    top = -1
    if k0 == 1 or k0 == 2:
        x = pl[(k0 - 1) * KEY_SPAN + (c0 >> 12)]
        rank = (x >> 4) & 15
        if x & 15 == 0:
            if rank >= 10:
                top = LIVE_OFF_TOP + ((k0 - 1) * 3 + rank - 10) * 4 + min(live[4 + rank], 3)
        else:
            group = rank - 9 if rank >= 10 else 0
            top = LIVE_OFF_TOP_PAIR + group * 3 + min(live[4 + rank], 2)
    fm, dm = _line_draws(c1, k1, 0, pl, codes, live)
    fb, db = _line_draws(c2, k2, 1, pl, codes, live)
    return top, fm, fb, dm, db


@_jit_inline
def _residual(
    c0: int, c1: int, c2: int, k0: int, k1: int, k2: int, t5: Any, fo: Any, vf: Any,
    live: Any, codes: Any,
) -> float:  # fmt: skip
    """The learned correction of a completion's value (or the learned value) for the
    board with line code sums ``c0..c2`` and card counts ``k0..k2`` (0 for a complete
    board); a table wider than :data:`RES_FEATURES` also reads the live cards
    (``live``, :func:`_live_counts`)."""
    pl, table = vf
    placed = k0 + k1 + k2
    if placed >= 13:
        return 0.0
    f = _residual_features(c0, c1, c2, k0, k1, k2, t5, fo, pl)
    row = table[placed]
    v = float(row[f[0]] + row[f[1]] + row[f[2]] + row[f[3]] + row[f[4]])
    if table.shape[1] > RES_FEATURES:
        g = _live_features(c0, c1, c2, k0, k1, k2, pl, codes, live)
        for i in range(5):
            if g[i] >= 0:
                v += row[g[i]]
    return v


def residual_features(
    lines: Sequence[Sequence[Card]], rules: Rules
) -> tuple[int, int, int, int, int]:
    """The five feature indices of a (partial) board under ``rules`` (whose evaluator
    tables class a five-card line), as the kernels compute them.

    >>> from chinese_poker.cards import parse_cards
    >>> from chinese_poker.rules import rules_for
    >>> board = [parse_cards("Qh Qd"), parse_cards("9s 9c 4d"), parse_cards("Ah Kh")]
    >>> residual_features(board, rules_for("pineapple"))
    (77, 272, 527, 1058, 1437)
    """
    t = tables_for(rules)
    c = [sum(int(t.codes[x]) for x in line) for line in lines]
    k = [len(line) for line in lines]
    f = _residual_features(c[0], c[1], c[2], k[0], k[1], k[2], t.t5, t.fo, partial_line_table())
    return cast("tuple[int, int, int, int, int]", tuple(int(i) for i in f))


@_jit
def _draw_fills(
    deck: Any, lo: int, hi: int, need: int, extra: int, n_fills: int, choice: int, codes: Any,
    scratch: Any, pref: Any,
) -> int:  # fmt: skip
    """Random completions from ``deck[lo:hi]``: for each of ``n_fills`` draws of
    ``need + extra`` cards, ``choice`` random picks of ``need`` of them in random order,
    stored as prefix sums of their codes in ``pref[s * choice + j, 0..need]``; when
    ``pref`` has the rows for foul repair (:func:`_pref_rows`), the first pick's codes
    themselves, in order, in ``pref[n_fills * choice + s]`` for :func:`_repair`, followed
    by the draw's cards that pick throws. Returns how many codes that row holds (``need``
    without the rows).

    The extra cards stand for the cards a player will see but throw (Pineapple keeps 2
    of 3), and the best of the ``choice`` picks stands for his choosing which card goes
    where: a plain random completion undervalues every draw.
    """
    n = hi - lo
    take = min(need + extra, n)
    keep = pref.shape[0] > n_fills * choice  # the rows for _repair
    for i in range(n):
        scratch[i] = deck[lo + i]
    for s in range(n_fills):
        for i in range(take):  # partial Fisher-Yates: scratch[0:take] is the draw
            j = i + np.random.randint(0, n - i)
            c = scratch[j]
            scratch[j] = scratch[i]
            scratch[i] = c
        for g in range(choice):
            row = s * choice + g
            pref[row, 0] = 0
            for i in range(need):
                if g > 0 or take > need:
                    j = i + np.random.randint(0, take - i)
                    c = scratch[j]
                    scratch[j] = scratch[i]
                    scratch[i] = c
                pref[row, i + 1] = pref[row, i] + codes[scratch[i]]
                if keep and g == 0:
                    pref[n_fills * choice + s, i] = codes[scratch[i]]
            if keep and g == 0:  # the cards this pick throws, after its own
                for i in range(need, min(take, pref.shape[1])):
                    pref[n_fills * choice + s, i] = codes[scratch[i]]
    return min(take, pref.shape[1]) if keep else need


@_jit_inline
def _pref_rows(n_fills: int, choice: int, pol: Any) -> int:
    """Rows of a completion buffer for :func:`_draw_fills`: the prefix sums, plus one row
    of codes per draw only when the policy repairs fouls (the rollouts' hot path, and
    ``mc-v1``'s, does not)."""
    n_fills = max(n_fills, 1)
    return n_fills * max(choice, 1) + (n_fills if pol[POL_REPAIR] > 0 else 0)


@_jit_inline
def _swapped(s0: int, s1: int, s2: int, li: int, lj: int, d: int) -> tuple[int, int, int]:
    """The line code sums after a drawn card of line ``li`` is exchanged for one of line
    ``lj`` > ``li`` whose code is larger by ``d`` (line 3: a card the completion throws,
    which leaves no line)."""
    if li == 0:
        s0 += d
    elif li == 1:
        s1 += d
    else:
        s2 += d
    if lj == 1:
        s1 -= d
    elif lj == 2:
        s2 -= d
    return s0, s1, s2


@_jit_inline
def _pick_value(
    c0: int, c1: int, c2: int, f0: int, f01: int, need: int, pref: Any, row: int, t3: Any,
    t5: Any, fo: Any, roy: Any, flv: Any, st: Any, w: float, foul_penalty: float,
) -> float:  # fmt: skip
    """The policy's value of the board a completion pick (row ``row`` of prefix sums)
    makes of lines summing to ``c0``, ``c1``, ``c2``."""
    return _board_value(
        c0 + pref[row, f0], c1 + pref[row, f01] - pref[row, f0],
        c2 + pref[row, need] - pref[row, f01], t3, t5, fo, roy, flv, st, w, foul_penalty,
    )  # fmt: skip


@_jit
def _repair(
    c0: int, c1: int, c2: int, f0: int, f01: int, need: int, cards: Any, rounds: int,
    t3: Any, t5: Any, fo: Any, roy: Any, flv: Any, st: Any, w: float, foul_penalty: float,
    spare: int = 0,
) -> float:  # fmt: skip
    """The value of a completion whose arrangement ``cards`` (codes, in slot order: the
    first ``f0`` to the top, up to ``f01`` to the middle, the rest to the bottom) fouls,
    after up to ``rounds`` rounds of swapping two drawn cards between lines, each round
    taking the first swap that makes the board valid (then the best valid one found) or
    else the one that brings the lines closest to order; ``-foul_penalty`` if none does.
    ``spare`` cards after the ``need`` placed ones are cards the completion throws
    (Pineapple): a swap may also put one of them in place of a placed card.

    A few random arrangements rarely find the valid board behind a strong top (a pair of
    queens needs a middle above it): the policy then undervalues every Fantasyland top
    and, in one-card OFC, never makes one (docs/bots-research.md, *Round three*).
    """
    s0 = c0 + _span(cards, 0, f0)
    s1 = c1 + _span(cards, f0, f01)
    s2 = c2 + _span(cards, f01, need)
    best = -foul_penalty
    for _ in range(rounds):
        found = False
        gap_best = 1 << 62
        bi = -1
        bj = -1
        for i in range(need):
            li = 0 if i < f0 else (1 if i < f01 else 2)
            for j in range(i + 1, need + spare):
                lj = 0 if j < f0 else (1 if j < f01 else (2 if j < need else 3))
                if lj == li:
                    continue
                a0, a1, a2 = _swapped(s0, s1, s2, li, lj, cards[j] - cards[i])
                vt = t3[a0 >> 12]
                vm = t5[(a1 >> 12) + fo[a1 & 4095]]
                vb = t5[(a2 >> 12) + fo[a2 & 4095]]
                if vt <= vm and vm <= vb:
                    val = _board_value(a0, a1, a2, t3, t5, fo, roy, flv, st, w, foul_penalty)
                    if val > best:
                        best = val
                    found = True
                elif not found:
                    gap = max(vt - vm, 0) + max(vm - vb, 0)
                    if gap < gap_best:
                        gap_best = gap
                        bi = i
                        bj = j
        if found or bi < 0:
            break
        # No single swap makes it valid: take the one closest to order, and go on.
        c = cards[bi]
        cards[bi] = cards[bj]
        cards[bj] = c
        s0 = c0 + _span(cards, 0, f0)
        s1 = c1 + _span(cards, f0, f01)
        s2 = c2 + _span(cards, f01, need)
    return best


@_jit_inline
def _span(cards: Any, lo: int, hi: int) -> int:
    total = 0
    for i in range(lo, hi):
        total += cards[i]
    return total


@_jit
def _climb(
    c0: int, c1: int, c2: int, f0: int, f01: int, need: int, cards: Any, rounds: int,
    val: float, t3: Any, t5: Any, fo: Any, roy: Any, flv: Any, st: Any, w: float,
    foul_penalty: float,
) -> float:  # fmt: skip
    """The value of the arrangement ``cards`` (codes in slot order, laid out as for
    :func:`_repair`; worth ``val``) after up to ``rounds`` rounds of the swap of two drawn
    cards between lines that raises the value most, while one does.

    Best-of-a-few random arrangements rarely find the structured boards a player steers
    his cards into (a flush in the bottom, a pair on top with the middle above it); a
    short hill climb finds many of them at a few dozen evaluations.
    """
    s0 = c0 + _span(cards, 0, f0)
    s1 = c1 + _span(cards, f0, f01)
    s2 = c2 + _span(cards, f01, need)
    for _ in range(rounds):
        best = val
        bi = -1
        bj = -1
        bd = 0
        for i in range(need):
            li = 0 if i < f0 else (1 if i < f01 else 2)
            for j in range(i + 1, need):
                lj = 0 if j < f0 else (1 if j < f01 else 2)
                if lj == li:
                    continue
                d = cards[j] - cards[i]
                a0, a1, a2 = _swapped(s0, s1, s2, li, lj, d)
                v = _board_value(a0, a1, a2, t3, t5, fo, roy, flv, st, w, foul_penalty)
                if v > best:
                    best = v
                    bi = i
                    bj = j
                    bd = d
        if bi < 0:
            break
        li = 0 if bi < f0 else (1 if bi < f01 else 2)
        lj = 0 if bj < f0 else (1 if bj < f01 else 2)
        s0, s1, s2 = _swapped(s0, s1, s2, li, lj, bd)
        c = cards[bi]
        cards[bi] = cards[bj]
        cards[bj] = c
        val = best
    return val


@_jit
def _climbed_total(
    c0: int, c1: int, c2: int, f0: int, f01: int, need: int, fills: int, picks: int,
    rounds: int, pref: Any, scratch: Any, t3: Any, t5: Any, fo: Any, roy: Any, flv: Any,
    st: Any, w: float, foul_penalty: float,
) -> float:  # fmt: skip
    """A placement's policy total over its completions, each one's best pick improved by
    :func:`_climb` (the codes are read back from the prefix sums). Neither the foul
    repair nor a ``pick_max`` blend applies here: with those on as well, the second pass
    compares on another basis than the first (experiment knobs, not combined at any
    level)."""
    total = 0.0
    for s in range(fills):
        top = -1e300
        g_best = 0
        for g in range(picks):
            row = s * picks + g
            val = _pick_value(c0, c1, c2, f0, f01, need, pref, row, t3, t5, fo, roy, flv, st,
                              w, foul_penalty)  # fmt: skip
            if val > top:
                top = val
                g_best = row
        for i in range(need):
            scratch[i] = pref[g_best, i + 1] - pref[g_best, i]
        total += _climb(c0, c1, c2, f0, f01, need, scratch, rounds, top, t3, t5, fo, roy,
                        flv, st, w, foul_penalty)  # fmt: skip
    return total


@_jit
def _policy_street(
    code: Any, cnt: Any, dz: Any, deck: Any, start: int, n_cards: int, n_place: int,
    n_disc: int, end: int, n_fills: int, choice: int, kind: int,
    ev: Any, roy: Any, flv: Any, st: Any, vf: Any, pol: Any,
    scratch: Any, pref: Any,
) -> None:  # fmt: skip
    """Place the street ``deck[start:start + n_cards]`` on the board (code sums ``code``,
    card counts ``cnt``, Finnish-deuce flags ``dz``, all updated in place).

    ``kind`` 0 is the fast policy (completions drawn from ``deck[start + n_cards:end]``,
    the cards not dealt yet); 1 is the timeout rule of RULES §10 (bottom, middle, top in
    the order dealt; the last card of a Pineapple street discarded).
    """
    codes, t3, t5, fo = ev
    if kind == 1:
        _timeout_street(code, cnt, dz, deck, start, n_place, codes)
        return
    placed = cnt[0] + cnt[1] + cnt[2]
    need = 13 - placed - n_place
    fills = n_fills if need > 0 else 1
    picks = choice if need > 0 else 1
    spare = 0
    if need > 0 and fills > 0:
        extra = int(need * pol[POL_THROWN])
        kept = _draw_fills(deck, start + n_cards, end, need, extra, fills, picks, codes,
                           scratch, pref)  # fmt: skip
        if pol[POL_REPAIR_SPARE] != 0.0:
            spare = kept - need
    elif need == 0:
        pref[0, 0] = 0
    w = pol[POL_W]
    foul_penalty = pol[POL_FOUL_PENALTY]
    pick_max = pol[POL_PICK_MAX]
    rounds = int(pol[POL_REPAIR]) if need > 1 else 0
    n_climb = int(pol[POL_CLIMB]) if need > 1 else 0
    # The learned correction, once per completion as the totals sum them.
    res_w = pol[POL_RESIDUAL] * fills if need > 0 else 0.0
    if fills == 0:  # no completions: the learned value of the board is the estimate
        res_w = 1.0
        n_climb = 0
    placed_after = placed + n_place
    if res_w != 0.0 and vf[1].shape[1] > RES_FEATURES:
        live = np.empty(LIVE_COUNTS, dtype=np.int64)
        _live_counts(deck, start + n_cards, end, live)
    else:  # never read (a narrow table has no live features): no allocation on the hot path
        live = pref[0]
    if n_climb < 2:
        n_climb = 0  # one placement alone has nothing to be compared with
    n_patterns = 3**n_place
    best = -1e300
    best_d = -1
    best_a = 0
    n_discards = n_cards if n_disc == 1 else 1
    if n_climb > 0:  # the n_climb best placements: total, discard, pattern
        tops = np.full(n_climb, -1e300)
        top_d = np.full(n_climb, -1, dtype=np.int64)
        top_a = np.zeros(n_climb, dtype=np.int64)
    for d in range(n_discards):
        if n_disc != 1:
            d = -1
        for a in range(n_patterns):
            ok, c0, c1, c2, k0, k1 = _pattern_sums(code, cnt, deck, start, n_cards, d, a, codes)
            if not ok:
                continue
            f0 = 3 - k0
            f01 = f0 + 5 - k1
            total = 0.0
            for s in range(fills):
                top = -1e300
                mean = 0.0
                for g in range(picks):
                    val = _pick_value(c0, c1, c2, f0, f01, need, pref, s * picks + g, t3, t5,
                                      fo, roy, flv, st, w, foul_penalty)  # fmt: skip
                    mean += val
                    if val > top:
                        top = val
                if rounds > 0 and top == -foul_penalty:
                    # A copy (the draws are done with ``scratch``): the swaps must not
                    # reach the other placements.
                    for i in range(need + spare):
                        scratch[i] = pref[fills * picks + s, i]
                    top = _repair(c0, c1, c2, f0, f01, need, scratch, rounds, t3, t5, fo, roy,
                                  flv, st, w, foul_penalty, spare)  # fmt: skip
                if pick_max != 1.0:
                    top = pick_max * top + (1.0 - pick_max) * mean / picks
                total += top
            if res_w != 0.0:
                total += res_w * _residual(c0, c1, c2, k0, k1, placed_after - k0 - k1, t5, fo,
                                           vf, live, codes)  # fmt: skip
            if total > best:
                best = total
                best_d = d
                best_a = a
            if n_climb > 0 and total > tops[n_climb - 1]:
                k = n_climb - 1
                while k > 0 and tops[k - 1] < total:
                    tops[k] = tops[k - 1]
                    top_d[k] = top_d[k - 1]
                    top_a[k] = top_a[k - 1]
                    k -= 1
                tops[k] = total
                top_d[k] = d
                top_a[k] = a
    if n_climb > 0:
        # The few best placements again, their completions improved by a hill climb: the
        # policy then plays for the boards a player would steer his cards into.
        climb_rounds = int(pol[POL_CLIMB_ROUNDS])
        best = -1e300
        for k in range(n_climb):
            if tops[k] == -1e300:
                break
            _, c0, c1, c2, k0, k1 = _pattern_sums(code, cnt, deck, start, n_cards, top_d[k],
                                                  top_a[k], codes)  # fmt: skip
            f0 = 3 - k0
            f01 = f0 + 5 - k1
            total = _climbed_total(c0, c1, c2, f0, f01, need, fills, picks, climb_rounds,
                                   pref, scratch, t3, t5, fo, roy, flv, st, w,
                                   foul_penalty)  # fmt: skip
            if res_w != 0.0:
                total += res_w * _residual(c0, c1, c2, k0, k1, placed_after - k0 - k1, t5, fo,
                                           vf, live, codes)  # fmt: skip
            if total > best:
                best = total
                best_d = top_d[k]
                best_a = top_a[k]
    _place_street(code, cnt, dz, deck, start, n_cards, best_d, best_a, codes)


@_jit_inline
def _place(code: Any, cnt: Any, dz: Any, line: int, c: int, codes: Any) -> None:
    code[line] += codes[c]
    cnt[line] += 1
    if c == 0:
        dz[line] = 1


@_jit_inline
def _place_street(
    code: Any, cnt: Any, dz: Any, deck: Any, start: int, n_cards: int, d: int, a: int,
    codes: Any,
) -> None:  # fmt: skip
    """Place the street ``deck[start:start + n_cards]`` but card ``d`` by the base-3
    digits of ``a`` (as :func:`_pattern_sums` reads them)."""
    x = a
    for i in range(n_cards):
        if i == d:
            continue
        _place(code, cnt, dz, x % 3, deck[start + i], codes)
        x //= 3


@_jit
def _random_street(
    code: Any, cnt: Any, dz: Any, deck: Any, start: int, n_cards: int, n_place: int,
    n_disc: int, codes: Any,
) -> None:  # fmt: skip
    """Place the street ``deck[start:start + n_cards]`` in a uniformly random legal way
    (the exploration of self-play training)."""
    while True:
        d = np.random.randint(0, n_cards) if n_disc == 1 else -1
        a = np.random.randint(0, 3**n_place)
        if _pattern_sums(code, cnt, deck, start, n_cards, d, a, codes)[0]:
            break
    _place_street(code, cnt, dz, deck, start, n_cards, d, a, codes)


@_jit
def _timeout_street(
    code: Any, cnt: Any, dz: Any, deck: Any, start: int, n_place: int, codes: Any
) -> None:
    """The timeout rule of RULES §10: bottom, middle, top in the order dealt."""
    for i in range(n_place):
        line = 2 if cnt[2] < 5 else (1 if cnt[1] < 5 else 0)
        _place(code, cnt, dz, line, deck[start + i], codes)


@_jit_inline
def _pattern_sums(
    code: Any, cnt: Any, deck: Any, start: int, n_cards: int, d: int, a: int, codes: Any
) -> tuple[bool, int, int, int, int, int]:
    """Line code sums and the top and middle card counts after placing the street's cards
    (but card ``d``) by the base-3 digits of ``a``; false if a line overflows."""
    c0, c1, c2 = code[0], code[1], code[2]
    k0, k1, k2 = cnt[0], cnt[1], cnt[2]
    x = a
    for i in range(n_cards):
        if i == d:
            continue
        line = x % 3
        x //= 3
        v = codes[deck[start + i]]
        if line == 0:
            c0 += v
            k0 += 1
        elif line == 1:
            c1 += v
            k1 += 1
        else:
            c2 += v
            k2 += 1
    return k0 <= 3 and k1 <= 5 and k2 <= 5, c0, c1, c2, k0, k1


@_jit
def _line_values(code: Any, t3: Any, t5: Any, fo: Any, out: Any) -> None:
    out[0] = t3[code[0] >> 12]
    out[1] = t5[(code[1] >> 12) + fo[code[1] & 4095]]
    out[2] = t5[(code[2] >> 12) + fo[code[2] & 4095]]


@_jit
def _seat_royalties(vals: Any, fouled: bool, roy: Any, sc: Any, out: Any) -> None:
    """A seat's royalties per line as the scorer pays them: none when fouled, and under
    ``max_royalties_per_hand = 1`` only the biggest (equal amounts: the lowest line's)."""
    for line in range(3):
        out[line] = 0.0 if fouled else roy[line, vals[line] >> 16]
    if sc[SC_MAX_ONE] != 0:
        keep = 2
        for line in (1, 0):
            if out[line] > out[keep]:
                keep = line
        for line in range(3):
            if line != keep:
                out[line] = 0.0


@_jit
def _best_lines(vals: Any, roys: Any, n: int, out: Any) -> None:
    """Per line, the strongest value among the first ``n`` seats holding a royalty there
    (-1 if none): the best at the table (fouled seats hold no royalties); ``out[3 + line]``
    counts the seats holding it."""
    for line in range(3):
        out[line] = -1
        out[3 + line] = 0
        for j in range(n):
            if roys[j, line] != 0.0:
                if vals[j, line] > out[line]:
                    out[line] = vals[j, line]
                    out[3 + line] = 1
                elif vals[j, line] == out[line]:
                    out[3 + line] += 1


@_jit
def _foul_points(wr: Any, wdl: int, ldl: int, sc: Any) -> float:
    """What a fouled board pays the valid board ``wr`` (its royalties, by line)."""
    total = float(sc[SC_FOUL_VALUE])
    if sc[SC_FOUL_PAYS] != 0:
        doubled = -1
        if sc[SC_FINNISH] != 0:
            if wdl >= 0:
                doubled = wdl
            elif sc[SC_DEUCE_FOULED] != 0:
                doubled = ldl
        for line in range(3):
            total += 2.0 * wr[line] if line == doubled else wr[line]
    return total


@_jit
def _pair_points(
    av: Any, ar: Any, adl: int, afoul: bool, bv: Any, br: Any, bdl: int, bfoul: bool,
    best: Any, sc: Any,
) -> float:  # fmt: skip
    """What B pays A (RULES §7.3 for two open-face boards): ``av``/``bv`` line values,
    ``ar``/``br`` royalties (:func:`_seat_royalties`), ``adl``/``bdl`` the line holding
    the Finnish deuce or -1, ``best`` the best royalty value per line at the table and
    how many seats hold it (:func:`_best_lines`)."""
    if afoul and bfoul:
        return 0.0
    if bfoul:
        return _foul_points(ar, adl, bdl, sc)
    if afoul:
        return -_foul_points(br, bdl, adl, sc)
    # int(): numpy booleans do not subtract when the kernels run without numba.
    w0 = int(av[0] > bv[0]) - int(av[0] < bv[0])
    w1 = int(av[1] > bv[1]) - int(av[1] < bv[1])
    w2 = int(av[2] > bv[2]) - int(av[2] < bv[2])
    total = float(sc[SC_SHOWDOWN + 13 + 9 * w0 + 3 * w1 + w2])  # lines, overall, scoop
    doubled = -1
    if sc[SC_FINNISH] != 0:
        doubled = adl if adl >= 0 else bdl
    for line in range(3):
        if ar[line] != 0.0 or br[line] != 0.0:
            f = 2.0 if line == doubled else 1.0
            total += f * _line_royalty(line, av, ar, bv, br, best, sc)
    return total


@_jit
def _line_royalty(line: int, av: Any, ar: Any, bv: Any, br: Any, best: Any, sc: Any) -> float:
    """What B pays A for one line's royalties under the award mode (§7.5)."""
    ra: float = ar[line]
    rb: float = br[line]
    award = sc[SC_AWARD]
    if award == AWARD_NET:
        return ra - rb
    if award == AWARD_BEST:
        a_best = ra != 0.0 and av[line] == best[line]
        b_best = rb != 0.0 and bv[line] == best[line]
        share = best[3 + line] if sc[SC_SPLIT_TIES] != 0 else 1
        if a_best and not b_best:
            return float(math.floor(ra / share))
        if b_best and not a_best:
            return -float(math.floor(rb / share))
        return 0.0
    if award == AWARD_CANCEL and ra != 0.0 and rb != 0.0:
        return 0.0
    if av[line] > bv[line]:
        return ra
    if av[line] < bv[line]:
        return -rb
    return 0.0


@_jit
def _table_points(vals: Any, dls: Any, roy: Any, sc: Any, out: Any) -> None:
    """Each seat's points against all the others (complete boards: ``vals`` line values,
    ``dls`` Finnish-deuce lines), settled with the same kernels as the rollouts."""
    n = vals.shape[0]
    roys = np.zeros((n, 3), dtype=np.float64)
    fouled = np.zeros(n, dtype=np.bool_)
    best = np.full(6, -1, dtype=np.int64)
    for j in range(n):
        fouled[j] = sc[SC_PENALISED] != 0 and (vals[j, 0] > vals[j, 1] or vals[j, 1] > vals[j, 2])
        _seat_royalties(vals[j], fouled[j], roy, sc, roys[j])
    if sc[SC_AWARD] == AWARD_BEST:
        _best_lines(vals, roys, n, best)
    for i in range(n):
        out[i] = 0.0
        for j in range(n):
            if j != i:
                out[i] += _pair_points(vals[i], roys[i], dls[i], fouled[i], vals[j], roys[j],
                                       dls[j], fouled[j], best, sc)  # fmt: skip


def line_values(lines: Sequence[Sequence[Card]], tables: Tables) -> I64:
    """A complete board's three line values as the kernels compute them (``value >> 16``
    is the line-strength bucket).

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> b = parse_board("Kd Jc 3h | Th Ts 8c 8d 5s | Qs 9s 6s 4s 3s")
    >>> [hex(v >> 16) for v in line_values(b.lines, tables_for(rules_for("ofc")))]
    ['0xd', '0x2a', '0x5c']
    """
    code, _, _ = _line_state(lines, tables.codes)
    out = np.zeros(3, dtype=np.int64)
    _line_values(code, tables.t3, tables.t5, tables.fo, out)
    return out


def kernel_totals(rules: Rules, boards: Sequence[tuple[Sequence[Card], ...]]) -> list[float]:
    """Each complete board's points against the others as the playout kernels settle
    them, from the kernels' own line look-ups: they must equal ``settle``'s totals.

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> a = parse_board("Ah Qd 4c | Jh Js 9c 9d 2h | 7c 7d 7h 7s Kc")
    >>> b = parse_board("Kd Jc 3h | Th Ts 8c 8d 5s | Qs 9s 6s 4s 3s")
    >>> kernel_totals(rules_for("ofc"), [a.lines, b.lines])
    [12.0, -12.0]
    """
    t = tables_for(rules)
    n = len(boards)
    vals = np.zeros((n, 3), dtype=np.int64)
    dls = np.zeros(n, dtype=np.int64)
    for j, lines in enumerate(boards):
        code, _, dz = _line_state(lines, t.codes)
        _line_values(code, t.t3, t.t5, t.fo, vals[j])
        dls[j] = _deuce_line(dz)
    out = np.zeros(n, dtype=np.float64)
    _table_points(vals, dls, t.roy, t.scoring, out)
    return [float(x) for x in out]


@_jit
def _finish_board(
    code: Any, dz: Any, ev: Any, roy: Any, sc: Any, vals: Any, roys: Any
) -> tuple[int, bool, bool]:
    """A completed board's line values and royalties (into ``vals``/``roys``); returns
    (its Finnish-deuce line, whether it pays a foul, whether it breaks the line order)."""
    _, t3, t5, fo = ev
    _line_values(code, t3, t5, fo, vals)
    misset = vals[0] > vals[1] or vals[1] > vals[2]
    fouled = sc[SC_PENALISED] != 0 and misset
    _seat_royalties(vals, fouled, roy, sc, roys)
    return _deuce_line(dz), fouled, misset


@_jit
def _deal_deck(deck: Any, pool: Any, fl_cards: Any, m: int, used: Any) -> None:
    """A rollout's deck: Fantasyland sample ``m``'s deals first (none if ``m`` < 0), then
    the rest of the pool shuffled."""
    n_pool = pool.shape[0]
    if m < 0:
        for i in range(n_pool):
            deck[i] = pool[i]
        _shuffle_tail(deck, 0)
        return
    n_flc = fl_cards.shape[1]
    used[:] = False
    for i in range(n_flc):
        deck[i] = fl_cards[m, i]
        used[fl_cards[m, i]] = True
    k = n_flc
    for i in range(n_pool):
        c = pool[i]
        if not used[c]:
            deck[k] = c
            k += 1
    _shuffle_tail(deck, n_flc)


# The same call with a literal constant (``-1``, ``0``) or an omitted default compiles a
# second copy of the callee for that constant: _policy_street, the largest kernel, was
# compiled twice (35 of the open-face kernels' 85 s of compiling, docs/benchmarks.md
# "Cold start"). These are numpy int64 values, as the other calls' arguments are (typed
# int for the checker: a numpy integer is one in the kernels).
US = cast(int, np.int64(-1))
"""``who`` of :func:`_play_streets` for our own board."""
POLICY = cast(int, np.int64(0))
"""``kind`` of :func:`_policy_street`: the fast policy."""
NO_EVENT = cast(int, np.int64(-1))
"""``skip`` of :func:`_play_streets`: no event left out."""
POOL_START = cast(int, np.int64(0))
"""``lo`` of :func:`_draw_fills` drawing from a whole pool."""


@_jit
def _play_streets(
    who: int, kind: int, code: Any, cnt: Any, dz: Any, deck: Any, ev_start: Any, ev_who: Any,
    ev_cards: Any, ev_place: Any, ev_disc: Any, n_fills: int, choice: int,
    ev: Any, roy: Any, flv: Any, st: Any, vf: Any, pol: Any, scratch: Any, pref: Any,
    skip: int = -1,
) -> None:  # fmt: skip
    """Play every street event of seat ``who`` (-1: us) on its board with the policy, but
    event ``skip``."""
    for e in range(ev_who.shape[0]):
        if ev_who[e] == who and e != skip:
            _policy_street(code, cnt, dz, deck, ev_start[e], ev_cards[e], ev_place[e],
                           ev_disc[e], deck.shape[0], n_fills, choice, kind, ev, roy, flv, st,
                           vf, pol, scratch, pref)  # fmt: skip


@_jit
def _fantasyland_earned(mine: Any, in_fl: bool, flv: Any, pol: Any) -> tuple[bool, float]:
    """Whether a valid board earns Fantasyland (an entry, or a stay when already in it),
    and what that is worth."""
    if in_fl:
        stays = pol[POL_FL_ENABLED] != 0.0 and (
            (mine[0] >> 20) == 3  # trips on top always stay (§9.4)
            or (mine[2] >> 20) >= pol[POL_STAY_BOTTOM_MIN]
            or (mine[1] >> 20) >= pol[POL_STAY_MIDDLE_MIN]
        )  # fmt: skip
        return stays, float(pol[POL_STAY_VALUE])
    bonus = float(flv[mine[0] >> 16])
    return bonus > 0.0, bonus


@_jit
def _deuce_line(dz: Any) -> int:
    for line in range(3):
        if dz[line] != 0:
            return line
    return -1


@_jit
def _shuffle_tail(deck: Any, lo: int) -> None:
    n = deck.shape[0]
    for i in range(n - 1, lo, -1):
        j = lo + np.random.randint(0, i - lo + 1)
        c = deck[i]
        deck[i] = deck[j]
        deck[j] = c


@_jit
def _opponent_policy(pol: Any) -> Any:
    """The policy that completes the opponents' boards: ours, with the opponents' foul
    penalty factor, repair rounds and weight of the learned correction (POL_OPP_*; -1:
    ours; the number of completions, POL_OPP_FILLS, is read by the caller)."""
    opol = pol.copy()
    opol[POL_FOUL_PENALTY] *= pol[POL_OPP_FOUL_SCALE]
    if pol[POL_OPP_REPAIR] >= 0:
        opol[POL_REPAIR] = pol[POL_OPP_REPAIR]
    if pol[POL_OPP_RESIDUAL] >= 0:
        opol[POL_RESIDUAL] = pol[POL_OPP_RESIDUAL]
    return opol


@_jit
def _our_points(
    code: Any, dz: Any, ev: Any, roy: Any, sc: Any, vals: Any, roys: Any, n_opp: int,
    odl: Any, ofoul: Any, best: Any, by_best: bool, in_fl: bool, flv: Any, pol: Any,
) -> tuple[float, bool, bool]:  # fmt: skip
    """Our completed board (code sums ``code``, deuce flags ``dz``; its line values and
    royalties go to row ``n_opp`` of ``vals``/``roys``) settled against the opponents'
    (the rows before it), plus the value of earning Fantasyland; returns (points,
    whether it pays a foul, whether it earns Fantasyland)."""
    mine = vals[n_opp]
    myroy = roys[n_opp]
    dl, fouled, misset = _finish_board(code, dz, ev, roy, sc, mine, myroy)
    if by_best:
        _best_lines(vals, roys, n_opp + 1, best)
    total = 0.0
    for j in range(n_opp):
        total += _pair_points(mine, myroy, dl, fouled, vals[j], roys[j], odl[j], ofoul[j],
                              best, sc)  # fmt: skip
    earned = False
    if not misset:
        earned, value = _fantasyland_earned(mine, in_fl, flv, pol)
        if earned:
            # The points above are summed over the opponents; the value is one
            # opponent's (a heads-up figure) unless the policy counts it per opponent.
            total += value * (n_opp if pol[POL_FL_PER_OPP] != 0.0 else 1)
    return total, fouled, earned


@_jit
def _exact_street(
    code: Any, cnt: Any, dz: Any, deck: Any, start: int, n_cards: int, n_place: int,
    n_disc: int,
    ev: Any, roy: Any, sc: Any, vals: Any, roys: Any, n_opp: int, odl: Any, ofoul: Any,
    best: Any, by_best: bool, in_fl: bool, flv: Any, pol: Any, tcode: Any, tcnt: Any,
    tdz: Any,
) -> None:  # fmt: skip
    """Place our last street ``deck[start:start + n_cards]`` (it completes the board) the
    way that scores the most against the opponents' completed boards, Fantasyland
    included: every placement is settled exactly, where the policy would go by its board
    value. It sees the opponents' last cards of the rollout, which at the table only the
    seats placing after them see: an optimistic bias."""
    codes = ev[0]
    n_patterns = 3**n_place
    n_discards = n_cards if n_disc == 1 else 1
    top = -1e300
    best_d = -1
    best_a = -1
    for d in range(n_discards):
        if n_disc != 1:
            d = -1
        for a in range(n_patterns):
            ok, _, _, _, _, _ = _pattern_sums(code, cnt, deck, start, n_cards, d, a, codes)
            if not ok:
                continue
            for line in range(3):
                tcode[line] = code[line]
                tcnt[line] = cnt[line]
                tdz[line] = dz[line]
            _place_street(tcode, tcnt, tdz, deck, start, n_cards, d, a, codes)
            total, _, _ = _our_points(tcode, tdz, ev, roy, sc, vals, roys, n_opp, odl, ofoul,
                                      best, by_best, in_fl, flv, pol)  # fmt: skip
            if total > top:
                top = total
                best_d = d
                best_a = a
    _place_street(code, cnt, dz, deck, start, n_cards, best_d, best_a, codes)


@_jit
def _rollouts(
    pool: Any, r0: int, r1: int, seed: int,
    fl_cards: Any, fl_vals: Any, fl_dl: Any,
    opp_code: Any, opp_cnt: Any, opp_dz: Any, opp_kind: Any,
    ev_who: Any, ev_cards: Any, ev_place: Any, ev_disc: Any,
    cand_code: Any, cand_cnt: Any, cand_dz: Any, active: Any,
    in_fl: bool, n_fills: int, choice: int,
    ev: Any, roy: Any, flv: Any, st: Any, vf: Any, pol: Any, sc: Any,
    out_n: Any, out_sum: Any, out_sq: Any, out_foul: Any, out_fl: Any,
) -> None:  # fmt: skip
    """Rollouts ``r0 .. r1 - 1`` for every active candidate; adds to the ``out_*`` sums.

    Deck of rollout r: the Fantasyland deals of sample ``r % M`` first (dealt before
    anything else, hidden from us), then the rest of the pool shuffled; the street
    events take their cards from it in the order they are dealt.
    """
    np.random.seed(seed)
    n_pool = pool.shape[0]
    m_fl = fl_cards.shape[0]
    n_flc = fl_cards.shape[1] if m_fl > 0 else 0
    n_fl_opp = fl_vals.shape[1] if m_fl > 0 else 0
    q = opp_code.shape[0]
    n_opp = q + n_fl_opp
    n_ev = ev_who.shape[0]
    n_cand = cand_code.shape[0]
    deck = np.empty(n_pool, dtype=np.int64)
    used = np.zeros(52, dtype=np.bool_)
    scratch = np.empty(52, dtype=np.int64)
    pref = np.zeros((_pref_rows(n_fills, choice, pol), 14), dtype=np.int64)
    opol = _opponent_policy(pol)
    o_fills = int(pol[POL_OPP_FILLS]) if pol[POL_OPP_FILLS] > 0 else n_fills
    opref = np.zeros((_pref_rows(o_fills, choice, opol), 14), dtype=np.int64)
    ev_start = np.empty(n_ev, dtype=np.int64)  # where each street event's cards start
    ev_start[:] = n_flc + np.cumsum(ev_cards) - ev_cards
    wcode = np.empty(3, dtype=np.int64)
    wcnt = np.empty(3, dtype=np.int64)
    wdz = np.empty(3, dtype=np.int64)
    # Every seat's line values and royalties; row n_opp is ours (per candidate).
    vals = np.empty((n_opp + 1, 3), dtype=np.int64)
    roys = np.zeros((n_opp + 1, 3), dtype=np.float64)
    ovals = vals[:n_opp]
    odl = np.empty(n_opp, dtype=np.int64)
    ofoul = np.empty(n_opp, dtype=np.bool_)
    best = np.full(6, -1, dtype=np.int64)
    by_best = sc[SC_AWARD] == AWARD_BEST
    # Our last street event, placed exactly when the policy says so (POL_EXACT_LAST).
    last = -1
    if pol[POL_EXACT_LAST] != 0.0:
        for e in range(n_ev):
            if ev_who[e] == -1:
                last = e
    tcode = np.empty(3, dtype=np.int64)
    tcnt = np.empty(3, dtype=np.int64)
    tdz = np.empty(3, dtype=np.int64)
    for r in range(r0, r1):
        # --- the deck
        _deal_deck(deck, pool, fl_cards, r % m_fl if m_fl > 0 else -1, used)
        # --- the opponents' boards (they do not depend on our placement)
        for j in range(q):
            for line in range(3):
                wcode[line] = opp_code[j, line]
                wcnt[line] = opp_cnt[j, line]
                wdz[line] = opp_dz[j, line]
            _play_streets(j, opp_kind[j], wcode, wcnt, wdz, deck, ev_start, ev_who, ev_cards,
                          ev_place, ev_disc, o_fills, choice, ev, roy, flv, st, vf, opol,
                          scratch, opref, NO_EVENT)  # fmt: skip
            odl[j], ofoul[j], _ = _finish_board(wcode, wdz, ev, roy, sc, ovals[j], roys[j])
        for j in range(n_fl_opp):
            m = r % m_fl
            for line in range(3):
                ovals[q + j, line] = fl_vals[m, j, line]
            odl[q + j] = fl_dl[m, j]
            ofoul[q + j] = False
            _seat_royalties(ovals[q + j], False, roy, sc, roys[q + j])
        # --- our board, for every candidate
        for c in range(n_cand):
            if not active[c]:
                continue
            for line in range(3):
                wcode[line] = cand_code[c, line]
                wcnt[line] = cand_cnt[c, line]
                wdz[line] = cand_dz[c, line]
            _play_streets(US, POLICY, wcode, wcnt, wdz, deck, ev_start, ev_who, ev_cards,
                          ev_place, ev_disc, n_fills, choice, ev, roy, flv, st, vf, pol, scratch,
                          pref, last)  # fmt: skip
            if last >= 0:
                _exact_street(wcode, wcnt, wdz, deck, ev_start[last], ev_cards[last],
                              ev_place[last], ev_disc[last], ev, roy, sc, vals, roys, n_opp,
                              odl, ofoul, best, by_best, in_fl, flv, pol, tcode, tcnt,
                              tdz)  # fmt: skip
            total, fouled, earned = _our_points(wcode, wdz, ev, roy, sc, vals, roys, n_opp,
                                                odl, ofoul, best, by_best, in_fl, flv,
                                                pol)  # fmt: skip
            if earned:
                out_fl[c] += 1
            if fouled:
                out_foul[c] += 1
            out_n[c] += 1
            out_sum[c] += total
            out_sq[c] += total * total


@_jit
def _static(
    pool: Any, seed: int, n_fills: int, choice: int, cand_code: Any, cand_cnt: Any,
    ev: Any, roy: Any, flv: Any, st: Any, vf: Any, pol: Any,
    out: Any, out_foul: Any,
) -> None:  # fmt: skip
    """The policy's value of each candidate: random completions from the whole pool
    (the same completions for every candidate)."""
    codes, t3, t5, fo = ev
    np.random.seed(seed)
    n_pool = pool.shape[0]
    scratch = np.empty(52, dtype=np.int64)
    n_cand = cand_code.shape[0]
    need = 13 - cand_cnt[0, 0] - cand_cnt[0, 1] - cand_cnt[0, 2]
    fills = n_fills if need > 0 else 1
    picks = choice if need > 0 else 1
    pref = np.zeros((_pref_rows(fills, picks, pol), 14), dtype=np.int64)
    spare = 0
    if need > 0 and fills > 0:
        extra = int(need * pol[POL_THROWN])
        kept = _draw_fills(pool, POOL_START, n_pool, need, extra, fills, picks, codes,
                           scratch, pref)  # fmt: skip
        if pol[POL_REPAIR_SPARE] != 0.0:
            spare = kept - need
    w = pol[POL_W]
    foul_penalty = pol[POL_FOUL_PENALTY]
    pick_max = pol[POL_PICK_MAX]
    rounds = int(pol[POL_REPAIR]) if need > 1 else 0
    live = np.empty(LIVE_COUNTS, dtype=np.int64)
    _live_counts(pool, 0, n_pool, live)
    for c in range(n_cand):
        if fills == 0:  # no completions: the learned value of the board
            out[c] = _residual(cand_code[c, 0], cand_code[c, 1], cand_code[c, 2],
                               cand_cnt[c, 0], cand_cnt[c, 1], cand_cnt[c, 2], t5, fo,
                               vf, live, codes)  # fmt: skip
            out_foul[c] = 0.0
            continue
        f0 = 3 - cand_cnt[c, 0]
        f01 = f0 + 5 - cand_cnt[c, 1]
        total = 0.0
        fouls = 0
        for s in range(fills):
            x = -1e300
            mean = 0.0
            for g in range(picks):
                y = _pick_value(cand_code[c, 0], cand_code[c, 1], cand_code[c, 2], f0, f01,
                                need, pref, s * picks + g, t3, t5, fo, roy, flv, st, w,
                                foul_penalty)  # fmt: skip
                mean += y
                if y > x:
                    x = y
            if rounds > 0 and x == -foul_penalty:
                for i in range(need + spare):
                    scratch[i] = pref[fills * picks + s, i]
                x = _repair(cand_code[c, 0], cand_code[c, 1], cand_code[c, 2], f0, f01, need,
                            scratch, rounds, t3, t5, fo, roy, flv, st, w, foul_penalty,
                            spare)  # fmt: skip
            if x == -foul_penalty:
                fouls += 1
            if pick_max != 1.0:
                x = pick_max * x + (1.0 - pick_max) * mean / picks
            total += x
        if pol[POL_RESIDUAL] != 0.0 and need > 0:
            total += pol[POL_RESIDUAL] * fills * _residual(
                cand_code[c, 0], cand_code[c, 1], cand_code[c, 2], cand_cnt[c, 0],
                cand_cnt[c, 1], cand_cnt[c, 2], t5, fo, vf, live, codes,
            )  # fmt: skip
        out[c] = total / fills
        out_foul[c] = fouls / fills


@_jit
def _scratch_boards(seed: int, n_fills: int, choice: int, pol: Any) -> Any:
    """Seed the kernels' generator; a deck, the policy's buffers and one board's arrays
    (code sums, counts, deuce counts) for boards completed from scratch."""
    np.random.seed(seed)
    deck = np.arange(52, dtype=np.int64)
    scratch = np.empty(52, dtype=np.int64)
    pref = np.zeros((_pref_rows(n_fills, choice, pol), 14), dtype=np.int64)
    code = np.empty(3, dtype=np.int64)
    cnt = np.empty(3, dtype=np.int64)
    dz = np.empty(3, dtype=np.int64)
    return deck, scratch, pref, code, cnt, dz


@_jit
def _new_board(deck: Any, code: Any, cnt: Any, dz: Any) -> None:
    """A fresh shuffle and an empty board."""
    _shuffle_tail(deck, 0)
    code[:] = 0
    cnt[:] = 0
    dz[:] = 0


@_jit
def _solitaire(
    n_boards: int, seed: int, st_cards: Any, st_place: Any, st_disc: Any, n_fills: int,
    choice: int,
    ev: Any, roy: Any, flv: Any, st: Any, vf: Any, pol: Any, out: Any,
) -> None:  # fmt: skip
    """Complete ``n_boards`` boards from scratch with the policy (for the strength table)."""
    _, t3, t5, fo = ev
    deck, scratch, pref, code, cnt, dz = _scratch_boards(seed, n_fills, choice, pol)
    for b in range(n_boards):
        _new_board(deck, code, cnt, dz)
        pos = 0
        for k in range(st_cards.shape[0]):
            _policy_street(
                code,
                cnt,
                dz,
                deck,
                pos,
                st_cards[k],
                st_place[k],
                st_disc[k],
                52,
                n_fills,
                choice,
                0,
                ev,
                roy,
                flv,
                st,
                vf,
                pol,
                scratch,
                pref,
            )
            pos += st_cards[k]
        _line_values(code, t3, t5, fo, out[b])


# =========================================================================== situations


def _line_state(lines: Sequence[Sequence[Card]], codes: I64) -> tuple[I64, I64, I64]:
    code = np.array([sum(int(codes[c]) for c in line) for line in lines], dtype=np.int64)
    cnt = np.array([len(line) for line in lines], dtype=np.int64)
    dz = np.array([int(DEUCE_OF_SPADES in line) for line in lines], dtype=np.int64)
    return code, cnt, dz


def _opponents(
    view: View, me: int, codes: I64, cum: npt.NDArray[np.int64]
) -> tuple[list[int], list[tuple[I64, I64, I64]], list[int], list[tuple[int, int]], dict[int, int]]:
    """The opponents as the kernels see them: (seats still placing or complete, their line
    states, 1 for a timed-out seat, hidden Fantasyland seats with their deal sizes, the
    street each placing seat is on)."""
    opp_seats: list[int] = []
    opp_rows: list[tuple[I64, I64, I64]] = []
    opp_kind: list[int] = []
    fl_seats: list[tuple[int, int]] = []
    done: dict[int, int] = {}
    for b in view.boards:
        if b.seat == me:
            continue
        if b.hidden or (b.in_fantasyland and b.placed < 13):
            fl_seats.append((b.seat, b.fantasyland_cards))
            continue
        j = len(opp_seats)
        opp_seats.append(b.seat)
        opp_rows.append(_line_state((b.top, b.middle, b.bottom), codes))
        opp_kind.append(1 if b.seat in view.timed_out else 0)
        done[j] = int(np.searchsorted(cum, b.placed, side="right"))
    return opp_seats, opp_rows, opp_kind, fl_seats, done


def _street_events(
    streets: Sequence[tuple[int, int]],
    play_order: Sequence[int],
    me: int,
    mine_done: int,
    opp_seats: list[int],
    done: dict[int, int],
) -> tuple[list[int], list[int], list[int]]:
    """Every street still to be dealt, in dealing order: (who: -1 us, else an index into
    ``opp_seats``; cards dealt; cards placed). ``mine_done`` is the street we are on (-1
    when we place no more streets); ``done`` the same per opponent index."""
    who: list[int] = []
    n_cards: list[int] = []
    n_place: list[int] = []
    for k, (dealt, placed) in enumerate(streets):
        for seat in play_order:
            if seat == me:
                if mine_done < 0 or k <= mine_done:
                    continue
                who.append(-1)
            elif seat in opp_seats and k >= done[opp_seats.index(seat)]:
                who.append(opp_seats.index(seat))
            else:
                continue
            n_cards.append(dealt)
            n_place.append(placed)
    return who, n_cards, n_place


@dataclass(frozen=True)
class Candidate:
    """One of our options as the kernels see it: the board after it (lines' cards)."""

    top: tuple[Card, ...]
    middle: tuple[Card, ...]
    bottom: tuple[Card, ...]


@dataclass
class Situation:
    """A seat's decision rebuilt from its view, as arrays for the kernels.

    ``pool``: the cards the seat cannot see. ``events_*``: every street still to be dealt,
    in dealing order (``who`` -1 for us, else an index into the ``opp_*`` arrays of the
    opponents who still place cards). ``fl_seats``: opponents whose hidden Fantasyland
    deals are sampled. ``fixed``: opponents whose boards are complete and visible.
    """

    view: View
    decision: Decision
    tables: Tables
    pool: I64
    mine: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]
    opp_seats: list[int]
    opp_code: I64
    opp_cnt: I64
    opp_dz: I64
    opp_kind: I64
    events_who: I64
    events_cards: I64
    events_place: I64
    events_disc: I64
    fl_seats: list[tuple[int, int]]
    in_fl: bool

    @classmethod
    def from_view(cls, view: View, decision: Decision | None = None) -> Situation:
        """The situation of ``view``'s seat for ``decision`` (default: its first)."""
        if view.seat is None:
            raise ValueError("a spectator's view has no decision")
        dec = decision if decision is not None else view.decisions[0]
        rules = view.rules
        if not rules.is_open_face:
            raise ValueError("rollouts are for open-face variants")
        tables = tables_for(rules)
        me = view.seat
        mine_view = view.board_of(me, dec.hand)
        seen = set(dec.cards) | set(view.hand) | set(mine_view.discards)
        for b in view.boards:
            seen.update(b.top)
            seen.update(b.middle)
            seen.update(b.bottom)
        pool = np.array([c for c in range(52) if c not in seen], dtype=np.int64)
        streets = rules.streets
        cum = np.cumsum([p for _, p in streets])
        opp_seats, opp_rows, opp_kind, fl_seats, done = _opponents(view, me, tables.codes, cum)
        my_done = int(np.searchsorted(cum, mine_view.placed, side="right"))
        in_fl = mine_view.in_fantasyland
        mine_left = -1 if in_fl or dec.kind != "street" else my_done
        who, n_cards, n_place = _street_events(streets, view.play_order, me, mine_left,
                                               opp_seats, done)  # fmt: skip
        # The pool must hold every card still to be dealt (it always does: the deck has
        # 52 cards and the variants deal at most 52).
        need = sum(n_cards) + sum(n for _, n in fl_seats)
        if need > len(pool):  # pragma: no cover - defensive
            raise ValueError("not enough unseen cards for the rest of the hand")
        q = len(opp_seats)
        return cls(
            view=view,
            decision=dec,
            tables=tables,
            pool=pool,
            mine=(mine_view.top, mine_view.middle, mine_view.bottom),
            opp_seats=opp_seats,
            opp_code=np.array([r[0] for r in opp_rows], dtype=np.int64).reshape(q, 3),
            opp_cnt=np.array([r[1] for r in opp_rows], dtype=np.int64).reshape(q, 3),
            opp_dz=np.array([r[2] for r in opp_rows], dtype=np.int64).reshape(q, 3),
            opp_kind=np.array(opp_kind, dtype=np.int64),
            events_who=np.array(who, dtype=np.int64),
            events_cards=np.array(n_cards, dtype=np.int64),
            events_place=np.array(n_place, dtype=np.int64),
            events_disc=np.array([c - p for c, p in zip(n_cards, n_place, strict=True)],
                                 dtype=np.int64),
            fl_seats=fl_seats,
            in_fl=in_fl,
        )  # fmt: skip

    @property
    def opponents(self) -> int:
        """The opponents our board is settled against in a rollout (those still placing
        or complete, and the hidden Fantasyland seats): the kernels' ``n_opp``."""
        return len(self.opp_seats) + len(self.fl_seats)

    def candidate(self, action: Place) -> Candidate:
        """The board after ``action`` (a street placement or a whole set)."""
        if self.decision.kind == "set":
            return Candidate(action.top, action.middle, action.bottom)
        t, m, b = self.mine
        return Candidate(t + action.top, m + action.middle, b + action.bottom)

    def arrays(self, cands: Sequence[Candidate]) -> tuple[I64, I64, I64]:
        n = len(cands)
        code = np.zeros((n, 3), dtype=np.int64)
        cnt = np.zeros((n, 3), dtype=np.int64)
        dz = np.zeros((n, 3), dtype=np.int64)
        for i, cand in enumerate(cands):
            code[i], cnt[i], dz[i] = _line_state(
                (cand.top, cand.middle, cand.bottom), self.tables.codes
            )
        return code, cnt, dz

    def sample_fantasyland(self, samples: int, rng: random.Random) -> tuple[I64, I64, I64]:
        """``samples`` joint deals of the hidden Fantasyland opponents, each set by the
        exact solver: (cards [M, F], line values [M, K, 3], deuce lines [M, K])."""
        from chinese_poker.ai.fantasyland import solve_fantasyland

        k = len(self.fl_seats)
        total = sum(n for _, n in self.fl_seats)
        if k == 0 or samples <= 0:
            empty = np.zeros((0, 0), dtype=np.int64)
            return empty, np.zeros((0, 0, 3), dtype=np.int64), empty
        rules = self.tables.rules
        cards = np.zeros((samples, total), dtype=np.int64)
        vals = np.zeros((samples, k, 3), dtype=np.int64)
        dls = np.full((samples, k), -1, dtype=np.int64)
        pool = [int(c) for c in self.pool]
        for m in range(samples):
            deal = rng.sample(pool, total)
            cards[m] = deal
            at = 0
            for j, (_, n) in enumerate(self.fl_seats):
                board = solve_fantasyland(deal[at : at + n], rules).board
                at += n
                vals[m, j], dls[m, j] = fantasyland_row(board.lines, self.tables)
        return cards, vals, dls


def fantasyland_row(
    lines: Sequence[Sequence[Card]], tables: Tables
) -> tuple[tuple[int, int, int], int]:
    """A set Fantasyland board as the kernels see a hidden opponent's: its three line
    values (:func:`line_values`, the kernels' own look-ups) and the line holding the
    Finnish deuce (-1: none)."""
    _, _, dz = _line_state(lines, tables.codes)
    top, middle, bottom = (int(v) for v in line_values(lines, tables))
    return (top, middle, bottom), int(_deuce_line(dz))


# =========================================================================== drivers


@dataclass
class RolloutStats:
    """Sums over the rollouts of each candidate."""

    n: I64
    total: F64
    squares: F64
    fouls: I64
    fantasyland: I64

    @classmethod
    def zeros(cls, k: int) -> RolloutStats:
        return cls(np.zeros(k, np.int64), np.zeros(k), np.zeros(k), np.zeros(k, np.int64),
                   np.zeros(k, np.int64))  # fmt: skip

    def mean(self) -> F64:
        return self.total / np.maximum(self.n, 1)

    def stderr(self) -> F64:
        n = np.maximum(self.n, 1)
        var = np.maximum(self.squares / n - self.mean() ** 2, 0.0)
        return cast(F64, np.sqrt(var / np.maximum(n - 1, 1)))

    def foul_rate(self) -> F64:
        return self.fouls / np.maximum(self.n, 1)

    def fl_rate(self) -> F64:
        return self.fantasyland / np.maximum(self.n, 1)


DEADLINE_CHUNK = 0.004
"""Seconds a batch of rollouts lasts under a deadline: how far a budget can overshoot."""

FIRST_FULL_BATCH = 0.25
"""Before a rollout of this shape has been timed in this process, a deadline closer than
this many seconds starts with one rollout (to measure its cost) rather than a full batch."""

# Seconds per rollout of one candidate, last measured, by the shape of what is left to
# play (street events, opponents' boards): a first street costs many times a last one.
_COST: dict[tuple[int, int], float] = {}


def run_rollouts(
    sit: Situation,
    cands: Sequence[Candidate],
    *,
    rollouts: int,
    fills: int,
    seed: int,
    choice: int = 1,
    fl_samples: int = 8,
    batch: int = 16,
    halving: int = 0,
    keep: int = 2,
    foul_aversion: float = 0.0,
    deadline: float | None = None,
    rng: random.Random | None = None,
) -> RolloutStats:
    """Play up to ``rollouts`` rollouts for every candidate (common random numbers).

    ``halving``: rounds of successive halving (0: none, every candidate gets every
    rollout; -1: as many rounds as it takes to get down to ``keep`` candidates). The
    rollouts a surviving candidate has had double every round up to ``rollouts`` in the
    last, and after each round only the better half (at least ``keep``) goes on, so the
    work is about ``rounds x keep x rollouts`` however many candidates there are. The
    halving ranks by mean points minus ``foul_aversion`` x foul rate.
    ``deadline`` (a ``time.monotonic()`` value): batches of ``batch`` rollouts (the same
    as without a deadline, so a budget that is not reached changes nothing) while the
    measured cost of a rollout says the next one fits; then batches of about
    :data:`DEADLINE_CHUNK`, none started that would end past the deadline (at least one
    rollout is always played).
    """
    t = sit.tables
    code, cnt, dz = sit.arrays(cands)
    k = len(cands)
    stats = RolloutStats.zeros(k)
    active = np.ones(k, dtype=np.bool_)
    fl_cards, fl_vals, fl_dl = sit.sample_fantasyland(
        fl_samples if sit.fl_seats else 0, rng or random.Random(seed)
    )
    if halving < 0:
        rounds = max(1, math.ceil(math.log2(max(k / max(keep, 1), 1.0))) + 1)
    else:
        rounds = max(halving, 1)
    done = 0
    batch_no = 0
    shape = (len(sit.events_who), int(sit.opp_code.shape[0]))
    for rnd in range(rounds):
        target = max(1, math.ceil(rollouts / 2 ** (rounds - 1 - rnd)))
        while done < target:
            stop = min(target, done + batch)
            if deadline is not None:
                # A full batch (the same rollouts as without a deadline) when its
                # predicted cost fits in the time left; else shorter batches of about
                # DEADLINE_CHUNK, and none that would end past the deadline.
                left = deadline - time.monotonic()
                unit = _COST.get(shape, 0.0) * max(int(active.sum()), 1)  # one rollout, live ones
                if unit == 0.0 and left < FIRST_FULL_BATCH:
                    stop = done + 1  # no cost measured yet in this process: measure it
                elif (stop - done) * unit > left:
                    if batch_no > 0 and unit > left:
                        return stats
                    size = max(1, int(min(left, DEADLINE_CHUNK) / max(unit, 1e-9)))
                    stop = min(stop, done + size)
            began = time.monotonic()
            _rollouts(
                sit.pool, done, stop, (seed * 1_000_003 + batch_no) % (2**32 - 1),
                fl_cards, fl_vals, fl_dl,
                sit.opp_code, sit.opp_cnt, sit.opp_dz, sit.opp_kind,
                sit.events_who, sit.events_cards, sit.events_place, sit.events_disc,
                code, cnt, dz, active, sit.in_fl, fills, choice,
                t.ev, t.roy, t.flv, t.strength, t.vf, t.policy, t.scoring,
                stats.n, stats.total, stats.squares, stats.fouls, stats.fantasyland,
            )  # fmt: skip
            now = time.monotonic()
            # The cost of one rollout of one candidate, as last measured (it carries over
            # to the next decision, whose first batch it sizes).
            _COST[shape] = (now - began) / ((stop - done) * max(int(active.sum()), 1))
            done = stop
            batch_no += 1
            if deadline is not None and now > deadline:
                return stats
        if rnd < rounds - 1:
            live = np.flatnonzero(active)
            if len(live) > keep:
                rank = stats.mean()[live] - foul_aversion * stats.foul_rate()[live]
                order = live[np.argsort(-rank, kind="stable")]
                active[order[max(keep, (len(live) + 1) // 2) :]] = False
    return stats


def static_scores(
    sit: Situation, cands: Sequence[Candidate], *, fills: int, seed: int, choice: int = 1
) -> tuple[F64, F64]:
    """The fast policy's value and foul rate of each candidate (random completions)."""
    t = sit.tables
    code, cnt, _ = sit.arrays(cands)
    out = np.zeros(len(cands))
    fouls = np.zeros(len(cands))
    if len(cands):
        _static(sit.pool, seed % (2**32 - 1), fills, choice, code, cnt, t.ev, t.roy, t.flv,
                t.strength, t.vf, t.policy, out, fouls)  # fmt: skip
    return out, fouls


def policy_place(
    rules: Rules,
    lines: tuple[Sequence[Card], Sequence[Card], Sequence[Card]],
    street: Sequence[Card],
    place: int,
    unseen: Sequence[Card],
    *,
    fills: int = 8,
    choice: int = 3,
    seed: int = 0,
) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]:
    """The fast policy's placement of ``street`` on ``lines`` (for tests and tools):
    (top, middle, bottom) cards added, and the discards. ``unseen`` feeds completions.

    When two assignments give every line the same ranks and suits (``Ah Ks`` on top and
    ``As Kh`` in the middle, or the other way round) either may come back: they are worth
    the same to the policy.
    """
    t = tables_for(rules)
    code, cnt, dz = _line_state(lines, t.codes)
    before = cnt.copy()
    deck = np.array(list(street) + [c for c in unseen if c not in street], dtype=np.int64)
    scratch = np.empty(52, dtype=np.int64)
    pref = np.zeros((_pref_rows(fills, choice, t.policy), 14), dtype=np.int64)
    _seed_kernel(seed)
    n = len(street)
    _policy_street(
        code,
        cnt,
        dz,
        deck,
        0,
        n,
        place,
        n - place,
        len(deck),
        fills,
        choice,
        0,
        t.ev,
        t.roy,
        t.flv,
        t.strength,
        t.vf,
        t.policy,
        scratch,
        pref,
    )
    # Recover which card went where: try the assignments of the counts the kernel added
    # until the lines' code sums match.
    added = [int(cnt[i] - before[i]) for i in range(3)]
    base = [sum(int(t.codes[c]) for c in line) for line in lines]
    for thrown in itertools.combinations(street, n - place):
        kept = [c for c in street if c not in thrown]
        for top in itertools.combinations(kept, added[0]):
            rest = [c for c in kept if c not in top]
            for middle in itertools.combinations(rest, added[1]):
                bottom = tuple(c for c in rest if c not in middle)
                sums = [base[0] + sum(int(t.codes[c]) for c in top),
                        base[1] + sum(int(t.codes[c]) for c in middle),
                        base[2] + sum(int(t.codes[c]) for c in bottom)]  # fmt: skip
                if sums == [int(x) for x in code]:
                    return tuple(top), tuple(middle), bottom, tuple(thrown)
    raise AssertionError("policy placement not found")  # pragma: no cover


@_jit
def _seed(seed: int) -> None:
    np.random.seed(seed)


def _seed_kernel(seed: int) -> None:
    _seed(seed % (2**32 - 1))


def solitaire_values(
    rules: Rules, boards: int, *, seed: int = 0, fills: int = 8, choice: int = 3,
    repair: int = 0, climb: int = 0, climb_rounds: int = 2, repair_spare: bool = False,
    residual: float = 0.0, value: int = 0,
) -> I64:  # fmt: skip
    """Line values (N x 3) of ``boards`` boards the policy completed from scratch
    (``repair``, ``climb``, ``climb_rounds``, ``repair_spare``, ``residual``, ``value``:
    see :meth:`Tables.with_policy`; with ``value`` and ``fills`` 0 the learned value
    places every street)."""
    if fills == 0 and not value:
        raise ValueError("a policy with no completions (fills 0) needs the learned value")
    t = tables_for(rules)
    if repair or climb or residual or value:
        t = t.with_policy(repair=repair, climb=climb, climb_rounds=climb_rounds,
                          repair_spare=repair_spare, residual=residual,
                          value=value)  # fmt: skip
    streets = rules.streets
    out = np.zeros((boards, 3), dtype=np.int64)
    _solitaire(boards, seed % (2**32 - 1),
               np.array([d for d, _ in streets], dtype=np.int64),
               np.array([p for _, p in streets], dtype=np.int64),
               np.array([d - p for d, p in streets], dtype=np.int64), fills, choice,
               t.ev, t.roy, t.flv, t.strength, t.vf, t.policy, out)  # fmt: skip
    return out
