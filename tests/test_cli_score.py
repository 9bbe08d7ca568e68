"""Tests for ``chinese-poker score``: the bundled examples, overrides and bad input."""

from __future__ import annotations

import doctest
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from chinese_poker.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
W8 = EXAMPLES / "ofc-three-players.json"

BOARD_A = "Ah Qd 4c | Jh Js 9c 9d 2h | 7c 7d 7h 7s Kc"  # RULES W2: A scoops, +12
BOARD_B = "Kd Jc 3h | Th Ts 8c 8d 5s | Qs 9s 6s 4s 3s"


def run_cli(
    capsys: pytest.CaptureFixture[str], *args: str, stdin: str | None = None
) -> tuple[int, str, str]:
    if stdin is not None:
        sys.stdin = io.StringIO(stdin)
    try:
        code = main(["score", *args])
    finally:
        sys.stdin = sys.__stdin__
    out, err = capsys.readouterr()
    return code, out, err


def score_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code, out, err = run_cli(capsys, *args, "--json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def test_w8_example_json(capsys: pytest.CaptureFixture[str]) -> None:
    data = score_json(capsys, str(W8))
    assert data["rules"] == {"variant": "ofc"}
    assert data["totals"] == {"P1": 28, "P2": 5, "P3": -33}
    assert data["money"] == {"P1": 1000.0, "P2": -670.0, "P3": -330.0}
    assert data["fouled"] == ["P3"]
    assert data["fantasyland"] == {"P1": 13, "P2": None, "P3": None}
    assert [(p["a"], p["b"], p["points"], p["unit"]) for p in data["pairs"]] == [
        ("P1", "P2", 8, 100.0),
        ("P1", "P3", 20, 10.0),
        ("P2", "P3", 13, 10.0),
    ]
    assert [p["name"] for p in data["players"]] == ["P1", "P2", "P3"]
    assert data["players"][2]["foul_reason"] == "top A A 5 beats middle Q Q T 4 3"


def test_w8_example_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, str(W8))
    assert code == 0 and err == ""
    assert "FOULED: top A A 5 beats middle Q Q T 4 3" in out
    assert "P1 vs P2 at 100 a point: P1 +8" in out
    assert "money +1,000" in out and "money -670" in out


def test_rules_and_set_overrides(capsys: pytest.CaptureFixture[str]) -> None:
    progressive = score_json(capsys, str(W8), "--rules", "pineapple-progressive")
    assert progressive["rules"] == {"variant": "pineapple", "fl_progressive": True}
    assert progressive["fantasyland"]["P1"] == 15
    assert progressive["totals"] == {"P1": 28, "P2": 5, "P3": -33}
    two = score_json(capsys, str(W8), "--set", "scoring_method=two_per_line")
    assert two["totals"] == {"P1": 29, "P2": 4, "P3": -33}
    both = score_json(
        capsys,
        str(W8),
        "--set",
        "scoring_method=two_per_line",
        "--set",
        "foul_pays_opponent_royalties=no",
    )
    assert both["totals"] == {"P1": 9 + 6, "P2": -9 + 6, "P3": -12}
    # --set wins over the file's options; --rules replaces the file's preset.
    finnish = EXAMPLES / "ofc-finnish.json"
    assert score_json(capsys, str(finnish))["totals"] == {"A": 14, "B": -14}
    assert score_json(capsys, str(finnish), "--set", "finnish_deuce=off")["totals"]["A"] == 10
    western = score_json(capsys, str(finnish), "--rules", "ofc-western")
    assert western["rules"] == {"variant": "ofc", "royalty_table": "western", "finnish_deuce": True}


@pytest.mark.parametrize(
    ("name", "totals"),
    [
        ("classic-four-players.json", {"P1": 18, "P2": 2, "P3": -6, "P4": -14}),
        ("classic-naturals.json", {"P1": 39, "P2": -7, "P3": -14, "P4": -18}),
        ("classic-surrender.json", {"P1": 17, "P2": 1, "P3": -12, "P4": -6}),
        ("ofc-finnish.json", {"A": 14, "B": -14}),
        ("pineapple-heads-up.json", {"Ann": -15, "Bob": 15}),
        ("criss-cross.json", {"Ann": 20, "Bob": -20}),
    ],
)
def test_bundled_examples(
    capsys: pytest.CaptureFixture[str], name: str, totals: dict[str, int]
) -> None:
    data = score_json(capsys, str(EXAMPLES / name))
    assert data["totals"] == totals
    assert sum(data["money"].values()) == pytest.approx(0)


def test_every_example_is_documented() -> None:
    docs = EXAMPLES.parent / "docs" / "formats.md"
    text = docs.read_text(encoding="utf-8")
    for path in EXAMPLES.glob("*.json"):
        assert path.name in text
    assert doctest.testfile(str(docs), module_relative=False).failed == 0


def test_criss_cross_example(capsys: pytest.CaptureFixture[str]) -> None:
    data = score_json(capsys, str(EXAMPLES / "criss-cross.json"))
    assert data["money"] == {"Ann": 500.0, "Bob": -500.0}
    assert [p["name"] for p in data["players"]] == ["Ann/1", "Ann/2", "Bob/1", "Bob/2"]
    parallel = score_json(
        capsys, str(EXAMPLES / "criss-cross.json"), "--set", "criss_cross_pairing=parallel"
    )
    assert len(parallel["pairs"]) == 2


def test_stdin(capsys: pytest.CaptureFixture[str]) -> None:
    table = {
        "rules": "ofc",
        "players": [{"name": "A", "board": BOARD_A}, {"name": "B", "board": BOARD_B}],
    }
    code, out, _ = run_cli(capsys, "-", "--json", stdin=json.dumps(table))
    assert code == 0
    assert json.loads(out)["totals"] == {"A": 12, "B": -12}
    code, out, _ = run_cli(capsys, "--json", stdin=json.dumps(table))
    assert code == 0 and json.loads(out)["totals"]["B"] == -12


def _table(**changes: Any) -> str:
    table: dict[str, Any] = {
        "rules": "ofc",
        "players": [{"name": "A", "board": BOARD_A}, {"name": "B", "board": BOARD_B}],
    }
    table.update(changes)
    return json.dumps(table)


BAD_INPUT = [
    ("{", [], "not valid JSON"),
    ("", [], "empty"),
    ("[1, 2]", [], "must be a JSON object"),
    (_table(rules=None), [], 'no "rules"'),
    (json.dumps({"rules": "ofc"}), [], 'no "players"'),
    (_table(players=[]), [], "non-empty list"),
    (_table(rules="ofx"), [], "unknown preset 'ofx'"),
    (_table(), ["--rules", "pinapple"], "unknown preset 'pinapple'"),
    (_table(options={"finish_deuce": True}), [], "unknown option 'finish_deuce'"),
    (_table(), ["--set", "wheel_rank=sideways"], "invalid value 'sideways'"),
    (_table(), ["--set", "wheel_rank"], "expected option=value"),
    (_table(extra=1), [], "unknown key 'extra'"),
    (_table(players=[{"name": "A", "borad": BOARD_A}]), [], "unknown key 'borad'"),
    (_table(players=[{"board": BOARD_A}]), [], 'no "name"'),
    (_table(players=[{"name": "A"}, {"name": "B", "board": BOARD_B}]), [], 'no "board"'),
    (
        _table(
            players=[
                {"name": "A", "board": BOARD_A.replace("Kc", "Kx")},
                {"name": "B", "board": BOARD_B},
            ]
        ),
        [],
        "bad card 'Kx'",
    ),
    (
        _table(players=[{"name": "A", "board": BOARD_A[:-3]}, {"name": "B", "board": BOARD_B}]),
        [],
        "bottom line has 4 cards",
    ),
    (
        _table(
            players=[
                {"name": "A", "board": BOARD_A},
                {"name": "B", "board": BOARD_B.replace("Kd", "Kc")},
            ]
        ),
        [],
        "card Kc appears in both A and B",
    ),
    (_table(players=[{"name": "A", "board": BOARD_A}]), [], "ofc is for 2 to 4 players, got 1"),
    (_table(), ["--rules", "criss-cross"], 'Criss Cross players give "boards"'),
    (_table(units={"A-C": 2}), [], "units: 'A-C' must name two different players"),
    (_table(units={"A-B": "lots"}), [], "must be a number"),
    (
        _table(
            players=[
                {"name": "A", "board": BOARD_A, "surrender": True},
                {"name": "B", "board": BOARD_B},
            ]
        ),
        [],
        "only classic variants allow surrender",
    ),
    (
        _table(
            players=[
                {"name": "A", "board": BOARD_A, "fantasyland": "yes"},
                {"name": "B", "board": BOARD_B},
            ]
        ),
        [],
        '"fantasyland" must be true or false',
    ),
    (
        _table(players=[{"name": "A", "board": BOARD_A}, {"name": "A", "board": BOARD_B}]),
        [],
        "two players are called 'A'",
    ),
]


@pytest.mark.parametrize(("stdin", "args", "message"), BAD_INPUT)
def test_bad_input_is_one_line(
    capsys: pytest.CaptureFixture[str], stdin: str, args: list[str], message: str
) -> None:
    code, out, err = run_cli(capsys, "-", *args, stdin=stdin)
    assert code != 0
    assert out == ""
    assert err.count("\n") == 1, err
    assert err.startswith("chinese-poker score: error: ")
    assert message in err
    assert "Traceback" not in err


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli(capsys, str(tmp_path / "nope.json"))
    assert code != 0 and err.count("\n") == 1 and "cannot read" in err


def test_subprocess_w8_and_bad_input(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "chinese_poker.cli", "score", str(W8), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["totals"] == {"P1": 28, "P2": 5, "P3": -33}
    assert data["money"] == {"P1": 1000.0, "P2": -670.0, "P3": -330.0}
    bad = subprocess.run(
        [sys.executable, "-m", "chinese_poker.cli", "score", "-"],
        input='{"rules": "ofc", "players": [{"name": "A", "board": "Ah Ah"}]}',
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode != 0
    assert bad.stdout == ""
    assert "Traceback" not in bad.stderr and bad.stderr.count("\n") == 1


def test_a_session_is_a_list_of_tables(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The scorekeeper's export: each hand settles as on its own, the session sums them."""
    w8 = json.loads(W8.read_text(encoding="utf-8"))
    finnish = json.loads((EXAMPLES / "ofc-finnish.json").read_text(encoding="utf-8"))
    alone = score_json(capsys, str(W8))
    session = tmp_path / "session.json"
    session.write_text(json.dumps([w8, w8]), encoding="utf-8")
    data = score_json(capsys, str(session))
    assert [hand["totals"] for hand in data["hands"]] == [alone["totals"]] * 2
    assert data["totals"] == {name: 2 * value for name, value in alone["totals"].items()}
    assert data["money"] == {name: 2 * value for name, value in alone["money"].items()}
    code, out, _ = run_cli(capsys, str(session))
    assert code == 0 and "== Hand 2" in out and "== Session: 2 hands" in out
    # Another table's players in hand 2: refused, naming the hand; nothing printed.
    session.write_text(json.dumps([w8, finnish]), encoding="utf-8")
    code, out, err = run_cli(capsys, str(session))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "hand 2: players" in err and "session.json" in err
    session.write_text(json.dumps([w8, {"rules": "ofc"}]), encoding="utf-8")
    code, out, err = run_cli(capsys, str(session))
    assert code == 2 and "hand 2:" in err and '"players"' in err
    session.write_text("[]", encoding="utf-8")
    assert run_cli(capsys, str(session))[0] == 2
