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
random ways to use them (see :func:`~chinese_poker.ai.rollout.policy.draw_fills`).

Everything hot runs in numba kernels (plain Python without numba, much slower) on
card *code sums* (see :mod:`chinese_poker.evaluate`): a line's value is one table
look-up of the sum of its cards' codes, so completing a line is an addition.

The package along its seams: :mod:`~chinese_poker.ai.rollout.parameters` (the kernels'
tables of a ruleset and their named indices), :mod:`~chinese_poker.ai.rollout.strength`
(the line-strength tables, data files), :mod:`~chinese_poker.ai.rollout.features` (the
learned tables' features), :mod:`~chinese_poker.ai.rollout.learned` (the learned tables'
loaders), :mod:`~chinese_poker.ai.rollout.policy` (the fast policy),
:mod:`~chinese_poker.ai.rollout.settlement` (the settlement kernels),
:mod:`~chinese_poker.ai.rollout.playout` (the playout drivers) and
:mod:`~chinese_poker.ai.rollout.api` (the Python API, re-exported here).

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

from chinese_poker.ai.fantasyland import FL_VALUES, fantasyland_value
from chinese_poker.ai.rollout.api import (
    DEADLINE_CHUNK,
    FIRST_FULL_BATCH,
    Candidate,
    RolloutStats,
    Situation,
    fantasyland_row,
    kernel_totals,
    line_state,
    line_values,
    policy_place,
    residual_features,
    run_rollouts,
    solitaire_values,
    static_scores,
)
from chinese_poker.ai.rollout.features import (
    KEY_SPAN,
    LIVE_COUNTS,
    LIVE_FEATURES,
    LIVE_FLUSH,
    LIVE_OFF_FLUSH,
    LIVE_OFF_PAIR,
    LIVE_OFF_STRAIGHT,
    LIVE_OFF_TOP,
    LIVE_OFF_TOP_PAIR,
    LIVE_PAIR,
    LIVE_STRAIGHT,
    LIVE_TOP,
    LIVE_TOP_PAIR,
    RES_FEATURES,
    RES_LINE,
    RES_MIDDLE_BOTTOM,
    RES_OFF_BOTTOM,
    RES_OFF_MIDDLE,
    RES_OFF_MIDDLE_BOTTOM,
    RES_OFF_TOP_MIDDLE,
    RES_TOP,
    RES_TOP_MIDDLE,
    VALUE_FEATURES,
    partial_line_table,
)
from chinese_poker.ai.rollout.learned import BoardValue
from chinese_poker.ai.rollout.parameters import (
    AWARD_BEST,
    AWARD_CANCEL,
    AWARD_NET,
    AWARD_WINNER_ONLY,
    AWARDS,
    POL_CLIMB,
    POL_CLIMB_ROUNDS,
    POL_EXACT_LAST,
    POL_FL_ENABLED,
    POL_FL_PER_OPP,
    POL_FOUL_PENALTY,
    POL_OPP_FILLS,
    POL_OPP_FOUL_SCALE,
    POL_OPP_REPAIR,
    POL_OPP_RESIDUAL,
    POL_PICK_MAX,
    POL_REPAIR,
    POL_REPAIR_SPARE,
    POL_RESIDUAL,
    POL_STAY_BOTTOM_MIN,
    POL_STAY_MIDDLE_MIN,
    POL_STAY_VALUE,
    POL_THROWN,
    POL_W,
    SC_AWARD,
    SC_DEUCE_FOULED,
    SC_FINNISH,
    SC_FOUL_PAYS,
    SC_FOUL_VALUE,
    SC_MAX_ONE,
    SC_MORE_LINES,
    SC_O,
    SC_PENALISED,
    SC_S,
    SC_SHOWDOWN,
    SC_SPLIT_TIES,
    SC_V,
    SUPPORTED,
    Tables,
    fingerprint,
    models,
    residual_table,
    tables_for,
    value_table,
)
from chinese_poker.ai.rollout.strength import (
    LineStrength,
    strength_from_values,
    strength_table,
    strength_table_path,
)

__all__ = [
    "AWARDS",
    "AWARD_BEST",
    "AWARD_CANCEL",
    "AWARD_NET",
    "AWARD_WINNER_ONLY",
    "DEADLINE_CHUNK",
    "FIRST_FULL_BATCH",
    "FL_VALUES",
    "KEY_SPAN",
    "LIVE_COUNTS",
    "LIVE_FEATURES",
    "LIVE_FLUSH",
    "LIVE_OFF_FLUSH",
    "LIVE_OFF_PAIR",
    "LIVE_OFF_STRAIGHT",
    "LIVE_OFF_TOP",
    "LIVE_OFF_TOP_PAIR",
    "LIVE_PAIR",
    "LIVE_STRAIGHT",
    "LIVE_TOP",
    "LIVE_TOP_PAIR",
    "POL_CLIMB",
    "POL_CLIMB_ROUNDS",
    "POL_EXACT_LAST",
    "POL_FL_ENABLED",
    "POL_FL_PER_OPP",
    "POL_FOUL_PENALTY",
    "POL_OPP_FILLS",
    "POL_OPP_FOUL_SCALE",
    "POL_OPP_REPAIR",
    "POL_OPP_RESIDUAL",
    "POL_PICK_MAX",
    "POL_REPAIR",
    "POL_REPAIR_SPARE",
    "POL_RESIDUAL",
    "POL_STAY_BOTTOM_MIN",
    "POL_STAY_MIDDLE_MIN",
    "POL_STAY_VALUE",
    "POL_THROWN",
    "POL_W",
    "RES_FEATURES",
    "RES_LINE",
    "RES_MIDDLE_BOTTOM",
    "RES_OFF_BOTTOM",
    "RES_OFF_MIDDLE",
    "RES_OFF_MIDDLE_BOTTOM",
    "RES_OFF_TOP_MIDDLE",
    "RES_TOP",
    "RES_TOP_MIDDLE",
    "SC_AWARD",
    "SC_DEUCE_FOULED",
    "SC_FINNISH",
    "SC_FOUL_PAYS",
    "SC_FOUL_VALUE",
    "SC_MAX_ONE",
    "SC_MORE_LINES",
    "SC_O",
    "SC_PENALISED",
    "SC_S",
    "SC_SHOWDOWN",
    "SC_SPLIT_TIES",
    "SC_V",
    "SUPPORTED",
    "VALUE_FEATURES",
    "BoardValue",
    "Candidate",
    "LineStrength",
    "RolloutStats",
    "Situation",
    "Tables",
    "fantasyland_row",
    "fantasyland_value",
    "fingerprint",
    "kernel_totals",
    "line_state",
    "line_values",
    "models",
    "partial_line_table",
    "policy_place",
    "residual_features",
    "residual_table",
    "run_rollouts",
    "solitaire_values",
    "static_scores",
    "strength_from_values",
    "strength_table",
    "strength_table_path",
    "tables_for",
    "value_table",
]
