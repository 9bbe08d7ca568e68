"""Hand evaluation for three- and five-card lines on one comparable scale.

A line's *value* is a plain ``int``; a higher value is a stronger line. Values of
three-card tops and five-card lines share one scale (RULES §3.4): the category sits
in bits 20..23 and the key ranks (2..14, highest first, 0 where a three-card key
has no position) in five 4-bit slots below. So a top ``Q Q 7`` and a middle
``Q Q 7 5 4`` compare as "equal or weaker", and ``Q Q 7`` against ``Q Q 6 5 4`` as
stronger, exactly as the foul check wants, by plain integer comparison.

The hot path is table driven: each card maps to ``rank_weight << 12 | suit_weight``;
the sum of a line's card codes identifies its rank multiset (the weights are chosen
so that distinct multisets of up to five ranks never collide) and whether it is
suited, and one table look-up gives the value. The batch API does the same on numpy
arrays without a Python loop per hand.

>>> from chinese_poker.cards import parse_cards
>>> v = evaluate(parse_cards("Ah Kh Qh Jh Th"))
>>> describe(v), category(v) == STRAIGHT_FLUSH
('Royal flush', True)
>>> evaluate(parse_cards("Qh Qd 7c")) > evaluate(parse_cards("Qs Qc 6d 5h 4s"))
True
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Literal

import numpy as np
import numpy.typing as npt

from chinese_poker.cards import RANKS, Card, CardError, card_name

__all__ = [
    "FLUSH",
    "FOUR_OF_A_KIND",
    "FULL_HOUSE",
    "HIGH_CARD",
    "KEY_SPAN",
    "ONE_PAIR",
    "STRAIGHT",
    "STRAIGHT_FLUSH",
    "THREE_OF_A_KIND",
    "TWO_PAIR",
    "Category",
    "LineTables",
    "WheelRank",
    "category",
    "describe",
    "evaluate",
    "evaluate3",
    "evaluate5",
    "evaluate_batch",
    "evaluate_low27",
    "evaluate_low27_batch",
    "is_royal_flush",
    "key_ranks",
    "line_tables",
    "low27_high_card",
]

WheelRank = Literal["lowest", "second_highest"]


class Category(IntEnum):
    """Hand categories, weakest first. A top line only makes 0, 1 and 3."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8

    @property
    def label(self) -> str:
        return self.name.replace("_", " ").capitalize()


HIGH_CARD, ONE_PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT = 0, 1, 2, 3, 4
FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH = 5, 6, 7, 8

# Rank weights such that sums over distinct multisets of at most five ranks (each
# rank at most four times) never collide; found by a greedy search and re-checked
# by the test suite.
RANK_WEIGHTS = (0, 1, 5, 22, 94, 312, 992, 2422, 5624, 12522, 19998, 43258, 79415)
_SUIT_WEIGHTS = (1, 8, 64, 512)
_SUIT_BITS = 12
_SUIT_MASK = (1 << _SUIT_BITS) - 1
_FLUSH_SUMS = frozenset(5 * w for w in _SUIT_WEIGHTS)
_KEY_SPAN = 4 * RANK_WEIGHTS[12] + RANK_WEIGHTS[11] + 1  # every 5-card rank sum is below

#: Card code: rank weight in the high bits, suit weight in the low 12 bits.
CARD_CODES: tuple[int, ...] = tuple(
    (RANK_WEIGHTS[c >> 2] << _SUIT_BITS) | _SUIT_WEIGHTS[c & 3] for c in range(52)
)

_WHEEL = (12, 3, 2, 1, 0)  # A 5 4 3 2 by rank index


def _pack(cat: int, ranks: Sequence[int]) -> int:
    """Category plus up to five key ranks (rank indices 0..12, stored as 2..14)."""
    value = cat
    for i in range(5):
        value = (value << 4) | (ranks[i] + 2 if i < len(ranks) else 0)
    return value


def _straight_top(distinct_desc: tuple[int, ...]) -> int | None:
    """Top rank index of a five-distinct-rank straight, 3 for the wheel, else None."""
    if distinct_desc[0] - distinct_desc[4] == 4:
        return distinct_desc[0]
    if distinct_desc == _WHEEL:
        return 3
    return None


def _value5(ranks: tuple[int, ...], suited: bool, wheel: str) -> int:
    """Value of a five-card line from its rank multiset (any order)."""
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    # Group by count, then rank: the order in which keys are compared (RULES §3.1).
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    ordered = tuple(r for r, _ in groups)
    shape = tuple(n for _, n in groups)
    if len(counts) == 5:
        desc = tuple(sorted(ranks, reverse=True))
        top = (
            _straight_top(desc)
            if wheel != "none"
            else (desc[0] if desc[0] - desc[4] == 4 else None)
        )
        if top is not None:
            cat = STRAIGHT_FLUSH if suited else STRAIGHT
            if top == 3 and wheel == "second_highest":
                # Between the K-high straight (key K) and the A-high one (key A): key K
                # plus a marker in the next slot, which no other straight uses.
                return _pack(cat, (11,)) | (1 << 12)
            return _pack(cat, (top,))
        return _pack(FLUSH if suited else HIGH_CARD, desc)
    cat = {
        (4, 1): FOUR_OF_A_KIND,
        (3, 2): FULL_HOUSE,
        (3, 1, 1): THREE_OF_A_KIND,
        (2, 2, 1): TWO_PAIR,
        (2, 1, 1, 1): ONE_PAIR,
    }[shape]
    return _pack(cat, ordered)


def _value3(ranks: tuple[int, ...]) -> int:
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    ordered = tuple(r for r, _ in groups)
    cat = {1: THREE_OF_A_KIND, 2: ONE_PAIR, 3: HIGH_CARD}[len(counts)]
    return _pack(cat, ordered)


def _multisets(size: int) -> list[tuple[int, ...]]:
    return [
        m
        for m in itertools.combinations_with_replacement(range(13), size)
        if max(m.count(r) for r in set(m)) <= 4
    ]


def _rank_key(ranks: Sequence[int]) -> int:
    return sum(RANK_WEIGHTS[r] for r in ranks)


def _build_table5(wheel: str) -> list[int]:
    """Table indexed by rank-sum key, plus ``_KEY_SPAN`` for suited lines."""
    table = [0] * (2 * _KEY_SPAN)
    for m in _multisets(5):
        k = _rank_key(m)
        table[k] = _value5(m, False, wheel)
        if len(set(m)) == 5:
            table[k + _KEY_SPAN] = _value5(m, True, wheel)
    return table


def _build_table3() -> list[int]:
    table = [0] * (3 * RANK_WEIGHTS[12] + 1)
    for m in _multisets(3):
        table[_rank_key(m)] = _value3(m)
    return table


_FLUSH_OFFSET = [(_KEY_SPAN if s in _FLUSH_SUMS else 0) for s in range(1 << _SUIT_BITS)]
_TABLE5: dict[str, list[int]] = {"lowest": _build_table5("lowest")}
_TABLE3 = _build_table3()
_T5 = _TABLE5["lowest"]
_CC = CARD_CODES
_FO = _FLUSH_OFFSET


def _table5(wheel: str) -> list[int]:
    table = _TABLE5.get(wheel)
    if table is None:
        if wheel not in ("second_highest", "none"):
            raise ValueError(f"unknown wheel rank {wheel!r}: use 'lowest' or 'second_highest'")
        table = _TABLE5[wheel] = _build_table5(wheel)
    return table


def evaluate5(a: Card, b: Card, c: Card, d: Card, e: Card) -> int:
    """Value of five distinct cards (standard ranking, wheel lowest). Fastest call."""
    k = _CC[a] + _CC[b] + _CC[c] + _CC[d] + _CC[e]
    return _T5[(k >> 12) + _FO[k & 4095]]


def evaluate3(a: Card, b: Card, c: Card) -> int:
    """Value of a three-card top line (no straights or flushes, RULES §3.2)."""
    return _TABLE3[(_CC[a] + _CC[b] + _CC[c]) >> 12]


def evaluate(cards: Sequence[Card], *, wheel: WheelRank = "lowest") -> int:
    """Value of a line of 3 or 5 distinct cards. Higher is stronger.

    ``wheel="second_highest"`` ranks ``A 2 3 4 5`` just below ``T J Q K A`` (RULES §8.2).

    >>> from chinese_poker.cards import parse_cards
    >>> wheel = parse_cards("Ah 2d 3c 4s 5h")
    >>> king = parse_cards("9c Td Jh Qs Kd")
    >>> evaluate(wheel) < evaluate(king), evaluate(wheel, wheel="second_highest") > evaluate(king)
    (True, True)
    """
    # The checks ride on the look-ups: a bit per card catches repeats, an OR of the
    # card numbers catches negatives, and an index past 51 raises IndexError.
    try:
        if len(cards) == 5:
            a, b, c, d, e = cards
            if (_BIT[a] | _BIT[b] | _BIT[c] | _BIT[d] | _BIT[e]).bit_count() == 5 and (
                a | b | c | d | e
            ) >= 0:
                k = _CC[a] + _CC[b] + _CC[c] + _CC[d] + _CC[e]
                table = _T5 if wheel == "lowest" else _table5(wheel)
                return table[(k >> 12) + _FO[k & 4095]]
        elif len(cards) == 3:
            a, b, c = cards
            if (_BIT[a] | _BIT[b] | _BIT[c]).bit_count() == 3 and (a | b | c) >= 0:
                return _TABLE3[(_CC[a] + _CC[b] + _CC[c]) >> 12]
        else:
            raise CardError(f"a line has 3 or 5 cards, not {len(cards)}")
    except (IndexError, TypeError):
        pass
    _check(cards)
    raise CardError(f"bad line {cards!r}")  # pragma: no cover - _check always raises


_BIT = tuple(1 << c for c in range(52))


def _check(cards: Sequence[Card]) -> None:
    """Raise a :class:`CardError` naming the first bad or repeated card."""
    seen: set[int] = set()
    for c in cards:
        if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < 52:
            raise CardError(f"card number {c!r} is outside 0..51", str(c))
        if c in seen:
            name = card_name(c)
            raise CardError(f"a line cannot hold the same card twice: {name}", name)
        seen.add(c)


# --- deuce-to-seven low (RULES §8.1) -------------------------------------------------

_LOW_CEILING = 1 << 24


def evaluate_low27(cards: Sequence[Card]) -> int:
    """Deuce-to-seven low value of five cards: higher is the better *low* hand.

    The ace is high only and straights and flushes count against the hand, so the
    value is the mirror of the high value with no wheel.

    >>> from chinese_poker.cards import parse_cards
    >>> seven, eight = parse_cards("7c 5d 4h 3s 2c"), parse_cards("8d 6h 4c 3d 2h")
    >>> evaluate_low27(seven) > evaluate_low27(eight)
    True
    """
    if len(cards) != 5:
        raise CardError(f"a low middle has 5 cards, not {len(cards)}")
    _check(cards)
    k = sum(_CC[c] for c in cards)
    return _LOW_CEILING - _table5("none")[(k >> 12) + _FO[k & 4095]]


def low27_high_card(low_value: int) -> int | None:
    """For a low value with no pair, straight or flush, the rank index of its top card."""
    high = _LOW_CEILING - low_value
    if high >> 20 != HIGH_CARD:
        return None
    return ((high >> 16) & 15) - 2


# --- describing values ---------------------------------------------------------------

_RANK_WORDS = ("deuce", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
               "jack", "queen", "king", "ace")  # fmt: skip
_PLURALS = ("deuces", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines",
            "tens", "jacks", "queens", "kings", "aces")  # fmt: skip


def category(value: int) -> int:
    """The :class:`Category` number of a value."""
    return value >> 20


def key_ranks(value: int) -> tuple[int, ...]:
    """The key's rank indices (0 = deuce .. 12 = ace), highest priority first."""
    out = []
    for shift in (16, 12, 8, 4, 0):
        r = (value >> shift) & 15
        if r > 1:  # 0 = no position, 1 = the second-highest wheel marker
            out.append(r - 2)
    return tuple(out)


def is_royal_flush(value: int) -> bool:
    return category(value) == STRAIGHT_FLUSH and key_ranks(value)[:1] == (12,)


def describe(value: int) -> str:
    """A player's name for a line value, e.g. ``'Full house, kings full of fours'``.

    >>> from chinese_poker.cards import parse_cards
    >>> describe(evaluate(parse_cards("Qh Qd 7c")))
    'Pair of queens, seven kicker'
    """
    cat = category(value)
    ks = key_ranks(value)
    if cat == STRAIGHT_FLUSH and ks[0] == 12:
        return "Royal flush"
    if cat in (STRAIGHT, STRAIGHT_FLUSH):
        name = "Straight flush" if cat == STRAIGHT_FLUSH else "Straight"
        if (value >> 12) & 15 == 1:  # the second-highest wheel
            return f"{name}, five high (wheel)"
        return f"{name}, {_RANK_WORDS[ks[0]]} high"
    if cat == FOUR_OF_A_KIND:
        return f"Four {_PLURALS[ks[0]]}"
    if cat == FULL_HOUSE:
        return f"Full house, {_PLURALS[ks[0]]} full of {_PLURALS[ks[1]]}"
    if cat == FLUSH:
        return f"Flush, {_RANK_WORDS[ks[0]]} high"
    if cat == THREE_OF_A_KIND:
        return f"Three {_PLURALS[ks[0]]}"
    if cat == TWO_PAIR:
        return f"Two pair, {_PLURALS[ks[0]]} and {_PLURALS[ks[1]]}"
    kick = ", ".join(RANKS[r] for r in ks[1:])
    if cat == ONE_PAIR:
        if len(ks) == 2:
            return f"Pair of {_PLURALS[ks[0]]}, {_RANK_WORDS[ks[1]]} kicker"
        return f"Pair of {_PLURALS[ks[0]]}, kickers {kick}"
    return f"{_RANK_WORDS[ks[0]].capitalize()} high" + (f", then {kick}" if kick else "")


# --- batch evaluation ----------------------------------------------------------------

_CODES_NP = np.asarray(CARD_CODES, dtype=np.int32)
_FO_NP = np.asarray(_FLUSH_OFFSET, dtype=np.int32)
_T3_NP = np.asarray(_TABLE3, dtype=np.int32)
_T5_NP: dict[str, npt.NDArray[np.int32]] = {}
for _shared in (_CODES_NP, _FO_NP, _T3_NP):
    _shared.setflags(write=False)  # handed out by line_tables()
_CHUNK = 1 << 15  # rows per step: keeps the temporaries in cache


def _t5_np(wheel: str) -> npt.NDArray[np.int32]:
    arr = _T5_NP.get(wheel)
    if arr is None:
        arr = _T5_NP[wheel] = np.asarray(_table5(wheel), dtype=np.int32)
        arr.setflags(write=False)
    return arr


@dataclass(frozen=True)
class LineTables:
    """The evaluator's look-ups, for code that values lines itself (the numba kernels,
    the settlement's fast path). A line's value is one index: for three cards
    ``line3[(c1 + c2 + c3) >> 12]``, for five ``line5[(k >> 12) + flush_offset[k & 4095]]``
    where ``c`` are ``card_codes`` and ``k`` their sum. Lists for plain Python, arrays
    (int32, read-only) for numpy and numba.
    """

    card_codes: tuple[int, ...]
    line3: list[int]
    line5: list[int]
    flush_offset: list[int]
    card_codes_array: npt.NDArray[np.int32]
    line3_array: npt.NDArray[np.int32]
    line5_array: npt.NDArray[np.int32]
    flush_offset_array: npt.NDArray[np.int32]


#: Rank sums of up to five cards are below this; ``line5`` holds the suited lines from it on.
KEY_SPAN = _KEY_SPAN


def line_tables(wheel: WheelRank = "lowest") -> LineTables:
    """The look-up tables behind :func:`evaluate` for a wheel rule (built once each).

    >>> from chinese_poker.cards import parse_cards
    >>> t = line_tables()
    >>> k = sum(t.card_codes[c] for c in parse_cards("Ah Kh Qh Jh Th"))
    >>> t.line5[(k >> 12) + t.flush_offset[k & 4095]] == evaluate(parse_cards("Ah Kh Qh Jh Th"))
    True
    """
    return LineTables(
        card_codes=CARD_CODES,
        line3=_TABLE3,
        line5=_table5(wheel),
        flush_offset=_FO,
        card_codes_array=_CODES_NP,
        line3_array=_T3_NP,
        line5_array=_t5_np(wheel),
        flush_offset_array=_FO_NP,
    )


def evaluate_batch(
    hands: npt.ArrayLike, *, wheel: WheelRank = "lowest", check: bool = True
) -> npt.NDArray[np.int32]:
    return _evaluate_batch(hands, wheel, check=check)


def _evaluate_batch(hands: npt.ArrayLike, wheel: str, *, check: bool) -> npt.NDArray[np.int32]:
    """Values of many lines at once: an ``(N, 5)`` or ``(N, 3)`` integer array of cards.

    Returns an ``int32`` array of length N on the same scale as :func:`evaluate`.
    With ``check`` the cards are validated (range and no repeats within a row).

    >>> import numpy as np
    >>> evaluate_batch(np.array([[48, 49, 50, 51, 0], [0, 4, 8, 12, 48]])).tolist() == [
    ...     evaluate([48, 49, 50, 51, 0]), evaluate([0, 4, 8, 12, 48])]
    True
    """
    arr = np.asarray(hands)
    if arr.ndim != 2 or arr.shape[1] not in (3, 5):
        raise CardError(f"batch must have shape (N, 5) or (N, 3), got {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise CardError(f"batch must hold integer cards, got dtype {arr.dtype}")
    if check and arr.size:
        if arr.min() < 0 or arr.max() > 51:
            row, col = np.argwhere((arr < 0) | (arr > 51))[0]
            value = int(arr[row, col])
            raise CardError(
                f"batch row {int(row)} holds card number {value}, outside 0..51", str(value)
            )
        bits = np.zeros(arr.shape[0], dtype=np.uint64)
        one = np.uint64(1)
        for j in range(arr.shape[1]):
            bits |= np.left_shift(one, arr[:, j].astype(np.uint64))
        dup = np.bitwise_count(bits) != arr.shape[1]
        if dup.any():
            bad = int(np.flatnonzero(dup)[0])
            raise CardError(f"batch row {bad} holds the same card twice")
    out = np.empty(arr.shape[0], dtype=np.int32)
    if arr.shape[1] == 3:
        for lo in range(0, arr.shape[0], _CHUNK):
            part = arr[lo : lo + _CHUNK]
            k = _CODES_NP[part[:, 0]] + _CODES_NP[part[:, 1]] + _CODES_NP[part[:, 2]]
            out[lo : lo + _CHUNK] = _T3_NP[k >> _SUIT_BITS]
        return out
    table = _t5_np(wheel)
    for lo in range(0, arr.shape[0], _CHUNK):
        part = arr[lo : lo + _CHUNK]
        k = _CODES_NP[part[:, 0]]
        for j in range(1, 5):
            k += _CODES_NP[part[:, j]]
        idx = k >> _SUIT_BITS
        idx += _FO_NP[k & _SUIT_MASK]
        out[lo : lo + _CHUNK] = table[idx]
    return out


def evaluate_low27_batch(hands: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """Deuce-to-seven low values of an ``(N, 5)`` array; higher is the better low."""
    arr = np.asarray(hands)
    if arr.ndim != 2 or arr.shape[1] != 5:
        raise CardError(f"a low batch must have shape (N, 5), got {arr.shape}")
    high = _evaluate_batch(arr, "none", check=True)
    return (_LOW_CEILING - high).astype(np.int32)
