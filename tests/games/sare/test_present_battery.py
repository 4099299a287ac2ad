"""Sa-Rê narration consistency battery: over many random games across the options, every number
a spectator's log line states equals the engine's own change of state, every draw is told
exactly once, when the engine makes it (not when a face-up top card is turned, issue 24 item 11),
and every move has words of its own (never the raw action under "Other").

The truth here is the referee's engine state (its encoding), never the views the narration reads."""

from __future__ import annotations

import random
import re

import pytest

from clients.narrate import sare as N
from protocol.games.sare import ENGINE
from protocol.games.sare.data import CARD_KIND, CARD_KIND_NAME, RES
from protocol.referee import Referee
from tests.games.sare.test_narrate import _chooser
from tests.games.told import told_events

NAMES = ["Ann", "Bob", "Cy", "Dee"]
WHO = r"(?:Ann|Bob|Cy|Dee) \(seat (\d)\)"


def _face(card: int) -> str:
    return N.CARD[CARD_KIND_NAME[CARD_KIND[card]]]


def _tokens(line_part: str) -> dict[str, int]:
    """"2 Wood, 1 Gold" -> {"W": 2, "G": 1}."""
    if line_part == "nothing":
        return {}
    word = {v: k for k, v in N.RESOURCE.items()}
    return {word[w]: int(k) for k, w in (p.split(" ") for p in line_part.split(", "))}


def play(n: int, seed: int, options: dict) -> int:
    """One random game told to a spectator; checks every line against the engine. Returns the
    number of draws checked."""
    engine_draws: list[str] = []
    real_draw = type(ENGINE)._draw
    ref = Referee(ENGINE, n, options, seed=seed)

    def spy(self, st, card):
        if st is ref.state:                           # the game's own draws, not a bot's lookahead
            engine_draws.append(_face(card))
        return real_draw(self, st, card)

    type(ENGINE)._draw = spy
    told_draws: list[str] = []
    drawn_before = 0
    try:
        for event in told_events(ref, NAMES, _chooser(random.Random(seed))):
            a, b, said = event.after, event.before, "\n".join(event.lines)
            new_draws = re.findall(r"draws a Season card: ([^.]+)\.", said)
            told_draws += new_draws
            # a draw is told in the very event the engine makes it, with its face
            assert new_draws == engine_draws[drawn_before:], (said, engine_draws[drawn_before:])
            drawn_before = len(engine_draws)
            removed = [_face(c) for c in a["removed"][len(b["removed"]):]] if a["turn"] == b["turn"] else []
            assert re.findall(r"Darkness removes the top dark card from the game: ([^.;]+)[.;]", said) == removed, said
            for m in re.finditer(r"; 1 (\w+) leaves the Production of the turn", said):
                assert b["display"][RES.index(m[1][0])] > 0, said
            for m in re.finditer(WHO + r": revolt gauge (rises|falls) to (\d+)", said):
                p, verb, level = int(m[1]), m[2], int(m[3])
                assert a["rev"][p] == level and (a["rev"][p] > b["rev"][p]) == (verb == "rises"), said
            for m in re.finditer(WHO + r" charters a caravan .* \(now (\d+)\)", said):
                assert a["car"][int(m[1])] == int(m[2]) == b["car"][int(m[1])] + 1, said
            for m in re.finditer(WHO + r" cashes a caravan into 1 (\w+) \(caravans now (\d+)\)", said):
                p, t = int(m[1]), RES.index(m[2][0])
                assert a["car"][p] == int(m[3]) == b["car"][p] - 1 and a["res"][p][t] == b["res"][p][t] + 1, said
            for m in re.finditer(r"Turn (\d+) begins", said):
                assert int(m[1]) == a["turn"] == b["turn"] + 1, said
            for m in re.finditer(r"Production of the turn: ([^.]+)\.", said):
                assert _tokens(m[1]) == {t: k for t, k in zip(RES, a["display"]) if k}, said
            for m in re.finditer(WHO + r" (?:lays down their Obelisk and )?collects (nothing|\d+ \w+(?:, \d+ \w+)*)", said):
                p = int(m[1])
                got = {t: x - y for t, x, y in zip(RES, a["gain"][p], b["gain"][p]) if x > y}
                if a["phase"] == "p3" and b["phase"] == "p2":          # the season ended: gains joined the warehouse
                    got = {t: (x + r) - (y + q) for t, x, y, r, q in
                           zip(RES, a["gain"][p], b["gain"][p], a["res"][p], b["res"][p]) if (x + r) > (y + q)}
                assert _tokens(m[2]) == got, said
            # a Gold double card won at the season's end is counted once: what a reader adds up for
            # the winner — "collects …" plus a "double card … goes to" line — is what the engine gave
            # (issue 35: the collected tokens already held it, and the next line gave it again)
            for m in re.finditer(r"The double card ([^.]+?) goes to " + WHO + r", the last to lie down([^.]*)\.", said):
                p = int(m[2])
                told: dict[str, int] = {}
                for c in re.finditer(WHO + r" (?:lays down their Obelisk and )?collects (nothing|\d+ \w+(?:, \d+ \w+)*)",
                                     said):
                    if int(c[1]) == p:
                        told = _tokens(c[2])
                if "none of its tokens" not in m[3]:
                    word = {v: k for k, v in N.RESOURCE.items()}
                    for w in m[1].split(" + "):
                        told[word[w]] = told.get(word[w], 0) + 1
                got = {t: (x + r) - (y + q) for t, x, y, r, q in
                       zip(RES, a["gain"][p], b["gain"][p], a["res"][p], b["res"][p]) if (x + r) > (y + q)}
                assert told == got, (said, told, got)
    finally:
        type(ENGINE)._draw = real_draw
    assert told_draws == engine_draws
    return len(engine_draws)


CONFIGS = [(n, seed, {"scenario": sc, "architect": arch, "turn_limit": 2, "shoe": shoe})
           for seed, (n, sc, arch, shoe) in enumerate(
               [(n, sc, arch, shoe) for n in (2, 3, 4) for shoe in ("down", "up")
                for sc, arch in (("priest", False), ("scribe", True), ("pharaoh", False))])]


@pytest.mark.parametrize("n,seed,options", CONFIGS,
                         ids=[f"{c[0]}p-{c[2]['scenario']}-{c[2]['shoe']}" for c in CONFIGS])
def test_every_told_number_and_draw_matches_the_engine(n, seed, options):
    assert play(n, seed, options) > 0


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 130))
def test_many_more_games(seed):
    rng = random.Random(seed)
    play(rng.choice((2, 3, 4)), seed, {"scenario": rng.choice(("priest", "scribe", "pharaoh")),
                                       "architect": rng.random() < 0.5, "shoe": rng.choice(("down", "up")),
                                       "pyramid_pick": rng.choice(("top", "free"))})
