"""Rich rendering for the terminal game: boards, the hand being staged, showdowns, ledgers.

Everything here turns plain data (an engine :class:`~chinese_poker.engine.View`, a
:class:`~chinese_poker.terminal.commands.Staging`, a settlement's ``to_dict()`` form, a
ledger) into Rich renderables; nothing here reads input or changes state, so the game
loop decides *what* to show and this module only decides *how*.

Cards are written the way they are typed (``Ah``), coloured by suit: two colours by
default (red hearts and diamonds), four with ``four_color`` (blue diamonds, green
clubs). ``symbols`` writes the suits as ``♠ ♥ ♦ ♣`` instead. Staged (unconfirmed) cards
are shown in reverse video; empty slots as ``··``; face-down boards as ``▒▒``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from chinese_poker.cards import RANKS, Card, card_name
from chinese_poker.engine import BoardView, Decision, View
from chinese_poker.terminal.commands import DEST_NAMES, DISCARD, Staging, dest_word
from chinese_poker.terminal.i18n import N_, _, current_language, hand_name, ngettext, rank_word

__all__ = [
    "Theme",
    "board_table",
    "card_text",
    "events_text",
    "hand_panel",
    "header_text",
    "ledger_table",
    "line_word",
    "messages_text",
    "natural_word",
    "player_cards",
    "settlement_view",
    "showdown_summary",
]

_LINE_SIZES = (3, 5, 5)
_LINE_LABELS = (N_("Top"), N_("Middle"), N_("Bottom"))
_NATURALS = {
    "dragon": N_("dragon"),
    "six_pairs": N_("six pairs"),
    "three_flushes": N_("three flushes"),
    "three_straights": N_("three straights"),
}


def line_word(name: str) -> str:
    """A line's name (``"top"``, ``"middle"``, ``"bottom"``) as a word."""
    return dest_word(DEST_NAMES.index(name)) if name in DEST_NAMES else name


def natural_word(kind: str | None) -> str:
    """A natural's name ("six pairs"), or "a natural" when it is not known."""
    if not kind:
        return _("a natural")
    return _(_NATURALS[kind]) if kind in _NATURALS else kind.replace("_", " ")


def player_cards(player: str, n: int) -> str:
    """``Ann (14 cards)``: a player and the size of a Fantasyland deal."""
    return ngettext("{player} ({n} card)", "{player} ({n} cards)", n).format(player=player, n=n)


def _line_hand(line: Mapping[str, Any]) -> str:
    """A settlement line's hand name: the scorer's words in English, the value's name in
    another language (a low middle keeps the scorer's words: it is named by its low)."""
    hand = str(line.get("hand", ""))
    if current_language() == "en" or hand.lower().startswith("low") or "value" not in line:
        return hand
    return hand_name(int(line["value"]))


@dataclass(frozen=True, slots=True)
class Theme:
    """How cards and markers look.

    ``unicode`` false falls back to ASCII glyphs for terminals that cannot show the
    block and arrow characters (the game picks it from the console's encoding).
    """

    four_color: bool = False
    symbols: bool = False
    unicode: bool = True

    def suit_style(self, suit: int) -> str:
        # Spades keep the terminal's own foreground so they read on dark and light themes.
        if self.four_color:
            return ("bold", "bold red", "bold blue", "bold green")[suit]
        return ("bold", "bold red", "bold red", "bold")[suit]

    @property
    def empty(self) -> str:
        return "··" if self.unicode else ".."

    @property
    def hidden(self) -> str:
        return "▒▒" if self.unicode else "##"

    @property
    def turn(self) -> str:
        return "▶" if self.unicode else ">"

    @property
    def dot(self) -> str:
        return "·" if self.unicode else "-"


_SYMBOLS = "♠♥♦♣"


def card_label(card: Card, theme: Theme) -> str:
    """The card's two characters: ``Ah`` (or ``A♥`` with ``symbols``)."""
    if theme.symbols and theme.unicode:
        return RANKS[card >> 2] + _SYMBOLS[card & 3]
    return card_name(card)


def card_text(card: Card, theme: Theme, *, staged: bool = False) -> Text:
    """One coloured card; staged cards in reverse video."""
    style = theme.suit_style(card & 3)
    if staged:
        style += " reverse"
    return Text(card_label(card, theme), style=style)


def cards_text(cards: Sequence[Card], theme: Theme, *, staged: Sequence[Card] = ()) -> Text:
    """Cards separated by spaces."""
    out = Text()
    for i, card in enumerate(cards):
        if i:
            out.append(" ")
        out.append_text(card_text(card, theme, staged=card in staged))
    return out


def line_text(
    cards: Sequence[Card], size: int, theme: Theme, *, staged: Sequence[Card] = ()
) -> Text:
    """A line with its empty slots shown."""
    out = cards_text(cards, theme, staged=staged)
    for i in range(len(cards), size):
        if i:
            out.append(" ")
        out.append(theme.empty, style="dim")
    return out


def _hidden_line(size: int, theme: Theme) -> Text:
    return Text(" ".join([theme.hidden] * size), style="dim")


# --------------------------------------------------------------------------- the table


def header_text(view: View, title: str, hand_number: int, theme: Theme) -> Text:
    """One line: the rules, hand number, street, button and Fantasyland players."""
    rules = view.rules
    sep = f"  {theme.dot}  "
    out = Text()
    out.append(title, style="bold cyan")
    out.append(sep + _("hand {n}").format(n=hand_number))
    if rules.is_open_face:
        if view.street:
            out.append(sep + _("street {n}/{of}").format(n=view.street, of=len(rules.streets)))
        elif not view.over:
            out.append(sep + _("Fantasyland sets"))
    elif view.phase == "play":
        out.append(sep + _("setting hands"))
    elif view.phase in ("naturals", "surrender"):
        out.append(sep + _("declarations"))
    if view.over:
        out.append(sep + _("showdown"), style="bold")
    out.append(sep + _("button {player}").format(player=view.players[view.button]))
    if view.fantasyland:
        names = ", ".join(f"{view.players[s]} ({_fl_cards(view, s)})" for s in view.fantasyland)
        out.append(sep + _("Fantasyland: {players}").format(players=names), style="magenta")
    return out


def _fl_cards(view: View, seat: int) -> int:
    for b in view.boards:
        if b.seat == seat:
            return b.fantasyland_cards
    return 0


def _notes(view: View, b: BoardView, human: int | None) -> Text:
    notes = Text()

    def add(text: str, style: str = "") -> None:
        if notes:
            notes.append(", ")
        notes.append(text, style=style)

    if b.in_fantasyland:
        add(_("Fantasyland {n}").format(n=b.fantasyland_cards), "magenta")
    if b.hidden:
        add(_("set, face down") if b.is_set else _("face down"), "dim")
    elif not view.over and view.rules.is_open_face and b.seat != human:
        add(f"{b.placed}/13")
    if b.discarded and b.seat != human:
        add(_("{n} discarded").format(n=b.discarded), "dim")
    if b.natural:
        add(_("natural: {natural}").format(natural=natural_word(b.natural)), "bold yellow")
    if b.natural_claim is False:
        add(_("plays the board"))
    if b.surrendered is True:
        add(_("surrendered"), "yellow")
    elif b.surrendered is False:
        add(_("plays"))
    return notes


def board_table(
    view: View,
    theme: Theme,
    *,
    human: int | None,
    staging: Staging | None = None,
) -> Table:
    """Every seat's board, one row per board (two per player in Criss Cross).

    The acting seats are marked with an arrow, the button with ``(D)``. The human's
    board includes the staged cards (reverse video) of the decision being made.
    """
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), show_edge=False)
    table.add_column("", width=1, no_wrap=True)
    table.add_column(_("Player"), no_wrap=True, max_width=18)
    for label, size in zip(_LINE_LABELS, _LINE_SIZES, strict=True):
        table.add_column(_(label), no_wrap=True, min_width=3 * size - 1)
    table.add_column("", overflow="fold")
    criss_cross = view.rules.spec.variant.criss_cross
    for b in view.boards:
        acting = b.seat in view.to_act and not view.over
        marker = Text(theme.turn, style="bold yellow") if acting else Text("")
        name = Text(b.player, style="bold" if b.seat == human else "")
        if criss_cross:
            name.append(f" {theme.dot}{b.hand + 1}")
        if b.seat == view.button:
            name.append(" (D)", style="cyan")
        lines: list[Text]
        if b.hidden:
            lines = [_hidden_line(size, theme) for size in _LINE_SIZES]
        else:
            board = b.board
            staged: tuple[Card, ...] = ()
            if staging is not None and staging.decision.hand == b.hand and b.seat == human:
                board = staging.lines()
                staged = tuple(c for c, d in staging.staged if d != DISCARD)
            lines = [
                line_text(cards, size, theme, staged=staged)
                for cards, size in zip(board.lines, _LINE_SIZES, strict=True)
            ]
        table.add_row(marker, name, *lines, _notes(view, b, human))
    return table


def _decision_title(dec: Decision, criss_cross: bool) -> str:
    which = _(" (hand {n})").format(n=dec.hand + 1) if criss_cross else ""
    if dec.kind == "street":
        if dec.discard:
            return _("Your cards{which}, street {street}: place {place}, discard {n}").format(
                which=which, street=dec.street, place=dec.place, n=dec.discard
            )
        return _("Your cards{which}, street {street}: place {place}").format(
            which=which, street=dec.street, place=dec.place
        )
    if dec.discard:
        return _("Your {count} cards{which}: set 13, discard {n}").format(
            count=len(dec.cards), which=which, n=dec.discard
        )
    return _("Your 13 cards{which}: set top 3, middle 5, bottom 5").format(which=which)


def hand_panel(
    staging: Staging, theme: Theme, *, criss_cross: bool, discards: Sequence[Card] = ()
) -> Text:
    """The cards of the decision in the order dealt, each with where it is staged."""
    dec = staging.decision
    out = Text()
    out.append(_decision_title(dec, criss_cross), style="bold")
    out.append(":  ")
    for i, card in enumerate(staging.cards):
        if i:
            out.append("  ")
        dest = staging.dest_of(card)
        out.append_text(card_text(card, theme, staged=dest is not None))
        if dest is not None:
            out.append(f"→{'tmbx'[dest]}" if theme.unicode else f">{'tmbx'[dest]}", style="dim")
    left = staging.unstaged()
    out.append("\n")
    if left:
        out.append(_("To do: {what}").format(what=staging.todo()), style="dim")
    else:
        out.append(_("All cards staged: Enter confirms, u undoes"), style="green")
    if staging.count(DISCARD):
        out.append("   " + _("discard:") + " ")
        out.append_text(cards_text(staging.staged_in(DISCARD), theme))
    if discards:
        out.append("   " + _("your earlier discards:") + " ")
        out.append_text(cards_text(discards, theme))
    return out


def line_info_text(infos: Sequence[tuple[int, str, int]]) -> Text:
    """Complete lines: ``(line, hand name, royalty)`` -> one line of text."""
    out = Text()
    for line, name, royalty in infos:
        if out:
            out.append("   ")
        out.append(f"{dest_word(line)}: ", style="dim")
        out.append(name)
        if royalty:
            out.append(f" +{royalty}", style="bold green")
    return out


def messages_text(messages: Sequence[tuple[str, str]]) -> Text:
    """Messages as ``(kind, text)``; kind is ``error``, ``warn``, ``info`` or ``good``."""
    styles = {"error": "bold red", "warn": "bold yellow", "info": "", "good": "green"}
    marks = {"error": "✗ ", "warn": "⚠ ", "info": "", "good": ""}
    out = Text()
    for kind, text in messages:
        if out:
            out.append("\n")
        out.append(marks.get(kind, "") + text, style=styles.get(kind, ""))
    return out


def events_text(events: Sequence[str], limit: int = 6) -> Text:
    """The last few things that happened at the table."""
    out = Text(style="dim")
    for event in events[-limit:]:
        if out:
            out.append("\n")
        out.append(event)
    return out


# --------------------------------------------------------------------------- showdown


# The breakdown's notes by code (chinese_poker.scoring.notes): the scorer's English words
# are the msgids, so English shows the scorer's own text and another language its own.
_ROYALTY_NOTES = {
    "net": N_("net"),
    "winner": N_("paid to the line's winner only"),
    "winner_none": N_("the line's winner has none"),
    "tie": N_("line tied, nothing paid"),
    "cancel": N_("both have one, cancelled"),
    "best": N_("only the best at the table collects"),
    "best_tie": N_("both best at the table, nothing exchanged"),
    "not_best": N_("neither is best at the table"),
    "foul": N_("paid by the fouled board"),
}
_NATURAL_NOTES = {
    "a": N_("{a}'s natural is paid"),
    "b": N_("{b}'s natural is paid"),
    "higher": N_("the natural worth more is paid"),
    "same_kind": N_("same kind, the higher one is paid"),
    "tie": N_("same kind and equal, nothing paid"),
    "cross_tie": N_("different kinds of equal value tie"),
    "order": N_("the natural ranked higher is paid"),
}
_SURRENDER_NOTES = {
    "both": N_("both surrendered: nothing to pay"),
    "fouled": N_("a surrendered hand and a fouled board exchange nothing"),
    "a": N_("{a} surrendered: pays the surrender cost"),
    "b": N_("{b} surrendered: pays the surrender cost"),
}
_FOUL_NOTES = {"scoop_value": N_("the scoop value"), "fixed": N_("the fixed foul penalty")}

HandOf = Callable[[str, str], str]


def _hand_of(data: Mapping[str, Any]) -> HandOf:
    """``hand(seat name, line)``: that seat's hand on that line, in the current language."""
    lines = {
        (seat["name"], line["line"]): line
        for seat in data["players"]
        for line in seat.get("lines") or []
    }
    return lambda seat, line: _line_hand(lines[seat, line]) if (seat, line) in lines else ""


def _note(table: Mapping[str, str], note: str, a: str, b: str) -> str:
    return _(table[note]).format(a=a, b=b) if note in table else note


def item_text(pair: Mapping[str, Any], item: Mapping[str, Any], hand: HandOf) -> str:
    """One item of a pair's breakdown in words: the scorer's own text in English, the
    same sentence built from the item's kind and note in another language."""
    if current_language() == "en" or "kind" not in item:
        return str(item.get("text", item.get("kind", "")))
    a, b, points, kind = pair["a"], pair["b"], item["points"], item["kind"]
    note = str(item.get("note", ""))
    line = line_word(item["line"]) if item.get("line") else ""
    ha = (hand(a, item["line"]) if item.get("line") else "") or item.get("a_hand") or ""
    hb = (hand(b, item["line"]) if item.get("line") else "") or item.get("b_hand") or ""
    if kind == "line":
        if points > 0:
            return _("{line}: {who} won ({hand} vs {hand2})").format(
                line=line, who=a, hand=ha, hand2=hb
            )
        if points < 0:
            return _("{line}: {who} won ({hand} vs {hand2})").format(
                line=line, who=b, hand=hb, hand2=ha
            )
        return _("{line}: tied ({hand} vs {hand2})").format(line=line, hand=ha, hand2=hb)
    if kind == "overall":
        wins, _sep, losses = note.partition("-")
        score = f"{wins}-{losses}" if points > 0 else f"{losses}-{wins}"
        return _("overall unit: {who} won the lines {score}").format(
            who=a if points > 0 else b, score=score
        )
    if kind == "scoop":
        return _("scoop bonus: {who} won all three lines").format(who=a if points > 0 else b)
    if kind == "foul":
        if note == "both":
            return _("both {a} and {b} fouled: nothing to pay").format(a=a, b=b)
        return _("{who} fouled: pays {what}").format(
            who=b if points > 0 else a, what=_note(_FOUL_NOTES, note, a, b)
        )
    if kind == "royalty":
        doubled = _(", doubled by the Finnish deuce (2s)") if item.get("factor") == 2 else ""
        why = _note(_ROYALTY_NOTES, note, a, b)
        if note == "foul":
            who, amount, h = (
                (a, item.get("a_amount"), ha) if points > 0 else (b, item.get("b_amount"), hb)
            )
            return (
                _("{line} royalty: {who} {amount} ({hand}), {why}").format(
                    line=line, who=who, amount=amount, hand=h, why=why
                )
                + doubled
            )

        def side(who: str, amount: Any, h: str) -> str:
            return f"{who} {amount} ({h})" if amount else f"{who} {amount or 0}"

        return (
            _("{line} royalties: {a} against {b}, {why}").format(
                line=line,
                a=side(a, item.get("a_amount"), ha),
                b=side(b, item.get("b_amount"), hb),
                why=why,
            )
            + doubled
        )
    if kind == "natural":

        def nat(k: Any) -> str:
            return natural_word(str(k)) if k else _("no natural")

        return _("naturals: {a} {a_natural} against {b} {b_natural}, {why}").format(
            a=a,
            b=b,
            a_natural=nat(item.get("a_natural")),
            b_natural=nat(item.get("b_natural")),
            why=_note(_NATURAL_NOTES, note, a, b),
        )
    if kind == "surrender":
        return _note(_SURRENDER_NOTES, note, a, b)
    return str(item.get("text", kind))


def _foul_reason(seat: Mapping[str, Any]) -> str:
    """Why a seat fouled, in the current language, from the reason's data
    (``scoring.FoulReason.as_dict``): which line beats which, or the low middle's ceiling."""
    reason = str(seat.get("foul_reason") or "")
    foul = seat.get("foul")
    if current_language() == "en" or not foul:
        return reason
    lines = {line["line"]: line for line in seat.get("lines") or []}
    if foul["kind"] == "beats" and foul["line"] in lines and foul["below"] in lines:
        return _("{line} ({hand}) beats {below} ({hand2})").format(
            line=line_word(foul["line"]),
            hand=_line_hand(lines[foul["line"]]),
            below=line_word(foul["below"]),
            hand2=_line_hand(lines[foul["below"]]),
        )
    if foul["kind"] == "low_middle" and foul.get("ceiling") in tuple(RANKS):
        return _(
            "the low middle must be {rank}-high or better with no pair, straight or flush"
        ).format(rank=rank_word(RANKS.index(foul["ceiling"])))
    return reason


def _signed(points: float) -> str:
    if isinstance(points, float) and not points.is_integer():
        return f"{points:+,.2f}"
    return f"{int(points):+d}" if points else "0"


def _card_list(text: str) -> list[Card]:
    from chinese_poker.cards import parse_cards

    return list(parse_cards(text)) if text else []


def settlement_view(
    data: Mapping[str, Any], theme: Theme, *, money: bool, focus: str | None = None
) -> RenderableType:
    """The scoring breakdown of a settlement's ``to_dict()``: boards, pairs, totals.

    Pairs involving the player ``focus`` are itemised; the others get one line each, so
    a four-player breakdown still fits on a screen. Other players' surrendered hands stay
    face down.
    """
    boards = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    boards.add_column(_("Player"), no_wrap=True)
    boards.add_column(_("Line"), no_wrap=True)
    boards.add_column(_("Cards"), no_wrap=True)
    boards.add_column(_("Hand"), overflow="fold")
    boards.add_column(_("Roy."), justify="right", no_wrap=True)
    for seat in data["players"]:
        notes: list[tuple[str, str]] = []
        if seat.get("natural"):
            nat = seat["natural"]
            notes.append(
                (
                    _("natural: {natural} (worth {value})").format(
                        natural=natural_word(nat["kind"]), value=nat["value"]
                    ),
                    "bold yellow",
                )
            )
        if seat.get("surrendered"):
            notes.append((_("surrendered"), "yellow"))
        if seat.get("foul_reason"):
            label = _("FOULED") if seat.get("fouled") else _("mis-set, not penalised")
            notes.append((f"{label}: {_foul_reason(seat)}", "bold red"))
        if seat.get("fantasyland"):
            fl = (
                _("stays in Fantasyland ({n} cards)")
                if seat.get("in_fantasyland")
                else _("earns Fantasyland ({n} cards)")
            )
            notes.append((fl.format(n=seat["fantasyland"]), "magenta"))
        pts = seat.get("points", 0)
        names = [
            Text(seat["name"], style="bold"),
            Text(_("{points} pts").format(points=_signed(pts)), style=_points_style(pts)),
        ]
        lines = seat.get("lines") or []
        if seat.get("surrendered") and focus is not None and seat.get("player") != focus:
            # A surrendered hand is folded face down; the person has no right to see it.
            lines = []
        rows: list[list[RenderableType]] = []
        if not lines:
            rows.append(["", Text(_("(not shown)"), style="dim"), "", ""])
        for line in lines:
            roy = line.get("royalty", 0)
            rows.append(
                [
                    line_word(line["line"]),
                    cards_text(_card_list(line["cards"]), theme),
                    _line_hand(line),
                    Text(f"+{roy}", style="green") if roy else Text(""),
                ]
            )
        rows.extend(["", "", Text(note, style=style), ""] for note, style in notes)
        while len(rows) < len(names):
            rows.append(["", "", "", ""])
        for i, row in enumerate(rows):
            name = names[i] if i < len(names) else Text("")
            boards.add_row(name, *row, end_section=i == len(rows) - 1)

    pairs = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    pairs.add_column(_("Pts"), justify="right", no_wrap=True)
    pairs.add_column(_("Pair by pair (each item: what the second pays the first)"), overflow="fold")
    for pair in data["pairs"]:
        pts = pair["points"]
        who = pair["a"] if pts > 0 else pair["b"]
        head = _("{a} vs {b}: ").format(a=pair["a"], b=pair["b"]) + (
            f"{who} +{abs(pts)}" if pts else _("even")
        )
        items = pair["items"]
        if focus is not None and focus not in (pair["a_player"], pair["b_player"]):
            items = []
        pairs.add_row("", Text(head, style="bold"), end_section=not items)
        for i, item in enumerate(items):
            text = item_text(pair, item, _hand_of(data))
            pairs.add_row(_signed(item["points"]), text, end_section=i == len(items) - 1)

    return Group(boards, pairs, _totals_text(data, money))


_SHORT_LINES = {"top": N_("top"), "middle": N_("mid"), "bottom": N_("bot")}
_KIND_WORDS = {
    "overall": N_("overall"),
    "scoop": N_("scoop"),
    "foul": N_("foul"),
    "natural": N_("natural"),
    "surrender": N_("surrender"),
}


def _item_label(item: Mapping[str, Any]) -> str:
    """A pair's item in a word or two, for the one-line pairs of the summary."""
    raw = str(item.get("line"))
    line = _(_SHORT_LINES[raw]) if raw in _SHORT_LINES else raw
    if item["kind"] == "line":
        return line
    if item["kind"] == "royalty":
        return _("roy. {line}").format(line=line)
    kind = str(item["kind"])
    return _(_KIND_WORDS[kind]) if kind in _KIND_WORDS else kind


def showdown_summary(
    data: Mapping[str, Any],
    theme: Theme,
    *,
    money: bool,
    focus: str | None = None,
    hands: bool = True,
) -> RenderableType:
    """The showdown in about one line per board and per pair, for small screens.

    The same facts as :func:`settlement_view` in less room: every board on one row
    (points, cards, royalties, a short note), the hands of ``focus`` and why a board
    fouled, each pair on one line (``focus``'s pairs from ``focus``'s side, with its
    items as words and points), and the hand's totals. Four players fit on 80x24;
    ``hands=False`` leaves out the names of ``focus``'s hands to save two more lines.
    """
    boards = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    boards.add_column(_("Player"), no_wrap=True)
    boards.add_column(_("Pts"), justify="right", no_wrap=True)
    for name in _LINE_LABELS:
        boards.add_column(_(name), no_wrap=True)
    boards.add_column(_("Roy."), justify="right", no_wrap=True)
    boards.add_column("", overflow="fold")
    details: list[Text] = []
    for seat in data["players"]:
        lines = seat.get("lines") or []
        hidden = seat.get("surrendered") and focus is not None and seat.get("player") != focus
        cells: list[RenderableType] = [Text(_("(not shown)"), style="dim"), "", ""]
        if lines and not hidden:
            cells = [cards_text(_card_list(line["cards"]), theme) for line in lines]
        roy = sum(line.get("royalty", 0) for line in lines) if not hidden else 0
        notes: list[tuple[str, str]] = []
        if seat.get("natural"):
            natural = natural_word(seat["natural"]["kind"])
            notes.append((_("natural: {natural}").format(natural=natural), "bold yellow"))
        if seat.get("surrendered"):
            notes.append((_("surrendered"), "yellow"))
        if seat.get("foul_reason"):
            notes.append((_("FOULED") if seat.get("fouled") else _("mis-set"), "bold red"))
        if seat.get("fantasyland"):
            fl = _("stays in FL ({n})") if seat.get("in_fantasyland") else _("earns FL ({n})")
            notes.append((fl.format(n=seat["fantasyland"]), "magenta"))
        note = Text()
        for i, (words, style) in enumerate(notes):
            note.append(", " if i else "")
            note.append(words, style=style)
        pts = seat.get("points", 0)
        boards.add_row(
            Text(seat["name"], style="bold"),
            Text(_signed(pts), style=_points_style(pts)),
            *cells,
            Text(f"+{roy}", style="green") if roy else "",
            note,
        )
        if focus is not None and seat.get("player") == focus:
            if lines and not hidden and hands:
                details.append(
                    Text(f"{seat['name']}: ", style="bold").append(
                        " · ".join(
                            f"{line_word(line['line'])} {_line_hand(line)}" for line in lines
                        )
                    )
                )
            if seat.get("foul_reason"):
                label = _("fouled") if seat.get("fouled") else _("mis-set, not penalised")
                details.append(Text(f"{seat['name']} {label}: {_foul_reason(seat)}", "red"))
    pairs = Text()
    for pair in data["pairs"]:
        pts, items = pair["points"], pair["items"]
        first, second = pair["a"], pair["b"]
        sign = 1
        if focus is not None and pair["b_player"] == focus and pair["a_player"] != focus:
            first, second, sign = second, first, -1
        mine = focus is None or focus in (pair["a_player"], pair["b_player"])
        if pairs:
            pairs.append("\n")
        pairs.append(_("{a} vs {b}: ").format(a=first, b=second), style="bold")
        if not mine:  # as in the full breakdown: who gets how much
            who = pair["a"] if pts > 0 else pair["b"]
            pairs.append(f"{who} +{abs(pts)}" if pts else _("even"), style="bold")
            continue
        pairs.append(
            _signed(sign * pts) if pts else _("even"), style="bold " + _points_style(sign * pts)
        )
        if items:
            words = ", ".join(f"{_item_label(i)} {_signed(sign * i['points'])}" for i in items)
            pairs.append(f"  ({words})", style="dim")
    return Group(boards, *details, pairs, _totals_text(data, money))


def _totals_text(data: Mapping[str, Any], money: bool) -> Text:
    totals = Text(_("Hand totals:") + " ", style="bold")
    for i, (player, pts) in enumerate(data["totals"].items()):
        if i:
            totals.append("   ")
        totals.append(f"{player} ")
        totals.append(_signed(pts), style="bold " + _points_style(pts))
        if money:
            totals.append(f" ({_signed(data['money'][player])})")
    return totals


def _points_style(points: float) -> str:
    return "green" if points > 0 else "red" if points < 0 else ""


def ledger_table(
    points: Mapping[str, int],
    money: Mapping[str, float] | None,
    *,
    hands: int,
    title: str | None = None,
) -> Table:
    """Points (and money, when points are worth something else than 1) per player."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    count = ngettext("{n} hand", "{n} hands", hands).format(n=hands)
    table.add_column(f"{title or _('Session ledger')} ({count})", no_wrap=True)
    table.add_column(_("Points"), justify="right", no_wrap=True)
    if money is not None:
        table.add_column(_("Money"), justify="right", no_wrap=True)
    for player, pts in points.items():
        style = "green" if pts > 0 else "red" if pts < 0 else ""
        row: list[RenderableType] = [player, Text(_signed(pts), style=style)]
        if money is not None:
            row.append(Text(_signed(money[player]), style=style))
        table.add_row(*row)
    return table


def ledger_line(points: Mapping[str, int]) -> Text:
    """The running points on one line for the header."""
    out = Text(_("session:") + " ", style="dim")
    for i, (player, pts) in enumerate(points.items()):
        if i:
            out.append("  ")
        out.append(f"{player} ")
        out.append(_signed(pts), style="green" if pts > 0 else "red" if pts < 0 else "")
    return out


def help_panel(text: str) -> Panel:
    return Panel(Text(text), title=_("help"), title_align="left", border_style="cyan", expand=False)
