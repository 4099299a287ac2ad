"""Nomads of Arabia's presentation (clients.games): its modules and per-game client settings."""

from __future__ import annotations

from typing import Any

from . import Presentation

_r = lambda n: tuple(range(n))          # noqa: E731


def rl_key(action: Any, knowledge: dict[int, Any]) -> tuple | None:
    """A yellow tile played (["tile", handle, tile]) is named by its tile, not its handle."""
    if isinstance(action, (list, tuple)) and len(action) == 3 and action[0] == "tile":
        return ("tile", action[2])
    return None


HOW_TO_PLAY = (
    # a short summary in the rulebook's own terms (the rules as implemented, the rulebook quoted:
    # specs/nomads-of-arabia.md)
    ("Goal",
     "When the Mecca tile is placed on a city the game is over at once: the player with the most dinars "
     "wins (dinar tiles still held count); equal dinars — the most animals wins."),
    ("A turn",
     "You may move your nomad one or two spaces at the start of your turn (or stay; from a city you may "
     "depart to another), hiring traders as you go. Then you may carry out one action."),
    ("Actions",
     "Catch: on a landscape space, roll all your trader dice and take one animal of each rolled kind from "
     "the matching landscape box (all blanks: one animal of your choice). Lure: roll, and for each animal "
     "rolled two of that kind come from the market into the box. Let the desert move: from a desert space,"
     " take away the card farthest from the pilgrim. Sell: on a city, sell some or all of your animals at "
     "the market's prices (one sale per turn)."),
    ("The desert and the cities",
     "When the desert moves, the board card farthest from the pilgrim is removed and a new one comes in; "
     "nomads on the removed card are lost in the desert: they give up their traders, keep two animals and "
     "travel with the pilgrim. Yellow city tiles are picked up and give one-off powers (Sands of Time is "
     "an extra turn, at the end of a turn or between any two players' turns); blue tiles cannot be picked "
     "up: +1 makes that kind of animal worth one dinar more in that city, and Mecca ends the game."),
    ("Markets",
     "An animal sold is paid the lowest number visible on its market space; animals taken from a market "
     "uncover higher numbers, animals coming back cover the lowest ones. Refill throws put animals into "
     "the landscape boxes."),
)
"""How to play, on the table page: (heading, paragraph) pairs."""


PRESENTATION = Presentation(
    narrate="clients.narrate.nomads",
    render="clients.render.nomads",
    bots="clients.bots.nomads",
    sampler="clients.bots.sample_nomads",
    search_horizon=24,          # a Nomads turn is many small decisions (3p vs heuristic: 1/3 -> 2/3 at 0.3 s)
    heuristic_playouts=True,
    rl_actions=(
        ("box", _r(5)), ("catch",), ("depart",), ("done",), ("goto", _r(5), _r(8)), ("hire", _r(4)),
        ("keep", _r(8), _r(8)),
        ("lure",), ("move", _r(5), _r(8)), ("pass",), ("pilgrim",), ("place", _r(5), _r(8)),
        ("sell", _r(4), _r(8)), ("stay",), ("take", _r(4)), ("take", _r(5), _r(4)),
        ("tile", _r(8)),                        # a yellow tile played, by its tile (not its handle)
        ("walk",),
    ),
    rl_key=rl_key,
    rl_obs_size=512,
    screenshot=(4, 300),
    how_to_play=HOW_TO_PLAY,
    result_labels={"scores": "Dinars (with tiles)", "tile_dinars": "Dinars from tiles", "animals": "Animals"},
    tie_break=('animals', 'the most animals'),
    order=2,
)
