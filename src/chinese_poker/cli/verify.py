"""``chinese-poker verify HISTORY``: check the fair-shuffle commitments of a hand history.

For every line: the revealed seed and salt must hash to the commitment published before
the hand, the recorded deck must be the engine's shuffle of that seed, and replaying the
recorded actions on that deck must give exactly the recorded boards, discards and totals
(see ``chinese_poker.server.fairness``). Prints OK or the failure per hand; the exit
status is 1 if any hand fails (2 for an unreadable file).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from chinese_poker.cli import plural, read_history_input


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "verify",
        help="verify the fair-shuffle commitments and deals of a server hand history",
        description=(
            "Recompute each hand's deal from its revealed seed, confirm the commitment"
            " published before the hand, and check that the dealt cards match."
        ),
    )
    p.add_argument("history", help="a hand-history file (JSON lines) downloaded from a server,"
                   " - for standard input")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from chinese_poker.server.fairness import verify_records

    checks = verify_records(read_history_input(args.history))
    ok = all(c.ok for c in checks)
    if args.json:
        print(json.dumps({"file": args.history, "ok": ok, "hands": [c.to_dict() for c in checks]}))
        return 0 if ok else 1
    for c in checks:
        label = f"line {c.index}"
        if c.hand is not None:
            label += f" (table {c.table}, hand {c.hand})"
        print(f"{label}: OK" if c.ok else f"{label}: FAILED: {c.problem}")
    failed = sum(1 for c in checks if not c.ok)
    if failed:
        print(f"{failed} of {plural(len(checks), 'hand')} FAILED verification")
        return 1
    print(f"{plural(len(checks), 'hand')} verified: commitments, decks and dealt cards match")
    return 0
