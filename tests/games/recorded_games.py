"""Random games recorded step by step, so an engine can be rewritten for speed (issue #17)
and shown to play exactly the same games: the same legal actions at every decision and the
same encoded state after every step.

Regenerate only on purpose (a rule change, with the spec updated in the same commit):
    .venv/bin/python -m tests.games.recorded_games
Each record keeps the chosen actions (by repr) and, per step, a short digest of the sorted
legal actions (at decisions) and of `engine.encode(state)`; the referee's own seeded random
source supplies dice and shuffles, so replaying needs only the chosen actions."""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import msgpack

from protocol import games
from protocol.referee import Referee
from tests.games.conformance import hook

PATH = Path(__file__).parent / "data" / "recorded_games.json.gz"
GAMES_PER_SET = 2


def option_sets() -> dict[str, list[dict[str, Any]]]:
    """The option sets recorded per game (its hooks' RECORDED_OPTIONS; a game without them is not
    recorded), the games in the order the recorded file has them, new ones after, by name."""
    known = list(dict.fromkeys(r["game"] for r in records())) if PATH.exists() else []
    order = [g for g in known if g in games.names()] + [g for g in games.names() if g not in known]
    sets = {game: hook(game, "RECORDED_OPTIONS") for game in order}
    return {game: found for game, found in sets.items() if found}


def _digest(value: Any) -> str:
    return hashlib.sha256(msgpack.packb(value, use_bin_type=True)).hexdigest()[:12]


def _legal_digest(legal: list[Any]) -> str:
    return hashlib.sha256("\n".join(sorted(map(repr, legal))).encode()).hexdigest()[:12]


def record_one(game: str, players: int, options: dict[str, Any], seed: int) -> dict[str, Any]:
    engine = games.get(game)
    rng = random.Random(seed)
    actions: list[str] = []
    steps: list[str] = []

    def choose(seat, legal, ref):
        choice = legal[rng.randrange(len(legal))]
        actions.append(repr(choice))
        steps.append("L" + _legal_digest(legal))
        return choice

    ref = Referee(engine, players, {**engine.default_options(players), **options}, seed=seed)
    while ref.step(choose) is not None:
        steps.append(_digest(engine.encode(ref.state)))
    return {"game": game, "players": players, "options": options, "seed": seed,
            "actions": actions, "steps": steps, "result": _digest(engine.result(ref.state))}


def replay_one(record: dict[str, Any]) -> None:
    """Play the recorded game again; AssertionError names the first step that differs."""
    engine = games.get(record["game"])
    actions, steps = iter(record["actions"]), iter(record["steps"])
    where = f"{record['game']} {record['players']}p {record['options']} seed {record['seed']}"
    n = 0

    def choose(seat, legal, ref):
        assert next(steps) == "L" + _legal_digest(legal), f"{where}: legal actions differ at step {n}"
        wanted = next(actions)
        return next(a for a in legal if repr(a) == wanted)

    ref = Referee(engine, record["players"], {**engine.default_options(record["players"]), **record["options"]},
                  seed=record["seed"])
    while ref.step(choose) is not None:
        assert next(steps) == _digest(engine.encode(ref.state)), f"{where}: state differs after step {n}"
        n += 1
    assert next(steps, None) is None, f"{where}: the game ended early, at step {n}"
    assert _digest(engine.result(ref.state)) == record["result"], f"{where}: result differs"


def records() -> list[dict[str, Any]]:
    with gzip.open(PATH, "rt") as f:
        return json.load(f)


def main() -> None:
    out = []
    for game, sets in option_sets().items():
        engine = games.get(game)
        for n in range(engine.min_players, engine.max_players + 1):
            for i, opts in enumerate(sets):
                for g in range(GAMES_PER_SET):
                    out.append(record_one(game, n, opts, seed=1000 * n + 10 * i + g))
                    print(f"{game} {n}p set {i} game {g}: {len(out[-1]['steps'])} steps", file=sys.stderr)
    PATH.parent.mkdir(exist_ok=True)
    with gzip.open(PATH, "wt") as f:
        json.dump(out, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
