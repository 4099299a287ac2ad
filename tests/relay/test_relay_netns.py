"""Issue #14's network test: three nodes in three network namespaces that cannot reach each
other, each able to reach a Mosquitto in a fourth namespace, play each game through the
broker (`host --relay` and `join INVITE`), and every transcript verifies.

The test builds its namespaces itself (10.213.20-23.0/24 and the broker at 10.213.29.1, its
own test addresses) and removes them; the broker's namespace does not forward packets, so
the only thing the nodes share is the broker. Skipped where namespaces cannot be made."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest

from protocol.verify import verify_bytes
from tests.games.pick import cli_options, games_with, option_args, short_game
from tests.helpers import missing_system_package, timeout
from tests.node.procs import ROOT, env, finish, node, read_until
from tests.relay.broker import Broker

BROKER_IP = "10.213.29.1"
GAMES = [(game, 3, option_args(cli_options(short_game(game)[1]))) for game in games_with(players=3)]
"""Each installed game for 3 players, with its hooks' short options."""


def sh(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout(20))


@pytest.fixture
def islands(tmp_path):
    """Three node namespaces and a broker namespace: yields (node namespaces, broker)."""
    if shutil.which("ip") is None:
        missing_system_package("iproute2 (the ip command)", "apt-get install iproute2 to run the network-namespace tests")
    tag = f"cvr{os.getpid() % 100000}"
    hub, names = f"{tag}bk", [f"{tag}n{i}" for i in range(3)]
    created: list[str] = []
    broker = None
    try:
        r = sh("ip", "netns", "add", hub)
        if r.returncode != 0:
            missing_system_package(f"the right to create network namespaces ({r.stderr.strip() or 'no privileges'})",
                                   "run as root to create the test's network namespaces")
        created.append(hub)
        in_hub = ["ip", "netns", "exec", hub]
        steps = [[*in_hub, "ip", "link", "set", "lo", "up"],
                 [*in_hub, "sysctl", "-q", "-w", "net.ipv4.ip_forward=0"],
                 [*in_hub, "ip", "addr", "add", f"{BROKER_IP}/32", "dev", "lo"]]
        for i, ns in enumerate(names):
            assert sh("ip", "netns", "add", ns).returncode == 0
            created.append(ns)
            a, b = f"{tag}a{i}"[-15:], f"{tag}b{i}"[-15:]
            net = f"10.213.{20 + i}"
            steps += [["ip", "link", "add", a, "type", "veth", "peer", "name", b],
                      ["ip", "link", "set", a, "netns", ns],
                      ["ip", "link", "set", b, "netns", hub],
                      [*in_hub, "ip", "addr", "add", f"{net}.1/24", "dev", b],
                      [*in_hub, "ip", "link", "set", b, "up"],
                      ["ip", "netns", "exec", ns, "ip", "addr", "add", f"{net}.2/24", "dev", a],
                      ["ip", "netns", "exec", ns, "ip", "link", "set", a, "up"],
                      ["ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"],
                      ["ip", "netns", "exec", ns, "ip", "route", "add", f"{BROKER_IP}/32", "via", f"{net}.1"]]
        for step in steps:
            r = sh(*step)
            if r.returncode != 0:
                missing_system_package(f"the right to build the test network ({' '.join(step)}: {r.stderr.strip()})",
                                       "run as root to build the test's network namespaces (and apt-get install "
                                       "procps for sysctl)")
        broker = Broker(tmp_path, host=BROKER_IP, port=1883, prefix=in_hub).start()
        yield names, broker
    finally:
        if broker is not None:
            broker.stop()
        for ns in created:
            sh("ip", "netns", "delete", ns)


def _reach(ns: str, host: str, port: int) -> bool:
    code = (f"import socket,sys\ntry:\n socket.create_connection(({host!r},{port}),timeout=2)\nexcept OSError:\n"
            f" sys.exit(1)\n")
    return subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", code], timeout=timeout(20)).returncode == 0


def test_islands_reach_only_the_broker(islands):
    names, broker = islands
    for ns in names:
        assert _reach(ns, BROKER_IP, broker.port)
    listener = subprocess.Popen(["ip", "netns", "exec", names[0], sys.executable, "-c",
                                 "import socket,time\ns=socket.socket();s.bind(('0.0.0.0',47123));s.listen();"
                                 f"time.sleep({timeout(60):g})"])     # its lifetime: killed below
    try:
        deadline = time.monotonic() + timeout(10)            # a port that listens in namespace 0 ...
        while not _reach(names[0], "10.213.20.2", 47123):
            assert time.monotonic() < deadline, "the probe listener never came up"
        assert not _reach(names[1], "10.213.20.2", 47123)       # ... is out of reach from namespace 1
    finally:
        listener.kill()
        listener.wait()


@pytest.mark.parametrize("game,players,opts", GAMES, ids=[g[0] for g in GAMES])
def test_a_game_through_the_broker_across_islands(tmp_path, islands, game, players, opts):
    names, broker = islands
    dirs = [tmp_path / f"n{i}" for i in range(players)]
    logs = [tmp_path / f"n{i}.log" for i in range(players)]
    prefix = [["ip", "netns", "exec", ns] for ns in names]
    host = node(["host", game, "--players", str(players), *opts, "--relay", broker.url, "--bot", "random",
                 "--no-discovery"],
                dirs[0], logs[0], prefix=prefix[0])
    procs = [host]
    try:
        invite = read_until(host, "invite", timeout=30)["invite"]
        assert invite.startswith(f"caravan+mqtt://{BROKER_IP}:{broker.port}/")
        for i in range(1, players):
            procs.append(node(["join", invite, "--bot", "random", "--seed", str(i)], dirs[i], logs[i],
                              prefix=prefix[i]))
        game_id = read_until(host, "genesis", timeout=60)["game_id"]
        codes = finish(procs, timeout=240)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert codes == [0] * players, [log.read_text()[-2000:] for log in logs]
    files = [(d / "games" / game_id / "transcript.caravan").read_bytes() for d in dirs]
    assert len(set(files)) == 1 and verify_bytes(files[0]).ok
