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
import math
import random
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

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
from chinese_poker.engine.views import BoardView, View
from chinese_poker.evaluate import (
    HIGH_CARD,
    ONE_PAIR,
    evaluate3,
    evaluate5,
    evaluate_low27,
)
from chinese_poker.rules import Rules
from chinese_poker.scoring import royalty_lookup

__all__ = ["RandomBot", "RuleBot", "pair_chance"]

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
    """What earning Fantasyland with this top is worth to the bot, in points: the measured
    value of the Fantasyland hand it earns (:func:`chinese_poker.ai.rollout.fantasyland_value`,
    the same figure the ``mc`` bot uses), 0 for a top that does not qualify."""
    if not rules.fantasyland_enabled:
        return 0.0
    cards = rules.spec.scoring.fantasyland.entry_by_top[top_value >> 16]
    return _fantasyland_value(rules, cards) if cards else 0.0


@lru_cache(maxsize=64)
def _fantasyland_value(rules: Rules, cards: int) -> float:
    from chinese_poker.ai.fantasyland import fantasyland_value

    return fantasyland_value(rules, cards)


def pair_chance(outs: int, unseen: int, seen: int) -> float:
    """The chance that at least one of ``outs`` live cards is among the next ``seen`` of
    ``unseen`` unseen cards (the outs counted, as the articles ask: the visible cards
    are not outs).

    >>> round(pair_chance(3, 40, 6), 3)  # a queen on top, three queens live, 3 streets
    0.394
    >>> pair_chance(0, 40, 6), pair_chance(3, 40, 0)
    (0.0, 0.0)
    """
    if outs <= 0 or seen <= 0 or unseen <= 0:
        return 0.0
    seen = min(seen, unseen)
    return 1.0 - math.comb(unseen - outs, seen) / math.comb(unseen, seen)


# --------------------------------------------------------------------------- the articles
#
# The placement rules of the Pineapple strategy sections of [000] (Bulgarian) and [001]
# (Croatian), the same article; docs/bots.md quotes each line next to the code that
# follows it.


def _first_street_ok(cards: Sequence[Card], cand: Place, *, pineapple: bool = True) -> bool:
    """Whether a placement of the first five cards follows the articles' four rules.

    ``pineapple``: the later streets deal more cards than they place (the rule for five
    cards with nothing is written for Pineapple, where the cards to come fill the lines;
    in one-card OFC it fouls more boards, 11% against 7.4% against ``random``)."""
    ranks = [c >> 2 for c in cards]
    count = Counter(ranks)
    suits = Counter(c & 3 for c in cards)
    suit, most = suits.most_common(1)[0]
    if most >= 4:
        # "four cards of the same suit in the first hand: put all four in the bottom;
        # it would be silly to lose a flush draw" (rule 4)
        return sum(1 for c in cand.bottom if c & 3 == suit) >= 4
    top_ranks = Counter(c >> 2 for c in cand.top)
    if any(n >= 2 for n in top_ranks.values()):
        return False  # "do not put a pair in the first box at once" (rule 1)
    pairs = sorted((r for r, n in count.items() if n >= 2), reverse=True)
    if pairs:
        return _pairs_placed_well(pairs, cand)
    # Nothing: "cards above ten in the bottom box, the middle card in the middle box and
    # the small ones in the box of three cards" (rule 3); "an ace on the first street can
    # go in the first box" (rule 1).
    if not pineapple:
        return True
    for c in cand.top + cand.middle:
        rank = c >> 2
        if rank >= JACK and not (rank == ACE and c in cand.top):
            return False
    return all(c >> 2 <= SMALL or c >> 2 == ACE for c in cand.top)


def _pairs_placed_well(pairs: Sequence[int], cand: Place) -> bool:
    """Whether "pairs are best placed in the bottom: they grow into trips and full houses; leave
    one high pair in the middle box" (the first bullet); ``pairs`` highest first."""
    for i, rank in enumerate(pairs):
        where = {
            line
            for line, lc in (("t", cand.top), ("m", cand.middle), ("b", cand.bottom))
            for c in lc
            if c >> 2 == rank
        }
        if len(where) != 1:
            return False  # a pair is never split
        if where == {"b"} or (where == {"m"} and i == 0 and len(pairs) > 1):
            continue
        return False
    return True


def _fantasyland_outs(rules: Rules, top: Sequence[Card], unseen: Sequence[Card]) -> list[Card]:
    """The unseen cards that pair a lone queen, king or ace on top (the best such card)
    into a Fantasyland top; none when the top holds a pair or no such card."""
    ranks = [c >> 2 for c in top]
    if len(set(ranks)) != len(ranks):
        return []
    entry = rules.spec.scoring.fantasyland.entry_min_pair
    live = [r for r in ranks if r >= entry]
    if not live:
        return []
    rank = max(live)
    return [c for c in unseen if c >> 2 == rank]


def _early_low_pair_on_top(top: Sequence[Card], rules: Rules) -> bool:
    """A pair on top below the Fantasyland pair (or any pair without Fantasyland)."""
    ranks = Counter(c >> 2 for c in top)
    pair = [r for r, n in ranks.items() if n >= 2]
    if not pair:
        return False
    fl = rules.spec.scoring.fantasyland
    return not rules.fantasyland_enabled or pair[0] < fl.entry_min_pair


JACK, ACE = 9, 12
SMALL = 6  # an 8 or lower is a "trifle" for the top
EARLY_STREETS = 2  # "at once": the first two streets
CHOICE = 3  # ways to use the cards to come tried per completion
FOUL_PENALTY = 8.0  # points a fouled completion costs heads-up (6 and the royalties lost)
TIGHTER_PER_OPPONENT = 0.25  # the foul penalty grows by this share per extra opponent


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
        candidates = self._follow_articles(view, dec, mine, candidates)
        need = 13 - mine.placed - dec.place
        # The cards this seat will still see (its later streets): the outs' chances.
        to_see = sum(dealt for dealt, _ in rules.spec.variant.streets[dec.street :])
        top_r, mid_r, bot_r = royalty_lookup(rules)
        opponents = max(1, rules.spec.opponent_hands(len(view.players)))  # hands, not boards
        # "With several opponents, better switch to the tight style and mind the order
        # of the lines" [000]/[001]: a foul costs more the more opponents there are.
        foul_penalty = FOUL_PENALTY * (1.0 + TIGHTER_PER_OPPONENT * (opponents - 1))
        chase = rules.fantasyland_enabled
        rng = self.rng

        def board_value(top: Line, middle: Line, bottom: Line, fill: Sequence[Card]) -> float:
            """The board completed by ``fill`` (top, then middle, then bottom slots)."""
            nt, nm = 3 - len(top), 5 - len(middle)
            t = top + tuple(fill[:nt])
            m = middle + tuple(fill[nt : nt + nm])
            b = bottom + tuple(fill[nt + nm :])
            tv = evaluate3(t[0], t[1], t[2])
            mv = evaluate5(m[0], m[1], m[2], m[3], m[4])
            bv = evaluate5(b[0], b[1], b[2], b[3], b[4])
            if tv > mv or mv > bv:
                return -foul_penalty
            return (
                top_r[tv >> 16]
                + mid_r[mv >> 16]
                + bot_r[bv >> 16]
                + (_fl_bonus(rules, tv) if chase else 0.0)
                + 0.15 * ((tv >> 20) + (mv >> 20) + (bv >> 20))
            )

        # Each completion draws the cards still to see and takes the best of CHOICE
        # random ways to use ``need`` of them: the player steers the cards to come (and
        # in Pineapple throws one of every three), which a single random fill ignores.
        extra = max(0, to_see - need)

        def draws(samples: int) -> list[list[list[Card]]]:
            out = []
            for _ in range(samples):
                drawn = rng.sample(unseen, min(len(unseen), need + extra))
                out.append([rng.sample(drawn, need) for _ in range(CHOICE)])
            return out

        def score(cands: Sequence[Place], samples: int) -> list[float]:
            fills = draws(samples)
            out = []
            for cand in cands:
                top = mine.top + cand.top
                middle = mine.middle + cand.middle
                bottom = mine.bottom + cand.bottom
                room = len(top) < 3
                plain = paired = 0.0
                outs = _fantasyland_outs(rules, top, unseen) if chase and room else []

                for ways in fills:
                    plain += max(board_value(top, middle, bottom, f) for f in ways)
                    if outs:
                        # The same completions when one of the outs comes and goes on top.
                        best = -1e9
                        for way in ways:
                            f = list(way)
                            hit = next((i for i, c in enumerate(f) if c in outs), None)
                            if hit is None:
                                f[0] = rng.choice(outs)
                            else:
                                f[0], f[hit] = f[hit], f[0]
                            best = max(best, board_value(top, middle, bottom, f))
                        paired += best
                value = plain / samples
                if outs:
                    # Aim for Fantasyland with the outs counted: the chance that one of
                    # them comes in the cards still to see (it then goes on top), and
                    # what the board is worth then (its fouls included).
                    p = pair_chance(len(outs), len(unseen), to_see)
                    value = (1.0 - p) * value + p * paired / samples
                out.append(value)
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

    def _follow_articles(
        self, view: View, dec: Decision, mine: BoardView, candidates: list[Place]
    ) -> list[Place]:
        """The placements the articles allow (all of them when none is allowed)."""
        rules = view.rules
        if dec.street == 1 and mine.placed == 0 and len(dec.cards) == 5:
            pineapple = rules.spec.variant.throws_cards
            kept = [c for c in candidates if _first_street_ok(dec.cards, c, pineapple=pineapple)]
        elif dec.street <= EARLY_STREETS:
            # "Do not go for a low combination at once and put a pair in the first box:
            # it raises the risk of a dead hand" (rule 1), on the early streets.
            kept = [c for c in candidates
                    if not _early_low_pair_on_top(mine.top + c.top, rules)]  # fmt: skip
        else:
            kept = candidates
        return kept or candidates

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
