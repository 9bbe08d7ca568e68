"""Scripted hands for the engine tests: stacked decks that produce chosen boards.

``stack_hand`` builds, for one hand, the deck in the canonical deal order of RULES §5.1
and the actions that place each card where the script says. ``drive`` plays a table with
those actions; seats without a script are played by the §10 placement rule (without a
Timeout, so a session goes on normally).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from chinese_poker.cards import Card, parse_board, parse_cards
from chinese_poker.engine import Place, Table, timeout_action
from chinese_poker.rules import Rules, rules_for

# A seat's script: a complete board "top | middle | bottom" (its streets are cut from it in
# order, discards come from unused cards), or an explicit list of streets
# (dealt cards in order, placement "top | middle | bottom / discards" or None).
Script = str | Sequence[tuple[str, str | None]]


def _place_from_text(seat: int, text: str) -> Place:
    lines, _, discard = text.partition("/")
    return Place.parse(seat, lines, discard=discard)


def stack_hand(
    rules: Rules,
    n: int,
    button: int,
    scripts: Mapping[int, Script],
    fantasyland: Mapping[int, int] | None = None,
) -> tuple[list[Card], dict[int, list[Place]]]:
    """The stacked deck and per-seat action queues for one open-face hand."""
    fl = dict(fantasyland or {})
    order = [(button + 1 + i) % n for i in range(n)]
    used: set[Card] = set()
    sequences: dict[int, list[tuple[Card, int]]] = {}
    for seat, script in scripts.items():
        if isinstance(script, str):
            board = parse_board(script)
            seq = [(c, line) for line, cards in enumerate(board.lines) for c in cards]
            sequences[seat] = seq
            used.update(board.cards)
        else:
            for dealt, _ in script:
                used.update(parse_cards(dealt))
    pool = [c for c in range(52) if c not in used]

    def take(k: int) -> list[Card]:
        out = pool[:k]
        del pool[:k]
        return out

    deck: list[Card] = []
    queues: dict[int, list[Place]] = {seat: [] for seat in range(n)}
    explicit = {s: list(v) for s, v in scripts.items() if not isinstance(v, str)}
    for seat in order:
        if seat not in fl:
            continue
        k = fl[seat]
        if seat in sequences:
            seq = sequences[seat]
            thrown = take(k - 13)
            deck.extend([c for c, _ in seq] + thrown)
            lines: list[list[Card]] = [[], [], []]
            for c, line in seq:
                lines[line].append(c)
            queues[seat].append(
                Place(seat, tuple(lines[0]), tuple(lines[1]), tuple(lines[2]), tuple(thrown))
            )
        elif seat in explicit:
            dealt, placement = explicit[seat].pop(0)
            deck.extend(parse_cards(dealt))
            if placement is not None:
                queues[seat].append(_place_from_text(seat, placement))
        else:
            deck.extend(take(k))
    if rules.is_open_face:
        for dealt_count, placed in rules.streets:
            for seat in order:
                if seat in fl:
                    continue
                if seat in sequences:
                    seq = sequences[seat]
                    part, sequences[seat] = seq[:placed], seq[placed:]
                    thrown = take(dealt_count - placed)
                    deck.extend([c for c, _ in part] + thrown)
                    lines = [[], [], []]
                    for c, line in part:
                        lines[line].append(c)
                    queues[seat].append(
                        Place(
                            seat, tuple(lines[0]), tuple(lines[1]), tuple(lines[2]), tuple(thrown)
                        )
                    )
                elif seat in explicit:
                    dealt, placement = explicit[seat].pop(0)
                    deck.extend(parse_cards(dealt))
                    if placement is not None:
                        queues[seat].append(_place_from_text(seat, placement))
                else:
                    deck.extend(take(dealt_count))
    deck.extend(pool)
    return deck, queues


def top_first(table: Table, seat: int) -> Place:
    """Fill the top, then the middle, then the bottom, in the order dealt.

    Stacked decks give unscripted seats the lowest unused cards first, so this puts the
    lowest cards on top: such a board never earns Fantasyland.
    """
    dec = table.decisions(seat)[0]
    kept, thrown = dec.cards[: dec.place], dec.cards[dec.place :]
    room = list(dec.free)
    lines: list[list[Card]] = [[], [], []]
    line = 0
    for card in kept:
        while room[line] == 0:
            line += 1
        lines[line].append(card)
        room[line] -= 1
    return Place(seat, tuple(lines[0]), tuple(lines[1]), tuple(lines[2]), tuple(thrown))


def drive(table: Table, queues: Mapping[int, list[Place]], *, filler: str = "top") -> None:
    """Play ``table`` with the queued actions; other decisions by ``filler``:
    ``"top"`` (:func:`top_first`) or ``"timeout"`` (the §10 placement)."""
    pending = {seat: list(q) for seat, q in queues.items()}
    while not table.over:
        seat = table.to_act[0]
        queue = pending.get(seat)
        if queue:
            table.apply(queue.pop(0))
        elif filler == "top":
            table.apply(top_first(table, seat))
        else:
            table.apply(timeout_action(table.decisions(seat)[0]))


def test_stack_hand_produces_the_scripted_boards() -> None:
    rules = rules_for("pineapple")
    boards = {
        0: "Kd Kc 2h | 7s 7h 7d 3c 4c | As Ah Ad Qs Qh",
        2: "5c 6c 8d | 9s 9h Td Jd 2d | Tc Jc Qc 8c Ac",
    }
    deck, queues = stack_hand(rules, 3, 0, boards)
    assert sorted(deck) == list(range(52))
    table = Table(rules, 3, button=0, deck=deck)
    drive(table, queues)
    assert str(table.board(0)) == boards[0]
    assert str(table.board(2)) == boards[2]
    assert len(table.discards(0)) == 4
