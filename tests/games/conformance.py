"""The conformance checks every registered game passes (tests/games/test_conformance.py), also used
by the games' own bulk simulations so that each check is written once.

A game's own rules come in through its hooks module, `tests/games/<game>/conformance.py` or, for a
game installed from its own package, the `conformance` module beside its engine (every name
optional; a game without one, e.g. a fixture game, gets the defaults):

    invariants(state)            asserts the game's invariants (after every step)
    BAD_ACTIONS                  actions worth trying where they are not legal
    random_options(rng, n)       options for one random game (default: the defaults)
    hidden_words(ref, viewer)    words the viewer's picture must not show (another seat's secrets)
    OPTION_HELP, OPTION_BATTERY, OPTION_VARIED, OPTION_COUNTS, OPTION_QUICK, OPTION_BASE,
    play_options(n, seed, combo) the option battery (tests/games/option_battery.py)
    RECORDED_OPTIONS             option sets of the recorded games (tests/games/recorded_games.py)
    SHORT_GAME                   (players, options) of a short game, for tests of the plumbing
                                 (tests/games/pick.py)
    NODE_GAME                    (players, options) of a game played over real nodes (tests/node/test_node_games.py)
    SAMPLER_CASES                [(players, options), ...] the samplers are checked on (tests/bots/test_sampling.py;
                                 default: the fewest players, the default options)
    SAMPLER_EVERY                the sampler test's positions: every Nth step of its game (default 23)
    SAMPLER_GAP                  why the game's sampler does not yet keep all the seat knows (its check is
                                 an expected failure, strict: it must be removed once fixed)
    sampled_truth(ref, world)    asserts what the game's sampled hidden values must be (default: the true
                                 values of a deck, reordered)
    vary_hidden(ref, truth, hidden, rng)  other hidden values where shuffling them changed nothing
                                 (tests/bots/worlds.py)
    WATCH_GAME                   (players, options, bot delay in s) of a game long enough for a spectator
                                 to join mid-game (tests/node/test_spectate.py; default: its short game, 0.05)
    END_REASON                   (players, options, words, raw key) of a short game whose end reason the
                                 table page says in words, never as the raw key (tests/web/test_home_bugs36.py)
    PIECES                       CSS classes of the board picture's pieces, each with a tooltip naming whose
                                 it is (tests/web/test_table_bugs.py)
    TURN_BASED_OPTIONS           options of a 3-seat turn-based table whose nodes never run together
                                 (tests/relay/test_turn_based_mail.py; default: its short game's)
    RL_GAME                      (players, options) of the RL environment's games (tests/bots/test_rl.py;
                                 default: the fewest players, the default options)
"""

from __future__ import annotations

import functools
import importlib
import random
from types import ModuleType
from typing import Any, Callable

import pytest

from protocol import engine as E
from protocol import games, wire
from protocol.referee import Referee

JUNK: tuple[Any, ...] = (None, "fly", 7, -1, 2.5, [], ["fly"], [None], ["done", 99, 99], {"a": 1})
"""Actions no game accepts anywhere."""

MAX_STEPS = 50_000


@functools.cache
def hooks(game: str) -> ModuleType | None:
    """The game's hooks module: tests/games/<game>/conformance.py, else the `conformance` module
    beside its engine (a game installed from its own package keeps its hooks there); or None."""
    package = type(games.get(game)).__module__.rpartition(".")[0]
    for module in [f"tests.games.{game}.conformance"] + ([f"{package}.conformance"] if package else []):
        try:
            return importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if not (exc.name and module.startswith(exc.name)):
                raise
    return None


def options_module(game: str) -> ModuleType | None:
    """The `options` module beside the game's engine (OPTIONS, OPTION_HELP, PRESETS), or None."""
    return games.options_module(game)


def hook(game: str, name: str, default: Any = None) -> Any:
    return getattr(hooks(game), name, default)


def invariants_of(game: str) -> Callable[[Any], None]:
    return hook(game, "invariants", lambda state: None)


def options_for(game: str, rng: random.Random, n: int) -> dict[str, Any] | None:
    make = hook(game, "random_options")
    return None if make is None else make(rng, n)


def check_round_trips(engine: Any, state: Any) -> None:
    """clone, encode/decode and the wire encoding give back an equal state, canonically."""
    enc = engine.encode(state)
    assert engine.encode(engine.clone(state)) == enc
    raw = wire.encode(enc)
    back = engine.decode(wire.decode(raw))
    assert engine.encode(back) == enc and wire.encode(engine.encode(back)) == raw


def _refused(engine: Any, state: Any, event: Any, before: Any) -> None:
    with pytest.raises(E.IllegalAction) as exc:
        engine.apply(state, event)
    assert exc.value.rule, f"{event!r}: an IllegalAction names its rule"
    assert engine.encode(state) == before, f"{event!r} was refused but changed the state"


def _mutations(action: Any) -> list[Any]:
    if isinstance(action, list) and len(action) > 1:
        return [action + [0], action[:1] + [x + 97 if type(x) is int else x for x in action[1:]]]
    return [[action, 0]]


def check_refusals(engine: Any, ref: Referee, rng: random.Random, bad: tuple = ()) -> None:
    """Actions outside the legal list, an out-of-turn act and events of the wrong kind are refused
    with the state unchanged."""
    st = ref.state
    before = engine.encode(st)
    step = engine.expected(st)
    if isinstance(step, E.Decide):
        legal = engine.legal_actions(st, step.seat, ref.knowledge[step.seat])
        cands = [a for a in (*JUNK, *bad, *_mutations(legal[0]), *_mutations(rng.choice(legal)))
                 if a not in legal and not _claims(engine, st, step.seat, a)]
        for a in rng.sample(cands, min(6, len(cands))):
            _refused(engine, st, E.Act(step.seat, a), before)
        other = (step.seat + 1) % st_players(ref)
        _refused(engine, st, E.Act(other, legal[0]), before)
        _refused(engine, st, E.DeckShown(0, ()), before)
    elif isinstance(step, E.Simultaneous):
        _refused(engine, st, E.Choices(tuple(["fly"] for _ in step.seats)), before)
    elif not isinstance(step, E.Finished):
        _refused(engine, st, E.Act(0, bad[0] if bad else ["fly"]), before)


def _claims(engine: Any, state: Any, seat: int, action: Any) -> bool:
    """The action claims hidden values: the session checks those before `apply`, so apply alone
    may take it (a seat's own card it does not hold is the session's to refuse)."""
    try:
        return bool(engine.reveals(state, seat, action))
    except Exception:
        return False


def st_players(ref: Referee) -> int:
    return len(ref.knowledge)


def check_legal_actions(engine: Any, ref: Referee, rng: random.Random, invariants: Callable,
                        sample: int = 4) -> None:
    """Sampled legal actions: reveal only the truth, apply (to clones) keeping the invariants,
    and the clones share nothing with the state."""
    st = ref.state
    step = engine.expected(st)
    if not isinstance(step, E.Decide):
        return
    seat = step.seat
    legal = engine.legal_actions(st, seat, ref.knowledge[seat])
    assert legal, "a Decide step with no legal action"
    before = engine.encode(st)
    for action in (legal if len(legal) <= sample else rng.sample(legal, sample)):
        c = engine.clone(st)
        for h, v in engine.reveals(c, seat, action):
            assert ref.truth[h] == v
        engine.apply(c, E.Act(seat, action))
        invariants(c)
    assert engine.encode(st) == before, "a clone shared something with the state"


def check_result(engine: Any, state: Any, n: int) -> dict[str, Any]:
    res = engine.result(state)
    assert res is not None and res["winners"] and len(res["scores"]) == n, res
    assert set(res["winners"]) <= set(range(n))
    best = max(res["scores"])
    assert all(res["scores"][w] == best for w in res["winners"]), res
    return res


def play_checked(game: str, n: int, seed: int, options: dict | None = None, sample: float = 0.05,
                 bad: tuple | None = None, invariants: Callable | None = None) -> Referee:
    """A random game to the end: the invariants after every step; on a sample of steps the round
    trips, the legal actions on clones and the refusals; the result at the end."""
    engine = games.get(game)
    invariants = invariants or invariants_of(game)
    bad = hook(game, "BAD_ACTIONS", ()) if bad is None else bad
    rng = random.Random(seed * 7919 + n)
    ref = Referee(engine, n, options, seed=seed)
    choose = lambda seat, legal, r: legal[rng.randrange(len(legal))]      # noqa: E731
    for steps in range(MAX_STEPS):
        if rng.random() < sample:
            check_round_trips(engine, ref.state)
            check_legal_actions(engine, ref, rng, invariants)
            check_refusals(engine, ref, rng, bad)
        if ref.step(choose) is None:
            break
        invariants(ref.state)
    else:
        raise AssertionError(f"{game}: no end after {MAX_STEPS} steps")
    assert engine.expected(ref.state) == E.Finished()
    check_round_trips(engine, ref.state)
    check_result(engine, ref.state, n)
    return ref


def state_hashes(game: str, n: int, seed: int, options: dict | None) -> list[bytes]:
    """Every state's canonical bytes along one seeded random game."""
    engine = games.get(game)
    rng = random.Random(seed)
    ref = Referee(engine, n, options, seed=seed)
    out = [wire.encode(engine.encode(ref.state))]
    while ref.step(lambda seat, legal, r: legal[rng.randrange(len(legal))]) is not None:
        out.append(wire.encode(engine.encode(ref.state)))
    return out
