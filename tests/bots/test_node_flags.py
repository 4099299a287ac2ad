"""`--bot search` in a node: the flags reach the bot, and the node runs it in a thread."""

from __future__ import annotations

import pytest
import trio

from clients.bot import make_bot
from clients.bots.search import SearchBot
from node.cli.main import _seat, build_parser
from node.app.client_api import BotDecider
from tests.games.pick import some_game
from tests.helpers import timeout

from .worlds import positions


def test_think_and_iterations_reach_the_seat(tmp_path):
    args = build_parser().parse_args(["join", "127.0.0.1:1", "--bot", "search", "--iterations", "7",
                                      "--think", "0.5", "--data-dir", str(tmp_path)])
    seat = _seat(args)
    assert (seat.bot, seat.think, seat.iterations) == ("search", 0.5, 7)
    bot = make_bot(seat.bot, some_game("sampler"), seat.seed, seat.think, seat.iterations)
    assert isinstance(bot, SearchBot) and bot.iterations == 7 and bot.think == 0.5


async def test_the_node_keeps_running_while_the_search_bot_thinks():
    game = some_game("sampler", players=3)
    for ref in positions(game, 3, None, seed=1, every=1):
        seat = getattr(ref.engine.expected(ref.state), "seat", None)
        if seat is not None and len(ref.legal(seat)) > 1:
            break
    else:
        pytest.fail(f"{game}: no decision with a choice in a random game")
    decider = BotDecider(SearchBot(game, seed=1, think=timeout(0.3)))
    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            await trio.sleep(0.01)        # stays (CONTRIBUTING): the tick is what is counted
            ticks += 1

    with trio.fail_after(timeout(30)):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(ticker)
            action = await decider(ref.view(seat), ref.legal(seat), "act")
            nursery.cancel_scope.cancel()
    assert action in ref.legal(seat)
    assert ticks >= 5                     # the event loop ran meanwhile (blocking would give 0)
