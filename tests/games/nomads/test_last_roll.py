"""The state says which dice the last roll was (`last_roll_kind`, N.S.4), so the table's Last roll
panel names every die of every roll (it used to show bare numbers and point at the log once the
turn had moved on or a refill had happened)."""

from __future__ import annotations

import html

import pytest

from clients.bot import chooser_for, make_bot
from clients.render import nomads as R
from protocol.engine import Rolled
from protocol.games.nomads import engine as NE

from .util import E, Referee

KIND_OF_PHASE = {"s_ldie": "first_animals", "s_lthrow": "landscape_roll", "r_land": "landscape_roll",
                 "r_animal": "animal_roll", "s_rthrow": "random_roll", "r_random": "random_roll",
                 "s_reroll": "reroll", "roll_catch": "catch", "roll_lure": "lure"}
"""The roll handler of each dice phase and the kind it records; every other Random (layout,
start player, card and blue tile draws) is no dice and keeps the last roll."""
NAMES = ["Ann", "Bo", "Cy", "Di", "Ed", "Fay"]


def _play(n: int, seed: int, steps: int = 700):
    """(phase before, active before, traders before, event, referee) per step of a random-bot game."""
    ref = Referee(E, n, seed=seed)
    choose = chooser_for([make_bot("random", "nomads", s) for s in range(n)])
    for _ in range(steps):
        st = ref.state
        before = (st.phase, st.active, st.traders[st.active * 4:(st.active + 1) * 4],
                  (st.last_roll[:], st.last_roll_kind, st.last_roll_seat, st.last_roll_traders[:]))
        ev = ref.step(choose)
        if ev is None:
            return
        yield before, ev, ref


def test_the_kinds_are_the_engine_s():
    assert set(KIND_OF_PHASE.values()) == set(NE.ROLL_KINDS)


@pytest.mark.parametrize("n,seed", [(3, 1), (4, 7), (6, 3)])
def test_every_last_roll_is_named_with_its_faces(n, seed):
    seen: set[str] = set()
    shown_later = 0                  # trader dice still shown after the thrower's turn ended
    for (phase, active, traders, last), ev, ref in _play(n, seed):
        st = ref.state
        if isinstance(ev, Rolled) and phase in KIND_OF_PHASE:
            kind = KIND_OF_PHASE[phase]
            assert (st.last_roll, st.last_roll_kind) == (list(ev.values), kind), phase
            if kind in ("catch", "lure"):
                assert (st.last_roll_seat, st.last_roll_traders) == (active, traders)
                assert len(ev.values) == sum(traders)
            else:
                assert (st.last_roll_seat, st.last_roll_traders) == (-1, [])
            seen.add(kind)
        else:                        # no dice thrown: the last roll stays as it was
            assert (st.last_roll, st.last_roll_kind, st.last_roll_seat, st.last_roll_traders) == last
        for viewer in [None, *range(n)]:
            view = ref.view(viewer)
            assert view["last_roll_kind"] == st.last_roll_kind
            if not view["last_roll"]:
                assert R.dice_faces(view, NAMES) is None
                continue
            what, faces = R.dice_faces(view, NAMES)
            assert len(faces) == len(view["last_roll"]) and all(faces)
            if st.last_roll_kind in ("catch", "lure"):
                assert what.startswith(f"{NAMES[st.last_roll_seat]}'s trader dice")
                shown_later += viewer is None and st.active != st.last_roll_seat
        if isinstance(ev, Rolled) or st.phase == "move":
            svg = R.svg(ref.view(None), NAMES)
            assert "the log says which dice" not in svg
            panel = svg.split("Last roll", 1)[1][:2500]
            if st.last_roll:
                assert panel.count('class="die"') == len(st.last_roll)
                assert html.escape(R.dice_faces(ref.view(None), NAMES)[0]) in panel
    assert {"first_animals", "landscape_roll", "random_roll", "catch"} <= seen, seen
    assert shown_later > 0


def test_trader_dice_keep_their_species_after_the_traders_are_gone():
    """The picture labels each trader die with its species from the roll, not from the thrower's
    traders now (they go back to the reserve in a city or when lost)."""
    for (phase, active, traders, _), ev, ref in _play(4, 7, 3000):
        st = ref.state
        if st.last_roll_kind in ("catch", "lure") and st.traders[st.last_roll_seat * 4:][:4] != st.last_roll_traders:
            svg = R.svg(ref.view(None), NAMES)
            panel = svg.split("Last roll", 1)[1][:2500]
            for word in R.N.trader_words(st.last_roll_traders).split(", "):
                assert f"{word} die" in panel
            return
    pytest.fail("no game reached a trader roll whose thrower's traders changed afterwards")
