"""POWER cards variant (7.2): the secret choice committed at setup, revealed at first use,
and each of the 12 powers."""

from __future__ import annotations

import pytest

from protocol import engine as E
from protocol.games.sabbat import ENGINE
from protocol.games.sabbat import data as D

from .util import (BRIDGE, GAR, GE, REG, SP, act, at_actions, finish_round, illegal, new, place, res, set_turn,
                   to_stewardship)

ARG, ZUG, SAN, LUS = D.ARGOSOLA, D.ZUGRIGA, D.SANAGAL, D.LUSERNA


def game(peoples, cards, invoke=None):
    st, k = new(len(peoples), peoples=peoples, powers=cards)
    ENGINE.apply(st, E.Choices(tuple(invoke or [3] * len(peoples))))
    return st, k


def test_commit_at_setup_and_reveal_on_first_use():
    st = ENGINE.new_game({"powers": True, "peoples": [LUS, SAN]}, 2)
    ENGINE.apply(st, E.Rolled(((0, 1), tuple(range(16)), tuple(range(10)))))
    assert ENGINE.expected(st) == E.Commit((0, 1), "power")
    assert ENGINE.legal_actions(st, 0) == list(D.PEOPLE_POWERS[LUS])
    ENGINE.apply(st, E.Committed("power", (7, 8)))
    assert st.phandle == [7, 8] and st.pcard == [None, None]
    ENGINE.apply(st, E.Choices((3, 3)))
    k0 = {7: D.LUXURIANCE}
    lux = ["power", D.LUXURIANCE, SP, GE]
    assert lux in ENGINE.legal_actions(st, 0, k0)
    assert lux not in ENGINE.legal_actions(st, 0)             # without the knowledge: no POWER actions
    assert ENGINE.reveals(st, 0, lux) == [(7, D.LUXURIANCE)]
    act(st, 0, lux, k0)
    assert st.pcard[0] == D.LUXURIANCE and ENGINE.reveals(st, 0, lux) == []
    assert st.h2[0] == res(SP, GE)
    assert st.actor == 0 and st.sub == ""                     # "at any time": the action is still to take
    illegal(st, 0, lux)                                       # once per round
    exc = illegal(st, 0, ["power", D.APPARITION])             # only one card per game
    assert exc.rule == "7.2"
    illegal(st, 1, ["power", D.LUXURIANCE, SP, SP])           # not seat 1's people (and not its turn)


def test_views_show_only_own_power():
    st, k = game([LUS, SAN], [D.APPARITION, D.FIREBALL])
    v0 = ENGINE.view(st, 0, k[0])
    v1 = ENGINE.view(st, 1, k[1])
    vs = ENGINE.view(st, None)
    assert v0["my_power"] == "apparition" and v1["my_power"] == "fireball"
    assert "fireball" not in repr(v0) and "apparition" not in repr(v1)
    assert "apparition" not in repr(vs) and "fireball" not in repr(vs)


def test_apparition():
    st, k = game([LUS, SAN, ARG], [D.APPARITION, D.FIREBALL, D.SPELL])
    st.mag = [-1, 6, 15]                                      # 6 is next to 5, 15 is not
    set_turn(st, 0)
    act(st, 0, ["magician", 5], k[0])
    act(st, 0, "done", k[0])
    assert st.sub == "b1end"
    act(st, 0, ["power", D.APPARITION], k[0])
    assert ENGINE.legal_actions(st, 0, k[0]) == [["give", r] for r in range(4)]
    act(st, 0, ["give", GE], k[0])
    assert st.h1[1] == res(GE) and st.h1[2] == res()
    assert st.sub == "" and st.actor != 0


def test_spell_and_fireball():
    st, k = game([ARG, SAN, LUS], [D.SPELL, D.FIREBALL, D.LUXURIANCE])
    st.mag = [-1, 1, 9]
    st.terror = [9, 3, 0]
    set_turn(st, 0)
    act(st, 0, ["magician", 5], k[0])
    act(st, 0, "done", k[0])
    act(st, 0, ["power", D.SPELL], k[0])
    assert st.terror == [10, 2, 0]                            # capped at 10; seat 2 had nothing to steal
    set_turn(st, 1)
    b0, b2 = st.bridge[0], st.bridge[2]
    act(st, 1, ["magician", 4], k[1])
    act(st, 1, "done", k[1])
    act(st, 1, ["power", D.FIREBALL], k[1])
    assert st.bridge[0] == b0 - 1 and st.bridge[2] == b2 - 1 and st.grave[0] == 5


def test_doppelganger_reuses_the_same_effect():
    """RB 7 POWER Cards: "Doppelgänger: … the sorcerer reuses the effect of the manor square that he
    is on (mirror or manor tile)": the same tile, or the same mirror again (issue #15 item 9, R-16)."""
    st, k = game([SAN, LUS], [D.DOPPELGANGER, D.LUXURIANCE])
    set_turn(st, 0)
    act(st, 0, ["magician", 0], k[0])                         # a spider tile touching mirrors 0 and 15
    act(st, 0, ["tile"], k[0])
    act(st, 0, ["power", D.DOPPELGANGER], k[0])
    assert ENGINE.legal_actions(st, 0, k[0]) == ["done", ["tile"]]   # no mirror: the tile was the effect
    act(st, 0, ["tile"], k[0])
    assert st.h2[0] == res(SP, SP, SP, SP)
    st, k = game([SAN, LUS], [D.DOPPELGANGER, D.LUXURIANCE])
    set_turn(st, 0)
    act(st, 0, ["magician", 0], k[0])
    act(st, 0, ["mirror", 0], k[0])
    act(st, 0, ["power", D.DOPPELGANGER], k[0])
    assert ENGINE.legal_actions(st, 0, k[0]) == ["done", ["mirror", 0]]   # the same mirror, not mirror 15
    act(st, 0, ["mirror", 0], k[0])
    assert st.terror[0] == 3 + 3 + 2 and st.mirrors[0] == 2 and st.mirrors[15] == 0
    # nothing used: nothing to reuse
    st, k = game([SAN, LUS], [D.DOPPELGANGER, D.LUXURIANCE])
    set_turn(st, 0)
    act(st, 0, ["magician", 0], k[0])
    act(st, 0, "done", k[0])
    assert st.sub == "b1end" and ["power", D.DOPPELGANGER] not in ENGINE.legal_actions(st, 0, k[0])


def test_seduction():
    st, k = game([ZUG, LUS], [D.SEDUCTION, D.LUXURIANCE])
    st.mag = [-1, 6]
    st.h1[1] = res(GE, GE, SP)
    st.h2[1] = res(GE)
    set_turn(st, 0)
    act(st, 0, ["magician", 5], k[0])
    act(st, 0, "done", k[0])
    assert ENGINE.legal_actions(st, 0, k[0]) == [["power", D.SEDUCTION]]   # "you must steal"
    assert "done" in ENGINE.legal_actions(st, 0)              # other replicas cannot know the card
    act(st, 0, ["power", D.SEDUCTION], k[0])
    assert ENGINE.legal_actions(st, 0, k[0]) == [["steal", 1], ["steal", 2]]
    act(st, 0, ["steal", 1], k[0])
    assert st.h2[0] == res(GE, GE) and st.h1[1] == res(SP) and st.h2[1] == res(GE)


def test_bats():
    st, k = game([ZUG, LUS], [D.BATS, D.LUXURIANCE])
    st.mag = [0, -1]
    set_turn(st, 0)
    assert ["magician", 15] not in ENGINE.legal_actions(st, 0, k[0])
    act(st, 0, ["power", D.BATS, 15], k[0])
    assert st.mag[0] == 15 and st.sub == "b1"


def test_teleportation():
    st, k = game([SAN, LUS], [D.TELEPORTATION, D.LUXURIANCE])
    set_turn(st, 0)
    r = REG["turgapel"]
    assert not any(isinstance(a, list) and a[0] == "move" and a[3] == r for a in ENGINE.legal_actions(st, 0, k[0]))
    act(st, 0, ["power", D.TELEPORTATION, r, "place"], k[0])
    assert [e & 3 for e in st.locs[r]] == [0] and st.appr[0] == res() and st.sub == "b2"


def test_frenzy_and_booster():
    st, k = game([ARG, LUS], [D.FRENZY, D.LUXURIANCE])
    set_turn(st, 0)
    # "During a ghost movement (B2)": not as an action that moves no ghost (issue #15 item 9, R-15)
    assert ["power", D.FRENZY] not in ENGINE.legal_actions(st, 0, k[0])
    act(st, 0, ["move", BRIDGE, 0, GAR["zen"], "place"], k[0])
    act(st, 0, ["power", D.FRENZY], k[0])
    assert st.terror[0] == 6
    st, k = game([ARG, LUS], [D.BOOSTER, D.LUXURIANCE])
    a = GAR["glass_factory"]
    place(st, a, [0])
    set_turn(st, 0)
    two = D.GARDEN_INDEX["canteen"]                           # two steps along the garden ring
    assert two in D.TWO_STEPS[a]
    illegal(st, 0, ["move", a, 0, two, "place"])
    act(st, 0, ["power", D.BOOSTER], k[0])
    act(st, 0, ["move", a, 0, two, "place"], k[0])
    assert [e & 3 for e in st.locs[two]] == [0]
    act(st, 0, "done", k[0])
    assert st.boosted is False


def test_booster_cannot_pass_through_full_spaces():
    st, k = game([ARG, LUS], [D.BOOSTER, D.LUXURIANCE])
    a, mid, two = GAR["glass_factory"], GAR["crystal_ball"], GAR["canteen"]
    place(st, a, [0])
    place(st, mid, [1, 1])                                    # full with 2 players
    set_turn(st, 0)
    act(st, 0, ["power", D.BOOSTER], k[0])
    assert not any(isinstance(x, list) and x[0] == "move" and x[1] == a and x[3] == two
                   for x in ENGINE.legal_actions(st, 0, k[0]))


def test_gift_of_immortality():
    # seat 0 Zugriga (minions), seat 1 Luserna attacks a full garden
    st, k = game([ZUG, LUS], [D.IMMORTALITY, D.LUXURIANCE])
    g = GAR["zen"]
    place(st, g, [1, 0])                                      # the minion is last: displaced by the fight
    st.order = [1, 0]
    set_turn(st, 1)
    act(st, 1, ["move", BRIDGE, 0, g, "fight"], k[1])
    assert st.stage == "turn" and st.sub == "immortal" and st.actor == 0
    assert ENGINE.legal_actions(st, 0) == ["pass"]            # without the knowledge only "pass"
    legal = ENGINE.legal_actions(st, 0, k[0])
    assert ["power", D.IMMORTALITY, REG["vada"]] not in legal  # same board only
    t0 = st.terror[0]
    act(st, 0, ["power", D.IMMORTALITY, GAR["canteen"]], k[0])
    assert [e & 3 for e in st.locs[GAR["canteen"]]] == [0] and st.terror[0] == t0
    assert st.actor == 1 and st.sub == "b2"
    # without using it: graveyard and 1 terror, as usual
    st, k = game([ZUG, LUS], [D.BATS, D.LUXURIANCE])
    place(st, g, [1, 0])                                      # the minion is last: displaced by the fight
    st.order = [1, 0]
    set_turn(st, 1)
    act(st, 1, ["move", BRIDGE, 0, g, "fight"], k[1])
    assert st.sub == "immortal"                               # asked all the same: the card is secret
    t0, g0 = st.terror[0], st.grave[0]
    act(st, 0, "pass", k[0])
    assert st.terror[0] == t0 + 1 and st.grave[0] == g0


def test_secret_area():
    st, k = game([LUS, ARG], [D.SECRET_AREA, D.SPELL])
    g = GAR["zen"]
    place(st, g, [0])
    finish_round(st)
    assert st.stage == "secret" and st.actor == 0
    act(st, 0, ["power", D.SECRET_AREA, g, 0], k[0])
    assert st.stage == "time"
    ENGINE.apply(st, E.Rolled((0,)))
    ENGINE.apply(st, E.Choices((3, 3)))
    while st.stage == "bonus":
        act(st, st.actor, ENGINE.legal_actions(st, st.actor)[0])
    set_turn(st, 1)
    st.terror[1] = 10
    assert not any(isinstance(a, list) and a[0] == "move" and a[3] == g and a[4] == "fight"
                   for a in ENGINE.legal_actions(st, 1))
    set_turn(st, 0)
    assert not any(isinstance(a, list) and a[0] == "move" and a[1] == g for a in ENGINE.legal_actions(st, 0))
    finish_round(st)
    assert not any(e & 8 for L in st.locs for e in L)          # protection lasts one round


def test_power_not_in_play_is_rejected():
    st, _ = at_actions(2, peoples=[LUS, SAN])
    set_turn(st, 0)
    exc = illegal(st, 0, ["power", D.LUXURIANCE, SP, SP])
    assert exc.rule == "7.2"


@pytest.mark.parametrize("card", list(D.PEOPLE_POWERS[LUS]))
def test_luserna_is_asked_at_round_start_whatever_its_card(card):
    """The secret-area window is opened for every Luserna player with a ghost out, so being asked
    reveals nothing about the card."""
    st, k = game([LUS, ARG], [card, D.SPELL])
    place(st, GAR["zen"], [0])
    finish_round(st)
    assert st.stage == "secret" and st.actor == 0
    legal = ENGINE.legal_actions(st, 0, k[0])
    secret = [x for x in legal if isinstance(x, list) and x[1] == D.SECRET_AREA]
    assert bool(secret) == (card == D.SECRET_AREA)            # (Luxuriance may be used here too: "At any time")


def test_immortal_minion_that_already_moved_cannot_move_again():
    """RB B.2: "Each ghost can move once". A minion that moved, was pushed out by its own owner's
    next fight and reappeared by the Gift of immortality keeps its moved mark (issue #15 item 1)."""
    st, k = game([ZUG, LUS], [D.IMMORTALITY, D.LUXURIANCE])
    zen, canteen = GAR["zen"], GAR["canteen"]
    place(st, zen, [1])
    set_turn(st, 0)
    act(st, 0, ["move", BRIDGE, 0, zen, "place"], k[0])      # minion A arrives peacefully: it has moved
    assert [e & 3 for e in st.locs[zen]] == [1, 0]
    act(st, 0, ["move", BRIDGE, 0, zen, "fight"], k[0])      # minion B fights: A is last and pushed out
    assert st.sub == "immortal" and st.actor == 0
    act(st, 0, ["power", D.IMMORTALITY, canteen], k[0])
    assert [e & 3 for e in st.locs[canteen]] == [0] and st.sub == "b2"
    moves_from_canteen = [a for a in ENGINE.legal_actions(st, 0, k[0])
                          if isinstance(a, list) and a[0] == "move" and a[1] == canteen]
    assert moves_from_canteen == []
    illegal(st, 0, ["move", canteen, 0, BRIDGE, "place"])


def test_luxuriance_at_any_decision():
    """RB 7 POWER Cards "Luxuriance: At any time, take 2 resources" (issue #15 item 9, R-10): also
    in the middle of an action (here a ghost movement), not only at the top of one."""
    st, k = game([LUS, ARG], [D.LUXURIANCE, D.FRENZY])
    set_turn(st, 0)
    act(st, 0, ["move", BRIDGE, 0, GAR["zen"], "place"], k[0])
    assert st.sub == "b2"
    act(st, 0, ["power", D.LUXURIANCE, SP, GE], k[0])
    assert st.h2[0] == res(SP, GE) and st.sub == "b2"
    illegal(st, 0, ["power", D.LUXURIANCE, SP, GE])            # once per round (default)


def test_secret_area_wisp_is_not_starved_while_another_ghost_can_go():
    """RB 7 Secret area: the wisp "cannot be moved or attacked in this round"; when food runs short its
    owner picks another unfed ghost while one is left (issue #15 item 9, R-11)."""
    st, k = game([LUS, ARG], [D.SECRET_AREA, D.SPELL])
    g, h = GAR["zen"], GAR["glass_factory"]
    place(st, g, [0])
    place(st, h, [0])
    finish_round(st)
    act(st, 0, ["power", D.SECRET_AREA, g, 0], k[0])
    ENGINE.apply(st, E.Rolled((0,)))
    ENGINE.apply(st, E.Choices((0, 0)))
    while st.stage == "bonus":
        act(st, st.actor, ENGINE.legal_actions(st, st.actor)[0])
    st.bridge[0] = 0
    st.grave[0] = 5
    before = ENGINE.clone(st)
    st.terror[0] = 1                                           # food 2, one ghost unfed
    to_stewardship(st)
    assert st.stage == "food" and st.actor == 0 and st.args == [1]
    assert ENGINE.legal_actions(st, 0) == [["unfed", h, 0]]      # not the protected wisp ...
    st = before
    st.terror[0] = 0                                           # both unfed: the wisp too
    to_stewardship(st)
    assert st.args == [2] and ["unfed", g, 0] in ENGINE.legal_actions(st, 0)


def test_power_limit_trigger_option():
    """Option power_limit "trigger" (issue #15 item 11, R-9): the text prints no per-round limit, so a
    POWER may be used at each of its triggers (at most once per action)."""
    st, k = game([ARG, LUS], [D.FRENZY, D.LUXURIANCE])
    st.power_limit = "trigger"
    set_turn(st, 0)
    act(st, 0, ["move", BRIDGE, 0, GAR["zen"], "place"], k[0])
    act(st, 0, ["power", D.FRENZY], k[0])
    assert ["power", D.FRENZY] not in ENGINE.legal_actions(st, 0, k[0])   # once in this action
    act(st, 0, "done", k[0])
    act(st, 1, "pass", k[1])
    act(st, 0, ["move", BRIDGE, 0, GAR["canteen"], "place"], k[0])
    act(st, 0, ["power", D.FRENZY], k[0])                     # again in the next action of the round
    assert st.terror[0] == 3 + 3 + 3


def test_magician_move_literal_option():
    """Option magician_move "literal" (issue #15 item 11, C-7): RB B.1 "move their magician from one
    square either diagonally or horizontally" read literally: no vertical step."""
    st, k = game([ARG, LUS], [D.FRENZY, D.LUXURIANCE])
    st.magician_move = "literal"
    st.mag = [5, -1]
    set_turn(st, 0)
    steps = sorted(a[1] for a in ENGINE.legal_actions(st, 0) if isinstance(a, list) and a[0] == "magician")
    assert steps == [0, 2, 4, 6, 8, 10]                       # not 1 or 9 (straight up or down)
    st.magician_move = "king"
    st._cache = None
    steps = sorted(a[1] for a in ENGINE.legal_actions(st, 0) if isinstance(a, list) and a[0] == "magician")
    assert steps == [0, 1, 2, 4, 6, 8, 9, 10]
    with pytest.raises(E.BadOptions):
        ENGINE.new_game({"magician_move": "rook"}, 2)
    with pytest.raises(E.BadOptions):
        ENGINE.new_game({"power_limit": "never"}, 2)


def _two_minions_destroyed(power_limit: str):
    """Seat 1 (Luserna) wins a fight against seat 0's (Zugriga) minion in the Zen garden, seat 0
    uses Gift of immortality, then seat 1 wins a second fight in the canteen, in one action."""
    st, k = game([ZUG, LUS], [D.IMMORTALITY, D.LUXURIANCE])
    st.power_limit = power_limit
    zen, canteen = GAR["zen"], GAR["canteen"]
    place(st, zen, [1, 0])
    place(st, canteen, [1, 0])
    st.order = [1, 0]
    set_turn(st, 1)
    act(st, 1, ["move", BRIDGE, 0, zen, "fight"], k[1])
    act(st, 0, ["power", D.IMMORTALITY, GAR["alchemist"]], k[0])
    act(st, 1, ["move", BRIDGE, 0, canteen, "fight"], k[1])
    return st, k


def test_gift_of_immortality_for_every_minion_destroyed_in_one_action():
    """RB 7.2 "When a vampire's minion is destroyed after a fight, it does not return to the
    graveyard, but reappears" — every destroyed minion (issue 24 item 8): with power_limit
    "trigger" (the default, R-9) a second minion destroyed in the same action gets the gift too."""
    st, k = _two_minions_destroyed("trigger")                # the default
    assert st.sub == "immortal" and st.actor == 0
    act(st, 0, ["power", D.IMMORTALITY, GAR["glass_factory"]], k[0])      # the second one reappears too
    assert [e & 3 for e in st.locs[GAR["glass_factory"]]] == [0] and st.grave[0] == 7 - 2 - 3
    # with the "round" limit the second minion goes to the graveyard
    st, k = _two_minions_destroyed("round")
    assert st.sub == "b2" and st.actor == 1


def test_defaults_follow_the_text():
    """Register C-7 and R-9 (issue 24 item 9): RB B.1 "diagonally or horizontally" and RB 7.2 "when the
    player decides to use their effect for the first time" (no per-round limit printed)."""
    opts = ENGINE.default_options(2)
    assert opts["magician_move"] == "literal" and opts["power_limit"] == "trigger"
