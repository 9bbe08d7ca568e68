"""The breakdown's vocabulary: item kinds, the notes saying why, and their words.

An :class:`~chinese_poker.scoring.Item` carries a kind and a note; both are StrEnums, so
they equal (and print as) their codes (``item.note == "net"``) and the JSON keeps the
codes. The words for each (kind, note) live here and nowhere else.

>>> NOTE_TEXTS[ItemKind.ROYALTY, Note.NET]
'net'
>>> sorted({note for _, note in NOTE_TEXTS}) == sorted(Note)
True
"""

from __future__ import annotations

from typing import Final

from chinese_poker.rules import Option
from chinese_poker.scoring.results import Item, PairResult

__all__ = ["NOTE_TEXTS", "ItemKind", "Note", "item_text"]


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

#: The words of each (kind, note); ``{a}`` and ``{b}`` are the pair's two seats.
NOTE_TEXTS: Final[dict[tuple[str, str], str]] = {
    (_R, Note.NET): "net",
    (_R, Note.WINNER): "paid to the line's winner only",
    (_R, Note.WINNER_NONE): "the line's winner has none",
    (_R, Note.TIE): "line tied, nothing paid",
    (_R, Note.CANCEL): "both have one, cancelled",
    (_R, Note.BEST): "only the best at the table collects",
    (_R, Note.BEST_TIE): "both best at the table, nothing exchanged",
    (_R, Note.NOT_BEST): "neither is best at the table",
    (_R, Note.FOUL): "paid by the fouled board",
    (_N, Note.A): "{a}'s natural is paid",
    (_N, Note.B): "{b}'s natural is paid",
    (_N, Note.HIGHER): "the natural worth more is paid",
    (_N, Note.SAME_KIND): "same kind, the higher one is paid",
    (_N, Note.TIE): "same kind and equal, nothing paid",
    (_N, Note.CROSS_TIE): "different kinds of equal value tie",
    (_N, Note.ORDER): "the natural ranked higher is paid",
    (_S, Note.BOTH): "both surrendered: nothing to pay",
    (_S, Note.FOULED): "a surrendered hand and a fouled board exchange nothing",
    (_S, Note.A): "{a} surrendered: pays the surrender cost",
    (_S, Note.B): "{b} surrendered: pays the surrender cost",
    (_F, Note.BOTH): "both {a} and {b} fouled: nothing to pay",
    (_F, Note.SCOOP_VALUE): "the scoop value",
    (_F, Note.FIXED): "the fixed foul penalty",
}


def _note(kind: ItemKind, note: str, a: str, b: str) -> str:
    text = NOTE_TEXTS.get((kind, note))
    return note if text is None else text.format(a=a, b=b)


def item_text(pair: PairResult, item: Item) -> str:
    """What one item of ``pair`` is for, in words (the ``text`` of the JSON items).

    >>> from chinese_poker.cards import parse_board
    >>> from chinese_poker.rules import rules_for
    >>> from chinese_poker.scoring import Hand, settle
    >>> a = Hand(name="A", board=parse_board("Ah Qd 4c | Jh Js 9c 9d 2h | 7c 7d 7h 7s Kc"))
    >>> b = Hand(name="B", board=parse_board("Kd Jc 3h | Th Ts 8c 8d 5s | Qs 9s 6s 4s 3s"))
    >>> pair = settle(rules_for("ofc"), [a, b]).pairs[0]
    >>> item_text(pair, pair.items[-1])
    'bottom royalties: A 10 (Four sevens) against B 4 (Flush, queen high), net'
    """
    a, b = pair.a, pair.b
    kind, points = item.kind, item.points
    if kind == ItemKind.LINE:
        if points > 0:
            return f"{item.line}: {a} won ({item.a} vs {item.b})"
        if points < 0:
            return f"{item.line}: {b} won ({item.b} vs {item.a})"
        return f"{item.line}: tied ({item.a} vs {item.b})"
    if kind == ItemKind.OVERALL:
        who = a if points > 0 else b
        wins, _, losses = item.note.partition("-")
        score = f"{wins}-{losses}" if points > 0 else f"{losses}-{wins}"
        return f"overall unit: {who} won the lines {score}"
    if kind == ItemKind.SCOOP:
        return f"scoop bonus: {a if points > 0 else b} won all three lines"
    if kind == ItemKind.FOUL:
        if item.note == Note.BOTH:
            return _note(_F, item.note, a, b)
        fouled = b if points > 0 else a
        return f"{fouled} fouled: pays {_note(_F, item.note, a, b)}"
    if kind == ItemKind.ROYALTY:
        return _royalty_text(pair, item)
    if kind == ItemKind.NATURAL:
        a_nat = item.a.replace("_", " ") if item.a else "no natural"
        b_nat = item.b.replace("_", " ") if item.b else "no natural"
        return f"naturals: {a} {a_nat} against {b} {b_nat}, {_note(_N, item.note, a, b)}"
    if kind == ItemKind.SURRENDER:
        return _note(_S, item.note, a, b)
    return str(kind)


def _royalty_text(pair: PairResult, item: Item) -> str:
    a, b, points = pair.a, pair.b, item.points
    doubled = ", doubled by the Finnish deuce (2s)" if item.factor == 2 else ""
    if item.note == Note.FOUL:
        if points > 0:
            who, amount, hand = a, item.a_amount, item.a
        else:
            who, amount, hand = b, item.b_amount, item.b
        why = _note(_R, item.note, a, b)
        return f"{item.line} royalty: {who} {amount} ({hand}), {why}{doubled}"
    both = f"{a} {item.a_amount}" + (f" ({item.a})" if item.a_amount else "")
    both += f" against {b} {item.b_amount}" + (f" ({item.b})" if item.b_amount else "")
    return f"{item.line} royalties: {both}, {_note(_R, item.note, a, b)}{doubled}"
