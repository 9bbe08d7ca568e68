"""``chinese-poker play``: play any variant in the terminal against the built-in bots.

The game itself lives in :mod:`chinese_poker.terminal`; this module only reads the
arguments, checks them (every mistake is one line and exit status 2) and connects the
game to the keyboard and the screen.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any, NoReturn

from chinese_poker.rules import parse_assignment, resolve_preset, rules_for


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "play",
        help="play in the terminal against bots",
        description="Play Chinese poker in the terminal against built-in bots. Type ? in "
        "the game for the placement syntax (e.g. 't Ah, m Kd Kc, b 5s' or 'tmbbx').",
    )
    # Numbers are read as text and checked in run(), so that a bad value is reported as
    # one line like every other user error instead of argparse's usage block.
    p.add_argument(
        "--rules",
        default="pineapple",
        metavar="PRESET",
        help="rules preset, e.g. ofc, pineapple, turbo, classic, criss-cross (default pineapple)",
    )
    p.add_argument(
        "--players", default="2", metavar="N", help="players at the table, you included (default 2)"
    )
    p.add_argument(
        "--bots",
        default="rules",
        metavar="NAMES",
        help="bot of each opponent, comma-separated, or one for all "
        "(default rules; e.g. random, rules)",
    )
    p.add_argument("--name", default="You", help="your name at the table (default You)")
    p.add_argument("--seed", default=None, metavar="S", help="seed of the session's deals")
    p.add_argument(
        "--hands",
        default=None,
        metavar="K",
        help="stop after K hands (default: the whole session, RULES §10)",
    )
    p.add_argument(
        "--delay",
        default="0.3",
        metavar="SEC",
        help="pause after each bot action, in seconds (default 0.3)",
    )
    p.add_argument("--four-color", action="store_true", help="four-colour suits")
    p.add_argument("--symbols", action="store_true", help="show suits as ♠ ♥ ♦ ♣")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="override one rules option, e.g. unit_value=10 (repeatable)",
    )
    # Testing hook: stack the first cards of the first hand (in the engine's dealing order).
    p.add_argument("--deck", default=None, help=argparse.SUPPRESS)
    p.set_defaults(run=run)
    _one_line_errors(p)


def _one_line_errors(parser: argparse.ArgumentParser) -> None:
    """Make argparse's own complaints (a missing value, ...) one line, exit status 2."""

    def error(message: str) -> NoReturn:
        print(f"chinese-poker play: error: {message}", file=sys.stderr)
        sys.exit(2)

    setattr(parser, "error", error)  # noqa: B010 - an instance override, not an attribute


def _int(value: str | None, option: str, low: int) -> int | None:
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        raise ValueError(f"{option} must be a whole number, not {value!r}") from None
    if number < low:
        raise ValueError(f"{option} must be at least {low}, not {number}")
    return number


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from chinese_poker.ai import BOTS
    from chinese_poker.terminal.game import Game, GameConfig, parse_deck

    preset = resolve_preset(args.rules)
    overrides = dict(parse_assignment(text) for text in args.set)
    rules = rules_for(preset, **overrides)
    players = _int(args.players, "--players", 2)
    assert players is not None
    try:
        delay = float(args.delay)
    except ValueError:
        raise ValueError(f"--delay must be a number of seconds, not {args.delay!r}") from None
    if not 0 <= delay <= 10:
        raise ValueError(f"--delay must be between 0 and 10 seconds, not {delay}")
    bots = [b.strip() for b in args.bots.split(",")]
    for bot in bots:
        if bot.lower() not in BOTS:
            raise ValueError(f"unknown bot {bot!r}; bots: {', '.join(BOTS)}")
    config = GameConfig(
        rules=rules,
        title=preset,
        players=players,
        bots=bots,
        name=args.name,
        seed=_int(args.seed, "--seed", 0),
        hands=_int(args.hands, "--hands", 1),
        delay=delay,
        four_color=args.four_color,
        symbols=args.symbols,
        deck=parse_deck(args.deck) if args.deck else None,
    )
    if sys.stdin.isatty():
        # Line editing and history for input() (arrow keys to fix a typo); only on a
        # terminal, where it cannot write control sequences into piped output.
        with contextlib.suppress(ImportError):  # not available on every platform
            import readline  # noqa: F401
    console = Console(highlight=False)
    game = Game(config, console=console, input_fn=lambda prompt: console.input(prompt))
    return game.run()
