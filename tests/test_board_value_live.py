"""The learned value with the live cards' features (``BoardValue.LIVE``; docs/bots-research.md,
*Round fifteen*): the features against an independent count over the cards, the fit
with features a board may lack against a dense ridge regression, the training's
opponent streets, the shipped table, and ``mc`` with it."""

from __future__ import annotations

import dataclasses
import json
import random

import numpy as np
import pytest

from chinese_poker.ai import rollout, value
from chinese_poker.ai.mc import MonteCarloBot
from chinese_poker.ai.residual import fingerprint, fit
from chinese_poker.ai.rollout import BoardValue, features
from chinese_poker.cards import card_rank, card_suit, parse_cards
from chinese_poker.engine import Table, play_hand
from chinese_poker.rules import RulesError, rules_for

PINEAPPLE = rules_for("pineapple")
ACE = 12


def _straight_outs(ranks: set[int]) -> set[int]:
    """The ranks that make five different ranks in a row with ``ranks`` (an ace also
    plays below the deuce)."""
    outs = set()
    for r in range(13):
        if r in ranks:
            continue
        hand = ranks | {r}
        lows = {-1 if x == ACE else x for x in hand} if ACE in hand else hand
        if any(max(h) - min(h) == 4 and len(h) == 5 for h in (hand, lows)):
            outs.add(r)
    return outs


def _oracle(lines: list[list[int]], live: list[int]) -> tuple[int, ...]:
    """The five live-card features, counted from the cards themselves."""
    by_rank = [sum(card_rank(c) == r for c in live) for r in range(13)]
    by_suit = [sum(card_suit(c) == s for c in live) for s in range(4)]
    top = -1
    ranks = [card_rank(c) for c in lines[0]]
    if len(ranks) in (1, 2):
        if len(set(ranks)) == len(ranks):
            high = max(ranks)
            if high >= 10:
                top = (
                    rollout.LIVE_OFF_TOP
                    + ((len(ranks) - 1) * 3 + high - 10) * 4
                    + min(by_rank[high], 3)
                )
        else:
            group = ranks[0] - 9 if ranks[0] >= 10 else 0
            top = rollout.LIVE_OFF_TOP_PAIR + group * 3 + min(by_rank[ranks[0]], 2)
    out: list[int] = [top]
    draws = []
    for line, cards in enumerate(lines[1:]):
        n = len(cards)
        flush = draw = -1
        if 2 <= n <= 4:
            suits = {card_suit(c) for c in cards}
            if len(suits) == 1:
                s = suits.pop()
                flush = rollout.LIVE_OFF_FLUSH + (line * 3 + n - 2) * 12 + min(by_suit[s], 11)
            rs = [card_rank(c) for c in cards]
            counts = sorted((rs.count(r) for r in set(rs)), reverse=True)
            if counts[0] == 2 and (len(counts) == 1 or counts[1] == 1):  # one pair
                pair = max(set(rs), key=rs.count)
                draw = rollout.LIVE_OFF_PAIR + (line * 3 + n - 2) * 3 + min(by_rank[pair], 2)
            elif n == 4 and counts[0] == 1:
                outs = _straight_outs(set(rs))
                if outs:
                    draw = (
                        rollout.LIVE_OFF_STRAIGHT + line * 9 + min(sum(by_rank[r] for r in outs), 8)
                    )
        out.append(flush)
        draws.append(draw)
    return (out[0], out[1], out[2], draws[0], draws[1])


def _kernel(lines: list[list[int]], live: list[int]) -> tuple[int, ...]:
    t = rollout.tables_for(PINEAPPLE)
    counts = np.zeros(rollout.LIVE_COUNTS, dtype=np.int64)
    features.count_live(np.array(live, dtype=np.int64), 0, len(live), counts)
    c = [sum(int(t.codes[x]) for x in line) for line in lines]
    k = [len(line) for line in lines]
    f = features.live_feature_indices(c[0], c[1], c[2], k[0], k[1], k[2],
                               rollout.partial_line_table(), t.codes, counts)  # fmt: skip
    return tuple(int(x) for x in f)


@pytest.mark.parametrize(
    "board",
    [
        ("Qh", "5c 6d 7h 8s", "As Ks 9s 2s"),  # a queen on top; four in a row; four spades
        ("Ah Ad", "Tc Jd Qh Kh", "3c 3d 9h"),  # aces on top; an open end only; a pair
        ("", "Ac 2d 3h 4s", "Kc"),  # the wheel's five
        ("Kd 7c", "5c 6d 8h 9s", "Jh Jc Jd"),  # a gap in the middle; trips draw nothing here
    ],
)
def test_named_boards_match_the_count(board: tuple[str, str, str]) -> None:
    lines = [list(parse_cards(x)) if x else [] for x in board]
    dealt = {c for line in lines for c in line}
    live = [c for c in range(52) if c not in dealt and c % 3]  # some cards gone
    assert _kernel(lines, live) == _oracle(lines, live)


def test_the_features_match_a_count_over_the_cards() -> None:
    rng = random.Random(5)
    kinds: set[int | str] = set()
    for _ in range(3000):
        deck = list(range(52))
        rng.shuffle(deck)
        sizes = (rng.randint(0, 3), rng.randint(0, 5), rng.randint(0, 5))
        if rng.random() < 0.5:  # straight and flush draws are rare in random lines
            suit = rng.randrange(4)
            start = rng.randrange(-1, 9)
            run = [(ACE if r < 0 else r) * 4 + (suit if rng.random() < 0.7 else rng.randrange(4))
                   for r in range(start, start + 5)]  # fmt: skip
            rng.shuffle(run)
            deck = run[: sizes[2]] + [c for c in deck if c not in run]
            lines = [deck[sizes[2] + sizes[1] : sizes[2] + sizes[1] + sizes[0]],
                     deck[sizes[2] : sizes[2] + sizes[1]], deck[: sizes[2]]]  # fmt: skip
        else:
            lines = [deck[: sizes[0]], deck[sizes[0] : sizes[0] + sizes[1]],
                     deck[sizes[0] + sizes[1] : sum(sizes)]]  # fmt: skip
        dealt = {c for line in lines for c in line}
        rest = [c for c in deck if c not in dealt]
        live = rest[: rng.randint(0, len(rest))]
        expected = _oracle(lines, live)
        assert _kernel(lines, live) == expected, (lines, live)
        kinds.update(i for i, f in enumerate(expected) if f >= 0)
        straights = [f >= rollout.LIVE_OFF_STRAIGHT for f in expected[3:]]
        kinds.update(f"straight {line}" for line, on in enumerate(straights) if on)
    # every kind of feature was met, a straight draw in the middle and the bottom too
    assert kinds >= {0, 1, 2, 3, 4, "straight 0", "straight 1"}


def test_a_fit_with_missing_features_is_the_dense_ridge_solution() -> None:
    rng = np.random.default_rng(3)
    width = 12
    n = 400
    feats = rng.integers(0, width, size=(n, 3))
    feats[rng.random((n, 3)) < 0.3] = -1  # features a board does not have
    y = rng.normal(size=n)
    placed = np.full(n, 7)
    table = fit(feats, placed, y, ridge=2.0, width=width)
    x = np.zeros((n, width))
    for i in range(n):
        for f in feats[i]:
            if f >= 0:
                x[i, f] += 1.0
    dense = np.linalg.solve(x.T @ x + 2.0 * np.eye(width), x.T @ y)
    assert np.allclose(table[7], dense)
    assert not table[6].any()


def test_training_deals_the_opponents_streets_from_the_same_deck() -> None:
    opts = {**value.LIVE_TRAINING, "boards": 50}
    t = value._tables(PINEAPPLE, opts, np.zeros((14, rollout.VALUE_FEATURES)))
    decks, s_code, s_cnt, s_pos, s_board = value._play(PINEAPPLE, opts, t.residual, 8, 7)
    # Each kept board has had its own streets and as many cards dealt to the opponent.
    placed = s_cnt.sum(axis=1)
    assert set(placed) == {5, 7, 9, 11}
    dealt = {5: 10, 7: 16, 9: 22, 11: 28}
    assert all(s_pos[i] == dealt[int(placed[i])] for i in range(len(placed)))
    # The features of a kept board are its five and those of the cards not yet dealt,
    # counted over the cards themselves (its lines rebuilt from the deck would need the
    # placements; the code sums are matched by the board's five features instead).
    feats = value._features(s_code, s_cnt, decks, s_pos, s_board, True, t.codes, t.t5, t.fo,
                            rollout.partial_line_table())  # fmt: skip
    assert feats.shape == (len(placed), 10)
    for i in range(len(placed)):
        rest = [int(c) for c in decks[s_board[i], s_pos[i] :]]
        counts = np.zeros(rollout.LIVE_COUNTS, dtype=np.int64)
        features.count_live(np.array(rest, dtype=np.int64), 0, len(rest), counts)
        assert list(counts[:4]) == [sum(card_suit(c) == q for c in rest) for q in range(4)]
        g = features.live_feature_indices(*(int(x) for x in s_code[i]), *(int(x) for x in s_cnt[i]),
                                   rollout.partial_line_table(), t.codes, counts)  # fmt: skip
        assert tuple(feats[i, 5:]) == tuple(int(x) for x in g)
        assert tuple(feats[i, :5]) == features.feature_indices(
            *(int(x) for x in s_code[i]),
            *(int(x) for x in s_cnt[i]),
            t.t5,
            t.fo,
            rollout.partial_line_table(),
        )
    with pytest.raises(ValueError, match="need 68 cards, more than a deck's 52"):
        value.iterate(PINEAPPLE, **{**opts, "burn": 3})  # four players' 17 cards
    with pytest.raises(ValueError, match="0 or more opponents, not -1"):
        value.iterate(PINEAPPLE, **{**opts, "burn": -1})


@pytest.mark.slow
def test_a_wide_table_adds_the_live_entries_to_the_five() -> None:
    """``_residual`` with a table wider than the five blocks: the five entries plus the
    entry of each live feature the board has, the counts read from ``live``."""
    t = rollout.tables_for(PINEAPPLE)
    pl = rollout.partial_line_table()
    rng = np.random.default_rng(9)
    table = rng.normal(size=(14, rollout.VALUE_FEATURES))
    py = random.Random(9)
    for _ in range(500):
        deck = list(range(52))
        py.shuffle(deck)
        sizes = (py.randint(0, 3), py.randint(0, 5), py.randint(0, 5))
        if sum(sizes) >= 13:
            continue
        lines = [deck[: sizes[0]], deck[sizes[0] : sizes[0] + sizes[1]],
                 deck[sizes[0] + sizes[1] : sum(sizes)]]  # fmt: skip
        live = np.array(deck[sum(sizes) : sum(sizes) + py.randint(0, 52 - sum(sizes))])
        counts = np.zeros(rollout.LIVE_COUNTS, dtype=np.int64)
        features.count_live(live.astype(np.int64), 0, len(live), counts)
        c = [sum(int(t.codes[x]) for x in line) for line in lines]
        k = [len(line) for line in lines]
        row = table[sum(k)]
        five = features.feature_indices(*c, *k, t.t5, t.fo, pl)
        extra = [j for j in _oracle(lines, [int(x) for x in live]) if j >= 0]
        expected = sum(row[j] for j in five) + sum(row[j] for j in extra)
        got = features.learned_estimate(*c, *k, t.t5, t.fo, (pl, table), counts, t.codes)
        assert got == pytest.approx(expected)
        # a narrow table reads the five only, whatever the counts say
        narrow_table = (pl, table[:, : rollout.RES_FEATURES])
        narrow = features.learned_estimate(*c, *k, t.t5, t.fo, narrow_table, counts, t.codes)
        assert narrow == pytest.approx(sum(row[j] for j in five))


def test_the_shipped_live_table_says_how_it_was_made() -> None:
    with open(value.live_value_path(), encoding="utf-8") as f:
        data = json.load(f)
    assert data["features"] == rollout.VALUE_FEATURES
    assert [e["preset"] for e in data["tables"]] == list(value.LIVE_PRESETS)
    for entry in data["tables"]:
        rules = rules_for(entry["preset"])
        assert entry["fingerprint"] == fingerprint(rules)
        assert entry["training"] == value.LIVE_TRAINING
        table = value.value_table(rules, BoardValue.LIVE)
        assert table.shape == (14, rollout.VALUE_FEATURES)
        placed = [int(k) for k in entry["rows"]]
        assert placed == [5, 7, 9, 11] if entry["preset"] == "pineapple" else list(range(5, 13))
        for k in placed:
            assert table[k, rollout.RES_FEATURES :].any()  # the live features were fitted
    base = rollout.tables_for(PINEAPPLE)
    assert np.array_equal(base.with_policy(value=3).residual,
                          value.value_table(PINEAPPLE, BoardValue.LIVE))  # fmt: skip


def test_more_live_outs_are_worth_more() -> None:
    """What the fitted table says of draws: a live card more for a four-card flush or
    a queen on top is worth something (the fit found the draws, not noise)."""
    table = value.value_table(PINEAPPLE, BoardValue.LIVE)
    row = table[5]
    # After the first street 6 to 11 cards of a suit are live (entries outside stay 0).
    flush_bottom_3 = [row[rollout.LIVE_OFF_FLUSH + (1 * 3 + 1) * 12 + s] for s in (6, 10)]
    assert flush_bottom_3[1] > flush_bottom_3[0] + 1.0
    queen_top = [row[rollout.LIVE_OFF_TOP + (0 * 3 + 0) * 4 + s] for s in range(4)]
    assert queen_top[3] > queen_top[0]


def test_the_live_table_is_refused_where_none_was_trained() -> None:
    with pytest.raises(RulesError, match="live"):
        value.value_table(rules_for("pineapple-progressive"), BoardValue.LIVE)
    with pytest.raises(ValueError, match="iterated or search"):
        value.search_samples(PINEAPPLE, 1, 1, kind=BoardValue.LIVE)


def test_the_tool_refuses_two_tables_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert value.main(["--search", "--live"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--search and --live" in err


def _value_bot(kind: BoardValue) -> MonteCarloBot:
    bot = MonteCarloBot(seed=5, level=1)
    bot.throwing_params = dataclasses.replace(
        bot.throwing_params, value=int(kind), fills=0, screen_fills=0
    )
    return bot


def test_mc_with_the_live_value_plays_legal_hands() -> None:
    bot = _value_bot(BoardValue.LIVE)
    for seed in (1, 2):
        table = Table(PINEAPPLE, 2, seed=seed)
        play_hand(table, [bot, MonteCarloBot(seed=6, level=1)])
        assert table.over
    assert bot.last_analysis


def test_the_live_features_reach_the_bots_estimates() -> None:
    """The same first decision, the same seed: the live table's screen and rollouts
    give other values than the table without the live cards."""
    table = Table(PINEAPPLE, 2, seed=3)
    view = table.view(table.to_act[0])
    live, iterated = _value_bot(BoardValue.LIVE), _value_bot(BoardValue.ITERATED)
    live.act(view)
    iterated.act(view)
    a = sorted(o.screen for o in live.last_analysis)
    b = sorted(o.screen for o in iterated.last_analysis)
    assert len(a) == len(b) and a != b
