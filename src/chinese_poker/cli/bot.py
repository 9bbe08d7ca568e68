"""``chinese-poker bot``: serve one of our bots over the bot protocol (stdin/stdout), or
put a bot on a server (``--connect``).

    chinese-poker bot --rules pineapple --bot rules

It compiles (or loads from numba's cache) the bot's kernels first, with a line on
standard error when it really compiles, then reads the engine's JSON lines on standard
input and answers on standard output (see ``docs/bot-protocol.md``), until ``quit`` or
the end of its input. Use it as an external bot:
``chinese-poker simulate --bots 'cmd:chinese-poker bot --bot rules,random'``.

    chinese-poker bot --connect https://cards.example --token cpb-... --bot mc --level 2
    chinese-poker bot --connect URL --bot 'cmd:python3 examples/bots/random_bot.py'

plays the tables a server invites the bot account to (docs/bot-protocol.md "Online"),
with one of our bots or any program speaking the stdin protocol; the token may also
come from the ``CHINESE_POKER_BOT_TOKEN`` environment variable (out of the process list).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

from chinese_poker.ai.protocol import build_bot, serve
from chinese_poker.cli import UsageError, add_rules_arguments, rules_from_args, whole

TOKEN_VARIABLE = "CHINESE_POKER_BOT_TOKEN"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "bot",
        help="serve a bot over the bot protocol (JSON lines on stdin/stdout), or on a server",
        description="Serve one of the registered bots over the bot protocol: read the "
        "engine's messages on standard input, answer on standard output. With --connect, "
        "play on a server as a bot account instead.",
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
        help="a registered bot (random, rules, ...; default: rules); with --connect also "
        "cmd:COMMAND, a program speaking the bot protocol on stdin/stdout",
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
    online = p.add_argument_group("online (a bot account on a server)")
    online.add_argument(
        "--connect", metavar="URL", default=None, help="the server's address (http(s)://...)"
    )
    online.add_argument(
        "--token",
        metavar="T",
        default=None,
        help=f"the bot account's token (default: ${TOKEN_VARIABLE})",
    )
    online.add_argument(
        "--presets",
        metavar="P,...",
        default="",
        help="the presets the bot accepts (default: any)",
    )
    online.add_argument(
        "--players",
        metavar="N,...",
        default="",
        help="the player counts the bot accepts (default: any)",
    )
    online.add_argument(
        "--tables",
        type=whole(1),
        default=4,
        metavar="N",
        help="tables played at once (default: 4)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.connect is not None:
        return _run_online(args)
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


def _run_online(args: argparse.Namespace) -> int:
    from chinese_poker.ai.bot_connect import OnlineBot, agent_factory, run_online

    token = args.token or os.environ.get(TOKEN_VARIABLE)
    if not token:
        raise UsageError(f"--connect needs the bot account's token: --token or ${TOKEN_VARIABLE}")
    try:
        players = tuple(int(n) for n in args.players.split(",") if n.strip())
    except ValueError:
        raise UsageError(f"--players takes whole numbers, not {args.players!r}") from None
    presets = tuple(p.strip() for p in args.presets.split(",") if p.strip())
    try:
        make_agent = agent_factory(args.bot, level=args.level, seed=args.seed)
    except ValueError as exc:
        raise UsageError(str(exc)) from None

    def say(line: str) -> None:
        print(f"chinese-poker bot: {line}", file=sys.stderr, flush=True)

    bot = OnlineBot(args.connect, token, presets, players, args.tables)
    try:
        return asyncio.run(run_online(bot, make_agent, say))
    except KeyboardInterrupt:
        return 130
