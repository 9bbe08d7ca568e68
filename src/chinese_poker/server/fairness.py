"""Fair shuffles by commit and reveal.

Before hand K of table T is dealt, the server draws a 128-bit shuffle ``seed`` and a
128-bit ``salt`` from the operating system's cryptographic source (:mod:`secrets`),
stores them and publishes only the commitment::

    commitment = sha256("chinese-poker/v1|T|K|SEED|SALT").hexdigest()

where ``SEED`` and ``SALT`` are 32 lowercase hexadecimal digits and ``K`` is the hand's
number in the table's session (from 1), in decimal. After the showdown the seed and salt
are revealed. The deck is the engine's shuffle of that seed,
``shuffled_deck(int(SEED, 16))`` (``random.Random(seed).shuffle`` of cards 0..51), dealt in
the canonical order of RULES §5.1. Anybody can then check that the deck was fixed before
the hand and that the dealt cards came from it: :func:`verify_record` (and the
``chinese-poker verify`` command) recompute the commitment and the deck and replay the
hand's actions on that deck through the engine.

>>> seed, salt = "0" * 31 + "1", "f" * 32
>>> c = commitment("t-1", 1, seed, salt)
>>> len(c), c == commitment("t-1", 1, seed, salt), c == commitment("t-1", 2, seed, salt)
(64, True, False)
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chinese_poker.cards import Card, CardError, cards_str, parse_card
from chinese_poker.engine import (
    IllegalActionError,
    Table,
    TableError,
    action_from_dict,
    shuffled_deck,
)
from chinese_poker.rules import Rules, RulesError

__all__ = [
    "SCHEME",
    "Commitment",
    "HandCheck",
    "commitment",
    "deck_for",
    "new_commitment",
    "verify_record",
    "verify_records",
]

SCHEME = "chinese-poker/v1"
"""The name of the construction; the first field of the committed string."""

_HEX32 = re.compile(r"^[0-9a-f]{32}$")


def commitment(table: str, hand: int, seed: str, salt: str) -> str:
    """The SHA-256 commitment (lowercase hex) to ``seed`` for hand ``hand`` of ``table``."""
    text = f"{SCHEME}|{table}|{hand}|{seed}|{salt}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def deck_for(seed: str) -> tuple[Card, ...]:
    """The deck order of a hex ``seed``: the engine's :func:`shuffled_deck`."""
    return shuffled_deck(int(seed, 16))


@dataclass(frozen=True, slots=True)
class Commitment:
    """One hand's secret seed and salt and the public commitment to them."""

    table: str
    hand: int
    seed: str
    salt: str
    commitment: str

    def reveal(self) -> dict[str, Any]:
        """The ``fairness`` block of a history line (published after the showdown)."""
        return {
            "scheme": SCHEME,
            "table": self.table,
            "hand": self.hand,
            "seed": self.seed,
            "salt": self.salt,
            "commitment": self.commitment,
        }


def new_commitment(table: str, hand: int) -> Commitment:
    """Draw a fresh seed and salt from :mod:`secrets` and commit to them."""
    seed = f"{secrets.randbits(128):032x}"
    salt = secrets.token_hex(16)
    return Commitment(table, hand, seed, salt, commitment(table, hand, seed, salt))


# --------------------------------------------------------------------------- verifying


@dataclass(frozen=True, slots=True)
class HandCheck:
    """The verdict on one history line: ``ok``, or ``problem`` says what is wrong."""

    index: int
    table: str | None
    hand: int | None
    ok: bool
    problem: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "table": self.table,
            "hand": self.hand,
            "ok": self.ok,
            "problem": self.problem,
        }


class _Bad(Exception):
    pass


def verify_record(record: Mapping[str, Any], index: int = 1) -> HandCheck:
    """Check one history line's fairness block, deck and dealt cards.

    1. the block names the scheme, a table, a hand, a 32-hex-digit seed and salt;
    2. the commitment recomputed from them equals the recorded one;
    3. the recorded ``deck`` is the seed's shuffle;
    4. replaying the recorded actions through the engine on that deck (with the
       recorded rules, seats, button, Fantasyland deals and auto-played seats) gives
       exactly the recorded boards, discards and totals, so every dealt card came
       from the committed deck.
    """
    block = record.get("fairness") if isinstance(record, Mapping) else None
    table = block.get("table") if isinstance(block, Mapping) else None
    hand = block.get("hand") if isinstance(block, Mapping) else None
    try:
        _verify(record, block)
    except _Bad as exc:
        return HandCheck(
            index,
            table if isinstance(table, str) else None,
            hand if isinstance(hand, int) else None,
            False,
            str(exc),
        )
    assert isinstance(table, str) and isinstance(hand, int)
    return HandCheck(index, table, hand, True, None)


def verify_records(records: Sequence[Mapping[str, Any]]) -> list[HandCheck]:
    """:func:`verify_record` for every line (1-based indexes)."""
    return [verify_record(rec, i) for i, rec in enumerate(records, 1)]


def _verify(record: Mapping[str, Any], block: object) -> None:
    if not isinstance(block, Mapping):
        raise _Bad("no fairness block (not a hand dealt by a chinese-poker server)")
    if block.get("scheme") != SCHEME:
        raise _Bad(f"unknown fairness scheme {block.get('scheme')!r} (expected {SCHEME!r})")
    table, hand = block.get("table"), block.get("hand")
    seed, salt, recorded = block.get("seed"), block.get("salt"), block.get("commitment")
    if not isinstance(table, str) or "|" in table:
        raise _Bad("the fairness block has no valid table id")
    if isinstance(hand, bool) or not isinstance(hand, int) or hand < 1:
        raise _Bad("the fairness block has no valid hand number")
    for name, value in (("seed", seed), ("salt", salt)):
        if not isinstance(value, str) or not _HEX32.match(value):
            raise _Bad(f"the revealed {name} is not 32 lowercase hex digits: {value!r}")
    assert isinstance(seed, str) and isinstance(salt, str)
    expected = commitment(table, hand, seed, salt)
    if recorded != expected:
        raise _Bad(
            f"commitment mismatch: the revealed seed and salt hash to {expected},"
            f" but {recorded!r} was committed"
        )
    session = record.get("session")
    if isinstance(session, Mapping) and session.get("hand") not in (None, hand):
        raise _Bad(
            f"the fairness block is for hand {hand}, the record is session hand"
            f" {session.get('hand')}"
        )
    deck = deck_for(seed)
    recorded_deck = record.get("deck")
    if not isinstance(recorded_deck, list):
        raise _Bad("the record has no deck")
    try:
        cards = tuple(parse_card(str(c)) for c in recorded_deck)
    except CardError as exc:
        raise _Bad(f"bad card in the deck: {exc}") from None
    if cards != deck[: len(cards)] or not cards:
        raise _Bad("the recorded deck is not the shuffle of the revealed seed")
    _replay(record, deck)


def _replay(record: Mapping[str, Any], deck: tuple[Card, ...]) -> None:
    try:
        rules = Rules.from_dict(record["rules"])
        players = list(record["players"])
        fl = {players.index(n): int(c) for n, c in (record.get("fantasyland") or {}).items()}
        auto = [players.index(n) for n in record.get("auto_play") or []]
        table = Table(
            rules, players, button=record["button"], deck=deck, fantasyland=fl, auto_play=auto
        )
    except (KeyError, TypeError, ValueError, RulesError, TableError) as exc:
        raise _Bad(f"cannot set up the hand: {exc}") from None
    actions = record.get("actions")
    if not isinstance(actions, list):
        raise _Bad("the record has no action list")
    for i, data in enumerate(actions, 1):
        if not isinstance(data, Mapping):
            raise _Bad(f"action {i} is not an object")
        if data.get("auto"):
            continue
        try:
            table.apply(action_from_dict(data))
        except IllegalActionError as exc:
            raise _Bad(
                f"action {i} is illegal on the committed deck ({exc}): the cards do not"
                " match the deal"
            ) from None
        except ValueError as exc:
            raise _Bad(f"action {i} is malformed: {exc}") from None
    if not table.over:
        raise _Bad("the recorded actions end before the showdown")
    n_hands = 2 if rules.variant == "criss_cross" else 1
    for seat in range(len(players)):
        for h in range(n_hands):
            name = table.hand_name(seat, h)
            board = str(table.board(seat, h))
            if (record.get("boards") or {}).get(name) != board:
                raise _Bad(
                    f"{name}'s board differs from the committed deal: the history has"
                    f" {(record.get('boards') or {}).get(name)!r}, the deal gives {board!r}"
                )
            discards = cards_str(table.discards(seat, h)).split()
            if (record.get("discards") or {}).get(name, []) != discards:
                raise _Bad(f"{name}'s discards differ from the committed deal")
    if dict(record.get("totals") or {}) != dict(table.totals):
        raise _Bad(
            f"the totals differ: the history has {record.get('totals')}, the deal gives"
            f" {table.totals}"
        )
