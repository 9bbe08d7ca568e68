"""The ``chinese-poker`` command: a thin client of the library.

Each subcommand lives in its own module of this package with two functions,
``register(subparsers)`` and ``run(args) -> int``. Errors a user can cause are
reported as one line on standard error with a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

from chinese_poker import __version__

# Subcommand name -> module in this package. Modules are imported lazily so that a
# simple command does not pay for the server or the solvers.
COMMANDS: dict[str, str] = {
    "play": "play",
    "eval": "evalcmd",
    "solve": "solve",
    "score": "score",
    "replay": "replay",
    "simulate": "simulate",
    "bot": "bot",
    "hint": "hint",
    "serve": "serve",
    "verify": "verify",
}


class UsageError(Exception):
    """A problem with what the user asked for; printed as one line, exit status 2."""


def read_input(file: str, what: str) -> str:
    """The text of ``file``, or of standard input when ``file`` is ``"-"``.

    ``what`` names the expected content in messages ("table", "view").
    """
    if file == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError(
                f"no {what} given: name a JSON file, or pipe one into standard input"
            )
        return sys.stdin.read()
    try:
        return Path(file).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {file}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UsageError(f"cannot read {file}: it is not UTF-8 text") from None


def _user_errors() -> tuple[type[BaseException], ...]:
    # ValueError covers CardError, RulesError and the other library input errors.
    return (UsageError, ValueError, KeyError, OSError)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chinese-poker",
        description="Chinese poker: score tables, evaluate lines, play and simulate.",
    )
    parser.add_argument("--version", action="version", version=f"chinese-poker {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module_name in COMMANDS.values():
        module = importlib.import_module(f"chinese_poker.cli.{module_name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.run(args)
    except KeyboardInterrupt:
        print("chinese-poker: interrupted", file=sys.stderr)
        return 130
    except _user_errors() as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"chinese-poker {args.command}: error: {message}", file=sys.stderr)
        return 2
    return code


def entry() -> None:
    sys.exit(main())
