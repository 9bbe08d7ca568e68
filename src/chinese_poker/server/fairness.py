"""Fair shuffles: the server commits to a secret, every player adds randomness, anybody
can check the deal afterwards.

The scheme (``chinese-poker/v2``; ``docs/fairness.md`` has the byte layout and a worked
example) for hand K of table T with rules R:

1. Before any player can send anything for the hand, the server draws a 128-bit
   ``seed`` and a 128-bit ``salt`` (:mod:`secrets`), stores them and publishes only
   ``commitment = SHA-256("chinese-poker/v2|commit|T|K|RULES|SEED|SALT")``, where
   ``RULES`` is :func:`rules_digest` of the hand's rules. Hand 1's commitment is
   published when the table opens; hand K+1's with the end of hand K.
2. Until the deal, each player's client sends a 32-byte random value (the browser
   draws it with ``crypto.getRandomValues``). A bot is the server: its value is
   ``SHA-256("chinese-poker/v2|bot|T|K|PLAYER|SEED|SALT")``, fixed by the commitment, so
   the server cannot pick it after seeing the players' values. A player who sends
   nothing in time is recorded as ``absent`` and adds nothing; the deal never waits.
3. ``deal seed = SHA-256("chinese-poker/v2|deal|T|K|SEED|SALT" + "|V" for each value V,
   sorted)``, and the deck is :func:`shuffle` of it: a Fisher-Yates shuffle of cards
   0..51 driven by SHA-256 in counter mode, dealt in the canonical order of RULES §5.1.
4. After the showdown the seed, salt and every contribution are revealed (the history
   line's ``fairness`` block). :func:`verify_records` (``chinese-poker verify``) checks
   the commitment, the contributions and the deck, then replays every action under the
   recorded rules through the engine (:func:`chinese_poker.engine.history.replay_hand`)
   and compares every recomputed field: boards, totals, settlement, money, ledger.

Hands committed by servers before the players' values existed (``chinese-poker/v1``:
``SHA-256("chinese-poker/v1|T|K|SEED|SALT")``, deck ``shuffled_deck(int(SEED, 16))``)
are still verified, and reported as having no player contributions.

>>> c = Commitment.make("t-1", 1, "0" * 64, "0" * 31 + "1", "f" * 32)
>>> deal = c.deal(c.contributions(["Ann", "bot"], {"bot"}, {"Ann": "ab" * 32}))
>>> len(deal.seed), sorted(deal.deck) == list(range(52))
(64, True)
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import secrets
import struct
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chinese_poker.cards import Card, CardError, card_name, parse_card
from chinese_poker.engine import hand_seed, shuffled_deck
from chinese_poker.engine.history import HistoryError, ReplayedHand, replay_history
from chinese_poker.rules import Rules

__all__ = [
    "LEGACY_SCHEME",
    "MATCH_DEAL",
    "SCHEME",
    "Commitment",
    "Contribution",
    "ContributionRefused",
    "Deal",
    "HandCheck",
    "HandRandomness",
    "check_contribution",
    "deal_seed",
    "new_commitment",
    "rules_digest",
    "shuffle",
    "verify_record",
    "verify_records",
]

SCHEME = "chinese-poker/v2"
"""The name of the construction; the first field of every hashed string."""
LEGACY_SCHEME = "chinese-poker/v1"
"""The construction before players contributed (verified, never issued)."""

MATCH_DEAL = "bot-match"
"""What a :class:`HandCheck` names a hand of a bot match the server ran
(``server.bot_matches``) by, in place of a scheme: both seatings of a duplicate deal must
get the same cards, so such a hand is dealt from its session's seed as ``chinese-poker
simulate`` deals (hand K's seed is ``hand_seed(SESSION SEED, K)``, the deck its
shuffle), with no commitment; it is checked by recomputing that seed and by replay."""

SOURCES = ("player", "bot", "absent")
"""Where a contribution came from: the player's client, the server for its bot, nobody."""

_HEX32 = re.compile(r"^[0-9a-f]{32}$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# Rules are immutable, hashed once, and shared between tables: each is digested once
# (every hand end commits the next hand to it, in the event loop's hot path).
_DIGESTS: dict[Rules, str] = {}


def rules_digest(rules: Rules | Mapping[str, Any]) -> str:
    """SHA-256 (hex) of the rules' canonical JSON: ``Rules.to_dict()``, keys sorted, no
    spaces, non-ASCII escaped (Python's ``json.dumps(..., sort_keys=True,
    separators=(",", ":"))``)."""
    if isinstance(rules, Rules):
        digest = _DIGESTS.get(rules)
        if digest is None:
            digest = _digest(rules.to_dict())
            if len(_DIGESTS) >= 1024:
                _DIGESTS.clear()
            _DIGESTS[rules] = digest
        return digest
    return _digest(rules)


def _digest(data: Mapping[str, Any]) -> str:
    return _sha256(json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True))


def check_contribution(value: object) -> str:
    """A player's contribution: 64 lowercase hex digits (32 bytes); ValueError otherwise."""
    if not isinstance(value, str) or not _HEX64.match(value):
        raise ValueError("a contribution is 64 lowercase hexadecimal digits (32 random bytes)")
    return value


def deal_seed(table: str, hand: int, seed: str, salt: str, values: Collection[str]) -> str:
    """The deal seed (hex): the server's secret mixed with every contributed value."""
    tail = "".join("|" + v for v in sorted(values))
    return _sha256(f"{SCHEME}|deal|{table}|{hand}|{seed}|{salt}{tail}")


def _words(key: bytes) -> Iterator[int]:
    counter = 0
    while True:
        block = hashlib.sha256(key + counter.to_bytes(4, "big")).digest()
        yield from struct.unpack(">8I", block)
        counter += 1


def shuffle(seed: str) -> tuple[Card, ...]:
    """The deck order of a deal seed (64 hex digits).

    Cards 0..51 (``rank * 4 + suit``, ranks ``2..A``, suits ``s h d c``) start in order;
    for i = 51 down to 1, j is drawn uniformly from 0..i and cards i and j swap. Draws
    are 32-bit big-endian words of SHA-256(seed bytes ‖ uint32 big-endian block
    counter from 0), 8 per block, in order; a word w is used only if
    w < 2^32 - (2^32 mod (i + 1)) (else the next word is taken), and j = w mod (i + 1).
    """
    words = _words(bytes.fromhex(seed))
    deck = list(range(52))
    for i in range(51, 0, -1):
        n = i + 1
        limit = (1 << 32) - (1 << 32) % n
        word = next(words)
        while word >= limit:
            word = next(words)
        j = word % n
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


@dataclass(frozen=True, slots=True)
class Contribution:
    """One player's part of a hand's randomness (``value`` None when ``absent``)."""

    player: str
    source: str
    value: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "source": self.source, "value": self.value}


@dataclass(frozen=True, slots=True)
class Deal:
    """A hand's deal seed (hex) and the deck it shuffles to."""

    seed: str | None
    deck: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Commitment:
    """One hand's secret seed and salt, and the public commitment to them.

    ``rules`` is the :func:`rules_digest` of the hand's rules. A commitment read back
    from an older store may be a ``chinese-poker/v1`` one (:attr:`scheme`).
    """

    table: str
    hand: int
    rules: str
    seed: str
    salt: str
    commitment: str

    @classmethod
    def make(cls, table: str, hand: int, rules: str, seed: str, salt: str) -> Commitment:
        text = f"{SCHEME}|commit|{table}|{hand}|{rules}|{seed}|{salt}"
        return cls(table, hand, rules, seed, salt, _sha256(text))

    @property
    def scheme(self) -> str:
        legacy = _sha256(f"{LEGACY_SCHEME}|{self.table}|{self.hand}|{self.seed}|{self.salt}")
        return LEGACY_SCHEME if self.commitment == legacy else SCHEME

    def bot_value(self, player: str) -> str:
        """The contribution of ``player``'s bot (the server's): fixed by the commitment."""
        return _sha256(f"{SCHEME}|bot|{self.table}|{self.hand}|{player}|{self.seed}|{self.salt}")

    def contributions(
        self, players: Sequence[str], bots: Collection[str], received: Mapping[str, str]
    ) -> tuple[Contribution, ...]:
        """The hand's contributions, one per player in seat order: the bots', the values
        ``received`` from players' clients, ``absent`` for the others."""
        out = []
        for name in players:
            if name in bots:
                out.append(Contribution(name, "bot", self.bot_value(name)))
            elif name in received:
                out.append(Contribution(name, "player", check_contribution(received[name])))
            else:
                out.append(Contribution(name, "absent", None))
        return tuple(out)

    def deal(self, contributions: Sequence[Contribution]) -> Deal:
        """The deal seed and deck of this hand with these contributions."""
        if self.scheme == LEGACY_SCHEME:
            return Deal(None, shuffled_deck(int(self.seed, 16)))
        values = [c.value for c in contributions if c.value is not None]
        seed = deal_seed(self.table, self.hand, self.seed, self.salt, values)
        return Deal(seed, shuffle(seed))

    def reveal(
        self, contributions: Sequence[Contribution], deal: Deal | None = None
    ) -> dict[str, Any]:
        """The ``fairness`` block of a history line (published after the showdown);
        ``deal``: :meth:`deal` of these contributions, if already made."""
        if self.scheme == LEGACY_SCHEME:
            return {
                "scheme": LEGACY_SCHEME,
                "table": self.table,
                "hand": self.hand,
                "seed": self.seed,
                "salt": self.salt,
                "commitment": self.commitment,
            }
        return {
            "scheme": SCHEME,
            "table": self.table,
            "hand": self.hand,
            "rules_digest": self.rules,
            "seed": self.seed,
            "salt": self.salt,
            "commitment": self.commitment,
            "contributions": [c.to_dict() for c in contributions],
            "deal_seed": (deal or self.deal(contributions)).seed,
        }


def new_commitment(table: str, hand: int, rules: Rules | Mapping[str, Any]) -> Commitment:
    """Draw a fresh seed and salt from :mod:`secrets` and commit to them."""
    if "|" in table:
        raise ValueError(f"a table id may not hold '|': {table!r}")
    return Commitment.make(
        table, hand, rules_digest(rules), secrets.token_hex(16), secrets.token_hex(16)
    )


class ContributionRefused(ValueError):
    """A contribution the server does not take: ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class HandRandomness:
    """One hand's randomness on the server: its commitment, the values received so far,
    and once the hand is dealt (:meth:`close`) its contributions."""

    commit: Commitment
    received: dict[str, str] = field(default_factory=dict)
    contributions: tuple[Contribution, ...] | None = None
    _deal: Deal | None = field(default=None, repr=False, compare=False)

    @property
    def closed(self) -> bool:
        return self.contributions is not None

    def offer(self, player: str, value: str, players: Collection[str]) -> None:
        """Take ``player``'s value; :class:`ContributionRefused` says why not."""
        hand = self.commit.hand
        if player not in players:
            raise ContributionRefused("not_playing", f"{player} is not dealt in hand {hand}")
        if player in self.received:  # before too_late: a reconnect's resend was taken
            raise ContributionRefused(
                "duplicate", f"{player} has already sent a value for hand {hand}"
            )
        if self.closed:
            raise ContributionRefused("too_late", f"hand {hand} is already dealt")
        try:
            self.received[player] = check_contribution(value)
        except ValueError as exc:
            raise ContributionRefused("bad_message", str(exc)) from None

    def close(self, players: Sequence[str], bots: Collection[str]) -> tuple[Card, ...]:
        """The hand is being dealt to ``players``: fix its contributions; its deck."""
        if self.contributions is None:
            self.contributions = self.commit.contributions(players, bots, self.received)
        if self._deal is None:  # fixed from now on: shuffled once
            self._deal = self.commit.deal(self.contributions)
        return self._deal.deck

    def reveal(self) -> dict[str, Any]:
        """The ``fairness`` block (after the showdown)."""
        return self.commit.reveal(self.contributions or (), self._deal)


# --------------------------------------------------------------------------- verifying


@dataclass(frozen=True, slots=True)
class HandCheck:
    """The verdict on one history line: ``ok``, or ``problem`` says what is wrong.

    ``contributed`` names the players whose own clients added randomness (empty for a
    ``chinese-poker/v1`` hand). ``ledger_checked`` is false for a session's hand whose
    earlier hands are not in the file: it was replayed on its own, without the ledger."""

    index: int
    table: str | None
    hand: int | None
    ok: bool
    problem: str | None
    scheme: str | None = None
    contributed: tuple[str, ...] = ()
    ledger_checked: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "table": self.table,
            "hand": self.hand,
            "ok": self.ok,
            "problem": self.problem,
            "scheme": self.scheme,
            "contributed": list(self.contributed),
            "ledger_checked": self.ledger_checked,
        }


class _Bad(Exception):
    pass


def verify_record(record: Mapping[str, Any], index: int = 1) -> HandCheck:
    """Check one history line on its own: :func:`verify_records` of just this line."""
    check = _check_line(record, index)
    if check.ok:
        problem = _replay_problem([record], partial=True)[0].get(1)
        if problem is not None:
            return _failed(check, problem)
    return check


def verify_records(records: Sequence[Mapping[str, Any]]) -> list[HandCheck]:
    """Verify every line of a history (1-based indexes).

    Per line: the fairness block names the scheme, the table, the hand, a 32-hex-digit
    seed and salt; the rules digest is that of the recorded rules; the commitment
    recomputed from them equals the recorded one; there is one contribution per player
    of the hand, each a player's value, the bot value the commitment fixes, or absent;
    the recorded deck is the shuffle of the deal seed. Then every line is replayed on
    its own (every action under the recorded rules: boards, discards, totals,
    settlement and money recomputed and compared), and the lines of each session from
    its hand 1 together (buttons, Fantasyland, ledger and chips recomputed too).
    """
    checks = [_check_line(rec, i) for i, rec in enumerate(records, 1)]
    for i, rec in enumerate(records, 1):
        if checks[i - 1].ok:
            problem = _replay_problem([rec], partial=True)[0].get(1)
            if problem is not None:
                checks[i - 1] = _failed(checks[i - 1], problem)
    # Whose ledger was checked is what the replay did (it decides which lines continue
    # a session from its hand 1), not a rule of our own.
    ledgers = [False] * len(checks)
    if all(c.ok for c in checks):
        problems, replayed = _replay_problem(records, partial=True)
        for i, problem in problems.items():
            checks[i - 1] = _failed(checks[i - 1], problem)
        for hand in replayed:
            ledgers[hand.index - 1] = hand.ledger is not None
    return [
        dataclasses.replace(c, ledger_checked=whole)
        for c, whole in zip(checks, ledgers, strict=True)
    ]


def _failed(check: HandCheck, problem: str) -> HandCheck:
    return HandCheck(check.index, check.table, check.hand, False, problem, check.scheme)


def _replay_problem(
    records: Sequence[Mapping[str, Any]], *, partial: bool
) -> tuple[dict[int, str], list[ReplayedHand]]:
    """The replay's first difference (by 1-based line), or the hands it replayed."""
    try:
        return {}, replay_history(records, partial_sessions=partial)
    except HistoryError as exc:
        text = str(exc)
        # "hand N: ..." names the record within ``records``; the line says it already.
        text = re.sub(r"^hand \d+(, |: )", "", text)
        return {exc.index or 1: f"the replay differs: {text}"}, []
    except (KeyError, TypeError, ValueError) as exc:
        return {1: f"the record cannot be replayed: {exc}"}, []


def _check_line(record: Mapping[str, Any], index: int) -> HandCheck:
    block = record.get("fairness") if isinstance(record, Mapping) else None
    if block is None and isinstance(record, Mapping) and "match" in record:
        return _check_match_line(record, index)
    table = block.get("table") if isinstance(block, Mapping) else None
    hand = block.get("hand") if isinstance(block, Mapping) else None
    scheme = block.get("scheme") if isinstance(block, Mapping) else None
    table = table if isinstance(table, str) else None
    hand = hand if isinstance(hand, int) and not isinstance(hand, bool) else None
    scheme = scheme if isinstance(scheme, str) else None
    try:
        contributed = _verify(record, block)
    except _Bad as exc:
        return HandCheck(index, table, hand, False, str(exc), scheme)
    return HandCheck(index, table, hand, True, None, scheme, contributed)


def _check_match_line(record: Mapping[str, Any], index: int) -> HandCheck:
    """A bot match's hand (:data:`MATCH_DEAL`): its match block names the match, and
    its hand seed is its session's seed for its hand (the replay then checks the deck is
    that seed's shuffle, and every action)."""
    match, session = record.get("match"), record.get("session")
    match_id = match.get("id") if isinstance(match, Mapping) else None
    if not isinstance(match_id, str):
        return HandCheck(index, None, None, False, "the match block names no match", MATCH_DEAL)
    if not isinstance(session, Mapping):
        problem = "the record has no session block (a server's hands all have one)"
        return HandCheck(index, match_id, None, False, problem, MATCH_DEAL)
    hand, seed = session.get("hand"), session.get("seed")
    if isinstance(hand, bool) or not isinstance(hand, int) or hand < 1:
        problem = "the session block has no valid hand number"
        return HandCheck(index, match_id, None, False, problem, MATCH_DEAL)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        problem = "the session block has no valid session seed"
        return HandCheck(index, match_id, hand, False, problem, MATCH_DEAL)
    expected = hand_seed(seed, hand)
    if record.get("seed") != expected:
        problem = (
            f"the hand's seed {record.get('seed')!r} is not its session's seed for hand"
            f" {hand} ({expected}), which a bot match deals from"
        )
        return HandCheck(index, match_id, hand, False, problem, MATCH_DEAL)
    return HandCheck(index, match_id, hand, True, None, MATCH_DEAL)


def _verify(record: Mapping[str, Any], block: object) -> tuple[str, ...]:
    """The players who contributed to the deal, once every check passed (else _Bad)."""
    if not isinstance(block, Mapping):
        raise _Bad("no fairness block (not a hand dealt by a chinese-poker server)")
    scheme = block.get("scheme")
    if scheme not in (SCHEME, LEGACY_SCHEME):
        raise _Bad(f"unknown fairness scheme {scheme!r} (expected {SCHEME!r})")
    table, hand, seed, salt = _revealed(block)
    players = _players(record, hand)
    recorded = block.get("commitment")
    contributed: tuple[str, ...] = ()
    if scheme == LEGACY_SCHEME:
        commit = Commitment(table, hand, "", seed, salt, str(recorded))
        if commit.scheme != LEGACY_SCHEME:
            expected = _sha256(f"{LEGACY_SCHEME}|{table}|{hand}|{seed}|{salt}")
            raise _Bad(
                f"commitment mismatch: the revealed seed and salt hash to {expected},"
                f" but {recorded!r} was committed"
            )
        deal = commit.deal(())
    else:
        deal, contributed = _committed_deal(record, block, players, (table, hand, seed, salt))
    _check_deck(record, deal)
    return contributed


def _revealed(block: Mapping[str, Any]) -> tuple[str, int, str, str]:
    """(table id, hand number, seed, salt) of a fairness block, each checked."""
    table, hand = block.get("table"), block.get("hand")
    seed, salt = block.get("seed"), block.get("salt")
    if not isinstance(table, str) or "|" in table:
        raise _Bad("the fairness block has no valid table id")
    if isinstance(hand, bool) or not isinstance(hand, int) or hand < 1:
        raise _Bad("the fairness block has no valid hand number")
    for name, value in (("seed", seed), ("salt", salt)):
        if not isinstance(value, str) or not _HEX32.match(value):
            raise _Bad(f"the revealed {name} is not 32 lowercase hex digits: {value!r}")
    assert isinstance(seed, str) and isinstance(salt, str)
    return table, hand, seed, salt


def _players(record: Mapping[str, Any], hand: int) -> list[str]:
    """The hand's players, once the record's session block is the fairness block's hand."""
    session = record.get("session")
    if not isinstance(session, Mapping):
        # a server deals every hand in a session: without its block, the ledger of this
        # and the later hands could not be checked
        raise _Bad("the record has no session block (a server's hands all have one)")
    if session.get("hand") != hand:
        raise _Bad(
            f"the fairness block is for hand {hand}, the record is session hand"
            f" {session.get('hand')!r}"
        )
    players = record.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise _Bad("the record has no list of players")
    return players


def _committed_deal(
    record: Mapping[str, Any],
    block: Mapping[str, Any],
    players: list[str],
    revealed: tuple[str, int, str, str],
) -> tuple[Deal, tuple[str, ...]]:
    """(the deal, the players who contributed) of a hand of the current scheme: the rules
    and the revealed seed and salt are the committed ones, the contributions complete."""
    table, hand, seed, salt = revealed
    digest = block.get("rules_digest")
    actual = rules_digest(record.get("rules") or {})
    if digest != actual:
        raise _Bad(
            f"the rules differ from the committed ones: the recorded rules digest to"
            f" {actual}, the commitment covers {digest!r}"
        )
    commit = Commitment.make(table, hand, actual, seed, salt)
    recorded = block.get("commitment")
    if recorded != commit.commitment:
        raise _Bad(
            f"commitment mismatch: the revealed seed and salt hash to"
            f" {commit.commitment}, but {recorded!r} was committed"
        )
    contributions = _contributions(block, players, commit)
    contributed = tuple(c.player for c in contributions if c.source == "player")
    deal = commit.deal(contributions)
    if block.get("deal_seed") != deal.seed:
        raise _Bad(
            f"the deal seed of the revealed contributions is {deal.seed}, the record"
            f" says {block.get('deal_seed')!r}"
        )
    return deal, contributed


def _check_deck(record: Mapping[str, Any], deal: Deal) -> None:
    """The recorded deck is the start of the deal's shuffle."""
    recorded_deck = record.get("deck")
    if not isinstance(recorded_deck, list) or not recorded_deck:
        raise _Bad("the record has no deck")
    try:
        cards = tuple(parse_card(str(c)) for c in recorded_deck)
    except CardError as exc:
        raise _Bad(f"bad card in the deck: {exc}") from None
    if cards != deal.deck[: len(cards)]:
        at = next(i for i, (a, b) in enumerate(zip(cards, deal.deck, strict=False)) if a != b)
        raise _Bad(
            f"the recorded deck is not the shuffle of the {'deal' if deal.seed else 'revealed'}"
            f" seed: card {at + 1} is {card_name(cards[at])}, the shuffle gives"
            f" {card_name(deal.deck[at])}"
        )


def _contributions(
    block: Mapping[str, Any], players: list[str], commit: Commitment
) -> tuple[Contribution, ...]:
    raw = block.get("contributions")
    if not isinstance(raw, list):
        raise _Bad("the fairness block has no list of contributions")
    out = []
    for i, item in enumerate(raw, 1):
        if not isinstance(item, Mapping):
            raise _Bad(f"contribution {i} is not an object")
        player, source, value = item.get("player"), item.get("source"), item.get("value")
        if source not in SOURCES or not isinstance(player, str):
            raise _Bad(f"contribution {i} has no player name or an unknown source {source!r}")
        if source == "absent" and value is not None:
            raise _Bad(f"{player}'s contribution is marked absent but has a value")
        if source == "player":
            try:
                check_contribution(value)
            except ValueError as exc:
                raise _Bad(f"{player}'s contribution: {exc}") from None
        if source == "bot" and value != commit.bot_value(player):
            raise _Bad(
                f"{player}'s bot value is not the one the commitment fixes"
                f" ({commit.bot_value(player)})"
            )
        out.append(Contribution(player, str(source), value if source != "absent" else None))
    named = [c.player for c in out]
    if named != players:
        raise _Bad(
            f"the contributions are from {', '.join(named) or 'nobody'}; the hand's players"
            f" are {', '.join(players)} (one contribution per player, in seat order)"
        )
    return tuple(out)
