"""One way to choose the language, for every command that prints words for people
(issue 39: ``--lang`` was only on ``play`` and ``LANG`` was ignored elsewhere): its
``--lang`` (en, bg, hr, ru, lv), else ``LANGUAGE``/``LC_ALL``/``LC_MESSAGES``/``LANG``,
else English. Where a command has no translations of its own, the words it shares
with the terminal game (line and hand names, settlement notes) come out in the language;
JSON stays as it is (data for programs).

The expected words are read from the catalogues (static/i18n/*.json), not written here.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from chinese_poker.cli import SPEAKING, build_parser, main
from chinese_poker.language import evaluate_text, text_in
from chinese_poker.terminal import i18n
from chinese_poker.terminal.i18n import hand_name, use_language

ROOT = Path(__file__).resolve().parents[1]
TABLE = str(ROOT / "examples" / "pineapple-heads-up.json")
DEAL = "As Ah Ad Kc Kd Ks Qh Qd 2c 3c 4c 5c 7d".split()  # noqa: SIM905


@pytest.fixture(autouse=True)
def english_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    yield
    use_language("en")


def _in(lang: str, key: str) -> str:
    return text_in(lang, key)


def _leaves(
    parser: argparse.ArgumentParser, name: str = ""
) -> list[tuple[str, argparse.ArgumentParser]]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        return [(name, parser)]
    return [
        leaf
        for child_name, child in subs[0].choices.items()
        for leaf in _leaves(child, f"{name} {child_name}".strip())
    ]


def test_every_speaking_command_takes_lang() -> None:
    leaves = dict(_leaves(build_parser()))
    speaking = [n for n in leaves if n.split()[0] in SPEAKING]
    assert len(speaking) == 10  # solve has two kinds
    options = {n: [o for a in leaves[n]._actions for o in a.option_strings] for n in speaking}
    assert [n for n in speaking if "--lang" not in options[n]] == []
    assert set(SPEAKING) >= {"score", "review", "hint", "solve", "eval", "replay", "verify",
                             "simulate", "play"}  # fmt: skip


def test_eval_names_the_hand_in_the_language(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--lang", "ru", "Kh", "Kd", "Ks", "Kc", "2h"]) == 0
    use_language("ru")
    four_kings = hand_name(evaluate_text("Kh Kd Ks Kc 2h"))
    use_language("en")
    assert four_kings in capsys.readouterr().out
    assert main(["eval", "--json", "--lang", "ru", "Kh", "Kd", "Ks", "Kc", "2h"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "Four kings"


def test_the_environment_chooses_when_lang_is_not_given(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LANG", "ru_RU.UTF-8")
    assert main(["score", TABLE]) == 0
    out = capsys.readouterr().out
    assert _in("ru", "term.hand_totals_label") in out and "Totals" not in out
    monkeypatch.setenv("LC_ALL", "C.UTF-8")  # the first locale variable set decides
    assert main(["score", TABLE]) == 0
    assert "Totals" in capsys.readouterr().out
    assert main(["score", "--lang", "lv", TABLE]) == 0  # --lang over the environment
    assert _in("lv", "term.hand_totals_label") in capsys.readouterr().out


@pytest.mark.parametrize("lang", ["bg", "hr", "ru", "lv"])
def test_score_speaks_the_settlement_notes(lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "--lang", lang, TABLE]) == 0
    out = capsys.readouterr().out
    use_language(lang)
    expected = [hand_name(evaluate_text("As Ah Ad")), _in(lang, "term.hand_totals_label")]
    use_language("en")
    for words in expected:
        assert words in out
    assert "Three aces" not in out


def test_solve_speaks_the_line_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "setting", "--lang", "bg", *DEAL]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[:3]] == [
        _in("bg", key) for key in ("term.top", "term.middle", "term.bottom")
    ]


@pytest.mark.parametrize(
    "argv",
    [["score", TABLE], ["eval", "Ah", "Ad", "Kc"], ["solve", "setting", *DEAL], ["replay", "-"]],
)
def test_an_unknown_language_is_one_line(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "--lang", "de"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "unknown language 'de' for --lang; use one of en, bg, hr, ru, lv" in err


def test_a_run_leaves_the_language_of_the_process(capsys: pytest.CaptureFixture[str]) -> None:
    use_language("hr")
    assert main(["eval", "--lang", "ru", "Ah", "Ad", "Kc"]) == 0
    assert i18n.current_language() == "hr"
    assert main(["eval", "Ah", "Ad", "Kc"]) == 0  # no --lang, no LANG: English
    assert "Pair of aces" in capsys.readouterr().out.splitlines()[-1]
    assert i18n.current_language() == "hr"
