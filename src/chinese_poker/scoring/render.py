"""The breakdown for people and programs: ``Settlement.to_dict()`` and ``Settlement.render()``."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from chinese_poker.cards import LINE_NAMES
from chinese_poker.rules import Rules, ScoringMethod, describe_differences
from chinese_poker.scoring.lines import FoulReason, cards_text
from chinese_poker.scoring.notes import item_fields, item_text
from chinese_poker.scoring.results import Item, Natural, PairResult, SeatResult, Settlement

__all__ = ["render", "settlement_dict"]


@lru_cache(maxsize=256)
def _described(rules: Rules) -> tuple[tuple[str, Any], ...]:
    # Describing a ruleset builds the variant's defaults: do it once per Rules value.
    return (("variant", str(rules.variant)), *describe_differences(rules).items())


def _rules_dict(rules: Rules) -> dict[str, Any]:
    return dict(_described(rules))


def _natural_dict(natural: Natural | None) -> dict[str, Any] | None:
    if natural is None:
        return None
    return {"kind": str(natural.kind), "value": natural.value}


def _seat_dict(settlement: Settlement, seat: SeatResult) -> dict[str, Any]:
    lines = []
    if len(seat.board):
        for i, name in enumerate(LINE_NAMES):
            lines.append(
                {
                    "line": name,
                    "cards": cards_text(seat.board.lines[i]),
                    "hand": seat.hands[i],
                    "value": seat.values[i],
                    "royalty": seat.royalties[i],
                }
            )
    player_total = settlement.totals[seat.player]
    return {
        "name": seat.name,
        "player": seat.player,
        "index": seat.hand_index,
        "board": str(seat.board) if len(seat.board) else None,
        "lines": lines,
        "royalties": seat.royalty_total,
        "dealt_bonus": list(seat.dealt_bonus),
        "fouled": seat.fouled,
        "foul_reason": seat.foul_reason,
        # The reason as data, so a client words it in its own language (None when the
        # reason is not a FoulReason, e.g. a settlement rebuilt from stored text).
        "foul": seat.foul_reason.as_dict() if isinstance(seat.foul_reason, FoulReason) else None,
        "natural": _natural_dict(seat.natural),
        "surrendered": seat.surrendered,
        "in_fantasyland": seat.in_fantasyland,
        "fantasyland": seat.fantasyland,
        "points": settlement.seat_totals[seat.name],
        "player_points": player_total,
    }


def _item_dict(pair: PairResult, item: Item) -> dict[str, Any]:
    out = item_fields(item)
    out["text"] = item_text(pair, item)
    return out


def settlement_dict(settlement: Settlement) -> dict[str, Any]:
    return {
        "rules": _rules_dict(settlement.rules),
        "totals": dict(settlement.totals),
        "fouled": list(settlement.fouled),
        "fantasyland": dict(settlement.fantasyland),
        "pairs": [
            {
                "a": pair.a,
                "b": pair.b,
                "a_player": pair.a_player,
                "b_player": pair.b_player,
                "points": pair.points,
                "unit": pair.unit,
                "money": pair.money,
                "basis": pair.basis,
                "lines": list(pair.lines) if pair.lines is not None else None,
                "items": [_item_dict(pair, item) for item in pair.items],
            }
            for pair in settlement.pairs
        ],
        "money": dict(settlement.money),
        "seat_totals": dict(settlement.seat_totals),
        "players": [_seat_dict(settlement, seat) for seat in settlement.seats],
    }


def _signed(points: int) -> str:
    return f"{points:+d}" if points else "0"


def _money_text(amount: float) -> str:
    sign = "-" if amount < 0 else "+" if amount > 0 else " "
    text = f"{abs(amount):,.2f}"
    if text.endswith(".00"):
        text = text[:-3]
    return f"{sign}{text}"


def _rules_line(rules: Rules) -> str:
    v, o, s = rules.line_values
    method = str(rules.scoring_method)
    if rules.scoring_method is ScoringMethod.CUSTOM:
        method = f"custom {v}/{o}/{s}"
    extras = {
        k: val
        for k, val in describe_differences(rules).items()
        if k not in ("scoring_method", "scoring_custom", "royalty_table", "royalty_award")
    }
    text = (
        f"Rules: {rules.variant}, scoring {method} (line {v}, overall {o}, scoop bonus {s}; "
        f"scoop value {rules.scoop_value}), royalties {rules.royalty_table} "
        f"({rules.royalty_award})"
    )
    if extras:
        text += "\n       " + ", ".join(f"{k}={_option_text(val)}" for k, val in extras.items())
    return text


def _option_text(value: object) -> str:
    """An option as ``--set`` takes it: ``on``/``off`` for switches, not True/False."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _seat_lines(seat: SeatResult, width: int) -> list[str]:
    """The lines of one seat in the "Boards" part."""
    head = f"  {seat.name:<{width}}  "
    if not len(seat.board):
        return [head + "(surrendered, board not shown)"]
    out = [head + str(seat.board)]
    pad = " " * (width + 4)
    if seat.natural is not None:
        out.append(f"{pad}natural: {seat.natural.label} (worth {seat.natural.value})")
    if seat.surrendered:
        out.append(f"{pad}surrendered")
    for i, name in enumerate(LINE_NAMES):
        roy = seat.royalties[i]
        note = f"royalty {roy}" if roy else ""
        out.append(f"{pad}{name:<7}{seat.hands[i]:<40}{note}".rstrip())
    if seat.dealt_bonus:
        out.append(f"{pad}dealt-combination royalty for: {', '.join(seat.dealt_bonus)}")
    if seat.foul_reason is not None:
        label = "FOULED" if seat.fouled else "mis-set, not penalised"
        if seat.natural is not None or seat.surrendered:
            label = "mis-set, not played"
        out.append(f"{pad}{label}: {seat.foul_reason}")
    if seat.royalty_total:
        out.append(f"{pad}royalties {seat.royalty_total}")
    if seat.fantasyland is not None:
        verb = "stays in" if seat.in_fantasyland else "enters"
        out.append(f"{pad}{verb} Fantasyland: {seat.fantasyland} cards next hand")
    return out


def _pair_lines(pair: PairResult) -> list[str]:
    """The lines of one pair in the "Pairs" part."""
    unit = f" at {_money_text(pair.unit).lstrip('+ ')} a point" if pair.unit != 1 else ""
    if pair.points:
        who = pair.a if pair.points > 0 else pair.b
        head = f"{who} +{abs(pair.points)}"
    else:
        head = "even"
    out = [f"  {pair.a} vs {pair.b}{unit}: {head}"]
    out.extend(f"    {_signed(item.points):>4}  {item_text(pair, item)}" for item in pair.items)
    return out


def render(settlement: Settlement) -> str:
    """A plain-text breakdown: each board, each pair item by item, the totals."""
    out: list[str] = [_rules_line(settlement.rules), ""]
    width = max(len(s.name) for s in settlement.seats)
    out.append("Boards")
    for seat in settlement.seats:
        out.extend(_seat_lines(seat, width))
    out.append("")
    out.append("Pairs (each item: what the second seat pays the first)")
    for pair in settlement.pairs:
        out.extend(_pair_lines(pair))
    out.append("")
    out.append("Totals")
    any_money = any(pair.unit != 1 for pair in settlement.pairs) or settlement.rules.unit_value != 1
    pwidth = max(len(p) for p in settlement.totals)
    for player, points in settlement.totals.items():
        line = f"  {player:<{pwidth}}  {_signed(points):>5}"
        if any_money:
            line += f"   money {_money_text(settlement.money[player])}"
        out.append(line)
    if settlement.fouled:
        out.append(f"Fouled: {', '.join(settlement.fouled)}")
    return "\n".join(out)
