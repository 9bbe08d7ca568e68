"""Two built-in players: ``random`` and ``rules``.

Both act from a seat's :class:`~chinese_poker.engine.views.View` only.

* :class:`RandomBot` picks a uniformly random legal action.
* :class:`RuleBot` plays sensibly and fast. On an open-face street it scores each
  placement by a small Monte Carlo: the empty slots are filled with random unseen cards
  (the same fills for every candidate) and each completed board is worth its royalties,
  a Fantasyland bonus and a little for strong lines, or a heavy loss when it fouls; so it
  keeps its board unfouled with high probability and chases Fantasyland only when it is
  safe. A Fantasyland deal is set by the exact solver (:mod:`chinese_poker.ai.fantasyland`),
  which values staying only while the view says the repeat limit still allows a stay.
  Royalties come from the rules' own tables (:func:`chinese_poker.scoring.royalty_lookup`).
  A classic hand is set by the fast heuristic (strongest bottom, then the
  strongest middle, the rest on top) and surrendered only when the whole set is very weak.

>>> import random
>>> from chinese_poker.rules import rules_for
>>> from chinese_poker.engine import Table, play_hand
>>> table = Table(rules_for("pineapple"), 2, seed=3)
>>> play_hand(table, [RuleBot(seed=1), RuleBot(seed=2)])
>>> table.over
True
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from chinese_poker.ai.fantasyland import solve_fantasyland
from chinese_poker.cards import Card
from chinese_poker.engine.actions import (
    Action,
    ClaimNatural,
    Decision,
    Place,
    Surrender,
    count_placements,
    iter_placements,
    sample_placement,
)
from chinese_poker.engine.views import View
from chinese_poker.evaluate import (
    HIGH_CARD,
    ONE_PAIR,
    THREE_OF_A_KIND,
    evaluate3,
    evaluate5,
    evaluate_low27,
)
from chinese_poker.rules import Rules
from chinese_poker.scoring import royalty_lookup

__all__ = ["RandomBot", "RuleBot"]

Line = tuple[Card, ...]


def _pick_decision(view: View, rng: random.Random) -> Decision:
    decs = view.decisions
    if not decs:
        raise ValueError(f"seat {view.seat} has nothing to decide (to act: {view.to_act})")
    if len(decs) == 1:
        return decs[0]
    weights = [count_placements(d) if d.is_placement else 2 for d in decs]
    return rng.choices(decs, weights)[0]


class RandomBot:
    """Plays a uniformly random legal action.

    >>> from chinese_poker.rules import rules_for
    >>> from chinese_poker.engine import Table
    >>> t = Table(rules_for("ofc"), 2, seed=1)
    >>> t.can(RandomBot(seed=0).act(t.view(t.to_act[0])))
    True
    """

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, view: View) -> Action:
        dec = _pick_decision(view, self.rng)
        if dec.is_placement:
            return sample_placement(dec, self.rng, view.version)
        flag = self.rng.random() < 0.5
        if dec.kind == "surrender":
            return Surrender(dec.seat, flag, dec.hand, view.version)
        return ClaimNatural(dec.seat, flag, dec.hand, view.version)


# --------------------------------------------------------------------------- royalties
#
# The bot's own quick royalty estimate (the scorer is exact; the bot only needs to rank
# its options): top pairs 66+ and trips as in every OFC table, middle and bottom per
# category from the american or western table.


def _fl_bonus(rules: Rules, top_value: int) -> float:
    """What earning Fantasyland with this top is worth to the bot, in points."""
    if not rules.fantasyland_enabled:
        return 0.0
    cat = top_value >> 20
    rank = ((top_value >> 16) & 15) - 2
    if cat == THREE_OF_A_KIND:
        return 15.0 if rules.fl_progressive else 10.0
    if cat == ONE_PAIR and rank >= rules.spec.scoring.fantasyland.entry_min_pair:
        if rules.fl_progressive:
            return (8.0, 10.0, 12.0)[rank - 10]
        return 8.0
    return 0.0


class RuleBot:
    """A sensible rule-based player (see the module docstring).

    ``samples`` is the number of random completions per candidate placement.
    """

    name = "rules"
    kernels: tuple[str, ...] = ("fantasyland",)
    """The kernel families it runs (:mod:`chinese_poker.ai.warm`): the Fantasyland solver."""

    def __init__(self, seed: int | None = None, *, samples: int = 24) -> None:
        self.rng = random.Random(seed)
        self.samples = samples

    # ------------------------------------------------------------------ dispatch

    def act(self, view: View) -> Action:
        dec = view.decisions[0] if view.decisions else _pick_decision(view, self.rng)
        if dec.kind == "natural":
            return ClaimNatural(dec.seat, True, dec.hand, view.version)
        if dec.kind == "surrender":
            return Surrender(dec.seat, self._surrenders(view, dec), dec.hand, view.version)
        if dec.kind == "set":
            if view.rules.is_open_face:
                return self._set_fantasyland(view, dec)
            return self._set_classic(view, dec)
        return self._street(view, dec)

    # ------------------------------------------------------------------ open-face streets

    def _street(self, view: View, dec: Decision) -> Place:
        rules = view.rules
        mine = view.board_of(dec.seat, dec.hand)
        seen = set(view.hand) | set(mine.discards)
        for b in view.boards:
            seen.update(b.top)
            seen.update(b.middle)
            seen.update(b.bottom)
        unseen = [c for c in range(52) if c not in seen]
        candidates = list(iter_placements(dec, view.version))
        if len(candidates) == 1:
            return candidates[0]
        need = 13 - mine.placed - dec.place
        top_r, mid_r, bot_r = royalty_lookup(rules)
        rng = self.rng

        def score(cands: Sequence[Place], samples: int) -> list[float]:
            fills = [rng.sample(unseen, need) for _ in range(samples)]
            out = []
            for cand in cands:
                top = mine.top + cand.top
                middle = mine.middle + cand.middle
                bottom = mine.bottom + cand.bottom
                nt, nm = 3 - len(top), 5 - len(middle)
                total = 0.0
                for fill in fills:
                    t = top + tuple(fill[:nt])
                    m = middle + tuple(fill[nt : nt + nm])
                    b = bottom + tuple(fill[nt + nm :])
                    tv = evaluate3(t[0], t[1], t[2])
                    mv = evaluate5(m[0], m[1], m[2], m[3], m[4])
                    bv = evaluate5(b[0], b[1], b[2], b[3], b[4])
                    if tv > mv or mv > bv:
                        total -= 8.0
                        continue
                    total += (
                        top_r[tv >> 16]
                        + mid_r[mv >> 16]
                        + bot_r[bv >> 16]
                        + _fl_bonus(rules, tv)
                        + 0.15 * ((tv >> 20) + (mv >> 20) + (bv >> 20))
                    )
                out.append(total / samples)
            return out

        if need == 0:
            # The last placement: every candidate is exact, no sampling needed.
            return max(candidates, key=lambda c: score([c], 1)[0])
        if len(candidates) > 40:
            rough = score(candidates, max(4, self.samples // 4))
            ranked = sorted(range(len(candidates)), key=lambda i: -rough[i])[:20]
            candidates = [candidates[i] for i in ranked]
        fine = score(candidates, self.samples)
        best = max(range(len(candidates)), key=lambda i: fine[i])
        return candidates[best]

    # ------------------------------------------------------------------ Fantasyland

    def _set_fantasyland(self, view: View, dec: Decision) -> Place:
        # The exact solver takes about a millisecond: no reason for a weaker search.
        # A stay the repeat limit will not grant is worth nothing: take the royalties.
        allowed = view.board_of(dec.seat, dec.hand).fantasyland_stay_allowed
        sol = solve_fantasyland(dec.cards, view.rules, stay_value=None if allowed else 0.0)
        b = sol.board
        return Place(dec.seat, b.top, b.middle, b.bottom, sol.discards, dec.hand, view.version)

    # ------------------------------------------------------------------ classic

    def _set_classic(self, view: View, dec: Decision) -> Place:
        cards = dec.cards
        _, bottom = max((evaluate5(*b), b) for b in itertools.combinations(cards, 5))
        rest = [c for c in cards if c not in bottom]
        if view.rules.spec.scoring.lowball_middle:
            _, middle = max((evaluate_low27(m), m) for m in itertools.combinations(rest, 5))
        else:
            _, middle = max((evaluate5(*m), m) for m in itertools.combinations(rest, 5))
        top = tuple(c for c in rest if c not in middle)
        return Place(dec.seat, top, middle, bottom, (), dec.hand, view.version)

    def _surrenders(self, view: View, dec: Decision) -> bool:
        board = view.board_of(dec.seat, dec.hand)
        if len(board.top) != 3 or board.natural:
            return False
        tv = evaluate3(*board.top)
        mv = evaluate5(*board.middle)
        bv = evaluate5(*board.bottom)
        top_high = ((tv >> 16) & 15) - 2
        return (
            bv >> 20 <= ONE_PAIR
            and ((bv >> 16) & 15) - 2 < 6  # no better than a pair of sevens
            and mv >> 20 == HIGH_CARD
            and tv >> 20 == HIGH_CARD
            and top_high < 10  # below a queen
        )
