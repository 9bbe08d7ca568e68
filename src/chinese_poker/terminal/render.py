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
from chinese_poker.language import current_language, hand_name, rank_word, t
from chinese_poker.scoring.notes import item_sentence, natural_name
from chinese_poker.terminal.commands import DEST_NAMES, DISCARD, Staging, dest_word

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
_LINE_LABELS = ("term.top", "term.middle", "term.bottom")


def line_word(name: str) -> str:
    """A line's name (``"top"``, ``"middle"``, ``"bottom"``) as a word."""
    return dest_word(DEST_NAMES.index(name)) if name in DEST_NAMES else name


def natural_word(kind: str | None) -> str:
    """A natural's name ("six pairs"), or "a natural" when it is not known."""
    if not kind:
        return t("term.a_natural")
    return natural_name(kind, current_language())


def player_cards(player: str, n: int) -> str:
    """``Ann (14 cards)``: a player and the size of a Fantasyland deal."""
    return t("term.player_n_cards", player=player, n=n)


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
    out.append(sep + t("board.hand_n", n=hand_number))
    if rules.is_open_face:
        if view.street:
            out.append(sep + t("term.street_n_of", n=view.street, of=len(rules.streets)))
        elif not view.over:
            out.append(sep + t("term.fantasyland_sets"))
    elif view.phase == "play":
        out.append(sep + t("term.setting_hands"))
    elif view.phase in ("naturals", "surrender"):
        out.append(sep + t("term.declarations"))
    if view.over:
        out.append(sep + t("phase.showdown"), style="bold")
    out.append(sep + t("term.button_player", player=view.players[view.button]))
    if view.fantasyland:
        names = ", ".join(f"{view.players[s]} ({_fl_cards(view, s)})" for s in view.fantasyland)
        out.append(sep + t("term.fantasyland_players", players=names), style="magenta")
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
        add(t("term.fantasyland_n", n=b.fantasyland_cards), "magenta")
    if b.hidden:
        add(t("term.set_face_down") if b.is_set else t("term.face_down"), "dim")
    elif not view.over and view.rules.is_open_face and b.seat != human:
        add(f"{b.placed}/13")
    if b.discarded and b.seat != human:
        add(t("board.discarded", n=b.discarded), "dim")
    if b.natural:
        add(t("breakdown.natural", natural=natural_word(b.natural)), "bold yellow")
    if b.natural_claim is False:
        add(t("log.plays_board"))
    if b.surrendered is True:
        add(t("breakdown.surrendered"), "yellow")
    elif b.surrendered is False:
        add(t("log.plays"))
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
    table.add_column(t("ledger.player"), no_wrap=True, max_width=18)
    for label, size in zip(_LINE_LABELS, _LINE_SIZES, strict=True):
        table.add_column(t(label), no_wrap=True, min_width=3 * size - 1)
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
    which = t("term.more_hand_n", n=dec.hand + 1) if criss_cross else ""
    if dec.kind == "street":
        if dec.discard:
            return t(
                "term.your_cards_street_place_discard",
                which=which,
                street=dec.street,
                place=dec.place,
                n=dec.discard,
            )
        return t(
            "term.your_cards_street_place",
            which=which,
            street=dec.street,
            place=dec.place,
        )
    if dec.discard:
        return t("term.your_cards_set_13_discard", count=len(dec.cards), which=which, n=dec.discard)
    return t("term.your_13_cards_set", which=which)


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
        out.append(t("term.to_do_what", what=staging.todo()), style="dim")
    else:
        out.append(t("term.all_staged"), style="green")
    if staging.count(DISCARD):
        out.append("   " + t("term.discard_label") + " ")
        out.append_text(cards_text(staging.staged_in(DISCARD), theme))
    if discards:
        out.append("   " + t("term.your_earlier_discards_label") + " ")
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


HandOf = Callable[[str, str], str]


def _hand_of(data: Mapping[str, Any]) -> HandOf:
    """``hand(seat name, line)``: that seat's hand on that line, in the current language."""
    lines = {
        (seat["name"], line["line"]): line
        for seat in data["players"]
        for line in seat.get("lines") or []
    }
    return lambda seat, line: _line_hand(lines[seat, line]) if (seat, line) in lines else ""


def item_text(pair: Mapping[str, Any], item: Mapping[str, Any], hand: HandOf) -> str:
    """One item of a pair's breakdown in words: the scorer's own text in English, the
    same sentence (:func:`chinese_poker.scoring.notes.item_sentence`) in another language,
    with the hands named by ``hand``."""
    if current_language() == "en" or "kind" not in item:
        return str(item.get("text", item.get("kind", "")))
    return item_sentence(pair["a"], pair["b"], item, lang=current_language(), hand=hand)


def _foul_reason(seat: Mapping[str, Any]) -> str:
    """Why a seat fouled, in the current language, from the reason's data
    (``scoring.FoulReason.as_dict``): which line beats which, or the low middle's ceiling."""
    reason = str(seat.get("foul_reason") or "")
    foul = seat.get("foul")
    if current_language() == "en" or not foul:
        return reason
    lines = {line["line"]: line for line in seat.get("lines") or []}
    if foul["kind"] == "beats" and foul["line"] in lines and foul["below"] in lines:
        return t(
            "foul.beats",
            line=line_word(foul["line"]),
            hand=_line_hand(lines[foul["line"]]),
            below=line_word(foul["below"]),
            hand2=_line_hand(lines[foul["below"]]),
        )
    if foul["kind"] == "low_middle" and foul.get("ceiling") in tuple(RANKS):
        return t("foul.low_middle", rank=rank_word(RANKS.index(foul["ceiling"])))
    return reason


def _signed(points: float) -> str:
    if isinstance(points, float) and not points.is_integer():
        return f"{points:+,.2f}"
    return f"{int(points):+d}" if points else "0"


def _card_list(text: str) -> list[Card]:
    from chinese_poker.cards import parse_cards

    return list(parse_cards(text)) if text else []


def _face_down(seat: Mapping[str, Any], focus: str | None) -> bool:
    """Whether ``seat``'s surrendered hand stays folded for ``focus`` (no right to see it)."""
    return bool(seat.get("surrendered")) and focus is not None and seat.get("player") != focus


def _seat_notes(seat: Mapping[str, Any], *, short: bool) -> list[tuple[str, str]]:
    """A board's notes with their styles: natural, surrender, foul, Fantasyland (``short``
    for the one-row summary: no worth, no reason, FL for Fantasyland)."""
    notes: list[tuple[str, str]] = []
    if seat.get("natural"):
        nat = seat["natural"]
        natural = natural_word(nat["kind"])
        if short:
            notes.append((t("breakdown.natural", natural=natural), "bold yellow"))
        else:
            words = t("term.natural_worth", natural=natural, value=nat["value"])
            notes.append((words, "bold yellow"))
    if seat.get("surrendered"):
        notes.append((t("breakdown.surrendered"), "yellow"))
    if seat.get("foul_reason"):
        if short:
            notes.append((t("term.fouled" if seat.get("fouled") else "term.mis_set"), "bold red"))
        else:
            label = t("term.fouled" if seat.get("fouled") else "term.mis_set_not_penalised")
            notes.append((f"{label}: {_foul_reason(seat)}", "bold red"))
    if seat.get("fantasyland"):
        stays = seat.get("in_fantasyland")
        if short:
            key = "term.stays_in_fl_n" if stays else "term.earns_fl_n"
        else:
            key = "term.stays_in_fantasyland_n_cards" if stays else "term.earns_fantasyland_n_cards"
        notes.append((t(key, n=seat["fantasyland"]), "magenta"))
    return notes


def _seat_rows(
    seat: Mapping[str, Any], theme: Theme, focus: str | None
) -> list[list[RenderableType]]:
    """One seat's rows in the full breakdown: a line each, then its notes, next to the
    name and the points."""
    pts = seat.get("points", 0)
    names = [
        Text(seat["name"], style="bold"),
        Text(t("term.n_pts", points=_signed(pts)), style=_points_style(pts)),
    ]
    lines = [] if _face_down(seat, focus) else seat.get("lines") or []
    rows: list[list[RenderableType]] = []
    if not lines:
        rows.append(["", Text(t("term.not_shown"), style="dim"), "", ""])
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
    rows.extend(
        ["", "", Text(note, style=style), ""] for note, style in _seat_notes(seat, short=False)
    )
    while len(rows) < len(names):
        rows.append(["", "", "", ""])
    return [[names[i] if i < len(names) else Text(""), *row] for i, row in enumerate(rows)]


def _pairs_table(data: Mapping[str, Any], focus: str | None) -> Table:
    """Each pair's result, itemised for the pairs of ``focus`` (all when it is None)."""
    pairs = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    pairs.add_column(t("term.pts"), justify="right", no_wrap=True)
    pairs.add_column(t("term.pair_by_pair"), overflow="fold")
    hand = _hand_of(data)
    for pair in data["pairs"]:
        pts = pair["points"]
        who = pair["a"] if pts > 0 else pair["b"]
        head = t("term.a_vs_b_label", a=pair["a"], b=pair["b"]) + (
            f"{who} +{abs(pts)}" if pts else t("term.even")
        )
        items = pair["items"]
        if focus is not None and focus not in (pair["a_player"], pair["b_player"]):
            items = []
        pairs.add_row("", Text(head, style="bold"), end_section=not items)
        for i, item in enumerate(items):
            text = item_text(pair, item, hand)
            pairs.add_row(_signed(item["points"]), text, end_section=i == len(items) - 1)
    return pairs


def settlement_view(
    data: Mapping[str, Any], theme: Theme, *, money: bool, focus: str | None = None
) -> RenderableType:
    """The scoring breakdown of a settlement's ``to_dict()``: boards, pairs, totals.

    Pairs involving the player ``focus`` are itemised; the others get one line each, so
    a four-player breakdown still fits on a screen. Other players' surrendered hands stay
    face down.
    """
    boards = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    boards.add_column(t("ledger.player"), no_wrap=True)
    boards.add_column(t("term.line"), no_wrap=True)
    boards.add_column(t("term.cards"), no_wrap=True)
    boards.add_column(t("term.hand"), overflow="fold")
    boards.add_column(t("term.roy"), justify="right", no_wrap=True)
    for seat in data["players"]:
        rows = _seat_rows(seat, theme, focus)
        for i, row in enumerate(rows):
            boards.add_row(*row, end_section=i == len(rows) - 1)
    return Group(boards, _pairs_table(data, focus), _totals_text(data, money))


_SHORT_LINES = {"top": "line.top", "middle": "term.short.middle", "bottom": "term.short.bottom"}
_KIND_WORDS = {
    "overall": "term.overall",
    "scoop": "term.scoop",
    "foul": "mark.foul",
    "natural": "term.natural",
    "surrender": "phase.surrender",
}


def _item_label(item: Mapping[str, Any]) -> str:
    """A pair's item in a word or two, for the one-line pairs of the summary."""
    raw = str(item.get("line"))
    line = t(_SHORT_LINES[raw]) if raw in _SHORT_LINES else raw
    if item["kind"] == "line":
        return line
    if item["kind"] == "royalty":
        return t("term.roy_line", line=line)
    kind = str(item["kind"])
    return t(_KIND_WORDS[kind]) if kind in _KIND_WORDS else kind


def _summary_row(seat: Mapping[str, Any], theme: Theme, focus: str | None) -> list[RenderableType]:
    """One board on one row: name, points, the three lines' cards, royalties, notes."""
    lines = seat.get("lines") or []
    hidden = _face_down(seat, focus)
    cells: list[RenderableType] = [Text(t("term.not_shown"), style="dim"), "", ""]
    if lines and not hidden:
        cells = [cards_text(_card_list(line["cards"]), theme) for line in lines]
    roy = sum(line.get("royalty", 0) for line in lines) if not hidden else 0
    note = Text()
    for i, (words, style) in enumerate(_seat_notes(seat, short=True)):
        note.append(", " if i else "")
        note.append(words, style=style)
    pts = seat.get("points", 0)
    return [
        Text(seat["name"], style="bold"),
        Text(_signed(pts), style=_points_style(pts)),
        *cells,
        Text(f"+{roy}", style="green") if roy else "",
        note,
    ]


def _focus_details(seat: Mapping[str, Any], *, hands: bool) -> list[Text]:
    """The hands of the person's board (``hands``) and why it fouled, a line each."""
    out: list[Text] = []
    lines = seat.get("lines") or []
    if lines and hands:
        named = " · ".join(f"{line_word(line['line'])} {_line_hand(line)}" for line in lines)
        out.append(Text(f"{seat['name']}: ", style="bold").append(named))
    if seat.get("foul_reason"):
        label = t("mark.fouled" if seat.get("fouled") else "term.mis_set_not_penalised")
        out.append(Text(f"{seat['name']} {label}: {_foul_reason(seat)}", "red"))
    return out


def _summary_pairs(data: Mapping[str, Any], focus: str | None) -> Text:
    """Each pair on one line; ``focus``'s pairs from its side, with their items."""
    pairs = Text()
    for pair in data["pairs"]:
        pts, items = pair["points"], pair["items"]
        first, second, sign = pair["a"], pair["b"], 1
        if focus is not None and pair["b_player"] == focus and pair["a_player"] != focus:
            first, second, sign = second, first, -1
        if pairs:
            pairs.append("\n")
        pairs.append(t("term.a_vs_b_label", a=first, b=second), style="bold")
        if focus is not None and focus not in (pair["a_player"], pair["b_player"]):
            # as in the full breakdown: who gets how much
            who = pair["a"] if pts > 0 else pair["b"]
            pairs.append(f"{who} +{abs(pts)}" if pts else t("term.even"), style="bold")
            continue
        said = _signed(sign * pts) if pts else t("term.even")
        pairs.append(said, style="bold " + _points_style(sign * pts))
        if items:
            words = ", ".join(f"{_item_label(i)} {_signed(sign * i['points'])}" for i in items)
            pairs.append(f"  ({words})", style="dim")
    return pairs


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
    boards.add_column(t("ledger.player"), no_wrap=True)
    boards.add_column(t("term.pts"), justify="right", no_wrap=True)
    for name in _LINE_LABELS:
        boards.add_column(t(name), no_wrap=True)
    boards.add_column(t("term.roy"), justify="right", no_wrap=True)
    boards.add_column("", overflow="fold")
    details: list[Text] = []
    for seat in data["players"]:
        boards.add_row(*_summary_row(seat, theme, focus))
        if focus is not None and seat.get("player") == focus:
            details += _focus_details(seat, hands=hands and not _face_down(seat, focus))
    return Group(boards, *details, _summary_pairs(data, focus), _totals_text(data, money))


def _totals_text(data: Mapping[str, Any], money: bool) -> Text:
    totals = Text(t("term.hand_totals_label") + " ", style="bold")
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
    count = t("term.n_hands", n=hands)
    table.add_column(f"{title or t('term.session_ledger')} ({count})", no_wrap=True)
    table.add_column(t("ledger.points"), justify="right", no_wrap=True)
    if money is not None:
        table.add_column(t("ledger.money"), justify="right", no_wrap=True)
    for player, pts in points.items():
        style = "green" if pts > 0 else "red" if pts < 0 else ""
        row: list[RenderableType] = [player, Text(_signed(pts), style=style)]
        if money is not None:
            row.append(Text(_signed(money[player]), style=style))
        table.add_row(*row)
    return table


def ledger_line(points: Mapping[str, int]) -> Text:
    """The running points on one line for the header."""
    out = Text(t("term.session_label") + " ", style="dim")
    for i, (player, pts) in enumerate(points.items()):
        if i:
            out.append("  ")
        out.append(f"{player} ")
        out.append(_signed(pts), style="green" if pts > 0 else "red" if pts < 0 else "")
    return out


def help_panel(text: str) -> Panel:
    return Panel(
        Text(text), title=t("term.help"), title_align="left", border_style="cyan", expand=False
    )
