"""A `caravan app` home process for the tests (port 0, its own data dir, loopback only: its
lobbies are announced to 127.0.0.1 on a free UDP port unless one is given)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from tests.helpers import free_udp_port, timeout as scaled
from tests.web.conftest import Node


def start_home(tmp_path: Path, name: str = "home", discovery_port: int | None = None) -> tuple[Node, str]:
    """The home process and its URL."""
    extra = ["--discovery-addr", "127.0.0.1", "--discovery-bind", "127.0.0.1",
             "--discovery-port", str(discovery_port or free_udp_port())]
    home = Node(["app", "--no-browser", "--bind", "127.0.0.1", *extra], tmp_path / name, tmp_path / f"{name}.log")
    return home, home.wait_for("web", timeout=60)["url"]


def api(url: str, name: str, body: dict | None = None) -> dict:
    """Call the home's API as its page does (GET, or POST with a JSON body)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + "api/" + name, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=scaled(30)) as response:
        return json.loads(response.read())
