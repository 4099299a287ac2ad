"""The README's quick start, from a clean clone (issue 36, bug 15): `pip install .` in a fresh
venv puts `caravan` on its PATH with everything the home needs (the pages are package data),
and `caravan --no-browser --json` serves the home, run away from the source tree. pip takes
the dependencies from its configured indexes and wheel folders (its cache too), as a person's
install does; the clone is of this checkout's HEAD (what is committed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

from clients import games as presentations
from protocol import games
from tests.games.pick import installed
from tests.helpers import communicate, free_udp_port, join, timeout as scaled, wait_exit

ROOT = Path(__file__).resolve().parents[2]


def _run(args: list[str], within: float, cwd: Path, env: dict[str, str]) -> None:
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = communicate(proc, within, " ".join(args[:3]))[0]
    assert proc.returncode == 0, out[-3000:]


def _get(url: str) -> tuple[int, str, bytes]:
    with urllib.request.urlopen(url, timeout=scaled(30)) as answer:
        return answer.status, answer.headers.get("Content-Type", ""), answer.read()


def test_pip_install_from_a_clone_then_caravan_serves_the_home(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CARAVAN_ENGINES", "VIRTUAL_ENV")}
    src, venv, away = tmp_path / "caravan", tmp_path / "venv", tmp_path / "elsewhere"
    away.mkdir()
    _run(["git", "clone", "--quiet", "--depth", "1", f"file://{ROOT}", str(src)], 120, tmp_path, env)
    _run([sys.executable, "-m", "venv", str(venv)], 120, tmp_path, env)
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(src)], 600, away, env)
    caravan = venv / "bin" / "caravan"
    assert caravan.exists()
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    home = subprocess.Popen(["caravan", "--no-browser", "--json", "--data-dir", str(tmp_path / "data"),
                             "--bind", "127.0.0.1", "--discovery-addr", "127.0.0.1", "--discovery-bind", "127.0.0.1",
                             "--discovery-port", str(free_udp_port())],
                            cwd=away, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines: list[dict] = []

        def read() -> None:                      # until its {"type": "web", "url": ...} line
            for line in home.stdout:
                lines.append(json.loads(line))
                if lines[-1].get("type") == "web":
                    return
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        join(reader, 120, "the installed home's web line")
        assert lines and lines[-1].get("type") == "web", lines
        url = lines[-1]["url"]
        status, kind, page = _get(url)
        assert status == 200 and b"New table" in page
        for name in ("home.js", "home.css"):
            assert _get(url + "static/" + name)[0] == 200
        state = json.loads(_get(url + "api/state")[2])
        shipped = {g for g in installed() if type(games.get(g)).__module__.startswith("protocol.games.")}
        assert shipped and {g["game"] for g in state["catalog"]} >= shipped     # the games the package ships
        # no docs/ here: the picture of the game the house shows first is drawn by the renderer
        status, kind, picture = _get(url + f"img/{presentations.first(sorted(shipped))}.png")
        assert status == 200 and kind.startswith("image/svg") and b"<svg" in picture[:200]
        # the home runs from the venv, not from this checkout
        where = subprocess.run([str(venv / "bin" / "python"), "-c", "import node, sys; print(node.__file__)"],
                               cwd=away, env=env, capture_output=True, text=True, timeout=scaled(60)).stdout
        assert str(venv) in where and str(ROOT) not in where, where
    finally:
        home.terminate()
        wait_exit(home, 30, "the installed home after SIGTERM")
