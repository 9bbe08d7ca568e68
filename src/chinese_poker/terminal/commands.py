"""The short placement syntax of the terminal game, and the local staging of a decision.

A person types one line at a time. A line is either a *command* (confirm, undo, help,
quit, ...) or a *placement* that stages cards for the current decision. Nothing reaches
the engine until the decision is confirmed: :class:`Staging` keeps the staged cards,
checks every placement against the decision (cards held, room per line, discards) and
rejects a bad line as a whole, so a typo never loses or half-applies anything.

Placement syntax (see :data:`HELP_PLACE` for the on-screen version):

* line groups -- a line letter, then its cards: ``t Ah, m Kd Kc, b 5s``; commas optional;
  ``x`` discards (``x 2c``). Words ``top``/``front``, ``mid``/``middle``,
  ``bot``/``bottom``/``back`` and ``discard`` work too.
* positional -- one letter per card in the order shown (as dealt on a street, by rank in
  a whole set): ``tmbbx`` sends the first unstaged card to the top, the second to the
  middle, and so on. A shorter word stages only the first cards.
* rank only -- ``t A, m K K`` when the rank says which card it is. A ten is ``10``, or an
  upper-case ``T`` after other cards of its group (``m 3 3 T T T``); a lone ``t`` means top.
* the engine notation -- ``Ah | Kd Kc | 5s`` (top | middle | bottom, optional
  ``| discards``).

When the cards still unstaged can go to one place only, they are staged there
automatically (in Pineapple, ``t Ah m Kd`` discards the third card; in a classic set,
giving the top and the middle puts the rest on the bottom).

>>> from chinese_poker.cards import parse_cards
>>> from chinese_poker.engine import Decision
>>> dec = Decision(0, "street", cards=parse_cards("Ah Kd Kc 5s 2c"), place=5, free=(3, 5, 5))
>>> s = Staging(dec)
>>> s.stage(s.resolve(parse_command("t Ah, m K K, b 5s")))
>>> s.auto_fill()
[]
>>> s.summary()
'top Ah · middle Kd Kc · bottom 5s'
>>> s.stage(s.resolve(parse_command("b")))
>>> s.complete
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from chinese_poker.cards import RANKS, Board, Card, CardError, card_name, cards_str, parse_card
from chinese_poker.engine import Decision, Place
from chinese_poker.language import t

__all__ = [
    "DEST_LETTERS",
    "DEST_NAMES",
    "DISCARD",
    "HELP_DECLARE",
    "HELP_PLACE",
    "CardRef",
    "CommandError",
    "Simple",
    "StageCommand",
    "Staging",
    "describe_assignments",
    "dest_word",
    "parse_command",
    "parse_declaration",
]

#: Destination indices: the three lines, then the discard pile.
TOP, MIDDLE, BOTTOM, DISCARD = 0, 1, 2, 3
DEST_LETTERS = "tmbx"
DEST_NAMES = ("top", "middle", "bottom", "discard")
LINE_ROOM = (3, 5, 5)
# The lines and the discard pile as words in a sentence ("the top line is full").
_DEST_WORDS_SHOWN = ("line.top", "line.middle", "line.bottom", "term.discard")


def dest_word(dest: int) -> str:
    """A line (0..2) or the discard pile (3) as a word in the current language."""
    return t(_DEST_WORDS_SHOWN[dest])


# Words that name a destination when they head a group of cards.
_DEST_WORDS: dict[str, int] = {
    "t": TOP, "top": TOP, "front": TOP,
    "m": MIDDLE, "mid": MIDDLE, "middle": MIDDLE,
    "b": BOTTOM, "bot": BOTTOM, "bottom": BOTTOM, "back": BOTTOM,
    "x": DISCARD, "dis": DISCARD, "discard": DISCARD,
}  # fmt: skip

SimpleName = Literal["confirm", "undo", "help", "quit", "redraw", "ledger", "solve", "auto"]

_SIMPLE: dict[str, SimpleName] = {
    "": "confirm", "c": "confirm", "ok": "confirm", "confirm": "confirm", "done": "confirm",
    "u": "undo", "undo": "undo",
    "?": "help", "h": "help", "help": "help",
    "q": "quit", "quit": "quit", "exit": "quit",
    "r": "redraw", "redraw": "redraw", "board": "redraw",
    "l": "ledger", "ledger": "ledger",
    "s": "solve", "solve": "solve", "hint": "solve",
    "auto": "auto",
}  # fmt: skip

_SPLIT = re.compile(r"[\s,;:]+")
_SPLIT_KEEP = re.compile(r"([,;:]|\s+)")  # like _SPLIT, but keeps the separators
_POSITIONAL = re.compile(r"[tmbx]+")
_RANK_ONLY = re.compile(r"10|[2-9jqka]", re.IGNORECASE)
# Several cards typed without spaces, e.g. "KdKc" (a ten is T or 10).
_GLUED = re.compile(r"(?:(?:10|[2-9tjqka])[shdc])+", re.IGNORECASE)
_ONE = re.compile(r"(?:10|[2-9tjqka])[shdc]", re.IGNORECASE)

HELP_PLACE = "term.help_placing"

HELP_DECLARE = "term.help_declarations"


class CommandError(ValueError):
    """A line the player typed that cannot be used; the message says why."""


@dataclass(frozen=True, slots=True)
class Simple:
    """A command without cards: confirm, undo (``count``; 0 = all), help, quit, ..."""

    name: SimpleName
    count: int = 1


@dataclass(frozen=True, slots=True)
class CardRef:
    """A card as typed: a full card (``card``) or a rank alone (``rank``, 0..12)."""

    card: Card | None = None
    rank: int | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class StageCommand:
    """Cards to stage: explicit ``(dest, card)`` groups, then positional letters."""

    groups: tuple[tuple[int, CardRef], ...] = ()
    positional: str = ""


Command = Simple | StageCommand


def _card_ref(token: str) -> CardRef | None:
    """A card or rank-only token, None if the token is not card-like at all."""
    if _RANK_ONLY.fullmatch(token):
        rank = 8 if token == "10" else RANKS.index(token.upper())
        return CardRef(rank=rank, text=token)
    try:
        return CardRef(card=parse_card(token), text=token)
    except CardError:
        return None


def _card_tokens(token: str) -> list[str]:
    if len(token) > 3 and _GLUED.fullmatch(token):
        return _ONE.findall(token)
    return [token]


def _bad_token(token: str) -> CommandError:
    if 2 <= len(token) <= 3:
        try:
            parse_card(token)
        except CardError as exc:
            return CommandError(t("term.error_type_for_help", error=exc))
    return CommandError(t("term.token_not_understood", token=token))


def parse_command(text: str) -> Command:
    """Parse one typed line (syntax only; :meth:`Staging.resolve` checks it against the hand).

    >>> parse_command("u all")
    Simple(name='undo', count=0)
    >>> parse_command("tmx").positional
    'tmx'
    >>> parse_command("Ah | Kd | 5s").groups[1]
    (1, CardRef(card=46, rank=None, text='Kd'))
    """
    line = text.strip()
    low = line.lower()
    if low in _SIMPLE:
        return Simple(_SIMPLE[low])
    words = low.split()
    if words and _SIMPLE.get(words[0]) == "undo" and len(words) == 2:
        if words[1] in ("all", "a", "*"):
            return Simple("undo", 0)
        if words[1].isdigit() and int(words[1]) > 0:
            return Simple("undo", int(words[1]))
        raise CommandError(t("term.undo_takes"))
    if low in ("uu", "clear", "reset"):
        return Simple("undo", 0)
    if "|" in line:
        return _parse_bars(line)
    return _parse_groups(line)


def _parse_bars(line: str) -> StageCommand:
    parts = line.split("|")
    if len(parts) > 4:
        raise CommandError(t("term.at_most_four_parts"))
    groups: list[tuple[int, CardRef]] = []
    for dest, part in enumerate(parts):
        for raw in _SPLIT.split(part.strip()):
            if not raw:
                continue
            for token in _card_tokens(raw):
                ref = _card_ref(token)
                if ref is None:
                    raise _bad_token(token)
                groups.append((dest, ref))
    if not groups:
        raise CommandError(t("term.no_cards_between_bars"))
    return StageCommand(tuple(groups))


def _parse_groups(line: str) -> StageCommand:
    groups: list[tuple[int, CardRef]] = []
    positional: list[str] = []
    dest: int | None = None
    header = ""  # the destination word heading the current group
    header_used = True

    def close_header() -> None:
        # A line letter followed by no cards is positional: "t m Kd" = "t" + "m Kd".
        if not header_used:
            if header in DEST_LETTERS:
                positional.append(header)
            else:
                raise CommandError(t("term.header_needs_cards", header=header))

    fresh = True  # at the start of the line or after a comma or semicolon
    for raw in _SPLIT_KEEP.split(line):
        if not raw or raw.isspace() or raw == ":":
            continue
        if raw in (",", ";"):
            fresh = True
            continue
        was_fresh, fresh = fresh, False
        low = raw.lower()
        if raw == "T" and dest is not None and header_used and not was_fresh:
            # Inside a group an upper-case T is a ten ("m 3 3 T T T"); a lower-case t,
            # or a T heading a group, is the top.
            groups.append((dest, CardRef(rank=8, text=raw)))
            continue
        if low in _DEST_WORDS:
            close_header()
            dest, header, header_used = _DEST_WORDS[low], low, False
            continue
        if len(low) > 1 and _POSITIONAL.fullmatch(low):
            close_header()
            positional.extend(low)
            dest, header_used = None, True
            continue
        for token in _card_tokens(raw):
            ref = _card_ref(token)
            if ref is None:
                if not groups and not positional and dest is None:
                    raise CommandError(t("term.unknown_command", command=raw))
                raise _bad_token(token)
            if dest is None:
                raise CommandError(t("term.say_where_token_goes", token=token))
            groups.append((dest, ref))
            header_used = True
    close_header()
    return StageCommand(tuple(groups), "".join(positional))


def parse_declaration(text: str) -> bool | Simple:
    """A yes/no answer (True = surrender / declare) or one of the general commands.

    >>> parse_declaration("y"), parse_declaration("play"), parse_declaration("?")
    (True, False, Simple(name='help', count=1))
    """
    low = text.strip().lower()
    if low in ("y", "yes", "surrender", "declare", "claim"):
        return True
    if low in ("n", "no", "p", "play"):
        return False
    if low in ("?", "h", "help", "q", "quit", "exit", "r", "redraw", "l", "ledger"):
        return Simple(_SIMPLE[low])
    if not low:
        raise CommandError(t("term.answer_y_or_n_for_help"))
    raise CommandError(t("term.answer_y_or_n_to_text", text=text.strip()))


# --------------------------------------------------------------------------- staging


@dataclass
class Staging:
    """The cards of one placement decision staged locally, in the order staged.

    ``board`` is the seat's board before this decision (the confirmed cards); ``order``
    optionally re-orders the decision's cards for display and positional letters. Every
    change goes through :meth:`resolve` (which raises :class:`CommandError` and changes
    nothing) and :meth:`stage`, so the staged state is always consistent.
    """

    decision: Decision
    board: Board = field(default_factory=Board)
    staged: list[tuple[Card, int]] = field(default_factory=list)
    order: tuple[Card, ...] | None = None

    # ------------------------------------------------------------------ reading

    @property
    def cards(self) -> tuple[Card, ...]:
        """The decision's cards in the order shown (and used by positional letters):
        ``order`` if given (the game sorts a 13-17 card set by rank), else as dealt."""
        return self.order if self.order is not None else self.decision.cards

    def dest_of(self, card: Card) -> int | None:
        for c, d in self.staged:
            if c == card:
                return d
        return None

    def unstaged(self) -> list[Card]:
        """Cards not staged yet, in the order shown."""
        done = {c for c, _ in self.staged}
        return [c for c in self.cards if c not in done]

    def count(self, dest: int) -> int:
        return sum(1 for _, d in self.staged if d == dest)

    def room(self, dest: int) -> int:
        """How many more cards ``dest`` takes in this decision."""
        if dest == DISCARD:
            return self.decision.discard - self.count(DISCARD)
        return self.decision.free[dest] - self.count(dest)

    @property
    def placed_left(self) -> int:
        return self.decision.place - sum(1 for _, d in self.staged if d != DISCARD)

    @property
    def complete(self) -> bool:
        return not self.unstaged()

    def lines(self) -> Board:
        """The board as it would be with the staged cards confirmed."""
        out: list[tuple[Card, ...]] = list(self.board.lines)
        for card, dest in self.staged:
            if dest != DISCARD:
                out[dest] = out[dest] + (card,)
        return Board(out[0], out[1], out[2])

    def staged_in(self, dest: int) -> tuple[Card, ...]:
        return tuple(c for c, d in self.staged if d == dest)

    def summary(self) -> str:
        """The staged cards per destination, e.g. ``'top Ah · discard 2c'``."""
        parts = [
            f"{dest_word(d)} {cards_str(self.staged_in(d))}" for d in range(4) if self.count(d)
        ]
        return " · ".join(parts) or t("term.nothing_staged")

    def todo(self) -> str:
        """What is still to do, in words: ``'place 2 more cards and discard 1 more'``."""
        places, discards = self.placed_left, self.room(DISCARD)
        bits = []
        if places:
            bits.append(t("term.place_n_more_cards", n=places))
        if discards:
            bits.append(t("term.discard_n_more", n=discards))
        return t("term.more_and").join(bits) or t("term.nothing")

    def missing(self) -> str:
        """What is still to do and the cards not staged yet (for the confirm message)."""
        return t("term.todo_unstaged_cards", todo=self.todo(), cards=cards_str(self.unstaged()))

    # ------------------------------------------------------------------ changing

    def resolve(self, cmd: StageCommand) -> list[tuple[Card, int]]:
        """The assignments ``cmd`` asks for, checked; raises :class:`CommandError`."""
        named: set[Card] = set()
        rank_refs: dict[int, list[tuple[int, CardRef]]] = {}
        for dest, ref in cmd.groups:
            if ref.card is None:
                assert ref.rank is not None
                rank_refs.setdefault(ref.rank, []).append((dest, ref))
            else:
                self._check_named(ref.card, named)
                named.add(ref.card)
        resolved = self._resolve_ranks(rank_refs, named)
        chosen: list[tuple[Card, int]] = []
        for dest, ref in cmd.groups:  # in the typed order, for undo
            if ref.card is not None:
                chosen.append((ref.card, dest))
            else:
                assert ref.rank is not None
                chosen.append((resolved[ref.rank].pop(0), dest))
        if cmd.positional:
            chosen += self._by_letters(cmd.positional, named)
        self._check_room(chosen)
        return chosen

    def _check_named(self, card: Card, named: set[Card]) -> None:
        """A card named in full must be in the hand, not staged yet, and named once."""
        name = card_name(card)
        if card not in self.cards:
            raise CommandError(t("term.card_not_in_hand", card=name, cards=cards_str(self.cards)))
        staged_to = self.dest_of(card)
        if staged_to is not None:
            raise CommandError(t("term.card_already_staged", card=name, line=dest_word(staged_to)))
        if card in named:
            raise CommandError(t("term.card_given_twice", card=name))

    def _resolve_ranks(
        self, rank_refs: dict[int, list[tuple[int, CardRef]]], named: set[Card]
    ) -> dict[int, list[Card]]:
        """The cards meant by rank-only references: fine only when the rank says which
        card(s) are meant. Adds them to ``named``."""
        free = self.unstaged()
        resolved: dict[int, list[Card]] = {}
        for rank, refs in rank_refs.items():
            cands = [c for c in free if c >> 2 == rank and c not in named]
            label = "10" if rank == 8 else RANKS[rank]
            if not cands:
                raise CommandError(t("term.no_unplaced_rank", rank=label, cards=cards_str(free)))
            if len(refs) > len(cands):
                raise CommandError(
                    t(
                        "term.only_n_unplaced_rank",
                        n=len(cands),
                        rank=label,
                        cards=cards_str(cands),
                    )
                )
            if len(refs) < len(cands) or len({d for d, _r in refs}) > 1:
                raise CommandError(
                    t(
                        "term.which_rank",
                        rank=label,
                        cards=cards_str(cands),
                        example=card_name(cands[0]),
                    )
                )
            resolved[rank] = list(cands)
            named.update(cands)
        return resolved

    def _by_letters(self, word: str, named: set[Card]) -> list[tuple[Card, int]]:
        """A word of destination letters for the cards not named, in the order shown."""
        rest = [c for c in self.unstaged() if c not in named]
        if len(word) > len(rest):
            raise CommandError(
                t(
                    "term.word_too_long",
                    word=word,
                    n=len(word),
                    left=len(rest),
                    cards=cards_str(rest),
                )
            )
        return [
            (card, DEST_LETTERS.index(letter)) for card, letter in zip(rest, word, strict=False)
        ]

    def _check_room(self, chosen: Sequence[tuple[Card, int]]) -> None:
        for dest in range(4):
            want = sum(1 for _c, d in chosen if d == dest)
            room = self.room(dest)
            if want <= room:
                continue
            if dest == DISCARD:
                if self.decision.discard == 0:
                    raise CommandError(t("term.nothing_discarded_here"))
                n = self.decision.discard
                raise CommandError(
                    t("term.you_discard_n_cards_here", n=n)
                    + t("term.more_discards_left", n=room, left=room, want=want)
                )
            full = self.board.lines[dest] + self.staged_in(dest)
            have = t("term.more_it_holds_cards", cards=cards_str(full)) if full else ""
            if room == 0:
                raise CommandError(t("term.line_is_full", line=dest_word(dest)) + have)
            raise CommandError(
                t("term.line_has_room_for", line=dest_word(dest), n=room, want=want) + have
            )
        placing = sum(1 for _c, d in chosen if d != DISCARD)
        if placing > self.placed_left:
            n = self.decision.place
            text = t("term.only_n_cards_on_board", n=n)
            if self.decision.discard:
                text += t("term.more_n_discarded", n=self.decision.discard)
            text += t(
                "term.more_placements_left",
                n=self.placed_left,
                left=self.placed_left,
                placing=placing,
            )
            raise CommandError(text)

    def stage(self, assignments: Sequence[tuple[Card, int]]) -> None:
        """Add checked assignments (from :meth:`resolve`)."""
        self.staged.extend(assignments)

    def undo(self, count: int = 1) -> list[tuple[Card, int]]:
        """Unstage the last ``count`` cards (0: all); returns them, last first."""
        n = len(self.staged) if count <= 0 else min(count, len(self.staged))
        removed = [self.staged.pop() for _ in range(n)]
        return removed

    def auto_fill(self) -> list[tuple[Card, int]]:
        """Stage the unstaged cards if they can go to one place only; returns what it did."""
        rest = self.unstaged()
        if not rest:
            return []
        dests = [d for d in range(3) if self.room(d) > 0 and self.placed_left > 0]
        if self.room(DISCARD) > 0:
            dests.append(DISCARD)
        if len(dests) != 1:
            return []
        dest = dests[0]
        if self.room(dest) < len(rest) or (dest != DISCARD and self.placed_left < len(rest)):
            return []
        chosen = [(c, dest) for c in rest]
        self.stage(chosen)
        return chosen

    def stage_place(self, action: Place) -> None:
        """Replace the staging with a whole placement (a suggestion)."""
        self.staged.clear()
        for dest, cards in enumerate((action.top, action.middle, action.bottom, action.discard)):
            self.staged.extend((c, dest) for c in cards)

    def to_place(self, version: int | None) -> Place:
        """The engine action for the staged cards (call when :attr:`complete`)."""
        return Place(
            self.decision.seat,
            self.staged_in(TOP),
            self.staged_in(MIDDLE),
            self.staged_in(BOTTOM),
            self.staged_in(DISCARD),
            hand=self.decision.hand,
            version=version,
        )


def describe_assignments(assignments: Sequence[tuple[Card, int]]) -> str:
    """``[(Ah, 0), (2c, 3)]`` -> ``'Ah to the top, 2c discarded'``."""
    parts = []
    for dest in range(4):
        cards = [c for c, d in assignments if d == dest]
        if cards:
            if dest == DISCARD:
                parts.append(t("term.cards_discarded", cards=cards_str(cards)))
            else:
                parts.append(
                    t("term.cards_to_the_line", cards=cards_str(cards), line=dest_word(dest))
                )
    return ", ".join(parts)
