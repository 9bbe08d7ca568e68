"""The learned tables the fast policy can read (their loaders; the trainers that fit them
are :mod:`chinese_poker.ai.residual` and :mod:`chinese_poker.ai.value`): the correction
of a completion's value and the learned value of a partial board, shipped in the
package's data keyed by the fingerprint of the kernel tables they were trained for."""

from __future__ import annotations

import json
from enum import IntEnum
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

from chinese_poker.ai.rollout.features import RES_FEATURES
from chinese_poker.rules import RulesError

__all__ = [
    "CORRECTION_PRESETS",
    "LIVE_PRESETS",
    "SEARCH_PRESETS",
    "VALUE_PRESETS",
    "BoardValue",
    "board_value_table",
    "correction_table",
    "live_value_path",
    "residual_path",
    "search_value_path",
    "shipped_tables",
    "table_with_fingerprint",
    "value_path",
]

F64 = npt.NDArray[np.float64]


class BoardValue(IntEnum):
    """Which learned value of a partial board the policy reads (``Level.value``)."""

    #: None: the policy values a placement by its completions.
    NONE = 0
    #: Fitted by value iteration over the policy's own solitaire boards
    #: (``data/board_value.json``; docs/bots-research.md, *Round twelve*).
    ITERATED = 1
    #: That table refined on the means of ``mc``'s own searches in self-play, head to
    #: head (``data/board_value_search.json``; docs/bots-research.md, *Round fourteen*).
    SEARCH = 2
    #: Value iteration as ``ITERATED``, with features of the live cards
    #: (:data:`LIVE_FEATURES`) and an opponent's streets dealt from the same deck
    #: (``data/board_value_live.json``; docs/bots-research.md, *Round fifteen*).
    LIVE = 3


#: The presets the learned correction is trained and shipped for; any rules with the same
#: kernel arrays (the same fingerprint) share it.
CORRECTION_PRESETS = ("pineapple", "pineapple-progressive")
#: The presets the learned value of a partial board (``BoardValue.ITERATED``) is shipped for.
VALUE_PRESETS = ("pineapple", "pineapple-progressive", "ofc")
#: The presets a table refined on search means (``BoardValue.SEARCH``) is shipped for.
SEARCH_PRESETS = ("pineapple",)
#: The presets a table with the live cards' features (``BoardValue.LIVE``) is shipped for.
LIVE_PRESETS = ("pineapple", "ofc")


def _data_file(name: str) -> str:
    return str(resources.files("chinese_poker") / "data" / name)


def residual_path() -> str:
    """Where the shipped correction tables are kept (in the package's data)."""
    return _data_file("policy_residual.json")


def value_path() -> str:
    """Where the shipped value tables are kept (in the package's data)."""
    return _data_file("board_value.json")


def search_value_path() -> str:
    """Where the shipped tables refined on search means are kept (``BoardValue.SEARCH``)."""
    return _data_file("board_value_search.json")


def live_value_path() -> str:
    """Where the shipped tables with the live cards' features are kept (``BoardValue.LIVE``)."""
    return _data_file("board_value_live.json")


_PATHS = {BoardValue.ITERATED: value_path, BoardValue.SEARCH: search_value_path,
          BoardValue.LIVE: live_value_path}  # fmt: skip
_PRESETS = {BoardValue.ITERATED: VALUE_PRESETS, BoardValue.SEARCH: SEARCH_PRESETS,
            BoardValue.LIVE: LIVE_PRESETS}  # fmt: skip


@lru_cache(maxsize=len(BoardValue))
def shipped_tables(path: str) -> dict[str, Any]:
    """The shipped tables kept at ``path`` (read once per process)."""
    with open(path, encoding="utf-8") as f:
        return dict(json.load(f))


def table_with_fingerprint(data: dict[str, Any], key: str) -> F64 | None:
    """The table (14 x features, read-only) of shipped ``data`` trained for kernel tables
    with fingerprint ``key``; None when there is none."""
    for entry in data["tables"]:
        if entry["fingerprint"] == key:
            width = max((len(row) for row in entry["rows"].values()), default=RES_FEATURES)
            table = np.zeros((14, width), dtype=np.float64)
            for placed, row in entry["rows"].items():
                table[int(placed)] = row
            table.setflags(write=False)
            return table
    return None


def correction_table(key: str) -> F64:
    """The shipped correction table for kernel tables with fingerprint ``key``; a
    RulesError when none was trained for them."""
    table = table_with_fingerprint(shipped_tables(residual_path()), key)
    if table is not None:
        return table
    raise RulesError(
        "the learned policy correction was trained for the presets "
        f"{', '.join(CORRECTION_PRESETS)} only; these rules differ in what the policy values "
        "(use a level without `residual`)"
    )


def board_value_table(key: str, kind: BoardValue) -> F64:
    """The shipped value table of ``kind`` for kernel tables with fingerprint ``key``; a
    RulesError when none was trained for them."""
    if kind == BoardValue.NONE:
        raise ValueError("BoardValue.NONE has no table")
    table = table_with_fingerprint(shipped_tables(_PATHS[kind]()), key)
    if table is not None:
        return table
    raise RulesError(
        f"the learned board value ({kind.name.lower()}) was trained for the presets "
        f"{', '.join(_PRESETS[kind])} only; these rules differ in what the policy values "
        "(use a level with completions, fills >= 1)"
    )
