"""`host --relay ... --relay-auth FILE --with-bots`: the bot nodes log in to the broker without
the password on any command line (every local user can read argv); the game ends and verifies."""

from __future__ import annotations

import os
from pathlib import Path

from protocol.verify import verify_bytes
from tests.helpers import wait_until
from tests.node.procs import finish, node, read_until
from tests.relay.broker import Broker

PASSWORD = "s3cret-in-no-argv"


def _argvs(root: int) -> list[str]:
    """The command lines of `root`'s descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    lines = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            lines[int(entry)] = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        out.append(lines.get(pid, ""))
        todo += children.get(pid, [])
    return out


def test_bots_log_in_to_the_broker_without_the_password_in_argv(tmp_path):
    broker = Broker(tmp_path, users={"ann": PASSWORD}).start()
    auth = tmp_path / "ann.auth"
    auth.write_text(f"ann:{PASSWORD}\n")
    host = None
    try:
        host = node(["host", "fixture", "--players", "3", "-o", "rounds=4", "--bot", "random", "--bot-delay", "0.05",
                     "--relay", broker.url, "--relay-auth", str(auth), "--with-bots", "random,random",
                     "--no-discovery"], tmp_path / "ann", tmp_path / "ann.log")
        read_until(host, "bots", timeout=30)
        seen: list[str] = []

        def two_bots() -> bool:
            seen[:] = _argvs(host.pid)
            return len([a for a in seen if " join " in a]) >= 2
        wait_until(two_bots, 5, "the host's two bot processes")
        bots = [a for a in seen if " join " in a]
        assert len(bots) == 2, seen
        assert not any(PASSWORD in a for a in seen), seen
        game_id = read_until(host, "genesis", timeout=60)["game_id"]
        assert finish([host], timeout=120) == [0], (tmp_path / "ann.log").read_text()[-2000:]
    finally:
        if host is not None and host.poll() is None:
            host.kill()
        broker.stop()
    report = verify_bytes((tmp_path / "ann" / "games" / game_id / "transcript.caravan").read_bytes())
    assert report.ok
