"""Nomads of Arabia: engine decisions/s with random play (legal_actions + apply, one core)
against the 20,000/s target and a trivial baseline loop measured in the same run, and the
heuristic bot's win rate against random bots (target >= 60% of 4-player games)."""

from __future__ import annotations

import random
import time

from clients.simulate import simulate
from protocol import engine as E
from protocol.games.nomads import ENGINE

TARGET_DPS = 20_000
TARGET_WIN = 0.60


def _random_games(n: int, games: int) -> tuple[int, int, float]:
    """Play `games` games calling only the engine: legal_actions + apply per decision; dice,
    draws and the yellow-tile deck are answered inline (as the referee would)."""
    rng = random.Random(n)
    decisions = steps = 0
    t0 = time.process_time()
    for _ in range(games):
        st = ENGINE.new_game({}, n)
        know: list[dict] = [dict() for _ in range(n)]
        truth: dict[int, int] = {}
        handle = 1
        while True:
            step = ENGINE.expected(st)
            steps += 1
            t = type(step)
            if t is E.Decide:
                legal = ENGINE.legal_actions(st, step.seat, know[step.seat])
                a = legal[rng.randrange(len(legal))]
                ENGINE.apply(st, E.Act(step.seat, a))
                decisions += 1
            elif t is E.Random:
                ENGINE.apply(st, E.Rolled(tuple(rng.randrange(k) for _, k in step.draws)))
            elif t is E.DeckShuffle:
                cards = list(step.cards)
                rng.shuffle(cards)
                hs = tuple(range(handle, handle + len(cards)))
                handle += len(cards)
                truth.update(zip(hs, cards))
                ENGINE.apply(st, E.DeckShuffled(step.deck, hs))
            elif t is E.DeckShow:
                ENGINE.apply(st, E.DeckShown(step.seat, step.handles))
                for h in step.handles:
                    know[step.seat][h] = truth[h]
            elif t is E.DeckReveal:
                ENGINE.apply(st, E.DeckRevealed(step.handles, tuple(truth[h] for h in step.handles)))
            else:
                break
    return decisions, steps, time.process_time() - t0


def _baseline(count: int) -> float:
    rng = random.Random(0)
    items = list(range(20))
    t0 = time.process_time()
    for _ in range(count):
        rng.choice(items)
    return count / (time.process_time() - t0)


def run() -> list[str]:
    lines = []
    base = _baseline(300_000)
    lines.append(f"baseline: rng.choice on a 20-item list: {base:,.0f}/s (CPU time, one core)")
    for n in (3, 4, 5, 6):
        games = 150
        d, s, sec = _random_games(n, games)
        dps = d / sec
        lines.append(f"{n} players: {dps:,.0f} decisions/s, {s / sec:,.0f} engine steps/s "
                     f"(target {TARGET_DPS:,} decisions/s: {'met' if dps >= TARGET_DPS else 'MISSED'}; "
                     f"{dps / base:.3f} x baseline), {d / games:,.0f} decisions and "
                     f"{games / sec:,.1f} games/s")
    games = 500
    stats = simulate("nomads", 4, games, ["heuristic", "random", "random", "random"], seed=7)
    rate = stats.wins["heuristic#0"] / stats.games
    lines.append(f"heuristic vs 3 random, {games} 4-player games: win rate {rate:.1%} "
                 f"(target {TARGET_WIN:.0%}: {'met' if rate >= TARGET_WIN else 'MISSED'}), "
                 f"{stats.games_per_s:.1f} games/s")
    stats = simulate("nomads", 4, 200, ["heuristic", "heuristic", "random", "random"], seed=8)
    rate = (stats.wins["heuristic#0"] + stats.wins["heuristic#1"]) / stats.games
    lines.append(f"2 heuristic vs 2 random, 200 4-player games: heuristic win rate {rate:.1%}")
    return lines
