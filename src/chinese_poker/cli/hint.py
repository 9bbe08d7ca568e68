"""``chinese-poker hint [FILE|-]``: rank a seat's options from its view.

The input is a seat's view as JSON (the ``View.to_dict()`` form, e.g. the ``view`` of a
bot-protocol ``act`` message), or an open-face position as a person types it
(docs/formats.md, "Positions"), from FILE or standard input. The command ranks every
legal action of an open-face street (or, for a Fantasyland deal or a classic set, the
solver's best arrangement and a handful of alternatives) with its expected points, its
foul risk and a short explanation, best first, and shows the best 10 with a line saying
how many more there are (``--top N``; ``--top 0`` or ``--all``: every one); ``--json``
prints the same as JSON, every option unless ``--top`` is given.
Bad JSON, a document that is not a view, or a view whose seat is not to act: one line
on standard error and exit status 2.

    chinese-poker hint view.json
    chinese-poker hint --all view.json
    chinese-poker hint --json --level 2 < view.json
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Any

from chinese_poker.cli import (
    add_rules_arguments,
    plural,
    read_input,
    rule_overrides,
    rules_from_args,
    source_name,
    whole,
)
from chinese_poker.cli import real as real_number
from chinese_poker.engine.views import View

__all__ = ["DEFAULT_TOP", "parse_view", "register", "run", "shown_count"]

DEFAULT_TOP = 10
"""Options a hint shows by default (an open-face street may have hundreds)."""


class HintInputError(ValueError):
    """The input is not a usable view (one line for the user)."""


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "hint",
        help="rank the options of a seat's view (JSON) by expected points",
        description="Read a seat's view (View.to_dict() JSON) from FILE or standard input "
        "and rank its options: expected points, foul risk and why, best first.",
    )
    p.add_argument("file", nargs="?", default="-", metavar="FILE", help="view JSON, - for stdin")
    add_rules_arguments(
        p, default=None, what="judge the view under this preset instead of the view's own rules"
    )
    p.add_argument(
        "--level",
        type=whole(1),
        default=None,
        metavar="L",
        help="Monte Carlo effort 1 (quick) to 5 (strong); default 3",
    )
    p.add_argument(
        "--time-budget",
        type=real_number(above=0),
        default=None,
        metavar="SECONDS",
        help="stop sampling after this many seconds",
    )
    p.add_argument(
        "--seed", type=whole(0), default=0, metavar="S", help="sampling seed (default 0)"
    )
    p.add_argument(
        "--top",
        type=whole(0),
        default=None,
        metavar="N",
        help=f"show the best N options (default {DEFAULT_TOP}; with --json: all); 0 shows all",
    )
    p.add_argument("--all", action="store_true", help="show every option (the same as --top 0)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=run)


def shown_count(top: int | None, show_all: bool, *, as_json: bool = False) -> int | None:
    """How many of the options to show (None: all): ``--top N`` (0 is all) or ``--all``;
    by default :data:`DEFAULT_TOP` on the screen and every one as JSON.

    >>> shown_count(None, False), shown_count(None, False, as_json=True), shown_count(0, False)
    (10, None, None)
    >>> shown_count(3, False), shown_count(None, True)
    (3, None)
    """
    if show_all or top == 0:
        return None
    if top is not None:
        return top
    return None if as_json else DEFAULT_TOP


def parse_view(text: str, source: str = "the view") -> View:
    """A :class:`View` from its JSON text; :class:`HintInputError` with one line if not.

    >>> parse_view("[1, 2]")
    Traceback (most recent call last):
    ...
    chinese_poker.cli.hint.HintInputError: the view must be a JSON object (View.to_dict() form)
    """
    from chinese_poker.ai.protocol import view_from_dict

    if not text.strip():
        raise HintInputError(f"{source} is empty: expected a view as JSON")
    if not text.lstrip().startswith(("{", "[")):  # a position as a person types it
        from chinese_poker.engine.position import parse_position

        return parse_position(text, source).view()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HintInputError(
            f"{source} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    if not isinstance(data, dict):
        raise HintInputError("the view must be a JSON object (View.to_dict() form)")
    if "me" in data and "players" not in data:  # a position in its JSON form
        from chinese_poker.engine.position import position_from_dict

        return position_from_dict(data).view()
    if isinstance(data.get("view"), dict) and "players" not in data:
        data = data["view"]  # a whole bot-protocol "act" message
    try:
        return view_from_dict(data)
    except KeyError as exc:
        raise HintInputError(f"not a view: the key {exc.args[0]!r} is missing") from None
    except (TypeError, ValueError, AttributeError) as exc:
        raise HintInputError(f"not a view: {exc}") from None


def run(args: argparse.Namespace) -> int:
    from chinese_poker.ai.hints import DEFAULT_HINT_LEVEL, hint
    from chinese_poker.ai.warm import (
        OPEN_FACE,
        compile_ahead,
        compile_notice,
        stderr_notice,
        warm_unless_compiling,
    )

    view = parse_view(read_input(args.file, "view"), source_name(args.file))
    if args.rules is not None or args.sets:
        rules = (
            rules_from_args(args)
            if args.rules is not None
            else view.rules.replace(**rule_overrides(args))
        )
        if rules.variant != view.rules.variant:
            raise HintInputError(
                f"the view is a {view.rules.variant} hand; --rules/--set cannot make it"
                f" {rules.variant}"
            )
        view = replace(view, rules=rules)
    level = DEFAULT_HINT_LEVEL if args.level is None else args.level
    if view.rules.is_open_face and not warm_unless_compiling((OPEN_FACE,)):
        # A fresh machine: the rules bot's action now, the kernels for the next run.
        stderr_notice(
            "the hint engine is being compiled for this machine (once, about a minute and a"
            f" half, in process {compile_ahead()}): this is the rules bot's quick suggestion"
        )
    with compile_notice(stderr_notice):  # the first run on a machine compiles: say so
        entries = hint(view, level=level, time_budget=args.time_budget, seed=args.seed,
                       when_cold="quick")  # fmt: skip
    shown = entries[: shown_count(args.top, args.all, as_json=args.json)]
    if args.json:
        print(json.dumps({
            "seat": view.seat,
            "player": view.player,
            "variant": view.rules.variant,
            "decision": view.decisions[0].to_dict(),
            "options": len(entries),
            "level": level,
            "hints": [e.to_dict() for e in shown],
        }, indent=2, ensure_ascii=False))  # fmt: skip
        return 0
    print(_render(view, entries, shown, level))
    return 0


def _render(view: View, entries: list[Any], shown: list[Any], level: int) -> str:
    from chinese_poker.ai.hints import describe_action
    from chinese_poker.cards import cards_str
    from chinese_poker.language import t

    dec = view.decisions[0]
    what = f"street {dec.street}" if dec.kind == "street" else dec.kind
    head = (
        f"{view.player or f'seat {view.seat}'} (seat {view.seat}), {view.rules.variant} "
        f"{what}: {cards_str(dec.cards) or '-'}  [{plural(len(entries), 'option')}, level {level}]"
    )
    rows = [(str(i + 1), describe_action(e.action), "-" if e.quick else f"{e.value:+.2f}",
             "-" if e.quick else f"{e.foul_probability:.0%}", e.explanation)
            for i, e in enumerate(shown)]  # fmt: skip
    # The words the terminal game's catalogues hold, in the language of the run.
    header = ("#", "action", t("ledger.points").lower(), t("mark.foul"), "why")
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(4)]
    lines = [head, ""]
    for r in [header, *rows]:
        lines.append(
            f"{r[0]:>{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:>{widths[2]}}  "
            f"{r[3]:>{widths[3]}}  {r[4]}"
        )
    if len(shown) < len(entries):
        more = plural(len(entries) - len(shown), "more option")
        lines.append(f"... {more}: --top 0 or --all shows every one")
    return "\n".join(lines)
