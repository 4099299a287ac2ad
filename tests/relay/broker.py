"""A real Mosquitto broker for the relay tests, started by the test on a free loopback port
(or inside a network namespace the test built), stoppable and restartable on the same port
so a test can take the broker away mid-game.

Locally the relay tests skip (with one line saying how to install Mosquitto) when it is
missing; with CI=true a missing broker fails the run, as the CI script installs it."""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

from tests.helpers import missing_system_package, timeout as scaled

INSTALL = "install Mosquitto to run the relay tests: apt-get install mosquitto"


def mosquitto_path() -> str | None:
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/bin/mosquitto") if os.path.exists(p)), None)


def require_mosquitto() -> str:
    """The broker's executable, or skip (locally) / fail (CI=true) with how to install it."""
    path = mosquitto_path()
    if path is None:
        missing_system_package("Mosquitto", INSTALL)
    return path


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class Broker:
    """One Mosquitto process listening on host:port (MQTT 5 and 3.1.1, anonymous), its log kept
    in `workdir`; with `persistent`, its sessions and queued messages are saved in `workdir`
    (on every stop, and every second) and loaded again at its next start (turn-based tables'
    postboxes, issue 33); without, a restart forgets everything. With `websockets_port`, a
    second listener there speaks MQTT over websockets (what a browser tab reaches): Mosquitto
    2.0 binds it on every address whatever the configuration says, so give it only with a
    `prefix` running the broker in a network namespace of the test's own (tests/relay/netns.py)."""

    def __init__(self, workdir: Path, host: str = "127.0.0.1", port: int | None = None,
                 prefix: list[str] | None = None, users: dict[str, str] | None = None,
                 persistent: bool = False, websockets_port: int | None = None):
        self.exe = require_mosquitto()
        self.workdir = workdir
        self.host = host
        self.port = port or free_port(host)
        self.prefix = prefix or []          # e.g. ["ip", "netns", "exec", NS]
        self.proc: subprocess.Popen | None = None
        self.conf = workdir / f"mosquitto-{self.port}.conf"
        access = "allow_anonymous true\n"
        if users:                           # only these USER:PASSWORDs may connect
            passwords = workdir / f"mosquitto-{self.port}.passwd"
            passwords.write_text("")
            for user, password in users.items():
                subprocess.run(["mosquitto_passwd", "-b", str(passwords), user, password], check=True,
                               capture_output=True)
            # keep the test's own user: started as root, Mosquitto would drop to user
            # mosquitto, which cannot read the password file in the test's private folder
            access = f"allow_anonymous false\npassword_file {passwords}\nuser {getpass.getuser()}\n"
        if persistent and not users:        # as root it would run as mosquitto: no writing in the test's folder
            access += f"user {getpass.getuser()}\n"
        store = (f"persistence true\npersistence_location {workdir}/\npersistence_file mosquitto-{self.port}.db\n"
                 "autosave_interval 1\n" if persistent else "persistence false\n")
        self.conf.write_text(f"listener {self.port} {host}\n{access}{store}"
                             f"max_inflight_messages 0\nmax_queued_messages 100000\nset_tcp_nodelay true\n")
        if websockets_port is not None:
            with self.conf.open("a") as conf:
                conf.write(f"listener {websockets_port}\nprotocol websockets\n")
        self.websockets_port = websockets_port
        self.log = workdir / f"mosquitto-{self.port}.log"

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> "Broker":
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen([*self.prefix, self.exe, "-c", str(self.conf)],
                                         stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + scaled(timeout)
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited at start: {self.log.read_text()[-500:]}")
            if not self.prefix and self._accepts():
                return self
            if self.prefix and "running" in self.log.read_text(errors="replace"):
                return self
            time.sleep(0.05)                # a poll's pause inside the bounded wait above
        raise RuntimeError(f"mosquitto did not start within {scaled(timeout):g} s: {self.log.read_text()[-500:]}")

    def _accepts(self) -> bool:
        try:
            with socket.create_connection((self.host, self.port), timeout=0.2):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.proc = None


class Traffic:
    """An extra MQTT client on the broker counting every caravan message published through it
    (`messages`) and their payload bytes (`bytes`): what a game costs the broker."""

    def __init__(self, host: str, port: int):
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion
        self.messages = self.bytes = 0
        self.first = self.last = 0.0
        self._ready = False
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        self.client.on_message = self._seen
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe("caravan/#", qos=0)
        self.client.on_subscribe = self._subscribed
        self.client.connect(host, port)
        self.client.loop_start()
        deadline = time.monotonic() + scaled(10)
        while not self._ready and time.monotonic() < deadline:
            time.sleep(0.01)                # a poll's pause inside the bounded wait above

    def _subscribed(self, client, userdata, mid, reason_codes, properties) -> None:
        self._ready = True

    def _seen(self, client, userdata, message) -> None:
        self.last = time.monotonic()
        self.first = self.first or self.last
        self.messages += 1
        self.bytes += len(message.payload)

    def reset(self) -> None:
        self.messages = self.bytes = 0
        self.first = self.last = 0.0

    def settle(self, quiet: float = 0.5, within: float = 10.0) -> tuple[int, int]:
        """(messages, bytes) once nothing has come for `quiet` s (at most `within` s)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline and time.monotonic() - max(self.last, 0.0) < quiet:
            time.sleep(0.05)                # a poll's pause inside the bounded wait above
        return self.messages, self.bytes

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
