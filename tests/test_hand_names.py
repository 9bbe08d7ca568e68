"""One notation for Criss Cross hands (``NAME/1``, ``NAME/2``) in the engine, its
histories and the ``score`` command, and one check that refuses ambiguous names."""

from __future__ import annotations

import json
import random

import pytest

from chinese_poker import engine
from chinese_poker.cli import main
from chinese_poker.engine import Session, SessionError, Table, TableError, hand_record
from chinese_poker.rules import rules_for

BOARDS = [
    "Qs Qh 4d | Kc Kd 9s 9h 2c | 8s 8h 8d 8c 3s",
    "Ah Ad 5c | Jh Jd Jc 6s 2d | Kh Th 7h 5h 3h",
    "As 9d 4s | Qd Qc 5s 5d Ks | Ts Td Tc 3d 3c",
    "Js 9c 6c | 4h 4c 2s 2h Ac | 7s 7d 7c 6h 6d",
]


def test_engine_history_and_score_name_criss_cross_hands_alike(
    capsys: pytest.CaptureFixture[str], tmp_path: object
) -> None:
    t = Table(rules_for("criss-cross"), ["Ann", "Bob"], seed=3)
    rng = random.Random(1)
    while not t.over:
        t.apply(t.random_action(t.to_act[0], rng))
    names = [t.hand_name(s, h) for s in range(2) for h in range(2)]
    assert names == ["Ann/1", "Ann/2", "Bob/1", "Bob/2"]
    assert list(t.settlement.seat_totals) == names  # type: ignore[union-attr]
    assert list(hand_record(t)["boards"]) == names
    table = {
        "rules": "criss-cross",
        "players": [
            {"name": "Ann", "boards": BOARDS[:2]},
            {"name": "Bob", "boards": BOARDS[2:]},
        ],
    }
    path = tmp_path / "cc.json"  # type: ignore[operator]
    path.write_text(json.dumps(table), encoding="utf-8")
    assert main(["score", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in data["players"]] == names


@pytest.mark.parametrize("name", ["AC/DC", "/", "Ann/1"])
def test_names_with_the_separator_are_refused_everywhere(
    name: str, capsys: pytest.CaptureFixture[str], tmp_path: object
) -> None:
    assert engine.HAND_SEPARATOR == "/"
    with pytest.raises(TableError, match="cannot contain '/'"):
        engine.validate_player_name(name)
    with pytest.raises(TableError, match="cannot contain '/'"):
        Table(rules_for("ofc"), [name, "Bob"])
    with pytest.raises(SessionError, match="cannot contain '/'"):
        Session(rules_for("ofc"), [name, "Bob"])
    table = {"rules": "ofc", "players": [{"name": name, "board": BOARDS[0]},
                                         {"name": "Bob", "board": BOARDS[2]}]}  # fmt: skip
    path = tmp_path / "bad.json"  # type: ignore[operator]
    path.write_text(json.dumps(table), encoding="utf-8")
    assert main(["score", str(path)]) == 2
    err = capsys.readouterr().err
    assert "cannot contain '/'" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("name", ["", "  ", 7, None])
def test_empty_or_non_string_names_are_refused(name: object) -> None:
    with pytest.raises(TableError, match="non-empty string"):
        engine.validate_player_name(name)
