"""Tests for chinese_poker.cards: notation round trips, board parsing and error messages."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chinese_poker import cards as cards_module
from chinese_poker.cards import (
    LINE_SIZES,
    RANKS,
    SUITS,
    Board,
    CardError,
    card_name,
    card_rank,
    card_suit,
    cards_from_mask,
    cards_str,
    check_disjoint,
    full_deck,
    make_card,
    mask_of,
    parse_board,
    parse_card,
    parse_cards,
)

# Every accepted spelling of each rank and suit.
RANK_SPELLINGS = [[r, r.lower()] + (["10"] if r == "T" else []) for r in RANKS]
SUIT_SPELLINGS = [[s, s.upper(), "♠♥♦♣"[i], "♤♡♢♧"[i]] for i, s in enumerate(SUITS)]

card_ints = st.integers(0, 51)
card_lists = st.lists(card_ints, max_size=20, unique=True)


@st.composite
def spelled(draw: st.DrawFn, card: int) -> str:
    """Any accepted spelling of ``card``: ``Ah``, ``ah``, ``AH``, ``A♥``, ``10h``..."""
    rank = draw(st.sampled_from(RANK_SPELLINGS[card // 4]))
    suit = draw(st.sampled_from(SUIT_SPELLINGS[card % 4]))
    return rank + suit


@st.composite
def written(draw: st.DrawFn, cards: list[int]) -> str:
    """``cards`` written out with random spellings and separators, sometimes glued."""
    tokens = [draw(spelled(c)) for c in cards]
    out = draw(st.sampled_from(["", " ", "  "]))
    for i, token in enumerate(tokens):
        if i:
            out += draw(st.sampled_from([" ", ",", ", ", " , ", "\t", "\n", "   ", ""]))
        out += token
    return out + draw(st.sampled_from(["", " ", "\n"]))


# --------------------------------------------------------------------------- single cards


def test_card_numbering() -> None:
    assert full_deck() == tuple(range(52))
    for card in full_deck():
        rank, suit = card_rank(card), card_suit(card)
        assert make_card(rank, suit) == card == rank * 4 + suit
        assert card_name(card) == RANKS[rank] + SUITS[suit]
        assert parse_card(card_name(card)) == card
    assert parse_card("2s") == 0 and parse_card("Ac") == 51 and parse_card("Ah") == 49


@pytest.mark.parametrize(
    ("token", "name"),
    [
        ("10h", "Th"), ("10♥", "Th"), ("th", "Th"), ("TH", "Th"), ("ah", "Ah"), ("aS", "As"),
        ("K♠", "Ks"), ("k♤", "Ks"), ("Q♦", "Qd"), ("q♢", "Qd"), ("J♣", "Jc"), ("j♧", "Jc"),
        ("2♡", "2h"), (" 9d ", "9d"),
    ],
)  # fmt: skip
def test_spellings(token: str, name: str) -> None:
    assert card_name(parse_card(token)) == name


@settings(deadline=None)
@given(card_ints, st.data())
def test_every_spelling_of_every_card(card: int, data: st.DataObject) -> None:
    assert parse_card(data.draw(spelled(card))) == card


# --------------------------------------------------------------------------- lists of cards


@settings(max_examples=300, deadline=None)
@given(card_lists, st.data())
def test_parse_cards_round_trip(cards: list[int], data: st.DataObject) -> None:
    text = data.draw(written(cards))
    assert parse_cards(text) == tuple(cards)
    canonical = cards_str(cards)
    assert parse_cards(canonical) == tuple(cards)
    assert cards_str(parse_cards(canonical)) == canonical
    assert parse_cards([data.draw(spelled(c)) for c in cards]) == tuple(cards)


@settings(deadline=None)
@given(card_lists)
def test_mask_round_trip(cards: list[int]) -> None:
    mask = mask_of(cards)
    assert cards_from_mask(mask) == tuple(sorted(cards))
    assert mask.bit_count() == len(cards)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("AhKd", "Ah Kd"),
        ("ahkd2c", "Ah Kd 2c"),
        ("10h10d", "Th Td"),
        ("A♠K♥", "As Kh"),
        ("AhKd Qs,Jc", "Ah Kd Qs Jc"),
        ("Ah,Kd, Qs ,Jc", "Ah Kd Qs Jc"),
        ("", ""),
        ("   ", ""),
    ],
)
def test_glued_and_separated(text: str, names: str) -> None:
    assert cards_str(parse_cards(text)) == names


def test_duplicates_allowed_on_request() -> None:
    assert parse_cards("Ah ah AH", unique=False) == (49, 49, 49)


# --------------------------------------------------------------------------- boards


@st.composite
def boards(draw: st.DrawFn, complete: bool = True) -> Board:
    deal = draw(st.permutations(range(52)))
    sizes = LINE_SIZES if complete else [draw(st.integers(0, n)) for n in LINE_SIZES]
    top, middle, bottom = (tuple(deal[sum(sizes[:i]) : sum(sizes[: i + 1])]) for i in range(3))
    return Board(top, middle, bottom)


@settings(max_examples=200, deadline=None)
@given(boards(), st.data())
def test_board_round_trip(board: Board, data: st.DataObject) -> None:
    assert board.complete and len(board) == 13
    assert parse_board(str(board)) == board
    assert Board.parse(str(board)) == board
    text = "|".join(data.draw(written(list(line))) for line in board.lines)
    assert parse_board(text) == board
    assert eval(repr(board), {"Board": Board}) == board
    assert board.to_json() == str(board)
    assert board.cards == board.top + board.middle + board.bottom
    assert board.mask == mask_of(board.cards)


@settings(deadline=None)
@given(boards(complete=False))
def test_partial_board_round_trip(board: Board) -> None:
    assert parse_board(str(board), complete=False) == board
    assert board.complete == (tuple(len(x) for x in board.lines) == LINE_SIZES)
    if not board.complete:
        with pytest.raises(CardError, match="line has"):
            parse_board(str(board))


def test_board_example() -> None:
    board = parse_board("Ah Ad 2c | Kh Kd Qs Jc 10s | 9♠ 9♥ 9♦ 5c 5d")
    assert str(board) == "Ah Ad 2c | Kh Kd Qs Jc Ts | 9s 9h 9d 5c 5d"
    assert parse_board(" | | ", complete=False) == Board()


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("token", "detail"),
    [
        ("Xh", "unknown rank 'X'"),
        ("1h", "unknown rank '1'"),
        ("11h", "unknown rank '11'"),
        ("0s", "unknown rank '0'"),
        ("Ax", "unknown suit 'x'"),
        ("Kz", "unknown suit 'z'"),
        ("10", "unknown rank '1'"),  # read as rank 1, suit 0
        ("A", "expected a rank and a suit"),
        ("AhXd", "unknown rank"),
    ],
)
def test_bad_card_names_the_token(token: str, detail: str) -> None:
    for text in (token, f"Ah {token} 2c", f"Ah,{token}"):
        with pytest.raises(CardError) as info:
            parse_cards(text)
        assert repr(token) in str(info.value)
        assert detail in str(info.value)
        assert info.value.token == token
    with pytest.raises(ValueError):  # CardError is a ValueError
        parse_card(token)


@settings(deadline=None)
@given(card_lists.filter(bool), st.sampled_from("xyzeo0!?"), st.booleans(), st.data())
def test_any_bad_token_is_named(
    cards: list[int], junk: str, bad_rank: bool, data: st.DataObject
) -> None:
    good = [data.draw(spelled(c)) for c in cards]
    bad = junk + "h" if bad_rank else "Q" + junk
    where = data.draw(st.integers(0, len(good)))
    text = " ".join([*good[:where], bad, *good[where:]])
    with pytest.raises(CardError) as info:
        parse_cards(text)
    assert info.value.token == bad
    assert repr(bad) in str(info.value)


@settings(deadline=None)
@given(card_lists.filter(bool), st.data())
def test_duplicate_card_is_named(cards: list[int], data: st.DataObject) -> None:
    again = data.draw(st.sampled_from(cards))
    token = data.draw(spelled(again))
    text = data.draw(written(cards)) + " " + token
    with pytest.raises(CardError, match="duplicate card") as info:
        parse_cards(text)
    assert card_name(again) in str(info.value)
    assert repr(token) in str(info.value)
    assert info.value.token == token


@pytest.mark.parametrize(
    ("text", "line", "count", "part"),
    [
        ("Ah Ad | Kh Kd Qs Jc Ts | 9s 9h 9d 5c 5d", "top", 2, "Ah Ad"),
        ("Ah Ad 2c 3c | Kh Kd Qs Jc Ts | 9s 9h 9d 5c 5d", "top", 4, "Ah Ad 2c 3c"),
        ("Ah Ad 2c | Kh Kd Qs Jc | 9s 9h 9d 5c 5d", "middle", 4, "Kh Kd Qs Jc"),
        ("Ah Ad 2c | Kh Kd Qs Jc Ts | 9s 9h 9d 5c 5d 4d", "bottom", 6, "9s 9h 9d 5c 5d 4d"),
    ],
)
def test_wrong_line_size_names_the_line(text: str, line: str, count: int, part: str) -> None:
    with pytest.raises(CardError) as info:
        parse_board(text)
    message = str(info.value)
    assert f"the {line} line has {count} cards" in message
    assert repr(part) in message
    assert info.value.token == part
    if count > LINE_SIZES[("top", "middle", "bottom").index(line)]:
        with pytest.raises(CardError, match=f"the {line} line has {count}"):
            parse_board(text, complete=False)
    else:
        assert len(parse_board(text, complete=False)) == len(parse_cards(text.replace("|", " ")))


@pytest.mark.parametrize("text", ["Ah Ad 2c | Kh Kd Qs Jc Ts", "a | b | c | d", "Ah Kd"])
def test_board_needs_three_lines(text: str) -> None:
    with pytest.raises(CardError, match="expected three lines") as info:
        parse_board(text)
    assert repr(text) in str(info.value)


def test_card_twice_on_one_board() -> None:
    with pytest.raises(CardError, match="duplicate card Kh on the board") as info:
        parse_board("Ah Ad Kh | Kh Kd Qs Jc Ts | 9s 9h 9d 5c 5d")
    assert info.value.token == "Kh"
    with pytest.raises(CardError, match="duplicate card Ah") as info:
        parse_board("Ah Ad ah | Kh Kd Qs Jc Ts | 9s 9h 9d 5c 5d")
    assert info.value.token == "ah"
    with pytest.raises(CardError, match="bad card 'Zz'"):
        parse_board("Ah Ad 2c | Kh Kd Qs Jc Zz | 9s 9h 9d 5c 5d")


@settings(deadline=None)
@given(boards(), boards(), st.data())
def test_card_on_two_boards(a: Board, b: Board, data: st.DataObject) -> None:
    shared = set(a.cards) & set(b.cards)
    groups = [("board A", a.cards), ("board B", b.cards)]
    if not shared:
        check_disjoint(groups)
        return
    with pytest.raises(CardError) as info:
        check_disjoint(groups)
    token = info.value.token
    assert parse_card(token) in shared
    message = str(info.value)
    assert f"card {token} appears in" in message
    assert "board A" in message and "board B" in message
    # disjoint parts never raise
    check_disjoint([("board A", a.cards), ("rest", sorted(set(range(52)) - set(a.cards)))])


def test_check_disjoint_within_one_group() -> None:
    with pytest.raises(CardError, match="card Ah appears in dead cards twice") as info:
        check_disjoint([("dead cards", parse_cards("Ah Kd Ah", unique=False))])
    assert info.value.token == "Ah"
    check_disjoint([])
    check_disjoint([("a", ()), ("b", parse_cards("Ah"))])


@pytest.mark.parametrize("number", [52, -1, 100])
def test_card_number_out_of_range(number: int) -> None:
    with pytest.raises(CardError, match=f"card number {number} is outside 0..51") as info:
        card_name(number)
    assert info.value.token == str(number)
    with pytest.raises(CardError, match=str(number)):
        cards_str([0, number])


@pytest.mark.parametrize(("rank", "suit"), [(13, 0), (-1, 0), (0, 4), (0, -1)])
def test_make_card_out_of_range(rank: int, suit: int) -> None:
    with pytest.raises(CardError, match=f"rank index {rank} and suit index {suit}"):
        make_card(rank, suit)


def test_module_doctests() -> None:
    assert doctest.testmod(cards_module).failed == 0
