"""A table as the protocol describes it: ``TableInfo``, ``SeatInfo``, ``LedgerInfo`` and
``HandInfo`` records (docs/server-protocol.md), of a table in memory (its
:class:`~.game.TableGame`) or of one described from its stored rows alone.
"""

from __future__ import annotations

import time
from typing import Any

from chinese_poker.server.db import TableSummary
from chinese_poker.server.game import TableGame, shared_rules

__all__ = [
    "hands_record",
    "iso",
    "ledger_record",
    "seats_record",
    "summary_record",
    "table_record",
]


def seats_record(game: TableGame) -> list[dict[str, Any]]:
    """Each chair as the protocol shows it (``SeatInfo``, without ``stand_in``)."""
    return [
        {
            "seat": c.seat,
            "kind": c.kind,
            "name": c.name,
            "bot": c.bot,
            "level": c.level,
            "taken": c.taken,
            "connected": c.kind == "bot" or c.connected > 0,
        }
        for c in game.chairs
    ]


def table_record(game: TableGame, spectators_connected: int) -> dict[str, Any]:
    """The ``TableInfo`` of the protocol."""
    table = game.table
    spec = game.spec
    return {
        "id": game.id,
        "name": game.name,
        "preset": game.preset,
        "variant": game.rules.variant,
        "options": dict(spec.options),
        "rules": game.rules.to_dict(),
        "status": game.status,
        "mode": spec.mode,
        "session_hands": spec.hands,
        "left": game.left,
        "rematch": game.rematch,
        "time_limit": game.rules.time_limit,
        "hints": spec.hints,
        "spectators": spec.spectators,
        "spectator_chat": spec.spectator_chat,
        "bot_delay": spec.bot_delay,
        "next_hand_delay": spec.next_hand_delay,
        "seats": seats_record(game),
        "hand": game.hand_no,
        "version": table.version if table is not None else 0,
        "hands_played": game.session.hands_played if game.session is not None else 0,
        "session_over": game.session.over if game.session is not None else False,
        "commitment": game.commitment(game.hand_no),
        "next_commitment": game.commitment(game.hand_no + 1),
        "streets": [list(s) for s in game.rules.streets],
        "created_at": iso(game.created_at),
        "spectators_connected": spectators_connected,
    }


def ledger_record(game: TableGame) -> dict[str, Any]:
    """The ``LedgerInfo`` of the protocol."""
    session = game.session
    names = [c.player for c in game.chairs]
    kind = "tournament" if game.spec.mode == "tournament" else "cash"
    if session is None:
        return {
            "table_id": game.id,
            "kind": kind,
            "players": names,
            "hands_played": 0,
            "over": False,
            "points": dict.fromkeys(names, 0),
            "pairs": {},
            "money": dict.fromkeys(names, 0.0),
            "stacks": None,
            "out": [],
            "hands": [],
        }
    ledger = session.ledger.to_dict()
    return {
        "table_id": game.id,
        "kind": kind,
        "players": list(session.players),
        "hands_played": session.hands_played,
        "over": session.over,
        "points": ledger["points"],
        "pairs": ledger["pairs"],
        "money": ledger["money"],
        "stacks": ledger.get("stacks"),
        "out": ledger.get("out", []),
        "hands": [
            {"hand": r.number, "button": r.button, "totals": dict(r.totals)}
            for r in session.results
        ],
    }


def hands_record(game: TableGame) -> list[dict[str, Any]]:
    """The ``HandInfo`` list: commitments, and reveals of finished hands."""
    out = []
    for number in sorted(game.hands):
        h = game.hands[number]
        done = h.record is not None
        out.append(
            {
                "hand": number,
                "commitment": h.commit.commitment,
                "started": h.started_at is not None,
                "finished": done,
                "seed": h.commit.seed if done else None,
                "salt": h.commit.salt if done else None,
                "scheme": h.commit.scheme,
            }
        )
    return out


def summary_record(summary: TableSummary, unavailable: bool) -> dict[str, Any]:
    """The ``TableInfo`` of a table that is not in memory, from its stored rows."""
    config = summary.config
    request = config.get("request", {})
    rules = config.get("rules", {})
    try:
        parsed = shared_rules(rules)
        variant: str = parsed.variant
        time_limit = parsed.time_limit
    except Exception:  # a quarantined table's rules may be what is wrong with it
        variant, time_limit = str(rules.get("variant", "")), None
    return {
        "id": summary.id,
        "name": summary.name,
        "preset": config.get("preset", ""),
        "variant": variant,
        "options": dict(request.get("options", {})),
        "rules": rules,
        "status": "unavailable" if unavailable else summary.status,
        "mode": request.get("mode", "session"),
        "time_limit": time_limit,
        "hints": request.get("hints", True),
        "spectators": request.get("spectators", True),
        "spectator_chat": request.get("spectator_chat", False),
        "bot_delay": request.get("bot_delay", 0.5),
        "next_hand_delay": request.get("next_hand_delay", 3.0),
        "seats": [
            {
                "seat": s.seat,
                "kind": s.kind,
                "name": s.name,
                "bot": s.bot,
                "level": s.level,
                "taken": s.kind == "bot" or s.token_hash is not None,
                "connected": s.kind == "bot",
            }
            for s in summary.seats
        ],
        "hand": summary.hand,
        "version": 0,
        "hands_played": summary.hands_played,
        "session_over": summary.status == "finished",
        "commitment": None,
        "next_commitment": None,
        "created_at": iso(summary.created_at),
        "spectators_connected": 0,
    }


def iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))
