"""The kernels' tables of one ruleset (:class:`Tables`, built once per rules by
:func:`tables_for`): the evaluation look-ups, royalties, Fantasyland values, line
strength, and two parameter arrays with named indices, ``Tables.policy`` (``POL_*``,
floats: the fast policy) and ``Tables.scoring`` (``SC_*``, integers: the settlement of
the compiled ScoringSpec, which the kernels reproduce exactly,
tests/test_kernel_property.py)."""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from chinese_poker import evaluate as _ev
from chinese_poker.ai.fantasyland import FL_VALUES, fantasyland_value, points_scale
from chinese_poker.ai.rollout import learned
from chinese_poker.ai.rollout.features import NO_CORRECTION, partial_line_table
from chinese_poker.ai.rollout.learned import BoardValue
from chinese_poker.ai.rollout.strength import LineStrength, strength_table
from chinese_poker.rules import Rules, RulesError, require_supported

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
I16 = npt.NDArray[np.int16]
#: What the fast policy's kernels read (:attr:`Tables.policy_tables`).
PolicyTables = tuple[tuple[I64, I64, I64, I64], F64, F64, F64, tuple[I16, F64], F64]


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
    residual: F64 = dataclasses.field(default_factory=lambda: NO_CORRECTION)

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
    def policy_tables(self) -> PolicyTables:
        """What the fast policy's kernels read, as one record: (:attr:`ev`, royalties,
        Fantasyland values, line strength, :attr:`vf`, the policy's parameters)."""
        return (self.ev, self.roy, self.flv, self.strength, self.vf, self.policy)

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
        fouls into a valid board (:func:`repaired_value`); ``climb``: how many of a street's
        best placements (2 or more; 0, none) get their completions improved by up to
        ``climb_rounds`` rounds of the best swap before the policy chooses among them
        (:func:`climbed_value`);
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
        included, as a player who saw them would place it (:func:`exact_street`), not by
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
            table = value_table(self.rules, BoardValue(value))
        elif residual != 0.0 or opp_residual > 0.0:
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
    stay = FL_VALUES[fl.repeat] * points_scale(rules) if fl.enabled else 0.0
    # The policy's weights: a line is worth about v, plus a share of the overall unit and
    # the scoop; a foul costs the foul payment plus the opponent's typical royalties
    # (about 3 points) and whatever our own board would have earned.
    w = v + (o + s) / 3.0
    foul_penalty = spec.scoring.foul_value + 3.0 * points_scale(rules)
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


def fingerprint(rules: Rules) -> str:
    """A digest of what the policy's value depends on in ``rules``: the line values (the
    evaluator's tables, which the wheel and lowball options change), the royalties, the
    Fantasyland values, the line strength, the policy's weights and the streets. The
    learned tables are shipped by it: rules with the same fingerprint share them."""
    t = tables_for(rules)
    h = hashlib.sha256()
    arrays = (*t.ev, t.roy, t.flv, t.strength, t.policy, np.array(rules.streets, dtype=np.int64))
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


@lru_cache(maxsize=8)
def residual_table(rules: Rules) -> F64:
    """The shipped correction table (14 x features) for ``rules``; a RulesError when no
    table was trained for rules with the same kernel arrays."""
    return learned.correction_table(fingerprint(rules))


@lru_cache(maxsize=8)
def value_table(rules: Rules, kind: BoardValue = BoardValue.ITERATED) -> F64:
    """The shipped value table (14 x features) of ``kind`` for ``rules``; a RulesError
    when none was trained for rules with the same kernel arrays."""
    if kind == BoardValue.NONE:
        raise ValueError("BoardValue.NONE has no table")
    return learned.board_value_table(fingerprint(rules), kind)
