"""Discovery says when it cannot work: the beacon goes to every interface's broadcast
address, a send that fails is reported once as a warning naming the interface, and
`discover` says which methods it listened with. Runs in a network namespace the test
creates (loopback up, one veth whose link is down), skipped without the privileges."""

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from protocol import games
from tests.games.pick import installed
from tests.helpers import free_udp_port, missing_system_package, timeout, wait_exit
from tests.node.procs import ROOT, env, node, read_until
from tests.node.test_netns import sh


@pytest.fixture
def netns():
    if shutil.which("ip") is None:
        missing_system_package("iproute2 (the ip command)", "apt-get install iproute2 to run the network-namespace tests")
    name = f"cvd{os.getpid() % 100000}"
    r = sh("ip", "netns", "add", name)
    if r.returncode != 0:
        missing_system_package(f"the right to create network namespaces ({r.stderr.strip() or 'no privileges'})",
                               "run as root to create the test's network namespace")
    try:
        for step in (["link", "set", "lo", "up"],
                     ["link", "add", "cvdown0", "type", "veth", "peer", "name", "cvdown1"],
                     ["addr", "add", "10.213.8.1/24", "dev", "cvdown0"]):     # left down: no route
            r = sh("ip", "-n", name, *step)
            if r.returncode != 0:
                missing_system_package(f"the right to build the test network (ip {' '.join(step)}: {r.stderr.strip()})",
                                       "run as root to build the test's network namespace")
        yield ["ip", "netns", "exec", name]
    finally:
        sh("ip", "netns", "delete", name)


def test_beacon_warns_once_per_interface_and_is_heard_where_it_can_go(tmp_path, netns):
    PORT = str(free_udp_port())
    host = node(["host", "fixture", "--players", "2", "--bot", "random", "--discovery-port", PORT],
                tmp_path / "h", tmp_path / "h.log", prefix=netns)
    try:
        lobby = read_until(host, "lobby", timeout=60)["lobby"]
        warning = read_until(host, "warning", timeout=30)
        assert "cvdown0" in warning["text"] and "10.213.8.255" in warning["text"], warning
        found = subprocess.run([*netns, sys.executable, "-m", "node", "discover", "--via", "udp", "--wait", f"{timeout(2.5):g}",
                                "--discovery-port", PORT, "--json"], capture_output=True, text=True, timeout=timeout(60),
                               env=env(), cwd=ROOT)
        assert found.returncode == 0, found.stderr
        lines = [json.loads(line) for line in found.stdout.splitlines()]
        assert [m["lobby"] for m in lines if m["type"] == "found"] == [lobby]      # over loopback's broadcast
        assert lines[-1]["type"] == "discover" and lines[-1]["methods"] == [f"UDP beacon on port {PORT}"]
        time.sleep(1.5)               # stays (CONTRIBUTING): more rounds of the beacon, and no second warning
        host.terminate()
        rest = host.stdout.read()
        assert wait_exit(host, 30, "the host after SIGTERM") == 130
    finally:
        if host.poll() is None:
            host.kill()
    more = [json.loads(line) for line in rest.splitlines()]
    assert not [m for m in more if m["type"] == "warning" and "cvdown0" in m["text"]], more


def test_discover_says_how_it_listened(tmp_path):
    PORT = str(free_udp_port())
    r = subprocess.run([sys.executable, "-m", "node", "discover", "--via", "udp", "--wait", "0.3",
                        "--discovery-bind", "127.0.0.1", "--discovery-port", PORT], capture_output=True, text=True,
                       timeout=timeout(60), env=env(), cwd=ROOT)
    assert r.returncode == 0 and r.stdout == ""
    assert f"no open lobbies heard in 0.3 s, listening with: UDP beacon on port {PORT}" in r.stderr


def test_the_announcement_says_whether_spectators_may_watch():
    """The beacon carries the host's --spectators choice; an older node's beacon, without the
    field, parses with None (the home then offers Watch and shows the lobby's refusal)."""
    from node.net import discovery

    game = installed()[0]
    title = games.get(game).title
    for allowed in (True, False):
        payload = discovery._payload("ab" * 16, game, title, 2, 1, 4000, allowed)
        assert discovery.parse(payload, "127.0.0.1").spectators is allowed
    old = json.loads(discovery._payload("ab" * 16, game, title, 2, 1, 4000))
    del old["spectators"]
    heard = discovery.parse(json.dumps(old).encode(), "127.0.0.1")
    assert heard is not None and heard.spectators is None and heard.port == 4000
