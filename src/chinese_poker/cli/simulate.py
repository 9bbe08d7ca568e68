"""``chinese-poker simulate``: play many sessions between bots and summarise them.

    chinese-poker simulate --rules pineapple --bots random,rules --hands 10000 --seed 1
    chinese-poker simulate --bots 'cmd:python examples/bots/random_bot.py,rules' --workers 2
    chinese-poker simulate --bots random,rules --duplicate --engine ray --json

The same seed gives the same result whatever ``--workers`` and ``--engine``. See
``docs/simulate.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from chinese_poker.ai.simulate import ENGINES, RAY_INSTALL, make_job, simulate
from chinese_poker.cli import add_rules_arguments, real, rules_from_args, whole


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "simulate",
        help="play many sessions between bots and summarise the results",
        description="Play complete sessions (button orbit, Fantasyland carry-over) between "
        "bots until the number of hands is reached, and report points per hand per seat "
        "and per bot with 95% intervals, foul and Fantasyland rates and hands per second. "
        "The same seed gives the same result whatever --workers and --engine.",
    )
    add_rules_arguments(p, default="pineapple")
    p.add_argument(
        "--players",
        type=whole(1),
        default=None,
        metavar="N",
        help="players at the table (default: the number of bots listed, or 2)",
    )
    p.add_argument(
        "--bots",
        default="rules",
        metavar="LIST",
        help="one bot for every seat or a comma-separated list, one per seat: "
        "registered bots (random, rules, ...) or cmd:COMMAND for an external "
        "program speaking the bot protocol (default: rules)",
    )
    p.add_argument(
        "--hands",
        type=whole(1),
        default=1000,
        metavar="K",
        help="hands to play in total (default: 1000)",
    )
    p.add_argument(
        "--seed",
        type=whole(0),
        default=None,
        metavar="S",
        help="master seed (default: random; it is printed)",
    )
    p.add_argument(
        "--duplicate",
        action="store_true",
        help="replay each session with the seats rotated (every bot in every "
        "seat on the same cards)",
    )
    p.add_argument(
        "--workers",
        type=whole(1),
        default=1,
        metavar="N",
        help="local processes, or Ray tasks at a time (default: 1)",
    )
    p.add_argument(
        "--engine",
        default="local",
        metavar="{" + ",".join(ENGINES) + "}",
        help=f"local processes (default) or Ray (from a checkout: {RAY_INSTALL})",
    )
    p.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="with --engine ray: the address of a running Ray cluster, e.g. "
        "127.0.0.1:6379 or auto (see docs/simulate.md)",
    )
    p.add_argument(
        "--deadline",
        type=real(above=0),
        default=None,
        metavar="SECONDS",
        help="seconds an external bot has per decision (default: the rules' time_limit, else 10)",
    )
    p.add_argument(
        "--history",
        default=None,
        metavar="FILE",
        help="write every hand to this JSON-lines hand-history file",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


@contextmanager
def _progress(enabled: bool, total: int) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar on standard error (None when disabled)."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    with Progress(
        TextColumn("simulating"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("hands"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("simulate", total=total)

        def update(done: int, _total: int) -> None:
            bar.update(task, completed=done)

        yield update


def run(args: argparse.Namespace) -> int:
    if args.engine not in ENGINES:
        raise ValueError(f"unknown engine {args.engine!r}; engines: {', '.join(ENGINES)}")
    if args.address and args.engine != "ray":
        raise ValueError("--address is for --engine ray")
    rules = rules_from_args(args)
    job = make_job(
        rules,
        args.bots,
        players=args.players,
        hands=args.hands,
        seed=args.seed,
        duplicate=args.duplicate,
        deadline=args.deadline,
    )
    show = not args.quiet and sys.stderr.isatty()
    with _progress(show, job.hands) as progress:
        result = simulate(
            job,
            workers=args.workers,
            engine=args.engine,
            address=args.address,
            history=args.history,
            progress=progress,
        )
    print(json.dumps(result.to_dict(), indent=2) if args.json else result.render())
    return 0
