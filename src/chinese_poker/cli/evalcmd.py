"""``chinese-poker eval CARDS``: name and rank a single line."""

from __future__ import annotations

import argparse
import json
from typing import Any, cast

from chinese_poker.cards import cards_str, parse_cards
from chinese_poker.cli import add_rules_arguments, rules_from_args
from chinese_poker.evaluate import (
    Category,
    WheelRank,
    category,
    describe,
    evaluate,
    evaluate_low27,
)
from chinese_poker.language import hand_name


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "eval",
        help="name and rank a single 3- or 5-card line",
        description="Name and rank a line, e.g. chinese-poker eval 'Ah Ad Kc'. The rules "
        "decide how a wheel (A-2-3-4-5) ranks: chinese-poker eval --rules classic-wheel "
        "Ah 2d 3c 4s 5h.",
    )
    p.add_argument("cards", nargs="+", help="the cards, e.g. Ah Kd Qs Jc Ts")
    add_rules_arguments(p, default="classic", what="the rules whose wheel_rank applies")
    p.add_argument(
        "--wheel",
        choices=["lowest", "second_highest"],
        default=None,
        help="where A-2-3-4-5 ranks: lowest straight, or just below A-K-Q-J-T "
        "(the same as --set wheel_rank=...; default: the rules' wheel_rank)",
    )
    p.add_argument("--low", action="store_true", help="rank as a deuce-to-seven low middle")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rules = rules_from_args(args, **({"wheel_rank": args.wheel} if args.wheel else {}))
    cards = parse_cards(" ".join(args.cards))
    if len(cards) not in (3, 5):
        raise ValueError(f"a line has 3 or 5 cards, got {len(cards)} ({cards_str(cards)})")
    if args.low:
        if len(cards) != 5:
            raise ValueError("a low middle has 5 cards")
        value = evaluate_low27(cards)
        high = evaluate(cards)
        name = f"{describe(high)} (deuce-to-seven low)"
        shown = f"{hand_name(high)} (deuce-to-seven low)"  # in the language of the run
        cat = Category(category(high)).label
    else:
        value = evaluate(cards, wheel=cast("WheelRank", rules.wheel_rank))
        name = describe(value)
        shown = hand_name(value)
        cat = Category(category(value)).label
    out: dict[str, Any] = {"cards": cards_str(cards), "name": name, "category": cat, "value": value}
    if args.json:  # data for programs: in English whatever the language
        print(json.dumps(out))
    else:
        print(f"{out['cards']}: {shown} [{cat}, value {value}]")
    return 0
