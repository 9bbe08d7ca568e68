"""What every part of a live table shares: a weak way back to its :class:`.tables.LiveTable`.

A part holds its table weakly, so that a table and its parts form no reference cycle: a
table the server drops is freed at once by reference counting, not left to the garbage
collector, which the server runs rarely and which freezes what survives
(:class:`.scheduling.GcPacer`): under load that would keep every finished table's parts.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chinese_poker.server.tables import LiveTable

__all__ = ["TablePart"]


class TablePart:
    """A part of one live table (its flow, ownership, bots, clocks, presence, dispatch)."""

    def __init__(self, live: LiveTable) -> None:
        self._live = weakref.ref(live)

    @property
    def live(self) -> LiveTable:
        live = self._live()
        assert live is not None, "a part outlived its table"
        return live
