"""Spectators on a LAN game (issue 26): `caravan watch` from the first message and from the
middle of a game ends with the players' transcript byte for byte; the host's choice and the
per-node limits hold; a tampered message is named with its signer. Real processes."""

from __future__ import annotations

import json
import os
import struct
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from node.net.frames import Connection
from node.net.handshake import handshake
from protocol import chain, genesis as G, transcript
from protocol.identity import SigningKey, fingerprint
from protocol.verify import verify_bytes
from tests.games.conformance import hook
from tests.games.pick import cli_options, installed, option_args, quick, short_game
from tests.helpers import timeout
from tests.node.cli_spec import json_types
from tests.node.procs import ROOT, env
from tests.node.test_spectate_priority import policies
from tests.web.conftest import Node

NORMAL = ("--priority", "normal")
"""Watchers in tests keep the usual CPU priority: at SCHED_IDLE, a full test run on two cores
starves them for seconds (test_spectate_priority.py tests the default; the first watcher of
the game test keeps it too)."""



def _watched(game: str) -> tuple[str, int, str, list[str]]:
    """(game, players, bot delay, -o values) of a game long enough for a spectator to join
    mid-game: its hooks' WATCH_GAME, else its short game with 0.05 s a move."""
    players, options, delay = hook(game, "WATCH_GAME", (*short_game(game), 0.05))
    return game, players, str(delay), cli_options(options)


CASES = [_watched(game) for game in installed()]
"""Every installed game, each lasting long enough for a spectator to join mid-game."""
GAME, OPTIONS = quick(3)
"""The game of the plumbing tests: the installed game quickest over real nodes for 3 players."""


def host(tmp_path: Path, game: str, players: int, *extra: str, delay: str = "0.02",
         bots: int | None = None) -> tuple[Node, int]:
    """A host with random bots in the other seats (one node process each; `bots` of them, the
    other seats left for the test to fill), on loopback."""
    bots = ",".join(["random"] * (players - 1 if bots is None else bots))
    seated = ["--with-bots", bots] if bots else []
    h = Node(["host", game, "--players", str(players), "--bot", "random", *seated, "--no-discovery",
              "--bind", "127.0.0.1", "--time-limit", "0", "--bot-delay", delay, "--seed", "1", *extra],
             tmp_path / "host", tmp_path / "host.log")
    return h, h.wait_for("lobby")["port"]


def watcher(tmp_path: Path, name: str, port: int, *extra: str) -> Node:
    return Node(["watch", f"127.0.0.1:{port}", "--json", "--out", str(tmp_path / f"{name}.caravan"), *NORMAL, *extra],
                tmp_path / name, tmp_path / f"{name}.log")


def _said(node: Node, kind: str) -> bool:
    """Whether `node` has printed a line of this type so far (without waiting)."""
    while not node.lines.empty():
        msg = node.lines.get_nowait()
        if msg is not None:
            node.seen.append(msg)
    return any(m.get("type") == kind for m in node.seen)


def game_transcript(tmp_path: Path) -> bytes:
    [path] = (tmp_path / "host" / "games").glob("*/transcript.caravan")
    return path.read_bytes()


def forging_node(genesis_raw: bytes, messages: list[bytes], bad: int, linger: float):
    """A player's node, as a spectator's TCP handler, that serves the game with message number
    `bad` (1-based) re-signed wrongly (its signature's last byte flipped); and that message's
    signer."""
    forged = bytearray(messages[bad - 1])
    forged[-1] ^= 1
    game_id = G.parse(genesis_raw).game_id

    async def fake_node(stream):
        conn = Connection(stream, "spectator")
        await handshake(conn, SigningKey.generate(), game_id, dialer=False)
        try:
            await conn.send({"t": "genesis", "g": genesis_raw, "names": {}})
            for raw in messages[:bad - 1] + [bytes(forged)] + messages[bad:]:
                await conn.send({"t": "msg", "m": raw})
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return                                # the watcher saw the forgery and hung up first
        await _closed(conn, linger)               # serves until the watcher hangs up, `linger` s at most
    return fake_node, chain.parse(messages[bad - 1]).author


@pytest.mark.parametrize("game, players, delay, options", CASES, ids=[f"{g}-{n}-{d}" for g, n, d, _ in CASES])
def test_spectators_from_the_start_and_mid_game_end_with_the_players_transcript(tmp_path, game, players, delay,
                                                                                 options):
    # one seat stays empty until the early watcher waits in the lobby: however little CPU its
    # low priority gets it on a busy machine, the game cannot be over before it watches
    h, port = host(tmp_path, game, players, *option_args(options), delay=delay,
                   bots=players - 2)
    early = watcher(tmp_path, "early", port, "--priority", "low")   # in the lobby: from the first message
    while "lobby" not in early.wait_for("status", timeout=60):     # "waiting in lobby …"
        pass
    last = Node(["join", f"127.0.0.1:{port}", "--bot", "random", "--bot-delay", delay, "--seed", "2",
                 "--bind", "127.0.0.1"], tmp_path / "last", tmp_path / "last.log")
    watching = early.wait_for("watching", timeout=60)
    assert watching["game"] == game and watching["seats"] == players
    for _ in range(10):                                      # the game is under way
        early.wait_for("event", timeout=60)
    if hasattr(os, "SCHED_IDLE"):                            # every thread of it (its proof checks too)
        assert policies(early.proc.pid) == {os.SCHED_IDLE}, "a watcher must never take a core from a player"
    late = watcher(tmp_path, "late", port)                   # joins mid-game: the history, then live
    assert late.wait_for("watching", timeout=30)["game_id"] == watching["game_id"]
    assert not _said(h, "result"), "the game was over before the late spectator came"
    for w in (early, late):
        done = w.wait_for("transcript", timeout=240)
        assert done["verified"] is True, done
        assert w.stop() == 0
    assert h.stop(timeout=60) == 0 and last.stop(timeout=60) == 0
    players_copy = game_transcript(tmp_path)
    assert verify_bytes(players_copy).ok
    for name in ("early", "late"):
        assert (tmp_path / f"{name}.caravan").read_bytes() == players_copy, f"{name} spectator's transcript differs"


def test_a_table_without_spectators_refuses_them_with_a_clear_line(tmp_path):
    h, port = host(tmp_path, GAME, 3, *option_args(OPTIONS), "--spectators", "no", delay="0.05")
    w = watcher(tmp_path, "lobbyside", port)
    assert w.stop() == 1
    err = (tmp_path / "lobbyside.log").read_text()
    assert "does not allow spectators (its host chose --spectators no)" in err, err
    h.wait_for("start", timeout=60)                          # the game runs: the node itself refuses too
    w = watcher(tmp_path, "gameside", port)
    assert w.stop() == 1
    err = (tmp_path / "gameside.log").read_text()
    assert "refused this spectator: this table does not allow spectators" in err, err
    assert not (tmp_path / "gameside.caravan").exists()
    assert h.stop(timeout=120) == 0


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


async def _spectator_link(port: int) -> Connection:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    conn = Connection(stream, f"127.0.0.1:{port}")
    hello = await conn.recv()
    await handshake(conn, SigningKey.generate(), hello["scope"], dialer=True, received=hello)
    return conn


async def _closed(conn: Connection, within: float) -> bool:
    """Read until the node closes the link (True) or `within` seconds (scaled) pass (False)."""
    with trio.move_on_after(timeout(within)):
        try:
            while await conn.recv() is not None:
                pass
        except Exception:
            pass
        return True
    return False


async def test_a_flooding_spectator_is_cut_off_and_the_cap_holds(tmp_path):
    h, port = host(tmp_path, GAME, 3, *option_args(OPTIONS), delay="0.2")
    h.wait_for("start", timeout=60)
    before = _rss_kib(h.proc.pid)
    # a spectator that sends: cut off at its first frame
    talker = await _spectator_link(port)
    assert (await talker.recv())["t"] == "genesis"
    await talker.send({"t": "heads", "h": [0, 0, 0]})
    assert await _closed(talker, 10), "a spectator that sends a frame is cut off"
    # one that floods raw bytes (a giant frame): cut off at its header, nothing kept
    flood = await _spectator_link(port)
    await flood.stream.send_all(struct.pack(">I", 64 << 20))
    with trio.move_on_after(timeout(10)):
        try:
            for _ in range(4096):
                await flood.stream.send_all(os.urandom(16384))
        except (trio.BrokenResourceError, OSError):
            pass
    assert await _closed(flood, 10)
    assert _rss_kib(h.proc.pid) - before < 16 * 1024, "the node kept the flood in memory"
    # the cap: 4 spectators are served, the 5th is told why
    served = [await _spectator_link(port) for _ in range(4)]
    for conn in served:
        assert (await conn.recv())["t"] == "genesis"
    extra = await _spectator_link(port)
    with trio.fail_after(timeout(10)):
        frame = await extra.recv()
    assert frame["t"] == "refused" and "already serves 4 spectators" in frame["why"]
    for conn in served:
        await conn.aclose()
    assert h.stop(timeout=180) == 0, "the game went on to its end"
    assert verify_bytes(game_transcript(tmp_path)).ok


async def watch_a_node(tmp_path: Path, serve) -> tuple[Any, list[dict]]:
    """`caravan watch --json` of a stand-in node (`serve`: a handler of each TCP link) on a
    loopback port, to its end: (the finished process, its JSON lines); the transcript goes to
    tmp_path / "w.caravan"."""
    async with trio.open_nursery() as nursery:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        nursery.start_soon(trio.serve_listeners, serve, listeners)
        port = listeners[0].socket.getsockname()[1]
        with trio.fail_after(timeout(60)):
            done = await trio.run_process([sys.executable, "-m", "node", "watch", f"127.0.0.1:{port}", "--json", *NORMAL,
                                           "--out", str(tmp_path / "w.caravan")], capture_stdout=True,
                                          capture_stderr=True, check=False, env=env(), cwd=ROOT)
        nursery.cancel_scope.cancel()
    return done, [json.loads(x) for x in done.stdout.decode().splitlines()]


async def test_a_tampered_message_is_shown_invalid_with_its_signer(tmp_path):
    """A node that feeds a spectator a forged message: the watcher names the message, its
    seat and key fingerprint, and stops (exit 1)."""
    data = (ROOT / "specs" / "vectors" / "fixture-2p.caravan").read_bytes()
    genesis_raw, messages = transcript.load(data)
    bad = 5
    fake_node, signer = forging_node(genesis_raw, messages, bad, linger=5)
    genesis = G.parse(genesis_raw)

    done, lines = await watch_a_node(tmp_path, fake_node)
    invalid = [m for m in lines if m["type"] == "invalid"]
    assert done.returncode == 1, done.stderr
    assert len(invalid) == 1
    seat = genesis.seats.index(signer)
    assert invalid[0]["position"] == bad and invalid[0]["seat"] == seat
    assert invalid[0]["fingerprint"] == fingerprint(signer)
    assert f"message #{bad}, signed by seat {seat} ({fingerprint(signer)})" in invalid[0]["text"]
    verified = [m["verified"] for m in lines if m["type"] == "event"]
    assert verified and max(verified) == bad - 1
    types = json_types()                                     # every line is in specs/cli.md, with its fields
    for m in lines:
        assert m["type"] in types and not set(types[m["type"]]) - set(m), m


async def test_a_watcher_whose_handshake_breaks_tries_again(tmp_path):
    """A node that gives up the handshake (as a busy node does after 5 s, or with a watcher
    starved at its low priority) is dialled again: the watch goes on."""
    data = (ROOT / "specs" / "vectors" / "fixture-2p.caravan").read_bytes()
    genesis_raw, messages = transcript.load(data)
    fake_node, _ = forging_node(genesis_raw, messages, len(messages), linger=5)
    game_id = G.parse(genesis_raw).game_id
    links = []

    async def impatient_then_fine(stream):
        links.append(stream)
        if len(links) == 1:                                  # the first link: hello, then it hangs up
            await Connection(stream, "spectator").send({"t": "hello", "scope": game_id})
            await stream.aclose()
            return
        await fake_node(stream)

    done, lines = await watch_a_node(tmp_path, impatient_then_fine)
    assert len(links) == 2 and any(m["type"] == "watching" for m in lines), done.stderr
    assert "the handshake failed" in done.stderr.decode() and "trying again (2/4)" in done.stderr.decode()


async def test_a_link_that_breaks_mid_game_is_dialled_again(tmp_path):
    """The player's node drops the link after 5 messages (a relay frame lost, a restart): the
    watcher dials again, compares the 5 it verified and goes on to the end."""
    data = (ROOT / "specs" / "vectors" / "fixture-2p.caravan").read_bytes()
    genesis_raw, messages = transcript.load(data)
    game_id = G.parse(genesis_raw).game_id
    links = []

    async def drops_once(stream):
        links.append(stream)
        conn = Connection(stream, "spectator")
        await handshake(conn, SigningKey.generate(), game_id, dialer=False)
        await conn.send({"t": "genesis", "g": genesis_raw, "names": {}})
        for raw in messages[:5] if len(links) == 1 else messages:
            await conn.send({"t": "msg", "m": raw})
        if len(links) > 1:
            await conn.send({"t": "end", "outcome": "complete", "text": "the game is complete"})
        await conn.aclose()

    done, lines = await watch_a_node(tmp_path, drops_once)
    assert done.returncode == 0, done.stderr
    assert len(links) == 2
    assert any("dialling it again (1 of 3)" in m["text"] for m in lines if m["type"] == "status"), lines
    assert [m["verified"] for m in lines if m["type"] == "event"] == sorted(m["verified"] for m in lines
                                                                             if m["type"] == "event")
    assert (tmp_path / "w.caravan").read_bytes() == data


def test_a_spectator_relays_to_other_spectators(tmp_path):
    """`caravan watch --serve PORT`: other spectators watch through it (the players' node
    serves one link) and still verify everything themselves, ending with the same bytes."""
    h, port = host(tmp_path, GAME, 3, *option_args(OPTIONS), delay="0.05")
    relay = watcher(tmp_path, "relay", port, "--serve", "0", "--bind", "127.0.0.1")
    served = relay.wait_for("serving", timeout=60)["port"]
    relay.wait_for("event", timeout=60)
    downstream = [watcher(tmp_path, f"down{i}", served) for i in range(2)]
    for w in downstream:
        assert w.wait_for("watching", timeout=30)["seats"] == 3
    for w in [relay, *downstream]:
        assert w.wait_for("transcript", timeout=240)["verified"] is True
        assert w.stop() == 0
    assert h.stop(timeout=60) == 0
    players_copy = game_transcript(tmp_path)
    for name in ("relay", "down0", "down1"):
        assert (tmp_path / f"{name}.caravan").read_bytes() == players_copy


def test_watch_a_lobby_found_by_discovery(tmp_path):
    """`caravan watch LOBBY_ID_PREFIX`: the lobby announced on the LAN (here: loopback, a
    port of the test's own) is found, waited in, and its game watched to the end. The last
    seat is taken only once the watcher waits in the lobby: with every seat a bot of the
    host's, a busy machine's watcher found the lobby already closed (exit 1)."""
    from tests.relay.broker import free_port

    udp = str(free_port())
    h = Node(["host", GAME, "--players", "3", *option_args(OPTIONS), "--bot", "random", "--with-bots", "random",
              "--discovery-addr", "127.0.0.1", "--discovery-port", udp, "--bind", "127.0.0.1", "--time-limit", "0",
              "--bot-delay", "0.05", "--seed", "1"], tmp_path / "host2", tmp_path / "host2.log")
    opened = h.wait_for("lobby")
    w = Node(["watch", opened["lobby"][:8], "--json", *NORMAL, "--via", "udp", "--discovery-port", udp,
              "--discovery-bind", "127.0.0.1", "--out", str(tmp_path / "found.caravan")], tmp_path / "found",
             tmp_path / "found.log")
    while "waiting in lobby" not in w.wait_for("status", timeout=60)["text"]:
        pass                                     # "looking for lobbies ...", "found ..." first
    j = Node(["join", f"127.0.0.1:{opened['port']}", "--bot", "random", "--bot-delay", "0.05", "--seed", "2",
              "--bind", "127.0.0.1"], tmp_path / "joiner", tmp_path / "joiner.log")
    assert w.wait_for("watching", timeout=60)["seats"] == 3
    assert w.wait_for("transcript", timeout=240)["verified"] is True
    assert w.stop() == 0 and h.stop(timeout=60) == 0 and j.stop(timeout=60) == 0
    [path] = (tmp_path / "host2" / "games").glob("*/transcript.caravan")
    assert (tmp_path / "found.caravan").read_bytes() == path.read_bytes()
