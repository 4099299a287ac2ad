"""A broker that wants a user and password: the host logs in with --relay-auth FILE, a
joiner with USER:PASSWORD@ in the invite, and a wrong password is refused in one line."""

import subprocess
import sys

from tests.games.pick import quick
from tests.helpers import timeout
from tests.node.procs import ROOT, env
from tests.relay.broker import Broker
from tests.relay.nodes import RelayedGame, assert_all_verify


def test_logging_in_to_the_broker(tmp_path):
    broker = Broker(tmp_path, users={"ann": "s3cret", "bob": "pa:ss"}).start()
    auth = tmp_path / "ann.auth"
    auth.write_text("ann:s3cret\n")
    g = None
    try:
        game, options = quick(2)
        g = RelayedGame(tmp_path, broker.url, game, 2, options, host_args=["--relay-auth", str(auth)], joiners=0)
        assert "s3cret" not in g.invite
        wrong = subprocess.run([sys.executable, "-m", "node", "join", g.invite.replace("://", "://bob:nope@"),
                                "--bot", "random", "--data-dir", str(tmp_path / "wrong")],
                               capture_output=True, text=True, env=env(), cwd=ROOT, timeout=timeout(60))
        assert wrong.returncode == 1 and "refused this node" in wrong.stderr, wrong.stderr
        assert len(wrong.stderr.strip().splitlines()) == 1 and "nope" not in wrong.stderr
        g.add_joiner(g.invite.replace("://", "://bob:pa%3Ass@"))
        game_id = g.wait_started()
        assert g.finish(timeout=90) == [0, 0], [g.log(i)[-600:] for i in range(2)]
    finally:
        if g is not None:
            g.kill()
        broker.stop()
    assert_all_verify(g, game_id)
