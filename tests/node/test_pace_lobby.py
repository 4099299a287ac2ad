"""A turn-based table from the lobby to the verifier (issue 33): the host's lobby advertises
its pace, the joiner is told it and signs the genesis carrying it, and the lobby lines,
`caravan games` and `caravan verify` show the time per move."""

from __future__ import annotations

import trio

from node.app import operations as app, output, runner
from node.cli import main as cli
from node.net import discovery
from node.storage.stored import stored_games
from protocol import genesis as G, transcript
from tests.helpers import free_udp_port, timeout as scaled
from tests.node.conftest import games  # noqa: F401  (registers the fixture game)


class Lines(output.Status):
    """The status lines a seat's node says, kept."""

    def __init__(self) -> None:
        super().__init__(quiet=True)
        self.lines: list[str] = []

    def __call__(self, text: str, kind: str = "status", **fields) -> None:
        self.lines.append(text)


async def test_a_turn_based_table_is_hosted_joined_played_and_shown(tmp_path, capsys):
    udp = free_udp_port()
    said = [Lines(), Lines()]
    seats = [runner.Seat(tmp_path / f"node{i}", bind="127.0.0.1", bot="random", seed=i, status=said[i],
                         out=tmp_path / f"out{i}.caravan") for i in range(2)]
    results = {}
    with trio.fail_after(scaled(60)):
        async with trio.open_nursery() as nursery:
            async def host() -> None:
                results[0] = await app.host("fixture", 2, {"rounds": 1}, seats[0], time_limit=2 * 3600,
                                               pace=G.TURN_BASED, discovery_target="127.0.0.1", discovery_port=udp)
            nursery.start_soon(host)
            found = await discovery.discover(5, udp, "127.0.0.1", until_first=True)
            results[1] = await app.join(f"127.0.0.1:{found[0].port}", seats[1], udp, "127.0.0.1", 5)
    assert results[0] == results[1] is not None
    data = (tmp_path / "out0.caravan").read_bytes()
    assert data == (tmp_path / "out1.caravan").read_bytes()
    genesis = G.parse(transcript.load(data)[0])
    assert genesis.pace == G.TURN_BASED and genesis.time_limit == 2 * 3600
    assert any(line.startswith("hosting Dice duel (test fixture) for 2 players (turn-based, 2 h per move): lobby")
               for line in said[0].lines), said[0].lines
    assert any(line.startswith("joined lobby") and "; turn-based, 2 h per move); waiting" in line
               for line in said[1].lines), said[1].lines
    (game,) = stored_games(tmp_path / "node1")
    assert (game.pace, game.time_limit) == (G.TURN_BASED, 2 * 3600)
    assert "fixture, 2 seats, turn-based, 2 h per move, you are seat 1" in game.describe()
    capsys.readouterr()
    assert cli.main(["verify", str(tmp_path / "out0.caravan")]) == 0
    assert "  pace: turn-based, 2 h per move\n" in capsys.readouterr().out
