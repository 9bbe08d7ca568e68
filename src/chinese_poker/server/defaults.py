"""The server's protective defaults, in a module that imports nothing of the server's.

``chinese-poker serve --help`` states them without importing the server (FastAPI,
SQLAlchemy), and the server reads the same values, so the help cannot drift from what
the server does.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

__all__ = ["RATE_LIMITS", "SOCKETS_PER_ADDRESS"]

SOCKETS_PER_ADDRESS: Final = 64
"""The WebSockets one client address may hold open at once: a family behind one router
with a few tabs each is far below it; a script opening thousands is refused."""

RATE_LIMITS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "create": "30/minute",
        "join": "60/minute",
        "bad_code": "10/minute",
        "study": "120/minute",
        "read": "600/minute",
    }
)
"""Per client address, in the ``limits`` notation, by kind: tables created, joins (and
seat hand-overs), wrong join codes, study-desk requests and reads of a table."""
