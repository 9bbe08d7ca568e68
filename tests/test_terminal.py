"""The terminal game (``chinese-poker play``): the syntax, staging, warnings and whole games.

Games are driven through :class:`chinese_poker.terminal.game.Game` with scripted input
lines and a recording Rich console; stacked decks (the ``deck`` hook) make the person's
cards known where a test needs them.
"""

from __future__ import annotations

import io
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from rich.console import Console

from chinese_poker.ai import make_bot
from chinese_poker.cards import Board, Card, card_name, parse_board, parse_cards
from chinese_poker.cli import main
from chinese_poker.engine import Decision, Table
from chinese_poker.engine.actions import DecisionKind
from chinese_poker.rules import rules_for
from chinese_poker.terminal import render
from chinese_poker.terminal.commands import (
    DISCARD,
    CommandError,
    Simple,
    StageCommand,
    Staging,
    parse_command,
    parse_declaration,
)
from chinese_poker.terminal.game import Game, GameConfig, foul_warning, line_infos

ROOT = Path(__file__).resolve().parents[1]

Line = str | Callable[[], str]


class Script:
    """An input function: returns scripted lines, echoing them into the transcript.

    ``y/n`` questions are answered "n" (play) without using a scripted line when
    ``auto_no`` is set, because whether one is asked depends on the deal (naturals).
    When the lines run out it raises EOFError, which the game treats as quitting.
    """

    def __init__(self, lines: Sequence[Line], console: Console, *, auto_no: bool = True) -> None:
        self.lines = list(lines)
        self.console = console
        self.auto_no = auto_no
        self.prompts: list[str] = []
        self.versions: list[int] = []
        self.game: Game | None = None

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.game is not None and self.game.table is not None:
            self.versions.append(self.game.table.version)
        if self.auto_no and prompt.startswith("y/n"):
            line = "n"
        elif not self.lines:
            raise EOFError
        else:
            item = self.lines.pop(0)
            line = item() if callable(item) else item
        self.console.print(f"{prompt}{line}")
        return line


def play(
    preset: str, lines: Sequence[Line], *, auto_no: bool = True, **options: object
) -> tuple[Game, str, Script]:
    """Run a game to its end; returns the game, the transcript and the script."""
    # Wide enough that messages are not wrapped in the middle of what a test looks for.
    console = Console(file=io.StringIO(), record=True, width=160)
    script = Script(lines, console, auto_no=auto_no)
    config = GameConfig(rules_for(preset), title=preset, **options)  # type: ignore[arg-type]
    game = Game(config, console=console, input_fn=script)
    script.game = game
    assert game.run() == 0
    return game, console.export_text(), script


def stacked(human: Sequence[str], other: Sequence[int]) -> list[Card]:
    """A deck prefix giving the person (seat 0, on the button, acting second) the cards
    ``human[i]`` on street i, after ``other[i]`` cards for the bot."""
    mine = [c for part in human for c in parse_cards(part)]
    spare = [c for c in range(52) if c not in mine]
    out: list[Card] = []
    for cards, n in zip(human, other, strict=True):
        out += [spare.pop() for _ in range(n)]
        out += parse_cards(cards)
    return out


FL_STREETS = ["Qs Qh Ah Ad 2c", "5s 5h 7d", "5d 3c 8h", "9c 4d Td", "Jc 6h Kd"]
FL_DECK = stacked(FL_STREETS, [5, 3, 3, 3, 3])


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def _check_showdown(game: Game, text: str) -> None:
    """The breakdown and the running ledger show the hand's totals."""
    result = game.session.results[-1]
    assert "Hand totals:" in text
    for player, points in result.totals.items():
        assert f"{player} {_signed(points)}" in text
    assert "Final ledger" in text
    assert sum(result.totals.values()) == 0


# --------------------------------------------------------------------------- whole hands


@pytest.mark.parametrize(
    ("preset", "lines"),
    [
        # OFC: 5 cards, then 8 single cards; the last two streets have one place left.
        ("ofc", ["bbbmm", "", "t", "", "t", "", "t", "", "m", "", "m", "", "m", "", "", ""]),
        ("pineapple", ["bbbmm", "", "tmx", "", "tmx", "", "tbx", "", "mbx", ""]),
        ("turbo", ["bbbmm", "", "bbtt", "", "mmmt", ""]),
        ("classic", ["tttmmmmmbbbbb", ""]),
        ("criss-cross", ["tttmmmmmbbbbb", "", "tttmmmmmbbbbb", ""]),
    ],
)
def test_every_family_plays_a_hand(preset: str, lines: list[str]) -> None:
    game, text, script = play(preset, lines, seed=11, hands=1)
    assert game.session.hands_played == 1
    assert "Stopped after 1 hand as asked" in text
    assert not script.lines, "every scripted line was used"
    assert "✗" not in text, "no input was refused"
    _check_showdown(game, text)


def test_three_players_and_random_bots() -> None:
    lines = ["bbbmm", "", "tmx", "", "tmx", "", "tbx", "", "mbx", ""]
    game, text, _ = play("pineapple", lines, seed=4, hands=1, players=3, bots=["random", "rules"])
    assert set(game.session.players) == {"You", "random-1", "rules-2"}
    _check_showdown(game, text)


def test_whole_session_ends_by_itself() -> None:
    lines = ["tttmmmmmbbbbb", "", "", "tttmmmmmbbbbb", ""]
    game, text, _ = play("classic", lines, seed=2)
    assert game.session.over
    assert "The session is over." in text
    assert game.session.hands_played == 2


# --------------------------------------------------------------------------- bad input


def test_bad_inputs_give_messages_and_keep_the_staging() -> None:
    lines = [
        "t Qs",
        "hello",
        "t Zz",
        "t 7c",
        "t Qs",
        "t Qh Ah Ad",
        "x 2c",
        "",
        "tmbbxx",
        "m K",
        "m A",
        "Ah Ad",
        "u 0",
        "top",
        "Ah | Ad | 2c | Qh | 5s",
        "t Q",  # the only unstaged queen: Qh
        "u",
        "t Qh 2c, m Ah Ad",
        "",
        "q",
    ]
    game, text, script = play("pineapple", lines, seed=5, deck=FL_DECK)
    for message in [
        "unknown command 'hello'",
        "bad card 'Zz'",
        "7c is not in your hand",
        "Qs is already staged to the top",
        "the top line has room for 2 more cards, not 3",
        "nothing is discarded here",
        "Not finished: place 4 more cards",
        "'tmbbxx' has 6 letters but only 4 left",
        "you have no unplaced K",
        "which A? you have Ah Ad",
        "say where 'Ah' goes",
        "undo takes a number or 'all'",
        "'top' needs cards after it",
        "at most four parts",
        "Undone: Qh",
    ]:
        assert message in text, message
    assert "Traceback" not in text
    # Nothing reached the table before the confirmation: one version for every prompt of
    # the first street, and the staged Qs survived all the mistakes.
    first_street = script.versions[: len(lines) - 1]
    assert len(set(first_street)) == 1
    table = game.table
    assert table is not None
    assert sorted(table.board(0).top) == sorted(parse_cards("Qs Qh 2c"))
    assert sorted(table.board(0).middle) == sorted(parse_cards("Ah Ad"))


def test_undo() -> None:
    lines = ["t Qs Qh", "u", "u all", "u", "ttmmt", "u 2", "mt", ""]
    game, text, _ = play("pineapple", lines, seed=5, deck=FL_DECK)
    assert "Undone: Qh." in text
    assert "Undone: Qs." in text
    assert "Nothing is staged, so there is nothing to undo." in text
    assert "Undone: Ad 2c." in text
    assert game.table is not None
    assert sorted(game.table.board(0).top) == sorted(parse_cards("Qs Qh 2c"))
    assert sorted(game.table.board(0).middle) == sorted(parse_cards("Ah Ad"))


CLASSIC_HUMAN = parse_cards("Ah Ad Kc 2c 3d 4h 5s 7c 9h 9d 9s Jc Jd")  # no natural


def classic_deck(human: Sequence[Card] = CLASSIC_HUMAN) -> list[Card]:
    """Two-player classic: the cards alternate, the bot (left of the button) first."""
    spare = [c for c in range(52) if c not in human]
    return [c for pair in zip(spare, human, strict=False) for c in pair]


def test_between_hands_and_declarations_refuse_bad_answers() -> None:
    lines = ["tttmmmmmbbbbb", "", "maybe", "?", "n", "what", "l", "q"]
    _, text, _ = play("classic", lines, seed=3, auto_no=False, deck=classic_deck())
    assert "answer y (yes) or n (no)" in text
    assert "y   yes: surrender / declare the natural" in text
    assert "press Enter for the next hand or q to quit" in text
    assert "You quit after 1 finished hand" in text


# --------------------------------------------------------------------------- live feedback


def test_royalty_display_and_fantasyland_flow() -> None:
    lines = [
        "ttmmt", "",
        "bbx", "",
        "bmx", "",
        "bmx", "",
        "bmx", "",
        "",  # next hand: the person plays it in Fantasyland
        "s", "auto", "",
    ]  # fmt: skip
    game, text, script = play("pineapple", lines, seed=5, deck=FL_DECK, hands=2)
    assert "Pair of queens, deuce kicker +7" in text
    assert "This board earns Fantasyland (14 cards)." in text
    assert "Next hand in Fantasyland: You (14 cards)" in text
    second = game.session.results[1]
    assert second.fantasyland == {"You": 14}
    assert "Fantasyland › " in script.prompts
    assert "Your 14 cards: set 13, discard 1" in text
    assert "Suggestion (" in text
    assert "Staged the suggestion" in text
    _check_showdown(game, text)


@pytest.mark.parametrize(("advisor", "note"), [
    ("hints", "Suggestion (the hint engine's best, "),
    ("rules", "Suggestion (the rules bot's choice)"),
])  # fmt: skip
def test_s_asks_the_hint_engine_unless_a_bot_is_asked_for(advisor: str, note: str) -> None:
    deck = stacked(["Kh Td 8d 2c 3d", "Kd 5s Jc"], [5, 3])
    lines = ["s", "auto", "", "s", "auto", "", "q"]
    game, text, _ = play("pineapple", lines, seed=3, deck=deck, advisor=advisor)
    assert text.count(note) == 2, text
    assert "Staged the suggestion" in text
    assert game.hints is (advisor == "hints")


def test_the_first_s_waits_for_the_warm_up_before_its_time_budget_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An ``s`` typed while the hint engine's kernels still warm in the background says
    so and waits for them: the hint's time budget starts only when they are ready, so the
    first suggestion is not a guess made in what was left of it."""
    from chinese_poker.ai import hints, warm

    monkeypatch.setattr(warm, "_done", set())
    entered, go = threading.Event(), threading.Event()
    real = warm._WARMERS["open-face"]

    def slow_open_face() -> None:
        entered.set()
        assert go.wait(60)
        real()

    monkeypatch.setitem(warm._WARMERS, "open-face", slow_open_face)
    ready_at_hint: list[bool] = []
    real_hint = hints.hint

    def watched_hint(*args: object, **kwargs: object) -> object:
        ready_at_hint.append(warm.is_warm(("fantasyland", "open-face")))
        return real_hint(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(hints, "hint", watched_hint)
    waiting = "The hint engine is still getting ready"

    class Screen(io.StringIO):
        def write(self, text: str) -> int:
            if waiting in text:
                go.set()  # the person has been told: the warm-up may end now
            return super().write(text)

    def s_while_warming() -> str:
        assert entered.wait(60)
        return "s"

    console = Console(file=Screen(), record=True, width=160)
    script = Script([s_while_warming, "auto", "", "q"], console)
    config = GameConfig(rules_for("pineapple"), title="pineapple", seed=3)
    game = Game(config, console=console, input_fn=script)
    script.game = game
    assert game.run() == 0
    text = console.export_text()
    assert waiting in text
    assert ready_at_hint == [True]
    assert "Suggestion (the hint engine's best, " in text


def test_foul_warning_when_the_board_must_foul() -> None:
    deck = stacked(["Qs Qh Kd 2c 3d", "4h 7s 9c 9d"], [5, 4])
    lines = ["t Qs Qh Kd, m 2c 3d", "", "m 4h 7s", "q"]
    _, text, _ = play("turbo", lines, seed=7, deck=deck)
    assert "this will foul whatever comes: the top (pair of queens, king kicker)" in text


def test_foul_warning_for_a_complete_set_and_rank_shorthand() -> None:
    lines = ["t A A K, m 2 3 4 5 7", ""]
    game, text, _ = play("classic", lines, seed=7, deck=classic_deck(), hands=1)
    # A whole set is shown (and taken positionally) sorted by rank.
    assert "The rest can only go one way: Jd Jc 9s 9h 9d to the bottom" in text
    assert "this would foul: top A A K (one pair) beats middle 7 5 4 3 2 (high card)" in text
    assert game.session.results[0].settlement.fouled == ("You",)
    assert "FOULED" in text


def test_foul_warning_function() -> None:
    rules = rules_for("ofc")
    everything = set(range(52))
    fouled = parse_board("Qh Qd 7c | Qs Qc 6d 5h 4s | Ah Kh 9h 8h 2h")
    assert foul_warning(rules, fouled, everything) == (
        "this would foul: top Q Q 7 beats middle Q Q 6 5 4"
    )
    assert (
        foul_warning(rules, parse_board("Qh Qd 7c | Qs Qc 9d 8s 2s | Ah Kh 9h 8h 2h"), everything)
        is None
    )
    # The top already holds aces; the middle has room for one card and cannot pair up high.
    partial = Board(parse_cards("Ah Ad"), parse_cards("2c 3d 4h 7s"), ())
    assert foul_warning(rules, partial, everything) is not None
    # The same middle with two open slots can still make trips: no warning.
    open_board = Board(parse_cards("Ah Ad"), parse_cards("2c 3d 4h"), ())
    assert foul_warning(rules, open_board, everything) is None
    # Each pair of lines alone could be kept in order, but the middle needs a king to
    # beat the top and the bottom needs the other: the old pairwise check missed it, the
    # scorer's exact answer does not.
    squeezed = Board(parse_cards("Ah Kd Ac"), parse_cards("Qd Ad Qs Kh"), parse_cards("Jd As Tc"))
    coming = set(parse_cards("Th Ks Js 9c Kc"))
    warning = foul_warning(rules, squeezed, coming)
    assert warning is not None and warning.startswith("this would foul:"), warning
    assert foul_warning(rules, squeezed, coming | set(parse_cards("Qc"))) is None
    # Low middle: only bottom >= top counts.
    low = rules_for("classic-low-middle")
    assert (
        foul_warning(low, parse_board("Kh Kd 2c | 7c 5d 4h 3s 2d | Ah Qh 9h 8h 3c"), everything)
        is not None
    )


def test_line_infos() -> None:
    board = Board(parse_cards("Qh Qd 7c"), parse_cards("2c"), parse_cards("Ah Kh 9h 8h 2h"))
    assert line_infos(rules_for("ofc"), board) == [
        (0, "Pair of queens, seven kicker", 7),
        (2, "Flush, ace high", 4),
    ]


# --------------------------------------------------------------------------- display


def test_fantasyland_board_hidden_until_showdown() -> None:
    table = Table(rules_for("pineapple"), ["You", "rules-1"], seed=3, fantasyland={1: 14})
    table.apply(make_bot("rules", seed=1).act(table.view(1)))
    console = Console(file=io.StringIO(), record=True, width=110)
    console.print(render.board_table(table.view(0), render.Theme(), human=0))
    text = console.export_text()
    assert "▒▒" in text and "Fantasyland 14" in text
    placed = table.board(1).cards
    assert not any(card_name(c) in text for c in placed)


def test_ascii_theme_and_four_colours() -> None:
    theme = render.Theme(four_color=True, unicode=False)
    assert theme.suit_style(2) == "bold blue" and theme.suit_style(3) == "bold green"
    assert render.line_text(parse_cards("Ah"), 3, theme).plain == "Ah .. .."
    symbols = render.Theme(symbols=True)
    assert render.card_text(parse_cards("Td")[0], symbols).plain == "T♦"


def test_bot_failure_and_delay() -> None:
    class Broken:
        name = "broken"

        def act(self, view: object) -> object:
            raise RuntimeError("boom")

    console = Console(file=io.StringIO(), record=True, width=110)
    naps: list[float] = []
    script = Script(["bbbmm", "", "tmx", "", "tmx", "", "tbx", "", "mbx", ""], console)
    game = Game(
        GameConfig(rules_for("pineapple"), seed=1, hands=1, delay=0.25),
        console=console,
        input_fn=script,
        sleep=naps.append,
    )
    game.bots["rules-1"] = Broken()  # type: ignore[assignment]
    assert game.run() == 0
    text = console.export_text()
    assert "rules-1's bot failed (RuntimeError: boom)" in text
    assert naps and set(naps) == {0.25}
    assert game.session.hands_played == 1


def test_ctrl_c_quits_with_the_ledger() -> None:
    def interrupt(prompt: str) -> str:
        raise KeyboardInterrupt

    console = Console(file=io.StringIO(), record=True, width=110)
    game = Game(GameConfig(rules_for("ofc"), seed=1), console=console, input_fn=interrupt)
    assert game.run() == 130
    assert "Final ledger" in console.export_text()


# --------------------------------------------------------------------------- syntax


def _dec(
    cards: str,
    place: int,
    discard: int = 0,
    free: tuple[int, int, int] = (3, 5, 5),
    kind: DecisionKind = "street",
) -> Decision:
    return Decision(0, kind, cards=parse_cards(cards), place=place, discard=discard, free=free)


def test_parse_commands() -> None:
    assert parse_command("") == Simple("confirm")
    assert parse_command(" C ") == Simple("confirm")
    assert parse_command("u 3") == Simple("undo", 3)
    assert parse_command("clear") == Simple("undo", 0)
    assert parse_command("?") == Simple("help")
    assert parse_command("auto") == Simple("auto")
    cmd = parse_command("t Ah, m KdKc b 10s")
    assert isinstance(cmd, StageCommand)
    assert [(d, r.card) for d, r in cmd.groups] == [
        (0, parse_cards("Ah")[0]),
        (1, parse_cards("Kd")[0]),
        (1, parse_cards("Kc")[0]),
        (2, parse_cards("Ts")[0]),
    ]
    mixed = parse_command("t m Kd x")
    assert isinstance(mixed, StageCommand) and mixed.positional == "tx"
    # An upper-case T inside a group is a ten; heading a group, or lower-case, the top.
    tens = parse_command("m 3 T T, T Ah")
    assert isinstance(tens, StageCommand)
    assert [(d, r.rank) for d, r in tens.groups] == [(1, 1), (1, 8), (1, 8), (0, None)]
    with pytest.raises(CommandError, match="unknown command"):
        parse_command("dance")
    assert parse_declaration("Yes") is True and parse_declaration("p") is False
    with pytest.raises(CommandError):
        parse_declaration("perhaps")


def test_staging_rules() -> None:
    s = Staging(_dec("Ah Kd 2c", 2, 1, free=(1, 5, 5)))
    s.stage(s.resolve(parse_command("t Ah m Kd")))  # type: ignore[arg-type]
    assert s.auto_fill() == [(parse_cards("2c")[0], DISCARD)]
    assert s.complete
    place = s.to_place(version=4)
    assert place.discard == parse_cards("2c") and place.version == 4
    with pytest.raises(CommandError, match="top line is full"):
        t = Staging(_dec("Ah Kd 2c", 2, 1, free=(0, 5, 5)))
        t.resolve(parse_command("t Ah"))  # type: ignore[arg-type]
    with pytest.raises(CommandError, match="only 2 card"):
        t = Staging(_dec("Ah Kd 2c", 2, 1))
        t.resolve(parse_command("tmb"))  # type: ignore[arg-type]
    # A classic set: top and middle given, the rest goes to the bottom.
    cards = "Ah Ad Kc 2c 3d 4h 5s 7c 9h 9d 9s Jc Jd"
    c = Staging(_dec(cards, 13, kind="set"))
    c.stage(c.resolve(parse_command("Ah Ad Kc | 2c 3d 4h 5s 7c")))  # type: ignore[arg-type]
    assert len(c.auto_fill()) == 5 and c.complete
    assert c.lines().bottom == parse_cards("9h 9d 9s Jc Jd")
    assert c.undo(0) and not c.staged
    # Rank-only references: fine when every candidate goes to one line.
    r = Staging(_dec("Ts Th 3c 3h 2d", 5))
    r.stage(r.resolve(parse_command("m 3 3 T T")))  # type: ignore[arg-type]
    assert r.lines().middle == parse_cards("3c 3h Ts Th")
    with pytest.raises(CommandError, match="which 3"):
        r2 = Staging(_dec("Ts Th 3c 3h 2d", 5))
        r2.resolve(parse_command("t 3, m 3"))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- the command


@pytest.mark.parametrize(
    "argv",
    [
        ["--players", "9"],
        ["--players", "two"],
        ["--rules", "nope"],
        ["--bots", "genius"],
        ["--bots", "random,rules"],
        ["--seed", "-1"],
        ["--hands", "0"],
        ["--delay", "soon"],
        ["--name", "a/b"],
        ["--name", "rules-1"],
        ["--set", "nonsense=1"],
        ["--rules", "criss-cross", "--players", "3"],
        ["--deck", "Ah Ah"],
        ["--advisor", "oracle"],
    ],
)
def test_cli_rejects_bad_arguments(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", *argv, "--delay", "0"] if "--delay" not in argv else ["play", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("chinese-poker play: error: ")
    assert err.count("\n") == 1


def test_cli_malformed_command_line_shows_plays_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["play", "--players"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("usage: chinese-poker play ")
    errors = [line for line in lines if "error" in line]
    assert errors == ["chinese-poker play: error: argument --players: expected one argument"]


def test_cli_plays_from_standard_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("tttmmmmmbbbbb\n\nn\n"))
    code = main(
        [
            "play",
            "--rules",
            "classic",
            "--seed",
            "1",
            "--hands",
            "1",
            "--delay",
            "0",
            "--four-color",
            "--set",
            "unit_value=10",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "Hand totals:" in out and "Money" in out


def test_python_dash_m_runs_the_game() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "chinese_poker.cli",
            "play",
            "--rules",
            "pineapple",
            "--seed",
            "2",
            "--delay",
            "0",
        ],
        input="tmbbm\nq\n",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert "You quit after 0 finished hands" in proc.stdout
    assert "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- screen size


def _screens(preset: str, players: int, lines: Sequence[str], *, height: int, seed: int,
             hands: int) -> tuple[list[str], Game]:  # fmt: skip
    """Play on a console of 80 columns and ``height`` rows; the screens it drew."""
    buf = io.StringIO()
    console = Console(file=buf, width=80, height=height, force_terminal=True,
                      color_system=None, legacy_windows=False)  # fmt: skip
    script = Script(lines, console)
    config = GameConfig(rules_for(preset), title=preset, players=players, seed=seed,
                        hands=hands, delay=0)  # fmt: skip
    game = Game(config, console=console, input_fn=script)
    script.game = game
    assert game.run() == 0
    # Console.clear() writes "clear screen" and "cursor home": each screen starts there.
    screens = buf.getvalue().replace("\x1b[H", "").split("\x1b[2J")
    return [s.rstrip("\n") for s in screens if s.strip()], game


@pytest.mark.parametrize(
    ("preset", "players", "seed"), [("classic", 4, 1), ("ofc", 4, 5), ("turbo", 4, 2)]
)
def test_four_player_showdown_fits_80_by_24(preset: str, players: int, seed: int) -> None:
    moves = ["tttmmmmmbbbbb", ""] if preset == "classic" else ["s", "auto", ""] * 13
    # Two hands: the first showdown ends with the prompt, the last with the final ledger.
    lines = [*moves, "", *moves]
    screens, game = _screens(preset, players, lines, height=24, seed=seed, hands=2)
    showdowns = [s for s in screens if "Hand totals:" in s]
    assert len(showdowns) == 2 and game.session.hands_played == 2
    for screen in showdowns:
        rows = screen.split("\n")
        assert len(rows) <= 24, screen
        assert max(len(row) for row in rows) <= 80, screen
        for player, points in game.session.results[showdowns.index(screen)].totals.items():
            assert f"{player} {_signed(points)}" in screen
    assert "Enter: next hand" in showdowns[0] and "Final ledger" in showdowns[1]


def test_details_show_the_whole_breakdown_and_a_tall_screen_shows_it_at_once() -> None:
    lines = ["tttmmmmmbbbbb", "", "d", "", "tttmmmmmbbbbb", ""]
    screens, _ = _screens("classic", 4, lines, height=24, seed=1, hands=2)
    first = next(s for s in screens if "Hand totals:" in s)
    shown, after = first.split("d: details", 1)  # the screen, then what d printed
    assert "Pair by pair" not in shown
    assert "Pair by pair" in after and "fouled: pays the scoop value" in after
    tall, _ = _screens("classic", 4, lines[:2], height=80, seed=1, hands=1)
    assert "Pair by pair" in next(s for s in tall if "Hand totals:" in s)
