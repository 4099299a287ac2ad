"""Nomads of Arabia narration consistency battery: over many random games across the options, every
number a spectator's log line states equals the engine's own change of state — dinars paid or
earned, animals sold, animals put in each landscape box — and every move has words of its own.

The truth here is the referee's engine state (its encoding), never the views the narration reads."""

from __future__ import annotations

import random
import re

import pytest

from clients.narrate import nomads as N
from protocol import engine as E
from protocol.games.nomads import ENGINE
from protocol.games.nomads import data as D
from protocol.referee import Referee, random_chooser
from tests.games.told import told_events

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Flo"]
NSP = len(N.SPECIES)
SPECIES = {w: i for i, w in enumerate(N.SPECIES)}
LAND = {w: i for i, w in enumerate(N.LANDSCAPES)}


def _counts(words: str) -> list[int]:
    """"2 camels and 1 goat" -> per species."""
    out = [0] * NSP
    for k, sp in re.findall(r"(\d+) (\w+?)s?\b(?:,| and|$)", words):
        out[SPECIES[sp]] += int(k)
    return out


def _check_event(ev, lines: list[str], b: dict, a: dict) -> int:
    """Checks one event's sentences; returns how many stated numbers it checked."""
    said = "\n".join(lines)
    checked = 0
    assert not re.search(r": \[", said), f"raw action in words: {said}"
    if isinstance(ev, E.Act):
        s, act = ev.seat, ev.action
        earned = a["money"][s] - b["money"][s]
        for m in re.finditer(r"sells (\d+) (\w+?)s? for (\d+) dinars?(?: each \((\d+) dinars\))?", said):
            count, each = int(m[1]), int(m[3])
            total = int(m[4]) if m[4] else each
            assert total == earned == each * count, said
            sp = SPECIES[m[2]]
            assert b["animals"][s * NSP + sp] - a["animals"][s * NSP + sp] == count, said
            checked += 1
        for m in re.finditer(r"(?:paying|for|gets) (\d+) dinars?", said):
            if "sells" not in said:
                assert abs(earned) == int(m[1]), said
                checked += 1
        if act[0] in ("move", "goto", "hire") and "dinar" not in said:
            assert earned == 0, f"{said}: money changed by {earned} untold"
    if isinstance(ev, E.Act) and ev.action == ["done"] and b["phase"] == "abdul":
        assert "ends the turn" not in said and "sale" in said, said      # the move still comes (issue 35)
        checked += 1
    for s in range(len(b["status"])):                                   # 0 normal, 1 lost, 2 pilgrim
        walked = b["rows"] != a["rows"]                                  # the desert moved (not a pilgrim trip)
        if b["status"][s] == 0 and a["status"][s] in (1, 2) and walked:
            assert f"{NAMES[s]} (seat {s})'s nomad is lost in the desert" in said, said
            checked += 1
    told = [0] * (len(N.LANDSCAPES) * NSP)
    for words, land in re.findall(r"((?:\d+ \w+(?:, | and )?)+) to the (\w+) box", said):
        for sp, k in enumerate(_counts(words)):
            told[LAND[land] * NSP + sp] += k
    if any(told):
        grown = [max(0, y - x) for x, y in zip(b["boxes"], a["boxes"])]
        assert told == grown, (said, told, grown)
        checked += 1
    return checked


def play(n: int, seed: int, options: dict | None) -> int:
    checked = 0
    lines: list[str] = []
    claimed: list[int] | None = None          # what a tied throw said goes to the chosen box
    told = None
    for told in told_events(Referee(ENGINE, n, options, seed=seed), NAMES, random_chooser(random.Random(seed))):
        ev, lines, b, a = told.event, told.lines, told.before, told.after
        checked += _check_event(ev, lines, b, a)
        said = "\n".join(lines)
        if claimed is not None and isinstance(ev, E.Act) and ev.action[0] == "box":
            box = ev.action[1]
            grown = [a["boxes"][box * NSP + sp] - b["boxes"][box * NSP + sp] for sp in range(NSP)]
            assert grown == claimed, (said, grown, claimed)              # issue 35: not the full throw
            claimed = None
            checked += 1
        m = re.search(r"((?:\d+ \w+(?:, | and )?)+)(?: \(all the market has left\))? go(?:es)? to a box with "
                      r"the fewest", said)
        if m and b["phase"] == "r_random":
            claimed = _counts(m[1])
        elif b["phase"] == "r_random" and a["phase"] == "tie":
            claimed = [0] * NSP                                          # "none of the thrown animals left"
    assert told is not None and "Game over" in "\n".join(lines) and ENGINE.result(told.ref.state) is not None
    return checked


@pytest.mark.parametrize("seed", range(8))
def test_every_told_number_matches_the_engine(seed):
    rng = random.Random(seed)
    n = 3 + seed % 4
    opts = {"yellow_tiles": rng.randint(0, D.YELLOW_BOARD_SPACES), "short_blue": rng.random() < 0.5,
            "max_turns": 30, "full_market": rng.choice(("stack", "gamebox")), "lost_turns": rng.choice((1, 2)),
            "second_sale": rng.random() < 0.5}
    assert play(n, seed, opts) > 3


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 140))
def test_many_more_games(seed):
    rng = random.Random(seed)
    play(rng.choice((3, 4, 5, 6)), seed, {"yellow_tiles": rng.randint(0, D.YELLOW_BOARD_SPACES),
                                          "short_blue": rng.random() < 0.5,
                                          "full_market": rng.choice(("stack", "gamebox")),
                                          "lost_turns": rng.choice((1, 2)),
                                          "second_sale": rng.random() < 0.5})
