"""What a settlement is made of: the hands put in, and the seats, pairs and items that come out."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from chinese_poker.cards import Board, Card
from chinese_poker.rules import Rules

if TYPE_CHECKING:  # lines imports this module's ScoringError
    from chinese_poker.scoring.lines import FoulReason

__all__ = [
    "DEUCE_OF_SPADES",
    "SETTLEMENT_FIELDS",
    "Hand",
    "Item",
    "Natural",
    "PairPoints",
    "PairResult",
    "ScoringError",
    "SeatResult",
    "Settlement",
    "settled_later",
]

#: The Finnish deuce (§7.6): card number 0 is the 2 of spades.
DEUCE_OF_SPADES: Card = 0


class ScoringError(ValueError):
    """A table that cannot be settled: wrong seats, incomplete boards, repeated cards."""


# ============================================================================ inputs


@dataclass(frozen=True, slots=True, kw_only=True)
class Hand:
    """One seat's hand to settle.

    ``player`` is the owner (defaults to ``name``): in Criss Cross one player owns two
    hands, numbered by ``index`` 0 and 1; seats of one player never settle each other.
    ``dealt`` is what the player was dealt (for ``royalty_for_dealt_combination``; by
    default the board's cards). A surrendering hand may leave its board empty.

    >>> from chinese_poker.cards import parse_board
    >>> Hand(name="A", board=parse_board("Ah Ad 2c | Kh Kd Qs Jc Ts | 9s 9h 9d 5c 5d")).owner
    'A'
    """

    name: str
    board: Board
    player: str | None = None
    index: int = 0
    surrender: bool = False
    in_fantasyland: bool = False
    dealt: tuple[Card, ...] | None = None
    declares_natural: bool = True

    @property
    def owner(self) -> str:
        """The player this hand belongs to."""
        return self.name if self.player is None else self.player


# ============================================================================ results


@dataclass(frozen=True, slots=True)
class Natural:
    """A classic natural (§7.10): its kind, its value in points and a comparison key.

    ``key`` compares two naturals of the same kind (higher wins): the pair ranks for six
    pairs, (back, middle, front) strengths for three flushes and three straights, and
    nothing for a dragon (two dragons tie).
    """

    kind: str
    value: int
    key: tuple[int, ...] = ()

    @property
    def label(self) -> str:
        """The players' name, e.g. ``'Three flushes'``."""
        return self.kind.replace("_", " ").capitalize()


class Item(NamedTuple):
    """One entry of a pair's breakdown: what ``points`` (paid by B to A) are for.

    ``kind`` is an :class:`~chinese_poker.scoring.notes.ItemKind` (equal to its text:
    ``line``, ``overall``, ``scoop``, ``foul``, ``royalty``, ``natural``, ``surrender``).
    For lines and royalties, ``line`` names the line and ``a``/``b`` the two hands on it;
    ``a_amount``/``b_amount`` are the royalties (or the natural values) of A and B
    and ``factor`` is 2 where the Finnish deuce doubled them.
    ``note`` is a :class:`~chinese_poker.scoring.notes.Note` saying why (the overall unit's
    is the score of lines, ``"2-1"``); :func:`~chinese_poker.scoring.item_text` words it.
    """

    kind: str
    points: int
    line: str = ""
    a: str = ""
    b: str = ""
    a_amount: int = 0
    b_amount: int = 0
    factor: int = 1
    note: str = ""


class SeatResult(NamedTuple):
    """One seat as settled: its lines, royalties, foul, natural and next-hand Fantasyland.

    (A named tuple rather than a frozen dataclass: building one is six times cheaper, and
    a table builds one per seat on every settlement.)

    ``values`` are the line values used for comparisons (the middle is a deuce-to-seven
    low value under ``middle_mode = lowball_2_7``), ``hands`` their names. ``royalties``
    are the royalties this seat collects with (zero when fouled, surrendered or playing a
    natural); ``foul_reason`` is set whenever the board breaks the line order, and
    ``fouled`` when that is penalised (not under ``misset_rule = ignore``).
    """

    name: str
    player: str
    hand_index: int
    board: Board
    values: tuple[int, int, int]
    hands: tuple[str, str, str]
    royalties: tuple[int, int, int]
    foul_reason: FoulReason | None
    fouled: bool
    natural: Natural | None
    surrendered: bool
    in_fantasyland: bool
    fantasyland: int | None
    deuce_line: int = -1
    dealt_bonus: tuple[str, ...] = ()
    royalty_strength: tuple[int, int, int] = (0, 0, 0)

    @property
    def royalty_total(self) -> int:
        return self.royalties[0] + self.royalties[1] + self.royalties[2]

    @property
    def plays(self) -> bool:
        """True if the board is shown down (no natural, no surrender, no penalised foul)."""
        return not (self.fouled or self.surrendered or self.natural is not None)


class PairResult(NamedTuple):
    """The settlement of seat ``a`` against seat ``b``: ``points`` is what B pays A.

    ``basis`` says which step of §7.3 decided it: ``natural``, ``surrender``,
    ``both_fouled``, ``foul`` or ``showdown``. ``lines`` holds, for a showdown, +1/0/-1 per
    line from A's side. ``unit`` is the money value of one point for this pair.
    """

    a: str
    b: str
    a_player: str
    b_player: str
    points: int
    basis: str
    items: tuple[Item, ...]
    lines: tuple[int, int, int] | None
    unit: float

    @property
    def money(self) -> float:
        """What B pays A in money."""
        return self.points * self.unit

    def points_for(self, seat: str) -> int:
        """The result from ``seat``'s side."""
        return self.points if seat == self.a else -self.points


#: The fields of a :class:`Settlement`, in order.
SETTLEMENT_FIELDS = (
    "rules", "seats", "pairs", "totals", "seat_totals", "money", "fouled", "fantasyland",
)  # fmt: skip

#: What builds a settlement's seats and pairs when they are first read: a function, then
#: the arguments it is called with.
Breakdown = tuple[Any, ...]

#: Per pair of seats that settled, in the order of ``Settlement.pairs``: (A's player, B's
#: player, what B pays A).
PairPoints = tuple[tuple[str, str, int], ...]

_new = object.__new__


class Settlement:
    """A settled table.

    ``totals`` and ``money`` are per player (they sum to zero), ``seat_totals`` per seat,
    ``fouled`` names the seats that paid a foul, ``fantasyland`` gives each seat's next-hand
    Fantasyland deal (None if it does not qualify). ``to_dict()`` is the JSON contract of
    ``chinese-poker score --json``; ``render()`` the readable breakdown.

    It behaves as the named tuple it used to be (fields in :data:`SETTLEMENT_FIELDS`
    order: unpacking, indexing, equality, ``_asdict``, ``_replace``, pickling), but
    :func:`~chinese_poker.scoring.settle` leaves ``seats`` and ``pairs`` (the itemised
    breakdown) to be built the first time either is read, and on the tables the
    totals-only arithmetic settles, the other fields but ``totals`` too: most callers
    read the totals only, and the rest was most of a settlement's cost.
    """

    __slots__ = ("_later", "_values")
    _fields = SETTLEMENT_FIELDS
    _field_defaults: dict[str, Any] = {}  # noqa: RUF012  (the named tuple's attribute)
    __match_args__ = (
        "rules", "seats", "pairs", "totals", "seat_totals", "money", "fouled", "fantasyland",
    )  # fmt: skip
    # The eight fields, then the points per pair; a field not yet built is None.
    _values: tuple[Any, ...]
    # None once every field is built; else (the function building fields 4 to 7, or None
    # once they are; the function building the seats and pairs, or None; the function
    # telling the points per pair, or None; the arguments all three are called with).
    _later: tuple[Any, ...] | None

    def __init__(
        self,
        rules: Rules,
        seats: tuple[SeatResult, ...],
        pairs: tuple[PairResult, ...],
        totals: Mapping[str, int],
        seat_totals: Mapping[str, int],
        money: Mapping[str, float],
        fouled: tuple[str, ...],
        fantasyland: Mapping[str, int | None],
    ) -> None:
        self._values = (rules, seats, pairs, totals, seat_totals, money, fouled, fantasyland,
                        None)  # fmt: skip
        self._later = None

    @classmethod
    def deferred(
        cls,
        rules: Rules,
        totals: Mapping[str, int],
        seat_totals: Mapping[str, int],
        money: Mapping[str, float],
        fouled: tuple[str, ...],
        fantasyland: Mapping[str, int | None],
        breakdown: Breakdown,
        pair_points: PairPoints | None = None,
    ) -> Settlement:
        """A settlement whose ``seats`` and ``pairs`` are built when first read, by
        ``breakdown[0](*breakdown[1:])``."""
        self = _new(cls)
        self._values = (rules, None, None, totals, seat_totals, money, fouled, fantasyland,
                        pair_points)  # fmt: skip
        self._later = (None, breakdown[0], None, *breakdown[1:])
        return self

    def _filled(self, result: bool, breakdown: bool) -> tuple[Any, ...]:
        """The fields, those left for later built now: ``seat_totals``, ``money``,
        ``fouled`` and ``fantasyland`` if ``result``, ``seats`` and ``pairs`` if
        ``breakdown``."""
        values = self._values
        later = self._later
        if later is None:
            return values
        results, build = later[0], later[1]
        # The tuples spelt out: unpacking into them costs more than what they hold.
        if result and results is not None:
            seat_totals, money, fouled, fantasyland = results(*later[3:])
            values = (values[0], values[1], values[2], values[3], seat_totals, money, fouled,
                      fantasyland, values[8])  # fmt: skip
            results = None
        if breakdown and build is not None:
            seats, pairs = build(*later[3:])
            values = (values[0], seats, pairs, values[3], values[4], values[5], values[6],
                      values[7], values[8])  # fmt: skip
            build = None
        if values is not self._values:
            self._values = values
            self._later = (
                None if results is None and build is None else (results, build, *later[2:])
            )
        return values

    def _result(self) -> tuple[Any, ...]:
        """The fields, all but the breakdown built."""
        return self._values if self._later is None else self._filled(True, False)

    def _complete(self) -> tuple[Any, ...]:
        """The eight fields, the breakdown built if it was not yet."""
        return self._filled(True, True)[:8]

    @property
    def rules(self) -> Rules:
        return self._values[0]  # type: ignore[no-any-return]

    @property
    def seats(self) -> tuple[SeatResult, ...]:
        return self._filled(False, True)[1]  # type: ignore[no-any-return]

    @property
    def pairs(self) -> tuple[PairResult, ...]:
        return self._filled(False, True)[2]  # type: ignore[no-any-return]

    @property
    def totals(self) -> Mapping[str, int]:
        return self._values[3]  # type: ignore[no-any-return]

    @property
    def seat_totals(self) -> Mapping[str, int]:
        return self._result()[4]  # type: ignore[no-any-return]

    @property
    def money(self) -> Mapping[str, float]:
        return self._result()[5]  # type: ignore[no-any-return]

    @property
    def fouled(self) -> tuple[str, ...]:
        return self._result()[6]  # type: ignore[no-any-return]

    @property
    def fantasyland(self) -> Mapping[str, int | None]:
        return self._result()[7]  # type: ignore[no-any-return]

    # The named tuple's behaviour, kept for callers that unpack, index or compare.
    def __iter__(self) -> Iterator[Any]:
        return iter(self._complete())

    def __len__(self) -> int:
        return len(SETTLEMENT_FIELDS)

    def __getitem__(self, index: int | slice) -> Any:
        return self._complete()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Settlement):
            return self._complete() == other._complete()
        if isinstance(other, tuple):
            return self._complete() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # as the tuple was: its totals are dicts

    def __repr__(self) -> str:
        values = zip(SETTLEMENT_FIELDS, self._complete(), strict=True)
        return "Settlement(" + ", ".join(f"{name}={value!r}" for name, value in values) + ")"

    def __reduce__(self) -> tuple[type[Settlement], tuple[Any, ...]]:
        return Settlement, self._complete()

    @classmethod
    def _make(cls, iterable: Iterable[Any]) -> Settlement:
        return cls(*iterable)

    def _asdict(self) -> dict[str, Any]:
        return dict(zip(SETTLEMENT_FIELDS, self._complete(), strict=True))

    def _replace(self, **changes: Any) -> Settlement:
        values = self._asdict()
        unknown = [name for name in changes if name not in values]
        if unknown:
            raise ValueError(f"Got unexpected field names: {unknown!r}")
        values.update(changes)
        return Settlement(**values)

    @property
    def pair_points(self) -> PairPoints:
        """Per pair of seats that settled, in the order of :attr:`pairs`: (A's player,
        B's player, what B pays A), without building the breakdown where the settlement
        can tell them from its own arithmetic."""
        points: PairPoints | None = self._values[8]
        if points is None:
            later = self._later
            if later is not None and later[2] is not None:
                points = later[2](*later[3:])
            else:
                points = tuple([(p.a_player, p.b_player, p.points) for p in self.pairs])
            self._values = (*self._values[:8], points)
        return points

    def seat(self, name: str) -> SeatResult:
        """The seat called ``name``."""
        for seat in self.seats:
            if seat.name == name:
                return seat
        raise KeyError(name)

    def pair(self, a: str, b: str) -> PairResult:
        """The pair of seats ``a`` and ``b`` (either order; the result is still B pays A)."""
        for pair in self.pairs:
            if (pair.a, pair.b) == (a, b) or (pair.a, pair.b) == (b, a):
                return pair
        raise KeyError(f"{a}-{b}")

    def points_between(self, a: str, b: str) -> int:
        """What seat (or player) ``b`` pays ``a`` in total over their settlements."""
        total = 0
        for pair in self.pairs:
            if (a, b) in ((pair.a, pair.b), (pair.a_player, pair.b_player)):
                total += pair.points
            elif (b, a) in ((pair.a, pair.b), (pair.a_player, pair.b_player)):
                total -= pair.points
        return total

    def to_dict(self) -> dict[str, Any]:
        """The public JSON form (documented in docs/formats.md)."""
        from chinese_poker.scoring.render import settlement_dict

        return settlement_dict(self)

    def render(self) -> str:
        """A plain-text breakdown: each board, each pair item by item, the totals."""
        from chinese_poker.scoring.render import render

        return render(self)


def settled_later(rules: Rules, totals: Mapping[str, int], later: tuple[Any, ...]) -> Settlement:
    """A settlement of which only ``rules`` and ``totals`` are built (the totals-only
    path's result): ``later`` is (the function building ``seat_totals``, ``money``,
    ``fouled`` and ``fantasyland``, the one building ``seats`` and ``pairs``, the one
    telling :attr:`Settlement.pair_points`, then the arguments all three are called with).
    (A function, not a class method: that call would cost a tenth of a heads-up settle.)"""
    settlement: Settlement = _new(Settlement)
    settlement._values = (rules, None, None, totals, None, None, None, None, None)
    settlement._later = later
    return settlement
