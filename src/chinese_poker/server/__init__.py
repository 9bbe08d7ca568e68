"""The game server: FastAPI + WebSockets on top of the engine (``chinese-poker serve``).

* :mod:`.app` -- the FastAPI application factory :func:`create_app`, which wires the
  routers of :mod:`.pages`, :mod:`.desk`, :mod:`.accounts`, :mod:`.profile_routes`,
  :mod:`.reviews`, :mod:`.meta_routes`, :mod:`.lobby_routes`, :mod:`.results_routes` and
  :mod:`.play_socket` (one module-level router per area);
* :mod:`.holdings` -- what the application holds, as its routes read it (FastAPI
  dependencies); :mod:`.responses` -- the lobby's response models;
* :mod:`.tables` -- live tables and their manager, wiring the pieces below;
* :mod:`.messages` -- requests, client messages and error codes;
* :mod:`.game` -- the table as a pure object (chairs, session, the chair <-> seat map);
* :mod:`.commit` -- the group commit (nothing is shown before it is stored);
* :mod:`.scheduling` -- timers and the worker pools for bots and hints;
* :mod:`.connections` -- sockets' send queues and the per-seat view cache;
* :mod:`.guard` -- rate limits, the body limit, the WebSocket origin check;
* :mod:`.defaults` -- the protective limits' defaults, which ``serve --help`` states;
* :mod:`.db` -- the store, with the Alembic migrations of :mod:`.migrations` run at
  startup; :mod:`.schema` -- its SQLAlchemy models; :mod:`.leases` -- the lease records;
* :mod:`.fairness` -- commit-reveal shuffles.

The protocol is described in ``docs/server-protocol.md`` and the design in
``docs/server.md``. Importing this package imports nothing heavy; import
:func:`chinese_poker.server.app.create_app` to build the application.
"""

from __future__ import annotations

__all__ = ["PROTOCOL_VERSION"]

PROTOCOL_VERSION = 1
"""The version of the wire protocol (``docs/server-protocol.md``)."""
