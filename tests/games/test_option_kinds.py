"""Every option of every game is described once, in protocol/games/<game>/options.py OPTIONS
(kind, allowed values, rule): the engine's default fits its own description at every player
count, the description's check is the engine's check, and every preset is a game the engine
accepts (issue 36, options as controls)."""

from __future__ import annotations

import pytest

from protocol import engine as E
from protocol import games
from tests.games.conformance import options_module

GAMES = [g for g in games.names() if options_module(g) is not None]
KINDS = {"choice", "yesno", "number", "seats"}
_module = options_module


@pytest.mark.parametrize("game", GAMES)
def test_every_option_has_a_kind_and_its_default_fits(game):
    engine, mod = games.get(game), _module(game)
    for n in range(engine.min_players, engine.max_players + 1):
        defaults = engine.default_options(n)
        assert set(mod.OPTIONS) == set(defaults), (game, n)
        for key, option in mod.OPTIONS.items():
            assert option.kind in KINDS, key
            assert option.help.strip() and option.rule.strip(), key
            if option.kind in ("choice", "seats"):
                assert len(option.choices) >= 2 and len(set(option.choices)) == len(option.choices), key
            if option.kind == "number":
                assert option.min is not None and (option.max is None or option.max > option.min), key
            assert option.fits(defaults[key], n), (game, key, defaults[key])
            assert mod.OPTION_HELP[key]["values"] == option.words()


@pytest.mark.parametrize("game", GAMES)
def test_the_engine_refuses_what_the_description_refuses(game):
    """Just outside each range, a wrong type, an unknown choice: the engine's new_game says no,
    naming the option; just inside it says yes."""
    engine, mod = games.get(game), _module(game)
    n = engine.min_players
    for key, option in mod.OPTIONS.items():
        bad: list = ["nonsense", None]
        good: list = []
        if option.kind == "yesno":
            bad += [1, "true"]
            good += [True, False]
        elif option.kind == "number":
            bad += [option.min - 1, float(option.min), str(option.min), True]
            good += [option.min] + ([option.max] if option.max is not None else [option.min + 1000])
            if option.max is not None:
                bad.append(option.max + 1)
        elif option.kind == "choice":
            good += list(option.choices)
            bad += [str(c) for c in option.choices if not isinstance(c, str)]
        else:
            good += [list(option.choices[:n])]
            bad += [[option.choices[0]] * n, list(option.choices[:n + 1]), list(option.choices[:n - 1])]
        for value in good:
            engine.new_game({key: value}, n)
        for value in bad:
            assert not option.fits(value, n), (key, value)
            with pytest.raises(E.BadOptions, match=key):
                engine.new_game({key: value}, n)


@pytest.mark.parametrize("game", GAMES)
def test_two_or_three_presets_each_a_game_the_engine_accepts(game):
    engine, mod = games.get(game), _module(game)
    assert 2 <= len(mod.PRESETS) <= 3
    assert len({tuple(sorted(p.items())) for p in mod.PRESETS.values()}) == len(mod.PRESETS)
    for name, preset in mod.PRESETS.items():
        assert set(preset) <= set(mod.OPTIONS), name
        for n in range(engine.min_players, engine.max_players + 1):
            engine.new_game(preset, n)


def test_words_say_the_range():
    assert E.Option("number", "h", "r", min=0, max=4).words() == "a whole number 0-4"
    assert E.Option("number", "h", "r", min=1).words() == "a whole number 1 or more"
    assert E.Option("choice", "h", "r", choices=("a", "b", "c")).words() == "a, b or c"
    assert E.Option("yesno", "h", "r").words() == "true or false"


def test_a_refused_value_is_shown_short():
    """A hand-made request can send anything: the error stays one short line."""
    option = E.Option("number", "h", "R-1", min=1, max=200)
    for value, shown in [(10 ** 5000, "a number too long"), ("x" * 500, "'" + "x" * 56 + "...")]:
        with pytest.raises(E.BadOptions) as err:
            option.check("turn_limit", value, 2)
        assert str(err.value) == f"option 'turn_limit' must be a whole number 1-200, not {shown} (R-1)"
