"""``chinese-poker bot``: serve one of our bots over the bot protocol (stdin/stdout).

    chinese-poker bot --rules pineapple --bot rules

It reads the engine's JSON lines on standard input and answers on standard output (see
``docs/bot-protocol.md``), until ``quit`` or the end of its input. Use it as an external
bot: ``chinese-poker simulate --bots 'cmd:chinese-poker bot --bot rules,random'``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from chinese_poker.ai.protocol import build_bot, serve
from chinese_poker.rules import rules_for


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "bot",
        help="serve a bot over the bot protocol (JSON lines on stdin/stdout)",
        description="Serve one of the registered bots over the bot protocol: read the "
        "engine's messages on standard input, answer on standard output.",
    )
    p.add_argument("--rules", default=None, metavar="PRESET",
                   help="the rules to assume when the engine sends none (the engine's "
                   "hello and views carry the table's rules)")
    p.add_argument("--bot", default="rules", metavar="NAME",
                   help="a registered bot (random, rules, ...; default: rules)")
    p.add_argument("--level", type=int, default=None, metavar="L",
                   help="strength level, for bots that have levels")
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help="seed the bot once (default: use the seed of each new_session)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rules = rules_for(args.rules) if args.rules is not None else None
    build_bot(args.bot, args.seed, args.level)  # unknown bot or level: one line, exit 2
    try:
        return serve(args.bot, seed=args.seed, level=args.level, rules=rules)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The engine went away; nothing more to say.
        sys.stderr.close()
        return 0
