"""Hints: every legal street action ranked with values and foul chances, solver-based
hints for sets and declarations, and the ``chinese-poker hint`` command."""

from __future__ import annotations

import doctest
import io
import json
from pathlib import Path

import pytest

from chinese_poker.ai import hints
from chinese_poker.ai.hints import HintEntry, hint, hint_from_dict
from chinese_poker.ai.simple import RuleBot
from chinese_poker.cli import hint as hint_cli
from chinese_poker.cli import main
from chinese_poker.engine import Place, Table
from chinese_poker.engine.actions import ClaimNatural, Surrender, iter_placements
from chinese_poker.rules import rules_for


def _advance(table: Table, decisions: int) -> None:
    bots = {s: RuleBot(seed=s) for s in range(len(table.players))}
    for _ in range(decisions):
        s = table.to_act[0]
        table.apply(bots[s].act(table.view(s)))


@pytest.mark.parametrize("module", [hints, hint_cli])
def test_doctests(module: object) -> None:
    assert doctest.testmod(module).failed == 0  # type: ignore[arg-type]


@pytest.mark.parametrize(("preset", "players", "decisions"),
                         [("pineapple", 2, 3), ("ofc", 3, 7), ("turbo", 2, 2)])  # fmt: skip
def test_street_hints_cover_every_action_sorted(preset: str, players: int, decisions: int) -> None:
    table = Table(rules_for(preset), players, seed=5)
    _advance(table, decisions)
    view = table.view(table.to_act[0])
    entries = hint(view, level=1)
    legal = list(iter_placements(view.decisions[0], view.version))
    assert sorted(map(str, (e.action for e in entries))) == sorted(map(str, legal))
    assert all(isinstance(e, HintEntry) and 0.0 <= e.foul_probability <= 1.0 for e in entries)
    assert all(e.explanation and "foul risk" in e.explanation for e in entries)
    assert all(table.can(e.action) for e in entries)
    # Best first: the placements that got every rollout lead, by value.
    values = [e.value for e in entries]
    assert values[0] == max(values)


def test_first_street_hints_and_json_form() -> None:
    table = Table(rules_for("pineapple"), 2, seed=4)
    view = table.view(table.to_act[0])
    entries = hint(view, level=1, seed=3)
    assert len(entries) == 232
    data = entries[0].to_dict()
    assert set(data) == {"action", "text", "value", "foul_probability", "explanation", "stderr"}
    assert Place.from_dict(data["action"]) == entries[0].action
    assert hint_from_dict(view.to_dict(), level=1, seed=3)[0].action == entries[0].action


def test_explanations_speak_of_draws_and_outs() -> None:
    from chinese_poker.cards import parse_cards

    rules = rules_for("pineapple")
    unseen = [c for c in range(52) if c not in parse_cards("Ah Kh 7h 2c 3d")]
    text = hints._explain_street(
        rules, ((), (), ()), Place(0, (), (), parse_cards("Ah Kh 7h")), unseen, 0.12, 0.0
    )
    assert "heart flush draw in the bottom (10 outs)" in text and "12% foul risk" in text
    gut = hints._line_phrase(rules, 1, parse_cards("5c 6d 7h 9s"), (), unseen)
    assert gut.startswith("gutshot in the middle (4 outs)")


def test_fantasyland_hints_rank_the_solver_and_alternatives() -> None:
    rules = rules_for("pineapple")
    table = Table(rules, 2, seed=12, fantasyland={0: 14})
    view = table.view(0)
    entries = hint(view, level=1)
    assert 2 <= len(entries) <= 8
    assert any("solver's best" in e.explanation for e in entries)
    assert all(table.can(e.action) for e in entries)
    assert [e.value for e in entries] == sorted((e.value for e in entries), reverse=True)
    assert all(0.0 <= e.foul_probability <= 1.0 for e in entries)


def test_classic_hints_use_the_setting_solver() -> None:
    table = Table(rules_for("classic"), 4, seed=2)
    entries = hint(table.view(0))
    assert 2 <= len(entries) <= 6 and "best setting" in entries[0].explanation
    assert all(table.can(e.action) and e.foul_probability == 0.0 for e in entries)


def test_declaration_hints() -> None:
    rules = rules_for("classic")
    table = Table(rules, 2, seed=6)
    _advance(table, 2)  # both sets
    while not table.over and table.view(table.to_act[0]).decisions[0].kind != "surrender":
        _advance(table, 1)
    if table.over:
        pytest.skip("no surrender decision in this deal")
    entries = hint(table.view(table.to_act[0]))
    assert {type(e.action) for e in entries} == {Surrender}
    assert len(entries) == 2 and entries[0].value >= entries[1].value
    opt = rules_for("classic", natural_claim="optional")
    from chinese_poker.cards import parse_cards

    dragon = parse_cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    rest = [c for c in range(52) if c not in dragon]
    t2 = Table(opt, 2, deck=[x for pair in zip(dragon, rest, strict=False) for x in pair]
               + rest[13:])  # fmt: skip
    _advance(t2, 2)
    view = t2.view(t2.to_act[0])
    if view.decisions and view.decisions[0].kind == "natural":
        entries = hint(view)
        assert {type(e.action) for e in entries} == {ClaimNatural}
        assert entries[0].action.claim  # type: ignore[union-attr]


def test_not_this_seats_turn() -> None:
    table = Table(rules_for("pineapple"), 2, seed=1)
    idle = 1 - table.to_act[0]
    with pytest.raises(ValueError, match="not seat"):
        hint(table.view(idle))
    with pytest.raises(ValueError, match="spectator"):
        hint(table.view(None))


# --------------------------------------------------------------------------- the command


def _view_file(tmp_path: Path, seat_to_act: bool = True) -> Path:
    table = Table(rules_for("pineapple"), 2, seed=8)
    _advance(table, 3)
    seat = table.to_act[0] if seat_to_act else 1 - table.to_act[0]
    path = tmp_path / "view.json"
    path.write_text(json.dumps(table.view(seat).to_dict()), encoding="utf-8")
    return path


def test_cli_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _view_file(tmp_path)
    assert main(["hint", str(path), "--level", "1"]) == 0
    out = capsys.readouterr().out
    assert "points" in out and "foul" in out and "%" in out
    assert main(["hint", str(path), "--level", "1", "--json", "--top", "3"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["options"] >= 3 and len(data["hints"]) == 3
    assert data["hints"][0]["value"] >= data["hints"][1]["value"]


def test_cli_reads_stdin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _view_file(tmp_path).read_text(encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert main(["hint", "--level", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hints"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"seat": 0}', "not a view"),
        ("", "empty"),
    ],
)
def test_cli_rejects_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    assert main(["hint", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_cli_rejects_a_view_that_is_not_to_act(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _view_file(tmp_path, seat_to_act=False)
    assert main(["hint", str(path), "--level", "1"]) == 2
    err = capsys.readouterr().err
    assert "not seat" in err and len(err.strip().splitlines()) == 1
    assert main(["hint", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_fantasyland_hint_ranks_no_forbidden_stay_first() -> None:
    """[000]: "не се допуска повече от едно повторение на „Фантазия“ подред" (no more
    than one repetition in a row). In a second Fantasyland hand in a row the stay is
    worth nothing: the hint puts the 20-royalty board first, not the 16-royalty stay."""
    from chinese_poker.cards import Board
    from chinese_poker.scoring import royalties
    from test_engine_bots import capped_table

    for streak, want in ((1, 16), (2, 20)):
        table = capped_table(streak)
        entries = hint(table.view(0), level=1, seed=1)
        best = entries[0].action
        assert isinstance(best, Place)
        got = sum(royalties(table.rules, Board(best.top, best.middle, best.bottom)))
        assert got == want, [(e.value, e.explanation) for e in entries]
        if streak == 2:
            assert not any("stays in Fantasyland" in e.explanation for e in entries)


def test_trips_on_top_are_called_fantasyland_only_where_the_rules_have_it() -> None:
    from chinese_poker.cards import parse_cards
    from chinese_poker.rules import rules_for

    top = tuple(parse_cards("Qh Qd Qs"))
    with_fl = hints._line_phrase(rules_for("pineapple"), 0, top[:2], top[2:], [])
    without = hints._line_phrase(
        rules_for("pineapple", fantasyland_enabled=False), 0, top[:2], top[2:], []
    )
    assert "(Fantasyland" in with_fl
    assert "Fantasyland" not in without
