"""A `caravan app` home process for the browser tests (port 0, its own data dir, loopback)."""

from __future__ import annotations

from pathlib import Path

from tests.web.conftest import Node


def start_home(tmp_path: Path, name: str = "home", discovery_port: int | None = None) -> tuple[Node, str]:
    """The home process and its URL."""
    extra = ["--discovery-addr", "127.0.0.1", "--discovery-bind", "127.0.0.1",
             "--discovery-port", str(discovery_port)] if discovery_port else []
    home = Node(["app", "--no-browser", "--bind", "127.0.0.1", *extra], tmp_path / name, tmp_path / f"{name}.log")
    return home, home.wait_for("web", timeout=60)["url"]
