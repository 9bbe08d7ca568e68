"""The one-hand state machine: deal, turns, legality, timeouts (RULES §5, §6, §10, W16)."""

from __future__ import annotations

import collections
import doctest
import json
import random
import re
from pathlib import Path

import pytest

import chinese_poker.engine as engine_pkg
from chinese_poker.cards import card_name, parse_cards
from chinese_poker.engine import (
    Action,
    ClaimNatural,
    Decision,
    IllegalActionError,
    Place,
    Surrender,
    Table,
    TableError,
    Timeout,
    View,
    action_from_dict,
    actions,
    autoplay,
    history,
    session,
    shuffled_deck,
    table,
    views,
)
from chinese_poker.engine.actions import count_placements, iter_placements, sample_placement
from chinese_poker.rules import rules_for
from test_engine_scripts import drive, stack_hand


def finish(t: Table, rng: random.Random) -> None:
    while not t.over:
        t.apply(t.random_action(rng.choice(t.to_act), rng))


@pytest.mark.parametrize("module", [engine_pkg, actions, autoplay, table, views, session, history])
def test_doctests(module: object) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # type: ignore[arg-type]
    assert result.failed == 0


# --------------------------------------------------------------------------- setup


def test_table_setup_errors() -> None:
    ofc = rules_for("ofc")
    with pytest.raises(TableError, match="2 to 3 players"):
        Table(rules_for("pineapple"), 4)
    with pytest.raises(TableError, match=r"exactly|2 to 2"):
        Table(rules_for("criss-cross"), 3)
    with pytest.raises(TableError, match="button"):
        Table(ofc, 2, button=2)
    with pytest.raises(TableError, match="not both"):
        Table(ofc, 2, seed=1, deck=list(range(52)))
    with pytest.raises(TableError, match="twice"):
        Table(ofc, 2, deck=[0, 0, *range(2, 52)])
    with pytest.raises(TableError, match="needs 26"):
        Table(ofc, 2, deck=list(range(20)))
    with pytest.raises(TableError, match="no Fantasyland"):
        Table(rules_for("classic"), 2, fantasyland={0: 13})
    with pytest.raises(TableError, match="has 13 cards, not 12"):
        Table(ofc, 2, fantasyland={0: 12})
    with pytest.raises(TableError, match="has 14 cards, not 15"):
        Table(rules_for("pineapple"), 2, fantasyland={0: 15})
    with pytest.raises(TableError, match="14 or 15 or 16 or 17"):
        Table(rules_for("pineapple-progressive"), 2, fantasyland={0: 18})
    with pytest.raises(TableError, match="disabled"):
        Table(rules_for("ofc", fantasyland_enabled=False), 2, fantasyland={0: 13})
    with pytest.raises(TableError, match="different"):
        Table(ofc, ["A", "A"])
    with pytest.raises(TableError, match="has 30 cards; this deal needs 39"):
        Table(ofc, 3, fantasyland={0: 13}, deck=list(range(30)))


def test_seed_is_recorded_and_reproducible() -> None:
    rules = rules_for("pineapple")
    t = Table(rules, 2)
    assert isinstance(t.seed, int)
    assert t.deck == shuffled_deck(t.seed)
    a, b = Table(rules, 2, seed=99), Table(rules, 2, seed=99)
    assert a.deck == b.deck
    finish(a, random.Random(1))
    finish(b, random.Random(1))
    assert a.boards == b.boards and a.totals == b.totals
    assert Table(rules, 2, deck=list(range(52))).seed is None


def test_canonical_deal_order_open_face() -> None:
    rules = rules_for("pineapple-progressive")
    t = Table(rules, 3, button=0, seed=5, fantasyland={2: 16})
    deck = t.deck
    finish(t, random.Random(2))
    assert t.play_order == (1, 2, 0)
    assert t.dealt(2) == deck[:16]  # Fantasyland first
    pos = 16
    expected: dict[int, list[int]] = {1: [], 0: []}
    for dealt, _ in rules.streets:
        for seat in (1, 0):
            expected[seat].extend(deck[pos : pos + dealt])
            pos += dealt
    assert t.dealt(1) == tuple(expected[1])
    assert t.dealt(0) == tuple(expected[0])


def test_canonical_deal_order_classic_and_criss_cross() -> None:
    t = Table(rules_for("classic"), 3, button=1, seed=8)
    for i, card in enumerate(t.deck[:39]):
        assert card in t.dealt(t.play_order[i % 3])
    assert len(t.dealt(0)) == 13
    cc = Table(rules_for("criss-cross"), 2, button=0, seed=8)
    assert cc.dealt(1, 0) == cc.deck[0:26:2] and cc.dealt(0, 0) == cc.deck[1:26:2]
    assert cc.dealt(1, 1) == cc.deck[26:52:2] and cc.dealt(0, 1) == cc.deck[27:52:2]


# --------------------------------------------------------------------------- turns


def test_open_face_turn_order_button_last() -> None:
    rules = rules_for("ofc")
    t = Table(rules, 4, button=2, seed=1)
    rng = random.Random(1)
    order = []
    while not t.over:
        assert len(t.to_act) == 1
        seat = t.to_act[0]
        order.append((t.street, seat))
        t.apply(t.random_action(seat, rng))
    expected = [(street, seat) for street in range(1, 10) for seat in (3, 0, 1, 2)]
    assert order == expected


def test_fantasyland_seats_act_first_together() -> None:
    """[001] §9.3: "Igrač koji igra fantasy ima pravo na prvi potez, bez obzira na njegovu
    poziciju za stolom. Ako postoji više od jednog takvog igrača u rundi, onda to čine
    zajedno. Runda se zatim nastavlja kao i obično." (The Fantasyland player has the first
    move regardless of his position; several do it together; then the round goes on.)"""
    rules = rules_for("ofc")
    t = Table(rules, 3, button=0, seed=2, fantasyland={0: 13, 2: 13})
    # Seat 0 is on the button and seat 2 second in play order: both set before seat 1.
    assert t.to_act == (2, 0) and t.street == 0
    assert t.decisions(0)[0].kind == "set" and t.decisions(1) == ()
    assert t.view(1).hand == () and "not seat 1's turn" in str(t.check(Place(1)))
    rng = random.Random(3)
    v0 = t.version
    fl_action = t.random_action(0, random.Random(4))
    t.apply(t.random_action(2, rng))
    assert t.to_act == (0,)  # the streets wait for the last Fantasyland seat
    assert t.can(fl_action)  # made before seat 2 moved, still current for seat 0
    t.apply(fl_action)
    assert t.version == v0 + 2
    assert t.to_act == (1,) and t.street == 1 and t.decisions(1)[0].kind == "street"
    # The boards set first stay face down to the player who plays the streets.
    assert t.view(1).board_of(0).hidden and t.view(1).board_of(2).top == ()
    finish(t, rng)
    assert len(t.discards(0)) == 0 and t.board(0).complete


def test_fantasyland_on_the_button_sees_no_board_first() -> None:
    """[000] §9.3: "Играчът, който изложи фантазията, получава правото на първи ход,
    независимо от позицията си на масата." Under the standard driver (the first seat
    to act plays) the button's Fantasyland deal is set before anybody places a card."""
    from chinese_poker.ai.simple import RuleBot
    from chinese_poker.engine import play_hand

    class Watch:
        def __init__(self, bot: RuleBot) -> None:
            self.bot, self.seen = bot, []

        def act(self, view: View) -> Action:
            self.seen.append(sum(b.placed for b in view.boards if b.seat != view.seat))
            return self.bot.act(view)

    for players, button in ((2, 1), (3, 2)):
        t = Table(rules_for("pineapple"), players, button=button, seed=8, fantasyland={button: 14})
        fl = Watch(RuleBot(seed=1))
        agents = {s: (fl if s == button else RuleBot(seed=s)) for s in range(players)}
        play_hand(t, agents)
        assert fl.seen == [0]  # one decision, taken with every other board empty
        assert t.log[0].action.seat == button


def test_all_seats_in_fantasyland() -> None:
    t = Table(rules_for("pineapple"), 2, seed=3, fantasyland={0: 14, 1: 14})
    assert t.street == 0 and t.to_act == (1, 0)
    finish(t, random.Random(1))
    assert len(t.actions) == 2


def test_decisions_describe_the_street() -> None:
    t = Table(rules_for("pineapple"), 2, seed=4)
    dec = t.decisions(1)[0]
    assert (dec.kind, dec.place, dec.discard, dec.free, dec.street) == (
        "street",
        5,
        0,
        (3, 5, 5),
        1,
    )
    rng = random.Random(0)
    t.apply(t.random_action(1, rng))
    t.apply(t.random_action(0, rng))
    dec = t.decisions(1)[0]
    assert (dec.place, dec.discard, dec.street, len(dec.cards)) == (2, 1, 2, 3)
    assert sum(dec.free) == 8


# --------------------------------------------------------------------------- legality


def test_check_explains() -> None:
    t = Table(rules_for("pineapple"), 2, button=0, seed=6)
    cards = t.decisions(1)[0].cards
    a, b, c, d, e = cards
    assert t.check("x") == "not an action: 'x'"
    assert t.check(Place(5)) == "there is no seat 5; seats are 0..1"
    assert t.check(Place(0, top=(a,))) == "it is not seat 0's turn (to act: 1)"
    assert t.check(Place(1, hand=1)) == "seat 1 has no hand 1"
    assert t.check(Place(1, top=(a, b, c, d), bottom=(e,))) == (
        "the top line has room for 3 more card(s), not 4"
    )
    assert (
        t.check(Place(1, top=(a,), bottom=(b, c, d))) == "exactly 5 card(s) must be placed, not 4"
    )
    assert t.check(Place(1, top=(a,), bottom=(b, c, d, e), discard=(e,))) == (
        "nothing may be discarded here, but 1 card(s) were"
    )
    assert t.check(Place(1, top=(a,), bottom=(b, c, d, d))) == (
        f"{_n(d)} appears twice in the action"
    )
    other = next(x for x in range(52) if x not in cards)
    assert t.check(Place(1, top=(a,), bottom=(b, c, d, other))) == (
        f"{_n(other)} is not among the cards to play ({_s(cards)})"
    )
    assert t.check(Place(1, top=[a], bottom=(b, c, d, e))) == (  # type: ignore[arg-type]
        "the lines and the discards of a Place must be tuples of cards"
    )
    assert t.check(Place(1, top=(a,), bottom=(b, c, d, 99))) == "99 is not a card"
    assert "cannot surrender" in (t.check(Surrender(1)) or "")
    assert "no natural" in (t.check(ClaimNatural(1)) or "")
    assert t.check(Place(1, top=(a,), middle=(b,), bottom=(c, d, e))) is None


def _n(card: int) -> str:
    from chinese_poker.cards import card_name

    return card_name(card)


def _s(cards: tuple[int, ...]) -> str:
    from chinese_poker.cards import cards_str

    return cards_str(cards)


def test_versions_stale_and_future() -> None:
    t = Table(rules_for("ofc"), 2, button=0, seed=7)
    rng = random.Random(0)
    t.apply(t.random_action(1, rng))
    t.apply(t.random_action(0, rng))
    stale = t.random_action(1, rng)
    stale = Place(1, stale.top, stale.middle, stale.bottom, version=1)
    reason = t.check(stale)
    assert reason is not None and reason.startswith("stale action: made against version 1")
    assert "situation changed at version 2" in reason
    ahead = Place(1, version=t.version + 1)
    assert t.check(ahead) == f"version {t.version + 1} is ahead of the table (version 2)"
    good = t.random_action(1, rng)
    assert good.version == t.version and t.can(good)


def test_illegal_apply_leaves_state_unchanged() -> None:
    t = Table(rules_for("pineapple-progressive"), 3, seed=9, fantasyland={0: 15})
    rng = random.Random(5)
    t.apply(t.random_action(0, rng))
    t.apply(t.random_action(1, rng))
    before = t.snapshot()
    bad = [
        Place(2, version=t.version),
        Place(0, version=t.version),
        Timeout(1, version=t.version + 3),
        Surrender(2),
        Place(1, top=(0,)),
    ]
    for action in bad:
        with pytest.raises(IllegalActionError) as info:
            t.apply(action)
        assert info.value.reason == t.check(action)
        assert t.snapshot() == before


def test_timeout_needs_something_left_to_do() -> None:
    t = Table(rules_for("ofc"), 2, button=0, seed=20)
    rng = random.Random(1)
    while len(t.board(1)) < 13 or t.to_act != (0,):
        t.apply(t.random_action(t.to_act[0], rng))
    assert t.check(Timeout(1)) == "seat 1 has nothing left to do in this hand"
    assert t.check(Timeout(0)) is None
    c = Table(rules_for("classic", surrender_allowed=False), 2, seed=21)
    c.apply(c.random_action(0, rng))
    assert c.check(Timeout(0)) == "seat 0 has nothing left to do in this hand"
    assert c.check(Timeout(1)) is None


def test_hand_over() -> None:
    t = Table(rules_for("turbo"), 2, seed=10)
    finish(t, random.Random(2))
    assert t.check(Timeout(0)) == "the hand is over"
    assert t.to_act == () and t.decisions(0) == ()
    with pytest.raises(IllegalActionError):
        t.random_action(0, random.Random(0))
    assert not t.legal_actions(0)


# --------------------------------------------------------------------------- enumeration


@pytest.mark.parametrize(
    ("n", "place", "discard", "free"),
    [
        (5, 5, 0, (3, 5, 5)),
        (3, 2, 1, (3, 5, 5)),
        (3, 2, 1, (1, 0, 1)),
        (4, 4, 0, (1, 2, 3)),
        (1, 1, 0, (0, 0, 1)),
        (6, 5, 1, (1, 2, 2)),
        (8, 6, 2, (1, 2, 3)),
    ],
)
def test_placements_enumerated_counted_and_unique(
    n: int, place: int, discard: int, free: tuple[int, int, int]
) -> None:
    kind = "street" if place <= 5 else "set"
    dec = Decision(0, kind, cards=tuple(range(10, 10 + n)), place=place, discard=discard, free=free)
    listed = list(iter_placements(dec))
    assert len(listed) == count_placements(dec)
    keys = {(frozenset(p.top), frozenset(p.middle), frozenset(p.bottom)) for p in listed}
    assert len(keys) == len(listed)
    for p in listed:
        assert actions.check_placement(dec, p) is None


def test_set_counts() -> None:
    for n, expected in [(13, 72072), (14, 14 * 72072), (17, 2380 * 72072)]:
        dec = Decision(0, "set", cards=tuple(range(n)), place=13, discard=n - 13, free=(3, 5, 5))
        assert count_placements(dec) == expected


def test_legal_actions_of_a_first_street() -> None:
    t = Table(rules_for("ofc"), 2, seed=11)
    legal = t.legal_actions(1)
    listed = list(legal)
    assert len(listed) == len(legal) == 232
    assert all(t.can(a) for a in listed)
    assert listed[0] in legal and Place(0) not in legal
    assert "232 action(s)" in repr(legal)
    assert len(t.legal_actions(0)) == 0


def test_legal_actions_of_a_set_are_lazy() -> None:
    t = Table(rules_for("pineapple-progressive"), 2, seed=12, fantasyland={0: 17})
    legal = t.legal_actions(0)
    assert len(legal) == 2380 * 72072
    first = next(iter(legal))
    assert t.can(first) and len(first.discard) == 4


def test_random_action_is_uniform_on_a_street() -> None:
    t = Table(rules_for("pineapple"), 2, seed=13)
    rng = random.Random(7)
    # A first street leaving room (2, 3, 3): then 3 discards x 9 placements.
    t.apply(next(a for a in t.legal_actions(1) if len(a.top) == 1 and len(a.middle) == 2))  # type: ignore[union-attr]
    t.apply(t.random_action(0, rng))
    legal = list(t.legal_actions(1))
    assert len(legal) == 27

    def key(a: Place) -> tuple[frozenset[int], ...]:
        return (frozenset(a.top), frozenset(a.middle), frozenset(a.bottom), frozenset(a.discard))

    counts = collections.Counter(key(t.random_action(1, rng)) for _ in range(27 * 200))  # type: ignore[arg-type]
    assert set(counts) == {key(a) for a in legal}  # type: ignore[arg-type]
    assert min(counts.values()) > 140 and max(counts.values()) < 260


def test_sample_placement_uniform_line_split_for_sets() -> None:
    dec = Decision(0, "set", cards=tuple(range(6)), place=5, discard=1, free=(1, 2, 2))
    rng = random.Random(3)
    counts = collections.Counter(
        (frozenset(p.top), frozenset(p.middle), frozenset(p.discard))
        for p in (sample_placement(dec, rng) for _ in range(18000))
    )
    assert len(counts) == count_placements(dec) == 180
    assert min(counts.values()) > 50


# --------------------------------------------------------------------------- actions


def test_actions_round_trip_as_json() -> None:
    rng = random.Random(1)
    for preset in ("pineapple", "classic", "criss-cross"):
        t = Table(rules_for(preset, natural_claim="optional"), 2, seed=14)
        while not t.over:
            a = t.random_action(t.to_act[0], rng)
            data = json.loads(json.dumps(a.to_dict()))
            assert action_from_dict(data) == a
            t.apply(a)
    assert action_from_dict(Timeout(1, version=3).to_dict()) == Timeout(1, version=3)
    assert action_from_dict({"type": "place", "seat": 0, "top": "Ah Kd"}).top == parse_cards(
        "Ah Kd"
    )
    for bad in (
        {"type": "fold", "seat": 0},
        {"type": "place"},
        {"type": "place", "seat": "x"},
        {"type": "surrender", "seat": 0, "surrender": "yes"},
        [],
        {"type": "place", "seat": 0, "top": [1.5]},
    ):
        with pytest.raises(ValueError):
            action_from_dict(bad)  # type: ignore[arg-type]
    assert str(Place.parse(0, "Ah | | Kd", discard="2c", hand=1)) == (
        "seat 0 (hand 2) places top Ah, bottom Kd, discards 2c"
    )
    assert str(Surrender(2, False)) == "seat 2 plays"
    assert str(ClaimNatural(1)) == "seat 1 declares a natural"
    assert str(Timeout(0)) == "seat 0 times out"
    with pytest.raises(ValueError):
        Place.parse(0, "Ah Kd")


# --------------------------------------------------------------------------- timeouts


def test_w16_timeout_pineapple() -> None:
    rules = rules_for("pineapple")
    script = [
        ("Qs 8c 8d Ah Kh", "Qs | 8c 8d | Ah Kh"),
        ("As Ks 4c", "| | As Ks / 4c"),
        ("5d Jc 2h", None),
        ("9s 9h Td", None),
        ("3c Th 7d", None),
    ]
    deck, queues = stack_hand(rules, 2, 0, {1: script})
    t = Table(rules, ["Opp", "Hero"], button=0, deck=deck)
    hero = list(queues[1])
    while not t.over:
        seat = t.to_act[0]
        if seat == 1 and hero:
            t.apply(hero.pop(0))
        elif seat == 1:
            assert str(t.board(1)) == "Qs | 8c 8d | Ah Kh As Ks"
            assert t.street == 3
            t.apply(Timeout(1, version=t.version))
            assert t.check(Timeout(1)) == "seat 1 has already timed out; the engine plays for it"
        else:
            t.apply(t.random_action(0, random.Random(seat)))
    assert str(t.board(1)) == "Qs 3c Th | 8c 8d Jc 9s 9h | Ah Kh As Ks 5d"
    assert t.discards(1) == parse_cards("4c 2h Td 7d")
    assert "Hero" not in t.settlement.fouled  # type: ignore[union-attr]
    autos = [e for e in t.log if e.auto]
    assert len(autos) == 3 and all(e.action.seat == 1 for e in autos)
    assert t.timed_out == {1}


def test_timeout_before_the_seats_turn() -> None:
    t = Table(rules_for("ofc"), 3, button=0, seed=15)
    t.apply(Timeout(0))  # seat 0 is the button: it acts last
    assert t.to_act == (1,)
    finish(t, random.Random(3))
    dealt = t.dealt(0)
    board = t.board(0)
    assert board.bottom == dealt[:5] and board.middle == dealt[5:10] and board.top == dealt[10:]


def test_timeout_fantasyland_and_classic() -> None:
    t = Table(rules_for("pineapple-progressive"), 2, seed=16, fantasyland={0: 17})
    t.apply(Timeout(0, version=0))
    dealt = t.dealt(0)
    board = t.board(0)
    assert board.bottom == dealt[:5] and board.middle == dealt[5:10] and board.top == dealt[10:13]
    assert t.discards(0) == dealt[13:]
    c = Table(rules_for("classic"), 4, seed=17)
    c.apply(Timeout(2))
    finish(c, random.Random(4))
    dealt = c.dealt(2)
    assert c.board(2).bottom == dealt[:5] and c.board(2).top == dealt[10:]
    assert all(
        not e.action.surrender  # type: ignore[union-attr]
        for e in c.log
        if e.auto and isinstance(e.action, Surrender)
    )


def test_timeout_placement_rules() -> None:
    dec = Decision(0, "street", cards=parse_cards("Ah Kd Qc"), place=2, discard=1, free=(3, 0, 1))
    a = autoplay.timeout_placement(dec)
    assert (a.bottom, a.top, a.discard) == (parse_cards("Ah"), parse_cards("Kd"), parse_cards("Qc"))
    assert autoplay.timeout_action(Decision(0, "surrender")) == Surrender(0, False)
    assert autoplay.timeout_action(Decision(0, "natural")) == ClaimNatural(0, True)


# --------------------------------------------------------------------------- classic


def _classic_deck_with_dragon(n: int, button: int, seat: int) -> list[int]:
    """A deck whose round-robin deal gives ``seat`` 13 different ranks."""
    order = [(button + 1 + i) % n for i in range(n)]
    dragon = [rank * 4 + (rank % 4) for rank in range(13)]
    rest = [c for c in range(52) if c not in dragon]  # by rank: blocks of 13 hold pairs
    hands = {s: rest[13 * k : 13 * k + 13] for k, s in enumerate(x for x in order if x != seat)}
    hands[seat] = dragon
    deck = [hands[order[i % n]][i // n] for i in range(13 * n)]
    return deck + [c for c in range(52) if c not in deck]


def test_classic_phases_and_surrender_order() -> None:
    t = Table(rules_for("classic"), 4, button=3, seed=18)
    assert t.to_act == (0, 1, 2, 3)  # everybody sets at once
    rng = random.Random(5)
    for seat in (2, 0, 3, 1):
        t.apply(t.random_action(seat, rng))
    assert t.phase == "surrender"
    order = []
    while not t.over:
        seat = t.to_act[0]
        order.append(seat)
        assert t.decisions(seat)[0].kind == "surrender"
        t.apply(Surrender(seat, seat == 1, version=t.version))
    assert order == [0, 1, 2, 3]
    assert t.view(0).board_of(1).surrendered is True
    assert t.settlement.seat("P2").surrendered  # type: ignore[union-attr]
    # A surrendered hand is mucked face down: only its owner ever sees it again.
    mucked = {card_name(c) for c in t.board(1).cards}
    for seat in (None, 0, 2, 3):
        view = t.view(seat)
        assert view.board_of(1).hidden and not view.board_of(1).top
        text = json.dumps(view.to_dict()["settlement"]["players"][1])
        assert not any(re.search(rf"\b{name}\b", text) for name in mucked)
    assert not t.view(1).board_of(1).hidden


def test_classic_automatic_natural_skips_surrender() -> None:
    deck = _classic_deck_with_dragon(4, 0, 2)
    # Naturals as set: the other hands would declare three straights or flushes held.
    t = Table(rules_for("classic", natural_source="set_board"), 4, button=0, deck=deck)
    finish(t, random.Random(6))
    surrender_seats = [e.action.seat for e in t.log if isinstance(e.action, Surrender)]
    assert 2 not in surrender_seats and len(surrender_seats) == 3
    assert t.settlement.seat("P3").natural.kind == "dragon"  # type: ignore[union-attr]
    assert t.totals["P3"] == 39


@pytest.mark.parametrize("claim", [True, False])
def test_classic_optional_natural_claim(claim: bool) -> None:
    rules = rules_for("classic", natural_claim="optional", surrender_allowed=False)
    t = Table(rules, 2, button=0, deck=_classic_deck_with_dragon(2, 0, 1))
    rng = random.Random(8)
    t.apply(t.random_action(0, rng))
    assert t.phase == "play"
    t.apply(t.random_action(1, rng))
    assert t.phase == "naturals" and t.to_act == (1,)
    assert t.view(0).board_of(1).natural is None  # not declared yet
    assert t.view(1).board_of(1).natural == "dragon"
    t.apply(ClaimNatural(1, claim, version=t.version))
    assert t.over
    nat = t.settlement.seat("P2").natural  # type: ignore[union-attr]
    assert (nat is not None) == claim


def test_criss_cross_two_hands() -> None:
    t = Table(rules_for("criss-cross", surrender_allowed=False), ["A", "B"], seed=19)
    assert len(t.decisions(0)) == 2 and t.to_act == (1, 0)
    rng = random.Random(9)
    a = t.random_action(0, rng)
    t.apply(a)
    assert len(t.decisions(0)) == 1 and t.decisions(0)[0].hand == 1 - a.hand  # type: ignore[union-attr]
    assert t.check(Place(0, hand=2)) == "seat 0 has no hand 2"
    assert t.check(Place(0, hand=a.hand)) == f"seat 0's hand {a.hand + 1} has nothing to decide now"  # type: ignore[union-attr]
    finish(t, rng)
    assert len(t.boards) == 4 and t.hand_name(0, 1) == "A/2"
    assert t.totals["A"] == -t.totals["B"]


def test_scripted_boards_settle_w8() -> None:
    rules = rules_for("pineapple-progressive")
    boards = {
        0: "Kh Kd 4c | 9s 9h 9c 5d 2s | Ah Jh 8h 6h 3h",
        1: "6s 6d Qc | Jc Js 8c 8d Ac | 7c 7d 7s 2c 2d",
        2: "Ad As 5c | Qs Qd Tc 4d 3c | Ks Kc Th Td 9d",
    }
    deck, queues = stack_hand(rules, 3, 2, boards)
    t = Table(rules, ["P1", "P2", "P3"], button=2, deck=deck)
    drive(t, queues)
    assert t.totals == {"P1": 28, "P2": 5, "P3": -33}
    assert t.fantasyland_next == {0: 15}


def test_engine_docs_examples() -> None:
    from pathlib import Path

    doc = Path(__file__).resolve().parents[1] / "docs" / "engine.md"
    result = doctest.testfile(str(doc), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 5


@pytest.mark.slow
def test_simulate_plays_fantasyland_first_whatever_the_seat(tmp_path: Path) -> None:
    """[001] §9.3: "Igrač koji igra fantasy ima pravo na prvi potez, bez obzira na njegovu
    poziciju za stolom." Through the standard driver (``simulate``), every hand played
    with Fantasyland seats starts with their sets, the button's included."""
    from chinese_poker.ai.simulate import make_job, simulate
    from chinese_poker.engine import read_history

    seen_button = 0
    fl_hands = 0
    # Seeds until a hand has Fantasyland on the button (which seed does depends on the bot).
    for seed in range(5, 15):
        path = tmp_path / f"hands-{seed}.jsonl"
        simulate(make_job("pineapple", "rules", players=3, hands=60, seed=seed), history=path)
        for rec in read_history(path):
            fl = rec["fantasyland"]
            if not fl:
                continue
            fl_hands += 1
            seats = {rec["players"].index(name) for name in fl}
            first = [a["seat"] for a in rec["actions"][: len(seats)]]
            assert set(first) == seats, rec["actions"][:3]
            seen_button += rec["button"] in seats
        if seen_button:
            break
    assert fl_hands and seen_button  # the case of the issue: Fantasyland on the button


def test_fantasyland_standing_is_checked() -> None:
    ofc = rules_for("ofc")
    with pytest.raises(TableError, match="seat 1 plays no Fantasyland deal"):
        Table(ofc, 2, fantasyland={0: 13}, fantasyland_streak={1: 2})
    with pytest.raises(TableError, match="must be an integer >= 1, not 0"):
        Table(ofc, 2, fantasyland={0: 13}, fantasyland_streak={0: 0})
    with pytest.raises(TableError, match="holds 2 stay"):
        Table(ofc, 2, fantasyland={0: 13}, fantasyland_streak={0: 3}, fantasyland_stays={0: 1})
    t = Table(ofc, 2, fantasyland={0: 13}, fantasyland_streak={0: 2})
    assert t.fantasyland_stays == {0: 1} and t.fantasyland_stays_left(0) == 0
    assert t.fantasyland_stays_left(1) == 0  # not in Fantasyland: no stay to earn
    state = t.hand_state(0)
    assert (state.fantasyland_cards, state.fantasyland_streak, state.placed) == (13, 2, 0)
    assert state.decision is not None and state.decision.kind == "set"
