"""``chinese-poker replay FILE``: replay a hand-history file and check every hand."""

from __future__ import annotations

import argparse
import json
from typing import Any

from chinese_poker.cli import plural, read_history_input
from chinese_poker.engine.history import replay_history


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "replay",
        help="replay a hand-history file and check boards, scores and ledger",
        description=(
            "Replay every hand of a hand-history file (JSON lines, docs/hand-history.md)"
            " and check that it reproduces the recorded boards, scores and ledger."
        ),
    )
    p.add_argument("file", help="the hand-history file, - for standard input")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(run=run)


def _signed(points: int) -> str:
    return f"+{points}" if points > 0 else str(points)


def run(args: argparse.Namespace) -> int:
    hands = replay_history(read_history_input(args.file))
    if args.json:
        out = {
            "file": args.file,
            "ok": True,
            "hands": [
                {
                    "index": h.index,
                    "session_hand": h.session_hand,
                    "players": list(h.players),
                    "boards": h.boards,
                    "totals": h.totals,
                    "ledger": h.ledger,
                }
                for h in hands
            ],
        }
        print(json.dumps(out))
        return 0
    for h in hands:
        label = f"hand {h.index}"
        if h.session_hand is not None:
            label += f" (session hand {h.session_hand})"
        totals = ", ".join(f"{name} {_signed(points)}" for name, points in h.totals.items())
        print(f"{label}: {totals}")
        for name, board in h.boards.items():
            print(f"  {name:>12}: {board}")
    last = hands[-1].ledger
    if last is not None:
        points = ", ".join(f"{n} {_signed(p)}" for n, p in last["points"].items())
        print(f"ledger after the last hand: {points}")
        if "stacks" in last:
            print("stacks: " + ", ".join(f"{n} {c}" for n, c in last["stacks"].items()))
    print(f"{plural(len(hands), 'hand')} replayed: boards, scores and ledger match the history")
    return 0
