"""The rulebook's worked examples and rule-derived scenarios (rules-gaps.md §2.6, T-SM-01..19).
Each test names the spec section it checks (specs/sabbat-magica.md)."""

from __future__ import annotations

from protocol import engine as E
from protocol.games.sabbat import ENGINE
from protocol.games.sabbat import data as D

from .util import (BRIDGE, GAR, GE, MA, REG, RT, SP, act, at_actions, finish_round, illegal, place, res, set_turn,
                   to_stewardship)


def test_t_sm_01_curse_example():
    """A.1: Alice's 1H {2 rat tails, mask} become one curse; 2H moves to 1H; VP unchanged."""
    st, _ = at_actions(2, invoke=[0, 0])
    st.h1[0] = res(RT, RT, MA)
    st.h2[0] = res(SP, GE)
    st.vp[0] = 9
    finish_round(st)
    assert st.rnd == 2
    assert st.curse[0] == 1
    assert st.h1[0] == res(SP, GE)
    assert st.h2[0] == res()
    assert st.vp[0] == 9


def test_t_sm_02_old_curse_costs_5_vp():
    """A.1: the curse already on the skull goes back to the store for -5 VP; 1H becomes a new curse."""
    st, _ = at_actions(2, invoke=[0, 0])
    st.curse[0] = 1
    st.h1[0] = res(SP)
    st.vp[0] = 12
    finish_round(st)
    assert st.vp[0] == 7 and st.curse[0] == 1 and st.h1[0] == res()
    # with nothing in 1H, the old curse is paid and the skull stays empty
    st2, _ = at_actions(2, invoke=[0, 0])
    st2.curse[1] = 1
    finish_round(st2)
    assert st2.vp[1] == -5 and st2.curse[1] == 0


def _canteen_fight(n_red_after: bool):
    # seats: 0 red (Zugriga), 1 green (Luserna), 2 blue (Argosola); order red, green, blue
    st, _ = at_actions(3, invoke=[3, 3, 3], peoples=[1, 3, 0])
    st.order = [0, 1, 2]
    c = GAR["canteen"]
    place(st, c, [0, 2] + ([0] if n_red_after else []))
    set_turn(st, 1)
    st.terror[1] = 6
    return st, c


def test_t_sm_03_fight_example_costs_and_gains():
    """The Fight: green attacks red (before it: 2 terror) and blue (after it: 1): pays 3, wins 4 VP."""
    st, c = _canteen_fight(False)
    vp0 = st.vp[1]
    act(st, 1, ["move", BRIDGE, 0, c, "fight"])
    assert st.terror[1] == 3
    assert st.vp[1] == vp0 + 4
    assert [e & 3 for e in st.locs[c]] == [1, 0, 2]          # attacker first, the rest shift down
    assert st.vp[0] == 0 and st.vp[2] == 0


def test_t_sm_03_fight_displaces_the_last_ghost():
    """The Fight: with no space left the last ghost goes to the graveyard and its owner gets 1 terror."""
    st, c = _canteen_fight(True)                              # canteen red, blue, red: full with 3 players
    assert len(st.locs[c]) == st.caps[c] == 3
    grave_red, terror_red = st.grave[0], st.terror[0]
    act(st, 1, ["move", BRIDGE, 0, c, "fight"])
    assert st.terror[1] == 6 - (2 + 1 + 2)
    assert st.vp[1] == 6
    assert [e & 3 for e in st.locs[c]] == [1, 0, 2]
    assert st.grave[0] == grave_red + 1 and st.terror[0] == terror_red + 1


def test_t_sm_04_training_ground_bonus():
    """NB of The Fight + Gardens: a position-1 training-ground ghost adds 1 VP to any won fight."""
    st, c = _canteen_fight(False)
    place(st, GAR["training_ground"], [1])
    act(st, 1, ["move", BRIDGE, 0, c, "fight"])
    assert st.vp[1] == 5


def test_training_ground_minor_only_in_regions():
    """Gardens, Training ground minor: +1 VP only for fights on the regions board (SM-20)."""
    st, c = _canteen_fight(False)
    place(st, GAR["training_ground"], [0, 1])                 # green holds position 2
    act(st, 1, ["move", BRIDGE, 0, c, "fight"])
    assert st.vp[1] == 4                                      # garden fight: no bonus
    st, _ = _canteen_fight(False)
    place(st, GAR["training_ground"], [0, 1])
    r = REG["gineva"]
    place(st, r, [2])
    st.h1[1] = res(*D.GATE_FEES[st.gates[D.REGION_GATE[r]]])
    act(st, 1, ["move", BRIDGE, 0, r, "fight"])
    assert st.vp[1] == 2 + 1


def test_t_sm_05_test_tube_example():
    """6 Test tube: 4 rat tails become 2 masks, a spider and a gemstone, in the same store."""
    st, _ = at_actions(3)
    set_turn(st, 2)
    st.h2[2] = res(RT, RT, RT, RT)
    act(st, 2, ["magician", 15])                              # tile 15 is the test tube (identity layout)
    assert D.TILE_KIND[st.tiles[15]] == D.TEST_TUBE
    act(st, 2, ["tile", RT])
    for _ in range(4):
        act(st, 2, ["give", 2])
    act(st, 2, "done")
    for t in (MA, MA, SP, GE):
        act(st, 2, ["take", t])
    assert st.h2[2] == res(MA, MA, SP, GE)
    assert st.h1[2] == res()
    assert st.stage == "turn" and st.actor != 2              # the action is over


def test_test_tube_keeps_each_store():
    """6 Test tube: resources given from 1H come back in 1H, those from 2H in 2H."""
    st, _ = at_actions(3)
    set_turn(st, 0)
    st.h1[0] = res(SP)
    st.h2[0] = res(SP, SP)
    act(st, 0, ["magician", 15])
    act(st, 0, ["tile", SP])
    illegal(st, 0, "done")                                    # at least one resource must be given
    act(st, 0, ["give", 1])
    act(st, 0, ["give", 2])
    act(st, 0, "done")
    act(st, 0, ["take", GE])
    act(st, 0, ["take", MA])
    assert st.h1[0] == res(GE) and st.h2[0] == res(SP, MA)


def _food(n_grave: int, terror: int, canteen_pos: int | None = None):
    st, _ = at_actions(2, invoke=[0, 0])
    out = 7 - n_grave
    st.grave[0] = n_grave
    st.bridge[0] = out
    st.terror[0] = terror
    if canteen_pos is not None:
        c = GAR["canteen"]
        if canteen_pos == 2:
            place(st, c, [1])
        st.bridge[0] -= 1
        st.locs[c].append(0)
    return st


def test_t_sm_06_food_formula():
    """C.1: pay 7 less the ghosts in the graveyard: 3 in the graveyard, 5 terror -> 1 left."""
    st = _food(3, 5)
    to_stewardship(st)
    assert st.terror[0] == 1


def test_t_sm_07_food_canteen_major():
    """C.1 NB + Canteen major: feed 2 fewer ghosts -> pays 2."""
    st = _food(3, 5, canteen_pos=1)
    to_stewardship(st)
    assert st.terror[0] == 3
    st = _food(3, 5, canteen_pos=2)                           # minor: 1 fewer
    to_stewardship(st)
    assert st.terror[0] == 2


def test_t_sm_08_food_shortfall():
    """C.1: 4 ghosts out, 1 terror: one is fed, the owner sends 3 unfed ghosts to the graveyard, -3 VP."""
    st = _food(3, 1)
    st.bridge[0] = 2
    place_from_bridge = [REG["neshata"], GAR["zen"]]
    for l in place_from_bridge:
        st.locs[l].append(0)
    to_stewardship(st)
    assert st.stage == "food" and st.actor == 0 and st.terror[0] == 0
    legal = ENGINE.legal_actions(st, 0)
    assert sorted(legal) == sorted([["unfed", BRIDGE, 0], ["unfed", REG["neshata"], 0], ["unfed", GAR["zen"], 0]])
    act(st, 0, ["unfed", BRIDGE, 0])
    act(st, 0, ["unfed", BRIDGE, 0])
    act(st, 0, ["unfed", GAR["zen"], 0])
    assert st.grave[0] == 6 and st.bridge[0] == 0 and st.locs[REG["neshata"]] == [0]
    # C.2 then scored Neshata (3): -3 + 3
    assert st.vp[0] == 0


def test_t_sm_09_mirrors():
    """6 Mirrors: intact -> cracked +3; cracked -> broken +2 (capped at 10); broken cannot be worked."""
    st, _ = at_actions(2, invoke=[1, 1])
    set_turn(st, 0)
    st.terror[0] = 5
    act(st, 0, ["magician", 1])                               # tile 1 touches mirror 1
    act(st, 0, ["mirror", 1])
    assert st.terror[0] == 8 and st.mirrors[1] == 1
    act(st, 1, "pass")
    act(st, 0, ["magician", 2])
    act(st, 0, "done")
    act(st, 1, "pass")
    act(st, 0, ["magician", 1])
    act(st, 0, ["mirror", 1])
    assert st.terror[0] == 10 and st.mirrors[1] == 2
    act(st, 1, "pass")
    act(st, 0, ["magician", 2])
    act(st, 0, "done")
    act(st, 1, ["magician", 1])
    assert ["mirror", 1] not in ENGINE.legal_actions(st, 1)
    illegal(st, 1, ["mirror", 1])


def test_t_sm_10_glass_factory():
    """Glass factory major: +1 on every mirror use (+4, +3); minor: +1 only when breaking (+3, +3)."""
    for pos, gains in ((1, (4, 3)), (2, (3, 3))):
        st, _ = at_actions(2, invoke=[1, 1])
        g = GAR["glass_factory"]
        place(st, g, [0] if pos == 1 else [1, 0])
        st.terror[0] = 2
        set_turn(st, 0)
        act(st, 0, ["magician", 1])
        act(st, 0, ["mirror", 1])
        assert st.terror[0] == 2 + gains[0]
        st.terror[0] = 2
        set_turn(st, 0)
        act(st, 0, ["magician", 2])
        st.mag[0] = 1                                         # back next to mirror 1 for the test
        st.sub, st.args, st._cache = "b1", [0, -1], None
        act(st, 0, ["mirror", 1])
        assert st.terror[0] == 2 + gains[1]


def test_t_sm_11_zen_garden_note():
    """6 Mirrors note: a ghost removed from the Zen garden earns only 1 terror (not 2)."""
    st, _ = at_actions(2)
    z = GAR["zen"]
    place(st, z, [0])
    st.terror[0] = 4
    set_turn(st, 0)
    act(st, 0, ["move", z, 0, BRIDGE, "place"])
    assert st.terror[0] == 5
    # while a Zen major ghost stays, a ghost moved to the drawbridge earns 2 (SM-24 proposal)
    r = REG["vada"]
    place(st, r, [0])
    st.locs[z] = [0]
    st.grave[0] -= 1
    act(st, 0, ["move", r, 0, BRIDGE, "place"])
    assert st.terror[0] == 7


def test_t_sm_12_terroriser():
    """6 Terroriser: a 2H resource gives 4 terror (7 -> 10, 11 capped), a 1H resource gives 2."""
    st, _ = at_actions(2)
    set_turn(st, 0)
    st.terror[0] = 7
    st.h2[0] = res(SP)
    st.h1[0] = res(SP)
    act(st, 0, ["magician", 14])
    act(st, 0, ["tile", 2, SP])
    assert st.terror[0] == 10 and st.h2[0] == res() and st.h1[0] == res(SP)
    st2, _ = at_actions(2)
    set_turn(st2, 0)
    st2.terror[0] = 7
    st2.h1[0] = res(SP)
    act(st2, 0, ["magician", 14])
    act(st2, 0, ["tile", 1, SP])
    assert st2.terror[0] == 9 and st2.h1[0] == res()


def test_t_sm_13_retreat():
    """The Fight: no free space and no fight: back to the graveyard, each other player +2 VP, mover +1
    terror; the gate fee stays paid (SM-14, SM-18)."""
    # seats 0 red, 1 blue, 2 green
    st, _ = at_actions(3, peoples=[1, 0, 3])
    r = REG["turgapel"]
    place(st, r, [0, 1, 0])
    fee = D.GATE_FEES[st.gates[D.REGION_GATE[r]]]
    st.h1[2] = res(*fee)
    set_turn(st, 2)
    t0, g0 = st.terror[2], st.grave[2]
    act(st, 2, ["move", BRIDGE, 0, r, "retreat"])
    assert st.vp[0] == 2 and st.vp[1] == 2 and st.vp[2] == 0
    assert st.terror[2] == t0 + 1 and st.grave[2] == g0 + 1
    assert st.appr[2] == res(*fee) and st.h1[2] == res()
    assert [e & 3 for e in st.locs[r]] == [0, 1, 0]


def test_t_sm_14_order_of_play_with_canteen_and_ties():
    """A.2: most ghosts in the graveyard first; canteen minor adds 1; ties keep the previous order."""
    st, _ = at_actions(4, invoke=[0, 0, 0, 0])
    A, B, C, Dd = 0, 1, 2, 3
    c = GAR["canteen"]
    place(st, c, [Dd, C])                                     # D major (+2), C minor (+1)
    finish_round(st)
    st.order = [B, C, A, Dd]
    assert st.stage == "time"
    ENGINE.apply(st, E.Rolled((0,)))
    # graveyard counts after the invocation: A 3, B 2, C 2, D 0
    ENGINE.apply(st, E.Choices((4, 5, 4, 6)))
    assert [st.grave[s] for s in (A, B, C, Dd)] == [3, 2, 2, 0]
    # the bonus is optional ("can place", register R-1): D's +2 changes nothing, so only C is asked
    assert st.stage == "canteen" and st.actor == C
    assert ENGINE.legal_actions(st, C) == [["canteen", 1], ["canteen", 0]]
    declined = ENGINE.clone(st)
    act(st, C, ["canteen", 1])
    assert st.order == [C, A, B, Dd]
    act(declined, C, ["canteen", 0])
    assert declined.order == [A, B, C, Dd]


def test_canteen_major_choice_is_asked_when_the_minor_may_decline():
    """A.2 NB (line 184) and Gardens (line 336, "These bonuses are optional"), register R-1: each
    holder's choice is its own. Graveyards 2/3/4, previous order [2, 1, 0], seat 0 the canteen's
    major (+2), seat 1 its minor (+1): with both bonuses taken, 4/4/4 keeps [2, 1, 0], so the major's
    +2 changes nothing *if the minor takes its +1* — but the minor may decline, and then the major's
    +2 alone moves it ahead of seat 1. The major is asked first, and its answer is applied."""
    def at_canteen():
        st, _ = at_actions(3, invoke=[0, 0, 0])
        place(st, GAR["canteen"], [0, 1])                     # seat 0 major, seat 1 minor
        finish_round(st)
        st.order = [2, 1, 0]
        ENGINE.apply(st, E.Rolled((0,)))
        avail = [st.grave[s] + st.bridge[s] for s in range(3)]
        ENGINE.apply(st, E.Choices(tuple(avail[s] - (2, 3, 4)[s] for s in range(3))))
        assert st.grave[:3] == [2, 3, 4]
        return st
    st = at_canteen()
    assert st.stage == "canteen" and st.actor == 0            # the major is asked (before: only seat 1)
    act(st, 0, ["canteen", 0])                                # declines: seat 1's +1 changes nothing now
    assert st.stage != "canteen" and st.order == [2, 1, 0]
    st = at_canteen()
    act(st, 0, ["canteen", 1])
    assert st.stage == "canteen" and st.actor == 1
    both = ENGINE.clone(st)
    act(st, 1, ["canteen", 0])                                # only the major's +2: 4, 3, 4
    assert st.order == [2, 0, 1]
    act(both, 1, ["canteen", 1])                              # both: 4, 4, 4, ties keep [2, 1, 0]
    assert both.order == [2, 1, 0]


def test_canteen_bonus_counts_with_an_empty_graveyard():
    """A.2 NB: the canteen bonus also applies when all your ghosts are used."""
    st, _ = at_actions(2, invoke=[0, 0])
    place(st, GAR["canteen"], [1])
    finish_round(st)
    ENGINE.apply(st, E.Rolled((0,)))
    ENGINE.apply(st, E.Choices((6, 6)))                        # graveyards 1 and 0 (+2)
    act(st, 1, ["canteen", 1])
    assert st.order == [1, 0]


def test_t_sm_15_region_vp_and_crystal_ball():
    """C.2: Neshata 3 + Gineva 2 = 5; crystal ball major 7, minor 6."""
    for crystal, expect in ((None, 5), (1, 7), (2, 6)):
        st, _ = at_actions(2, invoke=[0, 0])
        place(st, REG["neshata"], [0, 0])                     # two ghosts: the region still scores once
        place(st, REG["gineva"], [0])
        place(st, REG["turgapel"], [1])
        cb = GAR["crystal_ball"]
        if crystal == 1:
            place(st, cb, [0])
        elif crystal == 2:
            place(st, cb, [1, 0])
        st.terror = [10, 10]
        to_stewardship(st)
        assert st.vp[0] == expect, (crystal, st.vp)
        assert st.vp[1] == 4                                  # Turgapel (4) is never boosted


def test_t_sm_16_approval_and_alchemist():
    """C.3: 4 different resources make a chimaera; the spare spider stays (SM-29);
    alchemist major keeps up to 2 of the batch in 2H."""
    st, _ = at_actions(2, invoke=[0, 0])
    st.appr[0] = res(SP, RT, GE, MA, SP)
    to_stewardship(st)
    assert st.chim[0] == 1 and st.appr[0] == res(SP)
    st, _ = at_actions(2, invoke=[0, 0])
    st.appr[0] = res(SP, RT, GE, MA, SP)
    place(st, GAR["alchemist"], [0])
    st.terror[0] = 10
    to_stewardship(st)
    assert st.stage == "alch" and st.actor == 0
    act(st, 0, ["keep", RT])
    assert ["keep", RT] not in ENGINE.legal_actions(st, 0)    # one batch: one rat tail at most
    act(st, 0, ["keep", MA])
    assert ENGINE.legal_actions(st, 0) == ["done"]            # 2 per batch
    act(st, 0, "done")
    assert st.chim[0] == 1 and st.appr[0] == res(SP)
    assert st.h1[0] == res(RT, MA)                            # kept in 2H, then moved by the next A.1


def test_approval_leftover_discard_variant():
    st, _ = at_actions(2, invoke=[0, 0], leftovers="discard")
    st.appr[0] = res(SP, RT, GE, MA, SP, RT, GE)
    to_stewardship(st)
    assert st.chim[0] == 1 and st.appr[0] == res()


def test_t_sm_17_final_scoring_and_shared_victory():
    """5 End: 5 VP per chimaera added after round 6 (40 + 3x5 = 55); a draw shares the victory."""
    st, _ = at_actions(2, invoke=[0, 0])
    for _ in range(5):
        finish_round(st)
    assert st.rnd == 6
    st.vp = [40, 50]
    st.chim = [3, 1]
    finish_round(st)
    assert ENGINE.expected(st) == E.Finished()
    assert ENGINE.result(st)["scores"] == [55, 55]
    assert ENGINE.result(st)["winners"] == [0, 1]


def test_t_sm_18_carnival():
    """Time cards: Carnival gives 2 actions each and the bonuses 1 resource, 1 resource, 2T, 2T."""
    st, _ = at_actions(2, invoke=[0, 0])
    finish_round(st)
    carnival = D.TIME_NAMES.index("Carnival")
    ENGINE.apply(st, E.Rolled((st.time_pile.index(carnival),)))
    assert st.time_card == carnival
    ENGINE.apply(st, E.Choices((0, 1)))
    first, second = st.order
    legal = ENGINE.legal_actions(st, first)
    assert legal == [["bonus", 0, r] for r in range(4)] + [["bonus", 2]]
    act(st, first, ["bonus", 2])
    assert st.terror[first] == 5
    act(st, second, ["bonus", 0, GE])
    assert st.h2[second] == res(GE)
    assert st.stage == "turn"
    done = 0
    while st.stage == "turn":
        act(st, st.actor, "pass")
        done += 1
    assert done == 2 * 2


def test_t_sm_19_setup():
    """Set Up: VP 0, terror 3, 7 ghosts in the graveyard, Full Moon, 5-card pile + 1 card never drawn,
    8 gates placed and 2 aside, 16 intact mirrors, random order from the beacon."""
    st = ENGINE.new_game(ENGINE.default_options(4), 4)
    assert ENGINE.expected(st) == E.Random((("perm", 4), ("perm", 16), ("perm", 10)))
    ENGINE.apply(st, E.Rolled(((2, 0, 3, 1), tuple(range(15, -1, -1)), tuple(range(10)))))
    assert st.order == [2, 0, 3, 1]
    assert st.vp == [0] * 4 and st.terror == [3] * 4 and st.grave == [7] * 4
    assert D.TIME_NAMES[st.time_card] == "Full Moon" and D.TIME_ACTIONS[st.time_card] == 4
    assert len(st.time_pile) == 6
    assert len(st.gates) == 8 and len(st.aside) == 2 and st.mirrors == [0] * 16
    assert sorted(st.tiles) == list(range(16))
    # over the game exactly 5 time cards are drawn; the sixth stays in the box unseen
    draws = 0
    while st.stage != "end":
        step = ENGINE.expected(st)
        if isinstance(step, E.Random):
            ENGINE.apply(st, E.Rolled((0,)))
            draws += 1
        else:
            finish_round(st)
    assert draws == 5 and len(st.time_pile) == 1
