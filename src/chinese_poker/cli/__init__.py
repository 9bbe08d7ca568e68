"""The ``chinese-poker`` command: a thin client of the library.

Each subcommand lives in its own module of this package with two functions,
``register(subparsers)`` and ``run(args) -> int``, and uses the shared pieces here: the
``--rules``/``--set`` arguments (:func:`add_rules_arguments`, :func:`rules_from_args`),
checked numbers (:func:`whole`, :func:`real`), input files where ``-`` is standard input
(:func:`read_input`, :func:`read_history_input`), each refused unread over its size
limit (:data:`MAX_INPUT`, :data:`MAX_HISTORY`).

Errors a user can cause are one line on standard error and exit status 2, never a
traceback; a malformed command line (unknown option, missing value) also shows the usage
of the (sub)command it was meant for. Output into a pipe whose reader stops (``| head``)
ends quietly with status 0; Ctrl-C ends any command with one line and status 130.
``python3 -m chinese_poker`` is the same command.
"""

from __future__ import annotations

import _thread
import argparse
import contextlib
import importlib
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from chinese_poker import __version__

if TYPE_CHECKING:
    from chinese_poker.rules import Rules

# Subcommand name -> module in this package. Modules are imported lazily so that a
# simple command does not pay for the server or the solvers.
COMMANDS: dict[str, str] = {
    "play": "play",
    "eval": "evalcmd",
    "solve": "solve",
    "score": "score",
    "replay": "replay",
    "review": "review",
    "simulate": "simulate",
    "bot": "bot",
    "hint": "hint",
    "serve": "serve",
    "verify": "verify",
}


# Commands that print words for people: each takes --lang (bot speaks JSON; serve
# logs for the operator).
SPEAKING = ("play", "eval", "solve", "score", "replay", "review", "simulate", "hint", "verify")


class UsageError(Exception):
    """A problem with what the user asked for; printed as one line, exit status 2."""


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 hand``, ``2 hands`` (``nouns``: an irregular plural).

    >>> plural(1, "hand"), plural(0, "hand"), plural(2, "match", "matches")
    ('1 hand', '0 hands', '2 matches')
    """
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


# ----------------------------------------------------------------- shared arguments


def add_rules_arguments(
    parser: argparse.ArgumentParser, *, default: str | None, what: str = "the rules preset"
) -> None:
    """``--rules PRESET`` and repeatable ``--set OPTION=VALUE``: the same in every command.

    ``default`` None means the preset is optional (the input carries its own rules).
    Read them back with :func:`rules_from_args`.
    """
    shown = f" (default: {default})" if default else ""
    parser.add_argument(
        "--rules",
        default=default,
        metavar="PRESET",
        help=f"{what}, e.g. ofc, pineapple, turbo, classic, criss-cross{shown}",
    )
    parser.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="override one rules option, e.g. --set unit_value=10 (repeatable)",
    )


def rule_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The ``--set`` options of ``args`` as ``{option: value}`` (checked by the rules)."""
    from chinese_poker.rules import parse_assignment

    return dict(parse_assignment(text) for text in args.sets)


def rules_from_args(args: argparse.Namespace, **extra: Any) -> Rules:
    """The rules of ``--rules`` with every ``--set`` (and ``extra``) applied."""
    from chinese_poker.rules import rules_for

    return rules_for(args.rules, **{**rule_overrides(args), **extra})


# Messages of the number checks below: argparse reports them through Parser.error, which
# prints them as one line (a bad value), not with the usage (a bad command line).
_VALUE_PROBLEMS: set[str] = set()


def _bad_value(message: str) -> argparse.ArgumentTypeError:
    _VALUE_PROBLEMS.add(message)
    return argparse.ArgumentTypeError(message)


class Parser(argparse.ArgumentParser):
    """argparse with the project's errors: a bad value of an option is one line naming
    the option; a malformed command line also shows the (sub)command's own usage."""

    def error(self, message: str) -> NoReturn:
        if any(message.endswith(": " + problem) for problem in _VALUE_PROBLEMS):
            self.exit(2, f"{self.prog}: error: {message}\n")
        super().error(message)


def _number_text(text: str, kind: type[int] | type[float]) -> float:
    try:
        value = kind(text)
    except ValueError:
        noun = "a whole number" if kind is int else "a number"
        raise _bad_value(f"must be {noun}, not {text!r}") from None
    if not math.isfinite(value):
        raise _bad_value(f"must be a finite number, not {text!r}")
    return value


def whole(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: a whole number in ``low..high`` (either end optional)."""

    def parse(text: str) -> int:
        value = int(_number_text(text, int))
        _check_range(value, low, high)
        return value

    parse.__name__ = "whole number"  # argparse names the type in some messages
    return parse


def real(
    low: float | None = None, high: float | None = None, *, above: float | None = None
) -> Callable[[str], float]:
    """An argparse ``type``: a finite number in ``low..high``, or greater than ``above``."""

    def parse(text: str) -> float:
        value = _number_text(text, float)
        if above is not None and not value > above:
            raise _bad_value(f"must be greater than {above:g}, not {text}")
        _check_range(value, low, high)
        return value

    parse.__name__ = "number"
    return parse


def _check_range(value: float, low: float | None, high: float | None) -> None:
    if low is not None and high is not None and not low <= value <= high:
        raise _bad_value(f"must be between {low:g} and {high:g}, not {value:g}")
    if low is not None and value < low:
        raise _bad_value(f"must be at least {low:g}, not {value:g}")
    if high is not None and value > high:
        raise _bad_value(f"must be at most {high:g}, not {value:g}")


# ----------------------------------------------------------------------- input files


def source_name(file: str) -> str:
    """How messages name an input: the file, or standard input for ``-``."""
    return "standard input" if file == "-" else file


MAX_INPUT = 16 * 1024 * 1024
"""The largest table, session, view or position file read (bytes): a scorekeeper's
session of a thousand hands is well under a megabyte, a view with its legal actions too."""

MAX_HISTORY = 1024 * 1024 * 1024
"""The largest hand-history file read (bytes): about 180,000 heads-up Pineapple hands."""


def size_text(size: int) -> str:
    """A byte count for people: ``16 MiB``, ``1 GiB``, ``512 bytes``.

    >>> size_text(MAX_INPUT), size_text(MAX_HISTORY), size_text(512)
    ('16 MiB', '1 GiB', '512 bytes')
    """
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return plural(size, "byte")


def read_input(file: str, what: str, limit: int | None = None) -> str:
    """The text of ``file``, or of standard input when ``file`` is ``"-"``.

    ``what`` names the expected content in messages ("table", "view"). Every failure
    (missing, a directory, larger than ``limit`` bytes, default :data:`MAX_INPUT`, not
    text) is a :class:`UsageError` naming the file; a file over the limit is refused
    before it is read, standard input as soon as it has sent more.
    """
    limit = MAX_INPUT if limit is None else limit
    name = source_name(file)
    too_large = UsageError(
        f"cannot read {name}: it is larger than {size_text(limit)}, the limit for a {what}"
    )
    if file == "-":
        stream = sys.stdin
        if stream is None or stream.isatty():
            raise UsageError(f"no {what} given: name a file, or pipe one into standard input")
        buffer = getattr(stream, "buffer", None)
        data: bytes | str = buffer.read(limit + 1) if buffer is not None else stream.read(limit + 1)
        if len(data) > limit:
            raise too_large
    else:
        path = Path(file)
        if path.is_dir():
            raise UsageError(f"cannot read {file}: it is a directory, not a {what} file")
        try:
            with path.open("rb") as handle:
                if os.fstat(handle.fileno()).st_size > limit:
                    raise too_large
                data = handle.read(limit + 1)  # a pipe or a device has no size: read on
        except OSError as exc:
            raise UsageError(f"cannot read {file}: {exc.strerror or exc}") from None
        if len(data) > limit:
            raise too_large
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise UsageError(
                f"cannot read {name}: it is not UTF-8 text (byte {exc.start + 1})"
            ) from None
    if "\x00" in data:
        raise UsageError(f"cannot read {name}: it is a binary file, not a {what}")
    return data


def read_history_input(file: str) -> list[dict[str, Any]]:
    """The records of a hand-history file (or ``-``), every error naming the file."""
    from chinese_poker.engine.history import parse_history

    text = read_input(file, "hand history", MAX_HISTORY)
    return parse_history(text.splitlines(), source_name(file))


# ------------------------------------------------------------------------ the command


def _user_errors() -> tuple[type[BaseException], ...]:
    # ValueError covers CardError, RulesError and the other library input errors.
    return (UsageError, ValueError, KeyError, OSError)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="chinese-poker",
        description="Chinese poker: score tables, evaluate lines, play and simulate.",
    )
    parser.add_argument("--version", action="version", version=f"chinese-poker {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module_name in COMMANDS.values():
        module = importlib.import_module(f"chinese_poker.cli.{module_name}")
        module.register(sub)
    for name in SPEAKING:
        for leaf in _leaves(sub.choices[name]):
            leaf.add_argument(
                "--lang",
                default=None,
                metavar="LANG",
                help="language of the output: en, bg, hr, ru or lv (default: from LANGUAGE,"
                " LC_ALL, LC_MESSAGES or LANG, else English)",
            )
    _own_usage(parser)
    return parser


def _leaves(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parsers that run something: ``parser``, or its subcommands' (``solve``'s)."""
    for action in parser._actions:  # argparse has no public way to walk its parsers
        if isinstance(action, argparse._SubParsersAction):
            return [leaf for child in action.choices.values() for leaf in _leaves(child)]
    return [parser]


def _own_usage(parser: argparse.ArgumentParser) -> None:
    """Remember in each (sub)command's defaults which parser it is, for its usage."""
    for action in parser._actions:  # argparse has no public way to walk its parsers
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                child.set_defaults(_parser=child)
                _own_usage(child)


def _quiet_stdout() -> None:
    """After a broken pipe: send what is left of standard output nowhere (Python docs)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a real file (captured in tests)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    # Ctrl-C at any moment, from building the parser (its imports take a second) to the
    # last line of output: one line and status 130, as for other Unix tools.
    with _interrupts_noticed() as swallowed:
        try:
            code = _main(argv)
            for _ in range(100):  # an interrupt raised again may still be on its way
                if not swallowed:
                    break
                time.sleep(0.01)
        except KeyboardInterrupt:
            return _interrupted()
        return _interrupted() if swallowed else code


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args, extras = parser.parse_known_args(argv)
        if extras:
            # The subcommand's own usage, not the top-level one.
            owner: argparse.ArgumentParser = getattr(args, "_parser", parser)
            owner.error(f"unrecognized arguments: {' '.join(extras)}")
    except SystemExit as exc:  # argparse: --help, --version or a usage error
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    try:
        with _speaking(getattr(args, "lang", None)):
            code: int = args.run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (``| head``): not an error, as for other Unix tools.
        _quiet_stdout()
        return 0
    except _user_errors() as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"chinese-poker {args.command}: error: {message}", file=sys.stderr)
        return 2
    return code


@contextlib.contextmanager
def _speaking(lang: str | None) -> Iterator[None]:
    """Speak ``--lang``, else the environment's language, while the command runs (a
    command without the option follows the environment); then the language the process
    had, for a program that called :func:`main`."""
    from chinese_poker.language import current_language, pick_language, use_language

    before = current_language()
    use_language(pick_language(lang))
    try:
        yield
    finally:
        use_language(before)


INTERRUPTED = 130
"""The exit status after Ctrl-C (128 + SIGINT), as the shell reports a process it ended."""


def _interrupted() -> int:
    print("chinese-poker: interrupted", file=sys.stderr)
    return INTERRUPTED


@contextlib.contextmanager
def _interrupts_noticed() -> Iterator[list[BaseException]]:
    """Keep a Ctrl-C that lands in a finaliser (llvmlite's run while numba loads) from
    being lost: Python prints it as "Exception ignored ... KeyboardInterrupt" and goes
    on, and the command ended with status 0. Here it is not printed but remembered (the
    list yielded) and raised again in the main thread, so the command stops."""
    swallowed: list[BaseException] = []
    default = sys.unraisablehook

    def notice(unraisable: Any) -> None:
        if unraisable.exc_type is None or not issubclass(unraisable.exc_type, KeyboardInterrupt):
            default(unraisable)
            return
        if not swallowed:
            # A moment later, from another thread: raised while this hook runs, it would
            # be ignored again.
            again = threading.Timer(0.05, _thread.interrupt_main)
            again.daemon = True
            again.start()
        swallowed.append(unraisable.exc_value)

    sys.unraisablehook = notice
    try:
        yield swallowed
    finally:
        sys.unraisablehook = default


def entry() -> None:
    code = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()
        code = 0
    sys.exit(code)
