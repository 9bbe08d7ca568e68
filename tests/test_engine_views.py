"""Views leak nothing (RULES §6): thousands of random hands, every seat, every step.

The set of cards a seat may know is computed here from the true state, independently of
the view code: its own dealt cards (its hand and its own discards), every card placed
face up by a seat outside Fantasyland in an open-face game, and after the showdown every
card on every board. A spectator knows only the public part. Every card found in a view
(its fields, and for a sample of hands its JSON form, searched as text) must be allowed.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Iterator

import pytest

from chinese_poker.cards import Board, Card, card_name, parse_card
from chinese_poker.engine import Table, Timeout, View
from chinese_poker.engine.views import build_view, build_views, placement_fouls, public_log_entry
from chinese_poker.rules import preset_names, rules_for
from chinese_poker.scoring import certain_foul

CARD_TEXT = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][shdc])(?![A-Za-z0-9])")


def allowed_cards(t: Table, seat: int | None) -> set[Card]:
    hands = 2 if t.rules.variant == "criss_cross" else 1
    allowed: set[Card] = set()
    for s in range(t.n_seats):
        for h in range(hands):
            board = t.board(s, h)
            if s == seat:
                allowed.update(t.dealt(s, h))
            elif t.over or (t.rules.is_open_face and s not in t.fantasyland):
                allowed.update(board.cards)
    return allowed


def view_cards(v: View) -> set[Card]:
    found: set[Card] = set(v.hand)
    for d in v.decisions:
        found.update(d.cards)
    for b in v.boards:
        found.update(b.top)
        found.update(b.middle)
        found.update(b.bottom)
        found.update(b.discards)
    if v.settlement is not None:
        found.update(parse_card(m) for m in CARD_TEXT.findall(json.dumps(v.settlement)))
    return found


def check_views(t: Table, *, as_json: bool) -> None:
    for seat in [*range(t.n_seats), None]:
        v = t.view(seat)
        allowed = allowed_cards(t, seat)
        leaked = view_cards(v) - allowed
        assert not leaked, (seat, [card_name(c) for c in leaked])
        if seat is not None:
            mine = {c for d in t.decisions(seat) for c in d.cards}
            assert set(v.hand) == mine  # the seat sees all its own cards to play
        if as_json:
            text = json.dumps(v.to_dict())
            in_text = {parse_card(m) for m in CARD_TEXT.findall(text)}
            assert not in_text - allowed, (seat, sorted(in_text - allowed))
        for b in v.boards:
            if b.seat != seat:
                assert b.discards == ()
        assert v.version == t.version and v.to_act == t.to_act


@pytest.mark.slow
@pytest.mark.parametrize("preset", preset_names())
def test_views_never_leak(preset: str) -> None:
    rules = rules_for(preset)
    rng = random.Random(preset)
    hands = 40 if rules.is_classic else 100
    for n in rules.player_counts:
        for k in range(hands):
            fl: dict[int, int] = {}
            if rules.is_open_face and k % 3 == 0:
                fl = {rng.randrange(n): 13 if rules.variant != "pineapple" else 14}
            t = Table(rules, n, button=k % n, seed=k, fantasyland=fl)
            as_json = k % 10 == 0
            while not t.over:
                check_views(t, as_json=as_json)
                seat = rng.choice(t.to_act)
                if rng.random() < 0.02:
                    t.apply(Timeout(seat))
                else:
                    t.apply(t.random_action(seat, rng))
            check_views(t, as_json=True)


def test_fantasyland_and_classic_boards_hidden_until_showdown() -> None:
    t = Table(rules_for("ofc"), 2, seed=3, fantasyland={0: 13})
    rng = random.Random(1)
    t.apply(t.random_action(0, rng))
    other = t.view(1).board_of(0)
    assert other.hidden and other.is_set and other.placed == 13 and other.top == ()
    assert other.fantasyland_cards == 13 and t.view(1).fantasyland == (0,)
    own = t.view(0).board_of(0)
    assert not own.hidden and len(own.top) == 3
    while not t.over:
        t.apply(t.random_action(t.to_act[0], rng))
    shown = t.view(1).board_of(0)
    assert not shown.hidden and shown.board == t.board(0)
    assert t.view(None).settlement is not None and t.view(None).totals == t.totals

    c = Table(rules_for("classic"), 3, seed=4)
    c.apply(c.random_action(0, rng))
    assert c.view(1).board_of(0).hidden and c.view(1).board_of(0).is_set
    assert not c.view(0).board_of(0).hidden


def test_view_fields_and_json() -> None:
    t = Table(rules_for("pineapple"), ["Ann", "Bob"], button=0, seed=5)
    v = t.view(1)
    data = v.to_dict()
    assert data["player"] == "Bob" and data["variant"] == "pineapple"
    assert data["to_act"] == [1] and data["street"] == 1 and data["button"] == 0
    assert len(data["hand"]) == 5 and data["decisions"][0]["kind"] == "street"
    assert data["settlement"] is None and "deck" not in json.dumps(data)
    assert v.my_turn and not t.view(0).my_turn and not v.over
    with pytest.raises(ValueError, match="no seat"):
        t.view(2)
    with pytest.raises(KeyError):
        v.board_of(5)


@pytest.mark.parametrize("preset", ["pineapple", "ofc", "classic", "criss-cross"])
def test_views_built_together_are_each_seats_own(preset: str) -> None:
    """build_views (what the server uses, every seat at once) gives each seat exactly
    the view build_view gives it alone, at every step of hands with Fantasyland; a board
    is shared among the seats that do not own it, who see it alike, and with its owner
    exactly when the owner sees it alike too (face up, no discards)."""
    for t in _every_step(preset, 4):
        players = t.n_seats
        together = build_views(t, [None, *range(players), 0])
        assert list(together) == [None, *range(players)]
        for seat, view in together.items():
            assert view == build_view(t, seat)
            for i, board in enumerate(view.boards):
                spectators = together[None].boards[i]
                shared = board.seat != seat or board == spectators
                assert (board is spectators) == shared, (seat, i)
    with pytest.raises(ValueError, match="no seat"):
        build_views(t, [0, players])


def _every_step(preset: str, hands: int) -> Iterator[Table]:
    """The table at every step of ``hands`` random hands (every other one with a seat
    in Fantasyland), three players (two in Criss Cross)."""
    rules = rules_for(preset)
    rng = random.Random(preset)
    players = 2 if preset == "criss-cross" else 3
    for k in range(hands):
        fl = {k % players: 14 if preset == "pineapple" else 13} if rules.is_open_face else {}
        t = Table(rules, players, seed=k, fantasyland=fl if k % 2 else {})
        yield t
        while not t.over:
            t.apply(t.random_action(rng.choice(t.to_act), rng))
            yield t


def _log_cards(entry: dict[str, object]) -> set[Card]:
    cards: set[Card] = set()
    for key in ("top", "middle", "bottom", "discard"):
        names = entry.get(key) or []
        assert isinstance(names, list)
        cards.update(parse_card(str(n)) for n in names)
    return cards


@pytest.mark.parametrize("preset", ["pineapple", "ofc", "classic", "criss-cross"])
def test_a_seats_log_hides_what_its_view_hides(preset: str) -> None:
    """Every card the redacted log shows a seat (public_log_entry with the view's
    hidden boards) is a card its view shows (a board's visible cards or its own
    discards), and every such card of this hand's log is shown: the two hide the same
    things, Fantasyland boards and classic sets included, at every step."""
    for t in _every_step(preset, 6):
        for seat in [*range(t.n_seats), None]:
            v = t.view(seat)
            shown: set[Card] = set()
            for b in v.boards:
                shown.update(b.top + b.middle + b.bottom + b.discards)
            logged: set[Card] = set()
            for entry in t.log:
                logged |= _log_cards(public_log_entry(entry, seat, v.hidden_boards))
            assert logged == shown, (preset, seat, sorted(logged ^ shown))


def test_the_placements_that_foul_are_the_scorers_certain_fouls() -> None:
    """placement_fouls lists exactly the placements of the viewer's street whose board
    scoring.certain_foul judges a foul against the cards the viewer has not seen (a
    hidden Fantasyland board's cards count as unseen), and nothing for another seat."""
    rules = rules_for("pineapple")
    rng = random.Random(7)
    listed = 0
    for k in range(4):
        t = Table(rules, 3, seed=k, fantasyland={2: 14} if k % 2 else {})
        while not t.over:
            seat = t.to_act[0]
            v = t.view(seat)
            fouls = placement_fouls(v)
            listed += len(fouls)
            for d in v.decisions:
                if d.kind != "street":
                    assert not any(key.startswith(f"{d.hand}:") for key in fouls)
                    continue
                seen = set(v.hand) | {
                    c for b in v.boards for c in b.top + b.middle + b.bottom + b.discards
                }
                unseen = set(range(52)) - seen
                board = v.board_of(seat, d.hand).board
                expected = {}
                for code in map("".join, itertools.product("tmbd", repeat=len(d.cards))):
                    lines = [
                        tuple(c for c, w in zip(d.cards, code, strict=True) if w == x)
                        for x in "tmb"
                    ]
                    if code.count("d") != d.discard or any(
                        len(cards) > room for cards, room in zip(lines, d.free, strict=True)
                    ):
                        continue
                    placed = Board(board.top + lines[0], board.middle + lines[1],
                                   board.bottom + lines[2])  # fmt: skip
                    reason = certain_foul(rules, placed, unseen)
                    if reason is not None:
                        expected[f"{d.hand}:{code}"] = str(reason)
                assert {key: r["text"] for key, r in fouls.items()} == expected
            for other in range(3):
                if other != seat:
                    assert placement_fouls(t.view(other)) == {}
            t.apply(t.random_action(seat, rng))
    assert listed > 0  # random play puts pairs on top often enough
