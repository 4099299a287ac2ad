"""A node killed with SIGKILL mid-game restarts with `caravan resume` and the game completes,
with the identical verified transcript on every node."""

import signal

from protocol.verify import verify_bytes
from tests.node.procs import finish, node, read_until


def test_sigkill_and_resume(tmp_path):
    dirs = [tmp_path / f"n{i}" for i in range(3)]
    logs = [tmp_path / f"n{i}.log" for i in range(3)]
    common = ["--bot", "random", "--bind", "127.0.0.1", "--bot-delay", "0.02"]
    host = node(["host", "fixture", "--players", "3", "-o", "rounds=8", "--no-discovery", *common],
                dirs[0], logs[0])
    procs = [host]
    try:
        port = read_until(host, "lobby")["port"]
        victim = None
        for i in (1, 2):
            procs.append(node(["join", f"127.0.0.1:{port}", *common, "--seed", str(i)], dirs[i], logs[i]))
        game_id = read_until(host, "genesis")["game_id"]
        read_until(host, "event", count=12)                  # well into the game
        victim = procs[1]
        victim.send_signal(signal.SIGKILL)
        assert victim.wait(timeout=10) == -signal.SIGKILL
        resumed = node(["resume", game_id[:12], *common, "--seed", "7"], dirs[1], logs[1])
        procs[1] = resumed
        codes = finish(procs)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert codes == [0, 0, 0], [log.read_text()[-2000:] for log in logs]
    files = [(d / "games" / game_id / "transcript.caravan").read_bytes() for d in dirs]
    assert len(set(files)) == 1, "every node must end with the identical transcript"
    report = verify_bytes(files[0])
    assert report.ok, report.error
