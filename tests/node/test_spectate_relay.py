"""Spectators through a real Mosquitto (issue 26): a relayed game whose host allowed them
prints a watch invite on every player's node; `caravan watch INVITE` ends with the players'
transcript byte for byte, and so does a watcher given the lobby's invite before the game
starts; without the host's consent (the default through a broker) a player's node and a
lobby refuse a spectator with a clear line."""

from __future__ import annotations

from protocol.verify import verify_bytes
from tests.games.pick import quick
from tests.node.procs import finish, node, read_until
from tests.node.test_spectate import NORMAL
from tests.relay.conftest import broker  # noqa: F401 - the fixture
from tests.relay.nodes import RelayedGame


THREE = quick(3)
TWO = quick(2)
"""(game, -o values) of the installed games quickest over real nodes for 3 and for 2 players:
the tests are about the broker's watch links, not a game."""


def _watch(tmp_path, name: str, invite: str):
    return node(["watch", invite, "--json", "--out", str(tmp_path / f"{name}.caravan"), *NORMAL], tmp_path / name,
                tmp_path / f"{name}.log")


def test_spectators_through_the_broker_with_a_watch_invite(tmp_path, broker):  # noqa: F811
    g = RelayedGame(tmp_path, broker.url, THREE[0], 3, THREE[1], host_args=["--spectators", "yes"], bot_delay=0.05)
    try:
        game_id = g.wait_started()
        invites = [read_until(p, "watch_invite", timeout=20)["invite"] for p in g.procs]
        prefix = f"caravan+mqtt://127.0.0.1:{broker.port}/watch/{game_id}/"
        assert all(i.startswith(prefix) for i in invites) and len(set(invites)) == 3, invites
        first = _watch(tmp_path, "first", invites[0])              # the host's node
        read_until(first, "event", timeout=60, count=10)
        second = _watch(tmp_path, "second", invites[2])            # a joiner's node, mid-game
        assert read_until(second, "watching", timeout=60)["game_id"] == game_id
        for w in (first, second):
            done = read_until(w, "transcript", timeout=240)
            assert done["verified"] is True, done
        assert finish([first, second], timeout=30) == [0, 0]
        assert g.finish(timeout=120) == [0, 0, 0]
    finally:
        g.kill()
    players_copy = g.transcripts(game_id)[0].read_bytes()
    assert verify_bytes(players_copy).ok
    for name in ("first", "second"):
        assert (tmp_path / f"{name}.caravan").read_bytes() == players_copy


def test_a_relayed_table_refuses_spectators_by_default(tmp_path, broker):  # noqa: F811
    from node.storage.store import load_identity
    from node.app.watch import watch_invite
    from node.net.relay_url import parse_relay_url

    g = RelayedGame(tmp_path, broker.url, THREE[0], 3, THREE[1], bot_delay=0.05)
    try:
        game_id = g.wait_started()
        invite = watch_invite(parse_relay_url(broker.url), bytes.fromhex(game_id), load_identity(g.dirs[0]).public)
        w = _watch(tmp_path, "w", invite)
        assert finish([w], timeout=60) == [1]
        err = (tmp_path / "w.log").read_text()
        assert "refused this spectator: this table does not allow spectators" in err, err
        assert g.finish(timeout=120) == [0, 0, 0]
    finally:
        g.kill()


def test_a_relayed_lobby_is_watched_before_its_game_starts(tmp_path, broker):  # noqa: F811
    g = RelayedGame(tmp_path, broker.url, TWO[0], 2, TWO[1], host_args=["--spectators", "yes"], joiners=0)
    try:
        w = _watch(tmp_path, "w", g.invite)                           # the lobby's invite, nobody seated yet
        assert "waiting in lobby" in read_until(w, "status", timeout=30)["text"]
        g.add_joiner(g.invite)
        game_id = g.wait_started()
        assert read_until(w, "watching", timeout=60)["game_id"] == game_id
        done = read_until(w, "transcript", timeout=120)
        assert done["verified"] is True, done
        assert finish([w], timeout=30) == [0]
        assert g.finish(timeout=120) == [0, 0]
    finally:
        g.kill()
    assert (tmp_path / "w.caravan").read_bytes() == g.transcripts(game_id)[0].read_bytes()


def test_a_relayed_lobby_without_spectators_refuses_them(tmp_path, broker):  # noqa: F811
    g = RelayedGame(tmp_path, broker.url, TWO[0], 2, TWO[1], joiners=0)
    try:
        w = _watch(tmp_path, "w", g.invite)
        assert finish([w], timeout=60) == [1]
        err = (tmp_path / "w.log").read_text()
        assert "does not allow spectators (its host chose --spectators no)" in err, err
    finally:
        g.kill()
