"""A first run never waits on numba's compiler (issue 39): the server's address is shown
once it accepts connections, decisions asked for while the open-face kernels are cold are
answered at once by a cheaper exact method, and the study desk's and the hint's workers
are never restarted cold while a request waits. By construction (a fake cold state), not
by timing."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from chinese_poker.cli import build_parser
from chinese_poker.cli import serve as serve_command


class _Stop(Exception):
    """Raised by the fake ``print`` once the address line was checked."""


def test_the_address_is_printed_only_once_the_server_accepts_connections(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    connected: list[bool] = []

    def fake_print(*values: Any, **_: Any) -> None:
        text = " ".join(str(v) for v in values)
        if "open http://" not in text:
            return
        port = int(text.split("open http://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
        try:
            # At the moment the line is shown, a browser opening it must be let in.
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            connected.append(True)
        except OSError:
            connected.append(False)
        raise _Stop

    monkeypatch.setattr(serve_command, "print", fake_print, raising=False)
    args = build_parser().parse_args(
        ["serve", "--port", "0", "--database-url", f"sqlite:///{tmp_path / 'cp.db'}"]
    )
    with pytest.raises(_Stop):
        serve_command.run(args)
    assert connected == [True]
