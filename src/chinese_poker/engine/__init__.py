"""The game engine: one hand (:class:`Table`), sessions and tournaments, views, histories.

>>> import random
>>> from chinese_poker.rules import rules_for
>>> from chinese_poker.engine import Table, Place
>>> table = Table(rules_for("ofc"), ["Ann", "Bob"], button=0, seed=42)
>>> table.to_act                       # Bob (seat 1) is left of the button: he starts
(1,)
>>> view = table.view(1)
>>> len(view.hand), view.decisions[0].kind, view.decisions[0].place
(5, 'street', 5)
>>> c = view.hand
>>> table.apply(Place(1, top=(c[0],), middle=(c[1], c[2]), bottom=(c[3], c[4]),
...                   version=view.version))
>>> table.check(Place(1, version=table.version))
"it is not seat 1's turn (to act: 0)"
>>> rng = random.Random(0)
>>> while not table.over:
...     table.apply(table.random_action(table.to_act[0], rng))
>>> sum(table.totals.values())
0

See ``docs/engine.md`` for the whole API.
"""

from chinese_poker.engine.actions import (
    Action,
    ClaimNatural,
    Decision,
    IllegalActionError,
    Place,
    Surrender,
    Timeout,
    action_from_dict,
)
from chinese_poker.engine.autoplay import timeout_action
from chinese_poker.engine.history import (
    FORMAT_VERSION,
    HistoryError,
    ReplayedHand,
    ReplayMismatch,
    hand_record,
    read_history,
    replay_history,
    write_history,
)
from chinese_poker.engine.session import (
    Agent,
    HandResult,
    Ledger,
    Session,
    SessionError,
    Tournament,
    hand_seed,
    pay_chips,
    play_hand,
    play_session,
)
from chinese_poker.engine.table import (
    HAND_SEPARATOR,
    HandState,
    LegalActions,
    LogEntry,
    Phase,
    Table,
    TableError,
    fantasyland_stays_left,
    hand_name,
    shuffled_deck,
    validate_player_name,
)
from chinese_poker.engine.views import BoardView, View

__all__ = [
    "FORMAT_VERSION",
    "HAND_SEPARATOR",
    "Action",
    "Agent",
    "BoardView",
    "ClaimNatural",
    "Decision",
    "HandResult",
    "HandState",
    "HistoryError",
    "IllegalActionError",
    "Ledger",
    "LegalActions",
    "LogEntry",
    "Phase",
    "Place",
    "ReplayMismatch",
    "ReplayedHand",
    "Session",
    "SessionError",
    "Surrender",
    "Table",
    "TableError",
    "Timeout",
    "Tournament",
    "View",
    "action_from_dict",
    "fantasyland_stays_left",
    "hand_name",
    "hand_record",
    "hand_seed",
    "pay_chips",
    "play_hand",
    "play_session",
    "read_history",
    "replay_history",
    "shuffled_deck",
    "timeout_action",
    "validate_player_name",
    "write_history",
]
