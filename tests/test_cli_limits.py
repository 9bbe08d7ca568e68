"""Every input file has a size limit, checked before anything is parsed (issue 39: a
50 MB input was read and parsed whole before it was refused): one line on standard
error naming the file and the limit, exit status 2. Histories may be large (1 GiB),
tables, sessions, views and positions much less (16 MiB)."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from chinese_poker import cli
from chinese_poker.cli import main

ROOT = Path(__file__).resolve().parents[1]
HISTORY = ROOT / "examples" / "histories" / "pineapple-session.jsonl"
TABLE = ROOT / "examples" / "pineapple-heads-up.json"


@pytest.fixture(autouse=True)
def nothing_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A refused input never reaches a parser."""

    def parsed(*_: object, **__: object) -> None:
        raise AssertionError("the input was parsed")

    monkeypatch.setattr("chinese_poker.cli.score.read_table", parsed)
    monkeypatch.setattr("chinese_poker.cli.score.read_session", parsed)
    monkeypatch.setattr("chinese_poker.cli.hint.parse_view", parsed)
    monkeypatch.setattr("chinese_poker.engine.history.parse_history", parsed)


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err
    return err.strip()


@pytest.mark.parametrize(("command", "what"), [("score", "table"), ("hint", "view")])
def test_a_file_over_16_mib_is_refused_unread(
    command: str, what: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as handle:  # sparse: 16 MiB and one byte, nothing written
        handle.truncate(16 * 1024 * 1024 + 1)
    assert main([command, str(big)]) == 2
    assert _one_line(capsys) == (
        f"chinese-poker {command}: error: cannot read {big}: it is larger than 16 MiB,"
        f" the limit for a {what}"
    )


def test_standard_input_over_the_limit_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "MAX_INPUT", 1000, raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO(TABLE.read_text(encoding="utf-8") * 20))
    assert main(["score", "-"]) == 2
    assert _one_line(capsys).endswith(
        "cannot read standard input: it is larger than 1000 bytes, the limit for a table"
    )


@pytest.mark.parametrize("command", ["replay", "verify", "review"])
def test_a_history_over_its_limit_is_refused_unread(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The real limit is 1 GiB; a small one stands in for it with a real history file.
    monkeypatch.setattr(cli, "MAX_HISTORY", 4096, raising=False)
    path = tmp_path / "session.jsonl"
    shutil.copy(HISTORY, path)
    assert path.stat().st_size > 4096
    assert main([command, str(path)]) == 2
    assert _one_line(capsys) == (
        f"chinese-poker {command}: error: cannot read {path}: it is larger than 4 KiB,"
        " the limit for a hand history"
    )


def test_the_limits() -> None:
    assert (cli.MAX_INPUT, cli.MAX_HISTORY) == (16 << 20, 1 << 30)
    assert cli.size_text(cli.MAX_INPUT) == "16 MiB"


def test_a_batch_line_too_long_is_skipped(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A long line is one error of the batch, and the deals after it are solved.
    deal = "As Ah Ad Kc Kd Qh Qs Js Ts 9s 8s 7s 2c"
    monkeypatch.setattr("sys.stdin", io.StringIO("Ah " * 5000 + "\n" + deal + "\n"))
    assert main(["solve", "setting", "--batch"]) == 1
    first, second = capsys.readouterr().out.splitlines()
    assert json.loads(first) == {"error": "line 1: a deal has at most 4096 characters; skipped"}
    assert json.loads(second)["board"]
