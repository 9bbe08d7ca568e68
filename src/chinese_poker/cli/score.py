"""``chinese-poker score [FILE|-]``: settle a table of finished boards.

The table is JSON (docs/formats.md): the rules, the players' boards and optional per-pair
unit values. The command prints the itemised breakdown, or with ``--json`` the settlement
as JSON. A JSON list of tables is a session (what the scorekeeper page exports): every hand
is settled in turn and the session's totals and money per player follow. Every problem with
the input is one line on standard error and a non-zero exit.

>>> import json
>>> table = read_table(json.dumps({
...     "rules": "ofc",
...     "players": [
...         {"name": "A", "board": "Ah Qd 4c | Jh Js 9c 9d 2h | 7c 7d 7h 7s Kc"},
...         {"name": "B", "board": "Kd Jc 3h | Th Ts 8c 8d 5s | Qs 9s 6s 4s 3s"},
...     ],
... }))
>>> dict(table.settle().totals)
{'A': 12, 'B': -12}
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chinese_poker.cards import Board, CardError, parse_board, parse_cards
from chinese_poker.cli import add_rules_arguments, read_input, rule_overrides, source_name
from chinese_poker.engine.table import TableError as EngineTableError
from chinese_poker.engine.table import hand_name, validate_player_name
from chinese_poker.rules import Rules, RulesError, rules_from_document
from chinese_poker.scoring import Hand, Settlement, settle

__all__ = ["Table", "TableError", "read_session", "read_table", "register", "run"]

_PLAYER_KEYS = ("name", "board", "boards", "surrender", "fantasyland", "dealt", "declares_natural")
_TABLE_KEYS = ("rules", "options", "players", "units")


class TableError(ValueError):
    """A table file that cannot be read: bad JSON, a missing or wrong key, a bad card."""


@dataclass(frozen=True, slots=True)
class Table:
    """A table read from JSON: the rules, the hands to settle and the per-pair units."""

    rules: Rules
    hands: tuple[Hand, ...]
    units: Mapping[tuple[str, str], float]

    def settle(self) -> Settlement:
        return settle(self.rules, self.hands, units=self.units)


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "score",
        help="settle a table of finished boards (JSON) and show the breakdown",
        description=(
            "Settle a table: read JSON (see docs/formats.md) from FILE or standard input, "
            "print what every point is for, the totals and the money."
        ),
    )
    p.add_argument(
        "file",
        nargs="?",
        default="-",
        metavar="FILE",
        help="table JSON (or a list of tables: a session), - for stdin",
    )
    add_rules_arguments(p, default=None, what="use this preset instead of the file's rules")
    p.add_argument("--json", action="store_true", help="print the settlement as JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    text = read_input(args.file, "table")
    preset, overrides, source = args.rules, rule_overrides(args), source_name(args.file)
    if text.lstrip().startswith("["):
        session = read_session(text, preset=preset, overrides=overrides, source=source)
        return _run_session(session, as_json=args.json)
    result = read_table(text, preset=preset, overrides=overrides, source=source).settle()
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(_breakdown(result))
    return 0


def _breakdown(result: Settlement) -> str:
    """The itemised breakdown in the language of the run: the scorer's own text in
    English, the terminal game's (translated words, the same facts) otherwise."""
    from chinese_poker.language import current_language

    if current_language() == "en":
        return result.render()
    import io

    from rich.console import Console

    from chinese_poker.terminal.render import Theme, settlement_view

    # Money beside the points when a point is not worth one unit (as render() does).
    money = result.rules.unit_value != 1 or any(pair.unit != 1 for pair in result.pairs or ())
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None, highlight=False)
    console.print(settlement_view(result.to_dict(), Theme(), money=money))
    return "\n".join(line.rstrip() for line in out.getvalue().rstrip().splitlines())


def read_session(
    text: str,
    *,
    preset: str | None = None,
    overrides: Mapping[str, Any] | None = None,
    source: str = "the session",
) -> list[Table]:
    """Parse a session: a JSON list of tables, each as :func:`read_table` reads it.

    Errors name the hand (``hand 2: ...``). Every hand must seat the same players.

    >>> hands = read_session(json.dumps([{
    ...     "rules": "ofc",
    ...     "players": [
    ...         {"name": "A", "board": "Ah Qd 4c | Jh Js 9c 9d 2h | 7c 7d 7h 7s Kc"},
    ...         {"name": "B", "board": "Kd Jc 3h | Th Ts 8c 8d 5s | Qs 9s 6s 4s 3s"},
    ...     ]}] * 2))
    >>> session_totals([table.settle() for table in hands])[0]
    {'A': 24, 'B': -24}
    """
    data = _parse_json(text, source)
    if not isinstance(data, list) or not data:
        raise TableError(f"{source} must be a non-empty JSON list of tables")
    tables: list[Table] = []
    for number, entry in enumerate(data, start=1):
        try:
            table = _table_from(entry, preset, overrides or {}, "the table")
        except (TableError, RulesError) as exc:
            raise TableError(f"{source}, hand {number}: {exc}") from None
        owners = sorted({hand.owner for hand in table.hands})
        first = sorted({hand.owner for hand in tables[0].hands}) if tables else owners
        if owners != first:
            raise TableError(
                f"{source}, hand {number}: players {', '.join(owners)} differ from hand 1's "
                f"({', '.join(first)})"
            )
        tables.append(table)
    return tables


def session_totals(
    results: Sequence[Settlement],
) -> tuple[dict[str, int], dict[str, float]]:
    """The session's points and money per player: the sums over its hands."""
    points: dict[str, int] = {}
    money: dict[str, float] = {}
    for result in results:
        for name, value in result.totals.items():
            points[name] = points.get(name, 0) + value
        for name, amount in result.money.items():
            money[name] = money.get(name, 0.0) + amount
    return points, money


def _run_session(tables: Sequence[Table], *, as_json: bool) -> int:
    results = [table.settle() for table in tables]
    points, money = session_totals(results)
    if as_json:
        document = {
            "hands": [result.to_dict() for result in results],
            "totals": points,
            "money": {name: round(amount, 2) for name, amount in money.items()},
        }
        print(json.dumps(document, indent=2, ensure_ascii=False))
        return 0
    for number, result in enumerate(results, start=1):
        print(f"== Hand {number}")
        print(_breakdown(result))
        print()
    count = len(results)
    print(f"== Session: {count} hand{'s' if count != 1 else ''}")
    width = max(len(name) for name in points)
    for name in sorted(points, key=lambda n: -points[n]):
        print(f"{name:<{width}}  {points[name]:+d} points  {money[name]:+.2f} money")
    return 0


def read_table(
    text: str,
    *,
    preset: str | None = None,
    overrides: Mapping[str, Any] | None = None,
    source: str = "the table",
) -> Table:
    """Parse a table JSON document (the ``chinese-poker score`` input, docs/formats.md).

    ``preset`` replaces the document's ``rules``; ``overrides`` are applied after its
    ``options``. Raises :class:`TableError` (or a RulesError) with a one-line message.
    """
    return _table_from(_parse_json(text, source), preset, overrides or {}, source)


def _parse_json(text: str, source: str) -> Any:
    if not text.strip():
        raise TableError(f"{source} is empty: expected a JSON table")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TableError(
            f"{source} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None


def _table_from(data: Any, preset: str | None, overrides: Mapping[str, Any], source: str) -> Table:
    if not isinstance(data, dict):
        raise TableError(f'{source} must be a JSON object with "rules" and "players"')
    unknown = [key for key in data if key not in _TABLE_KEYS]
    if unknown:
        raise TableError(
            f"unknown key {unknown[0]!r} in the table; the keys are {', '.join(_TABLE_KEYS)}"
        )
    rules = _read_rules(data, preset, overrides)
    hands = _read_players(data.get("players"), rules)
    players = list(dict.fromkeys(hand.owner for hand in hands))
    units = _read_units(data.get("units"), players)
    return Table(rules, hands, units)


def _read_rules(data: Mapping[str, Any], preset: str | None, overrides: Mapping[str, Any]) -> Rules:
    if preset is not None:
        return rules_from_document(preset, data.get("options"), **overrides)
    if data.get("rules") is None:
        raise TableError(
            'the table has no "rules": give a preset such as "ofc" or "classic" '
            "in the file, or use --rules PRESET"
        )
    return rules_from_document(data["rules"], data.get("options"), **overrides)


def _flag(entry: Mapping[str, Any], key: str, who: str, count: int) -> list[bool]:
    """A yes/no key of a player: one boolean, or (Criss Cross) one per hand."""
    value = entry.get(key, False)
    values = value if isinstance(value, list) and count == 2 else [value] * count
    if len(values) != count or not all(isinstance(v, bool) for v in values):
        shape = "true/false, or a list of two" if count == 2 else "true or false"
        raise TableError(f'{who}: "{key}" must be {shape}, not {json.dumps(value)}')
    return values


def _read_players(players: object, rules: Rules) -> tuple[Hand, ...]:
    if players is None:
        raise TableError('the table has no "players": give a list of {"name": ..., "board": ...}')
    if not isinstance(players, list) or not players:
        raise TableError('"players" must be a non-empty list of players')
    criss_cross = rules.spec.variant.criss_cross
    hands: list[Hand] = []
    names: set[str] = set()
    for number, entry in enumerate(players, 1):
        if not isinstance(entry, dict):
            raise TableError(f"player {number} must be an object with a name and a board")
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            raise TableError(f'player {number} has no "name" (a non-empty string)')
        try:
            validate_player_name(name)
        except EngineTableError as exc:
            raise TableError(f"player {number}: {exc}") from None
        who = f"player {name!r}"
        if name in names:
            raise TableError(f"two players are called {name!r}")
        names.add(name)
        for key in entry:
            if key not in _PLAYER_KEYS:
                raise TableError(
                    f"{who}: unknown key {key!r}; a player has {', '.join(_PLAYER_KEYS)}"
                )
        count = 2 if criss_cross else 1
        surrender = _flag(entry, "surrender", who, count)
        in_fl = _flag(entry, "fantasyland", who, count)
        declares = _flag({"declares_natural": True, **entry}, "declares_natural", who, count)
        boards = _board_texts(entry, who, criss_cross, surrender)
        dealt = _dealt(entry, who, count)
        for index in range(count):
            seat = hand_name(name, index, criss_cross)
            text, dealt_text = boards[index], dealt[index]
            try:
                board = Board() if text is None else parse_board(text)
                cards = None if dealt_text is None else parse_cards(dealt_text)
            except CardError as exc:
                raise TableError(f"{_seat_label(who, index, count)}: {exc}") from None
            hands.append(
                Hand(
                    name=seat,
                    player=name,
                    index=index,
                    board=board,
                    surrender=surrender[index],
                    in_fantasyland=in_fl[index],
                    dealt=cards,
                    declares_natural=declares[index],
                )
            )
    return tuple(hands)


def _seat_label(who: str, index: int, count: int) -> str:
    return f"{who}, hand {index + 1}" if count == 2 else who


def _board_texts(
    entry: Mapping[str, Any], who: str, criss_cross: bool, surrender: Sequence[bool]
) -> list[str | None]:
    if criss_cross:
        if "board" in entry:
            raise TableError(f'{who}: Criss Cross players give "boards": [hand 1, hand 2]')
        boards = entry.get("boards")
        if boards is None and all(surrender):
            return [None, None]
        if not isinstance(boards, list) or len(boards) != 2:
            raise TableError(f'{who}: "boards" must be a list of two boards (Criss Cross)')
        out: list[str | None] = []
        for i, text in enumerate(boards):
            if text is None and surrender[i]:
                out.append(None)
            elif isinstance(text, str):
                out.append(text)
            else:
                raise TableError(
                    f"{who}, hand {i + 1}: a board is a string 'top | middle | bottom'"
                )
        return out
    if "boards" in entry:
        raise TableError(f'{who}: only Criss Cross players give "boards"; use "board"')
    text = entry.get("board")
    if text is None:
        if surrender[0]:
            return [None]  # a surrendered board need not be shown
        raise TableError(f'{who} has no "board" (a string "top | middle | bottom")')
    if not isinstance(text, str):
        raise TableError(f'{who}: "board" must be a string "top | middle | bottom"')
    return [text]


def _dealt(entry: Mapping[str, Any], who: str, count: int) -> list[str | None]:
    value = entry.get("dealt")
    if value is None:
        return [None] * count
    values = value if count == 2 else [value]
    if (
        not isinstance(values, list)
        or len(values) != count
        or not all(isinstance(v, str) for v in values)
    ):
        shape = "a list of two card strings" if count == 2 else "a string of cards"
        raise TableError(f'{who}: "dealt" must be {shape}')
    return list(values)


def _read_units(units: object, players: Sequence[str]) -> dict[tuple[str, str], float]:
    if units is None:
        return {}
    if not isinstance(units, dict):
        raise TableError('"units" must be an object such as {"A-B": 100}')
    out: dict[tuple[str, str], float] = {}
    for key, value in units.items():
        pair = _split_pair(key, players)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise TableError(f"units: the value for {key!r} must be a number >= 0")
        out[pair] = float(value)
    return out


def _split_pair(key: str, players: Sequence[str]) -> tuple[str, str]:
    """``"A-B"`` to ``("A", "B")``; names may themselves contain ``-``."""
    known = set(players)
    for i, char in enumerate(key):
        if char == "-" and key[:i] in known and key[i + 1 :] in known:
            if key[:i] == key[i + 1 :]:
                break
            return key[:i], key[i + 1 :]
    raise TableError(
        f"units: {key!r} must name two different players joined by '-', e.g. "
        f"'{players[0]}-{players[-1]}' (players: {', '.join(players)})"
    )
