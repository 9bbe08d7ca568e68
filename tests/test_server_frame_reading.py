"""A play socket's frame read by the quick way (transport's ``whole_text``: one whole,
masked, final text frame in one piece of data) gives its reader exactly what
websockets' own parser gives, and everything else is left to websockets: split and
fragmented frames, binary and control frames, bad UTF-8, unmasked frames (issue 38
item 5)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from websockets.frames import Close, Frame, Opcode

from chinese_poker.server.transport import READ_TEXT
from test_server_direct_write import PausingTransport, upgraded

pytest.importorskip("httptools")


def frame(opcode: Opcode, data: bytes, *, fin: bool = True, mask: bool = True) -> bytes:
    return Frame(opcode, data, fin=fin).serialize(mask=mask, extensions=[])


def text(message: str) -> bytes:
    return frame(Opcode.TEXT, message.encode())


def read(pieces: list[bytes], quick: bool) -> dict[str, Any]:
    """``pieces`` arriving one after another at a socket read directly: what its reader
    was given, what the ASGI receive got, what the server wrote back, and how many
    messages took the quick way (``quick`` False: none may)."""
    seen: list[str | None] = []
    received: list[Any] = []

    def reader(message: str | None) -> float | None:
        seen.append(message)
        return 0.0

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        scope[READ_TEXT](reader)
        while (message := await receive())["type"] != "websocket.disconnect":
            received.append(message)

    async def go() -> dict[str, Any]:
        transport = PausingTransport()
        socket = await upgraded(app, transport)
        start = len(transport.written)
        taken: list[str] = []
        whole_text = socket.whole_text

        def counted(data: bytes) -> str | None:
            message = whole_text(data) if quick else None
            if message is not None:
                taken.append(message)
            return message

        socket.whole_text = counted
        for piece in pieces:
            socket.data_received(piece)
            for _ in range(3):
                await asyncio.sleep(0)
        written = b"".join(transport.written[start:])
        socket.connection_lost(None)
        for _ in range(5):
            await asyncio.sleep(0)
        return {
            "seen": seen,
            "received": [m.get("text", m.get("bytes")) for m in received],
            "written": written,
            "quick": taken,
        }

    return asyncio.run(go())


MOVE = '{"type":"action","id":3,"action":{"type":"place","version":12,"top":["Kd"]}}'
LONG = '{"type":"chat","text":"' + "é" * 300 + '"}'
CASES: dict[str, tuple[list[bytes], int]] = {
    # name: the pieces of data, and how many messages may take the quick way
    "one move": ([text(MOVE)], 1),
    "moves one by one": ([text(MOVE), text("b"), text("")], 3),
    "a long message (16-bit length)": ([text(LONG)], 1),
    "two frames in one piece": ([text("a") + text("b")], 0),
    "a frame split in two": ([text(MOVE)[:5], text(MOVE)[5:]], 0),
    "a frame split in its header": ([text(MOVE)[:1], text(MOVE)[1:], text("c")], 1),
    "a binary frame": ([frame(Opcode.BINARY, b"\x00"), text("c")], 1),
    "a fragmented message": (
        [frame(Opcode.TEXT, b"ab", fin=False), text("x"), frame(Opcode.CONT, b"cd")],
        0,
    ),
    "a fragmented message, then a move": (
        [frame(Opcode.TEXT, b"ab", fin=False), frame(Opcode.CONT, b"cd"), text(MOVE)],
        1,
    ),
    "a ping between moves": ([text("a"), frame(Opcode.PING, b"p"), text("b")], 2),
    "bad UTF-8": ([frame(Opcode.TEXT, b"\xff\xfe"), text("after")], 0),
    "an unmasked frame": ([frame(Opcode.TEXT, b"plain", mask=False), text("after")], 0),
    "a close, then a move": ([frame(Opcode.CLOSE, Close(1000, "bye").serialize()), text("x")], 0),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_quick_way_reads_as_websockets_does(name: str) -> None:
    pieces, quick = CASES[name]
    mine, theirs = read(pieces, quick=True), read(pieces, quick=False)
    assert theirs["quick"] == []
    assert mine["seen"] == theirs["seen"]
    assert mine["received"] == theirs["received"]
    assert mine["written"] == theirs["written"]  # the same closes, pongs (or nothing)
    assert len(mine["quick"]) == quick


def test_a_move_is_read_the_quick_way_and_whole() -> None:
    got = read([text(MOVE), text(LONG)], quick=True)
    assert got["seen"] == [MOVE, LONG] == got["quick"]
