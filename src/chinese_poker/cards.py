"""Cards as small integers, sets of cards as 52-bit masks, and the text notation.

A card is an ``int`` from 0 to 51: ``rank * 4 + suit``, with ranks ``2..A`` as 0..12
and suits in the order ``s h d c``. A set of cards is an ``int`` bit mask
(bit ``card`` set). Both are plain values, cheap to hash, store and send.

>>> card = parse_card("Ah")
>>> card, card_name(card)
(49, 'Ah')
>>> cards_str(parse_cards("10h k♠ 2c"))
'Th Ks 2c'
>>> board = parse_board("Ah Ad 2c | Kh Kd Qs Jc Ts | 9s 9h 9d 5c 5d")
>>> str(board)
'Ah Ad 2c | Kh Kd Qs Jc Ts | 9s 9h 9d 5c 5d'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "LINE_NAMES",
    "LINE_SIZES",
    "RANKS",
    "SUITS",
    "Board",
    "Card",
    "CardError",
    "card_name",
    "card_rank",
    "card_suit",
    "cards_from_mask",
    "cards_str",
    "check_disjoint",
    "full_deck",
    "make_card",
    "mask_of",
    "parse_board",
    "parse_card",
    "parse_cards",
]

Card = int
RANKS = "23456789TJQKA"
SUITS = "shdc"
LINE_NAMES = ("top", "middle", "bottom")
LINE_SIZES = (3, 5, 5)

_SUIT_ALIASES = {
    "s": 0, "h": 1, "d": 2, "c": 3,
    "♠": 0, "♥": 1, "♦": 2, "♣": 3,
    "♤": 0, "♡": 1, "♢": 2, "♧": 3,
}  # fmt: skip
_RANK_ALIASES = {r: i for i, r in enumerate(RANKS)} | {"10": 8, "1": 12}
_NAMES = tuple(r + s for r in RANKS for s in SUITS)
_SPLIT = re.compile(r"[\s,]+")
_GLUED = re.compile(r"(?:(?:10|[2-9tjqka])[shdc♠♥♦♣♤♡♢♧])+", re.IGNORECASE)
_ONE = re.compile(r"(?:10|[2-9tjqka])[shdc♠♥♦♣♤♡♢♧]", re.IGNORECASE)


class CardError(ValueError):
    """Bad card notation. ``token`` is the offending piece of text."""

    def __init__(self, message: str, token: str = "") -> None:
        super().__init__(message)
        self.token = token


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (0 = deuce .. 12 = ace) and ``suit`` (0..3 = s h d c)."""
    if not (0 <= rank < 13 and 0 <= suit < 4):
        raise CardError(f"no card with rank index {rank} and suit index {suit}")
    return rank * 4 + suit


def card_rank(card: Card) -> int:
    """Rank index, 0 for a deuce up to 12 for an ace."""
    return card >> 2


def card_suit(card: Card) -> int:
    """Suit index, 0..3 for s h d c."""
    return card & 3


def card_name(card: Card) -> str:
    """Two-character name such as ``'Ah'``."""
    if not 0 <= card < 52:
        raise CardError(f"card number {card} is outside 0..51", str(card))
    return _NAMES[card]


def parse_card(token: str) -> Card:
    """Parse one card: ``Ah``, ``ah``, ``10h``, ``A♠``.

    >>> parse_card("2s"), parse_card("10♥"), parse_card("ac")
    (0, 33, 51)
    """
    text = token.strip()
    if len(text) < 2:
        raise CardError(f"bad card {token!r}: expected a rank and a suit, like 'Ah'", token)
    rank_text, suit_text = text[:-1].upper(), text[-1].lower()
    rank = _RANK_ALIASES.get(rank_text)
    if rank is None or rank_text == "1":
        raise CardError(
            f"bad card {token!r}: unknown rank {text[:-1]!r} (ranks are 2-9, T or 10, J, Q, K, A)",
            token,
        )
    suit = _SUIT_ALIASES.get(suit_text)
    if suit is None:
        raise CardError(
            f"bad card {token!r}: unknown suit {text[-1]!r} (suits are s h d c or ♠ ♥ ♦ ♣)", token
        )
    return rank * 4 + suit


def _tokens(text: str) -> list[str]:
    # Allow glued notation such as "AhKd" as well as "Ah Kd" and "Ah,Kd".
    out: list[str] = []
    for chunk in _SPLIT.split(text.strip()):
        if not chunk:
            continue
        if len(chunk) > 3 and _GLUED.fullmatch(chunk):
            out.extend(_ONE.findall(chunk))
        else:
            out.append(chunk)
    return out


def parse_cards(text: str | Iterable[str], *, unique: bool = True) -> tuple[Card, ...]:
    """Parse cards separated by spaces or commas (or glued: ``AhKd``).

    A card that appears twice raises :class:`CardError` unless ``unique`` is false.

    >>> parse_cards("Ah Kd Qs Jc Ts")
    (49, 46, 40, 39, 32)
    """
    tokens = _tokens(text) if isinstance(text, str) else [t for t in text]
    cards = tuple(parse_card(t) for t in tokens)
    if unique:
        seen: dict[Card, str] = {}
        for token, card in zip(tokens, cards, strict=True):
            if card in seen:
                raise CardError(f"duplicate card {card_name(card)} ({token!r})", token)
            seen[card] = token
    return cards


def cards_str(cards: Iterable[Card]) -> str:
    """Cards in the canonical notation, separated by single spaces."""
    return " ".join(card_name(c) for c in cards)


def mask_of(cards: Iterable[Card]) -> int:
    """The bit mask of a collection of cards."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_from_mask(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


def full_deck() -> tuple[Card, ...]:
    """All 52 cards in index order."""
    return tuple(range(52))


@dataclass(frozen=True, slots=True)
class Board:
    """A board of three lines of cards. Lines may be partly filled during play.

    >>> Board.parse("Qh Qd 7c | Qs Qc 6d 5h 4s | Ah Kh 9h 8h 2h").complete
    True
    """

    top: tuple[Card, ...] = ()
    middle: tuple[Card, ...] = ()
    bottom: tuple[Card, ...] = ()

    @classmethod
    def parse(cls, text: str, *, complete: bool = True) -> Board:
        return parse_board(text, complete=complete)

    @property
    def lines(self) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]:
        return (self.top, self.middle, self.bottom)

    @property
    def complete(self) -> bool:
        return tuple(len(x) for x in self.lines) == LINE_SIZES

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.top + self.middle + self.bottom

    @property
    def mask(self) -> int:
        return mask_of(self.cards)

    def __len__(self) -> int:
        return len(self.top) + len(self.middle) + len(self.bottom)

    def __str__(self) -> str:
        return " | ".join(cards_str(line) for line in self.lines)

    def __repr__(self) -> str:
        return f"Board.parse({str(self)!r}, complete={self.complete})"

    def to_json(self) -> str:
        return str(self)


def parse_board(text: str, *, complete: bool = True) -> Board:
    """Parse ``top | middle | bottom``.

    With ``complete`` (the default) every line must be full: 3, 5 and 5 cards.
    Otherwise lines may be short but never too long. A card may appear only once.
    """
    parts = text.split("|")
    if len(parts) != 3:
        raise CardError(
            f"bad board {text.strip()!r}: expected three lines 'top | middle | bottom', "
            f"found {len(parts)}",
            text,
        )
    lines: list[tuple[Card, ...]] = []
    seen: set[Card] = set()
    for name, size, part in zip(LINE_NAMES, LINE_SIZES, parts, strict=True):
        cards = parse_cards(part)
        for c in cards:
            if c in seen:
                raise CardError(f"duplicate card {card_name(c)} on the board", card_name(c))
            seen.add(c)
        if len(cards) > size or (complete and len(cards) != size):
            raise CardError(
                f"bad board: the {name} line has {len(cards)} cards ({part.strip()!r}), "
                f"it needs {size}",
                part.strip(),
            )
        lines.append(cards)
    return Board(lines[0], lines[1], lines[2])


def check_disjoint(named_groups: Sequence[tuple[str, Iterable[Card]]]) -> None:
    """Raise :class:`CardError` if one card appears in two groups (e.g. two boards)."""
    owner: dict[Card, str] = {}
    for name, group in named_groups:
        for c in group:
            if c in owner:
                other = owner[c]
                where = f"both {other} and {name}" if other != name else f"{name} twice"
                raise CardError(f"card {card_name(c)} appears in {where}", card_name(c))
            owner[c] = name
