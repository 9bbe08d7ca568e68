"""The HTTP protocol the server runs under uvicorn (server/transport.py): a connection
upgraded to a WebSocket leaves no reference cycle behind (issue 9: under the GC pacer
each upgrade's cycle was frozen alive, most of a server's memory growth between runs)."""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any

import pytest

pytest.importorskip("httptools")

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from chinese_poker.server.transport import http_protocol

UPGRADE = (
    b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


class FakeTransport(asyncio.Transport):
    """What uvicorn's protocols ask of a socket, in memory."""

    def __init__(self) -> None:
        super().__init__()
        self.protocol: Any = None
        self.written: list[bytes] = []
        self.closed = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(
            name, default
        )

    def set_protocol(self, protocol: Any) -> None:
        self.protocol = protocol

    def write(self, data: Any) -> None:
        self.written.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def app(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        await receive()


def upgraded_protocol_is_freed(protocol_class: Any) -> bool:
    """Upgrade one connection with ``protocol_class``; is the HTTP protocol freed by
    reference counting alone (the collector off) once the WebSocket has the socket?"""

    async def run() -> bool:
        config = Config(app, http=protocol_class, ws="auto", log_level="error")
        config.load()
        transport = FakeTransport()
        protocol = protocol_class(config=config, server_state=ServerState(), app_state={})
        protocol.connection_made(transport)
        protocol.data_received(UPGRADE)
        for _ in range(5):  # the WebSocket's ASGI task accepts
            await asyncio.sleep(0)
        assert transport.protocol is not None and transport.protocol is not protocol
        assert any(b"101" in w for w in transport.written), transport.written
        gone = weakref.ref(protocol)
        del protocol
        freed = gone() is None
        transport.protocol.connection_lost(None)
        for _ in range(5):
            await asyncio.sleep(0)
        return freed

    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        return asyncio.run(run())
    finally:
        if enabled:
            gc.enable()


def test_an_upgraded_connection_frees_its_http_protocol_without_the_collector() -> None:
    assert upgraded_protocol_is_freed(http_protocol())


def test_uvicorns_own_protocol_keeps_the_cycle_this_module_breaks() -> None:
    """The reason for the subclass: if uvicorn ever breaks the cycle itself, this fails
    and the subclass can go."""
    assert not upgraded_protocol_is_freed(HttpToolsProtocol)
