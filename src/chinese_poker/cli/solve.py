"""``chinese-poker solve fantasyland|setting``: the exact solvers from the command line.

``--batch`` reads one deal per line from standard input and writes one JSON result
per line; a bad line gets a JSON error object for that line and the run goes on.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from chinese_poker.cards import Card, parse_cards
from chinese_poker.cli import add_rules_arguments, real, rules_from_args, whole
from chinese_poker.rules import Rules

MAX_DEAL = 4096
"""The longest line of ``--batch`` read (characters): 17 cards are about 50."""


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "solve",
        help="solve a Fantasyland deal or a classic 13-card setting",
        description="Exact solvers: the best Fantasyland board, the best classic setting.",
    )
    kinds = p.add_subparsers(dest="kind", metavar="KIND")
    kinds.required = True
    fl = kinds.add_parser(
        "fantasyland",
        help="best board for 13-17 Fantasyland cards",
        description="The exact best arrangement of 13 to 17 Fantasyland cards: royalties "
        "plus a value for staying in Fantasyland.",
    )
    _common(fl, default_rules="pineapple")
    fl.add_argument(
        "--stay-value",
        type=real(0),
        default=None,
        metavar="X",
        help="points (>= 0) a board that stays in Fantasyland is worth (default 15)",
    )
    fl.set_defaults(run=run)
    st = kinds.add_parser(
        "setting",
        help="best setting of 13 classic cards",
        description="The setting of 13 cards with the highest expected points, surrender "
        "advice and naturals.",
    )
    _common(st, default_rules="classic")
    st.add_argument(
        "--opponents",
        type=whole(1, 3),
        default=3,
        metavar="N",
        help="opponents at the table, 1 to 3 (default 3)",
    )
    st.set_defaults(run=run)


def _common(p: argparse.ArgumentParser, *, default_rules: str) -> None:
    p.add_argument("cards", nargs="*", help="the cards, e.g. As Ah Ad Kc ...")
    add_rules_arguments(p, default=default_rules)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument(
        "--batch",
        action="store_true",
        help="read one deal per line from standard input, write JSON lines",
    )


def _solver(args: argparse.Namespace, rules: Rules) -> Callable[[tuple[Card, ...]], Any]:
    if args.kind == "fantasyland":
        return solver("fantasyland", rules, stay_value=args.stay_value)
    return solver("setting", rules, opponents=args.opponents)


def solver(
    kind: str, rules: Rules, *, stay_value: float | None = None, opponents: int = 3
) -> Callable[[tuple[Card, ...]], Any]:
    """The solver of ``kind`` (fantasyland, setting) for ``rules``, as ``solve`` runs it
    (the study desk's HTTP API too: the same checks, the same one-line errors)."""
    if kind == "fantasyland":
        from chinese_poker.ai.fantasyland import solve_fantasyland

        if not rules.is_open_face:
            raise ValueError(f"Fantasyland needs open-face rules, not {rules.variant!r}")
        return lambda cards: solve_fantasyland(cards, rules, stay_value=stay_value)
    from chinese_poker.ai.setting import solve_setting

    if not rules.is_classic:
        raise ValueError(f"a 13-card setting needs classic rules, not {rules.variant!r}")
    return lambda cards: solve_setting(cards, rules, opponents=opponents)


def run(args: argparse.Namespace) -> int:
    from chinese_poker.ai.warm import compile_notice, stderr_notice

    with compile_notice(stderr_notice):  # the first run on a machine compiles: say so
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    solve = _solver(args, rules)
    if args.batch:
        if args.cards:
            raise ValueError("--batch reads deals from standard input; give no cards")
        from chinese_poker.ai.protocol import bounded_lines

        failures = 0
        for number, (line, whole_line) in enumerate(bounded_lines(sys.stdin, MAX_DEAL), 1):
            if whole_line and not line.strip():
                continue
            try:
                if not whole_line:
                    raise ValueError(f"a deal has at most {MAX_DEAL} characters; skipped")
                out = solve(parse_cards(line)).to_dict()
            except ValueError as exc:
                failures += 1
                out = {"error": f"line {number}: {exc}"}
            print(json.dumps(out), flush=True)
        return 1 if failures else 0
    if not args.cards:
        raise ValueError("give the cards to solve, e.g. 'As Ah Ad Kc Kd ...', or use --batch")
    solution = solve(parse_cards(" ".join(args.cards)))
    if args.json:
        print(json.dumps(solution.to_dict()))
    else:
        print(_render(solution.to_dict()))
    return 0


def _render(d: dict[str, Any]) -> str:
    from chinese_poker.language import t, words_for

    # Words the terminal game's catalogues hold (line names, surrender, ...) come out in
    # the language of the run; the others stay English.
    lines = []
    board = d["board"].split(" | ")
    names = [t(key) for key in ("term.top", "term.middle", "term.bottom")]
    width = max(7, *(len(name) for name in names))
    for name, cards in zip(names, board, strict=True):
        lines.append(f"{name:<{width}} {cards}")
    for key, value in d.items():
        label = words_for(key.replace("_", " ")).capitalize()
        if key == "board" or value is None:
            continue
        if isinstance(value, list):
            lines.append(f"{label}:")
            lines.extend(f"  {_text(item)}" for item in value)
            continue
        lines.append(f"{label}: {_text(value)}")
    return "\n".join(lines)


def _text(value: Any) -> str:
    from chinese_poker.language import words_for

    if isinstance(value, bool):  # before int: people read yes/no, not True/False
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:+.2f}"
    if isinstance(value, dict):
        if "board" in value:  # an alternative setting
            rest = ", ".join(f"{words_for(k)} {_text(v)}" for k, v in value.items() if k != "board")
            return f"{value['board']}  ({rest})"
        return ", ".join(f"{words_for(k)} {_text(v)}" for k, v in value.items())
    return str(value)
