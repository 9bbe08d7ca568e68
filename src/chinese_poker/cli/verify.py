"""``chinese-poker verify HISTORY``: check the fair shuffles of a server's hand history.

For every line: the revealed seed and salt must hash to the commitment published before
the hand (which also covers the rules), the contributions must be one per player (bots'
values fixed by the commitment), the recorded deck must be the shuffle of the deal seed,
and replaying every action under the recorded rules must reproduce every recorded field
(boards, totals, settlement, money; for a session from its hand 1, the ledger too). A
hand of a bot match the server ran has no commitment (both seatings of a deal get the
same cards): its seed must be its session's seed for the hand, as ``simulate`` deals,
and it is replayed. See
``docs/fairness.md`` and ``chinese_poker.server.fairness``. Prints OK or the failure per
hand; the exit status is 1 if any hand fails (2 for an unreadable file).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from chinese_poker.cli import plural, read_history_input

MATCH_WORDS = (
    "a bot match the server ran: no commitment, as both seatings of a deal get the same"
    " cards; dealt from its session's public seed as `chinese-poker simulate` deals,"
    " checked by replay"
)
"""What a bot match's hand is said to be instead of a commitment's check."""


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "verify",
        help="verify the fair-shuffle commitments and deals of a server hand history",
        description=(
            "Recompute each hand's deal from its revealed seed and the players'"
            " contributions, confirm the commitment published before the hand, and replay"
            " every action under the recorded rules (docs/fairness.md)."
        ),
    )
    p.add_argument(
        "history",
        help="a hand-history file (JSON lines) downloaded from a server, - for standard input",
    )
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from chinese_poker.server.fairness import MATCH_DEAL, verify_records

    checks = verify_records(read_history_input(args.history))
    ok = all(c.ok for c in checks)
    if args.json:
        print(json.dumps({"file": args.history, "ok": ok, "hands": [c.to_dict() for c in checks]}))
        return 0 if ok else 1
    for c in checks:
        label = f"line {c.index}"
        match = c.scheme == MATCH_DEAL
        if c.hand is not None:
            label += f" ({'bot match' if match else 'table'} {c.table}, hand {c.hand})"
        notes = []
        if c.ok and match:
            notes.append(MATCH_WORDS)
        if c.ok and not c.ledger_checked:
            notes.append(
                "its session's earlier hands are not in the file: the ledger is not checked"
            )
        if not c.ok:
            print(f"{label}: FAILED: {c.problem}")
        else:
            print(f"{label}: OK" + "".join(f" ({n})" for n in notes))
    failed = sum(1 for c in checks if not c.ok)
    if failed:
        print(f"{failed} of {plural(len(checks), 'hand')} FAILED verification")
        return 1
    print(f"{plural(len(checks), 'hand')} verified: commitments, decks, actions and results match")
    return 0
