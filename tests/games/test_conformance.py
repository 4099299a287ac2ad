"""The conformance battery, written once and run over every registered game (issue 37 item 2):
random games to the end with the game's invariants, clone/encode round trips, illegal actions
refused with the state unchanged, determinism, narration of every event and legal move, the
board pictures of every seat, the options, and the bots' legality.

A game's own invariants, illegal actions, options and secrets come from its hooks module
(tests/games/conformance.py says which). The test fixture games take part too, with the
defaults, so the parameters are the same whichever conftests a run loaded."""

from __future__ import annotations

import logging
import random
import xml.etree.ElementTree as ET

import pytest

from clients import games as presentations
from clients import narrate, render
from clients.bot import make_bot
from protocol import engine as E
from protocol import games
from protocol.referee import Referee
from tests.fixture_deck_game import ENGINE as DECK_FIXTURE
from tests.fixture_game import ENGINE as FIXTURE

from . import conformance as C
from .option_battery import FULL_GAMES, check_help, run_battery, slow

games.register(FIXTURE)
games.register(DECK_FIXTURE)
GAMES = games.names()
PRESENTED = [g for g in GAMES if presentations.get(g) is not presentations.NONE]
OPTIONED = [g for g in GAMES if C.hook(g, "OPTION_BATTERY") is not None]
RANDOM_GAMES = 2          # per game and player count (the games' own bulk simulations play thousands)


def _players(game: str) -> range:
    engine = games.get(game)
    return range(engine.min_players, engine.max_players + 1)


@pytest.mark.parametrize("game", GAMES)
def test_random_games_end_with_the_invariants_round_trips_and_refusals(game):
    for n in _players(game):
        for g in range(RANDOM_GAMES):
            seed = 1000 * n + g
            C.play_checked(game, n, seed, C.options_for(game, random.Random(seed), n), sample=0.05)


@pytest.mark.parametrize("game", GAMES)
def test_the_same_seed_gives_the_same_states_and_replaying_the_events_too(game):
    engine = games.get(game)
    n = engine.min_players + 1 if engine.max_players > engine.min_players else engine.min_players
    for seed in (7,):
        options = C.options_for(game, random.Random(seed), n)
        first = C.state_hashes(game, n, seed, options)
        assert C.state_hashes(game, n, seed, options) == first
        rng = random.Random(seed)
        ref = Referee(engine, n, options, seed=seed)
        events = []
        while (ev := ref.step(lambda s, legal, r: legal[rng.randrange(len(legal))])) is not None:
            events.append(ev)
        state = engine.new_game(ref.options, n)
        for ev in events:
            engine.apply(state, ev)
        assert engine.encode(state) == engine.encode(ref.state)
    assert C.state_hashes(game, n, 7, options) != C.state_hashes(game, n, 9, options)


def _targets(svg: str) -> set[str]:
    return {el.get("data-target") for el in ET.fromstring(svg).iter() if el.get("data-target")}


@pytest.mark.parametrize("game", PRESENTED)
def test_every_event_and_legal_move_has_words_and_every_seat_a_picture(game, caplog):
    """A narrated random game for every viewer: each event has sentences, each legal move its own
    words (never the raw action under "Other"); at a few points every seat's and the spectator's
    picture parses, fits a terminal as text and shows none of another seat's secrets. The game's
    narration and pictures never fail (they would fall back to plain words and log an error)."""
    caplog.set_level(logging.ERROR)
    engine = games.get(game)
    hidden = C.hook(game, "hidden_words", lambda ref, viewer: ())
    words_of = presentations.module(game, "narrate").moves
    for n in (engine.max_players,):           # (the games' presentation tests play every count)
        rng = random.Random(n)
        ref = Referee(engine, n, C.options_for(game, rng, n), seed=n)
        names = [f"P{s}" for s in range(n)]
        viewers = [None, *range(n)]
        tables = {v: narrate.Table(engine, ref.options, n, v, names) for v in viewers}
        steps = pictures = 0
        while True:
            step = engine.expected(ref.state)
            if isinstance(step, E.Decide) and step.seat >= 0:
                legal = ref.legal(step.seat)
                words = words_of(ref.view(step.seat), legal, step.seat)
                assert len(words) == len(legal)
                for m in words:
                    assert m["text"] and m["group"] != "Other" and "[" not in m["text"], m
            ev = ref.step(lambda s, legal, r: legal[rng.randrange(len(legal))])
            if ev is None:
                break
            steps += 1
            for v in viewers:
                _, lines = tables[v].apply(ev, ref.knowledge[v] if v is not None else None)
                assert lines and all(isinstance(x, str) and x for x in lines), (v, ev)
            if steps % 97 == 1:
                pictures += _check_pictures(game, ref, viewers, names, hidden)
        pictures += _check_pictures(game, ref, viewers, names, hidden)
        assert pictures > len(viewers)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


def _check_pictures(game, ref, viewers, names, hidden) -> int:
    for v in viewers:
        view = ref.view(v)
        svg = render.svg(game, view, names)
        ET.fromstring(svg)
        text = render.text(game, view, names)
        lines = text.splitlines()
        assert len(lines) <= 40 and max(len(x) for x in lines) <= 100, text
        for word in hidden(ref, v):
            assert word not in svg and word not in text, f"{word} shown to viewer {v}"
    return len(viewers)


def _bot_kinds(game: str) -> list[tuple[str, int]]:
    """(kind, decisions to check): every bot the game has; the search bot on a few decisions."""
    shown = presentations.get(game)
    return ([("random", 400)] + ([("heuristic", 400)] if shown.bots else [])
            + ([("search", 3)] if shown.bots and shown.sampler else []))


@pytest.mark.parametrize("game", GAMES)
def test_every_bot_picks_a_legal_action(game, caplog):
    caplog.set_level(logging.ERROR)
    engine = games.get(game)
    n = engine.min_players
    for kind, decisions in _bot_kinds(game):
        bots = [make_bot(kind, game, s, iterations=12) for s in range(n)]
        rng = random.Random(3)
        ref = Referee(engine, n, C.options_for(game, rng, n), seed=3)
        picks = 0

        def choose(seat, legal, r):
            nonlocal picks
            bot = bots[seat]
            action = bot.choose(r.view(seat) if bot.wants_view else None, legal)
            assert action in legal, (kind, action)
            picks += len(legal) > 1
            return action
        while picks < decisions and ref.step(choose) is not None:
            pass
        assert picks > 0
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


@pytest.mark.parametrize("game", OPTIONED)
def test_option_help_lists_every_option(game):
    check_help(games.get(game), C.hook(game, "OPTION_HELP"), C.hook(game, "OPTION_BATTERY"),
               varied=C.hook(game, "OPTION_VARIED", set()))


def _option_battery(game: str, games_each: int) -> None:
    run_battery(C.hook(game, "play_options"), C.hook(game, "OPTION_BATTERY"), C.hook(game, "OPTION_COUNTS"),
                games_each, C.hook(game, "OPTION_BASE"))


@pytest.mark.parametrize("game", OPTIONED)
def test_every_option_combination_quick(game):
    _option_battery(game, C.hook(game, "OPTION_QUICK"))


@pytest.mark.slow
@slow
@pytest.mark.parametrize("game", OPTIONED)
def test_every_option_combination_200_games(game):
    _option_battery(game, FULL_GAMES)
