"""Actions and decisions: what a seat may do, as small frozen records.

Every action names the ``seat`` that makes it and the state ``version`` it was made
against (``None`` skips the staleness check, handy in scripts and tests). Cards are
ints (see :mod:`chinese_poker.cards`); ``to_dict()`` writes them by name, so the plain
JSON form is readable and stable.

* :class:`Place` -- one street of an open-face hand (place the street's cards, and in
  Pineapple discard one), or a whole 13-card set: a Fantasyland deal, a classic hand, or
  one of the two Criss Cross hands (``hand`` = 0 or 1).
* :class:`Surrender` -- classic: play (``surrender=False``) or surrender, in turn.
* :class:`ClaimNatural` -- classic with ``natural_claim = optional``: declare a natural.
* :class:`Timeout` -- the host's action when a seat's time runs out: the engine plays
  the rest of that seat's hand by RULES §10.

A :class:`Decision` describes one thing a seat must decide now: which cards it holds,
how many go to the board, how many are discarded and how much room each line has. The
functions at the bottom enumerate, count, sample and check placements for a decision;
the table (:mod:`chinese_poker.engine.table`) adds the turn and version checks.

>>> a = Place.parse(1, "Ah | Kd Kc | 5s 5d", version=0)
>>> a.to_dict()["top"], Place.from_dict(a.to_dict()) == a
(['Ah'], True)
>>> action_from_dict({"type": "surrender", "seat": 2, "surrender": True}).surrender
True
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from chinese_poker.cards import Card, card_name, cards_str, mask_of, parse_card, parse_cards

__all__ = [
    "Action",
    "ClaimNatural",
    "Decision",
    "DecisionKind",
    "IllegalActionError",
    "Place",
    "Surrender",
    "Timeout",
    "action_from_dict",
    "check_placement",
    "count_placements",
    "iter_placements",
    "sample_placement",
]

LINE_CAPACITY = (3, 5, 5)
LINE_WORDS = ("top", "middle", "bottom")


class IllegalActionError(ValueError):
    """An action that is not legal now. ``reason`` says why; the state is unchanged."""

    def __init__(self, reason: str, action: object = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.action = action


# --------------------------------------------------------------------------- card helpers


def _card_list(value: object, what: str) -> tuple[Card, ...]:
    """Cards from JSON: a list of names/ints, or a space-separated string."""
    if value is None:
        return ()
    if isinstance(value, str):
        return parse_cards(value, unique=False)
    if isinstance(value, list | tuple):
        out: list[Card] = []
        for item in value:
            if isinstance(item, bool):
                raise ValueError(f"bad card {item!r} in {what}")
            if isinstance(item, int):
                out.append(item)
            elif isinstance(item, str):
                out.append(parse_card(item))
            else:
                raise ValueError(f"bad card {item!r} in {what}")
        return tuple(out)
    raise ValueError(f"{what} must be a list of cards, not {type(value).__name__}")


_CARD_NAMES = tuple(card_name(c) for c in range(52))


def _names(cards: Sequence[Card]) -> list[str]:
    names = _CARD_NAMES  # a look-up for plain card numbers (the usual case)
    return [
        names[c]
        if type(c) is int and 0 <= c < 52
        else (card_name(c) if isinstance(c, int) and 0 <= c < 52 else str(c))
        for c in cards
    ]


def _int_field(data: Mapping[str, Any], key: str, default: int | None = None) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"action field {key!r} must be an integer, not {value!r}")
    return value


def _version_field(data: Mapping[str, Any]) -> int | None:
    value = data.get("version")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"action field 'version' must be an integer or null, not {value!r}")
    return value


def _bool_field(data: Mapping[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f"action field {key!r} must be true or false, not {value!r}")
    return value


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Place:
    """Place cards on the board: one street, or a whole 13-card set.

    ``top``, ``middle`` and ``bottom`` hold the cards added to each line now (in a set,
    the whole lines); ``discard`` the cards thrown face down (Pineapple streets, the
    extra cards of a Fantasyland deal). Order inside a line does not matter.

    >>> str(Place.parse(0, "| Qs Qc | 2d", discard="7h"))
    'seat 0 places middle Qs Qc, bottom 2d, discards 7h'
    """

    seat: int
    top: tuple[Card, ...] = ()
    middle: tuple[Card, ...] = ()
    bottom: tuple[Card, ...] = ()
    discard: tuple[Card, ...] = ()
    hand: int = 0
    version: int | None = field(default=None, compare=True)
    kind: ClassVar[str] = "place"

    @classmethod
    def parse(
        cls,
        seat: int,
        lines: str,
        *,
        discard: str = "",
        hand: int = 0,
        version: int | None = None,
    ) -> Place:
        """Build from text ``"top | middle | bottom"``; empty lines may be left blank."""
        parts = lines.split("|")
        if len(parts) != 3:
            raise ValueError(f"expected 'top | middle | bottom', got {lines!r}")
        top, middle, bottom = (parse_cards(p, unique=False) for p in parts)
        return cls(
            seat,
            top,
            middle,
            bottom,
            parse_cards(discard, unique=False),
            hand=hand,
            version=version,
        )

    @property
    def cards(self) -> tuple[Card, ...]:
        """Every card the action mentions: placed, then discarded."""
        return self.top + self.middle + self.bottom + self.discard

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "place",
            "seat": self.seat,
            "hand": self.hand,
            "version": self.version,
            "top": _names(self.top),
            "middle": _names(self.middle),
            "bottom": _names(self.bottom),
            "discard": _names(self.discard),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Place:
        return cls(
            _int_field(data, "seat"),
            _card_list(data.get("top"), "top"),
            _card_list(data.get("middle"), "middle"),
            _card_list(data.get("bottom"), "bottom"),
            _card_list(data.get("discard"), "discard"),
            hand=_int_field(data, "hand", 0),
            version=_version_field(data),
        )

    def __str__(self) -> str:
        parts = [
            f"{word} {cards_str(cards)}"
            for word, cards in zip(LINE_WORDS, (self.top, self.middle, self.bottom), strict=True)
            if cards
        ]
        text = f"seat {self.seat}{_hand_suffix(self.hand)} places " + (
            ", ".join(parts) or "nothing"
        )
        if self.discard:
            text += f", discards {cards_str(self.discard)}"
        return text


@dataclass(frozen=True, slots=True)
class Surrender:
    """Classic: after naturals are paid, each remaining hand plays (False) or surrenders."""

    seat: int
    surrender: bool = True
    hand: int = 0
    version: int | None = None
    kind: ClassVar[str] = "surrender"

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "surrender",
            "seat": self.seat,
            "hand": self.hand,
            "version": self.version,
            "surrender": self.surrender,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Surrender:
        return cls(
            _int_field(data, "seat"),
            _bool_field(data, "surrender", True),
            hand=_int_field(data, "hand", 0),
            version=_version_field(data),
        )

    def __str__(self) -> str:
        verb = "surrenders" if self.surrender else "plays"
        return f"seat {self.seat}{_hand_suffix(self.hand)} {verb}"


@dataclass(frozen=True, slots=True)
class ClaimNatural:
    """Classic with ``natural_claim = optional``: declare the natural (True) or play on."""

    seat: int
    claim: bool = True
    hand: int = 0
    version: int | None = None
    kind: ClassVar[str] = "claim_natural"

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "claim_natural",
            "seat": self.seat,
            "hand": self.hand,
            "version": self.version,
            "claim": self.claim,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ClaimNatural:
        return cls(
            _int_field(data, "seat"),
            _bool_field(data, "claim", True),
            hand=_int_field(data, "hand", 0),
            version=_version_field(data),
        )

    def __str__(self) -> str:
        verb = "declares a natural" if self.claim else "does not declare the natural"
        return f"seat {self.seat}{_hand_suffix(self.hand)} {verb}"


@dataclass(frozen=True, slots=True)
class Timeout:
    """The seat's time ran out: the engine plays the rest of its hand (RULES §10)."""

    seat: int
    version: int | None = None
    kind: ClassVar[str] = "timeout"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "timeout", "seat": self.seat, "version": self.version}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Timeout:
        return cls(_int_field(data, "seat"), version=_version_field(data))

    def __str__(self) -> str:
        return f"seat {self.seat} times out"


Action = Place | Surrender | ClaimNatural | Timeout
ACTION_TYPES: dict[str, type[Place] | type[Surrender] | type[ClaimNatural] | type[Timeout]] = {
    "place": Place,
    "surrender": Surrender,
    "claim_natural": ClaimNatural,
    "timeout": Timeout,
}


def action_from_dict(data: Mapping[str, Any]) -> Action:
    """Read any action from its ``to_dict()`` form (raises ``ValueError`` if malformed)."""
    if not isinstance(data, Mapping):
        raise ValueError(f"an action must be an object, not {type(data).__name__}")
    kind = data.get("type")
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown action type {kind!r}; known: {', '.join(ACTION_TYPES)}")
    return cls.from_dict(data)


def _hand_suffix(hand: int) -> str:
    return f" (hand {hand + 1})" if hand else ""


# --------------------------------------------------------------------------- decisions

DecisionKind = Literal["street", "set", "surrender", "natural"]


@dataclass(frozen=True, slots=True)
class Decision:
    """One choice a seat must make now.

    ``kind``: ``"street"`` (place an open-face street), ``"set"`` (a whole 13-card set:
    Fantasyland, classic, one Criss Cross hand), ``"surrender"`` or ``"natural"``.
    For placements: ``cards`` in the order dealt, ``place`` cards go to the board,
    ``discard`` cards are thrown, and ``free`` is the room left in (top, middle, bottom).
    ``street`` is 1-based (0 for a set or a declaration).
    """

    seat: int
    kind: DecisionKind
    hand: int = 0
    cards: tuple[Card, ...] = ()
    place: int = 0
    discard: int = 0
    free: tuple[int, int, int] = (0, 0, 0)
    street: int = 0
    mask: int = field(default=0, repr=False, compare=False)

    @property
    def held(self) -> int:
        """The bit mask of :attr:`cards`."""
        return self.mask or mask_of(self.cards)

    @property
    def is_placement(self) -> bool:
        return self.kind in ("street", "set")

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "kind": self.kind,
            "hand": self.hand,
            "cards": _names(self.cards),
            "place": self.place,
            "discard": self.discard,
            "free": list(self.free),
            "street": self.street,
        }


# --------------------------------------------------------------------------- placements
#
# A street places few cards (at most 5), so its placements are kept as cached "patterns":
# for each card in order, the line (0 top, 1 middle, 2 bottom) it goes to. A set places
# 13 cards into exactly 3/5/5 slots and is enumerated with combinations instead.

_PATTERNS: dict[tuple[int, int, int, int], tuple[tuple[int, ...], ...]] = {}


def patterns(n: int, free: tuple[int, int, int]) -> tuple[tuple[int, ...], ...]:
    """Every way to send ``n`` cards (in order) to lines with ``free`` room."""
    key = (n, free[0], free[1], free[2])
    found = _PATTERNS.get(key)
    if found is None:
        found = tuple(
            p
            for p in itertools.product((0, 1, 2), repeat=n)
            if p.count(0) <= free[0] and p.count(1) <= free[1] and p.count(2) <= free[2]
        )
        _PATTERNS[key] = found
    return found


def _line_splits(n: int, free: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    return [
        (t, m, n - t - m)
        for t in range(min(n, free[0]) + 1)
        for m in range(min(n - t, free[1]) + 1)
        if n - t - m <= free[2]
    ]


def count_placements(dec: Decision) -> int:
    """How many distinct placements a placement decision has.

    >>> count_placements(Decision(0, "street", cards=(0, 1, 2, 3, 4), place=5, free=(3, 5, 5)))
    232
    >>> count_placements(Decision(0, "set", cards=tuple(range(14)), place=13, discard=1,
    ...                           free=(3, 5, 5)))
    1009008
    """
    n = len(dec.cards)
    choose_discard = math.comb(n, dec.discard)
    ways = sum(
        math.factorial(dec.place) // (math.factorial(t) * math.factorial(m) * math.factorial(b))
        for t, m, b in _line_splits(dec.place, dec.free)
    )
    return choose_discard * ways


_SPLITS: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = {}


def _split(pattern: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The card positions going to the top, the middle and the bottom."""
    found = _SPLITS.get(pattern)
    if found is None:
        found = _SPLITS[pattern] = (
            tuple(i for i, line in enumerate(pattern) if line == 0),
            tuple(i for i, line in enumerate(pattern) if line == 1),
            tuple(i for i, line in enumerate(pattern) if line == 2),
        )
    return found


def _place(
    dec: Decision,
    kept: Sequence[Card],
    pattern: tuple[int, ...],
    thrown: tuple[Card, ...],
    version: int | None,
) -> Place:
    t, m, b = _split(pattern)
    return Place(
        dec.seat,
        tuple([kept[i] for i in t]),
        tuple([kept[i] for i in m]),
        tuple([kept[i] for i in b]),
        thrown,
        dec.hand,
        version,
    )


def iter_placements(dec: Decision, version: int | None = None) -> Iterator[Place]:
    """Every legal placement of a placement decision, lazily (a set has millions)."""
    cards = dec.cards
    for thrown in itertools.combinations(cards, dec.discard):
        gone = set(thrown)
        kept = [c for c in cards if c not in gone]
        if dec.kind == "street" and len(kept) <= 5:
            for pattern in patterns(len(kept), dec.free):
                yield _place(dec, kept, pattern, thrown, version)
            continue
        for t, m, _b in _line_splits(len(kept), dec.free):
            for top in itertools.combinations(kept, t):
                rest = [c for c in kept if c not in top]
                for middle in itertools.combinations(rest, m):
                    bottom = tuple(c for c in rest if c not in middle)
                    yield Place(dec.seat, top, middle, bottom, thrown, dec.hand, version)


def sample_placement(dec: Decision, rng: random.Random, version: int | None = None) -> Place:
    """A uniformly random legal placement, drawn without enumerating."""
    cards = dec.cards
    n = len(cards)
    if dec.kind == "street" and dec.place <= 5:
        thrown: tuple[Card, ...] = ()
        kept: Sequence[Card] = cards
        if dec.discard == 1:
            i = rng.randrange(n)
            thrown = (cards[i],)
            kept = cards[:i] + cards[i + 1 :]
        elif dec.discard:
            thrown_idx = sorted(rng.sample(range(n), dec.discard))
            thrown = tuple(cards[i] for i in thrown_idx)
            kept = [c for i, c in enumerate(cards) if i not in thrown_idx]
        pattern = rng.choice(patterns(len(kept), dec.free))
        return _place(dec, kept, pattern, thrown, version)
    # A set: a random order of the cards, cut into the line sizes, is uniform over sets.
    splits = _line_splits(dec.place, dec.free)
    fact = math.factorial
    weights = [fact(dec.place) // (fact(t) * fact(m) * fact(b)) for t, m, b in splits]
    t, m, b = splits[0] if len(splits) == 1 else rng.choices(splits, weights)[0]
    order = rng.sample(cards, n)
    return Place(
        dec.seat,
        tuple(order[:t]),
        tuple(order[t : t + m]),
        tuple(order[t + m : t + m + b]),
        tuple(order[t + m + b :]),
        dec.hand,
        version,
    )


def check_placement(dec: Decision, action: Place) -> str | None:
    """Why ``action`` does not fit ``dec`` (cards, counts, room), or None if it does."""
    top, middle, bottom, discard = action.top, action.middle, action.bottom, action.discard
    nt, nm, nb, nd = len(top), len(middle), len(bottom), len(discard)
    if nd != dec.discard:
        if dec.discard == 0:
            return f"nothing may be discarded here, but {nd} card(s) were"
        return f"exactly {dec.discard} card(s) must be discarded, not {nd}"
    if nt + nm + nb != dec.place:
        return f"exactly {dec.place} card(s) must be placed, not {nt + nm + nb}"
    ft, fm, fb = dec.free
    if nt > ft or nm > fm or nb > fb:
        for word, count, room in zip(LINE_WORDS, (nt, nm, nb), dec.free, strict=True):
            if count > room:
                return f"the {word} line has room for {room} more card(s), not {count}"
    # Fast path: the cards form exactly the held set (the counts match, so no repeats).
    mask = 0
    try:
        for line in (top, middle, bottom, discard):
            for card in line:
                if card.__class__ is not int:
                    return _card_problem(dec, action)
                mask |= 1 << card
    except ValueError:  # a negative "card"
        return _card_problem(dec, action)
    held = dec.mask or mask_of(dec.cards)
    if mask == held and nt + nm + nb + nd == len(dec.cards):
        return None
    return _card_problem(dec, action)


def _card_problem(dec: Decision, action: Place) -> str:
    """The message for cards that are not exactly the ones held."""
    mask = 0
    for card in action.cards:
        if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < 52:
            return f"{card!r} is not a card"
        bit = 1 << card
        if mask & bit:
            return f"{card_name(card)} appears twice in the action"
        mask |= bit
    held = dec.mask or mask_of(dec.cards)
    extra = mask & ~held
    if extra:
        card = (extra & -extra).bit_length() - 1
        return f"{card_name(card)} is not among the cards to play ({cards_str(dec.cards)})"
    missing = held & ~mask
    card = (missing & -missing).bit_length() - 1
    return f"{card_name(card)} must be placed or discarded"
