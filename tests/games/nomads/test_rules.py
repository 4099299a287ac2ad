"""Numeric rules (hiring, provisions, prices), tiles, windows, bad input and errors."""

from __future__ import annotations

import random

import pytest

from protocol.engine import Act, BadOptions, Decide, DeckShow, DeckShown, Rolled
from protocol.games.nomads import data as D
from protocol.games.nomads import engine as NE

from .util import (BLANK, C0, C1, CAMEL, D0, D1, D2, DONKEY, GOAT, GREEN, GREY, HORSE, RED, TRADER_ANIMAL,
                   TRADER_BLANK, E, IllegalAction, act, check_invariants, give_animals, give_traders,
                   hand_tile, land_face, put, roll, set_box, set_layout, set_market, show,
                   started)

LAYOUT = [D0, C0, D1, C1, D2]


def midgame(n=4, seed=0):
    ref = started(n, seed)
    st = ref.state
    set_layout(st, LAYOUT)
    st.row_yellow[1] = st.yburned.pop()        # a face-down tile on the near city
    for b in range(5):
        set_box(st, b, [1, 1, 1, 1])
    for s in range(n):
        put(st, s, 2, 3)
    st.active = 0
    return ref, st


def quiet_turn(st, seat):
    act(st, seat, "stay")
    if st.phase == "action" and st.active == seat:
        act(st, seat, "done")


# ----------------------------------------------------------------- options

def test_bad_options_and_player_counts():
    for n in (1, 2, 7):
        with pytest.raises(BadOptions):
            E.new_game({}, n)
    with pytest.raises(BadOptions):
        E.new_game({"yellow_tiles": 5}, 4)
    with pytest.raises(BadOptions):
        E.new_game({"short_blue": 1}, 4)
    with pytest.raises(BadOptions):
        E.new_game({"colour": "red"}, 4)
    assert E.default_options(4) == {"yellow_tiles": 4, "short_blue": False, "max_turns": 1000,
                                    "full_market": "stack", "lost_turns": 2, "second_sale": False}
    with pytest.raises(BadOptions):
        E.new_game({"second_sale": 1}, 4)


# ----------------------------------------------------------------- provisions and hiring

@pytest.mark.parametrize("animals,traders,cost", [
    ([0, 0, 0, 0], [1, 1, 0, 0], 0),        # no animals, two traders: nothing
    ([2, 1, 0, 0], [1, 1, 0, 0], 3),        # 1 per animal
    ([0, 0, 0, 0], [1, 1, 1, 0], 3),        # three traders: 3
    ([0, 1, 1, 0], [1, 1, 1, 0], 5),        # Example 9
    ([0, 0, 0, 0], [1, 0, 0, 0], 0),        # one trader: no surcharge
])
def test_provisions(animals, traders, cost):
    ref, st = midgame()
    give_animals(st, 0, animals)
    give_traders(st, 0, traders)
    assert NE.move_cost(st, 0, 1) == 0
    assert NE.move_cost(st, 0, 2) == cost


def test_hiring_rules():
    ref, st = midgame()
    put(st, 0, 3, 3)
    act(st, 0, "depart")
    assert ["done"] not in E.legal_actions(st, 0)       # two must be taken
    with pytest.raises(IllegalAction) as e:
        act(st, 0, "done")
    assert e.value.rule == "N.6.3"
    act(st, 0, "hire", GOAT)
    act(st, 0, "hire", GOAT)
    assert ["done"] in E.legal_actions(st, 0) and st.money[0] == 10
    st.money[0] = 2
    assert E.legal_actions(st, 0) == [["done"]]         # a third trader costs 3
    with pytest.raises(IllegalAction) as e:
        act(st, 0, "hire", HORSE)
    assert e.value.rule == "N.6.3"


def test_hiring_with_scarce_reserve():
    ref, st = midgame()
    put(st, 0, 3, 3)
    give_traders(st, 1, [3, 3, 3, 2])                    # one camel die left in the reserve
    act(st, 0, "depart")
    assert E.legal_actions(st, 0) == [["hire", CAMEL]]
    act(st, 0, "hire", CAMEL)
    assert E.legal_actions(st, 0) == [["done"]]
    act(st, 0, "done")
    assert st.phase == "dest"


def test_arriving_in_a_city_returns_traders_and_takes_the_tile():
    ref, st = midgame()
    give_traders(st, 0, [1, 0, 1, 0])
    put(st, 0, 1, 2)
    h = st.row_yellow[1]
    reserve = st.reserve[:]
    act(st, 0, "move", 1, 3)
    assert st.traders[0:4] == [0, 0, 0, 0] and st.reserve == [reserve[0] + 1, reserve[1], reserve[2] + 1, reserve[3]]
    assert st.held[0] == [h] and st.row_yellow[1] == 0
    assert E.expected(st) == DeckShow(0, (h,))
    E.apply(st, DeckShown(0, (h,)))
    assert st.phase == "action"
    # the identity is in nobody's view unless their knowledge has it
    v1 = E.view(st, 1, {})
    v0 = E.view(st, 0, {h: D.Y_ABDUL})
    assert v0["players"][0]["my_tiles"] == [{"handle": h, "tile": "abdul"}]
    assert "my_tiles" not in v1["players"][0] and v1["players"][0]["tiles_held"] == 1
    assert "abdul" not in repr(v1)


def test_passing_through_a_city_is_not_arriving():
    ref, st = midgame()
    give_traders(st, 0, [1, 1, 0, 0])
    put(st, 0, 2, 3)
    act(st, 0, "move", 0, 3)                   # through the city of row 1
    assert st.traders[0:4] == [1, 1, 0, 0] and not st.held[0]


# ----------------------------------------------------------------- actions

def test_one_action_per_turn_and_done():
    ref, st = midgame()
    put(st, 0, 1, 1)
    give_traders(st, 0, [1, 1, 0, 0])
    hand_tile(ref, 0, D.Y_DINAR4)               # a tile holder is always asked
    act(st, 0, "stay")
    act(st, 0, "lure")
    roll(st, TRADER_BLANK, TRADER_BLANK)
    assert E.legal_actions(st, 0) == [["done"]]
    with pytest.raises(IllegalAction) as e:
        act(st, 0, "catch")
    assert e.value.rule == "N.5.1"


def test_catch_needs_a_trader_and_a_landscape_field():
    ref, st = midgame()
    put(st, 0, 1, 1)
    hand_tile(ref, 0, D.Y_DINAR4)
    act(st, 0, "stay")
    assert ["catch"] not in E.legal_actions(st, 0)
    with pytest.raises(IllegalAction) as e:
        act(st, 0, "catch")
    assert e.value.rule == "N.7.1"


def test_sale_needs_a_city():
    ref, st = midgame()
    give_animals(st, 0, [1, 0, 0, 0])
    act(st, 0, "stay")
    with pytest.raises(IllegalAction) as e:
        act(st, 0, "sell", DONKEY, 1)
    assert e.value.rule == "N.7.4"


def test_full_market_price_and_overflow_to_the_game_box_option():
    ref, st = midgame()
    st.full_market = "gamebox"
    put(st, 0, 3, 3)
    give_animals(st, 0, [3, 0, 0, 0])
    set_market(st, DONKEY, st.cap - 1)
    assert NE.price(st, DONKEY) == st.track[DONKEY][-1]
    set_market(st, DONKEY, st.cap)
    assert NE.price(st, DONKEY) == st.track[DONKEY][-1]      # AN-X2
    box = st.gamebox[DONKEY]
    act(st, 0, "stay")
    act(st, 0, "sell", DONKEY, 3)
    assert st.money[0] == 10 + 3 * st.track[DONKEY][-1]
    act(st, 0, "done")
    assert st.market[DONKEY] == st.cap and st.gamebox[DONKEY] == box + 3   # AN-X1
    check_invariants(st)


def test_full_market_keeps_every_animal():
    """Rulebook pg 6 "När djuren kommer tillbaka till marknaden placeras de alltid på fälten med de
    lägsta siffrorna" (returned animals are always placed on the lowest fields): no animal leaves
    play; on a full market the surplus stays, stacked on the lowest field, and the price is the
    highest number in use (issue #15 item 8; AN-X1, AN-X2)."""
    ref, st = midgame(3)
    assert st.full_market == "stack"                          # the default
    put(st, 0, 3, 3)
    give_animals(st, 0, [3, 0, 0, 0])
    set_market(st, DONKEY, st.cap)
    assert st.gamebox[DONKEY] == 0                             # all 20 donkeys in play
    box = st.gamebox[DONKEY]
    act(st, 0, "stay")
    act(st, 0, "sell", DONKEY, 3)
    act(st, 0, "done")
    assert st.market[DONKEY] == st.cap + 3 and st.gamebox[DONKEY] == box
    assert NE.price(st, DONKEY) == st.track[DONKEY][-1]
    assert E.view(st, 0)["market"]["overflow"][DONKEY] == 3
    check_invariants(st)


def test_returning_animals_raise_the_price():
    ref, st = midgame()
    put(st, 0, 3, 3)
    give_animals(st, 0, [0, 0, 0, 2])
    set_market(st, CAMEL, 4)
    p = NE.price(st, CAMEL)
    act(st, 0, "stay")
    act(st, 0, "sell", CAMEL, 1)
    act(st, 0, "done")
    assert NE.price(st, CAMEL) == st.track[CAMEL][5] >= p     # "Taktik": sell some to raise the price


# ----------------------------------------------------------------- tiles

def test_abdul_sells_outside_a_city_without_blue_bonus():
    ref, st = midgame()
    put(st, 0, 1, 1)
    give_animals(st, 0, [0, 0, 1, 0])
    give_traders(st, 0, [1, 1, 0, 0])
    h = hand_tile(ref, 0, D.Y_ABDUL)
    act(st, 0, "stay")
    act(st, 0, "catch")
    roll(st, TRADER_ANIMAL, TRADER_ANIMAL)     # the normal action
    assert ["tile", h, D.Y_ABDUL] in E.legal_actions(st, 0, ref.knowledge[0])
    p = NE.price(st, HORSE)
    act(st, 0, "tile", h, D.Y_ABDUL)
    assert st.used_h == [h] and st.used_t == [D.Y_ABDUL]
    act(st, 0, "sell", HORSE, 1)
    assert st.money[0] == 10 + p


def test_abdul_not_on_a_city():
    ref, st = midgame()
    put(st, 0, 3, 3)
    give_animals(st, 0, [0, 0, 1, 0])
    h = hand_tile(ref, 0, D.Y_ABDUL)
    act(st, 0, "stay")
    assert not any(a[0] == "tile" for a in E.legal_actions(st, 0, ref.knowledge[0]))
    with pytest.raises(IllegalAction) as e:
        act(st, 0, "tile", h, D.Y_ABDUL)
    assert e.value.rule == "N.9.2"


def test_silver_tongue_counts_animals_sold_before_it():
    ref, st = midgame()
    put(st, 0, 3, 3)
    give_animals(st, 0, [0, 2, 0, 0])
    h = hand_tile(ref, 0, D.Y_SILVER)
    p = NE.price(st, GOAT)
    act(st, 0, "stay")
    act(st, 0, "sell", GOAT, 2)
    act(st, 0, "tile", h, D.Y_SILVER)
    assert st.money[0] == 10 + 2 * (p + 1)


def test_expert_handler_refills_at_once():
    ref, st = midgame()
    set_box(st, GREY, [0, 0, 1, 0])
    h = hand_tile(ref, 0, D.Y_EXPERT)
    put(st, 0, 3, 3)                           # usable even in a city
    act(st, 0, "stay")
    act(st, 0, "tile", h, D.Y_EXPERT)
    assert st.phase == "expert" and ["take", GREY, HORSE] in E.legal_actions(st, 0)
    act(st, 0, "take", GREY, HORSE)
    assert st.phase == "r_land" and st.sub == GREY   # immediately, not at the end of the turn
    roll(st, BLANK, BLANK)
    assert st.phase == "action"
    act(st, 0, "done")
    assert st.phase == "r_random"              # the one random throw + desert move at the end


@pytest.mark.parametrize("then_city", [False, True])
def test_abdul_sale_before_moving_then_a_city(then_city):
    """Rulebook pg 11 (sv line 10): "Man får dock inte i ett speldrag sälja djur två gånger i en stad med
    hjälp av Abdullah" — not twice in one turn (register AN-X13, issue 35). By default (the literal
    reading) a turn with an Abdul sale before moving has no city sale when the nomad then walks into a
    city, nor Silver Tongue there; option second_sale allows the second sale (the earlier reading)."""
    ref, st = midgame()
    st.second_sale = then_city
    put(st, 0, 3, 2)                                          # beside the city at 3,3
    give_animals(st, 0, [0, 0, 2, 0])
    ha = hand_tile(ref, 0, D.Y_ABDUL)
    hs = hand_tile(ref, 0, D.Y_SILVER)
    act(st, 0, "tile", ha, D.Y_ABDUL)
    act(st, 0, "sell", HORSE, 1)
    act(st, 0, "done")
    act(st, 0, "move", 3, 3)
    assert st.phase == "action" and st.active == 0
    legal = E.legal_actions(st, 0, ref.knowledge[0])
    assert (["sell", HORSE, 1] in legal) is then_city
    assert (["tile", hs, D.Y_SILVER] in legal) is then_city
    if not then_city:
        with pytest.raises(IllegalAction):
            act(st, 0, "sell", HORSE, 1)
    check_invariants(st)


def test_expert_handler_during_a_city_sale_keeps_the_sale_open():
    """Rulebook pg 11: the Expert Handler is "förutom den normala aktionen" (in addition to the normal
    action) and "även i en stad"; Silver Tongue "kan användas i en stad ... en dinar mer för varje djur
    man säljer i detta drag"; pg 9 "Man lämnar inte tillbaka djuren till marknaden förrän efter att man
    avslutat försäljningen". Playing the Expert in the middle of a city sale does not finish the sale
    (issue 35: it did, and nothing more could be sold nor Silver Tongue played): the animal it catches
    can be sold, Silver Tongue still counts the whole sale, and the sold animals return at its end."""
    ref, st = midgame()
    put(st, 0, 3, 3)
    give_animals(st, 0, [0, 2, 0, 0])
    set_box(st, GREY, [0, 1, 1, 0])
    he = hand_tile(ref, 0, D.Y_EXPERT)
    hs = hand_tile(ref, 0, D.Y_SILVER)
    p = NE.price(st, GOAT)
    market = st.market[GOAT]
    act(st, 0, "stay")
    act(st, 0, "sell", GOAT, 2)
    act(st, 0, "tile", he, D.Y_EXPERT)
    act(st, 0, "take", GREY, GOAT)                           # the box keeps its horse: no refill
    assert st.phase == "action" and st.selling == "city" and st.pending[GOAT] == 2
    legal = E.legal_actions(st, 0, ref.knowledge[0])
    assert ["sell", GOAT, 1] in legal and ["tile", hs, D.Y_SILVER] in legal
    act(st, 0, "sell", GOAT, 1)
    act(st, 0, "tile", hs, D.Y_SILVER)
    assert st.money[0] == 10 + 3 * (p + 1)
    act(st, 0, "done")
    assert st.market[GOAT] == market + 3
    check_invariants(st)


def test_abdul_and_expert_before_moving():
    """Rulebook pg 11: Abdul "I ett speldrag kan man, förutom den normala aktionen, även sälja djur" and
    the Expert Handler "även fånga ett valfritt djur" set no time within the turn (issue #15 item 7,
    AN-19): both may also be played before moving. A sale before moving lowers a two-field move's
    provisions; the turn then goes on with the move."""
    ref, st = midgame()
    put(st, 0, 1, 1)
    give_animals(st, 0, [0, 0, 2, 0])
    ha = hand_tile(ref, 0, D.Y_ABDUL)
    he = hand_tile(ref, 0, D.Y_EXPERT)
    legal = E.legal_actions(st, 0, ref.knowledge[0])
    assert ["tile", ha, D.Y_ABDUL] in legal and ["tile", he, D.Y_EXPERT] in legal
    p = NE.price(st, HORSE)
    act(st, 0, "tile", ha, D.Y_ABDUL)
    assert st.phase == "abdul" and ["done"] in E.legal_actions(st, 0)
    act(st, 0, "sell", HORSE, 2)
    act(st, 0, "done")
    assert st.phase == "move" and st.money[0] == 10 + 2 * p and st.animals[:4] == [0, 0, 0, 0]
    assert NE.move_cost(st, 0, 2) == 0                        # no animal left to feed on the way
    act(st, 0, "tile", he, D.Y_EXPERT)
    assert st.phase == "expert"
    act(st, 0, "take", GREY, HORSE)
    assert st.phase == "move" and st.animals[:4] == [0, 0, 1, 0]   # back to the move
    act(st, 0, "stay")                                       # no trader, no tile left: the turn ends
    assert st.active == 1 and st.phase == "move"
    check_invariants(st)


def test_ride_the_winds_from_a_city_hires_then_goes_anywhere_and_picks_up():
    ref, st = midgame()
    put(st, 0, 3, 3)
    give_animals(st, 0, [2, 2, 0, 0])
    h = hand_tile(ref, 0, D.Y_WINDS)
    target = st.row_yellow[1]
    act(st, 0, "tile", h, D.Y_WINDS)
    assert st.phase == "hire"
    act(st, 0, "hire", DONKEY)
    act(st, 0, "hire", GOAT)
    act(st, 0, "done")
    legal = E.legal_actions(st, 0)
    assert ["goto", 4, 0] in legal and ["goto", 4, 4] not in legal and ["goto", 3, 3] not in legal
    act(st, 0, "goto", 1, 3)
    assert st.money[0] == 10                   # free
    assert st.held[0] == [target]
    show(st)
    assert st.traders[0:4] == [0, 0, 0, 0]     # arrived in a city


def test_sands_of_time_window_and_extra_turn():
    ref, st = midgame()
    hs = hand_tile(ref, 2, D.Y_SANDS)
    h4 = hand_tile(ref, 3, D.Y_DINAR4)
    quiet_turn(st, 0)
    # holders only, starting after... with the player who just moved first: seats 2, 3
    assert st.phase == "window" and st.window == [2, 3]
    assert E.legal_actions(st, 3) == []
    assert E.legal_actions(st, 2) == [["pass"]]                  # without knowledge nothing shows
    assert E.legal_actions(st, 2, ref.knowledge[2]) == [["pass"], ["tile", hs, D.Y_SANDS]]
    assert E.legal_actions(st, 3, ref.knowledge[3]) == []
    act(st, 2, "pass")
    assert E.legal_actions(st, 3, ref.knowledge[3]) == [["pass"]]
    with pytest.raises(IllegalAction) as e:
        act(st, 3, "tile", h4, D.Y_DINAR4)
    assert e.value.rule == "N.9.2"
    act(st, 3, "pass")
    assert st.phase == "move" and st.active == 1
    quiet_turn(st, 1)
    act(st, 2, "tile", hs, D.Y_SANDS)           # extra turn for seat 2 now
    assert st.phase == "move" and st.active == 2
    quiet_turn(st, 2)
    assert st.phase == "move" and st.active == 2 # then seat 2's own turn (next after seat 1)
    quiet_turn(st, 2)
    assert st.phase == "move" and st.active == 3  # no more windows: Sands of Time is used


def test_claiming_a_tile_not_held_is_rejected():
    ref, st = midgame()
    h = hand_tile(ref, 1, D.Y_ABDUL)
    hand_tile(ref, 0, D.Y_DINAR4)
    give_animals(st, 0, [1, 0, 0, 0])
    put(st, 0, 1, 1)
    act(st, 0, "stay")
    before = E.encode(st)
    with pytest.raises(IllegalAction) as e:
        act(st, 0, "tile", h, D.Y_ABDUL)
    assert e.value.rule == "N.9.1" and E.encode(st) == before


def test_a_false_tile_claim_is_caught_by_the_referee_proof_check():
    ref, st = midgame()
    h = hand_tile(ref, 0, D.Y_DINAR5)          # really a dinar tile
    give_animals(st, 0, [1, 0, 0, 0])
    put(st, 0, 1, 1)
    act(st, 0, "stay")
    before = E.encode(st)
    with pytest.raises(IllegalAction) as e:
        ref.step(lambda seat, legal, r: ["tile", h, D.Y_ABDUL])    # claims Abdul
    assert e.value.rule == "hidden-claim" and E.encode(st) == before


# ----------------------------------------------------------------- lost in the desert / pilgrim

def test_lost_nomad_keeps_two_animals_loses_traders():
    ref, st = midgame()
    put(st, 1, 4, 0)
    give_animals(st, 1, [0, 3, 0, 0])
    give_traders(st, 1, [0, 1, 1, 0])
    set_box(st, RED, [0, 0, 0, 0])
    act(st, 0, "stay")                          # no walk (seat 1 on row 4): the turn ends
    roll(st, BLANK, BLANK)
    roll(st, BLANK, BLANK, land_face(GREEN))
    assert st.phase == "keep" and E.expected(st) == Decide(1)
    assert E.legal_actions(st, 1) == [["keep", GOAT, GOAT]]
    act(st, 1, "keep", GOAT, GOAT)
    assert st.animals[4:8] == [0, 2, 0, 0] and st.traders[4:8] == [0, 0, 0, 0]
    roll(st, 0)
    assert st.status[1] == NE.LOST
    assert st.active == 1 and E.legal_actions(st, 1) == [["pilgrim"]]   # next turn: to the pilgrim
    check_invariants(st)


def test_lost_turns_option_one_turn():
    """Option lost_turns 1 (issue #15 item 12; AN-23): "Nomaden tas bort från spelplanen … I nästa
    drag är det hans tur att resa med pilgrimmen" read as: the lost nomad already travels with the
    pilgrim, so its next turn is the placement."""
    ref, st = midgame()
    st.lost_turns = 1
    put(st, 1, 4, 0)
    give_animals(st, 1, [0, 1, 0, 0])
    set_box(st, RED, [0, 0, 0, 0])
    act(st, 0, "stay")
    roll(st, BLANK, BLANK)
    roll(st, BLANK, BLANK, land_face(GREEN))
    roll(st, 0)
    assert st.status[1] == NE.PILGRIM and st.pos[1] == NE.POS_PILGRIM
    assert st.active == 1 and all(a[0] == "place" for a in E.legal_actions(st, 1))
    check_invariants(st)
    with pytest.raises(BadOptions):
        E.new_game({"lost_turns": 3}, 4)
    with pytest.raises(BadOptions):
        E.new_game({"full_market": "lose"}, 4)


def test_pilgrim_placement_turn_forbids_expert_and_catching():
    ref, st = midgame()
    st.status[0] = NE.PILGRIM
    st.pos[0] = NE.POS_PILGRIM
    h = hand_tile(ref, 0, D.Y_EXPERT)
    act(st, 0, "place", 1, 1)                   # a green field
    legal = E.legal_actions(st, 0, ref.knowledge[0])
    assert legal == [["done"]]


# ----------------------------------------------------------------- events and errors

def test_wrong_seat_and_wrong_event_are_rejected():
    ref, st = midgame()
    before = E.encode(st)
    with pytest.raises(IllegalAction) as e:
        E.apply(st, Act(1, ["stay"]))
    assert e.value.rule == "N.5"
    with pytest.raises(IllegalAction):
        E.apply(st, Rolled((1,)))
    with pytest.raises(IllegalAction):
        E.apply(st, Act(0, ["stay", True]))
    with pytest.raises(IllegalAction):
        E.apply(st, Act(0, "stay"))
    assert E.encode(st) == before


def test_random_values_out_of_range_are_rejected():
    ref, st = midgame()
    set_box(st, RED, [0, 0, 0, 0])
    act(st, 0, "stay")
    act(st, 0, "done")
    before = E.encode(st)
    for bad in [(6, 0), (0,), (0, -1), (0, "1")]:
        with pytest.raises(IllegalAction):
            E.apply(st, Rolled(bad))
        assert E.encode(st) == before


def test_voluntary_walk_causes_no_refill_even_with_empty_box():
    ref, st = midgame()
    act(st, 0, "stay")
    act(st, 0, "walk")
    roll(st, 0)
    assert st.phase == "move" and st.active == 1 and not st.refilled


# ----------------------------------------------------------------- variants

def test_short_game_without_yellow_spaces_places_blue_tiles_at_once():
    ref = started(4, 3, {"yellow_tiles": 0, "short_blue": False, "max_turns": 1000})
    st = ref.state
    assert st.yspaces == [] and len(st.yburned) == 7
    set_layout(st, LAYOUT)
    for s in range(4):
        put(st, s, 2, 3)
    st.active = 0
    act(st, 0, "stay")
    act(st, 0, "walk")
    roll(st, 0)
    assert st.phase == "draw_blue"


def test_short_blue_pile_has_mecca_within_three():
    for seed in range(40):
        rng = random.Random(seed)
        ref = started(3, seed, {"yellow_tiles": 0, "short_blue": True, "max_turns": 1000})
        st = ref.state
        placed = 0
        while st.result is None:
            before = st.blue_slots
            ref.step(lambda seat, legal, r: ["walk"] if ["walk"] in legal else legal[rng.randrange(len(legal))])
            placed += before - st.blue_slots
        assert st.blue_slots >= 0 and placed <= 3
        assert D.MECCA in st.row_blue or st.turn_no > st.max_turns


def test_max_turns_bound_ends_the_game():
    ref = started(3, 5, {"yellow_tiles": 4, "short_blue": False, "max_turns": 4})
    res = ref.play(lambda seat, legal, r: ["stay"] if ["stay"] in legal else
                   (["done"] if ["done"] in legal else legal[0]))
    assert res["turns"] == 5 and res["winners"]
