"""``chinese-poker play``: play any variant in the terminal against the built-in bots.

The game itself lives in :mod:`chinese_poker.terminal`; this module only reads the
arguments, checks them (every mistake is one error line and exit status 2) and connects the
game to the keyboard and the screen.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any

from chinese_poker.cli import add_rules_arguments, real, rules_from_args, whole
from chinese_poker.rules import resolve_preset


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "play",
        help="play in the terminal against bots",
        description="Play Chinese poker in the terminal against built-in bots. Type ? in "
        "the game for the placement syntax (e.g. 't Ah, m Kd Kc, b 5s' or 'tmbbx').",
    )
    add_rules_arguments(p, default="pineapple")
    p.add_argument(
        "--players",
        type=whole(2),
        default=2,
        metavar="N",
        help="players at the table, you included (default 2)",
    )
    p.add_argument(
        "--bots",
        default="rules",
        metavar="NAMES",
        help="bot of each opponent, comma-separated, or one for all "
        "(default rules; e.g. random, rules)",
    )
    p.add_argument(
        "--name", default=None, help="your name at the table (default You, in the game's language)"
    )
    p.add_argument(
        "--seed", type=whole(0), default=None, metavar="S", help="seed of the session's deals"
    )
    p.add_argument(
        "--hands",
        type=whole(1),
        default=None,
        metavar="K",
        help="stop after K hands (default: the whole session, RULES §10)",
    )
    p.add_argument(
        "--delay",
        type=real(0, 10),
        default=0.3,
        metavar="SEC",
        help="pause after each bot action, 0 to 10 seconds (default 0.3)",
    )
    p.add_argument(
        "--advisor",
        default="hints",
        metavar="NAME",
        help="what s suggests: hints (the hint engine, default) or a bot's choice (e.g. rules)",
    )
    p.add_argument("--four-color", action="store_true", help="four-colour suits")
    p.add_argument("--symbols", action="store_true", help="show suits as ♠ ♥ ♦ ♣")
    # Testing hook: stack the first cards of the first hand (in the engine's dealing order).
    p.add_argument("--deck", default=None, help=argparse.SUPPRESS)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from chinese_poker.ai import BOTS
    from chinese_poker.language import current_language, default_name
    from chinese_poker.terminal.game import Game, GameConfig, parse_deck

    preset = resolve_preset(args.rules)
    rules = rules_from_args(args)
    bots = [b.strip() for b in args.bots.split(",")]
    for bot in bots:
        if bot.lower() not in BOTS:
            raise ValueError(f"unknown bot {bot!r}; bots: {', '.join(BOTS)}")
    lang = current_language()  # --lang or the environment's (chinese_poker.cli)
    advisor = args.advisor.strip().lower()
    if advisor != "hints" and advisor not in BOTS:
        raise ValueError(f"unknown advisor {args.advisor!r}; hints, or a bot: {', '.join(BOTS)}")
    config = GameConfig(
        advisor=advisor,
        rules=rules,
        title=preset,
        players=args.players,
        bots=bots,
        name=args.name if args.name is not None else default_name(),
        seed=args.seed,
        hands=args.hands,
        delay=args.delay,
        four_color=args.four_color,
        symbols=args.symbols,
        deck=parse_deck(args.deck) if args.deck else None,
        language=lang,
    )
    if sys.stdin.isatty():
        # Line editing and history for input() (arrow keys to fix a typo); only on a
        # terminal, where it cannot write control sequences into piped output.
        with contextlib.suppress(ImportError):  # not available on every platform
            import readline  # noqa: F401
    console = Console(highlight=False)
    game = Game(config, console=console, input_fn=lambda prompt: console.input(prompt))
    return game.run()
