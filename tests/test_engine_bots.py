"""The built-in bots: always legal, deterministic by seed, and the rules bot plays sensibly."""

from __future__ import annotations

import doctest
from collections.abc import Callable

import pytest

import chinese_poker.ai as ai_pkg
from chinese_poker.ai import BOTS, RandomBot, RuleBot, make_bot, simple
from chinese_poker.engine import Action, Session, Table, View, play_hand, play_session
from chinese_poker.rules import preset_names, rules_for


@pytest.mark.parametrize("module", [ai_pkg, simple])
def test_doctests(module: object) -> None:
    assert doctest.testmod(module).failed == 0  # type: ignore[arg-type]


@pytest.mark.parametrize("preset", preset_names())
def test_bots_play_every_preset_legally(preset: str) -> None:
    rules = rules_for(preset)
    for n in rules.player_counts:
        for k in range(3):
            fl = {0: 14 if rules.variant == "pineapple" else 13} if rules.is_open_face and k else {}
            t = Table(rules, n, seed=k, fantasyland=fl)
            bots = [make_bot("rules" if (i + k) % 2 else "random", seed=i) for i in range(n)]
            play_hand(t, bots)  # apply() raises on an illegal action
            assert sum(t.totals.values()) == 0


def test_rule_bot_rarely_fouls_and_beats_random() -> None:
    rules = rules_for("pineapple")
    fouls = 0
    score = 0
    for k in range(30):
        t = Table(rules, 2, seed=k, button=k % 2)
        play_hand(t, [RuleBot(seed=k), RandomBot(seed=k)])
        fouls += "P1" in t.settlement.fouled  # type: ignore[union-attr]
        score += t.totals["P1"]
    assert fouls <= 3 and score > 0


def test_rule_bot_sets_fantasyland_well() -> None:
    rules = rules_for("ofc")
    for k in range(5):
        t = Table(rules, 2, seed=k, fantasyland={0: 13})
        play_hand(t, [RuleBot(seed=1), RandomBot(seed=2)])
        assert "P1" not in t.settlement.fouled  # type: ignore[union-attr]


def test_rule_bot_classic_never_missets() -> None:
    for preset in ("classic", "classic-low-middle", "criss-cross"):
        rules = rules_for(preset)
        n = 2 if preset == "criss-cross" else 4
        for k in range(10):
            t = Table(rules, n, seed=k)
            play_hand(t, [RuleBot(seed=i) for i in range(n)])
            assert not t.settlement.fouled or preset == "classic-low-middle"  # type: ignore[union-attr]


def test_bots_are_deterministic_and_named() -> None:
    def run() -> list[dict[str, int]]:
        session = Session(rules_for("turbo"), ["A", "B", "C"], seed=3)
        bots = {
            "A": make_bot("rules", seed=1),
            "B": make_bot("random", seed=2),
            "C": make_bot("rules", seed=3),
        }
        return [dict(r.totals) for r in play_session(session, bots)]

    assert run() == run()
    assert sorted(BOTS) == ["mc", "mc-v1", "random", "rules"]
    assert make_bot(" Rules ").name == "rules"
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("genius")
    t = Table(rules_for("ofc"), 2, seed=1)
    with pytest.raises(ValueError, match="nothing to decide"):
        RandomBot().act(t.view(0))


# A Pineapple Fantasyland deal where staying (trips on top, 16 royalties) competes with
# the most royalties (20): the stay is worth it only while the repeat limit allows one.
CAPPED_DEAL = "2h 2d 2c 6h 6c 8h 8c 9c Tc Js Jd Jc Qs Ac"


def capped_table(streak: int) -> Table:
    from chinese_poker.cards import parse_cards

    deal = parse_cards(CAPPED_DEAL)
    deck = [*deal, *(c for c in range(52) if c not in deal)]
    return Table(
        rules_for("pineapple"), 2, deck=deck, fantasyland={0: 14}, fantasyland_streak={0: streak}
    )


def test_rule_bot_takes_the_royalties_when_no_stay_is_left() -> None:
    """[000]: "не се допуска повече от едно повторение на „Фантазия“ подред" (no more
    than one repetition of Fantasyland in a row): in his second Fantasyland hand in a
    row a stay no longer counts, so the bot sets 20 royalties instead of staying on 16."""
    from chinese_poker.scoring import royalties

    for streak, stays_left, want in ((1, 1, 16), (2, 0, 20)):
        t = capped_table(streak)
        view = t.view(0)
        assert view.board_of(0).fantasyland_stays_left == stays_left
        assert view.board_of(0).fantasyland_stay_allowed == (stays_left > 0)
        place = RuleBot(seed=1).act(view)
        t.apply(place)
        assert sum(royalties(t.rules, t.board(0))) == want


def test_mc_reads_the_stays_left_from_the_view() -> None:
    """The Monte Carlo bot values a stay by the view's Fantasyland standing, not by a
    streak it counts itself: a fresh bot in the second Fantasyland hand of a row (no stay
    left) takes the 20 royalties, and in the first it stays on 16, as the rule bot does."""
    from chinese_poker.ai.mc import MonteCarloBot
    from chinese_poker.scoring import royalties

    for streak, want in ((1, 16), (2, 20)):
        t = capped_table(streak)
        t.apply(MonteCarloBot(seed=1).act(t.view(0)))
        assert sum(royalties(t.rules, t.board(0))) == want


def test_rule_bot_chases_fantasyland_from_the_rules_entry() -> None:
    """[003]: Pineapple Fantasyland "above a pair of queens" (``fl_entry_min=KK``): a pair
    of queens on top is worth no Fantasyland bonus there, a pair of kings is."""
    from chinese_poker.cards import parse_cards
    from chinese_poker.evaluate import evaluate3

    queens, kings = (evaluate3(*parse_cards(text)) for text in ("Qh Qd 2c", "Kh Kd 2c"))
    qq, kk = rules_for("pineapple"), rules_for("pineapple", fl_entry_min="KK")
    assert simple._fl_bonus(qq, queens) > 0 and simple._fl_bonus(qq, kings) > 0
    assert simple._fl_bonus(kk, queens) == 0 and simple._fl_bonus(kk, kings) > 0


def rule_bot_moves(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every decision any rules bot makes from now on, one entry each (the rules bot is
    mc's fallback: with only mc at the table, each one is a fallback that really ran)."""
    moves: list[int] = []
    act = RuleBot.act

    def counted(self: RuleBot, view: View) -> Action:
        moves.append(view.version)
        return act(self, view)

    monkeypatch.setattr(RuleBot, "act", counted)
    return moves


@pytest.mark.parametrize(
    ("options", "falls_back"),
    [({"royalty_for_dealt_combination": True}, True), ({"misset_rule": "ignore"}, False),
     ({"middle_mode": "lowball_2_7"}, True)],
)  # fmt: skip
def test_mc_plays_rules_its_kernels_do_not_all_model(
    options: dict[str, object], falls_back: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Options the playout kernels refuse send mc to the rule bot instead of raising in
    the middle of a hand; options they model (misset_rule=ignore) it plays itself, the
    Fantasyland solver included."""
    from chinese_poker.ai.mc import MonteCarloBot

    moves = rule_bot_moves(monkeypatch)
    rules = rules_for("pineapple", **options)
    session = Session(rules, ["A", "B"], seed=3)
    bots = {"A": MonteCarloBot(seed=1, level=1), "B": MonteCarloBot(seed=2, level=1)}
    results = play_session(session, bots, max_hands=2)
    assert len(results) == 2
    assert bool(moves) is falls_back


def test_mc_plays_classic_rules_the_setting_solver_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    """royalty_award=cancel with one royalty a hand: the solver refuses it (a RulesError),
    so mc sets with the rule bot instead of raising in the middle of a hand (the server
    would then play random moves for it)."""
    from chinese_poker.ai.mc import MonteCarloBot
    from chinese_poker.ai.setting import solve_setting
    from chinese_poker.rules import RulesError

    rules = rules_for("classic", royalty_award="cancel", max_royalties_per_hand=1)
    with pytest.raises(RulesError):
        solve_setting(tuple(range(13)), rules)
    moves = rule_bot_moves(monkeypatch)
    session = Session(rules, ["A", "B"], seed=3)
    bots = {"A": MonteCarloBot(seed=1), "B": MonteCarloBot(seed=2)}
    decided = 0
    for bot in bots.values():
        act = bot.act

        def counted(view: View, act: Callable[[View], Action] = act) -> Action:
            nonlocal decided
            decided += 1
            return act(view)

        bot.act = counted  # type: ignore[method-assign]
    assert len(play_session(session, bots, max_hands=2)) == 2
    assert len(moves) == decided > 0  # every decision of mc's was the rules bot's


def test_the_registry_declares_each_bot_and_loads_none() -> None:
    """Every consumer reads the registry: its levels are mc's offered ones, and reading it
    imports no bot (mc's kernels load only when one is built)."""
    import subprocess
    import sys

    from chinese_poker.ai import REGISTRY, mc

    assert list(REGISTRY) == ["random", "rules", "mc", "mc-v1"]
    for name in ("mc", "mc-v1"):
        assert REGISTRY[name].levels == mc.OFFERED_LEVELS and REGISTRY[name].takes_level
    for name in ("random", "rules"):
        assert REGISTRY[name].levels == () and not REGISTRY[name].takes_level
    assert len({kind.display_name for kind in REGISTRY.values()}) == len(REGISTRY)
    assert dict(BOTS) == {name: kind.build for name, kind in REGISTRY.items()}
    with pytest.raises(ValueError, match="bot 'random' takes no option 'level'"):
        make_bot("random", level=1)
    assert make_bot("rules", samples=3).samples == 3  # type: ignore[attr-defined]
    code = (
        "import sys, chinese_poker.ai as a; a.REGISTRY['mc']; "
        "print(sorted(m for m in sys.modules if m.startswith('chinese_poker.ai.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
