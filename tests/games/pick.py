"""Games for tests that need "some game", picked among the installed ones (never by name, issue 37):
by what the test needs of it, found by playing it, and with the short game its hooks give.

    some_game("deck", "dice")       the first installed game (by name) that shuffles a deck and
                                    rolls dice (players=N: that seats N players)
    short_game(game)                (players, options) of a short game (its hooks' SHORT_GAME)
    quick_game(3)                   the game quickest to play over real nodes for 3 players
    fewest_decisions(3)             the game whose short game asks its 3 players the fewest decisions
                                    (among=[...]: of those games only)

Capabilities, from the steps of one random game: "dice" (a chance draw), "simultaneous"
(choices made at once, revealed together), "commit" (a hidden choice, revealed later), "deck" (a shuffled deck), "show" (a card only one seat sees), "return"
(a card put back in a deck); and, from its presentation: "narrate", "render", "heuristic", "sampler"
(what the search bot deals its worlds with)."""

from __future__ import annotations

import functools
import random
from typing import Any

from clients import games as presentations
from protocol import engine as E
from protocol import games
from protocol.referee import Referee, random_chooser
from tests.games.conformance import hook

_STEPS = {E.Random: "dice", E.Simultaneous: "simultaneous", E.Commit: "commit", E.DeckShuffle: "deck",
          E.DeckShow: "show", E.DeckReturn: "return"}
_DECISIONS = (E.Decide, E.Simultaneous, E.Commit)
_PARTS = {"narrate": "narrate", "render": "render", "heuristic": "bots", "sampler": "sampler"}


def installed() -> list[str]:
    """The games installed through the caravan.games entry points, by name: the ones a node
    process knows (a test process may also hold fixture games registered by hand)."""
    return sorted(games.REGISTRY.registered())


def short_game(game: str) -> tuple[int, dict[str, Any]]:
    """(players, options) of a short game of `game`: its hooks' SHORT_GAME, else the fewest
    players and the default options."""
    found = hook(game, "SHORT_GAME")
    return found if found is not None else (games.get(game).min_players, {})


def cli_options(options: dict[str, Any]) -> list[str]:
    """Options as the command line's `-o KEY=VALUE` values."""
    return [f"{key}={str(value).lower() if isinstance(value, bool) else value}" for key, value in options.items()]


def option_args(options: list[str]) -> list[str]:
    """`-o KEY=VALUE` values (cli_options) as command-line arguments: ["-o", v1, "-o", v2, ...]."""
    return [arg for value in options for arg in ("-o", value)]


@functools.cache
def _played(game: str, players: int) -> tuple[frozenset[str], int]:
    """(the kinds of step, the number of steps) of one random short game of `game`."""
    return _random_game(game, players)[:2]


@functools.cache
def _random_game(game: str, players: int) -> tuple[frozenset[str], int, int]:
    """(the kinds of step, the number of steps, the number of decisions) of one random short
    game of `game`."""
    engine = games.get(game)
    ref = Referee(engine, players, {**engine.default_options(players), **short_game(game)[1]}, seed=1)
    seen: set[str] = set()
    decisions = 0
    choose = random_chooser(random.Random(1))
    for steps in range(20_000):
        expected = engine.expected(ref.state)
        seen.update(name for kind, name in _STEPS.items() if isinstance(expected, kind))
        decisions += isinstance(expected, _DECISIONS)
        if ref.step(choose) is None:
            break
    return frozenset(seen), steps, decisions


@functools.cache
def capabilities(game: str) -> frozenset[str]:
    """What `game` does, from the steps of one short random game and from its presentation."""
    seen = set(_played(game, short_game(game)[0])[0])
    shown = presentations.get(game)
    seen.update(name for name, part in _PARTS.items() if getattr(shown, part) is not None)
    return frozenset(seen)


def longest_game(players: int, *needs: str) -> str:
    """The installed game (with `needs`, seating `players`) whose short game takes the most steps,
    for tests that must catch a game while it is being played."""
    return max(games_with(*needs, players=players), key=lambda game: (_played(game, players)[1], game))


def quick_game(players: int) -> str:
    """The installed game quickest to play over real nodes for `players`, for tests of the
    plumbing: one without a deck if any (a deck's shuffle and decryption proofs are most of a
    real-node game's CPU), then the fewest steps in its short game."""
    def cost(game: str) -> tuple[bool, int, str]:
        kinds, steps = _played(game, players)
        return "deck" in kinds, steps, game
    return min(games_with(players=players), key=cost)


def fewest_decisions(players: int, among: list[str] | None = None) -> str:
    """The installed game (seating `players`, one of `among` if given) whose short game asks
    for the fewest decisions, for tests where a person (a page's clicks) or a node run per
    turn makes each one."""
    found = [g for g in games_with(players=players) if among is None or g in among]
    return min(found, key=lambda game: (decisions(game, players), game))


def decisions(game: str, players: int) -> int:
    """How many decisions (one seat's, or made at once, or committed) one random short game
    of `game` for `players` asks."""
    return _random_game(game, players)[2]


def games_with(*needs: str, players: int | None = None) -> list[str]:
    """Every installed game with all of `needs` (and seating `players`), by name."""
    seat = [g for g in installed() if players is None
            or games.get(g).min_players <= players <= games.get(g).max_players]
    return [g for g in seat if not needs or set(needs) <= capabilities(g)]


def covering(players: int, kinds: tuple[str, ...] = tuple(_STEPS.values())) -> list[str]:
    """Few installed games (seating `players`) that together show every kind of step any of them
    shows (picked greedily, the most new kinds first, then by name): for tests too costly to run
    over every game."""
    left = set().union(*(capabilities(g) for g in games_with(players=players))) & set(kinds)
    picked: list[str] = []
    while left:
        best = max(games_with(players=players), key=lambda g: len(capabilities(g) & left))   # the first by name
        picked.append(best)
        left -= capabilities(best)
    return sorted(picked)


def some_game(*needs: str, players: int | None = None) -> str:
    """The first installed game (by name) with all of `needs` (and seating `players`); fails
    saying what none has."""
    found = games_with(*needs, players=players)
    assert found, f"no installed game has {', '.join(needs) or 'a seat'} for {players or 'any number of'} players"
    return found[0]


def quick(players: int) -> tuple[str, list[str]]:
    """(quick_game(players), its short game's options as `-o` values)."""
    game = quick_game(players)
    return game, cli_options(short_game(game)[1])
