"""Play again is pinned to the last game (issue 34, item 4): a friend's node accepts only the
last game's host at that host's old address (an impostor lobby there is refused with one
line, before the friend joins, signs or declines anything), and a Play-again lobby seats
only the last game's players (a stranger who reaches it is refused)."""

from __future__ import annotations

import json
import os
import sys

import pytest
import trio

from node.net.handshake import key_pin
from node.app.lobby import Lobby
from protocol import genesis as G
from protocol.identity import SigningKey
from tests.helpers import timeout as scaled
from tests.node.procs import ROOT, env, finish, read_until
from tests.node.test_resume_memory import _caravan


@pytest.fixture(scope="module")
def last_game(tmp_path_factory):
    """Ada hosted a 2-seat fixture game on loopback and Bea joined it; both finished. (Ada's and
    Bea's homes, the game id, the port Ada's node used: where Bea's Play again looks.)"""
    root = tmp_path_factory.mktemp("last_game")
    ada, bea = root / "ada", root / "bea"
    ada.mkdir()
    bea.mkdir()
    host = _caravan(["host", "fixture", "--players", "2", "-o", "rounds=1", "--bot", "random", "--no-discovery",
                     "--bind", "127.0.0.1", "--name", "Ada", "--json"], ada)
    port = read_until(host, "lobby", timeout=60)["port"]
    friend = _caravan(["join", f"127.0.0.1:{port}", "--bot", "random", "--bind", "127.0.0.1", "--name", "Bea",
                       "--json"], bea)
    game_id = read_until(host, "genesis", timeout=60)["game_id"]
    assert finish([host, friend], timeout=120) == [0, 0]
    return ada, bea, game_id, port


def _seats(home, game_id: str) -> list[bytes]:
    return G.parse((home / "caravan" / "games" / game_id / "genesis.bin").read_bytes()).seats


async def _friend_meets_an_impostor(last_game, *extra: str):
    """An impostor's lobby for the same game at Ada's old port (with a key of its own, knowing
    the last game's seats, as any of its players could) while Bea's node plays again or declines.
    (Bea's process result or None, the impostor's status lines, whether it got a genesis signed.)"""
    ada, bea, game_id, port = last_game
    lines: list[str] = []
    signed: list[object] = []
    impostor = Lobby(SigningKey.generate(), "fixture", 2, {"rounds": 1}, lines.append,
                     friends=frozenset(_seats(ada, game_id)))
    listeners = await trio.open_tcp_listeners(port, host="127.0.0.1")
    e = env()
    e["XDG_DATA_HOME"] = str(bea)
    done = None
    async with trio.open_nursery() as nursery:
        async def serve() -> None:
            signed.append(await impostor.run(listeners, os.urandom(32)))
            nursery.cancel_scope.cancel()                    # Bea signed the impostor's genesis: enough seen
        nursery.start_soon(serve)
        with trio.move_on_after(scaled(60)):
            done = await trio.run_process([sys.executable, "-m", "node", "rematch", game_id[:16], "--bot", "random",
                                           "--bind", "127.0.0.1", "--json", *extra], env=e, cwd=ROOT, check=False,
                                          capture_stdout=True, capture_stderr=True)
        nursery.cancel_scope.cancel()
    return done, lines, signed


async def test_play_again_refuses_an_impostor_at_the_hosts_old_address(last_game):
    ada, bea, game_id, _ = last_game
    done, lines, signed = await _friend_meets_an_impostor(last_game)
    assert not signed, "Bea's node signed the impostor's genesis"
    assert not any("joined" in line for line in lines), lines
    assert done is not None and done.returncode == 1, done
    err = done.stderr.decode().strip().splitlines()
    assert len(err) == 1 and "Traceback" not in done.stderr.decode(), err
    real = key_pin(_seats(ada, game_id)[0]).hex()
    assert "someone other than Ada answered at Ada's address of the last game" in err[0] and real in err[0], err
    assert not [json.loads(x) for x in done.stdout.decode().splitlines() if '"genesis"' in x]


async def test_not_this_time_is_told_only_to_the_real_host(last_game):
    ada, bea, game_id, _ = last_game
    done, lines, signed = await _friend_meets_an_impostor(last_game, "--decline")
    assert not any("declined" in line for line in lines), lines     # the impostor never heard Bea's decline
    assert done is not None and done.returncode == 1, done
    err = done.stderr.decode().strip().splitlines()
    assert len(err) == 1 and "someone other than Ada answered" in err[0], err
    assert '"declined"' not in done.stdout.decode()


def test_a_stranger_is_refused_by_a_play_again_lobby_and_the_friend_reaches_the_real_host(last_game, tmp_path):
    ada, bea, game_id, port = last_game
    cy = tmp_path / "cy"
    cy.mkdir()
    again = _caravan(["rematch", game_id[:16], "--no-discovery", "--bind", "127.0.0.1", "--json"], ada)
    procs = [again]
    try:
        new_port = read_until(again, "lobby", timeout=60)["port"]
        assert new_port == port                                  # the old port: where Bea's node looks
        stranger = _caravan(["join", f"127.0.0.1:{new_port}", "--bot", "random", "--bind", "127.0.0.1", "--json"], cy)
        procs.append(stranger)
        assert finish([stranger], timeout=60) == [1]
        err = (cy / "person.log").read_text().strip().splitlines()
        assert err and "the host refused: this table plays a game again: only its players may join it" in err[-1], err
        friend = _caravan(["rematch", game_id[:16], "--bot", "random", "--bind", "127.0.0.1", "--json"], bea)
        procs.append(friend)
        new_id = read_until(friend, "start", timeout=60)["game_id"]
        assert finish([again, friend], timeout=120) == [0, 0]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert new_id != game_id and sorted(_seats(ada, new_id)) == sorted(_seats(ada, game_id))
