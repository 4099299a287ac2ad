"""Nodes in separate network namespaces joined by a bridge find the lobby by discovery
and play to the end. The test builds the namespaces itself (10.213.7.0/24, its own test
hosts) and removes them; it is skipped where it lacks the privileges."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from protocol.verify import verify_bytes
from tests.helpers import missing_system_package, timeout
from tests.node.procs import ROOT, env, finish, node, read_until

SUBNET = "10.213.7"


def sh(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout(20))


@pytest.fixture
def namespaces():
    if shutil.which("ip") is None:
        missing_system_package("iproute2 (the ip command)", "apt-get install iproute2 to run the network-namespace tests")
    tag = f"cvn{os.getpid() % 100000}"
    bridge_ns, names = f"{tag}br", [f"{tag}n{i}" for i in range(3)]
    created = []
    try:
        r = sh("ip", "netns", "add", bridge_ns)
        if r.returncode != 0:
            missing_system_package(f"the right to create network namespaces ({r.stderr.strip() or 'no privileges'})",
                                       "run as root to create the test's network namespaces")
        created.append(bridge_ns)
        for cmd in (["ip", "link", "add", "br0", "type", "bridge"], ["ip", "link", "set", "br0", "up"]):
            assert sh("ip", "netns", "exec", bridge_ns, *cmd).returncode == 0
        for i, ns in enumerate(names):
            assert sh("ip", "netns", "add", ns).returncode == 0
            created.append(ns)
            a, b = f"{tag}a{i}"[-15:], f"{tag}b{i}"[-15:]
            steps = [
                ["ip", "link", "add", a, "type", "veth", "peer", "name", b],
                ["ip", "link", "set", a, "netns", ns],
                ["ip", "link", "set", b, "netns", bridge_ns],
                ["ip", "netns", "exec", bridge_ns, "ip", "link", "set", b, "master", "br0"],
                ["ip", "netns", "exec", bridge_ns, "ip", "link", "set", b, "up"],
                ["ip", "netns", "exec", ns, "ip", "addr", "add", f"{SUBNET}.{i + 1}/24", "broadcast",
                 f"{SUBNET}.255", "dev", a],
                ["ip", "netns", "exec", ns, "ip", "link", "set", a, "up"],
                ["ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"],
            ]
            for step in steps:
                r = sh(*step)
                if r.returncode != 0:
                    missing_system_package(f"the right to build the test network ({' '.join(step)}: {r.stderr.strip()})",
                                               "run as root to build the test's network namespaces")
        yield names
    finally:
        for ns in created:
            sh("ip", "netns", "delete", ns)


def test_discovery_and_play_across_namespaces(tmp_path, namespaces):
    dirs = [tmp_path / f"n{i}" for i in range(3)]
    logs = [tmp_path / f"n{i}.log" for i in range(3)]
    common = ["--bot", "random"]
    disc = ["--discovery-port", "47999"]
    host = node(["host", "fixture", "--players", "3", "-o", "rounds=2", "--discovery-addr", f"{SUBNET}.255",
                 *disc, *common], dirs[0], logs[0], prefix=["ip", "netns", "exec", namespaces[0]])
    procs = [host]
    try:
        lobby_id = read_until(host, "lobby", timeout=30)["lobby"]
        # the lobby is also announced over mDNS/DNS-SD (python-zeroconf is a test dependency)
        found = subprocess.run(["ip", "netns", "exec", namespaces[1], sys.executable, "-m", "node", "discover",
                                "--via", "mdns", "--wait", f"{timeout(4):g}", "--json"], capture_output=True, text=True,
                               timeout=timeout(60), env=env(), cwd=ROOT)
        assert found.returncode == 0, found.stderr[-1000:]
        heard = [m for m in map(json.loads, found.stdout.splitlines()) if m.get("type") == "found"]
        assert [a["lobby"] for a in heard] == [lobby_id] and heard[0]["host"] == f"{SUBNET}.1"
        for i in (1, 2):
            procs.append(node(["join", "--wait", f"{timeout(15):g}", *disc, *common, "--seed", str(i)], dirs[i], logs[i],
                              prefix=["ip", "netns", "exec", namespaces[i]]))
        game_id = read_until(host, "genesis", timeout=60)["game_id"]
        codes = finish(procs, timeout=120)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert codes == [0, 0, 0], [log.read_text()[-2000:] for log in logs]
    files = [(d / "games" / game_id / "transcript.caravan").read_bytes() for d in dirs]
    assert len(set(files)) == 1 and verify_bytes(files[0]).ok
