"""Sessions and tournaments: button orbit, Fantasyland carry-over, ledger, chips (§9, §10)."""

from __future__ import annotations

import json
import random

import pytest

from chinese_poker.engine import (
    Session,
    SessionError,
    Table,
    Timeout,
    Tournament,
    View,
    pay_chips,
    play_session,
)
from chinese_poker.rules import Rules, rules_for
from test_engine_scripts import drive, stack_hand

W8 = {
    0: "Kh Kd 4c | 9s 9h 9c 5d 2s | Ah Jh 8h 6h 3h",
    1: "6s 6d Qc | Jc Js 8c 8d Ac | 7c 7d 7s 2c 2d",
    2: "Ad As 5c | Qs Qd Tc 4d 3c | Ks Kc Th Td 9d",
}


def play_scripted(session: Session, scripts: dict[int, str]) -> None:
    """Deal the session's next hand from a stacked deck and play the scripts."""
    names = session.next_participants()
    seats = {name: i for i, name in enumerate(names)}
    button = seats[session.players[session.button]]
    fl = {seats[p]: c for p, c in session.fantasyland_pending.items()}
    deck, queues = stack_hand(session.rules, len(names), button, scripts, fl)
    table = session.start_hand(deck=deck)
    drive(table, queues)


def random_hand(session: Session, rng: random.Random) -> None:
    table = session.start_hand()
    while not table.over:
        table.apply(table.random_action(table.to_act[0], rng))


# --------------------------------------------------------------------------- W15


@pytest.mark.parametrize(
    ("preset", "deals"),
    [("pineapple", (14, 14)), ("pineapple-progressive", (15, 14))],
)
def test_w15_fantasyland_session(preset: str, deals: tuple[int, int]) -> None:
    session = Session(rules_for(preset), ["S1", "S2", "S3"], seed=15)
    buttons, fl_seen = [], []
    scripts = [
        {2: "Kd Kc 2h | 7s 7h 7d 3c 4c | As Ah Ad Qs Qh"},  # H1: S3 enters with KK
        {2: "9s 9h 9d | Ts Th Td 2c 3c | Js Jh Jd Jc 4d"},  # H2: trips on top, a repeat
        {2: "2s 3s 4s | 5h 5d 6h 6d Kh | Qd Qc Qs Qh 8s"},  # H3: quads, but the limit
        {},
        {},
    ]
    for number, script in enumerate(scripts, 1):
        assert not session.over
        buttons.append(session.players[session.button])
        play_scripted(session, script)
        table = session.table
        assert table is not None
        fl_seen.append(dict(session.results[-1].fantasyland) if session.results else None)
        result = session.finish_hand()
        fl_seen[-1] = dict(result.fantasyland)
        if number in (2, 3):
            # S3 got its deal first and was to act from the start, face down.
            assert table.fantasyland == {2: deals[number - 2]}
            assert len(table.dealt(2)) == deals[number - 2]
        assert result.number == number
    assert session.over
    assert buttons == ["S1", "S1", "S1", "S2", "S3"]
    assert fl_seen == [{}, {"S3": deals[0]}, {"S3": deals[1]}, {}, {}]
    assert [r.fantasyland_next for r in session.results] == [
        {"S3": deals[0]},
        {"S3": deals[1]},
        {},
        {},
        {},
    ]
    # H3's board qualified to stay (quads), but a third hand in a row exceeds the limit.
    assert session.results[2].settlement.fantasyland["S3"] == 14
    assert len(session.results) == 5 == 3 + 2


def test_w15_fantasyland_acts_first_and_hidden() -> None:
    session = Session(rules_for("pineapple"), ["S1", "S2", "S3"], seed=1)
    play_scripted(session, {2: "Kd Kc 2h | 7s 7h 7d 3c 4c | As Ah Ad Qs Qh"})
    session.finish_hand()
    table = session.start_hand()
    assert table.to_act == (2,)  # S3 (on the button) sets before S2 starts the streets
    assert table.decisions(2)[0].kind == "set" and table.street == 0
    assert len(table.view(2).hand) == 14
    assert table.view(1).board_of(2).fantasyland_cards == 14
    assert table.view(1).hand == ()
    rng = random.Random(0)
    table.apply(table.random_action(2, rng))
    assert table.to_act == (1,) and table.street == 1
    assert table.view(1).board_of(2).hidden
    assert table.view(1).board_of(2).top == ()
    assert table.view(2).board_of(2).placed == 13


def test_button_moves_before_fl_hand_option() -> None:
    rules = rules_for("pineapple", button_moves_before_fl_hand=True)
    session = Session(rules, ["S1", "S2", "S3"], seed=2)
    scripts = [
        {2: "Kd Kc 2h | 7s 7h 7d 3c 4c | As Ah Ad Qs Qh"},
        {2: "9s 9h 9d | Ts Th Td 2c 3c | Js Jh Jd Jc 4d"},
        {},
        {},
        {},
    ]
    buttons = []
    for script in scripts:
        buttons.append(session.players[session.button])
        play_scripted(session, script)
        session.finish_hand()
    assert buttons == ["S1", "S2", "S3", "S1", "S2"]
    assert session.over


def test_session_length_without_fantasyland() -> None:
    for preset, n in [("ofc", 4), ("classic", 4), ("criss-cross", 2), ("turbo", 3)]:
        session = Session(rules_for(preset, fantasyland_enabled=False), n, seed=3, button=1)
        rng = random.Random(1)
        buttons = []
        while not session.over:
            buttons.append(session.button)
            random_hand(session, rng)
            session.finish_hand()
        assert len(session.results) == n
        assert buttons == [(1 + i) % n for i in range(n)]


ENTER = "Kd Kc 2h | 7s 7h 7d 3c 4c | As Ah Ad Qs Qh"  # KK on top: Fantasyland
STAY = "9s 9h 9d | Ts Th Td 2c 3c | Js Jh Jd Jc 4d"  # trips on top: stays
NO_STAY = "2s 3s 4d | 5h 5d 6h 6d Kh | Qd Qc Qs 8h 8s"


def _fl_run(rules: Rules, scripts: list[str]) -> list[dict[str, int]]:
    session = Session(rules, ["S1", "S2", "S3"], seed=4)
    out = []
    for script in scripts:
        play_scripted(session, {2: script})
        out.append(dict(session.finish_hand().fantasyland_next))
    return out


def test_per_session_scope_limits_the_repeat_not_the_entries() -> None:
    """[000] (Pineapple): "Можете да повторите фантазията в една игра само веднъж" (you
    may repeat the fantasy only once in one game). The limit counts stays; a second
    entry with QQ+ is always earned, and the one repeat of the session may come from
    either Fantasyland run."""
    in_fl = {"S3": 14}
    once = rules_for("pineapple", fl_repeat_limit_scope="per_session")
    # Enter, stay (the repeat), refused a second stay; enter again, refused a stay.
    got = _fl_run(once, [ENTER, STAY, STAY, ENTER, STAY])
    assert got == [in_fl, in_fl, {}, in_fl, {}]
    # Enter, no stay; enter again: this run's first repeat is the session's first.
    got = _fl_run(once, [ENTER, NO_STAY, ENTER, STAY, STAY])
    assert got == [in_fl, {}, in_fl, in_fl, {}]
    # The consecutive scope allows a repeat in every run.
    twice = rules_for("pineapple", fl_repeat_limit_scope="consecutive")
    assert _fl_run(twice, [ENTER, STAY, STAY, ENTER, STAY]) == [in_fl, in_fl, {}, in_fl, in_fl]
    # No repeats at all (fl_max_consecutive 1): entries still count in both scopes.
    for scope in ("consecutive", "per_session"):
        never = rules_for("pineapple", fl_max_consecutive=1, fl_repeat_limit_scope=scope)
        assert _fl_run(never, [ENTER, STAY, ENTER]) == [in_fl, {}, in_fl]


def test_views_carry_the_fantasyland_standing() -> None:
    """Every player saw the earlier hands: the streak and the stays the limit still
    allows are public (§9.4), so a bot need not guess whether a stay counts."""
    once = rules_for("pineapple", fl_repeat_limit_scope="per_session")
    session = Session(once, ["S1", "S2", "S3"], seed=4)
    standing = []
    for script in [ENTER, STAY, STAY, ENTER, STAY]:
        names = session.next_participants()
        fl = {i: c for i, n in enumerate(names) if (c := session.fantasyland_pending.get(n))}
        deck, queues = stack_hand(session.rules, 3, session.button, {2: script}, fl)
        table = session.start_hand(deck=deck)
        view = table.view(0)
        board = view.board_of(2)
        standing.append((board.fantasyland_streak, board.fantasyland_stays_left))
        assert View.from_dict(json.loads(json.dumps(view.to_dict()))) == view
        assert table.view(None).board_of(2).fantasyland_stays_left == board.fantasyland_stays_left
        drive(table, queues)
        session.finish_hand()
    assert standing == [(0, 0), (1, 1), (2, 0), (0, 0), (1, 0)]
    unlimited = Table(
        rules_for("ofc", fl_max_consecutive="unlimited"), 2, seed=1, fantasyland={1: 13},
        fantasyland_streak={1: 5},
    )  # fmt: skip
    view = unlimited.view(0)
    assert (
        view.board_of(1).fantasyland_stays_left is None
        and view.board_of(1).fantasyland_stay_allowed
    )
    assert View.from_dict(view.to_dict()) == view


def test_unlimited_repeats() -> None:
    rules = rules_for("ofc", fl_max_consecutive="unlimited")
    session = Session(rules, ["A", "B"], seed=5)
    play_scripted(session, {1: "Kd Kc 2h | 7s 7h 7d 3c 4c | As Ah Ad Qs Qh"})
    session.finish_hand()
    for _ in range(4):
        play_scripted(
            session,
            {
                0: "5s 6d 7h | 8s 8h Qd Kd Ad | 2s 2h 2d Ks Kh",
                1: "9s 9h 9d | Ts Th Td 2c 3c | Js Jh Jd Jc 4d",
            },
        )
        assert session.finish_hand().fantasyland_next == {"B": 13}
    assert not session.over and session.button == 0


# --------------------------------------------------------------------------- ledger


def test_ledger_pairs_points_and_money() -> None:
    rules = rules_for("ofc")
    units = {("P1", "P2"): 100, ("P1", "P3"): 10, ("P2", "P3"): 10}
    session = Session(rules, ["P1", "P2", "P3"], seed=8, units=units)
    play_scripted(session, W8)
    result = session.finish_hand()
    assert dict(result.totals) == {"P1": 28, "P2": 5, "P3": -33}
    ledger = session.ledger
    assert ledger.pairs == {("P1", "P2"): 8, ("P1", "P3"): 20, ("P2", "P3"): 13}
    assert ledger.money == {"P1": 1000.0, "P2": -670.0, "P3": -330.0}
    assert result.fantasyland_next == {"P1": 13}
    rng = random.Random(2)
    while not session.over:
        random_hand(session, rng)
        session.finish_hand()
    ledger = session.ledger
    assert sum(ledger.points.values()) == 0
    assert abs(sum(ledger.money.values())) < 1e-6
    for name in session.players:
        own = sum(p if a == name else -p for (a, b), p in ledger.pairs.items() if name in (a, b))
        assert own == ledger.points[name]
    assert ledger.to_dict()["pairs"]["P1|P2"] == ledger.pairs[("P1", "P2")]


def test_criss_cross_ledger() -> None:
    session = Session(rules_for("criss-cross"), ["A", "B"], seed=9)
    rng = random.Random(3)
    while not session.over:
        random_hand(session, rng)
        result = session.finish_hand()
        assert result.totals["A"] == -result.totals["B"]
    assert session.ledger.pairs[("A", "B")] == session.ledger.points["A"]


# --------------------------------------------------------------------------- tournaments


def test_w17_tournament_proportional() -> None:
    rules = rules_for("ofc", level_values="20")
    t = Tournament(rules, ["P1", "P2", "P3"], seed=17, stacks={"P3": 330})
    play_scripted(t, W8)
    result = t.finish_hand()
    assert result.chips_per_point == 20
    assert result.chips == {"P1": 360, "P2": -30, "P3": -330}
    assert result.eliminated == ("P3",)
    assert t.stacks == {"P1": 1360, "P2": 970, "P3": 0}
    assert t.active_players == ("P1", "P2")
    assert t.ledger.out == ("P3",)
    assert not t.over
    table = t.start_hand()
    assert table.players == ("P1", "P2")
    assert table.fantasyland == {0: 13}  # P1 earned Fantasyland with KK


def test_w17_tournament_seat_order() -> None:
    rules = rules_for("ofc", level_values="20", insufficient_chips_rule="seat_order")
    t = Tournament(rules, ["P1", "P2", "P3"], seed=17, stacks={"P3": 330})
    play_scripted(t, W8)
    # Play order from the button P1: P2, P3, P1. P3 pays P2's 260 first, then 70 to P1.
    assert t.finish_hand().chips == {"P1": 230, "P2": 100, "P3": -330}


def test_short_stack_pays_all_and_is_out() -> None:
    """RULES §10: "A player cannot pay more chips than he has ... A player with 0 chips is
    out." W17 with one chip more: f = 331/660 makes 200.6 and 130.4, which rounded down
    left P3 alive with 1 chip; the chip goes to the larger remainder (P1) instead."""
    rules = rules_for("ofc", level_values="20")
    t = Tournament(rules, ["P1", "P2", "P3"], seed=17, stacks={"P3": 331})
    play_scripted(t, W8)
    result = t.finish_hand()
    assert result.chips == {"P1": 361, "P2": -30, "P3": -331}
    assert result.eliminated == ("P3",) and t.stacks == {"P1": 1361, "P2": 970, "P3": 0}


@pytest.mark.parametrize("rule", ["proportional", "seat_order"])
def test_pay_chips_short_player_ends_at_zero(rule: str) -> None:
    # One short player among deep stacks: the others pay him in full, so he can pay
    # his stack plus those receipts; if that is less than he owes, he ends at 0.
    rng = random.Random(rule)
    names = ["A", "B", "C", "D"]
    for _ in range(400):
        short = rng.choice(names)
        stacks = {p: 1 if p == short else 10**6 for p in names}
        stacks[short] = rng.randint(1, 60)
        owed = {
            (a, b): rng.randint(0, 50)
            for a in names
            for b in names
            if a != b and rng.random() < 0.5
        }
        change = pay_chips(stacks, owed, rule, names)
        owes = sum(a for (d, _c), a in owed.items() if d == short)
        receives = sum(a for (_d, c), a in owed.items() if c == short)
        can_pay = stacks[short] + receives
        assert sum(change.values()) == 0
        if can_pay >= owes:
            assert change[short] == receives - owes
        else:
            assert stacks[short] + change[short] == 0, (stacks, owed, change)
        for p in names:
            if p != short:  # deep stacks pay in full and get a share of the short payment
                assert change[p] >= sum(
                    a for (_d, c), a in owed.items() if c == p and _d != short
                ) - sum(a for (d, _c), a in owed.items() if d == p)


def test_pay_chips_fixpoint() -> None:
    # B can only pay out of what A pays him, and A is short as well.
    stacks = {"A": 10, "B": 5, "C": 1000}
    owed = {("A", "B"): 20, ("B", "C"): 40, ("A", "C"): 20}
    change = pay_chips(stacks, owed)
    assert sum(change.values()) == 0
    for name, delta in change.items():
        assert stacks[name] + delta >= 0
    # A pays a quarter of each debt (10 of 40); B then has 5 + 5 for 40 owed: a quarter.
    assert change == {"A": -10, "B": -5, "C": 15}
    # Nobody short: everything is paid.
    assert pay_chips({"A": 100, "B": 100}, {("A", "B"): 30}) == {"A": -30, "B": 30}
    with pytest.raises(ValueError):
        pay_chips({"A": 1}, {}, "nonsense")


def test_levels_by_clock_and_by_hands() -> None:
    now = [0.0]
    rules = rules_for("ofc", level_values="10,20,30", level_minutes=1)
    t = Tournament(rules, ["A", "B"], seed=1, clock=lambda: now[0])
    rng = random.Random(4)
    cpps = []
    for minute in (0.5, 1.5, 2.5, 9.0):
        now[0] = minute * 60
        random_hand(t, rng)
        cpps.append(t.finish_hand().chips_per_point)
        if t.over:
            break
    assert cpps == [10, 20, 30, 30][: len(cpps)]
    t2 = Tournament(rules, ["A", "B"], seed=1, level_hands=2)
    levels = []
    while not t2.over and len(levels) < 5:
        random_hand(t2, rng)
        levels.append(t2.finish_hand().level)
    assert levels == [0, 0, 1, 1, 2][: len(levels)]


def test_tournament_runs_to_one_player() -> None:
    rules = rules_for("turbo", starting_chips=60, level_values="5,10,20,40")
    for seed in range(3):
        t = Tournament(rules, 4, seed=seed, level_hands=3)
        rng = random.Random(seed)
        while not t.over:
            random_hand(t, rng)
            t.finish_hand()
            assert sum(t.stacks.values()) == 240  # type: ignore[union-attr]
            assert all(c >= 0 for c in t.stacks.values())  # type: ignore[union-attr]
        assert len(t.active_players) == 1
        assert len(t.ledger.out) == 3


# --------------------------------------------------------------------------- timeouts


def _timeout_hand(session: Session, seat_name: str, scripts: dict[int, str]) -> None:
    """Play a scripted hand in which ``seat_name`` times out on his first turn."""
    names = session.next_participants()
    seats = {name: i for i, name in enumerate(names)}
    button = seats[session.players[session.button]]
    fl = {seats[p]: c for p, c in session.fantasyland_pending.items()}
    deck, queues = stack_hand(session.rules, len(names), button, scripts, fl)
    table = session.start_hand(deck=deck)
    table.apply(Timeout(seats[seat_name]))
    drive(table, queues)


def test_timeout_ends_session() -> None:
    session = Session(rules_for("ofc"), ["A", "B", "C"], seed=10)
    _timeout_hand(session, "B", {})
    result = session.finish_hand()
    assert result.timed_out == ("B",)
    assert session.over and session.ending


def test_timeout_pending_fantasyland_is_played_auto_play() -> None:
    session = Session(rules_for("ofc"), ["A", "B", "C"], seed=11)
    _timeout_hand(session, "B", {2: "Kd Kc 2h | 7s 7h 7d 3c 4c | As Ah Ad Qs Qh"})
    session.finish_hand()
    assert not session.over and session.fantasyland_pending == {"C": 13}
    table = session.start_hand()
    assert table.auto_play == {1}
    assert table.to_act  # B was played by the engine; the others act
    rng = random.Random(1)
    while not table.over:
        table.apply(table.random_action(table.to_act[0], rng))
    assert all(e.auto for e in table.log if e.action.seat == 1)
    session.finish_hand()
    # Unless C stayed in Fantasyland, the session is over now.
    assert session.over == (not session.fantasyland_pending)


def test_timeout_sit_out() -> None:
    rules = rules_for("ofc", timed_out_player_in_remaining_hands="sit_out")
    session = Session(rules, ["A", "B", "C"], seed=12)
    _timeout_hand(session, "B", {2: "Kd Kc 2h | 7s 7h 7d 3c 4c | As Ah Ad Qs Qh"})
    session.finish_hand()
    table = session.start_hand()
    assert table.players == ("A", "C")
    assert table.fantasyland == {1: 13}


def test_timeout_not_ending_session() -> None:
    rules = rules_for("ofc", timeout_ends_session=False, fantasyland_enabled=False)
    session = Session(rules, ["A", "B"], seed=13)
    _timeout_hand(session, "A", {})
    session.finish_hand()
    assert not session.over
    table = session.start_hand()
    assert table.auto_play == frozenset()


# --------------------------------------------------------------------------- misuse


def test_session_misuse() -> None:
    rules = rules_for("ofc")
    with pytest.raises(SessionError, match="2 to 4 players"):
        Session(rules, 5)
    with pytest.raises(SessionError, match="button"):
        Session(rules, 2, button=2)
    with pytest.raises(SessionError, match="tournaments"):
        Session(rules, 2, stacks={"P1": 5})
    with pytest.raises(SessionError, match="not a pair"):
        Session(rules, 2, units={("P1", "X"): 2})
    session = Session(rules, 2, seed=1)
    with pytest.raises(SessionError, match="no hand is running"):
        session.finish_hand()
    table = session.start_hand()
    with pytest.raises(SessionError, match="not over"):
        session.finish_hand()
    with pytest.raises(SessionError, match="not finished"):
        session.start_hand()
    rng = random.Random(0)
    while not table.over:
        table.apply(table.random_action(table.to_act[0], rng))
    session.finish_hand()
    session.start_hand()
    assert isinstance(session.rules, Rules)


def test_sessions_are_reproducible_from_their_seed() -> None:
    def run(seed: int) -> list[dict[str, int]]:
        from chinese_poker.ai import make_bot

        session = Session(rules_for("pineapple-progressive"), ["A", "B", "C"], seed=seed)
        bots = {n: make_bot("random", seed=i) for i, n in enumerate(session.players)}
        return [dict(r.totals) for r in play_session(session, bots)]

    assert run(21) == run(21)
    assert run(21) != run(22)
