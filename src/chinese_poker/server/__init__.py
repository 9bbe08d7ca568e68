"""The game server: FastAPI + WebSockets on top of the engine (``chinese-poker serve``).

* :mod:`.app` -- the FastAPI application factory :func:`create_app` (REST lobby, ledger,
  hand histories, the WebSocket endpoint);
* :mod:`.tables` -- live tables and their manager, wiring the pieces below;
* :mod:`.messages` -- requests, client messages and error codes;
* :mod:`.game` -- the table as a pure object (chairs, session, the chair <-> seat map);
* :mod:`.commit` -- the group commit (nothing is shown before it is stored);
* :mod:`.scheduling` -- timers and the worker pools for bots and hints;
* :mod:`.connections` -- sockets' send queues and the per-seat view cache;
* :mod:`.guard` -- rate limits, the body limit, the WebSocket origin check;
* :mod:`.defaults` -- the protective limits' defaults, which ``serve --help`` states;
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
