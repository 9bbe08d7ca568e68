"""The command line as a newcomer meets it (issue 15): the same ``--rules``/``--set`` in
every command, each command's own usage on a malformed command line, numbers checked
for NaN/inf/range, file arguments that accept ``-`` and name the file in every error,
quiet broken pipes, ``python -m chinese_poker``, and the small things (plurals, yes/no,
help texts, the Ray install hint).

Most calls run :func:`chinese_poker.cli.main` in this process; the ones about pipes,
``-m`` and standard input run the real command in a subprocess.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from chinese_poker.cli import build_parser, main
from chinese_poker.engine import Table
from chinese_poker.rules import rules_for

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
TABLE = EXAMPLES / "classic-four-players.json"
DEAL = "As Ah Ad Kc Kd Qh Qs Js Ts 9s 8s 7s 2d 3c"  # a 14-card Fantasyland deal
SET = "As Ah Ad Kc Kd Qh Qs Js Ts 9s 8s 7s 2d"  # 13 classic cards


def _env() -> dict[str, str]:
    """This checkout's code in a subprocess, whatever is installed."""
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "100"}


def run_command(*args: str, stdin: str | bytes | None = None) -> subprocess.CompletedProcess[str]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [sys.executable, "-m", "chinese_poker", *args],
        input=data,
        capture_output=True,
        env=_env(),
        timeout=120,
        check=False,
    )
    return subprocess.CompletedProcess(
        proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode()
    )


def _errors(err: str) -> list[str]:
    return [line for line in err.splitlines() if ": error: " in line]


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small hand-history file, written by the simulate command."""
    path = tmp_path_factory.mktemp("history") / "h.jsonl"
    argv = ["simulate", "--bots", "random", "--hands", "3", "--seed", "2", "--quiet"]
    assert main([*argv, "--history", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def view_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A seat's view that is to act on the first Pineapple street."""
    table = Table(rules_for("pineapple"), 2, seed=4)
    path = tmp_path_factory.mktemp("view") / "view.json"
    path.write_text(json.dumps(table.view(table.to_act[0]).to_dict()), encoding="utf-8")
    return path


# --------------------------------------------------------------- --rules and --set


def _leaf_parsers() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every (sub)command's parser, by its name (``solve fantasyland``)."""

    def walk(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            yield parser.prog.removeprefix("chinese-poker "), parser
        for action in subs:
            for child in action.choices.values():
                yield from walk(child)

    yield from walk(build_parser())


RULES_COMMANDS = ["play", "eval", "solve fantasyland", "solve setting", "score", "simulate",
                  "bot", "hint"]  # fmt: skip


def test_every_command_with_rules_has_the_same_rules_arguments() -> None:
    leaves = dict(_leaf_parsers())
    assert set(RULES_COMMANDS) <= set(leaves)
    shapes = set()
    for name in RULES_COMMANDS:
        options = {opt: a for a in leaves[name]._actions for opt in a.option_strings}
        assert "--rules" in options and "--set" in options, name
        sets = options["--set"]
        assert isinstance(sets, argparse._AppendAction) and sets.dest == "sets", name
        shapes.add((sets.metavar, sets.help, options["--rules"].metavar))
    assert len(shapes) == 1, "one helper gives every command the same arguments"
    # The commands without rules do not pretend to take them.
    for name in ("replay", "verify", "serve"):
        assert "--rules" not in {o for a in leaves[name]._actions for o in a.option_strings}


def test_every_option_has_help_text() -> None:
    for name, parser in _leaf_parsers():
        for action in parser._actions:
            if action.option_strings and action.help != argparse.SUPPRESS:
                assert action.help, f"{name} {action.option_strings[0]} has no help text"


def _eval_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["eval", "--json", *args]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def test_eval_takes_the_wheel_from_the_rules(capsys: pytest.CaptureFixture[str]) -> None:
    wheel, king_high = "Ah 2d 3c 4s 5h", "9c Td Jh Qs Kd"
    low = _eval_json(capsys, wheel)["value"]
    king = _eval_json(capsys, king_high)["value"]
    assert isinstance(low, int) and isinstance(king, int) and low < king
    # RULES §8.2: with wheel_rank second_highest the wheel beats K-high, as in the preset.
    for args in (["--rules", "classic-wheel"], ["--set", "wheel_rank=second_highest"],
                 ["--wheel", "second_highest"]):  # fmt: skip
        high = _eval_json(capsys, *args, wheel)["value"]
        assert isinstance(high, int) and high > king, args
    # An explicit --wheel wins over the preset.
    explicit = _eval_json(capsys, "--rules", "classic-wheel", "--wheel", "lowest", wheel)
    assert explicit["value"] == low


def test_simulate_takes_set(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--bots", "random", "--hands", "4", "--seed", "3", "--quiet", "--json"]
    assert main([*argv, "--set", "unit_value=10", "--set", "fantasyland_enabled=no"]) == 0
    rules = json.loads(capsys.readouterr().out)["rules"]
    assert rules["unit_value"] == 10 and rules["fantasyland_enabled"] is False
    assert rules == rules_for("pineapple", unit_value=10, fantasyland_enabled=False).to_dict()


def test_hint_takes_rules_and_set(view_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["hint", str(view_file), "--level", "1", "--json", "--top", "1"]
    assert main([*base, "--set", "royalty_table=western"]) == 0
    assert json.loads(capsys.readouterr().out)["variant"] == "pineapple"
    # Another variant cannot be forced onto a Pineapple view.
    assert main([*base, "--rules", "ofc"]) == 2
    err = capsys.readouterr().err
    assert _errors(err) == [err.strip()] and "pineapple" in err and "ofc" in err


def test_bot_takes_rules_and_set(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hello = json.dumps({"type": "hello", "protocol": 1}) + "\n" + '{"type": "quit"}\n'
    monkeypatch.setattr("sys.stdin", io.StringIO(hello))
    assert main(["bot", "--rules", "ofc", "--set", "unit_value=2"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0])["type"] == "ready"
    assert main(["bot", "--set", "unit_value=2"]) == 2
    assert "--rules" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["eval Ah Kh Qh", "simulate --hands 1 --quiet",
                                     f"solve setting {SET}", f"score {TABLE}"])  # fmt: skip
def test_a_bad_set_is_one_line(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    name = command.split()[0]
    assert main([*command.split(), "--set", "nonsense=1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"chinese-poker {name}: error: ") and "nonsense" in err
    assert len(err.strip().splitlines()) == 1


# ------------------------------------------------------------- usage on bad command lines


@pytest.mark.parametrize(
    ("prog", "argv"),
    [
        ("play", ["play", "--bogus"]),
        ("eval", ["eval", "Ah", "Kh", "Qh", "--bogus"]),
        ("solve fantasyland", ["solve", "fantasyland", DEAL, "--bogus"]),
        ("solve setting", ["solve", "setting", "--opponents"]),
        ("score", ["score", str(TABLE), "--bogus"]),
        ("replay", ["replay", "a", "b"]),
        ("verify", ["verify"]),
        ("simulate", ["simulate", "--bogus"]),
        ("bot", ["bot", "--level"]),
        ("hint", ["hint", "--bogus"]),
        ("serve", ["serve", "--log-level", "loud"]),
    ],
)
def test_a_malformed_command_line_shows_that_commands_usage(
    prog: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: chinese-poker {prog} ")
    errors = _errors(err)
    assert len(errors) == 1 and errors[0].startswith(f"chinese-poker {prog}: error: ")
    assert "Traceback" not in err


def test_help_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--help"]) == 0
    out = capsys.readouterr().out
    assert "95% intervals" in out and "%%" not in out
    assert 'pip install ".[ray]"' in " ".join(out.split())


# ----------------------------------------------------------------- numbers


NUMBER_CASES = [
    (["solve", "fantasyland", DEAL, "--stay-value"], "--stay-value", ["nan", "inf", "-1", "x"]),
    (["solve", "setting", SET, "--opponents"], "--opponents", ["0", "4", "nan", "1.5"]),
    (["simulate", "--quiet", "--hands"], "--hands", ["0", "nan", "1e3"]),
    (["simulate", "--quiet", "--players"], "--players", ["0", "-2"]),
    (["simulate", "--quiet", "--seed"], "--seed", ["-1", "inf"]),
    (["simulate", "--quiet", "--workers"], "--workers", ["0", "two"]),
    (["simulate", "--quiet", "--deadline"], "--deadline", ["nan", "inf", "-inf", "0", "-3"]),
    (["hint", "-", "--level"], "--level", ["0", "nan"]),
    (["hint", "-", "--time-budget"], "--time-budget", ["nan", "inf", "0"]),
    (["hint", "-", "--seed"], "--seed", ["-1"]),
    (["hint", "-", "--top"], "--top", ["-1", "inf"]),
    (["play", "--players"], "--players", ["1", "two"]),
    (["play", "--seed"], "--seed", ["-1", "nan"]),
    (["play", "--hands"], "--hands", ["0"]),
    (["play", "--delay"], "--delay", ["nan", "inf", "-1", "11", "soon"]),
    (["bot", "--level"], "--level", ["0", "nan"]),
    (["bot", "--seed"], "--seed", ["-5"]),
    (["bot", "--tables"], "--tables", ["0", "nan"]),
    (["serve", "--port"], "--port", ["-1", "65536", "nan"]),
    (["serve", "--sockets-per-address"], "--sockets-per-address", ["0", "-3", "nan", "many"]),
    (["serve", "--lease-seconds"], "--lease-seconds", ["0", "0.4", "3601", "nan", "inf", "soon"]),
]


@pytest.mark.parametrize(
    ("argv", "option", "value"),
    [(argv, option, value) for argv, option, values in NUMBER_CASES for value in values],
)
def test_a_bad_number_is_one_line_naming_the_option(
    argv: list[str], option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # OPTION=VALUE, so that argparse does not take a value such as -inf for an option.
    assert main([*argv[:-1], f"{argv[-1]}={value}"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert f": error: argument {option}: " in err and value in err


def test_every_number_option_is_checked() -> None:
    """No option reads a bare int or float (which would take nan, inf or -1)."""
    covered = {(" ".join(argv[:2]) if argv[0] == "solve" else argv[0], option)
               for argv, option, _ in NUMBER_CASES}  # fmt: skip
    for name, parser in _leaf_parsers():
        for action in parser._actions:
            assert action.type not in (int, float), f"{name} {action.option_strings}"
            if getattr(action.type, "__name__", "") in ("whole number", "number"):
                assert (name, action.option_strings[0]) in covered, (name, action.option_strings)


def test_the_issues_stay_value_nan(capsys: pytest.CaptureFixture[str]) -> None:
    deal = "Ah Ad Ac Kh Kd Qh Qd Qc Js Jd 9s 9d 2c 3c"
    assert main(["solve", "fantasyland", "--stay-value", "nan", deal]) == 2
    assert capsys.readouterr().out == ""
    assert main(["solve", "fantasyland", "--stay-value", "0", "--json", deal]) == 0
    assert json.loads(capsys.readouterr().out)["score"] >= 0


# ----------------------------------------------------------------- files


@pytest.mark.parametrize("command", ["replay", "verify", "score", "hint"])
def test_file_errors_name_the_file(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.json"
    binary = tmp_path / "binary.dat"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00\x01")
    nul = tmp_path / "nul.txt"
    nul.write_bytes(b"{}\x00\n")
    cases = [
        (missing, "No such file"),
        (tmp_path, "directory"),
        (binary, "not UTF-8"),
        (nul, "binary"),
    ]
    for path, why in cases:
        assert main([command, str(path)]) == 2, path
        err = capsys.readouterr().err
        assert err.startswith(f"chinese-poker {command}: error: cannot read {path}: "), err
        assert why in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("command", ["replay", "verify", "score", "hint"])
def test_bad_json_gives_the_file_and_line(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.json"
    path.write_text("\n\n{oops\n", encoding="utf-8")
    assert main([command, str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "not valid JSON" in err
    assert "line 3" in err or f"{path}:3" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_dash_reads_standard_input(history: Path, view_file: Path) -> None:
    for command in ("replay", "verify"):
        from_file = run_command(command, str(history))
        piped = run_command(command, "-", stdin=history.read_text(encoding="utf-8"))
        assert piped.returncode == from_file.returncode, piped.stderr
        assert piped.stdout == from_file.stdout
    assert "3 hands replayed" in run_command("replay", "-", stdin=history.read_bytes()).stdout
    score = run_command("score", "-", "--json", stdin=TABLE.read_text(encoding="utf-8"))
    assert score.returncode == 0 and json.loads(score.stdout)["totals"]
    hint = run_command("hint", "-", "--level", "1", "--top", "1", stdin=view_file.read_bytes())
    assert hint.returncode == 0 and "option" in hint.stdout
    # Errors about standard input say so, with the line.
    bad = run_command("replay", "-", stdin='\n{"format": "chinese-poker-hand"\n')
    assert bad.returncode == 2
    assert bad.stderr.strip().startswith("chinese-poker replay: error: standard input:2: ")
    binary = run_command("verify", "-", stdin=b"\xff\xfe\x00")
    assert binary.returncode == 2 and "standard input" in binary.stderr
    assert "not UTF-8" in binary.stderr and "Traceback" not in binary.stderr


# ----------------------------------------------------------------- pipes and -m


def _into_a_closed_pipe(*args: str, stdin: bytes | None = None) -> tuple[int, str]:
    """Run the command with its standard output already closed by the reader."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "chinese_poker", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    assert proc.stdout is not None and proc.stdin is not None and proc.stderr is not None
    proc.stdout.close()  # like `| head -0`: whatever the command writes hits EPIPE
    proc.stdin.write(stdin or b"")
    proc.stdin.close()
    err = proc.stderr.read().decode()
    return proc.wait(timeout=120), err


@pytest.mark.parametrize(
    "args",
    [
        ["score", str(TABLE)],
        ["solve", "setting", SET],
        ["eval", "Ah", "Kh", "Qh"],
        ["simulate", "--bots", "random", "--hands", "2", "--seed", "1"],
        ["replay", "HISTORY"],
        ["hint", "VIEW", "--level", "1"],
    ],
)
def test_a_broken_pipe_ends_quietly(args: list[str], history: Path, view_file: Path) -> None:
    args = [str(history) if a == "HISTORY" else str(view_file) if a == "VIEW" else a
            for a in args]  # fmt: skip
    code, err = _into_a_closed_pipe(*args)
    assert (code, err) == (0, "")


def test_solve_batch_into_a_closed_pipe() -> None:
    deals = (SET + "\n").encode() * 3
    code, err = _into_a_closed_pipe("solve", "setting", "--batch", stdin=deals)
    assert (code, err) == (0, "")


def test_python_dash_m_chinese_poker() -> None:
    proc = run_command("eval", "Ah", "Kh", "Qh")
    assert proc.returncode == 0 and proc.stdout.startswith("Ah Kh Qh: ")
    version = run_command("--version")
    assert version.returncode == 0 and version.stdout.startswith("chinese-poker ")
    usage = run_command("score", "--bogus")
    assert usage.returncode == 2 and usage.stderr.startswith("usage: chinese-poker score")


# ----------------------------------------------------------------- small things


def test_one_session_is_singular(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--bots", "random", "--hands", "2", "--seed", "1", "--quiet"]
    assert main(argv) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "2 players, 2 hands in 1 session," in first
    assert main([*argv[:-1], "--duplicate", "--quiet"]) == 0
    assert "in 1 duplicate group of 2 rotations (2 sessions)" in capsys.readouterr().out


def test_a_line_is_won_whatever_the_players_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "You wins" was the old wording: the verb does not agree with every name.
    table = {"rules": "ofc", "players": [
        {"name": "You", "board": "Kh Kd 4c | 9s 9h 9c 5d 2s | Ah Jh 8h 6h 3h"},
        {"name": "Ann", "board": "6c 6d Qs | Ts Th 8c 8d 4d | Kc Qc Jc 7c 5c"},
    ]}  # fmt: skip
    path = tmp_path / "table.json"
    path.write_text(json.dumps(table))
    assert main(["score", str(path)]) == 0
    out = capsys.readouterr().out
    assert "top: You won (" in out and " wins " not in out


def test_solve_says_yes_and_no(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "setting", SET]) == 0
    out = capsys.readouterr().out
    assert "Surrender: no" in out or "Surrender: yes" in out
    assert "True" not in out and "False" not in out


def test_ray_install_hint_names_the_checkout(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails
    assert main(["simulate", "--engine", "ray", "--hands", "2", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert 'pip install ".[ray]"' in err and len(err.strip().splitlines()) == 1
    for path in [*sorted((ROOT / "src").rglob("*.py")), ROOT / "docs" / "simulate.md"]:
        assert "chinese-poker[ray]" not in path.read_text(encoding="utf-8"), path


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("command", "what"), [("score", "table"), ("hint", "view"),
                                               ("replay", "hand history")])  # fmt: skip
def test_dash_on_a_terminal_says_what_to_give(
    command: str, what: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", _Terminal())
    assert main([command, "-"]) == 2
    err = capsys.readouterr().err
    assert err == (f"chinese-poker {command}: error: no {what} given: name a file, or pipe one"
                   " into standard input\n")  # fmt: skip
