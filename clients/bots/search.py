"""The search bot: single-observer Information Set MCTS (Cowling, Powley, Whitehouse 2012).

Each iteration imagines one full world consistent with the bot's view (clients/bots/
sample_<game>.py: hidden values are sampled, never read), then walks one shared tree of the
observer's information sets in that world: at each decision the acting seat picks by UCB on
its own reward among the moves available in this world (counting availability, as the paper
does, since worlds differ in what is legal), one new node is added, the game is played out
to its end, and the result is backed up for every seat. Chance steps (dice, draws, shuffles)
are drawn by the referee in each world and do not branch the tree (open loop).

Simultaneous choices and commitments are searched as such: each seat picks from its own
statistics at that node without seeing the others' picks (decoupled UCT), and the node's
child is keyed by the joint choice.

The budget per decision is `think` seconds or exactly `iterations` iterations; with
`iterations` the bot is deterministic for a given seed.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any, Callable

from protocol import engine as E
from protocol import games
from protocol.referee import Referee

from .. import games as presentations
from .base import Bot
from .heuristic import heuristic_bot
from .sampling import clock_for, evaluator_for, sampler_for, stateless

EXPLORATION = 0.7              # UCB constant for rewards in [0, 1]
SCORE_WEIGHT = 0.2             # part of the reward from the score rank (wins alone are too sparse)
MAX_PLAYOUT_STEPS = 20_000     # a playout this long counts as a draw (no engine should get here)
HORIZON = 8                    # playout decisions before the game's evaluation stands in for the end
MAX_CLOCK_DECISIONS = 400      # a playout cut by its game's clock still stops after this many decisions
OVERRIDE = 1.5                 # how many times the hint's visits another move needs to be played instead
_DECISIONS = (E.Decide, E.Simultaneous, E.Commit, E.DeckReturn)
FIRST_HANDLE = 1 << 40         # handles the referee allocates inside an imagined world


def _key(action: Any) -> Any:
    """A hashable form of an action (actions are lists)."""
    if isinstance(action, (list, tuple)):
        return tuple(_key(x) for x in action)
    return action


class _Node:
    """One information set of the observer. `stats[key] = [visits, reward, availability]`;
    at a simultaneous node the key is (seat, action key)."""
    __slots__ = ("stats", "children")

    def __init__(self) -> None:
        self.stats: dict[Any, list] = {}
        self.children: dict[Any, _Node] = {}


def rewards(result: dict[str, Any], players: int) -> list[float]:
    """Per seat: the win share (a shared win split), plus a little for the score rank."""
    winners = result.get("winners") or []
    scores = result.get("scores") or [0] * players
    lo, hi = min(scores), max(scores)
    out = []
    for s in range(players):
        win = 1.0 / len(winners) if s in winners else 0.0
        rank = (scores[s] - lo) / (hi - lo) if hi > lo else 0.5
        out.append((1 - SCORE_WEIGHT) * win + SCORE_WEIGHT * rank)
    return out


class SearchBot(Bot):
    """IS-MCTS over the engine's clone/apply, thinking `think` seconds or `iterations` times."""

    thinks = True                      # the node runs choose() in a thread: it takes a while

    def __init__(self, game: str, seed: int | None = None, think: float = 1.0, iterations: int | None = None,
                 horizon: int | None = None):
        super().__init__(seed)
        self.game = game
        self.engine = games.get(game)
        self.think = think
        self.iterations = iterations
        self.last_iterations = 0       # how many iterations the last decision ran (for benchmarks)
        self.evaluate = evaluator_for(game)
        shown = presentations.get(game)     # its search_horizon and heuristic_playouts
        self.horizon = (shown.search_horizon or HORIZON) if horizon is None else horizon
        self.clock = clock_for(game) if horizon is None else None
        self.guide = heuristic_bot(game, self.rng.getrandbits(32))
        self.light = self.engine if getattr(self.guide, "reads_state", False) else stateless(self.engine)
        self.heuristic_playouts = shown.heuristic_playouts

    def choose(self, view: dict[str, Any] | None, legal_actions: list[Any]) -> Any:
        if len(legal_actions) == 1 or view is None:
            return legal_actions[0]
        sampler = sampler_for(self.game, view)
        root = _Node()
        deadline = time.perf_counter() + self.think
        done = 0
        while True:
            self._iterate(root, sampler)
            done += 1
            if self.iterations is not None:
                if done >= self.iterations:
                    break
            elif time.perf_counter() >= deadline:
                break
        self.last_iterations = done
        return self._best(root, sampler.seat, legal_actions, self.guide.choose(view, legal_actions))

    def _best(self, root: _Node, seat: int, legal: list[Any], hint: Any) -> Any:
        """The most visited move, unless the heuristic's `hint` has nearly as many visits (the
        playouts are noisy: a small margin is no reason to leave a sound rule of thumb)."""
        def visits(a: Any) -> tuple[int, bool, float]:
            s = root.stats.get(_key(a)) or root.stats.get((seat, _key(a)))
            return (s[0], a == hint, s[1] / s[0]) if s and s[0] else (-1, a == hint, 0.0)
        best = max(legal, key=visits)
        if hint in legal and visits(best)[0] < OVERRIDE * visits(hint)[0]:
            return hint
        return best

    def _iterate(self, root: _Node, sampler: Any) -> None:
        world = sampler.sample(self.rng)
        ref = Referee(self.engine, sampler.players, {}, seed=self.rng.getrandbits(32), state=world.state)
        ref.truth, ref.knowledge, ref.next_handle = world.truth, world.knowledge, FIRST_HANDLE
        rng = self.rng
        node: _Node | None = root
        path: list[tuple[list, int]] = []            # (stats entry, seat that chose it)
        picks: list[Any] = []
        expanded = False

        def tree_choice(seat: int, legal: list[Any], _ref: Any) -> Any:
            nonlocal expanded
            key, action, new = _select(node, seat, legal, joint, rng, lambda: guide(seat, legal))
            path.append((node.stats[key], seat))
            picks.append(key)
            expanded |= new
            return action

        light = self.light

        def guide(seat: int, legal: list[Any]) -> Any:
            return self.guide.choose(light.view(ref.state, seat, ref.knowledge[seat]), legal)

        def playout_choice(seat: int, legal: list[Any], _ref: Any) -> Any:
            if self.heuristic_playouts and len(legal) > 1:
                return guide(seat, legal)
            return legal[rng.randrange(len(legal))]

        eng = self.engine
        clock = self.clock
        start = clock(world.state) if clock is not None else None
        left = MAX_CLOCK_DECISIONS if clock is not None else self.horizon
        reward = None
        for _ in range(MAX_PLAYOUT_STEPS):
            step = eng.expected(ref.state)
            if isinstance(step, E.Finished):
                reward = rewards(eng.result(ref.state), sampler.players)
                break
            decision = isinstance(step, _DECISIONS)
            if node is None or not decision:         # a chance step, or the playout
                if decision:
                    left -= 1
                    if self.evaluate is not None and (left < 0 or (clock is not None and clock(ref.state) != start)):
                        reward = self.evaluate(ref.state, ref.truth)
                        break
                ref.step(playout_choice)
                continue
            joint = isinstance(step, (E.Simultaneous, E.Commit))
            picks.clear()
            try:
                ref.step(tree_choice)
            except E.IllegalAction:                  # an imagined world the engine rejects: drop it
                return
            child_key = tuple(picks) if joint else picks[0]
            child = node.children.get(child_key)
            if child is None:
                child = node.children[child_key] = _Node()
            node = None if expanded else child
        if reward is None:
            reward = [1.0 / sampler.players] * sampler.players
        for entry, seat in path:
            entry[0] += 1
            entry[1] += reward[seat]


def _select(node: _Node, seat: int, legal: list[Any], joint: bool, rng: random.Random,
            prefer: Callable[[], Any]) -> tuple[Any, Any, bool]:
    """UCB with availability counts; an action never tried here is tried first (a new node):
    the heuristic bot's pick `prefer()` first of all, so a small budget plays no worse."""
    stats = node.stats
    fresh: list[tuple[Any, Any]] = []
    best, best_key, best_ucb = None, None, -1.0
    entries = []
    for a in legal:
        k = (seat, _key(a)) if joint else _key(a)
        s = stats.get(k)
        if s is None:
            s = stats[k] = [0, 0.0, 0]
        s[2] += 1
        if s[0] == 0:
            fresh.append((k, a))
        entries.append((k, a, s))
    if fresh:
        if len(fresh) == len(entries) and len(fresh) > 1:        # nothing tried here yet
            a = prefer()
            k = (seat, _key(a)) if joint else _key(a)
            if stats.get(k) is not None:
                return k, a, True
        k, a = fresh[rng.randrange(len(fresh))]
        return k, a, True
    for k, a, s in entries:
        ucb = s[1] / s[0] + EXPLORATION * math.sqrt(math.log(s[2]) / s[0])
        if ucb > best_ucb:
            best, best_key, best_ucb = a, k, ucb
    return best_key, best, False
