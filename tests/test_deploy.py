"""docs/deploy.md, tested: Debian's nginx with the page's own configuration in front of
two ``chinese-poker serve`` processes on one database.

The nginx block is read from the page (only its ports are changed to free ones), so the
page cannot drift from what works. Through nginx: ``/api/ready`` answers, a table is
opened and joined (a join that reached the other process follows ``moved`` to the
owner's own port), a hand is played over WebSockets with every action acknowledged, the
client's address comes through ``X-Forwarded-For`` (``/api/metrics`` answers only the
machine itself), and when one process stops the site still answers. Needs root (to
install nginx, as the PostgreSQL tests do) or CI.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx2
import pytest

from test_server_leases import Players
from test_server_restart import Server

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "deploy.md"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def nginx_binary() -> str:
    """Debian's nginx, installed if it is missing (root only; else the test skips)."""
    found = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx",) if os.path.exists(p)), None
    )
    if found:
        return found
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("nginx is missing and cannot be installed without root")
        pytest.skip("nginx is missing (installed by this test when run as root)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], env=env, check=False, capture_output=True)
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "nginx-light"],
        env=env,
        check=True,
        capture_output=True,
    )
    return shutil.which("nginx") or "/usr/sbin/nginx"


def page_config() -> str:
    """The nginx block of docs/deploy.md, as the page shows it."""
    blocks = re.findall(r"```nginx\n(.*?)```", PAGE.read_text(), re.S)
    assert len(blocks) == 1, "docs/deploy.md shows one nginx configuration"
    return str(blocks[0])


def with_ports(config: str, site: int, own: list[int], processes: list[int]) -> str:
    """The page's configuration on free loopback ports (nothing else changed)."""
    replaced = config.replace("listen 80;", f"listen 127.0.0.1:{site};")
    for public, process, page_public, page_process in zip(
        own, processes, (8081, 8082), (8001, 8002), strict=True
    ):
        replaced = replaced.replace(f"listen {page_public};", f"listen 127.0.0.1:{public};")
        replaced = replaced.replace(f"127.0.0.1:{page_process};", f"127.0.0.1:{process};")
        replaced = replaced.replace(f"127.0.0.1:{page_process} ", f"127.0.0.1:{process} ")
    assert "8001" not in replaced and "8081" not in replaced and "listen 80;" not in replaced
    return replaced


class Nginx:
    """nginx in the foreground, with the page's site configuration in a temp folder."""

    def __init__(self, binary: str, site_config: str, folder: Path) -> None:
        (folder / "site.conf").write_text(site_config)
        main = f"""
daemon off;
pid {folder}/nginx.pid;
error_log {folder}/error.log;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    include {folder}/site.conf;
}}
"""
        (folder / "nginx.conf").write_text(main)
        self.proc = subprocess.Popen(
            [binary, "-p", str(folder), "-c", str(folder / "nginx.conf")],
            stderr=subprocess.PIPE,
            text=True,
        )
        self.folder = folder

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


def own_ports(processes: list[Server]) -> list[int]:
    """Each process's own port at nginx, from its ``--process-url``."""
    return [int(str(p.proc.args[-1]).rsplit(":", 1)[1]) for p in processes]


def wait_ready(url: str) -> None:
    deadline = time.monotonic() + 20
    while True:
        try:
            if httpx2.get(url + "/api/ready", timeout=2).status_code == 200:
                return
        except httpx2.HTTPError:
            pass
        assert time.monotonic() < deadline, f"{url} never became ready"
        time.sleep(0.1)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, list[Server]]]:
    """Two processes started as docs/deploy.md starts them (the site's URL for invite
    links, each its own port at nginx for ``moved``), then nginx on the page's
    configuration, its ports free ones."""
    binary = nginx_binary()
    site_port, own = free_port(), [free_port(), free_port()]
    site_url = f"http://127.0.0.1:{site_port}"
    database = f"sqlite:///{tmp_path / 'site.db'}"
    processes: list[Server] = []
    nginx: Nginx | None = None
    try:
        for i, public in enumerate(own):
            log = tmp_path / f"serve-{i}.log"
            mine = f"http://127.0.0.1:{public}"
            processes.append(Server(database, log, "--public-url", site_url, "--process-url", mine))
        ports = [int(p.url.rsplit(":", 1)[1]) for p in processes]
        nginx = Nginx(binary, with_ports(page_config(), site_port, own, ports), tmp_path)
        wait_ready(site_url)
        yield site_url, processes
    finally:
        if nginx is not None:
            nginx.stop()
        for process in processes:
            process.stop()


@pytest.mark.slow
def test_a_hand_through_nginx_as_the_page_configures_it(
    site: tuple[str, list[Server]],
) -> None:
    site_url, processes = site
    ready = httpx2.get(site_url + "/api/ready")
    assert ready.status_code == 200 and ready.json() == {"ready": True, "state": "ready"}
    # The client's address comes through: /api/metrics answers only the machine itself.
    assert httpx2.get(site_url + "/api/metrics").status_code == 200
    outside = {"X-Forwarded-For": "203.0.113.9"}
    assert httpx2.get(site_url + "/api/metrics", headers=outside).status_code == 404
    made = httpx2.post(
        site_url + "/api/tables",
        json={
            "preset": "pineapple",
            "next_hand_delay": 30,
            "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human"}],
        },
    ).json()
    tid = made["table"]["id"]
    assert made["invite_url"].startswith(site_url)
    # Joined through the site until the request reaches the owner: a process that does
    # not play the table sends it to the owner's own port at nginx.
    owner_url = site_url
    for _ in range(10):
        r = httpx2.post(
            f"{owner_url}/api/tables/{tid}/join", json={"code": made["join_code"], "name": "Bob"}
        )
        if r.status_code != 409:
            break
        owner_url = r.json()["moved"]["to"]
        assert owner_url in {f"http://127.0.0.1:{port}" for port in own_ports(processes)}
    assert r.status_code == 200, r.text
    players = Players({0: made["token"], 1: r.json()["token"]}, random.Random(3))
    owner = next(p for p in processes if httpx2.get(f"{p.url}/api/tables/{tid}").status_code == 200)
    with ExitStack() as stack:
        # Through nginx, at the owner's own port (where moved sends a browser).
        players.sit(stack, "ws" + str(owner.proc.args[-1])[4:], tid)
        while players.states[0]["view"]["phase"] != "showdown":
            players.play()
    assert len(players.acked) == 10
    # One process stops (it hands its tables over): the site still answers and is ready.
    other = next(p for p in processes if p is not owner)
    other.stop()
    for _ in range(5):
        assert httpx2.get(site_url + "/api/ready").status_code == 200
    owner.stop()
