"""Observation and action encodings of the learning environments (docs/env.md).

**Actions** are one fixed ``Discrete(243 + K + 4)`` space for every preset
(:class:`ActionLayout`; ``K`` is the set menu size, 32 by default, so 279 actions):

* ``0 .. 242`` -- *street codes*: an open-face street, each dealt card (in the order
  dealt) sent to a line. Without a discard the code is ``sum(line_i * 3**i)`` with
  line 0 top, 1 middle, 2 bottom (OFC's 1 card: 3 codes, Turbo's 4 cards: 81, a first
  street of 5: 243). With one discard (Pineapple's 3 cards) the code is
  ``j * 3**(n-1) + sum(line_k * 3**k)`` where ``j`` is the position of the discarded card
  and ``k`` runs over the kept cards in dealt order (27 codes).
* ``243 .. 243+K-1`` -- the *set menu*: a classic or Criss Cross set is chosen from the
  ``K`` best settings of the classic solver, best first (:func:`build_set_menu`).
* ``243+K .. 243+K+3`` -- declarations: play, surrender, claim the natural, decline it.

A Fantasyland deal is never an agent decision: the environment sets it with the exact
solver. **Observations** are a float32 vector of fixed size (:class:`ObsLayout`): 20
card planes of 52 (boards seen from the observer, the cards to place by position, its
discards), per-board public facts, the rules, the phase, the street, the decision and
the set menu's features; every entry lies in [0, 1].

>>> layout = ActionLayout()
>>> layout.size, layout.menu_start, layout.play
(279, 243, 275)
>>> street_lines(3, 1, 0)  # Pineapple: discard the first card, the others on top
(3, 0, 0)
>>> int(street_mask(3, 1, (3, 5, 5), layout.size).sum())
27
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from chinese_poker.ai.setting import solve_setting
from chinese_poker.cards import Board, Card
from chinese_poker.engine.actions import Decision, Place
from chinese_poker.engine.views import View
from chinese_poker.evaluate import evaluate3, evaluate5
from chinese_poker.rules import Rules

__all__ = [
    "CANDIDATE_FEATURES",
    "DEFAULT_SET_MENU",
    "N_PLANES",
    "N_STREET_CODES",
    "SLOT_FEATURES",
    "ActionLayout",
    "ObsLayout",
    "SetMenu",
    "build_set_menu",
    "encode_view",
    "street_code",
    "street_lines",
    "street_mask",
    "street_place",
]

F32 = npt.NDArray[np.float32]
I8 = npt.NDArray[np.int8]

#: Street codes: 3**5, enough for every open-face street of every variant.
N_STREET_CODES = 243
#: Default number of candidate settings offered for a classic / Criss Cross set.
DEFAULT_SET_MENU = 32
#: Features per set-menu candidate (see :func:`build_set_menu`).
CANDIDATE_FEATURES = 9
#: Lines (and the discard pseudo-line) of a street code.
TOP, MIDDLE, BOTTOM, DISCARD = 0, 1, 2, 3

# ----------------------------------------------------------------------------- layouts

#: Card planes, 52 entries each (card index ``rank * 4 + suit``).
PLANE_BOARD = 0  # 12 planes: board slot s (0..3) x line (top, middle, bottom)
PLANE_DEALT = 12  # 5 planes: the cards to place of a street, by position in the deal
PLANE_HAND = 17  # the cards of the current decision (a street or a set)
PLANE_HELD = 18  # the observer's other unplaced cards (its second Criss Cross hand)
PLANE_DISCARDS = 19  # the observer's own discards
N_PLANES = 20
N_SLOTS = 4
#: Per-board (slot) features, in this order.
SLOT_FEATURES = (
    "present",
    "in_fantasyland",
    "fantasyland_cards",  # /17
    "hidden",
    "placed",  # /13
    "dealt",  # /17
    "discarded",  # /4
    "is_set",
    "to_act",
    "is_button",
    "surrendered",
    "natural",
)
_SF = {name: i for i, name in enumerate(SLOT_FEATURES)}
VARIANTS = ("ofc", "pineapple", "turbo", "classic", "criss_cross")
PHASES = ("play", "naturals", "surrender", "showdown")
KINDS = ("street", "set", "surrender", "natural")
RULE_FLAGS = (
    "fantasyland_enabled",
    "fl_progressive",
    "finnish_deuce",
    "lowball_middle",
    "wheel_second_highest",
    "surrender_allowed",
    "naturals_enabled",
)
MAX_STREETS = 9


@dataclass(frozen=True, slots=True)
class ActionLayout:
    """The fixed discrete action space: street codes, the set menu, declarations."""

    set_menu: int = DEFAULT_SET_MENU

    @property
    def menu_start(self) -> int:
        return N_STREET_CODES

    @property
    def play(self) -> int:
        """Classic surrender round: play the hand."""
        return N_STREET_CODES + self.set_menu

    @property
    def surrender(self) -> int:
        return self.play + 1

    @property
    def claim(self) -> int:
        """Classic with optional claims: declare the natural."""
        return self.play + 2

    @property
    def decline(self) -> int:
        return self.play + 3

    @property
    def size(self) -> int:
        return self.play + 4


_FIXED_SEGMENTS = (
    ("cards", N_PLANES * 52),
    ("slots", N_SLOTS * len(SLOT_FEATURES)),
    ("variant", len(VARIANTS)),
    ("players", 3),
    ("position", 4),
    ("rules", len(RULE_FLAGS)),
    ("session", 2),
    ("phase", len(PHASES)),
    ("street", MAX_STREETS),
    ("decision", len(KINDS) + 7),
)


def _offsets() -> dict[str, int]:
    out: dict[str, int] = {}
    pos = 0
    for name, size in _FIXED_SEGMENTS:
        out[name] = pos
        pos += size
    out["candidates"] = pos
    return out


_OFF = _offsets()
OFF_SLOTS = _OFF["slots"]
OFF_VARIANT = _OFF["variant"]
OFF_PLAYERS = _OFF["players"]
OFF_POSITION = _OFF["position"]
OFF_RULES = _OFF["rules"]
OFF_SESSION = _OFF["session"]
OFF_PHASE = _OFF["phase"]
OFF_STREET = _OFF["street"]
OFF_DECISION = _OFF["decision"]
OFF_CANDIDATES = _OFF["candidates"]
NF = len(SLOT_FEATURES)


@dataclass(frozen=True, slots=True)
class ObsLayout:
    """The segments of the observation vector (all entries in [0, 1]).

    In order: ``cards`` (20 planes x 52), ``slots`` (4 boards x 12
    :data:`SLOT_FEATURES`), ``variant`` (5), ``players`` (3: 2, 3, 4), ``position`` (4:
    the observer's place in the play order; the button is last), ``rules`` (7 flags),
    ``session`` (2), ``phase`` (4), ``street`` (9), ``decision`` (11) and ``candidates``
    (K x 9). Only the last depends on ``set_menu`` (K).

    >>> ObsLayout().size, ObsLayout().segments["candidates"]
    (1421, slice(1133, 1421, None))
    """

    set_menu: int = DEFAULT_SET_MENU

    @property
    def segments(self) -> dict[str, slice]:
        out = {name: slice(_OFF[name], _OFF[name] + size) for name, size in _FIXED_SEGMENTS}
        out["candidates"] = slice(OFF_CANDIDATES, self.size)
        return out

    @property
    def size(self) -> int:
        return OFF_CANDIDATES + self.set_menu * CANDIDATE_FEATURES


# ----------------------------------------------------------------------------- streets


@cache
def _street_table(
    n: int, discard: int
) -> tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]], ...]:
    """For each street code: the positions going top, middle, bottom, and discarded."""
    if discard not in (0, 1) or not 1 <= n <= 5:
        raise ValueError(f"no street code for {n} card(s) with {discard} discard(s)")
    kept = n - discard
    count = (n if discard else 1) * 3**kept
    if count > N_STREET_CODES:
        raise ValueError(f"{n} cards with {discard} discard(s) need more than 243 codes")
    table = []
    for code in range(count):
        j, rest = divmod(code, 3**kept)
        positions = [p for p in range(n) if not (discard and p == j)]
        lines: list[list[int]] = [[], [], []]
        for p in positions:
            rest, line = divmod(rest, 3)
            lines[line].append(p)
        thrown = (j,) if discard else ()
        table.append((tuple(lines[0]), tuple(lines[1]), tuple(lines[2]), thrown))
    return tuple(table)


def street_lines(n: int, discard: int, code: int) -> tuple[int, ...]:
    """The line (0 top, 1 middle, 2 bottom, 3 discard) of each dealt card for ``code``."""
    out = [0] * n
    for line, positions in enumerate(_street_table(n, discard)[code]):
        for p in positions:
            out[p] = line
    return tuple(out)


@cache
def _street_mask(n: int, discard: int, free: tuple[int, int, int], size: int) -> I8:
    mask = np.zeros(size, dtype=np.int8)
    for code, (t, m, b, _d) in enumerate(_street_table(n, discard)):
        if len(t) <= free[0] and len(m) <= free[1] and len(b) <= free[2]:
            mask[code] = 1
    mask.flags.writeable = False
    return mask


def street_mask(n: int, discard: int, free: tuple[int, int, int], size: int) -> I8:
    """The legal street codes (1) of ``n`` cards, ``discard`` thrown, ``free`` room.

    The array is cached and read-only; copy it before changing it.
    """
    return _street_mask(n, discard, free, size)


def street_place(dec: Decision, code: int, version: int | None = None) -> Place:
    """The :class:`Place` that street ``code`` stands for in decision ``dec``."""
    t, m, b, d = _street_table(len(dec.cards), dec.discard)[code]
    c = dec.cards
    return Place(
        dec.seat,
        tuple([c[i] for i in t]),
        tuple([c[i] for i in m]),
        tuple([c[i] for i in b]),
        tuple([c[i] for i in d]),
        dec.hand,
        version,
    )


def street_code(dec: Decision, place: Place) -> int:
    """The street code of a placement of ``dec`` (the inverse of :func:`street_place`)."""
    where: dict[Card, int] = {}
    for line, cards in enumerate((place.top, place.middle, place.bottom, place.discard)):
        for card in cards:
            where[card] = line
    lines = [where[c] for c in dec.cards]
    if dec.discard == 0:
        return int(sum(line * 3**i for i, line in enumerate(lines)))
    if dec.discard != 1:
        raise ValueError("a street code has at most one discard")
    j = lines.index(DISCARD)
    kept = [line for line in lines if line != DISCARD]
    return int(j * 3 ** len(kept) + sum(line * 3**i for i, line in enumerate(kept)))


# ----------------------------------------------------------------------------- set menu


@dataclass(frozen=True, slots=True)
class SetMenu:
    """The candidate settings offered for one 13-card set, best first.

    ``expected`` is the solver's expected points per opponent; ``natural`` the kind of
    natural the candidate claims (None if none); ``features`` the (K, 9) block of the
    observation (zeros after the last candidate).
    """

    boards: tuple[Board, ...]
    expected: tuple[float, ...]
    natural: tuple[str | None, ...]
    features: F32

    def __len__(self) -> int:
        return len(self.boards)


def _line_desc(value: int) -> tuple[float, float]:
    return (value >> 20) / 8.0, ((value >> 16) & 15) / 14.0


def set_opponents(rules: Rules, n_seats: int) -> int:
    """How many opponent hands one set is settled against (1 to 3)."""
    return rules.spec.opponent_hands(n_seats)


def build_set_menu(cards: Sequence[Card], rules: Rules, opponents: int, size: int) -> SetMenu:
    """The ``size`` best settings of 13 cards by the classic solver (distinct line values).

    Candidate features (each in [0, 1]): present; the expected points per opponent
    squashed by ``0.5 + 0.5 * tanh(ev / 6)``; the top, middle and bottom categories (/8);
    their first key ranks (/14); and whether the candidate claims a natural.
    """
    sol = solve_setting(cards, rules, opponents=opponents, top_n=max(0, size - 1))
    boards = [sol.board] + [b for b, _ in sol.alternatives]
    evs = [sol.expected] + [e for _, e in sol.alternatives]
    boards, evs = boards[:size], evs[:size]
    naturals: list[str | None] = [sol.natural] + [None] * (len(boards) - 1)
    feats = np.zeros((size, CANDIDATE_FEATURES), dtype=np.float32)
    for k, board in enumerate(boards):
        t, m, b = board.top, board.middle, board.bottom
        tc, tr = _line_desc(evaluate3(t[0], t[1], t[2]))
        mc, mr = _line_desc(evaluate5(m[0], m[1], m[2], m[3], m[4]))
        bc, br = _line_desc(evaluate5(b[0], b[1], b[2], b[3], b[4]))
        ev = evs[k] / opponents
        feats[k] = (
            1.0,
            0.5 + 0.5 * np.tanh(ev / 6.0),
            tc,
            mc,
            bc,
            tr,
            mr,
            br,
            1.0 if naturals[k] else 0.0,
        )
    return SetMenu(tuple(boards), tuple(e / opponents for e in evs), tuple(naturals), feats)


# ----------------------------------------------------------------------------- views


def slot_of(observer: int, seat: int, hand: int, n_seats: int, hands: int) -> int:
    """The board slot (0..3) of ``seat``'s ``hand`` seen from ``observer`` (0 = own)."""
    return ((seat - observer) % n_seats) * hands + hand


def static_row(rules: Rules, n_seats: int, layout: ObsLayout, session: bool) -> F32:
    """The part of an observation fixed for the whole environment (rules, players)."""
    row = np.zeros(layout.size, dtype=np.float32)
    row[OFF_VARIANT + VARIANTS.index(rules.variant)] = 1.0
    row[OFF_PLAYERS + min(n_seats, 4) - 2] = 1.0
    sc = rules.spec.scoring
    flags = (
        rules.fantasyland_enabled,
        rules.fl_progressive,
        sc.finnish_deuce,
        sc.lowball_middle,
        sc.wheel == "second_highest",
        rules.surrender_allowed,
        rules.naturals_enabled,
    )
    for i, flag in enumerate(flags):
        row[OFF_RULES + i] = 1.0 if flag else 0.0
    row[OFF_SESSION] = 1.0 if session else 0.0
    return row


def encode_view(
    view: View,
    row: F32,
    template: F32,
    *,
    decision: Decision | None,
    menu: SetMenu | None,
    hands_played: int = 0,
) -> None:
    """Write the observation of ``view`` (a seat's view) into ``row``.

    This is the reference encoding: it reads nothing but the view, so an observation
    never holds a card the seat may not see. ``decision`` is the decision shown (the
    seat's first open one, None when it has none), ``menu`` the set menu for it.
    ``template`` is :func:`static_row`; ``hands_played`` counts the session's hands.
    """
    seat = view.seat
    assert seat is not None
    row[:] = template
    n = len(view.players)
    hands = view.rules.spec.variant.hands_per_seat
    row[OFF_POSITION + view.play_order.index(seat)] = 1.0
    row[OFF_SESSION + 1] = min(hands_played, 8) / 8.0
    row[OFF_PHASE + PHASES.index(view.phase)] = 1.0
    if view.street:
        row[OFF_STREET + view.street - 1] = 1.0
    for b in view.boards:
        slot = slot_of(seat, b.seat, b.hand, n, hands)
        for line, cards in enumerate((b.top, b.middle, b.bottom)):
            base = (PLANE_BOARD + slot * 3 + line) * 52
            for card in cards:
                row[base + card] = 1.0
        for card in b.discards:
            row[PLANE_DISCARDS * 52 + card] = 1.0
        f = OFF_SLOTS + slot * NF
        row[f + _SF["present"]] = 1.0
        row[f + _SF["in_fantasyland"]] = 1.0 if b.in_fantasyland else 0.0
        row[f + _SF["fantasyland_cards"]] = b.fantasyland_cards / 17.0
        row[f + _SF["hidden"]] = 1.0 if b.hidden else 0.0
        row[f + _SF["placed"]] = b.placed / 13.0
        row[f + _SF["dealt"]] = b.dealt / 17.0
        row[f + _SF["discarded"]] = b.discarded / 4.0
        row[f + _SF["is_set"]] = 1.0 if b.is_set else 0.0
        row[f + _SF["to_act"]] = 1.0 if b.seat in view.to_act else 0.0
        row[f + _SF["is_button"]] = 1.0 if b.seat == view.button else 0.0
        row[f + _SF["surrendered"]] = 1.0 if b.surrendered else 0.0
        row[f + _SF["natural"]] = 1.0 if b.natural else 0.0
    if decision is not None:
        write_decision(row, decision, menu)
        shown = set(decision.cards)
        for card in view.hand:
            if card not in shown:
                row[PLANE_HELD * 52 + card] = 1.0


def write_decision(row: F32, dec: Decision, menu: SetMenu | None) -> None:
    """Write the decision segment, the cards-to-place planes and the menu features."""
    d = OFF_DECISION
    row[d + KINDS.index(dec.kind)] = 1.0
    row[d + 4] = float(dec.hand)
    row[d + 5] = len(dec.cards) / 17.0
    row[d + 6] = dec.place / 13.0
    row[d + 7] = dec.discard / 4.0
    row[d + 8] = dec.free[0] / 3.0
    row[d + 9] = dec.free[1] / 5.0
    row[d + 10] = dec.free[2] / 5.0
    hand = PLANE_HAND * 52
    if dec.kind == "street":
        for pos, card in enumerate(dec.cards):
            row[hand + card] = 1.0
            row[(PLANE_DEALT + pos) * 52 + card] = 1.0
    else:
        for card in dec.cards:
            row[hand + card] = 1.0
    if menu is not None:
        row[OFF_CANDIDATES : OFF_CANDIDATES + menu.features.size] = menu.features.reshape(-1)


def clear_decision(row: F32) -> None:
    """Clear what :func:`write_decision` wrote (and the held-cards plane)."""
    row[OFF_DECISION : OFF_DECISION + len(KINDS) + 7] = 0.0
    row[PLANE_DEALT * 52 : (PLANE_HELD + 1) * 52] = 0.0
    row[OFF_CANDIDATES:] = 0.0


class OpenFaceObservations:
    """Every seat's observation of an open-face hand, kept up to date incrementally.

    The environment reports each change (a placement, a decision shown or taken, a new
    street, the showdown) and only the entries that change are written. The result is
    the same as :func:`encode_view` of each seat's view; the test suite checks this
    after every step of random play.
    """

    def __init__(self, rules: Rules, n_seats: int, layout: ObsLayout, session: bool) -> None:
        self.n = n_seats
        self.layout = layout
        self.template = static_row(rules, n_seats, layout, session)
        self.rows = np.zeros((n_seats, layout.size), dtype=np.float32)
        # _slot[o][s]: the offset of seat s's slot features in observer o's row.
        self._slot = [
            [OFF_SLOTS + ((s - o) % n_seats) * NF for s in range(n_seats)] for o in range(n_seats)
        ]
        self._plane = [
            [(PLANE_BOARD + ((s - o) % n_seats) * 3) * 52 for s in range(n_seats)]
            for o in range(n_seats)
        ]
        self._dealt = [0] * n_seats
        self._placed = [0] * n_seats
        self._thrown = [0] * n_seats
        self._hidden: list[bool] = [False] * n_seats
        self._lines: list[list[list[Card]]] = [[[], [], []] for _ in range(n_seats)]
        self._street = 0
        self.shown: list[Decision | None] = [None] * n_seats

    def begin_hand(
        self, button: int, play_order: Sequence[int], fantasyland: dict[int, int], hands: int
    ) -> None:
        """A new hand: nothing placed; Fantasyland boards hidden from the others."""
        rows = self.rows
        rows[:] = self.template
        n = self.n
        for o in range(n):
            row = rows[o]
            row[OFF_POSITION + play_order.index(o)] = 1.0
            row[OFF_SESSION + 1] = min(hands, 8) / 8.0
            row[OFF_PHASE] = 1.0
            for s in range(n):
                f = self._slot[o][s]
                row[f] = 1.0
                if s == button:
                    row[f + _SF["is_button"]] = 1.0
                fl = fantasyland.get(s, 0)
                if fl:
                    row[f + _SF["in_fantasyland"]] = 1.0
                    row[f + _SF["fantasyland_cards"]] = fl / 17.0
                    row[f + _SF["dealt"]] = fl / 17.0
                    if s != o:
                        row[f + _SF["hidden"]] = 1.0
        for s in range(n):
            self._dealt[s] = fantasyland.get(s, 0)
            self._placed[s] = 0
            self._thrown[s] = 0
            self._hidden[s] = s in fantasyland
            self._lines[s] = [[], [], []]
        self._street = 0
        self.shown = [None] * n

    def street(self, street: int) -> None:
        """The street being dealt changed (0: none)."""
        if street == self._street:
            return
        rows = self.rows
        if self._street:
            rows[:, OFF_STREET + self._street - 1] = 0.0
        if street:
            rows[:, OFF_STREET + street - 1] = 1.0
        self._street = street

    def show(self, seat: int, dec: Decision, menu: SetMenu | None = None) -> None:
        """``seat`` has a new decision: its cards are dealt to it now."""
        self.shown[seat] = dec
        self._dealt[seat] += len(dec.cards) if not self._hidden[seat] else 0
        dealt = self._dealt[seat] / 17.0
        rows = self.rows
        for o in range(self.n):
            f = self._slot[o][seat]
            rows[o, f + 8] = 1.0  # to_act
            rows[o, f + 5] = dealt
        write_decision(rows[seat], dec, menu)

    def hide(self, seat: int) -> None:
        """``seat``'s shown decision was taken."""
        if self.shown[seat] is None:
            return
        self.shown[seat] = None
        rows = self.rows
        for o in range(self.n):
            rows[o, self._slot[o][seat] + 8] = 0.0
        clear_decision(rows[seat])

    def place(self, seat: int, place: Place) -> None:
        """``seat`` placed (and discarded) cards."""
        rows = self.rows
        lines = self._lines[seat]
        hidden = self._hidden[seat]
        count = 0
        for line, cards in enumerate((place.top, place.middle, place.bottom)):
            if not cards:
                continue
            lines[line].extend(cards)
            count += len(cards)
            for o in range(self.n):
                if hidden and o != seat:
                    continue
                base = self._plane[o][seat] + line * 52
                row = rows[o]
                for card in cards:
                    row[base + card] = 1.0
        self._placed[seat] += count
        self._thrown[seat] += len(place.discard)
        own = rows[seat]
        for card in place.discard:
            own[PLANE_DISCARDS * 52 + card] = 1.0
        placed = self._placed[seat]
        p, t, done = placed / 13.0, self._thrown[seat] / 4.0, 1.0 if placed == 13 else 0.0
        for o in range(self.n):
            f = self._slot[o][seat]
            row = rows[o]
            row[f + 4] = p
            row[f + 6] = t
            row[f + 7] = done

    def showdown(self) -> None:
        """The hand is over: every board is shown, nobody is to act."""
        rows = self.rows
        n = self.n
        for s in range(n):
            self.hide(s)
        self.street(0)
        rows[:, OFF_PHASE : OFF_PHASE + len(PHASES)] = 0.0
        rows[:, OFF_PHASE + 3] = 1.0
        for s in range(n):
            if not self._hidden[s]:
                continue
            self._hidden[s] = False
            for o in range(n):
                if o == s:
                    continue
                rows[o, self._slot[o][s] + 3] = 0.0
                for line, cards in enumerate(self._lines[s]):
                    base = self._plane[o][s] + line * 52
                    for card in cards:
                        rows[o, base + card] = 1.0
