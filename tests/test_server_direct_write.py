"""The play socket's direct writer and reading (server/transport.py, issue 38 item 5):
a state message written straight to the socket is the same bytes websockets' own frame
would be, it is used only while the connection is open, uncompressed and not pushed
back, and it leaves no reference cycle behind once the socket is gone; messages read
directly reach the reader in order, wait when it says so, and go back to the ASGI
receive when it leaves one."""

from __future__ import annotations

import asyncio
import gc
import json
import weakref
from pathlib import Path
from typing import Any

import httpx2
import pytest
from websockets.sync.client import connect

from _helpers import bench_module

pytest.importorskip("httptools")

from uvicorn.config import Config
from uvicorn.server import ServerState
from websockets.frames import Frame, Opcode
from websockets.server import ServerProtocol

from chinese_poker.server.transport import (
    direct_reading,
    direct_writer,
    http_protocol,
    text_frame,
    websocket_protocol,
)
from test_server_transport import UPGRADE, FakeTransport

DEFLATE = UPGRADE.replace(b"\r\n\r\n", b"\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n")


@pytest.mark.parametrize("size", [0, 5, 125, 126, 65535, 65536, 70000])
def test_a_frame_is_websockets_own(size: int) -> None:
    payload = ("é" * size).encode()[:size]
    server = ServerProtocol()
    assert text_frame(payload) == Frame(Opcode.TEXT, payload).serialize(
        mask=False, extensions=server.extensions
    )


async def upgraded(app: Any, transport: FakeTransport, request: bytes = UPGRADE) -> Any:
    """The WebSocket protocol ``serve`` runs ``app`` under, once ``request`` upgraded
    a connection on ``transport`` and the app had its turns."""
    http = http_protocol()
    config = Config(app, http=http, ws=websocket_protocol("auto"), log_level="error")
    config.load()
    protocol = http(config=config, server_state=ServerState(), app_state={})
    protocol.connection_made(transport)
    protocol.data_received(request)
    for _ in range(5):
        await asyncio.sleep(0)
    return transport.protocol


def run_socket(request: bytes, then: Any = None) -> tuple[list[bool], list[bytes], bool]:
    """Open one WebSocket with ``request`` under serve's protocols; the app sends two
    messages through the direct writer (what it said each time); ``then(protocol)`` runs
    between them. Returns what the writer said, the bytes written after the handshake,
    and whether the WebSocket protocol was freed without the collector once lost."""
    said: list[bool] = []
    go_on = asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        writer = direct_writer(scope)
        assert writer is not None
        said.append(writer('{"type":"state"}'))
        await go_on.wait()
        said.append(writer("second"))
        await receive()

    async def go() -> tuple[list[bytes], bool]:
        transport = FakeTransport()
        socket = await upgraded(app, transport, request)
        if then is not None:
            then(socket)
        go_on.set()
        for _ in range(5):
            await asyncio.sleep(0)
        start = next(i for i, w in enumerate(transport.written) if b"101" in w) + 1
        written = transport.written[start:]
        gone = weakref.ref(socket)
        socket.connection_lost(None)
        del socket
        transport.protocol = None
        for _ in range(5):
            await asyncio.sleep(0)
        return written, gone() is None

    gc.collect()
    gc.disable()
    try:
        written, freed = asyncio.run(go())
    finally:
        gc.enable()
    return said, written, freed


def test_an_open_socket_is_written_at_once_and_freed_when_lost() -> None:
    said, written, freed = run_socket(UPGRADE)
    assert said == [True, True]
    assert written == [text_frame(b'{"type":"state"}'), text_frame(b"second")]
    assert freed


def test_a_compressed_socket_is_left_to_websockets() -> None:
    said, written, _freed = run_socket(DEFLATE)
    assert said == [False, False] and written == []


def test_a_socket_pushed_back_or_closing_is_not_written() -> None:
    first = [text_frame(b'{"type":"state"}')]
    said, written, _ = run_socket(UPGRADE, lambda socket: socket.pause_writing())
    assert said == [True, False] and written == first

    def closing(socket: Any) -> None:
        socket.close_sent = True

    said, written, _ = run_socket(UPGRADE, closing)
    assert said == [True, False] and written == first


def test_other_implementations_are_uvicorns_own() -> None:
    assert websocket_protocol("wsproto") == "wsproto"
    assert websocket_protocol("websockets") == "websockets"


def client_frame(text: str | bytes) -> bytes:
    opcode = Opcode.TEXT if isinstance(text, str) else Opcode.BINARY
    data = text.encode() if isinstance(text, str) else text
    return Frame(opcode, data).serialize(mask=True, extensions=[])


def read_socket(frames: list[bytes], answers: list[float | None]) -> dict[str, Any]:
    """One socket read directly: ``frames`` arrive in one piece of data; the reader
    answers each message with the next of ``answers`` (0.0 once it is out). What the
    reader was given, what the ASGI receive got, and how reading was paused."""
    seen: list[str | None] = []
    received: list[Any] = []
    replies = iter(answers)

    def reader(text: str | None) -> float | None:
        seen.append(text)
        return next(replies, 0.0)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        reading = direct_reading(scope)
        assert reading is not None
        reading(reader)
        while True:
            message = await receive()
            received.append(message)
            if message["type"] == "websocket.disconnect":
                return

    async def go() -> dict[str, Any]:
        transport = PausingTransport()
        socket = await upgraded(app, transport)
        socket.data_received(b"".join(frames))
        at_once = list(seen)
        for _ in range(5):
            await asyncio.sleep(0)
        await asyncio.sleep(0.15)
        socket.connection_lost(None)
        for _ in range(5):
            await asyncio.sleep(0)
        return {
            "at_once": at_once,
            "seen": seen,
            "received": [m.get("text", m.get("bytes")) for m in received[:-1]],
            "pauses": transport.pauses,
            "paused": transport.paused,
        }

    return asyncio.run(go())


class PausingTransport(FakeTransport):
    def __init__(self) -> None:
        super().__init__()
        self.pauses = 0
        self.paused = False

    def pause_reading(self) -> None:
        self.pauses += 1
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False


def test_messages_read_directly_reach_the_reader_at_once_in_order() -> None:
    got = read_socket([client_frame("a"), client_frame(b"\x00"), client_frame("c")], [])
    assert got["at_once"] == ["a", None, "c"]  # a binary message is None
    assert got["received"] == [] and got["pauses"] == 0


def test_a_reader_that_waits_is_given_the_message_again_and_reading_pauses() -> None:
    got = read_socket([client_frame("a"), client_frame("b")], [0.0, 0.05])
    assert got["at_once"] == ["a", "b"]
    assert got["seen"] == ["a", "b", "b"]  # after its wait, then it took it
    assert got["pauses"] == 1 and not got["paused"] and got["received"] == []


def test_a_message_left_by_the_reader_goes_to_receive_with_what_follows() -> None:
    got = read_socket([client_frame("a"), client_frame("b"), client_frame("c")], [0.0, None])
    assert got["seen"] == ["a", "b"]
    assert got["received"] == ["b", "c"]  # the ASGI way from then on, in order


@pytest.mark.slow
def test_a_served_seat_reads_and_writes_directly_as_before(tmp_path: Path) -> None:
    """Through ``serve`` itself (the protocols above): a seat's auth, a ping, a message
    the guard refuses (a lone surrogate: bad_json, then the socket reads on) and bad
    ones are answered as they always were, in order."""
    load = bench_module("bench_server_load")
    proc, url = load.start_server(tmp_path / "t.db", tmp_path / "server.log")
    try:
        made = httpx2.post(
            f"{url}/api/tables",
            json={"seats": [{"kind": "human"}, {"kind": "bot", "bot": "rules"}], "bot_delay": 5},
            timeout=30,
        ).json()
        table = made["table"]["id"]
        with connect(f"ws{url[4:]}/ws/tables/{table}?role=seat") as ws:
            ws.send(json.dumps({"type": "auth", "token": made["token"]}))
            ws.send('{"type":"ping","id":1}')
            ws.send('{"type":"ping","id":"x\\ud800"}')
            ws.send('{"type":"nonsense","id":3}')
            ws.send('{"type":"ping","id":4,"extra":1}')
            ws.send('{"type":"ping","id":5}')
            seen = []
            while len(seen) < 5:
                m = json.loads(ws.recv(timeout=30))
                if m["type"] in ("pong", "error"):
                    seen.append((m["type"], m.get("ref"), m.get("code")))
        assert seen == [
            ("pong", 1, None),
            ("error", None, "bad_json"),
            ("error", 3, "unknown_type"),
            ("error", 4, "bad_message"),
            ("pong", 5, None),
        ]
    finally:
        load.stop_server(proc)
