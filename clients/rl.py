"""A PettingZoo AEC environment for every game: `clients.rl.env(game, players, **options)`.

    from clients.rl import env
    from protocol import games
    e = env(games.names()[0], 3)                 # any registered game (protocol.games)
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

The game is played by the engine-only referee (a trusted, seeded random source: no network, no
cryptography). Each agent is one seat. Its observation is built from that seat's view only:
`observation`, a flat float vector (the view's numbers, strings as stable hashes, padded to a
fixed length), `action_mask` over the fixed action space, and the raw `view` (without its `state`, the encoded
public state for search bots that repeats the rest of the view, unless `view_state=True`). Action ids are
the same move in every state (as OpenSpiel's distinct actions): the space enumerates each game's
action grammar once, and a move naming a hidden handle is named by what the seat knows of it
(its card or tile), never by the handle. Simultaneous choices are asked one seat after the
other and applied together, and no seat's observation shows another's pending choice. Rewards
come at the end: +1 for a sole win, -1 for a loss, a shared win splits the +1 (2/k - 1 for k
winners: 0 for two), or with `reward="score"` the seat's score minus the others' mean.

Needs the `rl` extra: pip install -e '.[rl]'.
"""

from __future__ import annotations

import itertools
import zlib
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from protocol import engine as E
from protocol import games
from protocol.referee import Referee

from . import games as presentations
from .bots.sampling import stateless

# ---------------------------------------------------------------- the fixed action spaces

class ActionIds:
    """The fixed action space of one game: action key <-> id."""

    def __init__(self, game: str):
        self.presentation = presentations.get(game)
        if not self.presentation.rl_actions:
            known = [g for g in presentations.names() if presentations.get(g).rl_actions]
            raise ValueError(f"no action space for {game!r} (known: {', '.join(known)})")
        self.game = game
        self.keys: list[tuple] = []
        # each game's actions (its presentation's rl_actions): ("=", values) for bare values, else
        # (name, domain, domain, ...) for the list [name, v1, v2, ...]. Domains are generous: an id
        # is reserved for every combination.
        for head, *domains in self.presentation.rl_actions:
            if head == "=":
                self.keys.extend(("=", v) for v in domains[0])
            else:
                self.keys.extend((head, *combo) for combo in itertools.product(*domains))
        self.ids = {k: i for i, k in enumerate(self.keys)}

    def __len__(self) -> int:
        return len(self.keys)

    def key(self, action: Any, knowledge: dict[int, Any]) -> tuple:
        """The seat-independent name of an action: a handle becomes the card or tile it is."""
        special = self.presentation.rl_key
        if special is not None:
            named = special(action, knowledge)
            if named is not None:
                return named
        if isinstance(action, (list, tuple)):
            return tuple(action)
        return ("=", action)

    def id_of(self, action: Any, knowledge: dict[int, Any]) -> int | None:
        return self.ids.get(self.key(action, knowledge))


# ---------------------------------------------------------------- observations

_STRING_VALUES: dict[str, float] = {}


def _flatten(value: Any, out: list[float]) -> None:
    t = type(value)
    if t is int or t is float:
        out.append(value)
    elif t is bool:
        out.append(1.0 if value else 0.0)
    elif t is list or t is tuple:
        for v in value:
            _flatten(v, out)
    elif t is dict:
        for k in sorted(value):
            if k != "state":                                          # the view's numbers, once
                _flatten(value[k], out)
    elif t is str:
        h = _STRING_VALUES.get(value)
        if h is None:                                                 # a stable hash, same every run
            h = _STRING_VALUES[value] = zlib.crc32(value.encode()) / 4294967296.0
        out.append(h)
    elif value is None:
        out.append(-1.0)
    elif isinstance(value, (bytes, bytearray)):
        out.extend(b / 255.0 for b in value[:32])
    elif isinstance(value, (int, float)):
        out.append(float(value))


def vectorize(view: dict[str, Any], size: int) -> np.ndarray:
    """The view's numbers in a fixed order (dict keys sorted), cut or zero-padded to `size`."""
    out: list[float] = []
    _flatten(view, out)
    if len(out) >= size:
        return np.array(out[:size], dtype=np.float32)
    vec = np.zeros(size, dtype=np.float32)
    vec[:len(out)] = out
    return vec


class ViewSpace(spaces.Space):
    """The raw view (a JSON-able dict) as a space, so the observation Dict can hold it."""

    def __init__(self) -> None:
        super().__init__(None, None)

    def contains(self, x: Any) -> bool:
        return isinstance(x, dict)

    def sample(self, mask: Any = None, probability: Any = None) -> dict:
        return {}


# ---------------------------------------------------------------- the environment

_DECISIONS = (E.Decide, E.Simultaneous, E.Commit, E.DeckReturn)


class CaravanEnv(AECEnv):
    metadata = {"name": "caravan_v0", "is_parallelizable": False, "render_modes": ["ansi"]}

    def __init__(self, game: str, players: int, reward: str = "win", max_steps: int = 200_000,
                 render_mode: str | None = None, view_state: bool = False, **options: Any):
        super().__init__()
        self.engine = games.get(game)
        if not self.engine.min_players <= players <= self.engine.max_players:
            raise ValueError(f"{self.engine.title} is for {self.engine.min_players}-{self.engine.max_players} players")
        if reward not in ("win", "score"):
            raise ValueError("reward is 'win' or 'score'")
        self.game, self.players, self.reward_kind, self.max_steps = game, players, reward, max_steps
        self.render_mode = render_mode
        self.options = dict(self.engine.default_options(players), **options)
        self.engine.new_game(self.options, players)             # BadOptions now
        self.action_ids = ActionIds(game)
        self.view_engine = self.engine if view_state else stateless(self.engine)
        self.obs_size = presentations.get(game).rl_obs_size      # views flatten to ~110-230 numbers
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.seats = {a: i for i, a in enumerate(self.possible_agents)}
        n = len(self.action_ids)
        self._action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self._observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.obs_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (n,), np.int8),
            "view": ViewSpace(),
        }) for a in self.possible_agents}
        self.ref: Referee | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    # -- the game
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self.ref = _Referee(self.engine, self.players, self.options, seed=seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.pending: dict[int, Any] = {}
        self._legal_cache: tuple | None = None
        self._advance()

    def _advance(self) -> None:
        """Resolve chance and deck steps up to the next decision, or the end."""
        ref = self.ref
        while True:
            step = ref.expected()
            if isinstance(step, E.Finished):
                self._finish(self.engine.result(ref.state))
                return
            if isinstance(step, _DECISIONS):
                break
            if ref.steps >= self.max_steps:
                self.truncations = {a: True for a in self.agents}
                return
            ref.step(_no_decision)
        if isinstance(step, (E.Simultaneous, E.Commit)):
            seat = next(s for s in step.seats if s not in self.pending)
        else:
            seat = step.seat
        self.agent_selection = self.possible_agents[seat]

    def _finish(self, result: dict[str, Any]) -> None:
        winners, scores = result.get("winners") or [], result.get("scores") or [0] * self.players
        for s, a in enumerate(self.possible_agents):
            if self.reward_kind == "score":
                others = [scores[o] for o in range(self.players) if o != s]
                self.rewards[a] = float(scores[s] - sum(others) / len(others))
            else:
                self.rewards[a] = 2.0 / len(winners) - 1.0 if s in winners else -1.0
            self.terminations[a] = True
            self.infos[a] = {"result": result}

    def _legal(self, seat: int) -> dict[int, Any]:
        """Action id -> the engine's action, for this seat now."""
        stamp = (self.ref.steps, seat, len(self.pending))
        if self._legal_cache is not None and self._legal_cache[0] == stamp:
            return self._legal_cache[1]
        knowledge = self.ref.knowledge[seat]
        out: dict[int, Any] = {}
        for a in self.ref.legal(seat):
            i = self.action_ids.id_of(a, knowledge)
            if i is None:
                raise RuntimeError(f"{self.game}: action {a!r} has no id in the fixed action space "
                                   "(its presentation's rl_actions need it)")
            out[i] = a
        self._legal_cache = (stamp, out)
        return out

    def _acting(self, seat: int) -> bool:
        step = self.ref.expected()
        if isinstance(step, (E.Simultaneous, E.Commit)):
            return seat in step.seats and seat not in self.pending
        return isinstance(step, _DECISIONS) and step.seat == seat

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.seats[agent]
        legal = self._legal(seat)
        if action is None or int(action) not in legal:
            raise ValueError(f"{agent}: action {action!r} is not legal now (see the action mask)")
        chosen = legal[int(action)]
        self._cumulative_rewards[agent] = 0.0
        step = self.ref.expected()
        if isinstance(step, (E.Simultaneous, E.Commit)):
            self.pending[seat] = chosen
            if len(self.pending) == len(step.seats):
                picks, self.pending = self.pending, {}
                self.ref.step(lambda s, legal_actions, r: picks[s])
        else:
            self.ref.step(lambda s, legal_actions, r: chosen)
        self._advance()
        self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self.seats[agent]
        ref = self.ref
        view = self.view_engine.view(ref.state, seat, ref.knowledge[seat])      # this seat's view only
        mask = np.zeros(len(self.action_ids), dtype=np.int8)
        if self.ref.state is not None and self._acting(seat):
            mask[list(self._legal(seat))] = 1
        return {"observation": vectorize(view, self.obs_size), "action_mask": mask, "view": view}

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.ref is None:
            return None
        step = self.ref.expected()
        return f"{self.engine.title}: {type(step).__name__} {self.ref.steps} steps"

    def close(self) -> None:
        pass


class _Referee(Referee):
    """The referee, remembering the current step's expected step and legal actions: the
    environment asks for them for the mask, for the move and again inside `step`."""

    def expected(self) -> Any:
        cached = self.__dict__.get("_expected")
        if cached is not None and cached[0] == self.steps:
            return cached[1]
        step = self.engine.expected(self.state)
        self._expected = (self.steps, step)
        return step

    def legal(self, seat: int) -> list[Any]:
        cached = self.__dict__.get("_legal")
        if cached is None or cached[0] != self.steps:
            cached = self._legal = (self.steps, {})
        actions = cached[1].get(seat)
        if actions is None:
            actions = cached[1][seat] = super().legal(seat)
        return actions


def _no_decision(seat: int, legal: list[Any], referee: Any) -> Any:
    raise RuntimeError("a chance step asked for a decision")


def env(game: str, players: int, **options: Any) -> CaravanEnv:
    """The AEC environment for `game` with `players` seats. Keyword options: `reward`
    ("win" or "score"), `max_steps`, `render_mode`, `view_state` (keep the view's encoded
    state), and the game's own options."""
    return CaravanEnv(game, players, **options)
