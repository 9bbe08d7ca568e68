"""Settling a table: fouls, royalties, naturals, surrender and money (RULES.md §4, §7, §8, §9).

Every pair of seats settles on its own (§7.1), in the order of §7.3: naturals, then
surrender, then fouls, then the showdown (line points plus royalties). The result of a
pair is what the second seat pays the first; a player's total is the sum over his pairs,
so every table sums to zero. Each pair keeps an itemised breakdown that says what every
point is for, and :meth:`Settlement.render` prints it for people; :func:`settle_totals`
gives the totals alone, faster.

Every rule is read from the ruleset's compiled spec (``rules.spec.scoring``). The package
is split by concern: :mod:`.lines` (values, fouls), :mod:`.royalties`, :mod:`.naturals`,
:mod:`.fantasyland`, :mod:`.seats` (one seat on its own), :mod:`.pairs` (one pair item by
item), :mod:`.table_checks`, :mod:`.totals` (the totals-only arithmetic), :mod:`.settlement`
(the table), :mod:`.notes` (the breakdown's vocabulary) and :mod:`.render` (text and JSON);
everything public is importable from here.

>>> from chinese_poker.cards import parse_board
>>> from chinese_poker.rules import rules_for
>>> table = [
...     Hand(name="P1", board=parse_board("Kh Kd 4c | 9s 9h 9c 5d 2s | Ah Jh 8h 6h 3h")),
...     Hand(name="P2", board=parse_board("6s 6d Qc | Jc Js 8c 8d Ac | 7c 7d 7s 2c 2d")),
...     Hand(name="P3", board=parse_board("Ad As 5c | Qs Qd Tc 4d 3c | Ks Kc Th Td 9d")),
... ]
>>> result = settle(rules_for("pineapple-progressive"), table,
...                 units={("P1", "P2"): 100, ("P1", "P3"): 10, ("P2", "P3"): 10})
>>> dict(result.totals), dict(result.money)
({'P1': 28, 'P2': 5, 'P3': -33}, {'P1': 1000.0, 'P2': -670.0, 'P3': -330.0})
>>> result.fouled, result.fantasyland["P1"]
(('P3',), 15)

The scoring choices RULES.md leaves open are listed in ``docs/formats.md``.
"""

from __future__ import annotations

from chinese_poker.scoring.fantasyland import fantasyland_next
from chinese_poker.scoring.lines import FoulReason, foul_reason, is_fouled, line_values
from chinese_poker.scoring.naturals import natural_of
from chinese_poker.scoring.notes import ItemKind, Note, item_text
from chinese_poker.scoring.results import (
    DEUCE_OF_SPADES,
    Hand,
    Item,
    Natural,
    PairResult,
    ScoringError,
    SeatResult,
    Settlement,
)
from chinese_poker.scoring.royalties import line_royalty, royalties, royalty_lookup
from chinese_poker.scoring.settlement import line_name, settle, settle_totals
from chinese_poker.scoring.validity import certain_foul, placements_that_foul

__all__ = [
    "DEUCE_OF_SPADES",
    "FoulReason",
    "Hand",
    "Item",
    "ItemKind",
    "Natural",
    "Note",
    "PairResult",
    "ScoringError",
    "SeatResult",
    "Settlement",
    "certain_foul",
    "fantasyland_next",
    "foul_reason",
    "is_fouled",
    "item_text",
    "line_name",
    "line_royalty",
    "line_values",
    "natural_of",
    "placements_that_foul",
    "royalties",
    "royalty_lookup",
    "settle",
    "settle_totals",
]
