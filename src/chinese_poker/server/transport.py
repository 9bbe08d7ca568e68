"""uvicorn's HTTP protocol, without the reference cycle a WebSocket upgrade leaves.

uvicorn's ``httptools`` protocol and its parser refer to each other (the parser calls
the protocol's bound methods). A plain HTTP connection breaks that cycle when it is
lost; a connection upgraded to a WebSocket never is (the socket is handed to the
WebSocket protocol), so each upgrade leaves the old protocol, its parser, flow control
and transport as cyclic garbage. Under the GC pacer (:class:`~chinese_poker.server.
scheduling.GcPacer`) that garbage is frozen while the socket is open and waits for the
next full collection: measured as ~25 objects per WebSocket ever opened, most of what
grew a server's memory from one 200-table run to the next (issue 9). The subclass drops
the parser once the upgrade is done, so reference counting frees the old protocol.
"""

from __future__ import annotations

from typing import Any

__all__ = ["http_protocol"]


def http_protocol() -> Any:
    """The ``http`` setting for :class:`uvicorn.Config`: the cycle-free subclass of
    uvicorn's ``httptools`` protocol, or ``"auto"`` where httptools is not installed
    (uvicorn's pure-Python ``h11`` protocol keeps no such cycle)."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # pragma: no cover - depends on the installation
        return "auto"

    class UpgradeFreesHttpProtocol(HttpToolsProtocol):
        def handle_websocket_upgrade(self) -> None:
            super().handle_websocket_upgrade()
            # Nothing reads the parser after the hand-over (data_received returns
            # straight after this call); without it the protocol is acyclic.
            self.parser = None  # type: ignore[assignment]

    return UpgradeFreesHttpProtocol
