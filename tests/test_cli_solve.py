"""``chinese-poker solve``: the solvers from the command line."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from chinese_poker.cli import main

DEAL = "As Ah Ad Kc Kd Qh Qs Js Ts 9s 8s 7s 2d 3c"


def test_fantasyland_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "fantasyland", "--rules", "pineapple", *DEAL.split()]) == 0
    out = capsys.readouterr().out
    assert "Bottom  Js Ts 9s 8s 7s" in out
    assert "Discards: 2d" in out and "Stays: yes" in out


def test_fantasyland_json_and_stay_value(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "fantasyland", "--json", "--stay-value", "0", DEAL]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["royalties"]["total"] == 35 and d["score"] == 35.0 and d["stays"] is True
    assert d["board"] == "Kd Kc 3c | As Ah Ad Qs Qh | Js Ts 9s 8s 7s"


def test_fantasyland_batch(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = f"{DEAL}\n\nAs Ah Zz\n2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
    code = main(["solve", "fantasyland", "--rules", "ofc", "--batch"])
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert code == 1  # one bad line
    assert len(rows) == 3
    assert rows[0]["royalties"]["total"] > 0
    assert "line 3" in rows[1]["error"] and "Zz" in rows[1]["error"]
    assert rows[2]["royalties"]["bottom"] == 25  # a royal flush in clubs, OFC american


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["solve", "fantasyland", "As", "Ah"], "13 to 17"),
        (["solve", "fantasyland", "--rules", "nope", DEAL], "nope"),
        (["solve", "fantasyland", "--rules", "classic", DEAL], "open-face"),
        (["solve", "fantasyland", "--set", "bogus=1", DEAL], "bogus"),
        (["solve", "fantasyland"], "give the cards"),
        (["solve", "fantasyland", "As Ah Ad Kc Kd Qh Qs Js Ts 9s 8s 7s As"], "duplicate"),
    ],
)
def test_bad_input_is_one_line(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_subprocess_error_has_no_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "chinese_poker.cli", "solve", "fantasyland", "Xx"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "Xx" in proc.stderr


def test_setting_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    dragon_free = "2c 3d 4h 5s 7c 8d 9h Ts Jc Qd Kh As Ac"
    assert main(["solve", "setting", "--rules", "classic", "--json", dragon_free]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["natural"] == "three_straights" and len(d["board"].split()) == 15
    assert (
        main(
            [
                "solve",
                "setting",
                "--rules",
                "classic-1-6",
                "--opponents",
                "1",
                "As Ah Kd Qc Jh 9s 8s 7d 6c 4h 4d 3s 2c",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "Surrender: yes" in out and "Alternatives:" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["solve", "setting", "--rules", "ofc", DEAL], "classic"),
        (["solve", "setting", "--opponents", "5", DEAL], "--opponents"),
        (["solve", "setting", DEAL], "13"),
    ],
)
def test_setting_bad_input(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1
