"""The game server: FastAPI + WebSockets on top of the engine (``chinese-poker serve``).

* :mod:`.app` -- the FastAPI application factory :func:`create_app` (REST lobby, ledger,
  hand histories, the WebSocket endpoint);
* :mod:`.tables` -- live tables: engine sessions, seats and tokens, bots, decision timers,
  broadcasting each seat its own view;
* :mod:`.db` -- SQLAlchemy models and the store, with the Alembic migrations of
  :mod:`.migrations` run at startup;
* :mod:`.fairness` -- commit-reveal shuffles.

The protocol is described in ``docs/server-protocol.md`` and the design in
``docs/server.md``. Importing this package imports nothing heavy; import
:func:`chinese_poker.server.app.create_app` to build the application.
"""

from __future__ import annotations

__all__ = ["PROTOCOL_VERSION"]

PROTOCOL_VERSION = 1
"""The version of the wire protocol (``docs/server-protocol.md``)."""
