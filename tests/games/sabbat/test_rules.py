"""Explicit numeric rules and limits of the rulebook, and rejection of bad input."""

from __future__ import annotations

import pytest

from protocol import engine as E
from protocol.games.sabbat import ENGINE
from protocol.games.sabbat import data as D

from .util import BRIDGE, GAR, GE, REG, RT, SP, act, at_actions, finish_round, illegal, new, place, res, set_turn


def test_capacities_by_player_count():
    """7 More than 2 Players (SM-16): '3+' spaces with 3-4 players, '4+' only with 4."""
    assert set(D.capacities(2)) == {2}
    assert set(D.capacities(3)) == {3}
    assert set(D.capacities(4)) == {4}


def test_two_ghost_limit():
    """B.2 Limits: never more than 2 ghosts of one colour in a region or garden."""
    st, _ = at_actions(2)
    g = GAR["zen"]
    place(st, g, [0, 0])
    set_turn(st, 0)
    assert not any(a[0] == "move" and a[3] == g for a in ENGINE.legal_actions(st, 0) if isinstance(a, list))
    exc = illegal(st, 0, ["move", BRIDGE, 0, g, "place"])
    assert "2 ghosts" in str(exc) and exc.rule == "B"


def test_peaceful_entry_takes_first_free_space_and_leaving_compacts():
    """B.2 / SM-17: a peaceful ghost goes behind the others; leaving moves the rest up."""
    st, _ = at_actions(3)
    g = GAR["crystal_ball"]
    place(st, g, [1, 2])
    set_turn(st, 0)
    act(st, 0, ["move", BRIDGE, 0, g, "place"])
    assert [e & 3 for e in st.locs[g]] == [1, 2, 0]
    act(st, 0, "done")
    set_turn(st, 1)
    act(st, 1, ["move", g, 0, BRIDGE, "place"])
    assert [e & 3 for e in st.locs[g]] == [2, 0]
    assert st.terror[1] == 4                                  # +1 terror for reaching the drawbridge


def test_each_ghost_moves_once_and_bridge_arrivals_wait():
    """B.2: each ghost moves once per action; a ghost back on the drawbridge waits for the next action."""
    st, _ = at_actions(2, invoke=[1, 1])
    set_turn(st, 0)
    a, b = GAR["canteen"], GAR["training_ground"]
    act(st, 0, ["move", BRIDGE, 0, a, "place"])
    illegal(st, 0, ["move", a, 0, b, "place"])                # already moved
    assert ENGINE.legal_actions(st, 0) == ["done"]            # no ghost left that may move
    act(st, 0, "done")
    act(st, 1, "pass")
    act(st, 0, ["move", a, 0, BRIDGE, "place"])
    assert st.bridge[0] == 1 and st.locked[0] == 1
    illegal(st, 0, ["move", BRIDGE, 0, a, "place"])
    act(st, 0, "done")
    act(st, 1, "pass")
    act(st, 0, ["move", BRIDGE, 0, a, "place"])               # available again in the next action


def test_no_move_from_regions_to_manor_and_only_neighbours():
    """B.2: region -> neighbouring region, garden -> neighbouring garden; never regions -> manor."""
    st, _ = at_actions(2)
    r = REG["vada"]
    place(st, r, [0])
    set_turn(st, 0)
    dests = sorted(a[3] for a in ENGINE.legal_actions(st, 0) if isinstance(a, list) and a[0] == "move" and a[1] == r)
    assert dests == sorted([BRIDGE, *D.NEIGHBOURS[r]])
    exc = illegal(st, 0, ["move", r, 0, GAR["zen"], "place"])
    assert "manor" in str(exc)


def test_gate_fee_paid_from_either_store_into_approval():
    """B.2: the gate fee is taken from 1H or 2H and put on the central (approval) square."""
    st, _ = at_actions(2)
    r = REG["turgapel"]
    fee = D.GATE_FEES[st.gates[D.REGION_GATE[r]]]
    assert len(fee) in (2, 3) and len(set(fee)) == len(fee)
    set_turn(st, 0)
    assert not any(isinstance(a, list) and a[0] == "move" and a[3] == r for a in ENGINE.legal_actions(st, 0))
    illegal(st, 0, ["move", BRIDGE, 0, r, "place"])
    t0, t1 = fee[0], fee[1]
    st.h1[0] = res(t0, t1)
    st.h2[0] = res(t1)
    st._cache = None
    act(st, 0, ["move", BRIDGE, 0, r, "place"])
    assert st.sub == "pay" and ENGINE.legal_actions(st, 0) == [["pay", 1, t1], ["pay", 2, t1]]
    assert st.locs[r] == []                                   # the ghost enters once the fee is paid
    act(st, 0, ["pay", 2, t1])
    assert st.h1[0] == res(t1) and st.h2[0] == res() and st.appr[0] == res(t0, t1)
    assert [e & 3 for e in st.locs[r]] == [0]


def test_fight_needs_enough_terror_and_opponents():
    """The Fight: the terror must be paid in full; a ghost never fights only its own colour."""
    st, _ = at_actions(2)
    g = GAR["canteen"]
    place(st, g, [1])
    set_turn(st, 0)
    st.order = [1, 0]
    st.terror[0] = 1                                          # 2 needed: seat 1 plays before seat 0
    exc = illegal(st, 0, ["move", BRIDGE, 0, g, "fight"])
    assert exc.rule == "B"
    st.terror[0] = 2
    st._cache = None
    act(st, 0, ["move", BRIDGE, 0, g, "fight"])
    assert st.terror[0] == 0 and st.vp[0] == 2
    st2, _ = at_actions(2)
    place(st2, g, [0])
    set_turn(st2, 0)
    illegal(st2, 0, ["move", BRIDGE, 0, g, "fight"])


def test_terror_capped_at_10():
    """Limits: never more than 10 terror points."""
    st, _ = at_actions(2)
    g = GAR["zen"]
    place(st, g, [0])
    st.terror[0] = 10
    set_turn(st, 0)
    act(st, 0, ["move", g, 0, BRIDGE, "place"])
    assert st.terror[0] == 10


def test_magician_moves():
    """B.1: first move to any empty square; then one square to a neighbour; one magician per square."""
    st, _ = at_actions(2)
    set_turn(st, 0)
    mags = [a[1] for a in ENGINE.legal_actions(st, 0) if isinstance(a, list) and a[0] == "magician"]
    assert mags == list(range(16))
    act(st, 0, ["magician", 5])
    act(st, 0, "done")
    assert st.actor == 1
    mags = [a[1] for a in ENGINE.legal_actions(st, 1) if isinstance(a, list) and a[0] == "magician"]
    assert 5 not in mags and len(mags) == 15
    act(st, 1, ["magician", 0])
    act(st, 1, "done")
    mags = sorted(a[1] for a in ENGINE.legal_actions(st, 0) if isinstance(a, list) and a[0] == "magician")
    assert mags == [2, 4, 6, 8, 10]                # diagonal or horizontal from 5 (C-7 default), 0 is taken
    illegal(st, 0, ["magician", 15])
    # the refusal of a vertical step says the default's rule, not "any of the 8 neighbours" (issue 35)
    msg = str(illegal(st, 0, ["magician", 9]))
    assert "diagonally or horizontally" in msg and "8 neighbours" not in msg, msg
    st.magician_move = "king"
    st._cache = None
    assert "8 neighbours" in str(illegal(st, 0, ["magician", 15]))


def test_magician_move_provenance_names_the_default():
    """Issue 35: data.json's provenance notes and SM-08 described the king step as the default, while
    the engine's default is magician_move 'literal' (C-7)."""
    import json
    from pathlib import Path
    assert ENGINE.default_options(3)["magician_move"] == "literal"
    raw = json.loads((Path(D.__file__).parent / "data.json").read_text())
    notes = raw["manor"]["magician_steps"]["provenance"] + " " + raw["manor"]["provenance"]["movement"]
    assert "one king step (8 neighbours) onto" not in notes and "'king' (all 8 neighbours, register C-7, the default)" not in notes
    assert "'literal'" in raw["manor"]["provenance"]["movement"] and "by default" in raw["manor"]["provenance"]["movement"]
    sm08 = next(line for line in (Path(__file__).parents[3] / "specs" / "sabbat-magica.md").read_text().splitlines()
                if line.startswith("| SM-08 "))
    assert "king step to an empty tile" not in sm08 and '"literal"`, the default' in sm08


def test_standard_grimoire_clock_tiles():
    """6 Manor Tiles: standard +2 of its type to 2H; Grimoire discards the curse; Clock moves 1H to 2H."""
    st, _ = at_actions(2)
    set_turn(st, 0)
    act(st, 0, ["magician", 4])                               # tile 4: a rat-tail tile in the identity layout
    assert D.TILE_RES[4] == RT
    act(st, 0, ["tile"])
    assert st.h2[0] == res(RT, RT)
    set_turn(st, 0)
    st.mag[0] = 9                                             # diagonally next to the Grimoire (12)
    act(st, 0, ["magician", 12])
    assert ["tile"] not in ENGINE.legal_actions(st, 0)        # Grimoire with no curse: nothing to do
    st.curse[0] = 1
    st._cache = None
    act(st, 0, ["tile"])
    assert st.curse[0] == 0
    set_turn(st, 0)
    st.h1[0] = res(SP, GE)
    act(st, 0, ["magician", 13])                              # the Clock, next to 12
    act(st, 0, ["tile"])
    assert st.h1[0] == res() and st.h2[0] == res(RT, RT, SP, GE)


def test_time_card_action_count_and_round_one_has_no_bonus():
    """Full Moon: 4 actions each in round 1, and A.3 has no bonus in round 1."""
    st, _ = new(3)
    ENGINE.apply(st, E.Choices((1, 2, 3)))
    assert st.stage == "turn"
    assert st.order == [0, 1, 2]                              # 6, 5, 4 in the graveyard
    for _ in range(4 * 3):
        act(st, st.actor, "pass")
    assert st.stage != "turn"


def test_each_bonus_once_in_play_order():
    """A.3: a bonus cannot be chosen more than once; the first player chooses first."""
    st, _ = at_actions(3, invoke=[0, 0, 0])
    finish_round(st)
    harvest = D.TIME_NAMES.index("Harvest festival")
    ENGINE.apply(st, E.Rolled((st.time_pile.index(harvest),)))
    ENGINE.apply(st, E.Choices((0, 0, 0)))
    first, second, third = st.order
    illegal(st, second, ["bonus", 0])
    act(st, first, ["bonus", 0])                              # 2 VP
    assert st.vp[first] == 2
    illegal(st, second, ["bonus", 0])
    act(st, second, ["bonus", 1])                             # 2 T
    act(st, third, ["bonus", 2])                              # 1 VP
    assert st.terror[second] == 5 and st.vp[third] == 1 and st.stage == "turn"


def test_invocation_bounds_and_vp_may_go_negative():
    """A.2: invoke between 0 and the ghosts available; SM-03: VP are not floored at 0."""
    st, _ = new(2)
    with pytest.raises(E.IllegalAction) as exc:
        ENGINE.apply(st, E.Choices((8, 0)))
    assert exc.value.rule == "A.2" and st.stage == "invoke"
    assert ENGINE.legal_actions(st, 0) == list(range(8))
    ENGINE.apply(st, E.Choices((0, 0)))
    st.curse[0] = 1
    finish_round(st)
    assert st.vp[0] == -5


def test_wrong_event_and_wrong_seat_are_rejected():
    st, _ = at_actions(2)
    before = ENGINE.encode(st)
    with pytest.raises(E.IllegalAction):
        ENGINE.apply(st, E.Rolled((1,)))
    with pytest.raises(E.IllegalAction) as exc:
        ENGINE.apply(st, E.Act(1 - st.actor, "pass"))
    assert "decision" in str(exc.value)
    for bad in (None, "fly", ["move"], ["move", 99, 0, 0, "place"], ["tile"], 3, {"a": 1}, ["power", 0]):
        with pytest.raises(E.IllegalAction):
            ENGINE.apply(st, E.Act(st.actor, bad))
    assert ENGINE.encode(st) == before


def test_bad_options():
    with pytest.raises(E.BadOptions):
        ENGINE.new_game({}, 5)
    with pytest.raises(E.BadOptions):
        ENGINE.new_game({"peoples": [0, 0]}, 2)
    with pytest.raises(E.BadOptions):
        ENGINE.new_game({"speed": 1}, 2)
    with pytest.raises(E.BadOptions):
        ENGINE.new_game({"leftovers": "burn"}, 2)


def test_booleans_are_not_numbers_in_actions():
    """["magician", True] would equal ["magician", 1] in Python; it is still not a legal action."""
    st, _ = at_actions(2)
    set_turn(st, 0)
    assert ["magician", 1] in ENGINE.legal_actions(st, 0)
    exc = illegal(st, 0, ["magician", True])
    assert exc.rule == "flow"
