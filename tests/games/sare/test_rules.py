"""Sa-Rê rules: every worked example of rules-gaps §1.6 (T-SR-01..20) and the explicit numeric
rules and building interactions of specs/sa-re.md, on scripted positions."""

from __future__ import annotations

import pytest

from protocol import engine as E
from protocol.games.sare import ENGINE
from protocol.games.sare import engine as S
from protocol.games.sare.data import (ARCH_START, CARD_KIND, COST, DOUBLE, NILE, PYRAMIDS, RED, SUPPLY)

from .util import (Deck, K, act, add_built, card_of, check_invariants, deck_order, finish_p1, fresh,
                   start_season, touch)

W, G, St, J = 0, 1, 2, 3


def legal(st, seat):
    return ENGINE.legal_actions(st, seat)


def season(st, *front, double=None, deck=None):
    """Finish phase 1 and start the season with `front` on top of the shoe."""
    finish_p1(st)
    deck = deck or Deck()
    # by default the Gold + Gold double card: it goes to the last seat to lie down, at the season's end
    start_season(st, deck, deck_order(*front), double=DOUBLE.index((1, 1)) if double is None else double)
    return deck


def all_continue(st):
    while st.stage == "poll":
        seat = ENGINE.expected(st).seat
        act(st, seat, ["continue"] if ["continue"] in legal(st, seat) else ["pass"])


def reject(st, seat, action, rule_prefix=None):
    before = ENGINE.encode(st)
    with pytest.raises(E.IllegalAction) as exc:
        act(st, seat, action)
    assert ENGINE.encode(st) == before
    if rule_prefix:
        assert exc.value.rule.startswith(rule_prefix), exc.value.rule
    return exc.value


# ------------------------------------------------------------------ setup (T-SR-01)

def test_t_sr_01_setup():
    st = ENGINE.new_game({}, 4)
    assert ENGINE.expected(st) == E.Random((("perm", 4),))          # seat order from joint randomness
    ENGINE.apply(st, E.Rolled(((2, 0, 3, 1),)))
    assert S.first_player(st) == 2
    # placement in turn order from the first player; both on one space, or on two spaces
    assert ENGINE.expected(st) == E.Decide(2)
    act(st, 2, ["place", 4, 4])
    assert ENGINE.expected(st) == E.Decide(0)
    act(st, 0, ["place", 0, 11])
    act(st, 3, ["place", 7, 3])
    act(st, 1, ["place", 1, 2])
    assert st.stage == "p1"
    for p in range(4):
        assert st.res[p] == [1, 1, 1, 0]                             # 1 Wood, 1 Stone, 1 Gold in the Warehouse
        assert st.rev[p] == 0 and st.car[p] == 0                     # red and yellow cubes at the bottom
        assert sorted(pc[0] for pc in st.pieces[p]) == [K["warehouse"], K["master_builder"]]
    assert st.pieces[2][0][1] == st.pieces[2][1][1] == 4
    assert st.reserve == [SUPPLY[0] - 4, SUPPLY[1] - 4, SUPPLY[2] - 4, SUPPLY[3]]
    assert st.board == [4] * 12                                      # tiles per type = players
    assert st.pyr_avail == [1, 2, 3, 4]
    check_invariants(st)


def test_t_sr_01_setup_architect_and_fewer_players():
    st = ENGINE.new_game({"architect": True}, 2)
    ENGINE.apply(st, E.Rolled(((1, 0),)))
    assert st.stage == "p1"                                          # no placement decision
    for p in range(2):
        assert [pc[1] for pc in st.pieces[p]] == [ARCH_START, ARCH_START]
    assert st.board == [2] * 12 and st.pyr_avail == [1, 2]          # surplus tiles stay in the box


def test_bad_options():
    for opts, n in (({}, 1), ({}, 5), ({"scenario": "queen"}, 3), ({"architect": 1}, 3), ({"x": 1}, 3),
                    ({"turn_limit": 0}, 3)):
        with pytest.raises(E.BadOptions):
            ENGINE.new_game(opts, n)


# ------------------------------------------------------------------ phase 1: projects

def test_t_sr_02_one_master_builder_two_projects():
    st = fresh(3)
    act(st, 0, ["project", "carpenter", 0])
    act(st, 0, ["project", "temple", 1])
    assert not any(a[0] == "project" for a in legal(st, 0))           # a 3rd project is rejected
    reject(st, 0, ["project", "goldsmith", 2], "4")
    finish_p1(st)
    assert st.rev[0] == 1                                            # the 2nd space of the gauge
    assert st.rev[1] == st.rev[2] == 0


def test_t_sr_02_carried_projects_block_new_ones():
    st = fresh(2)
    st.pieces[0] += [[K["carpenter"], 0, 0, 0, 0, 0, 0], [K["temple"], 1, 0, 0, 0, 0, 0]]
    st.board[K["carpenter"]] -= 1
    st.board[K["temple"]] -= 1
    touch(st)
    assert not any(a[0] == "project" for a in legal(st, 0))
    finish_p1(st)
    assert st.rev[0] == 1                                            # starts with the penalty


@pytest.mark.parametrize("projects,rise", [(2, 0), (3, 1), (4, 2)])
def test_t_sr_03_two_master_builders(projects, rise):
    st = fresh(3)
    add_built(st, 0, "master_builder", 0)
    kinds = ["temple", "library", "barracks", "market", "palace"]
    for i in range(projects):
        act(st, 0, ["project", kinds[i], 1 + i])
    if projects == 4:
        reject(st, 0, ["project", "palace", 9], "4")                  # 5 projects: over 2 per Master Builder
    finish_p1(st)
    assert st.rev[0] == rise


def test_penalty_from_higher_bottom():
    st = fresh(2)
    st.black[0] = 2
    st.rev[0] = 2
    touch(st)
    act(st, 0, ["project", "temple", 0])
    act(st, 0, ["project", "library", 1])
    finish_p1(st)
    assert st.rev[0] == 3                                            # counted from the lowest free space


def test_identical_building_rules():
    st = fresh(2)
    add_built(st, 0, "master_builder", 0)
    add_built(st, 0, "temple", 1)
    st.done_mask[0] |= 1 << K["temple"]
    touch(st)
    assert not any(a[:2] == ["project", "temple"] for a in legal(st, 0))   # no 2nd identical admin building
    act(st, 0, ["project", "goldsmith", 2])
    assert not any(a[:2] == ["project", "goldsmith"] for a in legal(st, 0))  # not 2 in one turn
    act(st, 0, ["project", "port", 3])
    assert not any(a[:2] == ["project", "port"] for a in legal(st, 0))
    # a 2nd Goldsmith is fine on a later turn
    st2 = fresh(2)
    add_built(st2, 0, "goldsmith", 2, turn=0)
    assert any(a[:2] == ["project", "goldsmith"] for a in legal(st2, 0))


def test_demolished_admin_cannot_be_rebuilt():
    st = fresh(2)
    pc = add_built(st, 0, "palace", 0)
    st.done_mask[0] |= 1 << K["palace"]
    touch(st)
    idx = st.pieces[0].index(pc)
    act(st, 0, ["demolish", idx])
    assert st.board[K["palace"]] == 2                                # the tile goes back to the board
    assert not any(a[:2] == ["project", "palace"] for a in legal(st, 0))


def test_space_rules_and_port_on_nile():
    st = fresh(2)
    st.pieces[0][1][1] = 5                                           # Warehouse and Master Builder on 5
    add_built(st, 0, "master_builder", 0)
    acts = legal(st, 0)
    assert ["project", "carpenter", 5] not in acts                   # 2 production buildings already on 5
    assert ["project", "temple", 5] not in acts                      # admin needs an empty space
    assert ["project", "carpenter", 0] in acts                       # 2nd production building on a space
    ports = {a[2] for a in acts if a[:2] == ["project", "port"]}
    assert ports == set(NILE)
    reject(st, 0, ["project", "port", 1], "4")
    act(st, 0, ["project", "pyramid", 2])
    assert st.pieces[0][-1][4] == 1                                  # the top of the Pyramid stack is Pyramid 1


def test_move_cancel_demolish_and_tiles_return():
    st = fresh(2)
    st.pieces[0].append([K["temple"], 0, 0, 0, 0, 0, 0])             # a project carried from last turn
    st.board[K["temple"]] -= 1
    touch(st)
    assert ["move", 2, 1] in legal(st, 0)
    act(st, 0, ["move", 2, 1])
    assert st.pieces[0][2][1] == 1
    assert not any(a[0] in ("move", "cancel") and a[1] == 2 for a in legal(st, 0))   # once per turn
    st2 = fresh(2)
    st2.pieces[0].append([K["temple"], 0, 0, 0, 0, 0, 0])
    st2.board[K["temple"]] -= 1
    touch(st2)
    act(st2, 0, ["cancel", 2])
    assert st2.board[K["temple"]] == 2 and len(st2.pieces[0]) == 2
    # the last Master Builder cannot be demolished
    assert ["demolish", 1] not in legal(st2, 0)
    check_invariants(st2)


def test_architect_placement():
    st = ENGINE.new_game({"architect": True}, 2)
    ENGINE.apply(st, E.Rolled(((0, 1),)))
    spaces = {a[2] for a in legal(st, 0) if a[:2] == ["project", "carpenter"]}
    assert spaces == {1, 4}                              # next to the start space (full: 2 production tiles)
    add_built(st, 0, "carpenter", 1)
    spaces = {a[2] for a in legal(st, 0) if a[:2] == ["project", "temple"]}
    assert spaces == {2, 4, 5}
    assert not any(a[:2] == ["project", "port"] for a in legal(st, 0))   # no Nile space is reachable yet


def test_architect_demolition_respects_the_placement_rule():
    """RB Architect Variant: "you may demolish buildings …, or move or replace projects, while
    respecting the placement rule" ("only … adjacent to a building already built"): a demolition
    that would leave a project next to no built building is refused (issue #15 item 3)."""
    st = ENGINE.new_game({"architect": True}, 2)
    ENGINE.apply(st, E.Rolled(((0, 1),)))
    add_built(st, 0, "carpenter", 1)
    act(st, 0, ["project", "temple", 2])                 # next to the Carpenter only
    carpenter = next(i for i, pc in enumerate(st.pieces[0]) if pc[0] == K["carpenter"])
    assert ["demolish", carpenter] not in legal(st, 0)
    with pytest.raises(E.IllegalAction):
        act(st, 0, ["demolish", carpenter])
    # without the Architect variant the same demolition is allowed
    st2 = fresh(2)
    add_built(st2, 0, "carpenter", 1)
    act(st2, 0, ["project", "temple", 2])
    carpenter = next(i for i, pc in enumerate(st2.pieces[0]) if pc[0] == K["carpenter"])
    assert ["demolish", carpenter] in legal(st2, 0)


# ------------------------------------------------------------------ phase 2: polls, draws, collecting

def test_poll_order_and_active_player_first():
    st = fresh(3)
    finish_p1(st)
    # turn 1: first player is seat 0; the active player decides first
    ENGINE.apply(st, E.Rolled((0,)))
    Deck().shuffle(st, deck_order())
    seats = []
    while st.stage == "poll":
        seats.append(ENGINE.expected(st).seat)
        act(st, seats[-1], ["continue"])
    assert seats == [0, 1, 2]
    assert isinstance(ENGINE.expected(st), E.DeckReveal)


def test_set_aside_card_is_burned_unseen():
    st = fresh(2)
    deck = season(st, "W")
    assert st.aside and st.aside not in st.shoe and len(st.shoe) == 21
    assert all(st.aside != h for h in ENGINE.expected(st).__dict__.get("handles", ()))


def test_t_sr_12_collect_copy_of_display():
    st = fresh(3)
    deck = season(st, "W", "W", "G")
    for _ in range(3):
        all_continue(st)
        deck.reveal(st)
    assert st.display == [2, 1, 0]
    reserve = list(st.reserve)
    act(st, 0, ["stop"])
    assert st.gain[0][:3] == [2, 1, 0]
    assert st.display == [2, 1, 0]                                   # the display stays
    assert st.reserve[W] == reserve[W] - 2 and st.reserve[G] == reserve[G] - 1


def test_t_sr_08_double_without_gold_goes_to_first():
    st = fresh(3)
    d = next(i for i, c in enumerate(DOUBLE) if 1 not in c and c[0] != c[1])    # e.g. Wood + Stone
    deck = season(st, "W", double=d)
    act(st, 0, ["stop"])
    a, b = DOUBLE[d]
    assert st.gain[0][a] == 1 and st.gain[0][b] == 1                 # at once, on stopping
    act(st, 1, ["stop"])
    assert sum(st.gain[1]) == 0


def test_t_sr_07_double_with_gold_goes_to_last():
    st = fresh(3)
    d = DOUBLE.index((1, 1))                                         # Gold + Gold
    deck = season(st, "S", "S", double=d)
    act(st, 0, ["stop"])                                             # A stops first
    act(st, 1, ["continue"])
    act(st, 2, ["continue"])
    deck.reveal(st)
    act(st, 1, ["stop"])
    act(st, 2, ["continue"])
    deck.reveal(st)
    act(st, 2, ["stop"])                                             # C stops last
    assert st.phase == "p3"
    assert st.res[2][G] == 1 + 2                                     # C gets the Gold double card
    assert st.res[0][G] == 1 and st.res[1][G] == 1


def test_gold_double_not_for_revolted_last():
    st = fresh(2)
    d = DOUBLE.index((1, 1))
    deck = season(st, "troubles2", double=d)
    act(st, 0, ["stop"])
    st.rev[1] = RED - 1
    touch(st)
    act(st, 1, ["continue"])
    deck.reveal(st)                                                  # B revolts: not eligible
    assert st.phase == "p3"
    assert st.res[0][G] == 3                                         # A is the last to lie down by choice


def test_t_sr_13_gold_bonus_once_per_poll():
    st = fresh(2)
    st.res[0] = [0, 2, 0, 0]
    touch(st)
    deck = season(st)
    st.rev[0] = 3
    touch(st)
    act(st, 0, ["gold"])
    assert st.rev[0] == 2 and st.res[0][G] == 1
    reject(st, 0, ["gold"], "5.3")                                  # a second Gold in the same poll
    act(st, 0, ["continue"])
    act(st, 1, ["continue"])
    deck.reveal(st)
    act(st, 0, ["gold"])                                             # the next poll allows it again
    assert st.rev[0] == 1


def test_gold_bonus_needs_warehouse_gold_and_room():
    st = fresh(2)
    deck = season(st)
    assert ["gold"] not in legal(st, 0)                              # cube already at the bottom
    st.rev[0] = 2
    st.res[0][G] = 0
    touch(st)
    assert ["gold"] not in legal(st, 0)


def test_resource_shortage_all_or_nothing():
    st = fresh(2)
    deck = season(st, "W", "W")
    for _ in range(2):
        all_continue(st)
        deck.reveal(st)
    assert st.display[W] == 2
    moved = st.reserve[W] - 1
    st.reserve[W] = 1
    st.res[1][W] += moved                                           # keep the 110 tokens conserved
    st.res[1][W] -= moved
    st.gain[1][W] += moved
    touch(st)
    act(st, 0, ["stop"])
    assert st.gain[0][W] == 0                                        # 2 owed, 1 in the reserve: none
    check_invariants(st)


def test_shortage_of_a_drawn_resource():
    st = fresh(2)
    deck = season(st, "G")
    moved = st.reserve[G]
    st.reserve[G] = 0
    st.gain[1][G] += moved
    touch(st)
    all_continue(st)
    deck.reveal(st)
    assert st.display[G] == 0                                        # nothing to put in the display


# ------------------------------------------------------------------ Troubles, Library, Gardens

def _troubles(kind, owner_buildings, n=3):
    st = fresh(n)
    for i, b in enumerate(owner_buildings):
        add_built(st, 0, b, i)
    deck = season(st, kind)
    all_continue(st)
    deck.reveal(st)
    return st


def test_t_sr_04_gardens_then_library():
    st = _troubles("troubles2", ["gardens", "library"])
    assert legal(st, 0) == [["gardens"], ["pass"]]
    act(st, 0, ["gardens"])
    assert legal(st, 0) == [["library"], ["pass"]]
    act(st, 0, ["library"])
    assert st.rev == [0, 2, 2]
    assert st.lib_j[0] == 1                                          # owed one Joker
    act(st, 0, ["stop"])
    assert st.gain[0][J] == 1


def test_t_sr_05_library_simple_troubles():
    st = _troubles("troubles1", ["library"])
    act(st, 0, ["library"])
    assert st.rev == [0, 1, 1] and st.lib_j[0] == 1


def test_library_not_on_double_troubles_alone():
    st = _troubles("troubles2", ["library"])
    assert st.stage == "poll" and st.rev == [2, 2, 2]               # no window opened for seat 0


def test_t_sr_06_gardens_only():
    st = _troubles("troubles2", ["gardens"])
    act(st, 0, ["gardens"])
    assert st.rev == [1, 2, 2]


def test_library_joker_lost_on_revolt():
    st = fresh(2)
    add_built(st, 0, "library", 0)
    deck = season(st, "troubles1", "troubles2")
    all_continue(st)
    deck.reveal(st)
    act(st, 0, ["library"])
    assert st.lib_j[0] == 1 and st.reserve[J] == SUPPLY[J] - 1
    st.rev[0] = RED - 2
    touch(st)
    all_continue(st)
    deck.reveal(st)
    assert st.status[0] == 2 and st.lib_j[0] == 0 and st.reserve[J] == SUPPLY[J]


def test_troubles_window_order_is_turn_order():
    st = fresh(3)
    add_built(st, 1, "gardens", 0)
    add_built(st, 2, "gardens", 0)
    add_built(st, 0, "gardens", 0)
    finish_p1(st)
    ENGINE.apply(st, E.Rolled((0,)))
    deck = Deck()
    deck.shuffle(st, deck_order("troubles2"))
    all_continue(st)
    deck.reveal(st)
    seen = []
    while st.stage == "tw":
        s = ENGINE.expected(st).seat
        seen.append(s)
        act(st, s, ["pass"])
    assert seen == [0, 1, 2]


# ------------------------------------------------------------------ Palace

def test_t_sr_09_palace_requisitions_a_resource():
    st = fresh(3)
    add_built(st, 0, "palace", 0)
    deck = season(st, "W")
    all_continue(st)
    deck.reveal(st)
    assert st.stage == "palace" and ENGINE.expected(st) == E.Decide(0)
    act(st, 0, ["palace"])
    assert st.display == [0, 0, 0]                                   # not in the display
    assert st.palace_cards[0] == [card_of("W")]
    act(st, 0, ["stop"])
    assert st.gain[0][W] == 1                                        # gained when the Obelisk lies down
    assert ["palace"] not in legal(st, 0)


def test_t_sr_09_palace_card_lost_on_revolt():
    st = fresh(2)
    add_built(st, 0, "palace", 0)
    deck = season(st, "W", "troubles2")
    all_continue(st)
    deck.reveal(st)
    act(st, 0, ["palace"])
    st.rev[0] = RED - 2
    touch(st)
    all_continue(st)
    deck.reveal(st)
    assert st.status[0] == 2
    assert st.res[0] == [1, 1, 1, 0]                                 # the warehouse is full:
    assert st.gain[0] == [1, 1, 1, 0]                                # the revolt's 1W/1G/1S wait beside it, no Palace Wood


def test_t_sr_10_palace_takes_horus():
    st = fresh(3)
    add_built(st, 1, "palace", 0)
    deck = season(st, "horus", "troubles2", "troubles2")
    all_continue(st)
    deck.reveal(st)
    act(st, 1, ["palace"])
    assert st.stage == "poll"                                        # no extra draws
    assert st.rev == [0, 0, 0] and len(st.shoe) == 20


def test_palace_window_order_and_first_claim_wins():
    st = fresh(3)
    add_built(st, 1, "palace", 0)
    add_built(st, 2, "palace", 0)
    deck = season(st, "G")
    all_continue(st)
    deck.reveal(st)
    assert ENGINE.expected(st) == E.Decide(1)
    act(st, 1, ["pass"])
    assert ENGINE.expected(st) == E.Decide(2)
    act(st, 2, ["palace"])
    assert st.palace_cards[2] == [card_of("G")] and st.display == [0, 0, 0]


def test_palace_takes_troubles_nobody_rises():
    st = fresh(3)
    add_built(st, 0, "palace", 0)
    add_built(st, 1, "library", 0)
    deck = season(st, "troubles1")
    all_continue(st)
    deck.reveal(st)
    act(st, 0, ["palace"])
    assert st.rev == [0, 0, 0] and st.stage == "poll"               # no Library window either


def test_palace_not_for_laid_down_owner():
    st = fresh(2)
    add_built(st, 0, "palace", 0)
    deck = season(st, "W")
    act(st, 0, ["stop"])
    act(st, 1, ["continue"])
    deck.reveal(st)
    assert st.stage == "poll" and st.display[W] == 1


# ------------------------------------------------------------------ Horus

def test_horus_draws_two_and_no_library():
    st = fresh(2)
    add_built(st, 0, "library", 0)
    deck = season(st, "horus", "W", "troubles1", "S")
    all_continue(st)
    deck.reveal(st)                                                  # Horus
    assert isinstance(ENGINE.expected(st), E.DeckReveal)             # no poll between
    deck.reveal(st)                                                  # W
    deck.reveal(st)                                                  # troubles1: no Library window
    assert st.stage == "poll"
    assert st.display == [1, 0, 0] and st.rev == [1, 1]


def test_horus_within_horus_and_palace_window_each_draw():
    st = fresh(2)
    add_built(st, 1, "palace", 0)
    deck = season(st, "horus", "horus", "W", "G", "S")
    all_continue(st)
    deck.reveal(st)
    act(st, 1, ["pass"])                                             # Palace-only window on Horus
    deck.reveal(st)                                                  # 2nd Horus: adds two more draws
    act(st, 1, ["pass"])
    deck.reveal(st)                                                  # W
    act(st, 1, ["pass"])
    deck.reveal(st)                                                  # G
    act(st, 1, ["palace"])                                           # requisition inside Horus
    deck.reveal(st)                                                  # S
    assert st.stage == "poll"
    assert st.display == [1, 0, 1] and st.palace_cards[1] == [card_of("G")]


def test_horus_stops_when_shoe_empty():
    st = fresh(2)
    deck = season(st)
    st.shoe = st.shoe[:1]
    deck.truth[st.shoe[0]] = card_of("horus")
    touch(st)
    all_continue(st)
    deck.reveal(st)
    assert st.stage == "poll" and st.horus == 0                      # Horus could not draw: back to a poll
    all_continue(st)
    # a draw is due, the shoe is empty: everybody still standing stops, the season ends (SR-27)
    assert st.phase == "p3" and st.status == [1, 1]


# ------------------------------------------------------------------ Hoshekh (darkness)

def test_t_sr_11_hoshekh_darkness():
    st = fresh(2)
    deck = season(st, "W", "S", "troubles1", "hoshekh", "G", "G", "G")
    for _ in range(4):
        all_continue(st)
        deck.reveal(st)
    assert st.stage == "dark_shuffle"
    step = ENGINE.expected(st)
    assert step.deck == "dark"
    assert sorted(step.cards) == sorted([card_of("W"), card_of("S"), card_of("troubles1")])
    assert st.hosh == [card_of("hoshekh")]
    deck.shuffle(st, [card_of("S"), card_of("troubles1"), card_of("W")])
    assert st.display == [1, 0, 1]
    all_continue(st)
    step = ENGINE.expected(st)
    assert len(step.handles) == 2                                    # darkness card, then the shoe card
    deck.reveal(st)                                                  # Stone lost, Gold added
    assert st.display == [1, 1, 0]
    all_continue(st)
    deck.reveal(st)                                                  # Troubles from darkness: nothing lost
    assert st.display == [1, 2, 0]
    all_continue(st)
    deck.reveal(st)                                                  # Wood lost; darkness ends
    assert st.display == [0, 3, 0] and st.dark == []
    assert len(st.removed) == 3
    check_invariants(st)


def test_hoshekh_loss_does_not_touch_collected():
    st = fresh(2)
    deck = season(st, "W", "hoshekh", "G")
    all_continue(st)
    deck.reveal(st)
    all_continue(st)
    deck.reveal(st)
    deck.shuffle(st, [card_of("W")])
    act(st, 0, ["stop"])                                             # collected 1 W
    act(st, 1, ["continue"])
    deck.reveal(st)
    assert st.gain[0][W] == 1 and st.display == [0, 1, 0]


def test_hoshekh_via_horus_darkness_starts_at_once():
    st = fresh(2)
    deck = season(st, "W", "horus", "hoshekh", "G")
    all_continue(st)
    deck.reveal(st)                                                  # W
    all_continue(st)
    deck.reveal(st)                                                  # Horus
    deck.reveal(st)                                                  # Hoshekh (1st Horus draw)
    deck.shuffle(st, [card_of("W"), card_of("horus")])               # discard: W, Horus
    step = ENGINE.expected(st)
    assert isinstance(step, E.DeckReveal) and len(step.handles) == 2  # 2nd Horus draw suffers darkness
    deck.reveal(st)
    assert st.display == [0, 1, 0]


def test_single_hoshekh_card():
    # with the data's single Hoshekh card a second darkness cannot start in one season (SR-18 d is moot)
    assert sum(1 for k in CARD_KIND if k == 4) == 1


# ------------------------------------------------------------------ Temple

def _temple_game(front=("G", "W", "troubles1")):
    st = fresh(2)
    add_built(st, 0, "temple", 0)
    deck = season(st, *front)
    return st, deck


def _temple_draw(st, deck, position, keep_index):
    act(st, 0, ["temple"])
    step = ENGINE.expected(st)
    assert step == E.DeckShow(0, tuple(st.temple_hand)) and len(step.handles) == 2
    hand = list(step.handles)
    ENGINE.apply(st, E.DeckShown(0, step.handles))
    assert ENGINE.expected(st) == E.Decide(0)
    assert legal(st, 0) == [["return", "top"], ["return", "bottom"]]
    act(st, 0, ["return", position])
    step = ENGINE.expected(st)
    assert step == E.DeckReturn(0, "season", tuple(hand), position)
    assert ENGINE.legal_actions(st, 0) == hand and ENGINE.legal_actions(st, 1) == []
    returned = hand[1 - keep_index]
    new = deck.handles(2)
    deck.truth[new[0]] = deck.truth[returned]
    deck.truth[new[1]] = deck.truth[hand[keep_index]]
    ENGINE.apply(st, E.DeckReturned(0, "season", position, new[0], (new[1],)))
    return new


def test_temple_keep_one_return_other_on_top():
    st, deck = _temple_game()
    new = _temple_draw(st, deck, "top", keep_index=0)               # keep Gold, Wood back on top
    assert st.kept[0] == [new[1]] and st.shoe[0] == new[0] and len(st.shoe) == 20
    assert st.stage == "poll" and ENGINE.expected(st) == E.Decide(0)   # back in the owner's poll slot
    assert ["temple"] not in legal(st, 0)
    act(st, 0, ["continue"])
    act(st, 1, ["continue"])
    assert deck.reveal(st) == [card_of("W")]                         # the returned card is drawn next
    act(st, 0, ["stop"])
    assert st.gain[0][W] == 1 and not isinstance(ENGINE.expected(st), E.DeckReveal)
    act(st, 1, ["stop"])                                             # the season ends
    step = ENGINE.expected(st)
    assert step == E.DeckReveal((new[1],))                           # the kept card is shown when it pays
    deck.reveal(st)
    assert st.kept_cards[0] == [card_of("G")] and st.res[0][G] == 2 and st.res[0][W] == 2


def test_temple_kept_card_stays_secret_until_the_season_ends():
    """RB Temple: "They secretly keep one … if the kept card is a Resource, they gain that Resource
    once their obelisk is lying down". Revealing it when the owner lies down would tell the players
    still standing that (say) a Troubles card is out of the shoe while they push their luck; it is
    revealed and credited when the season ends (issue #15 item 2)."""
    st, deck = _temple_game(("troubles1", "W", "S", "G"))
    new = _temple_draw(st, deck, "bottom", keep_index=0)            # keep the Troubles card
    act(st, 0, ["stop"])                                             # the owner lies down ...
    assert st.status[0] == 1 and st.status[1] == 0
    assert not isinstance(ENGINE.expected(st), E.DeckReveal)         # ... and nobody sees the kept card
    assert st.kept[0] == [new[1]] and st.kept_cards[0] == []
    assert "card" not in ENGINE.view(st, 1, {})["players"][0]["temple_kept"][0]
    act(st, 1, ["continue"])
    assert deck.reveal(st) == [card_of("S")]
    act(st, 0, ["pass"])                                             # its oracle slot
    act(st, 1, ["stop"])                                             # nobody stands: the season ends
    assert ENGINE.expected(st) == E.DeckReveal((new[1],))
    deck.reveal(st)
    assert st.kept_cards[0] == [card_of("troubles1")] and st.kept[0] == []


def test_temple_return_to_bottom_and_non_resource_kept():
    st, deck = _temple_game(("troubles1", "W", "S"))
    new = _temple_draw(st, deck, "bottom", keep_index=0)            # keep the Troubles: no effect
    assert st.shoe[-1] == new[0]
    act(st, 0, ["stop"])
    act(st, 1, ["stop"])
    deck.reveal(st)
    assert st.res[0] == [1, 1, 1, 0] and st.rev[0] == 0


def test_temple_kept_card_no_gain_in_revolt():
    st, deck = _temple_game(("G", "W", "troubles2"))
    _temple_draw(st, deck, "bottom", keep_index=0)
    st.rev[0] = RED - 2
    touch(st)
    act(st, 0, ["continue"])
    act(st, 1, ["continue"])
    cards = deck.reveal(st)
    assert cards == [card_of("troubles2")] and st.status[0] == 2
    assert not isinstance(ENGINE.expected(st), E.DeckReveal)         # secret while seat 1 stands
    act(st, 1, ["stop"])
    assert isinstance(ENGINE.expected(st), E.DeckReveal)             # revealed for the audit anyway
    gain = list(st.gain[0])
    deck.reveal(st)
    assert gain == [1, 1, 1, 0] and st.kept_cards[0] == [card_of("G")]   # only the revolt's 3 tokens
    assert st.res[0] == [2, 2, 2, 0]


def test_temple_one_card_left():
    st, deck = _temple_game()
    st.shoe = st.shoe[:1]
    touch(st)
    act(st, 0, ["temple"])
    ENGINE.apply(st, E.DeckShown(0, tuple(st.temple_hand)))
    assert st.kept[0] and st.stage == "poll" and st.shoe == []


def test_oracle_peek_is_private_and_repeatable_per_season():
    st, deck = _temple_game()
    act(st, 0, ["oracle"])
    assert ENGINE.expected(st) == E.DeckShow(0, (st.aside,))
    ENGINE.apply(st, E.DeckShown(0, (st.aside,)))
    assert st.stage == "poll" and ["oracle"] not in legal(st, 0)     # already known this season
    assert ["temple"] in legal(st, 0)                                # the peek does not use the Temple
    assert ["oracle"] not in legal(st, 1)


def test_temple_and_palace_same_season():
    st = fresh(2)
    add_built(st, 0, "temple", 0)
    add_built(st, 1, "palace", 0)
    deck = season(st, "G", "S", "W")
    new = _temple_draw(st, deck, "top", keep_index=1)               # keep Stone, return Gold on top
    act(st, 0, ["continue"])
    act(st, 1, ["continue"])
    deck.reveal(st)
    act(st, 1, ["palace"])                                           # the Palace takes the returned Gold
    assert st.palace_cards[1] == [card_of("G")]


# ------------------------------------------------------------------ Barracks, Market

def test_t_sr_14_barracks():
    st = fresh(3)
    add_built(st, 0, "barracks", 0)
    deck = season(st)
    st.rev = [2, RED - 1, RED - 2]
    touch(st)
    assert ["barracks", 1] not in legal(st, 0)
    reject(st, 0, ["barracks", 1], "5.3")
    act(st, 0, ["barracks", 2])
    assert st.rev == [1, RED - 1, RED - 1]
    assert not any(a[0] == "barracks" for a in legal(st, 0))         # once per season


def test_barracks_only_standing_targets():
    st = fresh(3)
    add_built(st, 2, "barracks", 0)
    deck = season(st)
    act(st, 0, ["stop"])
    act(st, 1, ["continue"])
    assert ["barracks", 0] not in legal(st, 2) and ["barracks", 1] in legal(st, 2)


def test_t_sr_15_market_swap():
    st = fresh(2)
    add_built(st, 0, "market", 0)
    add_built(st, 1, "warehouse", 1)
    st.res[0] = [2, 0, 0, 0]
    st.res[1] = [0, 1, 2, 0]
    st.reserve[0] -= 1
    st.reserve[1] += 1
    st.reserve[2] -= 1
    st.reserve[0] += 0
    touch(st)
    deck = season(st)
    act(st, 0, ["market", 1])
    assert ["swap", "W", "G"] in legal(st, 0) and ["swap", "G", "W"] not in legal(st, 0)
    act(st, 0, ["swap", "W", "G"])
    act(st, 0, ["swap", "W", "S"])
    assert legal(st, 0) == [["done"]]                                # only the 2 tokens that were there
    act(st, 0, ["done"])
    assert st.res[0] == [0, 1, 1, 0] and st.res[1] == [2, 0, 1, 0]
    assert st.stage == "poll" and ENGINE.expected(st) == E.Decide(0)


def test_market_excludes_gains_and_final_window():
    st = fresh(2)
    add_built(st, 1, "market", 0)
    deck = season(st, "W")
    all_continue(st)
    deck.reveal(st)
    act(st, 0, ["stop"])
    act(st, 1, ["stop"])                                             # 1 W gained, beside the site
    assert st.stage == "market_final" and ENGINE.expected(st) == E.Decide(1)
    act(st, 1, ["market", 0])
    assert st.sub[3] == 3                                            # the 3 warehouse tokens, not the gain
    act(st, 1, ["done"])
    assert st.phase == "p3"


def test_market_slot_for_laid_down_owner():
    st = fresh(2)
    add_built(st, 0, "market", 0)
    deck = season(st, "W")
    act(st, 0, ["stop"])
    act(st, 1, ["continue"])
    deck.reveal(st)
    assert ENGINE.expected(st) == E.Decide(0) and legal(st, 0) == [["market", 1], ["pass"]]


# ------------------------------------------------------------------ revolt, the lone player, the empty shoe

def test_t_sr_16_revolt():
    st = fresh(3)
    add_built(st, 0, "warehouse", 0)                                 # room for the revolt tokens
    deck = season(st, "W", "troubles1", "G")
    all_continue(st)
    deck.reveal(st)
    st.rev[0] = RED - 1
    touch(st)
    all_continue(st)
    deck.reveal(st)
    assert st.status[0] == 2 and st.rev[0] == RED
    assert st.res[0][:3] == [2, 2, 2]                                # +1 W, +1 G, +1 S
    assert ENGINE.expected(st) == E.Decide(1)                         # out of the polls
    act(st, 1, ["stop"])
    act(st, 2, ["stop"])
    assert st.phase == "p3" and sum(st.res[0][:3]) == 6             # collected nothing
    st.pieces[0].append([K["carpenter"], 1, 0, 0, 0, 0, 0])
    st.board[K["carpenter"]] -= 1
    touch(st)
    acts = legal(st, 0)
    assert not any(a[0] == "build" for a in acts)                    # no construction
    assert any(a[0] == "charter" for a in acts)                      # caravans allowed


def test_penalty_alone_can_cause_revolt():
    st = fresh(2)
    st.black[0] = 2
    for _ in range(3):
        add_built(st, 0, "master_builder", 0 if _ < 1 else 1)
    st.pieces[0] += [[K[k], s, 0, 0, 0, 0, 0] for k, s in (("temple", 2), ("library", 3), ("palace", 4),
                                                              ("market", 7), ("barracks", 8), ("gardens", 9),
                                                              ("port", 10))]
    for k in ("temple", "library", "palace", "market", "barracks", "gardens", "port"):
        st.board[K[k]] -= 1
    st.rev[0] = 2
    touch(st)
    finish_p1(st)                                                    # P=7, M=4: +3 from bottom 2 → 5
    assert st.rev[0] == 5 and st.status[0] == 0
    st2 = fresh(2)
    st2.black[0] = 2
    st2.rev[0] = 2
    for i in range(3):
        add_built(st2, 0, "master_builder", 0 if i < 1 else 1)
    st2.pieces[0] += [[K[k], s, 0, 0, 0, 0, 0] for k, s in (("temple", 2), ("library", 3), ("palace", 4),
                                                               ("market", 7), ("barracks", 8), ("gardens", 9),
                                                               ("port", 10), ("goldsmith", 11))]
    for k in ("temple", "library", "palace", "market", "barracks", "gardens", "port", "goldsmith"):
        st2.board[K[k]] -= 1
    touch(st2)
    finish_p1(st2)                                                   # P=8, M=4: +4 → red
    assert st2.status[0] == 2


def test_t_sr_17_lone_player_stops_on_troubles():
    st = fresh(3)
    deck = season(st, "W", "troubles1", "S")
    act(st, 0, ["stop"])
    act(st, 1, ["stop"])
    act(st, 2, ["continue"])
    deck.reveal(st)                                                  # W: the lone player keeps producing
    act(st, 2, ["continue"])
    deck.reveal(st)                                                  # Troubles: rise, then stop
    assert st.rev[2] == 1 and st.status[2] == 1
    assert st.phase == "p3" and st.res[2][W] == 2


def test_t_sr_17_lone_player_revolts():
    st = fresh(2)
    deck = season(st, "troubles2")
    act(st, 0, ["stop"])
    st.rev[1] = RED - 2
    touch(st)
    act(st, 1, ["continue"])
    deck.reveal(st)
    assert st.status[1] == 2


def test_lone_player_palace_cancelled_troubles_still_stops():
    st = fresh(2)
    add_built(st, 1, "palace", 0)
    deck = season(st, "troubles1")
    act(st, 0, ["stop"])
    act(st, 1, ["continue"])
    deck.reveal(st)
    act(st, 1, ["palace"])
    assert st.status[1] == 1 and st.rev[1] == 0


# ------------------------------------------------------------------ phase 3: construction

def _to_p3(st):
    """Everybody stops at the first poll (the Gold + Gold double card goes to the last seat)."""
    finish_p1(st)
    ENGINE.apply(st, E.Rolled((st.dbl_pile.index(DOUBLE.index((1, 1))),)))
    deck = Deck()
    deck.shuffle(st, deck_order())
    for s in range(st.n):
        act(st, s, ["stop"])
    while st.stage == "market_final":
        act(st, ENGINE.expected(st).seat, ["pass"])
    assert st.phase == "p3"
    return deck


def finish_p3(st):
    """Every remaining seat says done; surplus is discarded with the first legal choice."""
    while st.phase == "p3":
        seat = ENGINE.expected(st).seat
        act(st, seat, ["done"] if st.stage == "p3" else legal(st, seat)[0])


def _give(st, p, w=0, g=0, s=0, j=0):
    for t, k in enumerate((w, g, s, j)):
        st.reserve[t] -= k
        st.res[p][t] += k
    touch(st)


def test_t_sr_18_caravans():
    st = fresh(2)
    _to_p3(st)
    _give(st, 0, w=1)                                                # 4 surplus: W W G S
    act(st, 0, ["charter", "W", "W"])
    act(st, 0, ["charter", "G", "S"])
    assert st.car[0] == 2 and st.car_use[0] == 0                     # not spendable this Phase 3
    assert not any(a[0] == "build" for a in legal(st, 0))
    assert not any(a[0] == "charter" for a in legal(st, 0))          # nothing left to charter with
    st.car[0] = 3
    _give(st, 0, w=2)
    assert not any(a[0] == "charter" for a in legal(st, 0))          # cap of 3


def test_caravan_credit_pays_next_turn():
    st = fresh(2)
    _to_p3(st)
    st.pieces[0].append([K["barracks"], 0, 0, 0, 0, 0, 0])          # W2 S2
    st.board[K["barracks"]] -= 1
    st.car[0] = st.car_use[0] = 2
    touch(st)
    builds = [a for a in legal(st, 0) if a[0] == "build"]
    assert builds == [["build", 2, "-", 0, 2]]                       # W1 S1 held, 2 short: 2 caravans
    act(st, 0, builds[0])
    assert st.car[0] == 0 and st.pieces[0][2][2] == 1
    assert st.res[0] == [0, 1, 0, 0]


def test_t_sr_19_stacked_goldsmith_reductions():
    st = fresh(2)
    add_built(st, 0, "goldsmith", 0)                                 # next to space 1
    add_built(st, 0, "goldsmith", 1)                                 # on space 1
    pc = [K["market"], 1, 0, 0, 0, 0, 0]                              # wait: market needs an empty space
    pc = [K["goldsmith"], 1, 0, 0, 0, 0, 0]                           # a production project sharing space 1
    st.pieces[0].append(pc)
    st.board[K["goldsmith"]] -= 1
    touch(st)
    _to_p3(st)
    assert S.project_cost(st, 0, pc, -1) == [1, 0, 1]                # Goldsmith W1 G1 S1, Gold −2 → 0
    admin = [K["palace"], 4, 0, 0, 0, 0, 0]                           # G2 on space 4, next to the 1st only
    assert S.project_cost(st, 0, admin, -1) == [1, 1, 2]


def test_reductions_snapshot_before_this_turn():
    st = fresh(2)
    _to_p3(st)
    add_built(st, 0, "goldsmith", 0, turn=st.turn)                   # built this very Phase 3
    pc = [K["palace"], 1, 0, 0, 0, 0, 0]
    assert S.project_cost(st, 0, pc, -1) == list(COST[K["palace"]])


def test_port_reduction_choice():
    st = fresh(2)
    add_built(st, 0, "port", 11)
    st.pieces[0].append([K["barracks"], 10, 0, 0, 0, 0, 0])         # on the Nile bank
    st.board[K["barracks"]] -= 1
    _to_p3(st)
    _give(st, 0, w=1, s=1)                                           # W2 G1 S2
    builds = [a for a in legal(st, 0) if a[0] == "build"]
    assert {a[2] for a in builds} == {"W", "S"}                      # the Port's type is chosen
    act(st, 0, ["build", 3, "W", 0, 0])
    assert st.res[0] == [1, 1, 0, 0]                                 # paid W1 S2


def test_worker_tokens_produce_and_refill():
    st = fresh(2)
    add_built(st, 0, "carpenter", 0)
    _to_p3(st)
    assert st.slots[0] == [0, 0, 0, 0]
    finish_p3(st)
    assert st.slots[0] == [1, 0, 0, 0]                               # the card gets its token at turn end
    assert st.turn == 2


def test_joker_must_be_typed_to_be_stored():
    st = fresh(2)
    _to_p3(st)
    _give(st, 0, j=1, w=-1)
    act(st, 0, ["done"])
    assert st.stage == "store"
    assert legal(st, 0) == [["joker", "W"], ["joker", "G"], ["joker", "S"], ["discard", "J"]]
    act(st, 0, ["joker", "S"])
    assert st.res[0] == [0, 1, 2, 0]
    assert ENGINE.expected(st) == E.Decide(1)


def test_surplus_discarded_to_capacity():
    st = fresh(2)
    _to_p3(st)
    _give(st, 0, w=2)                                                # 5 tokens, capacity 3
    act(st, 0, ["done"])
    assert legal(st, 0) == [["discard", "W"], ["discard", "G"], ["discard", "S"]]
    act(st, 0, ["discard", "W"])
    act(st, 0, ["discard", "W"])
    assert st.res[0] == [1, 1, 1, 0] and ENGINE.expected(st) == E.Decide(1)


def test_pyramid_one_step_per_turn_and_growth():
    st = fresh(2)
    st.pieces[0].append([K["pyramid"], 0, 0, 0, 4, 0, 0])           # Pyramid 4: 2 steps of G1 S3
    st.pyr_avail.remove(2)
    st.pyr_avail[:] = [1]
    st.pieces[1].append([K["pyramid"], 0, 0, 0, 2, 0, 0])
    _to_p3(st)
    _give(st, 0, g=3, s=6)
    act(st, 0, ["build", 2, "-", 0, 0])
    assert st.pieces[0][2][3] == 1 and st.ptok[0] == 1               # a Joker token on the card
    assert not any(a[0] == "build" for a in legal(st, 0))            # one step per turn
    assert st.black[0] == 0
    act(st, 0, ["done"])


def test_growth_cubes():
    st = fresh(2)
    st.pieces[0] += [[K["port"], 3, 0, 0, 0, 0, 0], [K["temple"], 0, 0, 0, 0, 0, 0], [K["library"], 1, 0, 0, 0, 0, 0]]
    for k in ("port", "temple", "library"):
        st.board[K[k]] -= 1
    add_built(st, 0, "master_builder", 2)
    _to_p3(st)
    _give(st, 0, w=8, g=5, s=5)
    act(st, 0, ["build", 2, "-", 0, 0])                              # Port: first main building
    assert st.black[0] == 1 and st.rev[0] >= 1
    act(st, 0, ["build", 3, "-", 0, 0])                              # 1st admin: nothing
    assert st.black[0] == 1
    act(st, 0, ["build", 4, "-", 0, 0])                              # 2nd admin: second cube
    assert st.black[0] == 2
    check_invariants(st)


# ------------------------------------------------------------------ end of the game

def _priest_ready(st, p, admins, pyramid_no):
    pcs = st.pieces[p]
    pcs.append([K["port"], 3, 1, 0, 0, 0, 0])
    st.board[K["port"]] -= 1
    st.pyr_avail.remove(pyramid_no)
    pcs.append([K["pyramid"], 0, 1, PYRAMIDS[pyramid_no][0], pyramid_no, 0, 0])
    for i, k in enumerate(["temple", "library", "barracks", "market", "palace", "gardens"][:admins]):
        pcs.append([K[k], 7 + i if 7 + i < 12 else 1, 1, 0, 0, 0, 0])
        st.board[K[k]] -= 1
    touch(st)


def test_t_sr_20_priest_tie_break_admin():
    st = fresh(3)
    _priest_ready(st, 0, 4, 2)
    _priest_ready(st, 1, 3, 1)
    _to_p3(st)
    finish_p3(st)
    r = ENGINE.result(st)
    assert r["winners"] == [0] and r["reason"] == "goal"
    assert ENGINE.expected(st) == E.Finished()


def test_tie_break_pyramid_size_then_shared():
    st = fresh(3)
    _priest_ready(st, 0, 3, 2)
    _priest_ready(st, 1, 3, 1)                                       # Pyramid 1 needed the most materials
    _to_p3(st)
    finish_p3(st)
    assert ENGINE.result(st)["winners"] == [1]


def test_scribe_goal():
    st = fresh(2, scenario="scribe")
    pcs = st.pieces[0]
    pcs.append([K["pyramid"], 0, 0, 1, 1, 0, 0])                     # in project with a first step
    st.pyr_avail.remove(1)
    for s in range(1, 12):
        if s not in (5, 6):
            pcs.append([K["carpenter"], s, 1, 0, 0, 0, 0])
    st.board[K["carpenter"]] -= 9
    st.board[K["carpenter"]] = 0
    touch(st)
    assert S.goal_met(st, 0)
    pcs.pop()
    assert not S.goal_met(st, 0)


def test_pharaoh_goal():
    st = fresh(2, scenario="pharaoh")
    _priest_ready(st, 0, 5, 1)
    assert not S.goal_met(st, 0)
    st.pieces[0].append([K["gardens"], 2, 1, 0, 0, 0, 0])
    assert S.goal_met(st, 0)


def test_turn_limit_ends_game_with_winner():
    st = fresh(2, turn_limit=1)
    st.pieces[0].append([K["temple"], 0, 1, 0, 0, 0, 0])
    st.board[K["temple"]] -= 1
    _to_p3(st)
    finish_p3(st)
    r = ENGINE.result(st)
    assert r["reason"] == "turn_limit" and r["winners"] == [0] and r["scores"] == [1, 0]


def test_new_turn_rotation_and_reset():
    st = fresh(3)
    add_built(st, 0, "palace", 0)
    deck = _to_p3(st)
    st.used[0] = 1 << K["palace"]
    st.rev[1] = 3
    finish_p3(st)
    assert st.turn == 2 and S.first_player(st) == 1                  # the shoe passes to the left
    assert ENGINE.expected(st) == E.Decide(1)
    assert st.used == [0, 0, 0] and st.rev == [0, 0, 0] and st.status == [0, 0, 0]
    finish_p1(st)
    ENGINE.apply(st, E.Rolled((0,)))
    step = ENGINE.expected(st)
    # every non-double card is gathered: 21 face down (shoe + set-aside) + revealed ones
    assert isinstance(step, E.DeckShuffle) and len(step.cards) == 22
    hidden = [c for c in step.cards if isinstance(c, list)]
    assert len(hidden) == 22 and all(c[0] == "h" for c in hidden)    # nothing was revealed last season


def test_double_pile_drawn_without_replacement():
    st = fresh(2)
    seen = []
    for turn in range(7):
        finish_p1(st)
        step = ENGINE.expected(st)
        assert step == E.Random((("int", len(st.dbl_pile)),))
        assert len(st.dbl_pile) == 6 - turn % 6
        ENGINE.apply(st, E.Rolled((0,)))
        seen.append(st.dbl)
        Deck().shuffle(st, list(range(22)))
        for s in range(2):
            act(st, ENGINE.expected(st).seat, ["stop"])
        finish_p3(st)
    assert sorted(seen[:6]) == list(range(6))                        # then reshuffled


def test_illegal_actions_name_rules():
    st = fresh(2)
    e = reject(st, 0, ["project", "port", 0])
    assert e.rule == "4"
    with pytest.raises(E.IllegalAction) as exc:
        act(st, 1, ["done"])                                         # not this seat's decision
    assert exc.value.rule == "3.1"
    with pytest.raises(E.IllegalAction):
        ENGINE.apply(st, E.Rolled((0,)))                             # a chance event out of place
    finish_p1(st)
    with pytest.raises(E.IllegalAction):
        ENGINE.apply(st, E.Rolled((6,)))                             # out of range
    ENGINE.apply(st, E.Rolled((0,)))
    with pytest.raises(E.IllegalAction):
        ENGINE.apply(st, E.DeckShuffled("season", (1, 2, 3)))        # wrong size
    with pytest.raises(E.IllegalAction):
        ENGINE.apply(st, E.DeckShuffled("dark", tuple(range(1, 23))))


def test_malformed_events_rejected_untouched():
    st = ENGINE.new_game({}, 3)
    before = ENGINE.encode(st)
    for ev in (E.Rolled(((0, 1, "x"),)), E.Rolled(((0, 1, 1),)), E.Rolled(((0, 1),)), E.Rolled(()),
               E.Act(0, ["done"]), E.DeckShuffled("season", (1,)), E.Rolled(7)):
        with pytest.raises(E.IllegalAction):
            ENGINE.apply(st, ev)
        assert ENGINE.encode(st) == before
    st = fresh(2)
    for bad in ({"a": 1}, "done", None, ["project"], ["project", "temple", 99], ["build", 0, "-", 0, 0]):
        reject(st, 0, bad)
    finish_p1(st)
    ENGINE.apply(st, E.Rolled((0,)))
    deck = Deck()
    deck.shuffle(st, deck_order("W"))
    all_continue(st)
    h = ENGINE.expected(st).handles
    for ev in (E.DeckRevealed(h, (99,)), E.DeckRevealed(h, ()), E.DeckRevealed((h[0] + 1,), (0,)),
               E.DeckShown(0, h), E.Act(0, ["continue"])):
        before = ENGINE.encode(st)
        with pytest.raises(E.IllegalAction):
            ENGINE.apply(st, ev)
        assert ENGINE.encode(st) == before


def test_reveals_and_result():
    st = fresh(2)
    assert ENGINE.reveals(st, 0, ["done"]) == []
    assert ENGINE.result(st) is None


def test_temple_draw_in_darkness_loses_nothing():
    st = fresh(2)
    add_built(st, 0, "temple", 0)
    deck = season(st, "W", "hoshekh", "G", "S", "W")
    for _ in range(2):
        all_continue(st)
        deck.reveal(st)
    deck.shuffle(st, [card_of("W")])
    assert len(st.dark) == 1 and st.display == [1, 0, 0]
    _temple_draw(st, deck, "bottom", keep_index=0)
    assert len(st.dark) == 1 and st.display == [1, 0, 0]            # Temple draws trigger no loss
    act(st, 0, ["continue"])
    act(st, 1, ["continue"])
    assert deck.reveal(st) == [card_of("W"), card_of("W", 1)]       # a shoe draw does: −1 W, then +1 W
    assert st.dark == [] and st.removed == [card_of("W")] and st.display == [1, 0, 0]


def test_pyramid_pick_option_free_choice_among_the_pyramids_left():
    """Option pyramid_pick "free" (issue #15 item 10; register R-09): a Pyramid project may take any
    Pyramid card left, not only the top of the sorted stack (RB Setup "sorted so that number 1 is
    on top" is the default reading)."""
    st = fresh(3, pyramid_pick="free")
    pyr = [a for a in legal(st, 0) if a[:2] == ["project", "pyramid"]]
    assert pyr and {a[3] for a in pyr} == {1, 2, 3} and all(len(a) == 4 for a in pyr)
    act(st, 0, ["project", "pyramid", 0, 3])
    assert st.pyr_avail == [1, 2] and st.pieces[0][-1][4] == 3
    act(st, 0, ["done"])
    assert {a[3] for a in legal(st, 1) if a[:2] == ["project", "pyramid"]} == {1, 2}
    # the default takes the top card, with the 3-element action
    st = fresh(3)
    assert all(len(a) == 3 for a in legal(st, 0) if a[:2] == ["project", "pyramid"])
    with pytest.raises(E.IllegalAction):
        act(st, 0, ["project", "pyramid", 0, 3])
    with pytest.raises(E.BadOptions):
        ENGINE.new_game({"pyramid_pick": "any"}, 3)


def test_architect_demolition_in_the_construction_phase():
    """RB Architect Variant "Reminder: you may demolish buildings during your construction phase"
    (issue #15 item 4, register R-04): in the Architect variant a built building may also be
    demolished in phase 3, with the same limits as in phase 1."""
    st = ENGINE.new_game({"architect": True}, 2)
    ENGINE.apply(st, E.Rolled(((0, 1),)))
    add_built(st, 0, "carpenter", 1)
    deck = season(st)
    act(st, 0, ["stop"])
    act(st, 1, ["stop"])
    assert st.phase == "p3" and ENGINE.expected(st) == E.Decide(0)
    carpenter = next(i for i, pc in enumerate(st.pieces[0]) if pc[0] == K["carpenter"])
    assert ["demolish", carpenter] in legal(st, 0)
    board = st.board[K["carpenter"]]
    act(st, 0, ["demolish", carpenter])
    assert st.board[K["carpenter"]] == board + 1 and not any(pc[0] == K["carpenter"] for pc in st.pieces[0])
    assert not any(a[0] == "demolish" and st.pieces[0][a[1]][0] == K["master_builder"] for a in legal(st, 0)
                   if a[0] == "demolish")                          # the last Master Builder stays
    check_invariants(st)
    # without the Architect variant, demolition stays a phase-1 action
    st = fresh(2)
    add_built(st, 0, "carpenter", 1)
    season(st)
    act(st, 0, ["stop"])
    act(st, 1, ["stop"])
    assert st.phase == "p3" and not any(a[0] == "demolish" for a in legal(st, 0))


def test_oracle_open_to_a_lying_down_temple_owner():
    """RB Temple "The owner of the temple may also, at any time, consult the oracles" (issue #15
    item 5, register R-05): an owner who lay down without consulting gets a poll slot to do it."""
    st = fresh(3)
    add_built(st, 0, "temple", 0)
    deck = season(st, "W", "W", "W")
    act(st, 0, ["stop"])
    act(st, 1, ["continue"])
    act(st, 2, ["continue"])
    deck.reveal(st)
    assert ENGINE.expected(st) == E.Decide(0) and legal(st, 0) == [["oracle"], ["pass"]]
    act(st, 0, ["oracle"])
    assert ENGINE.expected(st) == E.DeckShow(0, (st.aside,))
    ENGINE.apply(st, E.DeckShown(0, (st.aside,)))
    assert legal(st, 0) == [["pass"]]
    act(st, 0, ["pass"])
    assert ENGINE.expected(st) == E.Decide(1)
    act(st, 1, ["continue"])
    act(st, 2, ["continue"])
    deck.reveal(st)
    assert ENGINE.expected(st) == E.Decide(1)                       # peeked: no more slot for seat 0


def test_face_up_shoe_option():
    """Option shoe "up" (issue #15, register SR-14): RB New Turn "places the pile in the shoe face up" and two
    reviews ("sabot face visible"): the top card of the shoe is public before every poll, is drawn
    without a new reveal, and a card the Temple returns "face down on the top" hides it."""
    st = fresh(2, shoe="up")
    add_built(st, 0, "temple", 0)
    deck = season(st, "W", "troubles1", "G", "S")
    step = ENGINE.expected(st)
    assert step == E.DeckReveal((st.shoe[0],))                       # the top is shown to everyone
    deck.reveal(st)
    v = ENGINE.view(st, 1, {})
    assert v["shoe_top"]["kind"] == "W" and v["shoe"][0]["card"]["kind"] == "W" and v["shoe_face"] == "up"
    all_continue(st)
    assert st.discard == [card_of("W")] and st.display == [1, 0, 0]  # drawn without a reveal step
    assert ENGINE.expected(st) == E.DeckReveal((st.shoe[0],))        # the next poll shows the new top
    deck.reveal(st)
    assert ENGINE.view(st, 1, {})["shoe_top"]["kind"] == "troubles1"
    new = _temple_draw(st, deck, "top", keep_index=0)               # keep the Troubles, G back on top
    assert ENGINE.view(st, 1, {})["shoe_top"] is None                # face down on the top: hidden
    assert not isinstance(ENGINE.expected(st), E.DeckReveal)
    act(st, 0, ["continue"])
    act(st, 1, ["continue"])
    assert ENGINE.expected(st) == E.DeckReveal((new[0],))            # drawn as a face-down card
    assert deck.reveal(st) == [card_of("G")]
    # the default shoe is face down: no public top
    st = fresh(2)
    season(st)
    assert ENGINE.view(st, 1, {})["shoe_top"] is None and ENGINE.expected(st) == E.Decide(0)


def test_spare_a_typed_token_so_a_caravan_pays_instead():
    """RB Chartering Caravans: "Each caravan chartered allows you to receive … one resource of your
    choice" — nothing makes typed tokens pay first. `["spare", T]` keeps a token of type T out of this
    phase's payments so Jokers or caravans pay for it, e.g. to keep a Gold for the next season's Gold
    bonus (issue #15 item 6, register R-02). Without it, the order stays: typed tokens first."""
    st = fresh(2)
    pc = [K["goldsmith"], 5, 0, 0, 0, 0, 0]
    st.pieces[0].append(pc)
    st.board[K["goldsmith"]] -= 1
    season(st)
    act(st, 0, ["stop"])
    act(st, 1, ["stop"])
    st.res[0] = [1, 1, 1, 0]
    st.car[0] = st.car_use[0] = 1
    touch(st)
    i = st.pieces[0].index(pc)
    assert ["build", i, "-", 0, 0] in legal(st, 0)                  # W1 G1 S1: typed tokens pay
    assert ["build", i, "-", 0, 1] not in legal(st, 0)
    act(st, 0, ["spare", "G"])
    assert legal(st, 0).count(["build", i, "-", 0, 1]) == 1 and ["build", i, "-", 0, 0] not in legal(st, 0)
    act(st, 0, ["build", i, "-", 0, 1])
    assert st.res[0] == [0, 1, 0, 0] and st.car[0] == 0              # the Gold is kept, the caravan paid
    check_invariants(st)


def test_a_caravan_is_cashed_into_a_stored_token():
    """RB 7.5 "Each caravan chartered allows you to receive … one resource of your choice during a
    later Construction Phase" and "you are free to reorganise your warehouses and your caravans"
    (issue 24 item 13, register R-10): a caravan becomes a held token — e.g. a Gold kept for the next
    season's Gold bonus — not only a build's shortfall."""
    from protocol import engine as E
    from protocol.games.sare import ENGINE
    from protocol.referee import Referee, random_chooser
    import random
    ref = Referee(ENGINE, 2, None, seed=4)
    choose = random_chooser(random.Random(4))
    while ref.state.stage != "p3" or ref.state.status[ENGINE.expected(ref.state).seat] == 2:
        assert ref.step(choose) is not None
    st = ref.state
    p = ENGINE.expected(st).seat
    st.car[p] = st.car_use[p] = 2
    st.charter[p] = 0
    st.ver += 1
    legal = ENGINE.legal_actions(st, p)
    assert ["cash", "G"] in legal and ["cash", "W"] in legal
    gold, reserve = st.res[p][1], st.reserve[1]
    ENGINE.apply(st, E.Act(p, ["cash", "G"]))
    assert st.res[p][1] == gold + 1 and st.reserve[1] == reserve - 1
    assert st.car[p] == 1 and st.car_use[p] == 1
    ENGINE.apply(st, E.Act(p, ["cash", "S"]))
    assert st.car[p] == 0 and not [a for a in ENGINE.legal_actions(st, p) if a[0] == "cash"]


def test_a_player_in_revolt_cashes_a_caravan():
    """RB 5.9 (line 137): in revolt a player is "FORBIDDEN from constructing during phase 3" and "may
    also charter Caravans"; cashing a caravan is receiving "one resource of your choice during a later
    Construction Phase" (7.5, line 156), not constructing (register R-10, issue 35): it stays open in
    revolt, while building does not."""
    from protocol import engine as E
    from protocol.games.sare import ENGINE
    from protocol.referee import Referee, random_chooser
    import random
    ref = Referee(ENGINE, 2, None, seed=77)                    # seed 77: seat 0 revolts holding 2 caravans
    choose = random_chooser(random.Random(77))
    while ref.state.stage != "p3" or ref.state.status[ENGINE.expected(ref.state).seat] != 2:
        assert ref.step(choose) is not None
    st = ref.state
    p = ENGINE.expected(st).seat
    assert st.car_use[p] == 2 and not st.charter[p]
    legal = ENGINE.legal_actions(st, p)
    assert not [a for a in legal if a[0] in ("build", "spare")]
    assert ["cash", "G"] in legal
    gold, cars = st.res[p][1], st.car[p]
    ENGINE.apply(st, E.Act(p, ["cash", "G"]))
    assert st.res[p][1] == gold + 1 and st.car[p] == cars - 1 and st.car_use[p] == 1
    check_invariants(st)
