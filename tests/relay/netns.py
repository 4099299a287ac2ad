"""A network namespace of the test's own, and a way in from the machine's loopback.

Mosquitto's websockets listener binds every address whatever its configuration says (2.0.11:
`listener 9001 127.0.0.1` + `protocol websockets` listens on `*:9001`), so a broker with one
runs in a namespace that has only its loopback up: nothing outside that namespace can reach it.
A browser (or a desktop relay) on the machine reaches a port in there only through `Forward`:
a listening socket the test opens on the machine's 127.0.0.1 (so it is loopback-only, like
every other test server), handed to a small forwarding process that runs inside the namespace
and connects each accepted connection to the port on the namespace's own loopback."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from contextlib import contextmanager
from typing import Iterator

from tests.helpers import missing_system_package, timeout

_FORWARDER = r"""
import socket, sys, threading
listener = socket.socket(fileno=int(sys.argv[1]))
targets = [int(p) for p in sys.argv[2:]]
def pump(a, b):
    try:
        while (data := a.recv(65536)):
            b.sendall(data)
    except OSError:
        pass
    finally:
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
def serve(port):
    while True:
        conn, _ = listener.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            inner = socket.create_connection(("127.0.0.1", port), timeout=5)
        except OSError:
            conn.close()
            continue
        inner.settimeout(None)
        inner.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for a, b in ((conn, inner), (inner, conn)):
            threading.Thread(target=pump, args=(a, b), daemon=True).start()
serve(targets[0])
"""


@contextmanager
def namespace(tag: str = "cvrns") -> Iterator[list[str]]:
    """A fresh network namespace with only its loopback up: the command prefix that runs a
    program in it. Skipped (locally) where namespaces cannot be made."""
    if shutil.which("ip") is None:
        missing_system_package("iproute2 (the ip command)", "apt-get install iproute2 to run the network-namespace tests")
    ns = f"{tag}{os.getpid() % 100000}"
    made = subprocess.run(["ip", "netns", "add", ns], capture_output=True, text=True, timeout=timeout(20))
    if made.returncode != 0:
        missing_system_package(f"the right to create network namespaces ({made.stderr.strip() or 'no privileges'})",
                               "run as root to create the test's network namespaces")
    try:
        up = subprocess.run(["ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"], capture_output=True,
                            text=True, timeout=timeout(20))
        assert up.returncode == 0, up.stderr
        yield ["ip", "netns", "exec", ns]
    finally:
        subprocess.run(["ip", "netns", "delete", ns], capture_output=True, timeout=timeout(20))


@contextmanager
def forward(prefix: list[str], port: int) -> Iterator[int]:
    """The machine's 127.0.0.1 port (free, chosen here) that leads to `port` on the loopback of
    the namespace `prefix` runs in, for the block's duration."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    proc = subprocess.Popen([*prefix, sys.executable, "-c", _FORWARDER, str(listener.fileno()), str(port)],
                            pass_fds=[listener.fileno()])
    try:
        yield listener.getsockname()[1]
    finally:
        proc.kill()
        proc.wait(timeout(10))
        listener.close()
