"""The rulebook's worked examples (Examples 1-14) and rules-gaps.md §3.6 T-AN-01 .. T-AN-20."""

from __future__ import annotations

import pytest

from protocol.engine import DeckRevealed, DeckReveal, DeckShuffled, Random
from protocol.games.nomads import data as D
from protocol.games.nomads import engine as NE

from .util import (BLANK, C0, C1, C2, C4, CAMEL, D0, D1, D2, D3, D5, DONKEY, GOAT, GREEN, GREY, HORSE,
                   PURPLE, RED, BLUE, TRADER_ANIMAL, TRADER_BLANK, YELLOW_DIE, E, IllegalAction, act,
                   animal_face, check_invariants, city_pos, give_animals, give_traders, hand_tile,
                   land_face, put, roll, set_box, set_layout, set_market, started)

LAYOUT = [D0, C0, D1, C1, D2]      # row 0 (pilgrim side) .. row 4


def all_boxes(st, counts=(1, 1, 1, 1)):
    for b in range(5):
        set_box(st, b, list(counts))


def quiet_turn(st, seat):
    """The seat stays and ends its turn (no refill needed); a forced `done` is not asked."""
    act(st, seat, "stay")
    if st.phase == "action" and st.active == seat:
        act(st, seat, "done")


# ----------------------------------------------------------------- setup: Examples 1, 2, 3, 5

def test_example_1_layout_alternates_desert_city():
    """Example 1 / pg 3: desert, city, desert, city, desert from the pilgrim side."""
    st = E.new_game({}, 4)
    roll(st, 0, 0, 0, 0, 0)
    assert st.rows == [D0, C0, D1, C1, D2]
    assert [D.IS_CITY_CARD[c] for c in st.rows] == [False, True, False, True, False]
    # nomads on the city farthest from the pilgrim (row 3)
    assert st.pos == [city_pos(st, 3)] * 4


def test_t_an_01_example_2_first_landscape_die():
    """T-AN-01: the setup landscape die shows green -> one of each animal in green; yellow re-rolls."""
    st = E.new_game({}, 4)
    roll(st, 0, 0, 0, 0, 0)
    E.apply(st, DeckShuffled("yellow", tuple(range(1, 9))))
    roll(st, YELLOW_DIE)                       # yellow: roll again (pg 3)
    assert st.phase == "s_ldie" and sum(st.boxes) == 0
    roll(st, land_face(GREEN))
    assert st.boxes[GREEN * 4:GREEN * 4 + 4] == [1, 1, 1, 1]
    assert sum(st.boxes) == 4
    assert st.market == [15] * 4               # those four were not taken from the market
    check_invariants(st)


@pytest.mark.parametrize("n,cap,dice,covered", [(3, 12, 2, 2), (4, 15, 3, 1), (5, 18, 4, 0), (6, 18, 4, 0)])
def test_t_an_02_setup_per_player_count(n, cap, dice, covered):
    """T-AN-02 (Examples 3, 5): covered columns, trader dice, start city, 10 dinars, tiles."""
    st = E.new_game({}, n)
    assert st.cap == cap and st.market == [cap] * 4
    assert st.gamebox == [20 - 1 - cap] * 4
    assert st.reserve == [dice] * 4
    for sp in range(4):
        assert st.track[sp] == D.PRICES_FULL[sp][covered * 3:]
    ref = started(n, seed=n)
    st = ref.state
    assert st.money == [10] * n
    assert all(p == city_pos(st, 3) for p in st.pos)
    assert st.row_yellow[1] and not st.row_yellow[3]          # tile on the near city, none on the far one
    assert len(st.yspaces) == 4 and len(st.yburned) == 3
    assert st.start_seat == st.active
    assert sum(st.animals) == 0 and sum(st.traders) == 0
    check_invariants(st)


def test_setup_makes_four_landscape_throws_and_two_random_throws():
    st = E.new_game({}, 4)
    roll(st, 0, 0, 0, 0, 0)
    E.apply(st, DeckShuffled("yellow", tuple(range(1, 9))))
    roll(st, land_face(GREEN))
    throws = 0
    while st.phase == "s_lthrow":
        roll(st, BLANK, BLANK)
        throws += 1
    assert throws == 4
    randoms = 0
    while st.phase in ("s_rthrow", "s_reroll"):
        if st.phase == "s_rthrow":
            randoms += 1
            roll(st, BLANK, BLANK, YELLOW_DIE if randoms == 1 else land_face(RED))
        else:
            roll(st, land_face(BLUE))
    assert randoms == 2
    assert st.phase == "s_start"
    # 4 (first roll) + 4 throws of one-of-each + 2 random throws of one-of-each, no desert move
    assert st.boxes[BLUE * 4:BLUE * 4 + 4] == [2, 2, 2, 2]     # 1 + the re-rolled yellow
    assert st.boxes[RED * 4:RED * 4 + 4] == [2, 2, 2, 2]
    assert st.rows == [D0, C0, D1, C1, D2]


# ----------------------------------------------------------------- landscape throws: Example 4, 6

def _to_setup_throws():
    st = E.new_game({}, 4)
    roll(st, 0, 0, 0, 0, 0)
    E.apply(st, DeckShuffled("yellow", tuple(range(1, 9))))
    roll(st, land_face(GREEN))
    return st


def test_t_an_03_example_4a_two_different_animals():
    st = _to_setup_throws()
    assert st.phase == "s_lthrow" and st.sub == RED
    roll(st, animal_face(HORSE), animal_face(CAMEL))
    assert st.boxes[RED * 4:RED * 4 + 4] == [0, 0, 2, 2]
    # taken from the highest fields: the market shrank and its price fell accordingly
    assert st.market[HORSE] == 13 and NE.price(st, HORSE) == st.track[HORSE][13]


def test_t_an_04_example_4b_animal_and_blank_or_same_twice():
    st = _to_setup_throws()
    roll(st, animal_face(GOAT), BLANK)
    assert st.boxes[RED * 4:RED * 4 + 4] == [0, 4, 0, 0]
    roll(st, animal_face(GOAT), animal_face(GOAT))
    assert st.boxes[PURPLE * 4:PURPLE * 4 + 4] == [0, 4, 0, 0]
    assert st.market[GOAT] == 15 - 8


def test_t_an_05_example_4c_two_blanks():
    st = _to_setup_throws()
    roll(st, BLANK, BLANK)
    assert st.boxes[RED * 4:RED * 4 + 4] == [1, 1, 1, 1]


def test_landscape_throw_table():
    assert NE.throw_counts(animal_face(HORSE), animal_face(CAMEL)) == [0, 0, 2, 2]
    assert NE.throw_counts(animal_face(DONKEY), BLANK) == [4, 0, 0, 0]
    assert NE.throw_counts(BLANK, animal_face(CAMEL)) == [0, 0, 0, 4]
    assert NE.throw_counts(animal_face(GOAT), animal_face(GOAT)) == [0, 4, 0, 0]
    assert NE.throw_counts(BLANK, BLANK) == [1, 1, 1, 1]


def _midgame(n=4, seed=0):
    ref = started(n, seed)
    st = ref.state
    set_layout(st, LAYOUT)
    st.row_yellow[1] = st.yburned.pop()        # a face-down tile on the near city
    all_boxes(st)
    for s in range(n):
        put(st, s, 2, 3)        # a desert field in the middle
    st.active = 0
    return ref, st


def test_t_an_06_example_6_red_box_refilled():
    """T-AN-06: the red box is empty; landscape throw black + orange: 2 horses, 2 camels."""
    ref, st = _midgame()
    set_box(st, RED, [0, 0, 0, 0])
    act(st, 0, "stay")
    act(st, 0, "done")
    assert st.phase == "r_land" and st.sub == RED
    roll(st, animal_face(HORSE), animal_face(CAMEL))
    assert st.boxes[RED * 4:RED * 4 + 4] == [0, 0, 2, 2]
    assert st.phase == "r_random"              # a refill makes one random throw + desert move
    check_invariants(st)


def test_landscape_throw_repeats_while_box_stays_empty():
    ref, st = _midgame()
    set_box(st, RED, [0, 0, 0, 0])
    set_market(st, HORSE, 0)
    set_market(st, CAMEL, 0)
    act(st, 0, "stay")
    act(st, 0, "done")
    roll(st, animal_face(HORSE), animal_face(CAMEL))        # nothing available: still empty
    assert st.phase == "r_land" and st.sub == RED
    roll(st, animal_face(GOAT), BLANK)
    assert st.boxes[RED * 4:RED * 4 + 4] == [0, 4, 0, 0]


def test_t_an_07_example_7_animal_throw():
    """T-AN-07: no donkeys in any box; red, then yellow -> the purple box (fewest)."""
    ref, st = _midgame()
    set_box(st, GREEN, [0, 1, 1, 1])
    set_box(st, RED, [0, 2, 2, 2])
    set_box(st, PURPLE, [0, 1, 0, 0])
    set_box(st, BLUE, [0, 1, 1, 1])
    set_box(st, GREY, [0, 1, 1, 1])
    m = st.market[DONKEY]
    assert m >= 4
    act(st, 0, "stay")
    act(st, 0, "done")
    assert st.phase == "r_animal" and st.sub == DONKEY
    roll(st, land_face(RED))
    assert st.boxes[RED * 4 + DONKEY] == 2
    roll(st, YELLOW_DIE)
    assert st.boxes[PURPLE * 4 + DONKEY] == 2
    assert st.market[DONKEY] == m - 4
    assert st.phase == "r_random"
    check_invariants(st)


def test_animal_throw_yellow_tie_lets_active_player_choose():
    ref, st = _midgame()
    set_box(st, GREEN, [0, 1, 1, 1])
    set_box(st, RED, [0, 1, 1, 1])
    set_box(st, PURPLE, [0, 1, 1, 1])
    set_box(st, BLUE, [0, 5, 1, 1])
    set_box(st, GREY, [0, 5, 1, 1])
    set_market(st, DONKEY, 3)                  # fewer than four: groups of 2 and 1
    act(st, 0, "stay")
    act(st, 0, "done")
    roll(st, YELLOW_DIE)
    assert st.phase == "tie" and sorted(E.legal_actions(st, 0)) == [["box", GREEN], ["box", RED], ["box", PURPLE]]
    act(st, 0, "box", RED)
    assert st.boxes[RED * 4 + DONKEY] == 2
    roll(st, land_face(GREY))
    assert st.boxes[GREY * 4 + DONKEY] == 1 and st.market[DONKEY] == 0


def test_t_an_08_example_8_random_throw():
    """T-AN-08: random throw, two blanks and green: one of each into green."""
    ref, st = _midgame()
    set_box(st, RED, [0, 0, 0, 0])
    act(st, 0, "stay")
    act(st, 0, "done")
    roll(st, BLANK, BLANK)              # landscape throw for red
    before = st.boxes[GREEN * 4:GREEN * 4 + 4]
    roll(st, BLANK, BLANK, land_face(GREEN))
    assert st.boxes[GREEN * 4:GREEN * 4 + 4] == [x + 1 for x in before]
    assert isinstance(E.expected(st), Random) and st.phase == "draw_card"   # then the desert moves


# ----------------------------------------------------------------- movement: Example 9, T-AN-17

def test_t_an_09_example_9_movement_costs():
    ref, st = _midgame()
    give_animals(st, 0, [1, 1, 0, 0])
    give_traders(st, 0, [1, 1, 1, 0])
    legal = E.legal_actions(st, 0)
    one = {(r, c) for r, c in [(1, 3), (2, 2), (2, 4), (3, 3)]}
    two = {(0, 3), (1, 2), (1, 4), (2, 1), (3, 2), (2, 5), (3, 4), (4, 3)}
    moves = {(a[1], a[2]) for a in legal if a[0] == "move"}
    assert moves == one | two
    c = ref.state
    clone = E.clone(c)
    act(st, 0, "move", 2, 2)                    # one field: free
    assert st.money[0] == 10
    act(clone, 0, "move", 0, 3)                 # two fields: 2 animals + 3 for three traders
    assert clone.money[0] == 5


def test_t_an_09_mountain_and_money_rejected():
    ref, st = _midgame()
    put(st, 0, 2, 1)
    with pytest.raises(IllegalAction) as e:
        act(st, 0, "move", 2, 0)                # black mountain field
    assert e.value.rule == "N.6.1"
    put(st, 0, 2, 3)
    give_animals(st, 0, [1, 1, 0, 0])
    give_traders(st, 0, [1, 1, 1, 0])
    st.money[0] = 4
    before = E.encode(st)
    with pytest.raises(IllegalAction) as e:
        act(st, 0, "move", 0, 3)
    assert e.value.rule == "N.6.2" and E.encode(st) == before
    act(st, 0, "move", 2, 2)                    # one field is always free
    assert st.money[0] == 4


def test_t_an_17_leaving_city_with_three_traders():
    """T-AN-17: 3 (third trader) + 1 (animal) + 3 (three traders) = 7 dinars."""
    ref, st = _midgame()
    put(st, 0, 3, 3)                           # the city of row 3
    give_animals(st, 0, [0, 1, 0, 0])
    assert ["move", 3, 2] not in E.legal_actions(st, 0)
    act(st, 0, "depart")
    act(st, 0, "hire", GOAT)
    act(st, 0, "hire", HORSE)
    assert st.money[0] == 10
    act(st, 0, "hire", CAMEL)
    assert st.money[0] == 7
    act(st, 0, "done")
    act(st, 0, "move", 3, 1)                   # two fields away
    assert st.money[0] == 3
    assert st.traders[0:4] == [0, 1, 1, 1]


# ----------------------------------------------------------------- pilgrim: Example 10

def test_t_an_10_example_10_travel_with_the_pilgrim():
    ref, st = _midgame()
    give_animals(st, 0, [2, 1, 1, 0])
    give_traders(st, 0, [1, 1, 0, 0])
    market = st.market[:]
    act(st, 0, "pilgrim")
    assert st.phase == "keep"
    act(st, 0, "keep", DONKEY, HORSE)
    assert st.animals[0:4] == [1, 0, 1, 0]
    assert st.market[DONKEY] == market[DONKEY] + 1 and st.market[GOAT] == market[GOAT] + 1
    assert st.traders[0:4] == [0, 0, 0, 0]
    assert st.pos[0] == NE.POS_PILGRIM and st.status[0] == NE.PILGRIM
    for s in (1, 2, 3):
        quiet_turn(st, s)
    # turn (2): any field; the city of row 1 still has its yellow tile, which he may not take
    legal = E.legal_actions(st, 0)
    assert all(a[0] == "place" for a in legal)
    assert ["place", 1, 3] in legal and ["place", 1, 0] not in legal   # (1, 0) is a mountain
    tile = st.row_yellow[1]
    assert tile
    act(st, 0, "place", 1, 3)
    assert st.row_yellow[1] == tile and not st.held[0]
    legal = E.legal_actions(st, 0)
    assert {a[0] for a in legal} == {"sell", "done"}
    act(st, 0, "sell", HORSE, 1)
    act(st, 0, "done")
    quiet_turn(st, 1), quiet_turn(st, 2), quiet_turn(st, 3)
    assert ["depart"] in E.legal_actions(st, 0)            # turn (3): normal again
    check_invariants(st)


# ----------------------------------------------------------------- catching: Example 11

def _catcher():
    ref, st = _midgame()
    put(st, 0, 1, 1)                           # green field of C0
    give_traders(st, 0, [0, 1, 0, 1])          # a goat trader and a camel trader
    set_box(st, GREEN, [0, 0, 1, 2])           # no goats in the green box
    act(st, 0, "stay")
    act(st, 0, "catch")
    assert E.expected(st) == Random((("int", 6), ("int", 6)))
    return ref, st


def test_t_an_11_example_11a_camel_and_goat():
    ref, st = _catcher()
    roll(st, TRADER_ANIMAL, TRADER_ANIMAL)     # dice order: goat die, camel die
    assert st.animals[0:4] == [0, 0, 0, 1]
    assert st.boxes[GREEN * 4:GREEN * 4 + 4] == [0, 0, 1, 1]


def test_t_an_12_example_11b_goat_and_blank():
    ref, st = _catcher()
    roll(st, TRADER_ANIMAL, TRADER_BLANK)
    assert st.animals[0:4] == [0, 0, 0, 0]
    # nothing else to decide (no tile held): the turn ends without a forced `done`
    assert st.phase == "move" and st.active == 1


def test_t_an_13_example_11c_two_blanks_any_animal():
    ref, st = _catcher()
    roll(st, TRADER_BLANK, TRADER_BLANK)
    assert st.phase == "catch_pick"
    assert E.legal_actions(st, 0) == [["take", HORSE], ["take", CAMEL]]
    act(st, 0, "take", HORSE)                  # a horse without a horse trader
    assert st.animals[0:4] == [0, 0, 1, 0]
    assert ["catch"] not in E.legal_actions(st, 0)     # one action per turn


# ----------------------------------------------------------------- luring: Example 12

def test_t_an_14_example_12_lure():
    ref, st = _midgame()
    put(st, 0, 1, 2)                           # red field of C0
    give_traders(st, 0, [0, 2, 0, 1])          # three dice: goat, goat, camel
    m = st.market[:]
    red = st.boxes[RED * 4:RED * 4 + 4]
    rows = st.rows[:]
    act(st, 0, "stay")
    act(st, 0, "lure")
    roll(st, TRADER_ANIMAL, TRADER_ANIMAL, TRADER_ANIMAL)
    assert st.boxes[RED * 4:RED * 4 + 4] == [red[0], red[1] + 4, red[2], red[3] + 2]
    assert st.market[GOAT] == m[GOAT] - 4 and st.market[CAMEL] == m[CAMEL] - 2
    # the turn ended (only `done` was left): no refill, no random throw, no desert move
    assert not st.refilled and st.phase == "move" and st.active == 1 and st.rows == rows


def test_lure_blank_brings_one_of_each_per_blank():
    ref, st = _midgame()
    put(st, 0, 1, 2)
    give_traders(st, 0, [1, 0, 1, 0])
    red = st.boxes[RED * 4:RED * 4 + 4]
    act(st, 0, "stay")
    act(st, 0, "lure")
    roll(st, TRADER_BLANK, TRADER_BLANK)
    assert st.boxes[RED * 4:RED * 4 + 4] == [x + 2 for x in red]


# ----------------------------------------------------------------- selling: Example 13, T-AN-20

def test_t_an_15_example_13_sale():
    ref, st = _midgame()
    put(st, 0, 3, 3)
    give_animals(st, 0, [0, 0, 2, 3])
    set_market(st, CAMEL, 0)
    set_market(st, HORSE, 11)
    assert NE.price(st, CAMEL) == 3 and NE.price(st, HORSE) == 10
    act(st, 0, "stay")
    act(st, 0, "sell", CAMEL, 1)
    act(st, 0, "sell", CAMEL, 2)               # same sale: still 3 each
    act(st, 0, "sell", HORSE, 2)
    assert st.money[0] == 10 + 29
    assert st.market[CAMEL] == 0                # returned only after the sale
    act(st, 0, "done")
    assert st.market[CAMEL] == 3 and st.market[HORSE] == 13
    assert NE.price(st, CAMEL) == st.track[CAMEL][3] > 3
    check_invariants(st)


def test_t_an_20_blue_bonus_and_silver_tongue():
    ref, st = _midgame()
    put(st, 0, 3, 3)
    st.row_blue[3] = D.BLUE_KEYS.index("horse+1")
    give_animals(st, 0, [0, 0, 2, 0])
    set_market(st, HORSE, 11)
    h = hand_tile(ref, 0, D.Y_SILVER)
    act(st, 0, "stay")
    assert ["tile", h, D.Y_SILVER] in E.legal_actions(st, 0, ref.knowledge[0])
    act(st, 0, "tile", h, D.Y_SILVER)
    act(st, 0, "sell", HORSE, 2)
    assert st.money[0] == 10 + 2 * (10 + 1 + 1)


# ----------------------------------------------------------------- desert: Example 14, T-AN-18

def test_t_an_16_example_14_desert_moves():
    ref, st = _midgame()
    set_layout(st, [D1, C2, D3, C4, D5])
    all_boxes(st)
    put(st, 0, 0, 2)                           # desert field of D1
    for s in (1, 2, 3):
        st.pos[s] = city_pos(st, 3)
    give_animals(st, 2, [1, 1, 1, 0])
    give_traders(st, 3, [1, 0, 0, 1])
    space = st.yspaces[0]
    act(st, 0, "stay")
    act(st, 0, "walk")
    assert st.d_bottom == [D5]
    roll(st, 0)                                # top of the city pile: first unseen city card
    assert st.rows == [C0, D1, C2, D3, C4]
    assert st.row_yellow[0] == space and st.yspaces[0] != space
    assert all(st.pos[s] // 7 == 4 for s in (1, 2, 3)) and st.pos[0] // 7 == 1
    assert st.phase == "move" and st.active == 1 and not st.refilled   # a voluntary move: no refill
    # T-AN-18: nobody may move the desert while a nomad stands on the farthest card
    put(st, 1, 2, 3)                           # a desert field of C2
    hand_tile(ref, 1, D.Y_DINAR6)              # a tile holder is asked even when only `done` is left
    act(st, 1, "stay")
    assert ["walk"] not in E.legal_actions(st, 1)
    before = E.encode(st)
    with pytest.raises(IllegalAction) as e:
        act(st, 1, "walk")
    assert e.value.rule == "N.7.3" and E.encode(st) == before
    st.yburned.append(st.held[1].pop())        # (no tile windows in the rest of this example)
    # a refill moves the desert anyway: C4 goes, seats 2 and 3 are lost
    set_box(st, GREY, [0, 0, 0, 0])
    act(st, 1, "done")
    roll(st, BLANK, BLANK)                     # landscape throw for grey
    roll(st, BLANK, BLANK, land_face(GREEN))   # random throw
    assert st.c_bottom == [C4]
    assert st.status[2] == NE.LOST and st.status[3] == NE.LOST and st.pos[2] == NE.POS_LOST
    assert st.traders[12:16] == [0, 0, 0, 0]
    assert st.phase == "keep" and E.expected(st).seat == 2
    act(st, 2, "keep", DONKEY, GOAT)
    assert st.animals[8:12] == [1, 1, 0, 0]
    assert st.phase == "draw_card"
    roll(st, 0)
    assert D.IS_CITY_CARD[st.rows[1]] and not D.IS_CITY_CARD[st.rows[0]]
    check_invariants(st)
    # the lost player's next turn is the pilgrim's first step, then the placement
    act(st, 2, "pilgrim")
    assert st.pos[2] == NE.POS_PILGRIM
    act(st, 3, "pilgrim")
    quiet_turn(st, 0)
    quiet_turn(st, 1)
    assert all(a[0] == "place" for a in E.legal_actions(st, 2))


# ----------------------------------------------------------------- the end: T-AN-19

def test_t_an_19_mecca_ends_the_game():
    ref, st = _midgame()
    st.yspaces = []
    st.blue_slots = 2
    for s in range(4):
        put(st, s, 1, 1 + s)
    put(st, 0, 2, 3)
    st.money[:] = [12, 8, 12, 5]
    give_animals(st, 0, [1, 0, 0, 0])
    give_animals(st, 1, [1, 1, 1, 0])
    give_animals(st, 2, [0, 1, 1, 0])
    h4 = hand_tile(ref, 1, D.Y_DINAR4)
    hx = hand_tile(ref, 2, D.Y_EXPERT)
    act(st, 0, "stay")
    act(st, 0, "walk")
    roll(st, 0)                                # a city card comes in
    assert E.expected(st) == Random((("int", 2), ("int", 4)))
    roll(st, 0, 0)                             # Mecca
    assert st.row_blue[0] == D.MECCA and st.ended
    step = E.expected(st)
    assert isinstance(step, DeckReveal) and set(step.handles) == {h4, hx}
    E.apply(st, DeckRevealed(step.handles, tuple(ref.truth[h] for h in step.handles)))
    res = E.result(st)
    assert res["scores"] == [12, 12, 12, 5]    # the 4-dinar tile counts; Expert Handler does not
    assert res["winners"] == [1]               # tie on dinars -> most animals (3 > 2 > 1)
    assert res["animals"] == [1, 3, 2, 0]
    assert E.legal_actions(st, 0) == []


def test_full_tie_is_shared():
    ref, st = _midgame()
    st.yspaces = []
    st.blue_slots = 1                          # the last blue tile is Mecca: no draw needed
    st.money[:] = [9, 9, 3, 3]
    act(st, 0, "stay")
    act(st, 0, "walk")
    roll(st, 0)
    res = E.result(st)
    assert res is not None and res["winners"] == [0, 1]
