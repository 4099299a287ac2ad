"""A node killed with SIGKILL mid-game restarts with `caravan resume` and the game completes,
with the identical verified transcript on every node."""

import signal

from protocol.verify import verify_bytes
from tests.helpers import timeout, wait_exit
from tests.node.procs import finish, node, read_until
from tests.node.stalls import resume_and_finish, start


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
        assert wait_exit(victim, 10, "the SIGKILLed node") == -signal.SIGKILL
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


def _lose_log_and_resume(tmp, keep: float):
    """Kill seat 1 mid-game, keep only `keep` of its message log (cut at any byte), resume
    with another bot seed (so a re-decided move would differ): it must fetch its own
    messages back before signing, never sign a used seq again."""

    game = start(tmp, rounds=6, time_limit=30)
    try:
        read_until(game.procs[0], "event", count=8)
        victim = game.procs[1]
        victim.send_signal(signal.SIGKILL)
        assert wait_exit(victim, 10, "the SIGKILLed node") == -signal.SIGKILL
        path = game.store(1) / "messages.log"
        data = path.read_bytes()
        path.write_bytes(data[:int(len(data) * keep)])
        # no bot delay: the resumed seat would decide before any peer could send its messages back
        resume_and_finish(game, 1, ["--bot", "random", "--bind", "127.0.0.1", "--seed", "77"])
    finally:
        game.kill_all()


def test_half_or_all_of_the_log_lost_then_resume(tmp_path):
    import threading
    errors = []

    def run(name, keep):
        try:
            _lose_log_and_resume(tmp_path / name, keep)
        except BaseException as exc:
            errors.append(exc)
    threads = [threading.Thread(target=run, args=(n, k)) for n, k in (("half", 0.5), ("all", 0.0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=timeout(180))
    if errors:
        raise errors[0]
    hung = [t.name for t in threads if t.is_alive()]
    assert not hung, f"a lose-the-log-and-resume scenario still running after {timeout(180):g} s: {hung}"
