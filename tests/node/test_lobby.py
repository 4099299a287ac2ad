"""Host a lobby, find it by discovery, join, sign the genesis and play to the end."""

import pytest
import trio

from node.app import operations as app, lobby, output, runner
from node.net import discovery
from node.storage.store import load_identity
from protocol.verify import verify_bytes
from tests.helpers import free_udp_port, timeout as scaled
from tests.node.conftest import games  # noqa: F401  (registers the fixture game)


def seat(tmp_path, i: int, **kw) -> runner.Seat:
    return runner.Seat(tmp_path / f"node{i}", bind="127.0.0.1", bot="random", seed=i,
                       status=output.Status(quiet=True), **kw)


async def test_host_discover_join_and_play(tmp_path):
    udp = free_udp_port()
    results = {}
    seats = [seat(tmp_path, i, out=tmp_path / f"out{i}.caravan") for i in range(3)]
    with trio.fail_after(scaled(60)):
        async with trio.open_nursery() as nursery:
            async def host():
                results[0] = await app.host("fixture", 3, {"rounds": 2}, seats[0],
                                               discovery_target="127.0.0.1", discovery_port=udp)
            nursery.start_soon(host)
            found = await discovery.discover(5, udp, "127.0.0.1", until_first=True)
            assert len(found) == 1 and found[0].game == "fixture" and found[0].players == 3
            port = found[0].port

            async def join(i, target):
                results[i] = await app.join(target, seats[i], udp, "127.0.0.1", 5)
            nursery.start_soon(join, 1, found[0].lobby[:6])          # by lobby id, via discovery
            nursery.start_soon(join, 2, f"127.0.0.1:{port}")         # by HOST:PORT
    assert results[0] == results[1] == results[2]
    files = [(tmp_path / f"out{i}.caravan").read_bytes() for i in range(3)]
    assert len(set(files)) == 1 and verify_bytes(files[0]).ok


async def test_join_refuses_a_full_or_missing_lobby(tmp_path):
    with trio.fail_after(scaled(20)):
        with pytest.raises(lobby.LobbyError, match="cannot reach"):
            await lobby.join(load_identity(tmp_path / "x"), "127.0.0.1", 1, 9, b"\0" * 32)


async def test_lobby_rejects_bad_options_before_anyone_joins(tmp_path):
    key = load_identity(tmp_path / "h")
    with pytest.raises(Exception, match="rounds"):
        lobby.Lobby(key, "fixture", 3, {"rounds": 99})
    with pytest.raises(lobby.LobbyError, match="players"):
        lobby.Lobby(key, "fixture", 9, {"rounds": 1})


async def test_only_a_player_of_the_last_game_declines_its_play_again_once(tmp_path):
    """A Play again lobby hears "not this time" from the seats of the game it plays again,
    once each; a stranger's key (or a second decline) is refused and names nobody."""
    host_key, friend, stranger = (load_identity(tmp_path / n) for n in ("h", "f", "s"))
    lines: list[str] = []
    the_lobby = lobby.Lobby(host_key, "fixture", 2, {"rounds": 1}, lines.append,
                            friends=frozenset({host_key.public, friend.public}))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(scaled(30)):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(the_lobby.run, listeners, b"\0" * 32)
            with pytest.raises(lobby.LobbyError, match="the host refused: only a player of the last game"):
                await lobby.decline(stranger, "127.0.0.1", port, "fixture", "Mallory")
            assert not any("declined" in line for line in lines)
            await lobby.decline(friend, "127.0.0.1", port, "fixture", "Bea")
            assert [line for line in lines if "declined" in line] == [
                f"Bea (key {lobby.fingerprint(friend.public)}) declined to play again (1/2 seated: seat 0 the host; "
                "empty: seat 1)"]
            with pytest.raises(lobby.LobbyError, match="the host refused"):
                await lobby.decline(friend, "127.0.0.1", port, "fixture", "Bea")
            assert len([line for line in lines if "declined" in line]) == 1
            nursery.cancel_scope.cancel()
