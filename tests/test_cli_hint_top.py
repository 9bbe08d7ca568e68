"""``chinese-poker hint`` shows the best 10 options by default, with a line saying how
many more there are and how to see them (issue 39: a Pineapple street printed all 232).

The hint engine is replaced by one that values every legal action of the view (in the
order the engine lists them, values falling): what is tested is what the command shows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chinese_poker.ai import hints
from chinese_poker.cli import main
from chinese_poker.engine.actions import iter_placements
from chinese_poker.engine.views import View

VIEW = Path(__file__).resolve().parents[1] / "examples" / "pineapple-view.json"


@pytest.fixture(autouse=True)
def every_option(monkeypatch: pytest.MonkeyPatch) -> None:
    def ranked(view: View, **_: Any) -> list[hints.HintEntry]:
        decision = view.decisions[0]
        actions = list(iter_placements(decision, view.version))
        return [
            hints.HintEntry(action, 5.0 - i / 100, 0.25, f"option {i + 1}")
            for i, action in enumerate(actions)
        ]

    monkeypatch.setattr(hints, "hint", ranked)


def _rows(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.split()[:1] and line.split()[0].isdigit()]


def test_the_best_ten_and_how_many_more(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hint", str(VIEW)]) == 0
    out = capsys.readouterr().out
    assert "[232 options, level 3]" in out
    assert [row.split()[0] for row in _rows(out)] == [str(n) for n in range(1, 11)]
    assert out.rstrip().endswith("... 222 more options: --top 0 or --all shows every one")


@pytest.mark.parametrize("flags", [["--all"], ["--top", "0"]])
def test_all_options(flags: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hint", str(VIEW), *flags]) == 0
    out = capsys.readouterr().out
    assert len(_rows(out)) == 232 and "more option" not in out


def test_top_n_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hint", str(VIEW), "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert len(_rows(out)) == 3 and "... 229 more options" in out
    assert main(["hint", str(VIEW), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["hints"]) == 232
    assert main(["hint", str(VIEW), "--json", "--top", "4"]) == 0
    assert len(json.loads(capsys.readouterr().out)["hints"]) == 4


def test_help_says_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hint", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "show the best N options (default 10; with --json: all); 0 shows all" in text
    assert "--all show every option" in text
