"""The Monte Carlo bot ``mc``: plays every variant, open-face by sampling and playouts.

Open-face streets (OFC, Pineapple, Progressive Pineapple, Turbo). For each candidate
placement of the street the bot plays the hand out many times
(:mod:`chinese_poker.ai.rollout`): each rollout shuffles the cards it cannot see (the
deck, the opponents' discards and hidden Fantasyland deals: its own discards and every
placed card are known), completes every board that still has streets to play with the
fast policy (opponents from their visible cards), and settles our board against each
opponent exactly as the scorer does (lines, overall unit, scoop, royalties, fouls, the
Finnish deuce) plus a value for earning Fantasyland
(:func:`~chinese_poker.ai.rollout.fantasyland_value`). The candidate with the best mean
wins. Common random numbers (every candidate on the same decks) make the comparison
sharp; the first street's 232 placements are first screened by the policy's own score,
and successive halving spends the rollouts on the candidates that are still close.

* Fantasyland deals: the exact solver (:func:`~chinese_poker.ai.fantasyland.solve_fantasyland`)
  with a stay value worth one more Fantasyland hand while the repeat limit allows one;
  at level 3 its board and the next best by royalties, the stay and the lines'
  strength are played out against the opponents (:func:`analyse_fantasyland`).
* Classic and Criss Cross: the setting solver (:mod:`chinese_poker.ai.setting`) for the
  set, its advice for surrender and naturals; if that module cannot be imported, the
  rules bot plays those hands.
* An open-face table with a deuce-to-seven middle (not a preset): the rules bot.

``level`` (1 to 3, :data:`OFFERED_LEVELS`; default 3) sets the effort
(:data:`THROWING_LEVELS` where a street throws a card, as in Pineapple, else
:data:`LEVELS`); ``time_budget`` (seconds per decision, default none) stops sampling
once exceeded: the bot then answers with the best candidate so far, always a legal
action. Without a budget the bot is deterministic for a seed; with one its play depends
on the machine's speed.

>>> from chinese_poker.rules import rules_for
>>> from chinese_poker.engine import Table, play_hand
>>> from chinese_poker.ai.simple import RuleBot
>>> table = Table(rules_for("pineapple"), 2, seed=3)
>>> play_hand(table, [MonteCarloBot(seed=1, level=1), RuleBot(seed=2)])
>>> table.over
True
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from chinese_poker.ai import rollout
from chinese_poker.ai.fantasyland import fantasyland_boards, solve_fantasyland
from chinese_poker.cards import Card
from chinese_poker.engine.actions import (
    Action,
    ClaimNatural,
    Decision,
    Place,
    Surrender,
    iter_placements,
)
from chinese_poker.engine.views import View
from chinese_poker.rules import Rules, RulesError

if TYPE_CHECKING:
    from chinese_poker.ai.setting import SettingSolution
    from chinese_poker.ai.simple import RuleBot

__all__ = [
    "DEFAULT_LEVEL",
    "FL_BOARDS",
    "FL_BOARDS_MIN_SECONDS",
    "FOUL_AVERSION",
    "FOUL_AVERSION_NO_THROW",
    "FOUL_AVERSION_THROW",
    "HINT_LEVELS",
    "LEVELS",
    "OFFERED_LEVELS",
    "THROWING_LEVELS",
    "V1_LEVELS",
    "V1_OFFERED_LEVELS",
    "Level",
    "MonteCarloBot",
    "MonteCarloBotV1",
    "StreetOption",
    "analyse_fantasyland",
    "analyse_street",
    "fantasyland_stay_value",
    "level_tables",
    "view_stay_value",
]


@dataclass(frozen=True, slots=True)
class Level:
    """The effort of one level.

    ``rollouts``: playouts per candidate (the most any candidate gets);
    ``candidates``: how many placements of a big street (the first) survive the policy
    screen; ``screen_fills``: random completions per placement in that screen;
    ``fills``: completions per placement inside the playout policy, each the best of
    ``choice`` ways to use the cards; ``keep``: candidates that get every rollout
    (successive halving drops the others along the way); ``fl_samples``: hidden
    Fantasyland deals solved per decision; ``foul_aversion``: points charged per unit of
    foul probability when choosing (not in the reported value; see docs/bots.md);
    ``policy_foul_scale`` and ``policy_strength_scale``: factors on the fast policy's
    foul penalty and line-strength weight (the rules' defaults of
    :func:`~chinese_poker.ai.rollout.tables_for`); ``fl_scale``: a factor on the value
    of earning or keeping Fantasyland, in the policy and in the rollouts' results;
    ``pick_max``: a policy completion is worth that share of its best arrangement and
    the rest of the mean of the arrangements tried. These four are experiment knobs
    (docs/bots-research.md, the ablation), 1 at every level. ``foul_repair``: rounds of swaps
    with which a policy completion whose arrangements all foul looks for a valid board
    (:func:`~chinese_poker.ai.rollout.Tables.with_policy`; 0, none, in ``mc-v1``; 1 in
    :data:`THROWING_LEVELS` level 3). ``repair_spare`` (1: the repair may also take a card
    the completion throws), ``climb`` and ``climb_rounds`` (a hill climb of the
    completions of a street's few best placements): experiments that did not help, 0 at
    every level (docs/bots-research.md, *Round four*). ``fl_per_opponent`` (1: a rollout counts
    earning Fantasyland once per opponent, as it counts the hand's points; 1 in
    :data:`THROWING_LEVELS` level 3) and ``aversion_per_opponent`` (1: the foul
    aversion times the opponents; an experiment, 0 at every level): they change nothing
    heads-up (docs/bots-research.md, *Round five*). ``opp_foul_scale``, ``opp_repair`` and
    ``opp_fills``: the foul penalty factor, repair rounds (-1: ours) and completions
    (-1: ours) of the policy that plays the *opponents'* boards in the rollouts
    (:meth:`~chinese_poker.ai.rollout.Tables.with_policy`); experiments that changed
    nothing measurable, at their defaults at every level (docs/bots-research.md, *Round six*).
    ``line_strength`` (whose boards the policy's line-strength table comes from,
    :class:`~chinese_poker.ai.rollout.LineStrength`) and ``exact_last`` (1: each
    rollout places our last street by the points it scores against the opponents'
    boards, which it sees there): experiments that did not help, the policy's own table
    and 0 at every level (docs/bots-research.md, *Round nine*). ``residual``: the weight of the
    learned correction of the policy's placement values
    (:func:`~chinese_poker.ai.residual.residual_table`, trained for Pineapple and
    Progressive Pineapple only; other rules are refused with a RulesError) and
    ``opp_residual`` (its weight for the policy that plays the opponents' boards; -1:
    ours): experiments that did not establish a gain, 0 and -1 at every level
    (docs/bots-research.md, *Round eleven*). ``value`` (1: the table the policy reads is the
    learned value of a partial board, :func:`~chinese_poker.ai.value.value_table`, and
    with ``fills`` 0 the policy and with ``screen_fills`` 0 the screen place by it
    alone): as strong as the default at a third to a fifth of its time in Pineapple and
    OFC, no ladder above level 3, not adopted, 0 at every level (docs/bots-research.md, *Round
    twelve* and *Round thirteen*); 2 reads that table refined on ``mc``'s own search
    means (:class:`~chinese_poker.ai.rollout.BoardValue`, Pineapple only): no gain over
    1, not adopted (*Round fourteen*); 3 reads a table that also values the live cards
    of the board's draws (Pineapple and OFC): no gain over 1, not adopted (*Round
    fifteen*). ``fl_scale_first``: a further factor of ``fl_scale`` on the first street
    alone (nothing placed yet), where the rollouts foresee Fantasyland least often
    (*Round fifteen*); an experiment, 1 at every level. ``fl_boards``: how many
    arrangements of a Fantasyland deal are played out against the opponents
    (:func:`analyse_fantasyland`; the exact solver's best by royalties and the stay, and
    the best by those plus the policy's line strength,
    :func:`~chinese_poker.ai.fantasyland.fantasyland_boards`); 0 or 1: the solver's board
    alone, as ``mc-v1`` sets it.
    """

    rollouts: int
    candidates: int
    screen_fills: int
    fills: int
    keep: int
    fl_samples: int
    choice: int
    foul_aversion: float = 0.0
    policy_foul_scale: float = 1.0
    policy_strength_scale: float = 1.0
    fl_scale: float = 1.0
    fl_scale_first: float = 1.0
    pick_max: float = 1.0
    foul_repair: int = 0
    climb: int = 0
    climb_rounds: int = 2
    repair_spare: int = 0
    fl_per_opponent: int = 0
    aversion_per_opponent: int = 0
    opp_foul_scale: float = 1.0
    opp_repair: int = -1
    opp_fills: int = -1
    line_strength: rollout.LineStrength = rollout.LineStrength.POLICY
    exact_last: int = 0
    residual: float = 0.0
    opp_residual: float = -1.0
    value: int = 0
    fl_boards: int = 0

    def __post_init__(self) -> None:
        if self.value not in tuple(rollout.BoardValue):
            names = ", ".join(f"{v.value} ({v.name.lower()})" for v in rollout.BoardValue)
            raise ValueError(f"a level's value must be one of {names}, not {self.value!r}")
        # With no completions the policy places by the table alone: without the learned
        # value it would read a table of zeros and take the first legal placement.
        if not self.value and (self.fills < 1 or self.screen_fills < 1):
            raise ValueError(
                f"a level with fills={self.fills} and screen_fills={self.screen_fills} has "
                "no completions to value a placement by: 0 needs value=1 (the learned "
                "board value)"
            )


#: Points charged per unit of foul probability when choosing a placement. Chasing
#: Fantasyland pays so well that the expected-points maximum fouls about 15% of boards
#: against the rules bot; 8 brings that under 10% for about a point a hand (docs/bots-research.md).
FOUL_AVERSION = 8.0

V1_LEVELS: dict[int, Level] = {
    1: Level(
        64,
        candidates=8,
        screen_fills=48,
        fills=4,
        choice=4,
        keep=2,
        fl_samples=4,
        foul_aversion=FOUL_AVERSION,
    ),
    2: Level(
        240,
        candidates=12,
        screen_fills=96,
        fills=6,
        choice=5,
        keep=3,
        fl_samples=6,
        foul_aversion=FOUL_AVERSION,
    ),
    3: Level(
        800,
        candidates=20,
        screen_fills=160,
        fills=8,
        choice=5,
        keep=3,
        fl_samples=8,
        foul_aversion=FOUL_AVERSION,
    ),
    4: Level(
        2400,
        candidates=32,
        screen_fills=256,
        fills=12,
        choice=8,
        keep=4,
        fl_samples=12,
        foul_aversion=FOUL_AVERSION,
    ),
    5: Level(
        6000,
        candidates=48,
        screen_fills=400,
        fills=16,
        choice=8,
        keep=4,
        fl_samples=16,
        foul_aversion=FOUL_AVERSION,
    ),
}
"""The levels of ``mc-v1``, the frozen baseline: the ``mc`` of issue 11's start."""

#: The foul aversion of ``mc``'s level 3 where no street throws a card (OFC,
#: Turbo): a quarter of ``mc-v1``'s. It is charged on the rollouts' foul rate, where
#: the playout policy fouls three to four times as often as the bot; in plain OFC 2
#: beat 4, and both beat ``mc-v1``'s 8, on fresh duplicate deals, for more fouls
#: (docs/bots-research.md, *Round six*); 1 gained nothing over 2 (*Round ten*).
FOUL_AVERSION_NO_THROW = 2.0

#: Arrangements of a Fantasyland deal that ``mc``'s level 3 plays out (the
#: solver's board and the best by royalties, the stay and the lines' strength): on
#: deals where the hand is played once and both boards are settled against the same
#: opponents' boards, they gain about +0.3 points a Fantasyland hand over the solver's
#: board alone; 32 gained no more than 16 (docs/bots-research.md, *Round sixteen*).
FL_BOARDS = 16

#: The least time left, in seconds, for which a Fantasyland deal's boards are played out
#: under a time budget (below it the solver's board is set at once).
FL_BOARDS_MIN_SECONDS = 0.06

#: The levels a player can choose (``mc`` and ``mc-v1``): each beats the one below on
#: duplicate deals heads-up in Pineapple and in plain OFC with a 95% interval above 0
#: (``bench/bench_levels.py``, docs/benchmarks.md *The level ladder*). ``mc-v1``'s levels
#: 4 and 5 (:data:`V1_LEVELS`, more of everything) were never shown stronger than its
#: level 3 (-0.57 ± 0.91, and ``mc``'s +0.04 ± 0.29 over 3,003 hands in value mode, at
#: several times the time), so no bot offers them; the hints keep them as more effort.
OFFERED_LEVELS: tuple[int, ...] = (1, 2, 3)

LEVELS: dict[int, Level] = {  # copies: tuning mc never moves mc-v1
    **{n: V1_LEVELS[n] for n in OFFERED_LEVELS},
    3: dataclasses.replace(V1_LEVELS[3], foul_aversion=FOUL_AVERSION_NO_THROW, fl_boards=FL_BOARDS),
}
"""Effort per level where no street throws a card (OFC, Turbo): 1 is quick (a few ms a
decision), 3 the default and strongest. ``mc-v1``'s, except that level 3 charges a
quarter of its foul aversion (:data:`FOUL_AVERSION_NO_THROW`): on fresh duplicate OFC
deals the default then beats ``mc-v1`` by +0.36 ± 0.13 points a hand (3,008 hands played
after the choice) for 2–4% more median decision time, fouling more (docs/bots-research.md, *Round
six* and *Round ten*; measured heads-up in plain OFC at level 3 only). Levels 1 and 2
are ``mc-v1``'s, so that the ladder's lower steps keep their measured order."""

#: The foul aversion of ``mc``'s level 3 where a street throws a card (Pineapple,
#: Progressive Pineapple): half of ``mc-v1``'s. The repaired playout policy fouls 22% of
#: its boards from scratch, about three times the bot's rate at the table; heads-up, 4
#: led 8 by the mean (inside the noise) and beat ``mc-v1`` on fresh duplicate deals, and
#: 2 scored no better than 4 for more fouls (docs/bots-research.md, *Round seven*).
FOUL_AVERSION_THROW = 4.0

THROWING_LEVELS: dict[int, Level] = {
    **{n: V1_LEVELS[n] for n in OFFERED_LEVELS},
    3: dataclasses.replace(
        V1_LEVELS[3],
        rollouts=470,
        foul_repair=1,
        fl_per_opponent=1,
        foul_aversion=FOUL_AVERSION_THROW,
        fl_boards=FL_BOARDS,
    ),
}
"""Effort per level where a street throws a card (Pineapple, Progressive Pineapple): the
default level 3 adds one round of foul repair to the playout policy and plays about 40%
fewer rollouts, for the same decision time as ``mc-v1``'s (docs/bots-research.md, *Round four*),
and charges half of its foul aversion (:data:`FOUL_AVERSION_THROW`, *Round seven*); on
fresh duplicate deals it beats ``mc-v1`` (+0.74 ± 0.21 points a hand heads-up over 9,017
hands, with its Fantasyland boards played out, :data:`FL_BOARDS`, *Round sixteen*). With
three or four players it counts earning Fantasyland once per opponent
(``fl_per_opponent``, *Round five*): the values are heads-up figures, and the hand it
brings is played against everyone. A level 4 with the same policy and 1,400 rollouts
was not established above level 3 (+0.29 ± 0.61 points a hand over 1,006 heads-up hands
at six times the time, *Round eight*) and is not offered. Levels 1 and 2 are
``mc-v1``'s: level 2 with the repair beat ``mc-v1``'s by about as much, but fouled
7.8% of its boards against 5.6%, and on the ladder test's fixed deals it did not beat
level 1."""


V1_OFFERED_LEVELS: dict[int, Level] = {n: V1_LEVELS[n] for n in OFFERED_LEVELS}
"""The levels ``mc-v1`` offers (it plays by the same table whether or not a street
throws a card)."""

HINT_LEVELS: dict[int, Level] = V1_LEVELS
"""The hint engine's (and so the reviews') effort per level: ``mc-v1``'s, so that a
review's fixed strength does not move with the bot."""

DEFAULT_LEVEL = 3


@dataclass(frozen=True, slots=True)
class StreetOption:
    """One analysed placement: mean points, its standard error, foul and Fantasyland
    rates over ``rollouts`` playouts (0 when it was dropped by the screen; ``screen`` is
    then the policy's score)."""

    action: Place
    value: float
    stderr: float
    foul_probability: float
    fantasyland_probability: float
    rollouts: int
    screen: float


def analyse_street(
    view: View,
    decision: Decision,
    level: Level,
    *,
    seed: int,
    deadline: float | None = None,
    screen: bool = True,
) -> list[StreetOption]:
    """Every placement of an open-face street with its Monte Carlo estimate, best first.

    ``screen`` False plays out every placement (hints): successive halving still gives
    the weaker ones fewer rollouts.
    """
    actions = list(iter_placements(decision, view.version))
    sit = rollout.Situation.from_view(view, decision)
    sit.tables = level_tables(sit.tables, level, first=_first_street(view, decision))
    cands = [sit.candidate(a) for a in actions]
    rng = random.Random(seed)
    screened, screen_fouls = rollout.static_scores(
        sit, cands, fills=level.screen_fills, seed=rng.getrandbits(31), choice=level.choice
    )
    keep = list(range(len(actions)))
    if screen and len(actions) > level.candidates:
        keep = [int(i) for i in np.argsort(-screened, kind="stable")[: level.candidates]]
    lam = level.foul_aversion
    if level.aversion_per_opponent:  # a foul costs the points of every pairing
        lam *= max(1, sit.opponents)
    rollouts = level.rollouts
    if not len(sit.events_who) and not sit.fl_seats:
        rollouts = 1  # nothing left to deal: the result is exact
    stats = rollout.run_rollouts(
        sit,
        [cands[i] for i in keep],
        rollouts=rollouts,
        fills=level.fills,
        choice=level.choice,
        seed=rng.getrandbits(31),
        fl_samples=level.fl_samples,
        halving=-1,
        keep=level.keep,
        foul_aversion=lam,
        deadline=deadline,
        rng=rng,
    )
    mean, err, fouls, fl = stats.mean(), stats.stderr(), stats.foul_rate(), stats.fl_rate()
    out: list[StreetOption] = []
    for k, i in enumerate(keep):
        out.append(StreetOption(actions[i], float(mean[k]), float(err[k]), float(fouls[k]),
                                float(fl[k]), int(stats.n[k]), float(screened[i])))  # fmt: skip
    kept = set(keep)
    for i in range(len(actions)):
        if i not in kept:
            value = float(screened[i])
            out.append(StreetOption(actions[i], value, 0.0, float(screen_fouls[i]), 0.0, 0, value))
    # Best first: candidates that got the most rollouts (survivors) rank by their mean;
    # the others follow by what they showed.
    most = int(stats.n.max())
    out.sort(key=lambda o: (o.rollouts < most, -(o.value - lam * o.foul_probability)))
    return out


def analyse_fantasyland(
    view: View,
    decision: Decision,
    level: Level,
    *,
    seed: int,
    deadline: float | None = None,
) -> list[StreetOption]:
    """Arrangements of a Fantasyland deal with their Monte Carlo estimates, best first.

    The exact solver maximises the royalties and the stay alone; what a board's lines
    win against the opponents' boards is left out. The candidates here, ``level.fl_boards``
    in all, are the solver's board and the best boards of the best shapes by royalties,
    the stay and the policy's line strength
    (:func:`~chinese_poker.ai.fantasyland.fantasyland_boards`); each is
    played out as a street's placements are (the opponents' boards completed by the
    level's policy from the cards we cannot see, every pairing settled as the scorer
    does, the stay at :func:`view_stay_value`), with successive halving down to
    ``level.keep``. A Fantasyland board never fouls, so no aversion is charged.
    """
    rules = view.rules
    stay = view_stay_value(view, decision)
    sit = rollout.Situation.from_view(view, decision)
    # The stay first, so that the level's Fantasyland factor scales it as it scales entry.
    tables = level_tables(sit.tables.with_stay(stay), level)
    sit = dataclasses.replace(sit, tables=tables)
    sols = fantasyland_boards(decision.cards, rules, stay_value=stay, solver_first=True,
                              line_bonus=tables.line_bonus, count=level.fl_boards)  # fmt: skip
    actions = [Place(decision.seat, s.board.top, s.board.middle, s.board.bottom, s.discards,
                     decision.hand, view.version) for s in sols]  # fmt: skip
    rng = random.Random(seed)
    rollouts = level.rollouts if (len(sit.events_who) or sit.fl_seats) else 1
    stats = rollout.run_rollouts(
        sit, [sit.candidate(a) for a in actions], rollouts=rollouts, fills=level.fills,
        choice=level.choice, seed=rng.getrandbits(31), fl_samples=level.fl_samples,
        halving=-1, keep=level.keep, deadline=deadline, rng=rng,
    )  # fmt: skip
    mean, err, fouls, fl = stats.mean(), stats.stderr(), stats.foul_rate(), stats.fl_rate()
    out = [StreetOption(a, float(mean[k]), float(err[k]), float(fouls[k]), float(fl[k]),
                        int(stats.n[k]), sols[k].score) for k, a in enumerate(actions)]  # fmt: skip
    most = int(stats.n.max())
    out.sort(key=lambda o: (o.rollouts < most, -o.value))
    return out


def level_tables(tables: rollout.Tables, level: Level, *, first: bool = False) -> rollout.Tables:
    """``tables`` with ``level``'s playout policy (``first``: for a first street).

    The level's policy, always: at the Level defaults every factor is 1 and every switch
    its tables_for value, so the arrays are the same numbers (mc-v1's play is pinned by
    tests/test_ai_baseline.py), and no second list of defaults is kept here.
    """
    return tables.with_policy(
        foul_scale=level.policy_foul_scale,
        strength_scale=level.policy_strength_scale,
        fl_scale=level.fl_scale * (level.fl_scale_first if first else 1.0),
        pick_max=level.pick_max,
        repair=level.foul_repair,
        climb=level.climb,
        climb_rounds=level.climb_rounds,
        repair_spare=bool(level.repair_spare),
        fl_per_opponent=bool(level.fl_per_opponent),
        opp_foul_scale=level.opp_foul_scale,
        opp_repair=level.opp_repair,
        opp_fills=level.opp_fills,
        line_strength=level.line_strength,
        exact_last=bool(level.exact_last),
        residual=level.residual,
        opp_residual=level.opp_residual,
        value=level.value,
    )


def _first_street(view: View, decision: Decision) -> bool:
    """Whether the decision's board is still empty."""
    return view.board_of(decision.seat, decision.hand).placed == 0


def fantasyland_stay_value(rules: Rules, streak: int | None = None) -> float:
    """What staying in Fantasyland is worth to a player in his ``streak``-th consecutive
    Fantasyland hand (None: unknown, taken as the first): one more Fantasyland hand if
    the repeat limit allows it, else nothing."""
    if not rules.is_open_face or not rules.fantasyland_enabled:
        return 0.0
    limit = rules.fl_max_consecutive
    hands = 1 if streak is None else streak
    if limit is not None and hands >= limit:
        return 0.0
    cards = rules.fantasyland_cards(None, repeat=True)
    more = limit is None or hands + 1 < limit
    return rollout.fantasyland_value(rules, cards, repeat_possible=more)


def view_stay_value(view: View, dec: Decision) -> float:
    """What staying in Fantasyland is worth to the viewer, by the stays the view says the
    repeat limit still allows (0 when a stay would not count): the one reading of the
    repeat limit that the bot and the hints share."""
    left = view.board_of(dec.seat, dec.hand).fantasyland_stays_left
    if left == 0:
        return 0.0
    limit = view.rules.fl_max_consecutive
    # The streak that leaves the same number of stays gives the same value under either
    # scope of the limit (per streak or per session).
    streak = None if limit is None or left is None else limit - left
    return fantasyland_stay_value(view.rules, streak)


class MonteCarloBot:
    """The Monte Carlo player (see the module docstring).

    >>> MonteCarloBot(seed=1).name, MonteCarloBot(level=1).level
    ('mc', 1)
    """

    name = "mc"
    kernels: tuple[str, ...] = ("setting", "fantasyland", "open-face")
    """The kernel families it runs (:mod:`chinese_poker.ai.warm`)."""

    levels: dict[int, Level] = LEVELS
    """The effort table this bot plays by where no street throws a card."""
    throwing_levels: dict[int, Level] = THROWING_LEVELS
    """... and where one does (``VariantSpec.throws_cards``)."""

    def __init__(
        self,
        seed: int | None = None,
        level: int | None = None,
        time_budget: float | None = None,
    ) -> None:
        lvl = DEFAULT_LEVEL if level is None else level
        levels = self.levels
        if isinstance(lvl, bool) or not isinstance(lvl, int) or lvl not in levels:
            raise ValueError(f"{self.name} level must be 1 to {max(levels)}, not {level!r}")
        if time_budget is not None and not time_budget > 0:
            raise ValueError(f"time_budget must be a positive number of seconds, not {time_budget}")
        self.level = lvl
        self.params = levels[lvl]
        self.throwing_params = self.throwing_levels[lvl]
        self.time_budget = time_budget
        self.rng = random.Random(seed)
        self._fallback: RuleBot | None = None
        self._settings: dict[tuple[tuple[Card, ...], int], SettingSolution] = {}
        self.last_analysis: list[StreetOption] = []
        """The options of the last open-face street or Fantasyland decision, best first."""

    # ------------------------------------------------------------------ dispatch

    def act(self, view: View) -> Action:
        if not view.decisions:
            raise ValueError(f"seat {view.seat} has nothing to decide (to act: {view.to_act})")
        deadline = None
        if self.time_budget is not None:
            deadline = time.monotonic() + self.time_budget
        dec = view.decisions[0]
        rules = view.rules
        if dec.kind in ("natural", "surrender"):
            return self._declare(view, dec)
        if rules.is_open_face and not rollout.models(rules):
            return self._rule_bot().act(view)  # rules the playout kernels do not model
        if dec.kind == "set":
            if rules.is_open_face:
                return self._fantasyland(view, dec, deadline)
            return self._classic(view, dec)
        options = analyse_street(view, dec, self.level_for(rules),
                                 seed=self.rng.getrandbits(32), deadline=deadline)  # fmt: skip
        self.last_analysis = options
        return options[0].action

    def level_for(self, rules: Rules) -> Level:
        """The effort this bot plays an open-face street of ``rules`` at: its level in
        :attr:`throwing_levels` where a street throws a card, else in :attr:`levels`."""
        return self.throwing_params if rules.spec.variant.throws_cards else self.params

    def _rule_bot(self) -> RuleBot:
        if self._fallback is None:
            from chinese_poker.ai.simple import RuleBot

            self._fallback = RuleBot(seed=self.rng.getrandbits(32))
        return self._fallback

    # ------------------------------------------------------------------ Fantasyland

    def _fantasyland(self, view: View, dec: Decision, deadline: float | None) -> Place:
        level = self.level_for(view.rules)
        # The boards' search, the solver's included, comes before the first rollout (at
        # most 2.6 ms on 1,500 random 17-card deals): under a tight budget the solver's
        # board alone.
        room = deadline is None or deadline - time.monotonic() > FL_BOARDS_MIN_SECONDS
        if level.fl_boards > 1 and room:
            options = analyse_fantasyland(view, dec, level, seed=self.rng.getrandbits(32),
                                          deadline=deadline)  # fmt: skip
            self.last_analysis = options
            return options[0].action
        return self._solver_place(view, dec)

    @staticmethod
    def _solver_place(view: View, dec: Decision) -> Place:
        """The exact solver's board for a Fantasyland deal (royalties and the stay)."""
        sol = solve_fantasyland(dec.cards, view.rules, stay_value=view_stay_value(view, dec))
        b = sol.board
        return Place(dec.seat, b.top, b.middle, b.bottom, sol.discards, dec.hand, view.version)

    # ------------------------------------------------------------------ classic

    def _solution(self, view: View, cards: Sequence[Card], hand: int) -> SettingSolution | None:
        from chinese_poker.ai.setting import solve_setting

        key = (tuple(sorted(cards)), hand)
        sol = self._settings.get(key)
        if sol is None:
            rules = view.rules
            opponents = rules.spec.opponent_hands(len(view.players))
            try:
                sol = solve_setting(cards, rules, opponents=opponents)
            except RulesError:  # rules the solver refuses: the rules bot plays (as above)
                return None
            if len(self._settings) > 64:
                self._settings.clear()
            self._settings[key] = sol
        return sol

    def _classic(self, view: View, dec: Decision) -> Action:
        sol = self._solution(view, dec.cards, dec.hand)
        if sol is None:
            return self._rule_bot().act(view)
        b = sol.board
        return Place(dec.seat, b.top, b.middle, b.bottom, (), dec.hand, view.version)

    def _declare(self, view: View, dec: Decision) -> Action:
        board = view.board_of(dec.seat, dec.hand)
        cards = board.top + board.middle + board.bottom
        sol = self._solution(view, cards, dec.hand) if len(cards) == 13 else None
        if dec.kind == "natural":
            claim = True if sol is None else sol.natural is not None
            return ClaimNatural(dec.seat, claim, dec.hand, view.version)
        if sol is None:
            return self._rule_bot().act(view)
        return Surrender(dec.seat, sol.surrender, dec.hand, view.version)


class MonteCarloBotV1(MonteCarloBot):
    """``mc-v1``: the Monte Carlo bot frozen as it was when issue 11 began (its levels
    :data:`V1_LEVELS`), the baseline a stronger ``mc`` is measured against. Its play is
    pinned by ``tests/test_ai_baseline.py``: a change to the shared kernels that moves it
    has to give ``mc-v1`` its own copy of what changed.

    >>> MonteCarloBotV1(seed=1).name
    'mc-v1'
    """

    name = "mc-v1"
    levels = V1_OFFERED_LEVELS
    throwing_levels = V1_OFFERED_LEVELS
