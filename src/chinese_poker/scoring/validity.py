"""Can a board still be valid, whatever comes? (RULES.md §4, §8.1)

:func:`certain_foul` answers exactly for an open-face board that is not complete yet:
given the cards that may still reach it, is there any way to finish it that keeps the
line order? It returns None when there is, else the reason (which lines must cross),
the same :class:`~chinese_poker.scoring.FoulReason` the scorer gives a complete board.

The search is exact and kept small by two facts. Only ranks decide a line's value,
except through flushes: two cards of one rank whose suits can make no flush on the
middle or bottom are interchangeable, so only one of them is ever tried (a line takes
such cards in a fixed order). And the line with the most cards missing is never
enumerated card by card against the others: it is asked last whether any of its
completions falls in the range the finished lines leave it, and the asking stops at
the first that does.

>>> from chinese_poker.cards import parse_cards
>>> from chinese_poker.rules import rules_for
>>> board = Board(*(tuple(parse_cards(line)) for line in ("Qh Qd", "9s 9h 7c 4d", "Ah Kh")))
>>> str(certain_foul(rules_for("ofc"), board, parse_cards("3c 3d Jh 5s 2d")))
'top Q Q beats anything the middle 9 9 7 4 can still become'
>>> certain_foul(rules_for("ofc"), board, parse_cards("3c 9d 2h 5h 8h")) is None
True
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from itertools import combinations

from chinese_poker.cards import RANKS, Board, Card
from chinese_poker.evaluate import KEY_SPAN, evaluate3, evaluate_low27, line_tables, low27_high_card
from chinese_poker.rules import Rules
from chinese_poker.rules.spec import ScoringSpec
from chinese_poker.scoring.lines import FoulReason, check_cards, foul_reason, high5, rank_text

__all__ = ["certain_foul", "placements_that_foul"]

_NAMES = ("top", "middle", "bottom")
_SIZES = (3, 5, 5)
_LOWEST = -1
_HIGHEST = 1 << 62


def certain_foul(rules: Rules, board: Board, coming: Collection[Card]) -> FoulReason | None:
    """None if ``board`` can still be finished without a foul, else why it cannot.

    ``coming`` holds the cards that may still reach the board (for a seat: every card
    it has not seen; a seat that holds all its cards, in Fantasyland or a classic set,
    passes the ones it has not placed). Any of them may come, in any number up to what
    the board lacks; cards on the board are ignored. A complete board is judged by the
    scorer (:func:`~chinese_poker.scoring.foul_reason`). The reason of a board that is
    not complete names the two lines that cross whatever comes (``kind`` ``"beats"``),
    a low middle that can no longer qualify (``"low_middle"``), or, when each pair of
    lines alone could still be kept in order but not all three together (they would
    need the same cards), ``"squeezed"`` with ``line`` the middle.

    Raises ValueError if fewer cards may come than the board lacks.
    """
    if board.complete:
        return foul_reason(rules, board)
    check_cards(board.cards)
    on_board = set(board.cards)
    unseen = _Unseen(tuple(sorted(c for c in set(coming) if c not in on_board)))
    lines = (tuple(board.top), tuple(board.middle), tuple(board.bottom))
    return _judge(rules.spec.scoring, lines, unseen)


def placements_that_foul(
    rules: Rules,
    board: Board,
    dealt: Sequence[Card],
    place: int,
    room: tuple[int, int, int],
    coming: Collection[Card],
) -> dict[str, FoulReason]:
    """Every placement of the ``dealt`` cards on ``board`` that fouls whatever comes.

    A placement puts ``place`` of the cards on the lines, at most ``room`` on each of
    (top, middle, bottom), and discards the rest; it is written with one letter per
    dealt card in the dealt order: ``t``, ``m``, ``b``, or ``d`` for a discard. The
    answer holds the placements :func:`certain_foul` judges a foul, with the reason,
    ``coming`` being the cards that may still come (the dealt cards never do).

    >>> from chinese_poker.cards import parse_cards
    >>> from chinese_poker.rules import rules_for
    >>> board = Board(*(tuple(parse_cards(line)) for line in ("Qh Qd", "9s 9h 7c 4d", "Ah Kh 8h")))
    >>> fouls = placements_that_foul(
    ...     rules_for("ofc"), board, parse_cards("9c"), 1, (1, 1, 2), parse_cards("3c 3d 2h 5h 8d"))
    >>> sorted(fouls), str(fouls["t"])
    (['b', 't'], 'top Q Q 9 beats anything the middle 9 9 7 4 can still become')

    Only the nine on the middle saves the board: trips, and a heart flush can still top
    them.
    """
    sc = rules.spec.scoring
    lines = (tuple(board.top), tuple(board.middle), tuple(board.bottom))
    taken = set(board.cards) | set(dealt)
    unseen = _Unseen(tuple(sorted(c for c in set(coming) if c not in taken)))
    out: dict[str, FoulReason] = {}
    for code in _placement_codes(len(dealt), place, room):
        placed = tuple(
            cards + tuple(c for c, where in zip(dealt, code, strict=True) if where == line)
            for cards, line in zip(lines, "tmb", strict=True)
        )
        if sum(map(len, placed)) == 13:
            reason = foul_reason(rules, Board(*placed))
        else:
            reason = _judge(sc, placed, unseen)
        if reason is not None:
            out[code] = reason
    return out


def _placement_codes(n: int, place: int, room: tuple[int, int, int]) -> list[str]:
    codes = [""]
    for _ in range(n):
        codes = [code + where for code in codes for where in "tmbd"]
    return [
        code
        for code in codes
        if code.count("d") == n - place
        and all(code.count(line) <= r for line, r in zip("tmb", room, strict=True))
    ]


class _Unseen:
    """The cards that may come, sorted, and by rank (shared by every board judged)."""

    __slots__ = ("by_rank", "cards", "most_first")

    def __init__(self, cards: tuple[Card, ...]) -> None:
        self.cards = cards
        self.by_rank: list[list[Card]] = [[] for _ in range(13)]
        for c in cards:
            self.by_rank[c >> 2].append(c)
        # The ranks that pair up best: most cards left first, high first.
        self.most_first = sorted(range(13), key=lambda r: (-len(self.by_rank[r]), -r))


def _judge(
    sc: ScoringSpec, lines: tuple[tuple[Card, ...], ...], unseen: _Unseen
) -> FoulReason | None:
    missing = sum(size - len(cards) for cards, size in zip(lines, _SIZES, strict=True))
    if missing > len(unseen.cards):
        raise ValueError(f"the board lacks {missing} cards but only {len(unseen.cards)} may come")
    if _usual_finish_keeps_order(sc, lines, unseen):
        return None
    search = _Search(sc, lines, unseen.cards)
    # Two lines that cannot be kept in order even alone are the reason; checking them
    # first also settles most fouls without the three-line search.
    reason = search.crossing_pair()
    if reason is not None or search.fits((0, 1, 2)):
        return reason
    return FoulReason(
        "the middle cannot fit between the top and the bottom: they would need the same cards",
        "squeezed",
        line="middle",
    )


def _usual_finish_keeps_order(
    sc: ScoringSpec, lines: tuple[tuple[Card, ...], ...], unseen: _Unseen
) -> bool:
    """True if the usual way to finish keeps the order: the top with its lowest
    unpaired cards, then the bottom paired up and the middle either way, or the middle
    paired up and the bottom either way. Most boards pass here at a few evaluations;
    the rest go to the full search."""
    top = _weakest(lines[0], 3, unseen, set())
    if top is None:
        return False
    v_top = evaluate3(top[0], top[1], top[2])
    for first in (2, 1):
        for lead_finish in (_strongest, _grouped):
            lead = lead_finish(lines[first], 5, unseen, set(top))
            if lead is None:
                continue
            other = 3 - first
            for finish in (_weakest, _one_pair, _strongest):
                full = finish(lines[other], 5, unseen, {*top, *lead})
                if full is None:
                    continue
                middle, bottom = (full, lead) if first == 2 else (lead, full)
                v_bottom = high5(sc, bottom)
                if sc.lowball_middle:
                    if v_top <= v_bottom and _qualifies(sc, middle):
                        return True
                elif v_top <= high5(sc, middle) <= v_bottom:
                    return True
    return False


def _qualifies(sc: ScoringSpec, middle: Sequence[Card]) -> bool:
    """A low middle's own condition (always true without a qualifier)."""
    ceiling = sc.low_qualifier_high
    if ceiling is None:
        return True
    high = low27_high_card(evaluate_low27(middle))
    return high is not None and high <= ceiling


class _PoolRanks:
    """The cards that may come as one line sees them: how many of each rank, which
    ranks of each suit, and the suits the line could still make a flush in (a flush
    in s needs the line's own cards in s)."""

    __slots__ = ("by_suit", "count", "flush_suits")

    def __init__(self, pool: Sequence[Card], cards: Sequence[Card], size: int) -> None:
        self.by_suit: list[set[int]] = [set(), set(), set(), set()]
        self.count = [0] * 13
        for c in pool:
            self.by_suit[c & 3].add(c >> 2)
            self.count[c >> 2] += 1
        held = {c & 3 for c in cards}
        self.flush_suits = [] if size == 3 or len(held) > 1 else list(held or range(4))

    def can_flush(self, extra: Sequence[int]) -> bool:
        """Whether the ranks ``extra`` can be taken all in a suit the line can flush in."""
        return any(all(r in self.by_suit[s] for r in extra) for s in self.flush_suits)

    def can_avoid_flush(self, extra: Sequence[int]) -> bool:
        """Whether the ranks ``extra`` can be taken without making a flush: not when the
        only card of each is of the one suit the line holds."""
        return not any(
            all(self.count[r] == 1 and r in self.by_suit[s] for r in extra)
            for s in self.flush_suits
        )


class _Search:
    """The exact search over the ways to finish one board."""

    def __init__(
        self, sc: ScoringSpec, lines: tuple[tuple[Card, ...], ...], pool: tuple[Card, ...]
    ):
        self.sc = sc
        self.lines = lines
        self.pool = pool
        # The middle is ordered against the others unless it is a low middle (§8.1).
        self.chain = (0, 2) if sc.lowball_middle else (0, 1, 2)
        self.flush_suits = _flush_suits(sc, lines, pool)
        self.tables = line_tables(sc.wheel)
        # A rank's weight in the look-ups' index: a card's code without its suit part.
        self.weights = [self.tables.card_codes[r * 4] >> 12 for r in range(13)]
        # The ranks each line tries first: the top its weakest (ranks it does not hold,
        # low first), the bottom its strongest (pairing what it holds, high first); the
        # first tries then usually succeed.
        held = [{c >> 2 for c in cards} for cards in lines]
        self.rank_order = (
            sorted(range(13), key=lambda r: (r in held[0], r)),
            list(range(13)),
            sorted(range(13), key=lambda r: (r not in held[2], -r)),
        )

    def value(self, line: int, cards: Sequence[Card]) -> int:
        if line == 0:
            return evaluate3(cards[0], cards[1], cards[2])
        if line == 1 and self.sc.lowball_middle:
            return evaluate_low27(cards)
        return high5(self.sc, cards)

    def qualifies(self, middle: Sequence[Card]) -> bool:
        return not self.sc.lowball_middle or _qualifies(self.sc, middle)

    def fits(self, involved: tuple[int, ...]) -> bool:
        """True if the ``involved`` lines can be finished together, in order."""
        # The line with the most cards missing goes last (it is only asked, not listed),
        # and a low middle, bound by no other line, after the lines it shares cards with.
        order = sorted(
            involved,
            key=lambda i: (i not in self.chain, _SIZES[i] - len(self.lines[i])),
        )
        return self._fits(order, {}, self.pool)

    def _fits(self, order: list[int], done: dict[int, int], pool: tuple[Card, ...]) -> bool:
        line, rest = order[0], order[1:]
        low, high = self._range(line, done)
        cards = self.lines[line]
        if low > high or (line in self.chain and _floor(cards) > high):
            return False
        if not rest:
            return self._reaches(line, pool, low, high)
        # Look ahead: the last line must reach the range the finished lines and the
        # floors of the others leave it, or no pick of this line can help (the range
        # only narrows and the pool only shrinks below this point).
        last = rest[-1]
        ahead_low, ahead_high = self._range(last, done)
        if last in self.chain:
            at = self.chain.index(last)
            for other in order[:-1]:
                if other in self.chain and self.chain.index(other) < at:
                    ahead_low = max(ahead_low, _floor(self.lines[other]))
        if not self._reaches(last, pool, ahead_low, ahead_high):
            return False
        for extra in _picks(
            pool, _SIZES[line] - len(cards), self.flush_suits, self.rank_order[line]
        ):
            full = cards + extra
            if line == 1 and not self.qualifies(full):
                continue
            value = self.value(line, full) if line in self.chain else 0
            if not low <= value <= high:
                continue
            left = tuple(c for c in pool if c not in extra)
            if self._fits(rest, {**done, line: value}, left):
                return True
        return False

    def _reaches(self, line: int, pool: tuple[Card, ...], low: int, high: int) -> bool:
        """True if ``line`` can be finished from ``pool`` to a value in ``low..high``.

        Tried by the ranks the line may take (a few thousand at most), each as a flush
        and as no flush where the pool's suits allow it.
        """
        ranks = _PoolRanks(pool, self.lines[line], _SIZES[line])
        if line in self.chain and not (line == 1 and self.sc.lowball_middle):
            return self._reaches_by_key(line, ranks, low, high)
        return self._reaches_by_cards(line, ranks, low, high)

    def _reaches_by_cards(self, line: int, pool: _PoolRanks, low: int, high: int) -> bool:
        cards = self.lines[line]
        size = _SIZES[line]
        ranked = [c >> 2 for c in cards]
        in_chain = line in self.chain
        for extra in _rank_choices(pool.count, size - len(cards)):
            ranks = ranked + extra
            distinct = size == 5 and len(set(ranks)) == 5
            if (not distinct or pool.can_avoid_flush(extra)) and self._in_range(
                line, _unsuited(ranks), low, high, in_chain
            ):
                return True
            if (
                distinct
                and pool.can_flush(extra)
                and self._in_range(line, [r * 4 for r in ranks], low, high, in_chain)
            ):
                return True
        return False

    def _reaches_by_key(self, line: int, pool: _PoolRanks, low: int, high: int) -> bool:
        """:meth:`_reaches` for a line valued by the evaluator's look-ups alone: a rank
        multiset's value is one index (the sum of its ranks' weights), plus the span of
        the suited lines for a flush."""
        cards = self.lines[line]
        size = _SIZES[line]
        table = self.tables.line3 if size == 3 else self.tables.line5
        weights = self.weights
        base = sum(weights[c >> 2] for c in cards)
        held = {c >> 2 for c in cards}
        open_to_straights = size == 5 and len(held) == len(cards)
        for extra, key in _rank_sums(pool.count, size - len(cards), weights, 0):
            distinct = open_to_straights and len(set(extra)) == len(extra) and not held & set(extra)
            if (not distinct or pool.can_avoid_flush(extra)) and low <= table[base + key] <= high:
                return True
            if distinct and low <= table[base + key + KEY_SPAN] <= high and pool.can_flush(extra):
                return True
        return False

    def _in_range(self, line: int, cards: list[Card], low: int, high: int, in_chain: bool) -> bool:
        if line == 1 and not self.qualifies(cards):
            return False
        return not in_chain or low <= self.value(line, cards) <= high

    def _range(self, line: int, done: dict[int, int]) -> tuple[int, int]:
        """The values ``line`` may take beside the lines already finished."""
        low, high = _LOWEST, _HIGHEST
        if line in self.chain:
            at = self.chain.index(line)
            for other, value in done.items():
                if other not in self.chain:
                    continue
                if self.chain.index(other) < at:
                    low = max(low, value)
                else:
                    high = min(high, value)
        return low, high

    def crossing_pair(self) -> FoulReason | None:
        """The two lines that cross whatever comes, or a low middle that can no longer
        qualify, or None if each can still be kept right on its own."""
        names = [_line_words(_NAMES[i], self.lines[i]) for i in range(3)]
        chain = self.chain
        pairs = [(chain[i], chain[j]) for i in range(len(chain)) for j in range(i + 1, len(chain))]
        for upper, lower in pairs:
            if not self.fits((upper, lower)):
                return FoulReason(
                    f"{names[upper]} beats anything the {names[lower]} can still become",
                    "beats",
                    line=_NAMES[upper],
                    below=_NAMES[lower],
                )
        ceiling = self.sc.low_qualifier_high
        if self.sc.lowball_middle and ceiling is not None and not self.fits((1,)):
            return FoulReason(
                f"{names[1]} can no longer be {RANKS[ceiling]}-high or better with no pair,"
                " straight or flush",
                "low_middle",
                line="middle",
                ceiling=RANKS[ceiling],
            )
        return None


def _line_words(name: str, cards: Sequence[Card]) -> str:
    return f"{name} {rank_text(cards)}" if cards else f"empty {name}"


_SHAPES = {(4,): 7, (3, 2): 6, (3,): 3, (2, 2): 2, (2,): 1}


def _floor(cards: Sequence[Card]) -> int:
    """A value no way of finishing the line falls below: its groups so far, padded with
    nothing (finished, every key rank can only rise)."""
    if not cards:
        return _LOWEST
    counts: dict[int, int] = {}
    for c in cards:
        counts[c >> 2] = counts.get(c >> 2, 0) + 1
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = tuple(n for _, n in groups if n > 1)
    value = _SHAPES.get(shape, 0)
    for i in range(5):
        value = (value << 4) | (groups[i][0] + 2 if i < len(groups) else 0)
    return value


def _flush_suits(
    sc: ScoringSpec, lines: tuple[tuple[Card, ...], ...], pool: tuple[Card, ...]
) -> frozenset[int]:
    """The suits in which the middle or bottom could still end as a flush."""
    per_suit = [0, 0, 0, 0]
    for c in pool:
        per_suit[c & 3] += 1
    suits: set[int] = set()
    for line in (1, 2):
        if line == 1 and sc.lowball_middle and sc.low_qualifier_high is None:
            continue  # an unqualified low middle never fouls: its flushes do not matter
        cards = lines[line]
        lacking = 5 - len(cards)
        held = {c & 3 for c in cards}
        for s in range(4) if not held else held if len(held) == 1 else ():
            if per_suit[s] >= lacking:
                suits.add(s)
    return frozenset(suits)


def _weakest(
    cards: tuple[Card, ...], size: int, unseen: _Unseen, taken: set[Card]
) -> tuple[Card, ...] | None:
    """The line finished with the lowest cards of ranks it does not hold yet, none of
    ``taken``, skipping a last card that would make a straight or a flush; None if too
    few are left."""
    if len(cards) == size:
        return cards
    held = {c >> 2 for c in cards}
    out = list(cards)
    for c in unseen.cards:
        if c >> 2 in held or c in taken:
            continue
        if len(out) == size - 1 and size == 5 and _straight_or_flush([*out, c]):
            continue
        held.add(c >> 2)
        out.append(c)
        if len(out) == size:
            return tuple(out)
    return None


def _one_pair(
    cards: tuple[Card, ...], size: int, unseen: _Unseen, taken: set[Card]
) -> tuple[Card, ...] | None:
    """The line finished as its lowest pair (the weakest hand above every high card),
    the rest its lowest cards; None if it cannot be."""
    held = sorted({c >> 2 for c in cards})
    if len(cards) == size or len(held) < len(cards):
        return None  # complete, or paired already (then its weakest finish is a pair)
    left = [[c for c in unseen.by_rank[r] if c not in taken] for r in range(13)]
    for r in range(13):
        need = 1 if r in held else 2
        if len(left[r]) >= need and len(cards) + need <= size:
            pair = tuple(left[r][:need])
            return _weakest(cards + pair, size, unseen, taken | {c for c in unseen.by_rank[r]})
    return None


def _straight_or_flush(cards: list[Card]) -> bool:
    ranks = sorted({c >> 2 for c in cards})
    if len({c & 3 for c in cards}) == 1:
        return True
    return len(ranks) == 5 and (ranks[4] - ranks[0] == 4 or ranks == [0, 1, 2, 3, 12])


def _strongest(
    cards: tuple[Card, ...], size: int, unseen: _Unseen, taken: set[Card]
) -> tuple[Card, ...] | None:
    """The line finished by pairing up: cards of the ranks it holds most first, then of
    the ranks most left, high first, none of ``taken``; None if too few are left."""
    count: dict[int, int] = {}
    for c in cards:
        count[c >> 2] = count.get(c >> 2, 0) + 1
    held = sorted(count, key=lambda r: (-count[r], -r))
    return _fill(cards, size, (*held, *unseen.most_first), unseen, taken)


def _grouped(
    cards: tuple[Card, ...], size: int, unseen: _Unseen, taken: set[Card]
) -> tuple[Card, ...] | None:
    """The line finished from the ranks most left, high first (quads or trips of its
    own rather than pairing what it holds)."""
    return _fill(cards, size, unseen.most_first, unseen, taken)


def _fill(
    cards: tuple[Card, ...],
    size: int,
    ranks: Sequence[int],
    unseen: _Unseen,
    taken: set[Card],
) -> tuple[Card, ...] | None:
    if len(cards) == size:
        return cards
    out = list(cards)
    for r in ranks:
        for c in unseen.by_rank[r]:
            if c not in taken and c not in out:
                out.append(c)
                if len(out) == size:
                    return tuple(out)
    return None


def _rank_sums(
    count: list[int], k: int, weights: list[int], start: int
) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every multiset of ``k`` ranks from ``start`` up that ``count`` allows, with the
    sum of its ranks' weights."""
    if k == 0:
        yield (), 0
        return
    for r in range(start, 13):
        weight = weights[r]
        for n in range(1, min(count[r], k) + 1):
            for rest, key in _rank_sums(count, k - n, weights, r + 1):
                yield (r,) * n + rest, key + n * weight


def _rank_choices(count: list[int], k: int, start: int = 0) -> Iterator[list[int]]:
    """Every multiset of ``k`` ranks from ``start`` up that ``count`` (cards per rank) allows."""
    if k == 0:
        yield []
        return
    for r in range(start, 13):
        for n in range(1, min(count[r], k) + 1):
            for rest in _rank_choices(count, k - n, r + 1):
                yield [r] * n + rest


def _unsuited(ranks: list[int]) -> list[Card]:
    """Cards of these ranks that make no flush (each repeat of a rank in another suit)."""
    seen: dict[int, int] = {}
    cards = []
    for r in ranks:
        n = seen.get(r, 0)
        seen[r] = n + 1
        cards.append(r * 4 + n)
    if len(cards) == 5 and len(seen) == 5:
        cards[-1] += 1
    return cards


def _picks(
    pool: tuple[Card, ...], k: int, flush_suits: frozenset[int], rank_order: Sequence[int]
) -> Iterator[tuple[Card, ...]]:
    """Every way to take ``k`` cards from ``pool``, up to interchangeable cards.

    Cards of one rank whose suits cannot make a flush give every line the same value
    whichever of them it holds, so they are taken in a fixed order (a prefix).
    """
    if k == 0:
        yield ()
        return
    options: list[list[tuple[Card, ...]]] = []
    by_rank: dict[int, list[Card]] = {r: [] for r in rank_order}
    for c in pool:
        by_rank[c >> 2].append(c)
    for cards in by_rank.values():
        if not cards:
            continue
        special = [c for c in cards if c & 3 in flush_suits]
        plain = [c for c in cards if c & 3 not in flush_suits]
        choices = []
        for n in range(len(special) + 1):
            for some in combinations(special, n):
                for m in range(len(plain) + 1):
                    if n + m:
                        choices.append(some + tuple(plain[:m]))
        options.append(choices)
    yield from _combine(options, 0, k)


def _combine(
    options: list[list[tuple[Card, ...]]], start: int, k: int
) -> Iterator[tuple[Card, ...]]:
    for i in range(start, len(options)):
        for choice in options[i]:
            n = len(choice)
            if n == k:
                yield choice
            elif n < k:
                for rest in _combine(options, i + 1, k - n):
                    yield choice + rest
