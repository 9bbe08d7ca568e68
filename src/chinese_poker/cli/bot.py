"""``chinese-poker bot``: serve one of our bots over the bot protocol (stdin/stdout).

    chinese-poker bot --rules pineapple --bot rules

It compiles (or loads from numba's cache) the bot's kernels first, with a line on
standard error when it really compiles, then reads the engine's JSON lines on standard
input and answers on standard output (see ``docs/bot-protocol.md``), until ``quit`` or
the end of its input. Use it as an external bot:
``chinese-poker simulate --bots 'cmd:chinese-poker bot --bot rules,random'``.
"""

from __future__ import annotations

import argparse
from typing import Any

from chinese_poker.ai.protocol import build_bot, serve
from chinese_poker.cli import UsageError, add_rules_arguments, rules_from_args, whole


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "bot",
        help="serve a bot over the bot protocol (JSON lines on stdin/stdout)",
        description="Serve one of the registered bots over the bot protocol: read the "
        "engine's messages on standard input, answer on standard output.",
    )
    add_rules_arguments(
        p,
        default=None,
        what="the rules to assume when the engine sends "
        "none (its hello and views carry the table's rules)",
    )
    p.add_argument(
        "--bot",
        default="rules",
        metavar="NAME",
        help="a registered bot (random, rules, ...; default: rules)",
    )
    p.add_argument(
        "--level",
        type=whole(1),
        default=None,
        metavar="L",
        help="strength level, for bots that have levels",
    )
    p.add_argument(
        "--seed",
        type=whole(0),
        default=None,
        metavar="S",
        help="seed the bot once (default: use the seed of each new_session)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.rules is None and args.sets:
        raise UsageError("--set changes a preset: give --rules PRESET as well")
    rules = rules_from_args(args) if args.rules is not None else None
    agent = build_bot(args.bot, args.seed, args.level)  # unknown bot or level: one line, exit 2
    # Compile (or load) the bot's kernels before reading hello, so that "ready" means
    # ready: the first decision then answers in its own time, not numba's.
    kernels: tuple[str, ...] = getattr(agent, "kernels", ())
    if kernels:
        from chinese_poker.ai.warm import stderr_notice, warm_kernels

        warm_kernels(kernels, say=stderr_notice)
    # A broken pipe (the engine went away) ends quietly in the command's entry point.
    return serve(args.bot, seed=args.seed, level=args.level, rules=rules)
