"""The README's first command, followed as a newcomer would: a fresh virtual environment,
the package installed into it from this checkout, the server started with its embedded
SQLite database, the lobby fetched, the server stopped."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

# Slow (left out by `bash scripts/test --quick`): a fresh venv installed from this
# checkout, and scripts/serve as a newcomer runs it.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
INSTALL_TIMEOUT = 600.0  # a first install downloads numpy, numba, FastAPI, ...


def readme_commands() -> list[str]:
    """The lines of the README's first code block (the quick start)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert block, "README.md has no ```bash block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def base_python() -> str:
    """The interpreter this venv was made from: scripts/serve must make its own venv."""
    return getattr(sys, "_base_executable", sys.executable)


def externally_managed_python() -> str | None:
    """Debian/Ubuntu's own python3 (PEP 668: it refuses `pip install`), if this machine has
    one new enough: the newcomer's case the README's first command must survive."""
    probe = (
        "import os, sys, sysconfig; sys.exit(not (sys.version_info >= (3, 11) and os.path.exists("
        "os.path.join(sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED'))))"
    )
    for candidate in ("/usr/bin/python3",):
        if Path(candidate).exists() and subprocess.run([candidate, "-c", probe]).returncode == 0:
            return candidate
    return None


def clean_env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")
    }
    venv_bin = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != venv_bin)
    env["XDG_DATA_HOME"] = str(tmp / "data")  # the default SQLite file lands here
    env["PIP_NO_INPUT"] = "1"
    env.update(extra)
    return env


class Server:
    """A command started in its own process group, its output collected by a thread."""

    def __init__(self, command: str, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            ["bash", "-c", command],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def output(self) -> str:
        return "\n".join(line for line in self.lines if not line.startswith("WARNING: Location"))

    def wait_for_address(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                found = re.search(r"open (http://\S+)", line)
                if found:
                    return found.group(1)
            if self.proc.poll() is not None:
                self.reader.join(5)
                pytest.fail(f"the server exited ({self.proc.returncode}):\n{self.output()}")
            time.sleep(0.2)
        pytest.fail(f"no address printed within {timeout:.0f} s:\n{self.output()}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.reader.join(5)


def fetch(url: str, wait: float = 60.0) -> tuple[int, str]:
    """GET, waiting for the listener: the address is printed before migrations run."""
    deadline = time.monotonic() + wait
    while True:
        try:
            with urllib.request.urlopen(url, timeout=30) as reply:
                return reply.status, reply.read().decode("utf-8")
        except urllib.error.URLError as exc:
            if not isinstance(exc.reason, ConnectionRefusedError) or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@pytest.fixture
def started() -> Iterator[list[Server]]:
    servers: list[Server] = []
    yield servers
    for server in servers:
        server.stop()


def test_quick_start_is_the_serve_script_then_the_tests() -> None:
    assert readme_commands() == ["bash scripts/serve", "bash scripts/test"]


@pytest.mark.slow
def test_first_command_installs_into_a_fresh_venv_and_serves_the_lobby(
    tmp_path: Path, started: list[Server]
) -> None:
    command = readme_commands()[0]
    venv = tmp_path / "venv"
    python = externally_managed_python()
    if python is not None:  # what the old `pip install .` met on this machine
        refused = subprocess.run(
            [python, "-m", "pip", "install", "--dry-run", "--no-deps", "."],
            cwd=ROOT, env=clean_env(tmp_path), capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert refused.returncode != 0
        assert "externally-managed-environment" in refused.stderr or "No module named pip" in (
            refused.stderr
        )
    env = clean_env(tmp_path, CHINESE_POKER_VENV=str(venv), PYTHON=python or base_python())
    server = Server(f"{command} --port 0", env)
    started.append(server)
    url = server.wait_for_address(INSTALL_TIMEOUT)
    assert "installing chinese-poker" in server.output()
    # The package really is in the new venv (not borrowed from the one running the tests).
    assert (venv / "bin" / "chinese-poker").exists()
    assert "sqlite:///" + str(tmp_path / "data") in server.output()

    status, page = fetch(url)
    assert status == 200
    assert "<title>Chinese poker</title>" in page and 'src="/static/app.js"' in page
    status, script = fetch(url + "static/app.js")
    assert status == 200 and 'from "./js/table.js"' in script
    status, script = fetch(url + "static/js/table.js")  # the installed package ships js/
    assert status == 200 and 'from "./tablesocket.js"' in script
    status, script = fetch(url + "static/js/tablesocket.js")
    assert status == 200 and "WebSocket" in script
    status, body = fetch(url + "api/presets")
    assert status == 200 and "pineapple" in {p["name"] for p in json.loads(body)}
    status, body = fetch(url + "api/tables")
    assert status == 200 and json.loads(body) == []
    server.stop()
    assert (tmp_path / "data" / "chinese-poker" / "chinese-poker.db").is_file()

    # The second run uses the environment as it is: no install, straight to the server.
    again = Server(f"{command} --port 0", env)
    started.append(again)
    url = again.wait_for_address(120)
    assert fetch(url)[0] == 200
    assert "installing" not in again.output()


def test_missing_venv_module_is_one_clear_line(tmp_path: Path) -> None:
    # Debian's python3 without python3-venv: `import ensurepip` fails.
    fake = tmp_path / "fake"
    (fake / "ensurepip").mkdir(parents=True)
    (fake / "ensurepip" / "__init__.py").write_text("raise ImportError('no ensurepip')\n")
    python = tmp_path / "python3"
    python.write_text(f'#!/bin/sh\nPYTHONPATH={fake} exec {base_python()} "$@"\n')
    python.chmod(0o755)
    venv = tmp_path / "venv"
    env = clean_env(tmp_path, CHINESE_POKER_VENV=str(venv), PYTHON=str(python))
    done = subprocess.run(
        ["bash", "scripts/serve"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "scripts/serve: Python's venv module is missing; install it with:"
        " sudo apt install python3-venv"
    ]
    assert not venv.exists()


def test_too_old_python_is_one_clear_line(tmp_path: Path) -> None:
    python = tmp_path / "python3"
    python.write_text(
        '#!/bin/sh\ncase "$*" in *version_info*) exit 1;; *python_version*) echo 3.9.2;; esac\n'
    )
    python.chmod(0o755)
    env = clean_env(tmp_path, CHINESE_POKER_VENV=str(tmp_path / "venv"), PYTHON=str(python))
    done = subprocess.run(
        ["bash", "scripts/serve"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"scripts/serve: chinese-poker needs Python 3.11 or newer, {python} is 3.9.2"
    )


# The README's command table: each command runs as written, with its placeholders filled
# in by files of examples/ and its [optional] parts left out.
PLACEHOLDERS = {
    "TABLE.json": "examples/pineapple-heads-up.json",
    "VIEW.json": "examples/pineapple-view.json",
    "HISTORY.jsonl": "{history}",
}
CARDS = {
    "fantasyland": "Ah Ad Kc Ks Qs Js Ts 9d 8d 7c 6c 5h 4h 2d",
    "setting": "As Ah Ad Kc Kd 9h 8h 7h 5h 3c Js Ts 2d",
}
TABLE_SKIP = {
    "serve": "runs until stopped: the test above serves the lobby",
    "play": "interactive: tests/test_terminal.py plays it",
    "verify": "needs a history written by the server: tests/test_fairness.py verifies one",
}


def table_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"^\| `(chinese-poker [^`]+)` \|", text, re.M)


def filled(command: str, history: Path) -> str:
    command = re.sub(r"\s*\[[^\]]*\]", "", command)
    for name, value in PLACEHOLDERS.items():
        command = command.replace(name, value.format(history=history))
    words = command.split()
    if "CARDS" in words:
        command = command.replace("CARDS", CARDS[words[2]])
    assert not re.search(r"\b[A-Z]{3,}\b", command), f"unfilled placeholder in {command!r}"
    return command


def test_command_table_covers_every_subcommand() -> None:
    from chinese_poker.cli import build_parser

    parser = build_parser()
    choices = next(a for a in parser._actions if a.dest == "command").choices
    listed = {command.split()[1] for command in table_commands()}
    assert listed == set(choices)


@pytest.mark.parametrize("command", table_commands())
def test_command_table_runs(command: str, tmp_path: Path) -> None:
    name = command.split()[1]
    if name in TABLE_SKIP:
        pytest.skip(TABLE_SKIP[name])
    history = tmp_path / "history.jsonl"
    exe = Path(sys.executable).parent / "chinese-poker"
    env = {**os.environ, "PATH": os.pathsep.join([str(exe.parent), os.environ.get("PATH", "")])}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    if name == "replay":  # a history to replay, written by a short simulation
        subprocess.run(
            ["chinese-poker", "simulate", "--hands", "4", "--seed", "3", "--quiet",
             "--history", str(history)],
            cwd=ROOT, env=env, check=True, capture_output=True, timeout=120,
        )  # fmt: skip
    done = subprocess.run(
        filled(command, history),
        shell=True,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,  # `bot` serves stdin: at its end it stops
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{command}: {done.stderr[-2000:]}"
    assert done.stdout.strip() or name == "bot"
