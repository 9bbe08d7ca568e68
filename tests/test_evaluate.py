"""Validation of chinese_poker.evaluate against third-party evaluators and the rules.

Oracles (test dependencies only):

* phevaluator ``evaluate_cards`` and eval7 ``evaluate`` on all 2,598,960 five-card
  hands: our values must induce exactly the same order, ties included (7462 classes);
* brute-force references written below from RULES.md (§3.1 five-card keys, §3.2 top
  keys, §3.4 top against middle, §8.1 deuce-to-seven low, §8.2 wheel), compared with
  plain tuple comparison. They share no code or table with the evaluator.

The full five-card enumeration is marked ``slow``; it still runs in CI (a few seconds).
"""

from __future__ import annotations

import doctest
import itertools
from collections import Counter
from collections.abc import Sequence
from math import comb

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chinese_poker import evaluate as ev
from chinese_poker.cards import RANKS, SUITS, CardError, cards_str, parse_cards
from chinese_poker.evaluate import (
    RANK_WEIGHTS,
    Category,
    WheelRank,
    category,
    describe,
    evaluate,
    evaluate3,
    evaluate5,
    evaluate_batch,
    evaluate_low27,
    evaluate_low27_batch,
    is_royal_flush,
    key_ranks,
    low27_high_card,
)

IntArray = npt.NDArray[np.int64]
Key = tuple[int, tuple[float, ...]]

N_FIVE = comb(52, 5)  # 2,598,960
N_THREE = comb(52, 3)  # 22,100

# --------------------------------------------------------------------------- references

SF, QUADS, FULL, FLUSH, STRAIGHT, TRIPS, TWO_PAIR, PAIR, HIGH = 8, 7, 6, 5, 4, 3, 2, 1, 0
WHEEL_RANKS = [12, 3, 2, 1, 0]  # A 5 4 3 2


def ref_high5(cards: Sequence[int], wheel: str = "lowest") -> Key:
    """(category, key) of five cards, straight from the table in RULES §3.1.

    ``wheel``: "lowest" (the wheel's top card is the 5), "second_highest" (§8.2: the
    wheel sits between the K-high and the A-high straight, key 11.5) or "none" (§8.1:
    the ace is high only, ``A 2 3 4 5`` is no straight).
    """
    ranks = sorted((c // 4 for c in cards), reverse=True)
    flush = len({c % 4 for c in cards}) == 1
    counts = Counter(ranks)
    with_count = {
        n: sorted((r for r, k in counts.items() if k == n), reverse=True) for n in (1, 2, 3, 4)
    }
    top: float | None = None
    if len(counts) == 5:
        if ranks[0] - ranks[4] == 4:
            top = ranks[0]
        elif ranks == WHEEL_RANKS and wheel != "none":
            top = 3 if wheel == "lowest" else 11.5
    if top is not None:
        return (SF if flush else STRAIGHT, (top,))
    if with_count[4]:
        return (QUADS, (with_count[4][0], with_count[1][0]))
    if with_count[3] and with_count[2]:
        return (FULL, (with_count[3][0], with_count[2][0]))
    if flush:
        return (FLUSH, tuple(ranks))
    if with_count[3]:
        return (TRIPS, (with_count[3][0], *with_count[1]))
    if len(with_count[2]) == 2:
        return (TWO_PAIR, (*with_count[2], with_count[1][0]))
    if with_count[2]:
        return (PAIR, (with_count[2][0], *with_count[1]))
    return (HIGH, tuple(ranks))


def ref_top3(cards: Sequence[int]) -> Key:
    """(category, key) of a top line, RULES §3.2: no straights and no flushes."""
    ranks = sorted((c // 4 for c in cards), reverse=True)
    if ranks[0] == ranks[2]:
        return (TRIPS, (ranks[0],))
    if ranks[0] == ranks[1]:
        return (PAIR, (ranks[0], ranks[2]))
    if ranks[1] == ranks[2]:
        return (PAIR, (ranks[1], ranks[0]))
    return (HIGH, tuple(ranks))


def ref_top_not_above_middle(top: Sequence[int], middle: Sequence[int]) -> bool:
    """RULES §3.4, literally: True when the top is weaker than or equal to the middle."""
    top_cat, top_key = ref_top3(top)
    mid_cat, mid_key = ref_high5(middle)
    if top_cat != mid_cat:
        return top_cat < mid_cat
    n = len(top_key)  # compare only the positions the three-card key has
    return top_key <= mid_key[:n]


# --------------------------------------------------------------------------- helpers


def dense_rank(keys: Sequence[Key]) -> IntArray:
    """0 for the weakest key, equal keys share a rank."""
    order = {k: i for i, k in enumerate(sorted(set(keys)))}
    return np.array([order[k] for k in keys], dtype=np.int64)


def order_mismatch(
    ours: npt.ArrayLike,
    ref: npt.ArrayLike,
    hands: npt.ArrayLike,
    *,
    ref_higher_is_better: bool = True,
) -> str | None:
    """None if ``ours`` and ``ref`` order ``hands`` identically, ties included.

    Otherwise a message naming two hands on which they disagree.
    """
    o = np.asarray(ours, dtype=np.int64)
    r = np.asarray(ref, dtype=np.int64)
    h = np.asarray(hands)
    if not ref_higher_is_better:
        r = -r
    _, r_dense = np.unique(r, return_inverse=True)
    _, o_dense = np.unique(o, return_inverse=True)
    key = (o_dense.astype(np.int64) << 32) | r_dense.astype(np.int64)
    uniq, first = np.unique(key, return_index=True)  # sorted by ours, then by ref
    uo, ur = uniq >> 32, uniq & 0xFFFFFFFF

    def name(i: int) -> str:
        return f"[{cards_str(int(c) for c in h[first[i]])}]"

    same = np.flatnonzero(uo[1:] == uo[:-1])
    if same.size:
        i = int(same[0])
        return f"ours ties {name(i)} and {name(i + 1)}; the reference separates them"
    bad = np.flatnonzero(ur[1:] <= ur[:-1])
    if bad.size:
        i = int(bad[0])
        verdict = "ties them" if ur[i + 1] == ur[i] else "ranks it lower"
        return f"ours ranks {name(i + 1)} above {name(i)}; the reference {verdict}"
    return None


def random_hands(rng: np.random.Generator, n: int, k: int) -> npt.NDArray[np.int64]:
    """``n`` rows of ``k`` distinct cards."""
    hands = rng.integers(0, 52, size=(n, k))
    while True:
        bits = np.zeros(n, dtype=np.uint64)
        for j in range(k):
            bits |= np.left_shift(np.uint64(1), hands[:, j].astype(np.uint64))
        bad = np.flatnonzero(np.bitwise_count(bits) != k)
        if not bad.size:
            return hands
        hands[bad] = rng.integers(0, 52, size=(bad.size, k))


def rank_classes5() -> list[tuple[int, ...]]:
    """One five-card hand for each of the 7462 equivalence classes.

    Every rank multiset with no rank more than four times, unsuited, and every set of
    five distinct ranks once more, suited.
    """
    hands = []
    for m in itertools.combinations_with_replacement(range(13), 5):
        if max(Counter(m).values()) > 4:
            continue
        seen: Counter[int] = Counter()
        cards = []
        for i, r in enumerate(m):
            # the j-th copy of a rank takes suit j; distinct ranks mix two suits
            suit = seen[r] if len(set(m)) < 5 else i % 2
            seen[r] += 1
            cards.append(r * 4 + suit)
        hands.append(tuple(cards))
        if len(set(m)) == 5:
            suit = sum(m) % 4
            hands.append(tuple(r * 4 + suit for r in m))
    return hands


def rank_classes3() -> list[tuple[int, ...]]:
    """One top for each of the 455 rank multisets; distinct ranks share one suit."""
    hands = []
    for m in itertools.combinations_with_replacement(range(13), 3):
        seen: Counter[int] = Counter()
        cards = []
        for r in m:
            cards.append(r * 4 + seen[r])
            seen[r] += 1
        hands.append(tuple(cards))
    return hands


CLASSES5 = rank_classes5()
CLASSES3 = rank_classes3()


def cards(text: str) -> tuple[int, ...]:
    return parse_cards(text)


# --------------------------------------------------------------------------- the helpers can fail


def test_order_mismatch_detects_each_kind_of_error() -> None:
    hands = np.array([CLASSES5[i] for i in range(4)])
    ref = np.array([10, 20, 30, 40])
    assert order_mismatch([1, 2, 3, 4], ref, hands) is None
    assert order_mismatch([1, 2, 3, 4], 50 - ref, hands, ref_higher_is_better=False) is None
    assert order_mismatch([4, 3, 2, 1], ref, hands, ref_higher_is_better=False) is None
    assert "ties" in str(order_mismatch([1, 1, 3, 4], ref, hands))  # we merge two classes
    assert "reference ties" in str(order_mismatch([1, 2, 3, 4], [10, 10, 30, 40], hands))
    assert "ranks it lower" in str(order_mismatch([2, 1, 3, 4], ref, hands))
    assert cards_str(hands[0]) in str(order_mismatch([1, 1, 3, 4], ref, hands))


def test_classes_are_complete() -> None:
    assert len(CLASSES5) == 7462 and len(set(CLASSES5)) == 7462
    assert all(len(set(h)) == 5 for h in CLASSES5)
    assert len(CLASSES3) == 455 and all(len(set(h)) == 3 for h in CLASSES3)
    assert len(set(map(ref_high5, CLASSES5))) == 7462


# --------------------------------------------------------------------------- all five-card hands


@pytest.fixture(scope="module")
def all_five() -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int32]]:
    hands = np.fromiter(
        itertools.combinations(range(52), 5), dtype=np.dtype((np.int8, 5)), count=N_FIVE
    ).astype(np.int8, copy=False)
    return hands, evaluate_batch(hands)


@pytest.mark.slow
def test_all_five_card_hands_order_matches_phevaluator(
    all_five: tuple[npt.NDArray[np.int8], npt.NDArray[np.int32]],
) -> None:
    from phevaluator import evaluate_cards  # type: ignore[import-untyped]

    hands, ours = all_five
    # phevaluator cards: rank * 4 + suit with suits c d h s (ours: s h d c).
    ph = (hands // 4) * 4 + (3 - hands % 4)
    ref = np.fromiter(
        map(evaluate_cards, *(ph[:, j].tolist() for j in range(5))), np.int64, count=N_FIVE
    )
    assert order_mismatch(ours, ref, hands, ref_higher_is_better=False) is None
    assert len(np.unique(ours)) == 7462
    assert len(np.unique(ref)) == 7462


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # eval7's use of pyparsing
def test_all_five_card_hands_order_matches_eval7(
    all_five: tuple[npt.NDArray[np.int8], npt.NDArray[np.int32]],
) -> None:
    import eval7  # type: ignore[import-untyped]

    hands, ours = all_five
    deck = [eval7.Card(r + s) for r in RANKS for s in SUITS]
    assert [str(c) for c in deck[:5]] == ["2s", "2h", "2d", "2c", "3s"]
    ev7 = eval7.evaluate
    ref = np.fromiter(
        (ev7([deck[a], deck[b], deck[c], deck[d], deck[e]]) for a, b, c, d, e in hands.tolist()),
        np.int64,
        count=N_FIVE,
    )
    assert order_mismatch(ours, ref, hands) is None
    assert len(np.unique(ref)) == 7462


@pytest.mark.slow
def test_all_five_card_hands_category_counts(
    all_five: tuple[npt.NDArray[np.int8], npt.NDArray[np.int32]],
) -> None:
    _, ours = all_five
    cats = ours >> 20
    counts = np.bincount(cats, minlength=9).tolist()
    assert counts == [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 40]
    distinct = [len(np.unique(ours[cats == c])) for c in range(9)]
    assert distinct == [1277, 2860, 858, 858, 10, 1277, 156, 156, 10]
    royals = [v for v in np.unique(ours[cats == SF]).tolist() if is_royal_flush(v)]
    assert len(royals) == 1 and int(np.count_nonzero(ours == royals[0])) == 4
    assert int(np.count_nonzero(ours == ours.max())) == 4
    assert ours.max() == evaluate(cards("As Ks Qs Js Ts"))
    # the weakest hand is 7 5 4 3 2 offsuit: 4**5 - 4 suit patterns
    assert int(np.count_nonzero(ours == ours.min())) == 1020
    assert ours.min() == evaluate(cards("7c 5d 4h 3s 2c"))


def test_every_class_matches_the_reference_keys() -> None:
    ours = [evaluate(h) for h in CLASSES5]
    refs = [ref_high5(h) for h in CLASSES5]
    assert order_mismatch(ours, dense_rank(refs), CLASSES5) is None
    for hand, value, (cat, key) in zip(CLASSES5, ours, refs, strict=True):
        assert category(value) == cat, cards_str(hand)
        assert key_ranks(value) == key, cards_str(hand)
    assert [Category(c).label for c in range(9)] == [
        "High card", "One pair", "Two pair", "Three of a kind", "Straight", "Flush",
        "Full house", "Four of a kind", "Straight flush",
    ]  # fmt: skip


def test_random_hands_match_the_reference() -> None:
    hands = random_hands(np.random.default_rng(20240501), 20_000, 5)
    ours = evaluate_batch(hands)
    refs = dense_rank([ref_high5(h) for h in hands.tolist()])
    assert order_mismatch(ours, refs, hands) is None


def test_single_hand_calls_equal_batch_on_a_large_sample() -> None:
    rng = np.random.default_rng(7)
    hands = random_hands(rng, 200_000, 5)  # several batch chunks
    batch = evaluate_batch(hands).tolist()
    rows = hands.tolist()
    assert [evaluate(h) for h in rows] == batch
    assert [evaluate5(*h) for h in rows] == batch
    assert evaluate_batch(hands, check=False).tolist() == batch
    # any card order gives the same value
    shuffled = rng.permuted(hands, axis=1)
    assert evaluate_batch(shuffled).tolist() == batch
    tops = random_hands(rng, 50_000, 3)
    batch3 = evaluate_batch(tops).tolist()
    assert [evaluate(t) for t in tops.tolist()] == batch3
    assert [evaluate3(*t) for t in tops.tolist()] == batch3


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64])
def test_batch_accepts_integer_dtypes_and_layouts(dtype: type[np.integer]) -> None:
    hands = random_hands(np.random.default_rng(3), 1000, 5)
    expected = [evaluate(h) for h in hands.tolist()]
    arr = hands.astype(dtype)
    assert evaluate_batch(arr).tolist() == expected
    assert evaluate_batch(np.asfortranarray(arr)).tolist() == expected
    wide = np.repeat(arr, 2, axis=1)[:, ::2]  # non-contiguous view
    assert evaluate_batch(wide).tolist() == expected
    assert evaluate_batch(arr.tolist()).tolist() == expected
    assert evaluate_batch(arr).dtype == np.int32


def test_batch_of_nothing() -> None:
    assert evaluate_batch(np.zeros((0, 5), dtype=np.int64)).shape == (0,)
    assert evaluate_batch(np.zeros((0, 3), dtype=np.int64)).shape == (0,)


def test_module_doctests() -> None:
    assert doctest.testmod(ev).failed == 0


# --------------------------------------------------------------------------- three-card tops


def test_all_three_card_tops() -> None:
    tops = np.fromiter(
        itertools.combinations(range(52), 3), dtype=np.dtype((np.int64, 3)), count=N_THREE
    )
    rows = tops.tolist()
    ours = evaluate_batch(tops)
    assert [evaluate(t) for t in rows] == ours.tolist()
    assert [evaluate3(*t) for t in rows] == ours.tolist()
    refs = [ref_top3(t) for t in rows]
    assert order_mismatch(ours, dense_rank(refs), tops) is None
    cats = ours >> 20
    assert np.bincount(cats, minlength=4).tolist() == [18304, 3744, 0, 52]
    assert [len(np.unique(ours[cats == c])) for c in (HIGH, PAIR, TRIPS)] == [286, 156, 13]
    assert len(np.unique(ours)) == 455
    # trips > pair > high card, whatever the ranks
    assert ours[cats == TRIPS].min() > ours[cats == PAIR].max() > ours[cats == HIGH].max()
    for value, (cat, key) in zip(ours.tolist(), refs, strict=True):
        assert category(value) == cat
        assert key_ranks(value) == key


def test_three_card_runs_and_suits_make_nothing() -> None:
    assert describe(evaluate(cards("Ah Kh Qh"))) == "Ace high, then K, Q"
    assert category(evaluate(cards("4h 3h 2h"))) == HIGH
    assert evaluate(cards("Ah Kh Qh")) == evaluate(cards("Ad Kc Qs"))
    assert evaluate(cards("3h 3d 6c")) > evaluate(cards("3s 3c 2d"))  # §3.3 example
    assert evaluate(cards("8h 8d 5c")) == evaluate(cards("8s 8c 5d"))


# --------------------------------------------------------------------------- §3.4 and W10

W10_TOP_MIDDLE = [
    ("Qh Qd 7c", "Qs Qc 6d 5h 4s", "foul"),
    ("Qh Qd 7c", "Qs Qc 9d 8h 2s", "valid"),
    ("Qh Qd 7c", "Qs Qc 7d 5h 4s", "equal"),
    ("Ah Kd 9c", "As Kc 8d 5h 3s", "foul"),
    ("Ah Kd 9c", "As Kc 9d 5h 3s", "equal"),
    ("8h 8d 8c", "7s 7h 7d As Ks", "foul"),
    ("5h 5d Ac", "3s 3c 2d 2h Ks", "valid"),
]
W10_MIDDLE_BOTTOM = [
    ("Ah Jh 9h 6h 2h", "Kd Qd 9d 5d 3d", "foul"),
    ("9c 8d 7h 6s 5c", "9h 8s 7c 6d 5d", "equal"),
]


@pytest.mark.parametrize(("top", "middle", "result"), W10_TOP_MIDDLE)
def test_w10_top_against_middle(top: str, middle: str, result: str) -> None:
    t, m = cards(top), cards(middle)
    assert (evaluate(t) <= evaluate(m)) == (result != "foul")
    assert ref_top_not_above_middle(t, m) == (result != "foul")
    if result == "equal":  # equal per §3.4: the top key is a prefix of the middle key
        assert key_ranks(evaluate(m))[: len(key_ranks(evaluate(t)))] == key_ranks(evaluate(t))


@pytest.mark.parametrize(("middle", "bottom", "result"), W10_MIDDLE_BOTTOM)
def test_w10_middle_against_bottom(middle: str, bottom: str, result: str) -> None:
    m, b = evaluate(cards(middle)), evaluate(cards(bottom))
    assert (m <= b) == (result != "foul")
    assert (m == b) == (result == "equal")


def test_every_top_class_against_every_middle_class() -> None:
    """§3.4 on all 455 x 7462 (top, middle) classes, the reference vectorised."""
    top_v = np.array([evaluate(t) for t in CLASSES3], dtype=np.int64)
    mid_v = np.array([evaluate(m) for m in CLASSES5], dtype=np.int64)
    ours = top_v[:, None] <= mid_v[None, :]

    top_ref = [ref_top3(t) for t in CLASSES3]
    mid_ref = [ref_high5(m) for m in CLASSES5]
    mid_cat = np.array([c for c, _ in mid_ref])

    def prefix(key: tuple[float, ...], n: int) -> int:  # first n key ranks as base-16 digits
        return sum(int(r) << (4 * (n - 1 - i)) for i, r in enumerate(key[:n]))

    mid_prefix = {n: np.array([prefix(k, n) for _, k in mid_ref]) for n in (1, 2, 3)}
    expected = np.empty_like(ours)
    equal = 0
    for i, (cat, key) in enumerate(top_ref):
        n = len(key)
        same = mid_cat == cat
        expected[i] = (cat < mid_cat) | (same & (prefix(key, n) <= mid_prefix[n]))
        equal += int(np.count_nonzero(same & (prefix(key, n) == mid_prefix[n])))
    # the boundary is exercised: many pairs are "equal" under §3.4 (and so valid)
    assert equal > 1000
    assert np.array_equal(ours, expected), "top/middle comparison differs from RULES §3.4"
    # spot-check the vectorised reference against the literal one
    rng = np.random.default_rng(11)
    for i, j in zip(rng.integers(0, 455, 300), rng.integers(0, 7462, 300), strict=True):
        top, mid = CLASSES3[i], CLASSES5[j]
        if not set(top) & set(mid):
            assert expected[i, j] == ref_top_not_above_middle(top, mid)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=8, max_size=8, unique=True))
def test_top_against_middle_property(deal: list[int]) -> None:
    top, middle = deal[:3], deal[3:]
    assert (evaluate(top) <= evaluate(middle)) == ref_top_not_above_middle(top, middle)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_top_against_a_middle_sharing_its_ranks(data: st.DataObject) -> None:
    """Middles built on the top's ranks, where §3.4's prefix rule decides."""
    top = data.draw(st.lists(st.integers(0, 51), min_size=3, max_size=3, unique=True))
    rest = [c for c in range(52) if c not in top]
    same_rank = [c for c in rest if c // 4 in {t // 4 for t in top}]
    pick = data.draw(st.lists(st.sampled_from(same_rank), max_size=3, unique=True))
    others = [c for c in rest if c not in pick]
    fill = data.draw(
        st.lists(st.sampled_from(others), min_size=5 - len(pick), max_size=5 - len(pick),
                 unique=True)
    )  # fmt: skip
    middle = pick + fill
    assert (evaluate(top) <= evaluate(middle)) == ref_top_not_above_middle(top, middle)


# --------------------------------------------------------------------------- wheel (§8.2, W14)


def test_w14_wheel() -> None:
    wheel, king, ace = cards("Ah 2d 3c 4s 5h"), cards("9c Td Jh Qs Kd"), cards("Tc Jd Qh Ks Ac")
    assert evaluate(wheel) < evaluate(king) < evaluate(ace)
    high: WheelRank = "second_highest"
    assert evaluate(king, wheel=high) < evaluate(wheel, wheel=high) < evaluate(ace, wheel=high)
    assert evaluate(wheel) < evaluate(cards("6c 5d 4h 3s 2c"))
    assert evaluate(wheel, wheel=high) > evaluate(cards("6c 5d 4h 3s 2c"), wheel=high)
    steel, k_sf, royal = cards("Ah 2h 3h 4h 5h"), cards("9d Td Jd Qd Kd"), cards("Ts Js Qs Ks As")
    assert evaluate(k_sf, wheel=high) < evaluate(steel, wheel=high) < evaluate(royal, wheel=high)
    assert evaluate(steel) < evaluate(cards("6h 5h 4h 3h 2h"))
    assert describe(evaluate(wheel)) == "Straight, five high"
    assert describe(evaluate(wheel, wheel=high)) == "Straight, five high (wheel)"
    assert describe(evaluate(steel, wheel=high)) == "Straight flush, five high (wheel)"
    assert describe(evaluate(royal, wheel=high)) == "Royal flush"


def test_second_highest_wheel_on_every_class() -> None:
    ours = [evaluate(h, wheel="second_highest") for h in CLASSES5]
    refs = dense_rank([ref_high5(h, "second_highest") for h in CLASSES5])
    assert order_mismatch(ours, refs, CLASSES5) is None
    batch = evaluate_batch(np.array(CLASSES5), wheel="second_highest")
    assert batch.tolist() == ours
    # nothing but the two wheels moves
    lowest = [evaluate(h) for h in CLASSES5]
    moved = [h for h, a, b in zip(CLASSES5, lowest, ours, strict=True) if a != b]
    assert sorted(sorted(c // 4 for c in h) for h in moved) == [[0, 1, 2, 3, 12]] * 2


def test_unknown_wheel_option() -> None:
    with pytest.raises(ValueError, match="unknown wheel rank 'highest'"):
        evaluate(cards("Ah 2d 3c 4s 5h"), wheel="highest")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- 2-7 low (§8.1, W14)


def test_w14_low_middle() -> None:
    seven, eight = cards("7c 5d 4h 3s 2c"), cards("8d 6h 4c 3d 2h")
    ace, straight = cards("As 5h 4d 3c 2s"), cards("6c 5s 4d 3h 2d")
    assert evaluate_low27(seven) > evaluate_low27(eight)
    assert evaluate_low27(ace) < evaluate_low27(eight) < evaluate_low27(seven)
    assert low27_high_card(evaluate_low27(ace)) == 12  # ace-high, not a five-high straight
    lows = [evaluate_low27(h) for h in CLASSES5]
    cats = [ref_high5(h, "none")[0] for h in CLASSES5]
    paired = [v for v, c in zip(lows, cats, strict=True) if c in (PAIR, TWO_PAIR, TRIPS)]
    assert evaluate_low27(straight) < min(paired)  # worse than any pair or trips
    assert max(lows) == evaluate_low27(seven)  # 7 5 4 3 2 offsuit is the nuts
    assert evaluate_low27(cards("7c 5c 4c 3c 2c")) < evaluate_low27(cards("Kc Qd Jh 9s 8c"))
    assert low27_high_card(evaluate_low27(seven)) == 5
    assert low27_high_card(evaluate_low27(eight)) == 6
    assert low27_high_card(evaluate_low27(cards("7c 7d 4h 3s 2c"))) is None
    assert low27_high_card(evaluate_low27(straight)) is None


def test_low27_on_every_class() -> None:
    ours = [evaluate_low27(h) for h in CLASSES5]
    # lower in normal high poker (ace high only, no wheel) is the better low
    refs = dense_rank([ref_high5(h, "none") for h in CLASSES5])
    assert order_mismatch(ours, refs, CLASSES5, ref_higher_is_better=False) is None
    assert evaluate_low27_batch(np.array(CLASSES5)).tolist() == ours


def test_low27_on_random_hands() -> None:
    hands = random_hands(np.random.default_rng(27), 20_000, 5)
    ours = evaluate_low27_batch(hands)
    assert [evaluate_low27(h) for h in hands[:2000].tolist()] == ours[:2000].tolist()
    refs = dense_rank([ref_high5(h, "none") for h in hands.tolist()])
    assert order_mismatch(ours, refs, hands, ref_higher_is_better=False) is None


# --------------------------------------------------------------------------- describe


@pytest.mark.parametrize(
    ("line", "text"),
    [
        ("Ah Kh Qh Jh Th", "Royal flush"),
        ("9h 8h 7h 6h 5h", "Straight flush, nine high"),
        ("5s 4s 3s 2s As", "Straight flush, five high"),
        ("Ah Ad Ac As Kd", "Four aces"),
        ("Kh Kd Ks 4c 4d", "Full house, kings full of fours"),
        ("Ah 9h 7h 4h 2h", "Flush, ace high"),
        ("Ts 9h 8d 7c 6s", "Straight, ten high"),
        ("Qh Qd Qc 9s 2d", "Three queens"),
        ("Jh Jd 4c 4s 2d", "Two pair, jacks and fours"),
        ("Qh Qd 9c 8s 2d", "Pair of queens, kickers 9, 8, 2"),
        ("Ah Kd 9c 7s 2d", "Ace high, then K, 9, 7, 2"),
        ("Qh Qd 7c", "Pair of queens, seven kicker"),
        ("6h 6d 6c", "Three sixes"),
        ("Ah Kd 9c", "Ace high, then K, 9"),
    ],
)
def test_describe(line: str, text: str) -> None:
    assert describe(evaluate(cards(line))) == text


def test_describe_names_the_category_of_every_class() -> None:
    starts = {
        SF: ("Straight flush", "Royal flush"), QUADS: ("Four ",), FULL: ("Full house, ",),
        FLUSH: ("Flush, ",), STRAIGHT: ("Straight, ",), TRIPS: ("Three ",),
        TWO_PAIR: ("Two pair, ",), PAIR: ("Pair of ",),
        HIGH: tuple(f"{w} high, then " for w in (
            "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack", "Queen", "King",
            "Ace")),
    }  # fmt: skip
    for hand in CLASSES5 + CLASSES3:
        value = evaluate(hand)
        assert describe(value).startswith(starts[category(value)]), cards_str(hand)


# --------------------------------------------------------------------------- RANK_WEIGHTS


def weight_collisions(weights: Sequence[int], size: int) -> int:
    """How many rank multisets of ``size`` cards (no rank over 4 times) share a sum."""
    combos = np.fromiter(
        itertools.combinations_with_replacement(range(13), size),
        dtype=np.dtype((np.int64, size)),
    ).astype(np.int64, copy=False)
    counts = np.zeros((len(combos), 13), dtype=np.int64)
    np.add.at(counts, (np.arange(len(combos))[:, None], combos), 1)
    combos = combos[counts.max(axis=1) <= 4]
    sums = np.asarray(weights, dtype=np.int64)[combos].sum(axis=1)
    return len(sums) - len(np.unique(sums))


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5])
def test_rank_weights_are_injective(size: int) -> None:
    # Multisets of different sizes may share a sum (the deuce weighs 0), which is fine:
    # 3- and 5-card lines use separate tables.
    assert len(RANK_WEIGHTS) == 13
    assert weight_collisions(RANK_WEIGHTS, size) == 0


def test_weight_collision_check_can_fail() -> None:
    assert weight_collisions(range(13), 3) > 0
    assert weight_collisions([4**r for r in range(13)], 5) > 0  # 4 deuces weigh one trey
    assert weight_collisions([5**r for r in range(13)], 5) == 0  # base 5


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("n", [0, 1, 2, 4, 6, 13])
def test_wrong_line_size(n: int) -> None:
    with pytest.raises(CardError, match=f"3 or 5 cards, not {n}"):
        evaluate(list(range(n)))


@pytest.mark.parametrize("bad", [52, 60, -1])
def test_card_out_of_range(bad: int) -> None:
    for line in ([0, 1, bad], [0, 1, 2, 3, bad]):
        with pytest.raises(CardError, match=f"card number {bad} is outside 0..51") as info:
            evaluate(line)
        assert info.value.token == str(bad)


def test_duplicate_card() -> None:
    for line in ([5, 5, 9], [0, 1, 2, 3, 3]):
        with pytest.raises(CardError, match="same card twice"):
            evaluate(line)


def test_duplicate_card_is_named() -> None:
    with pytest.raises(CardError, match="Ah") as info:
        evaluate(parse_cards("2c 3d 4h Ah Ah", unique=False))
    assert info.value.token == "Ah"


def test_low27_errors() -> None:
    with pytest.raises(CardError, match="5 cards, not 3"):
        evaluate_low27(cards("7c 5d 4h"))
    with pytest.raises(CardError, match="same card twice"):
        evaluate_low27([0, 0, 4, 8, 12])
    with pytest.raises(CardError, match=r"shape \(N, 5\), got \(2, 3\)"):
        evaluate_low27_batch(np.zeros((2, 3), dtype=np.int64))
    with pytest.raises(CardError, match="row 1 holds the same card twice"):
        evaluate_low27_batch(np.array([[0, 4, 8, 12, 20], [0, 4, 8, 12, 12]]))


@pytest.mark.parametrize(
    ("batch", "message"),
    [
        (np.zeros((3, 4), dtype=np.int64), r"shape \(N, 5\) or \(N, 3\), got \(3, 4\)"),
        (np.arange(5), r"got \(5,\)"),
        (np.zeros((2, 5, 1), dtype=np.int64), r"got \(2, 5, 1\)"),
        (np.array([[0.0, 1, 2, 3, 4]]), "integer cards, got dtype float64"),
        (np.array([[0, 1, 2, 3, 52]]), "outside 0..51"),
        (np.array([[0, 1, -1]]), "outside 0..51"),
        (np.array([[0, 1, 2, 3, 4], [9, 8, 7, 6, 5], [0, 1, 2, 3, 1]]), "row 2 holds the same"),
        (np.array([[7, 7, 8]]), "row 0 holds the same card twice"),
    ],
)
def test_batch_errors(batch: npt.NDArray[np.generic], message: str) -> None:
    with pytest.raises(CardError, match=message):
        evaluate_batch(batch)


def test_batch_out_of_range_is_named() -> None:
    with pytest.raises(CardError, match=r"row 1.*52"):
        evaluate_batch(np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, 52]]))


def test_errors_are_value_errors() -> None:
    # CardError stays catchable as ValueError for callers that do not import it.
    with pytest.raises(ValueError):
        evaluate([1, 2])
    with pytest.raises(ValueError):
        evaluate_batch(np.zeros((1, 4), np.int64))
