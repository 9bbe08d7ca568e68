"""The breakdown's vocabulary: item kinds, the notes saying why, and their words.

An :class:`~chinese_poker.scoring.Item` carries a kind and a note; both are StrEnums, so
they equal (and print as) their codes (``item.note == "net"``) and the JSON keeps the
codes. The words for each (kind, note) and the sentences of the items are the catalogue's
(:mod:`chinese_poker.language`, the same the browser and the terminal read), built into
sentences here and nowhere else in Python.

>>> NOTE_TEXTS[ItemKind.ROYALTY, Note.NET]
'net'
>>> sorted({note for _, note in NOTE_TEXTS}) == sorted(Note)
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from chinese_poker.language import DEFAULT_LANGUAGE, text_in
from chinese_poker.rules import Option
from chinese_poker.scoring.results import Item, PairResult

__all__ = [
    "NOTE_KEYS",
    "NOTE_TEXTS",
    "HandWords",
    "ItemKind",
    "Note",
    "item_fields",
    "item_sentence",
    "item_text",
    "natural_name",
]


class ItemKind(Option):
    """What an item of a pair's breakdown pays for."""

    LINE = "line"
    OVERALL = "overall"
    SCOOP = "scoop"
    FOUL = "foul"
    ROYALTY = "royalty"
    NATURAL = "natural"
    SURRENDER = "surrender"


class Note(Option):
    """Why an item pays what it pays (the overall unit's note is a score such as ``2-1``)."""

    # royalties
    NET = "net"
    WINNER = "winner"
    WINNER_NONE = "winner_none"
    TIE = "tie"
    CANCEL = "cancel"
    BEST = "best"
    BEST_TIE = "best_tie"
    NOT_BEST = "not_best"
    FOUL = "foul"
    # naturals (and surrender: A or B surrendered, both did, one side fouled)
    A = "a"
    B = "b"
    HIGHER = "higher"
    SAME_KIND = "same_kind"
    CROSS_TIE = "cross_tie"
    ORDER = "order"
    BOTH = "both"
    FOULED = "fouled"
    # fouls
    SCOOP_VALUE = "scoop_value"
    FIXED = "fixed"


_R, _N, _S, _F = ItemKind.ROYALTY, ItemKind.NATURAL, ItemKind.SURRENDER, ItemKind.FOUL

#: The catalogue key of each (kind, note)'s words (chinese_poker.language).
NOTE_KEYS: Final[dict[tuple[str, str], str]] = {
    **{(_R, note): f"note.royalty.{note}" for note in (
        Note.NET, Note.WINNER, Note.WINNER_NONE, Note.TIE, Note.CANCEL, Note.BEST,
        Note.BEST_TIE, Note.NOT_BEST, Note.FOUL)},
    **{(_N, note): f"note.natural.{note}" for note in (
        Note.A, Note.B, Note.HIGHER, Note.SAME_KIND, Note.TIE, Note.CROSS_TIE, Note.ORDER)},
    **{(_S, note): f"note.surrender.{note}" for note in (
        Note.BOTH, Note.FOULED, Note.A, Note.B)},
    (_F, Note.BOTH): "item.foul_both",
    (_F, Note.SCOOP_VALUE): "note.foul.scoop_value",
    (_F, Note.FIXED): "note.foul.fixed",
}  # fmt: skip

#: The English words of each (kind, note); ``{a}`` and ``{b}`` are the pair's two seats.
NOTE_TEXTS: Final[dict[tuple[str, str], str]] = {
    kind_note: text_in(DEFAULT_LANGUAGE, key) for kind_note, key in NOTE_KEYS.items()
}

#: A seat's hand on a line in words, ``(seat, line) -> name`` ("" to use the item's own).
HandWords = Callable[[str, str], str]


def item_fields(item: Item) -> dict[str, Any]:
    """An item as data (the JSON items without their ``text``): what a client words."""
    out: dict[str, Any] = {"kind": str(item.kind), "points": item.points}
    if item.line:
        out["line"] = item.line
    if item.kind in (ItemKind.LINE, ItemKind.ROYALTY):
        out["a_hand"] = item.a or None
        out["b_hand"] = item.b or None
    if item.kind in (ItemKind.ROYALTY, ItemKind.NATURAL):
        out["a_amount"] = item.a_amount
        out["b_amount"] = item.b_amount
    if item.kind == ItemKind.NATURAL:
        out["a_natural"] = item.a or None
        out["b_natural"] = item.b or None
    if item.factor != 1:
        out["factor"] = item.factor
    if item.note:
        out["note"] = str(item.note)
    return out


def item_text(pair: PairResult, item: Item) -> str:
    """What one item of ``pair`` is for, in English words (the ``text`` of the JSON items).

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> from chinese_poker.scoring import Hand, settle
    >>> a = Hand(name="A", board=parse_board("Ah Qd 4c | Jh Js 9c 9d 2h | 7c 7d 7h 7s Kc"))
    >>> b = Hand(name="B", board=parse_board("Kd Jc 3h | Th Ts 8c 8d 5s | Qs 9s 6s 4s 3s"))
    >>> pair = settle(rules_for("ofc"), [a, b]).pairs[0]
    >>> item_text(pair, pair.items[-1])
    'bottom royalties: A 10 (Four sevens) against B 4 (Flush, queen high), net'
    """
    return item_sentence(pair.a, pair.b, item_fields(item))


@dataclass(frozen=True, slots=True)
class _Said:
    """One item as a sentence is built from it: the seats, its points and note, the line
    and each seat's hand on it in words."""

    lang: str
    a: str
    b: str
    item: Mapping[str, Any]
    line: str
    a_hand: str
    b_hand: str

    @property
    def points(self) -> Any:
        return self.item["points"]

    @property
    def note(self) -> str:
        return str(self.item.get("note", ""))

    @property
    def winner(self) -> str:
        return self.a if self.points > 0 else self.b

    def words(self, key: str, **values: Any) -> str:
        return text_in(self.lang, key, **values)

    def why(self, kind: str) -> str:
        key = NOTE_KEYS.get((kind, self.note))
        return self.note if key is None else self.words(key, a=self.a, b=self.b)


def item_sentence(
    a: str,
    b: str,
    item: Mapping[str, Any],
    *,
    lang: str = DEFAULT_LANGUAGE,
    hand: HandWords | None = None,
) -> str:
    """One item of the pair ``a``/``b`` (its :func:`item_fields`) as a sentence in
    ``lang``: the one place the settlement's sentences are built, from the catalogue's
    ``item.*`` and ``note.*`` words. ``hand`` names a seat's hand on a line in ``lang``
    (default: the item's own English names)."""
    line = str(item.get("line") or "")

    def hand_of(seat: str, own: Any) -> str:
        return (hand(seat, line) if hand and line else "") or own or ""

    said = _Said(
        lang,
        a,
        b,
        item,
        text_in(lang, f"line.{line}") if line else "",
        hand_of(a, item.get("a_hand")),
        hand_of(b, item.get("b_hand")),
    )
    build = _SENTENCES.get(str(item["kind"]))
    return build(said) if build else str(item["kind"])


def _line_sentence(s: _Said) -> str:
    if s.points > 0:
        return s.words("item.line_won", line=s.line, who=s.a, hand=s.a_hand, hand2=s.b_hand)
    if s.points < 0:
        return s.words("item.line_won", line=s.line, who=s.b, hand=s.b_hand, hand2=s.a_hand)
    return s.words("item.line_tied", line=s.line, hand=s.a_hand, hand2=s.b_hand)


def _overall_sentence(s: _Said) -> str:
    wins, _, losses = s.note.partition("-")
    score = f"{wins}-{losses}" if s.points > 0 else f"{losses}-{wins}"
    return s.words("item.overall", who=s.winner, score=score)


def _foul_sentence(s: _Said) -> str:
    if s.note == Note.BOTH:
        return s.why(_F)
    return s.words("item.foul", who=s.b if s.points > 0 else s.a, what=s.why(_F))


def _royalty_sentence(s: _Said) -> str:
    doubled = s.words("item.doubled") if s.item.get("factor") == 2 else ""
    a_amount, b_amount = s.item.get("a_amount"), s.item.get("b_amount")
    if s.note == Note.FOUL:
        who, amount, hand = (s.a, a_amount, s.a_hand) if s.points > 0 else (s.b, b_amount, s.b_hand)
        said = s.words(
            "item.royalty_foul", line=s.line, who=who, amount=amount, hand=hand, why=s.why(_R)
        )
        return said + doubled

    def side(who: str, amount: Any, hand: str) -> str:
        if not amount:
            return f"{who} {amount or 0}"
        return s.words("item.royalty_side", who=who, amount=amount, hand=hand)

    a_side, b_side = side(s.a, a_amount, s.a_hand), side(s.b, b_amount, s.b_hand)
    return s.words("item.royalties", line=s.line, a=a_side, b=b_side, why=s.why(_R)) + doubled


def natural_name(kind: str, lang: str = DEFAULT_LANGUAGE) -> str:
    """A natural's name ("six pairs") in ``lang``, or its code in words when unknown."""
    key = f"natural.{kind}"
    said = text_in(lang, key)
    return kind.replace("_", " ") if said == key else said


def _natural_sentence(s: _Said) -> str:
    def name(kind: Any) -> str:
        return natural_name(str(kind), s.lang) if kind else s.words("item.no_natural")

    a_natural, b_natural = name(s.item.get("a_natural")), name(s.item.get("b_natural"))
    return s.words(
        "item.naturals", a=s.a, b=s.b, a_natural=a_natural, b_natural=b_natural, why=s.why(_N)
    )


_SENTENCES: Final[dict[str, Callable[[_Said], str]]] = {
    ItemKind.LINE: _line_sentence,
    ItemKind.OVERALL: _overall_sentence,
    ItemKind.SCOOP: lambda s: s.words("item.scoop", who=s.winner),
    ItemKind.FOUL: _foul_sentence,
    ItemKind.ROYALTY: _royalty_sentence,
    ItemKind.NATURAL: _natural_sentence,
    ItemKind.SURRENDER: lambda s: s.why(_S),
}
