"""A `--json` consumer that stops reading never freezes the node (issue 27, item 6): with
its stdout a full pipe nobody reads, a node keeps playing, the game finishes on every node,
and it says on stderr that it dropped output lines; it exits within a bounded time. The same
for a node's human status and log lines on a stderr pipe nobody reads."""

from __future__ import annotations

import fcntl
import subprocess
import sys
import time

from protocol.verify import verify_bytes
from tests.games.pick import quick
from tests.helpers import timeout
from tests.node.procs import ROOT, env, node, read_until
from tests.node.stalls import collect

COMMON = ["--bot", "random", "--bind", "127.0.0.1", "--bot-delay", "0.01"]


def _deaf_game(tmp_path, deaf_args: list[str], deaf_pipe: str, game: tuple[str, ...] = ("fixture", "-o", "rounds=10")
               ) -> tuple[list[int], str, subprocess.Popen, str]:
    """A 3-seat game whose third node's `deaf_pipe` ("stdout" or "stderr") is a 4 KiB pipe
    that nobody reads; (exit codes, game id, the deaf node, the logs' tails)."""
    dirs = [tmp_path / f"n{i}" for i in range(3)]
    logs = [tmp_path / f"n{i}.log" for i in range(3)]
    host = node(["host", *game, "--players", "3", "--no-discovery", "--time-limit", "0",
                 *COMMON], dirs[0], logs[0])
    procs = [host]
    try:
        port = read_until(host, "lobby")["port"]
        procs.append(node(["join", f"127.0.0.1:{port}", *COMMON, "--seed", "1"], dirs[1], logs[1]))
        # the consumer of this one reads nothing at all, and its pipe holds only 4 KiB
        kept = logs[2].open("ab")
        pipes = {"stdout": subprocess.PIPE, "stderr": kept} if deaf_pipe == "stdout" else \
            {"stdout": kept, "stderr": subprocess.PIPE}
        deaf = subprocess.Popen([sys.executable, "-m", "node", "join", f"127.0.0.1:{port}", *COMMON, "--seed", "2",
                                 "--data-dir", str(dirs[2]), *deaf_args], env=env(), cwd=ROOT, **pipes)
        fcntl.fcntl(getattr(deaf, deaf_pipe).fileno(), fcntl.F_SETPIPE_SZ, 4096)
        procs.append(deaf)
        game_id = read_until(host, "genesis")["game_id"]
        deadline = time.monotonic() + timeout(120)
        codes = [collect(p, deadline)[0] for p in procs[:2]]
        try:
            codes.append(deaf.wait(timeout=max(1, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            codes.append(-9)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    tails = "\n".join(f"--- {log.name}\n{log.read_text(errors='replace')[-1500:]}" for log in logs)
    assert codes == [0, 0, 0], (codes, tails)
    files = {(d / "games" / game_id / "transcript.caravan").read_bytes() for d in dirs}
    assert len(files) == 1 and verify_bytes(files.pop()).ok, tails
    return codes, game_id, deaf, tails


def test_a_node_whose_stdout_is_never_read_keeps_playing(tmp_path):
    _, _, deaf, _ = _deaf_game(tmp_path, ["--json"], "stdout")
    left = deaf.stdout.read().decode()                 # what the pipe held: the start of the game
    assert '"type": "start"' in left


def test_a_node_whose_stderr_is_never_read_keeps_playing(tmp_path):
    """Human status and debug logs on a stderr pipe nobody reads (a wrapper that only reads
    stdout): the node plays to the end, and what the pipe holds is the start of its lines."""
    game, options = quick(3)                           # a real game: its debug lines fill the pipe
    _, _, deaf, _ = _deaf_game(tmp_path, ["-vv"], "stderr", (game, *[x for o in options for x in ("-o", o)]))
    left = deaf.stderr.read().decode(errors="replace")
    assert left.startswith("joined lobby") and len(left) > 3500, left[:300]     # the pipe was full


def test_lines_past_the_bound_are_dropped_counted_and_told():
    """The writer never blocks: past its bound it drops lines, warns once on stderr, and the
    next line the reader gets says how many it lost."""
    import json
    import os

    from node.app.output import LineOutput

    r, w = os.pipe()
    fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 4096)
    filler = b"#" * 4095 + b"\n"
    os.write(w, filler)                                # the pipe is full before the first line
    out = LineOutput(w, max_bytes=2000)
    t0 = time.monotonic()
    for i in range(2000):
        out.line(json.dumps({"type": "event", "i": i, "pad": "x" * 40}))
    assert time.monotonic() - t0 < timeout(2) and out.dropped > 1000     # never blocked on the pipe
    assert not out.drain(0.2)                          # nobody reads: the drain gives up
    got = b""
    while not out.drain(0.05):
        got += os.read(r, 65536)
    out.line(json.dumps({"type": "last"}))
    assert out.drain(timeout(5))
    os.close(w)
    while chunk := os.read(r, 65536):
        got += chunk
    assert got.startswith(filler)
    lines = [json.loads(x) for x in got[len(filler):].decode().splitlines()]
    told = [x["dropped"] for x in lines if x["type"] == "warning"]   # one line per run of drops
    kept = [x for x in lines if x["type"] == "event"]
    assert told and sum(told) == out.dropped == 2000 - len(kept), (told, len(kept))
    assert lines[-1] == {"type": "last"}
