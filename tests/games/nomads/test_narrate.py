"""Nomads of Arabia in words and pictures: whole random games narrated for every seat and a
spectator, every decision's moves, pictures that parse and draw every player, and no yellow
tile named to a viewer who may not know it."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from clients.narrate import Table, event_dict, seat_name
from clients.narrate import nomads as N
from clients.render import nomads as R
from protocol.games import get
from protocol.games.nomads import data as D
from protocol.referee import Referee, random_chooser
from tests.games.nomads.util import HORSE, city_pos, give_animals, hand_tile, started

E = get("nomads")
NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Flo"]
SAMPLE = 23            # pictures of every viewer are checked every SAMPLE steps
RARE = {"catch_pick", "expert", "tie", "winds"}   # decisions whose targets are always checked


def _targets(svg: str) -> set[str]:
    return {el.get("data-target") for el in ET.fromstring(svg).iter() if el.get("data-target")}


def _check_picture(view: dict, n: int, hidden: set[str]) -> str:
    """The SVG parses, draws each player's nomad on the map (or pilgrim/lost box) and in the
    player list, and names no hidden tile; the text fits a terminal and names none either."""
    svg = R.svg(view, NAMES[:n])
    root = ET.fromstring(svg)
    classes = Counter(el.get("class", "") for el in root.iter())
    for s in range(n):
        assert classes[f"nomad seat{s}"] >= 2, (s, view["players"][s]["position"])
    text = R.text(view, NAMES[:n])
    lines = text.split("\n")
    assert len(lines) <= 40 and max(len(line) for line in lines) <= 100, text
    for name in hidden:
        assert name not in svg and name not in text, (name, view.get("you"))
    return svg


def hidden_names(ref: Referee, viewer: int | None) -> set[str]:
    """Names of the yellow tiles the viewer may not know: face down on the board or set aside,
    or held (not yet revealed) by another seat. Each tile exists once, so its name may not
    appear anywhere the viewer reads."""
    st = ref.state
    hs = set(st.yspaces) | set(st.yburned) | set(st.ygone) | {h for h in st.row_yellow if h}
    hs |= {h for s in range(st.n) if s != viewer for h in st.held[s]}
    return {N.TILE_NAMES[D.YELLOW_KEYS[ref.truth[h]]] for h in hs - set(st.used_h)}


def _expected_faces(phase: str, values: list[int], traders: list[int]) -> list[str]:
    """The faces a roll shows, from the component data (independent of the narration)."""
    def animal(v):
        return "blank" if D.ANIMAL_DIE[v] < 0 else D.SPECIES[D.ANIMAL_DIE[v]]

    def land(v):
        return "yellow dot" if D.LAND_DIE[v] < 0 else D.LANDSCAPES[D.LAND_DIE[v]]
    if phase in ("s_ldie", "s_reroll", "r_animal"):
        return [land(values[0])]
    if phase in ("s_lthrow", "r_land"):
        return [animal(values[0]), animal(values[1])]
    if phase in ("s_rthrow", "r_random"):
        return [animal(values[0]), animal(values[1]), land(values[2])]
    if phase in ("roll_catch", "roll_lure"):
        dice = [sp for sp in range(4) for _ in range(traders[sp])]
        return [D.SPECIES[sp] if v < D.TRADER_ANIMAL_FACES else "blank" for sp, v in zip(dice, values)]
    return []


def _play(n: int, seed: int, options: dict | None = None) -> dict:
    ref = Referee(E, n, options=options, seed=seed)
    rng = random.Random(seed)
    pick = random_chooser(rng)
    viewers: list[int | None] = list(range(n)) + [None]
    tables = {v: Table(E, ref.options, n, v, NAMES[:n]) for v in viewers}
    stats = Counter()

    def chooser(seat, legal, r):
        view = r.view(seat)
        ms = N.moves(view, legal, seat)
        assert len(ms) == len(legal)
        for m in ms:
            assert m["text"] and m["group"], m
        wanted = {m["target"] for m in ms} - {None}
        stats["decisions"] += 1
        if wanted and (stats["decisions"] % 5 == 0 or view["phase"] in RARE):
            missing = wanted - _targets(R.svg(view, NAMES[:n]))
            assert not missing, (missing, view["phase"])
            stats["targets"] += len(wanted)
        stats["groups_max"] = max(stats["groups_max"], len({m["group"] for m in ms}))
        return pick(seat, legal, r)

    step_no = 0
    while True:
        st = ref.state
        phase, active = st.phase, st.active
        traders = st.traders[active * 4:(active + 1) * 4]
        held_before = [list(h) for h in st.held]
        ev = ref.step(chooser)
        if ev is None:
            break
        step_no += 1
        said = {}
        for v in viewers:
            info, lines = tables[v].apply(ev, ref.knowledge[v] if v is not None else None)
            assert isinstance(lines, list) and all(isinstance(x, str) and x for x in lines)
            said[v] = " ".join(lines)
            for name in hidden_names(ref, v):
                assert name not in said[v], (name, v, said[v])
        if info["kind"] == "rolled":
            faces = _expected_faces(phase, list(info["values"]), traders)
            for face, k in Counter(faces).items():
                assert said[None].count(face) >= k, (phase, faces, said[None])
            stats["faces"] += len(faces)
            if faces:                # dice: the picture shows the same dice (the state says which)
                what, drawn = R.dice_faces(tables[None].view, NAMES)
                assert drawn == faces, (phase, what, drawn, faces)
                if phase in ("roll_catch", "roll_lure"):
                    assert what.startswith(f"{NAMES[active]}'s trader dice"), what
                stats["dice_drawn"] += 1
        if info["kind"] == "deck_shown":
            owner = info["seat"]
            h = info["handles"][0]
            assert h in held_before[owner] or h in ref.state.held[owner]
            name = N.TILE_NAMES[D.YELLOW_KEYS[ref.truth[h]]]
            assert name in said[owner]
            assert all(name not in said[v] for v in viewers if v != owner)
            stats["shown"] += 1
        if step_no % SAMPLE == 0 or ref.state.phase == "over":
            for v in viewers:
                _check_picture(tables[v].view, n, hidden_names(ref, v))
            stats["pictures"] += 1
    res = E.result(ref.state)
    assert res is not None
    for v in viewers:
        end = said[v]
        assert "Game over" in end
        winners = " and ".join(seat_name(NAMES[:n], w) for w in res["winners"])
        assert winners + (" wins" if len(res["winners"]) == 1 else " share the win") in end
        for s, score in enumerate(res["scores"]):
            assert f"{seat_name(NAMES[:n], s)} {score} dinar" in end
    stats["steps"] = step_no
    return stats


@pytest.mark.parametrize("n, seed, options", [(3, 11, None), (4, 12, None), (5, 13, {"short_blue": True}),
                                              (6, 14, {"yellow_tiles": 2})])
def test_whole_random_games_narrated_and_drawn_for_every_viewer(n, seed, options):
    stats = _play(n, seed, options)
    assert stats["steps"] > 50 and stats["pictures"] >= 2
    assert stats["faces"] > 10 and stats["targets"] > 10
    assert stats["groups_max"] <= 6            # a few kinds of move, each with its options
    assert stats["dice_drawn"] > 0
    assert stats["shown"] > 0                  # a tile was taken: named to its owner only (checked in _play)


def _position_with_tiles(n: int, seed: int) -> Referee:
    ref = Referee(E, n, seed=seed)
    rng = random.Random(seed)
    while ref.step(random_chooser(rng)) is not None:
        st = ref.state
        if sum(1 for s in range(n) if st.held[s]) >= 2 and st.phase == "move":
            return ref
    pytest.skip("no position with two tile holders in this game")


@pytest.mark.parametrize("seed", [1, 2, 4])
def test_hidden_tiles_change_no_picture_text_or_move(seed):
    """Render each view as it is, and with the viewer's knowledge of every other handle altered
    (as if another deal were true): the picture, the text and the moves are identical."""
    ref = _position_with_tiles(4, seed)
    st = ref.state
    for viewer in list(range(4)) + [None]:
        mine = set(st.held[viewer]) if viewer is not None else set()
        know = ref.knowledge[viewer] if viewer is not None else None
        other = None if viewer is None else {
            **{h: (t + 3) % D.N_YELLOW for h, t in ref.truth.items() if h not in mine},
            **{h: know[h] for h in know if h in mine}}
        a, b = E.view(st, viewer, know), E.view(st, viewer, other)
        assert R.svg(a, NAMES) == R.svg(b, NAMES) and R.text(a, NAMES) == R.text(b, NAMES)
        if viewer is not None:
            legal = E.legal_actions(st, viewer, know)
            assert N.moves(a, legal, viewer) == N.moves(b, legal, viewer)
        for name in hidden_names(ref, viewer):
            assert name not in R.svg(a, NAMES) and name not in R.text(a, NAMES)
    # the viewer's own tiles are shown face up to them
    holder = next(s for s in range(4) if st.held[s] and all(h in ref.knowledge[s] for h in st.held[s]))
    own = [N.TILE_NAMES[D.YELLOW_KEYS[ref.truth[h]]] for h in st.held[holder]]
    svg = R.svg(ref.view(holder), NAMES)
    assert all(name in svg for name in own)


def test_first_move_is_grouped_and_fields_are_clickable():
    ref = Referee(E, 4, seed=7)
    while ref.state.phase != "move":
        ref.step(random_chooser(random.Random(0)))
    seat = ref.state.active
    view = ref.view(seat)
    legal = E.legal_actions(ref.state, seat, ref.knowledge[seat])
    ms = N.moves(view, legal, seat)
    groups = [m["group"] for m in ms]
    assert set(groups) == {"Stay", "Leave the city", "Travel with the pilgrim"}   # everyone starts on a city
    ref.step(lambda s, legal, r: ["depart"])
    for _ in range(2):
        ref.step(lambda s, legal, r: next(a for a in legal if a[0] == "hire"))
    ref.step(lambda s, legal, r: ["done"])
    view = ref.view(seat)
    legal = E.legal_actions(ref.state, seat, ref.knowledge[seat])
    ms = N.moves(view, legal, seat)
    assert {m["group"] for m in ms} == {"Move the nomad"}
    assert all(m["target"] == f"field-{a[1]}-{a[2]}" for m, a in zip(ms, legal))
    assert {m["target"] for m in ms} <= _targets(R.svg(view, NAMES))
    here = view["players"][seat]["position"]
    two = [m for m, a in zip(ms, legal) if abs(a[1] - here[0]) + abs(a[2] - here[1]) == 2]
    assert two and all(m["text"].endswith("2 fields, free") for m in two)   # two traders and no animals pay nothing


def test_sale_offers_say_what_the_animals_fetch():
    """Every sell offer's words give the sum the engine then pays (market price, blue tile, Silver Tongue)."""
    checked = 0
    for seed in range(40):
        ref = Referee(E, 3, seed=seed)
        rng = random.Random(seed)
        while checked < 30:
            st = ref.state
            seat = st.active
            if st.phase == "action":
                legal = E.legal_actions(st, seat, ref.knowledge[seat])
                sells = [(a, m) for a, m in zip(legal, N.moves(ref.view(seat), legal, seat)) if a[0] == "sell"]
                if sells:
                    a, m = sells[rng.randrange(len(sells))]
                    money = st.money[seat]
                    ref.step(lambda s, legal, r: a)
                    assert m["text"].endswith(f"for {ref.state.money[seat] - money} dinars"), (m, a)
                    checked += 1
                    continue
            if ref.step(random_chooser(rng)) is None:
                break
        if checked >= 30:
            break
    assert checked >= 30


def test_sale_price_counts_the_blue_tile_and_silver_tongue():
    ref = started(3, seed=4)
    st = ref.state
    seat = st.active
    st.pos[seat] = city_pos(st, 1)
    st.row_blue[1] = D.BLUE_KEYS.index("horse+1")
    give_animals(st, seat, [0, 0, 2, 0])
    h = hand_tile(ref, seat, D.Y_SILVER)
    ref.step(lambda s, legal, r: ["stay"])
    base = E.view(st, seat, ref.knowledge[seat])["market"]["prices"][HORSE]
    ref.step(lambda s, legal, r: ["tile", h, D.Y_SILVER])
    legal = E.legal_actions(st, seat, ref.knowledge[seat])
    ms = N.moves(ref.view(seat), legal, seat)
    offer = next(m for a, m in zip(legal, ms) if a == ["sell", HORSE, 2])
    money = st.money[seat]
    ref.step(lambda s, legal, r: ["sell", HORSE, 2])
    assert st.money[seat] - money == 2 * (base + 2)
    assert offer["text"] == f"2 horses for {2 * (base + 2)} dinars"


class _Narrator:
    """Applies hand-picked events to a state and keeps the spectator's sentences and pictures."""

    def __init__(self, st):
        self.st, self.lines = st, []

    def __call__(self, event) -> str:
        before = E.view(self.st, None, None)
        info = event_dict(event, E.expected(self.st))
        E.apply(self.st, event)
        after = E.view(self.st, None, None)
        said = " ".join(N.narrate(info, before, after, NAMES))
        _check_picture(after, self.st.n, set())
        self.lines.append(said)
        return said


def test_tie_lost_nomads_and_keeping_two_in_words():
    """The rare chances of a refill: a yellow dot with boxes tied for fewest, and the desert
    moving under nomads, who are lost and keep two animals."""
    from tests.games.nomads.util import (BLANK, DONKEY, GOAT, GREEN, GREY, PURPLE, RED, YELLOW_DIE, Act, Rolled,
                                         land_face, put, set_box, set_market)
    ref = started(4, 0)
    st = ref.state
    say = _Narrator(st)
    for s in range(4):
        put(st, s, 2, next(c for c in range(7) if D.CARDS[st.rows[2]][c] == D.DESERT))
    st.active = 0
    for box, counts in ((GREEN, [0, 1, 1, 1]), (RED, [0, 1, 1, 1]), (PURPLE, [0, 1, 1, 1]),
                        (3, [0, 5, 1, 1]), (GREY, [0, 5, 1, 1])):
        set_box(st, box, counts)
    set_market(st, DONKEY, 3)
    say(Act(0, ["stay"]))
    say(Act(0, ["done"]))
    assert "the landscape die shows yellow dot" in say(Rolled((YELLOW_DIE,)))
    assert "Ann (seat 0) chooses" in say.lines[-1]
    assert say(Act(0, ["box", RED])).startswith("Ann (seat 0) chooses the red box")
    assert "1 donkey to the grey box" in say(Rolled((land_face(GREY),)))
    # the random throw moves the desert: everyone on the farthest card is lost
    for s in (2, 3):
        st.pos[s] = 4 * 7 + next(c for c in range(7) if D.CARDS[st.rows[4]][c] != D.MOUNTAIN)
    give_animals(st, 2, [2, 1, 0, 0])
    said = say(Rolled((BLANK, BLANK, land_face(GREEN))))
    assert "1 goat, 1 horse and 1 camel to the green box" in said     # the donkeys ran out
    assert "The desert moves" in said
    assert "Cy (seat 2)'s nomad is lost in the desert" in said and "Dee (seat 3)'s nomad is lost" in said
    assert R.waiting(E.view(st, None, None), NAMES)[0] == 2              # Cy chooses what to keep
    assert say(Act(2, ["keep", DONKEY, GOAT])) == ("Cy (seat 2) keeps a donkey and a goat; "
                                                   "1 donkey goes back to the market.")
    assert "A new card is laid next to the pilgrim" in say(Rolled((0,)))


def test_a_tied_random_throw_with_a_short_market_says_what_comes():
    """Issue 35: a random throw with the yellow dot, boxes tied for fewest and a market short of the
    thrown kind told the full throw ("4 donkeys go to a box ...") although only what the market holds
    can come; the choice of the box then says what went there."""
    from tests.games.nomads.util import DONKEY, GREEN, RED, YELLOW_DIE, Act, Rolled, animal_face, put, set_box, set_market
    ref = started(4, 0)
    st = ref.state
    say = _Narrator(st)
    put(st, 0, 3, 3)
    st.active = 0
    for box in range(5):
        set_box(st, box, [1, 1, 1, 1] if box in (GREEN, RED) else [2, 1, 1, 1])
    set_market(st, DONKEY, 1)
    st.refilled = True                                   # a refill happened: the random throw is due
    say(Act(0, ["stay"]))
    say(Act(0, ["done"]))
    assert st.phase == "r_random"
    said = say(Rolled((animal_face(DONKEY), animal_face(DONKEY), YELLOW_DIE)))
    assert st.phase == "tie"
    assert "1 donkey (all the market has left) goes to a box with the fewest animals" in said, said
    assert "4 donkeys" not in said
    said = say(Act(0, ["box", RED]))
    assert said.startswith("Ann (seat 0) chooses the red box") and "1 donkey to the red box" in said, said
    assert st.boxes[RED * 4 + DONKEY] == 2


def test_abdul_sale_before_moving_ends_the_sale_not_the_turn():
    """Issue 35: "done" closing an Abdul sale before moving was told as "ends the turn"; the turn goes
    on with the move. Its button says so too."""
    from tests.games.nomads.util import Act, put
    ref = started(4, 0)
    st = ref.state
    say = _Narrator(st)
    put(st, 0, 1, 1)
    st.active = 0
    give_animals(st, 0, [0, 0, 2, 0])
    h = hand_tile(ref, 0, D.Y_ABDUL)
    say(Act(0, ["tile", h, D.Y_ABDUL]))
    say(Act(0, ["sell", HORSE, 2]))
    view = E.view(st, 0, ref.knowledge[0])
    done = next(m for a, m in zip(E.legal_actions(st, 0), N.moves(view, E.legal_actions(st, 0), 0)) if a == ["done"])
    assert done["text"] == "End the sale, then move"
    said = say(Act(0, ["done"]))
    assert st.phase == "move" and st.active == 0
    assert "ends the turn" not in said
    assert said == ("Ann (seat 0) ends the sale with Abdul the Trader (2 horses go back to the market) "
                    "and now moves (the turn goes on)."), said


def test_a_nomad_lost_with_lost_turns_one_is_said_to_be_lost():
    """Issue 35: with option lost_turns 1 a nomad on the removed card goes straight to the pilgrim
    (status pilgrim, never lost), and the narration never said it was lost in the desert."""
    from tests.games.nomads.util import BLANK, GREEN, Rolled, land_face, put, set_box
    ref = started(4, 0, {"lost_turns": 1})
    st = ref.state
    say = _Narrator(st)
    for s in range(4):
        put(st, s, 2, next(c for c in range(7) if D.CARDS[st.rows[2]][c] == D.DESERT))
    st.pos[2] = 4 * 7 + next(c for c in range(7) if D.CARDS[st.rows[4]][c] != D.MOUNTAIN)
    for box in range(5):
        set_box(st, box, [1, 1, 1, 1])
    st.active = 0
    st.refilled = True
    from tests.games.nomads.util import Act
    say(Act(0, ["stay"]))
    if st.phase == "action":
        say(Act(0, ["done"]))
    assert st.phase == "r_random"
    said = say(Rolled((BLANK, BLANK, land_face(GREEN))))
    assert st.status[2] == 2                                # PILGRIM: with the pilgrim at once
    assert "Cy (seat 2)'s nomad is lost in the desert" in said and "placed next turn" in said, said


def test_the_end_picture_shows_mecca_placed_and_the_turned_up_tiles():
    """Issue 35: after Mecca is placed the picture still said "(one blue is Mecca: it ends the game)",
    and the held yellow tiles turned up at the end (N.11) were still drawn face down in their owners'
    rows. Seed 2 (3 players) ends with Mecca and seats 0 and 1 holding 1 and 2 tiles."""
    ref = Referee(E, 3, None, seed=2)
    choose = random_chooser(random.Random(2))
    while ref.step(choose) is not None:
        pass
    view = ref.view(None)
    held = [p["tiles_held"] for p in view["players"]]
    assert view["result"] and held == [1, 2, 0]
    names = [N.tile_name(D.YELLOW_KEYS[ref.truth[h]]) for s in range(3) for h in ref.state.held[s]]
    svg = R.svg(view, NAMES[:3])
    assert "one blue is Mecca" not in svg and "Mecca is placed" in svg
    root = ET.fromstring(svg)
    texts = [el.text for el in root.iter() if el.get("class") == "ytxt"]
    assert texts.count("?") == view["yellow_on_board_spaces"] + 1, texts   # the legend's sample back only
    for name in names:
        assert name in texts, (name, texts)


def test_text_shows_six_nomads_sharing_a_city():
    ref = started(6, 2)
    out = R.text(ref.view(None), NAMES)
    row3 = next(line for line in out.split("\n") if line.startswith("row 3"))
    assert "CITY 012345" in row3 and len(row3) <= 100


def test_a_full_markets_stacked_surplus_is_drawn_and_written():
    """AN-X1 (full_market=stack): animals beyond the market's capacity stay on it, stacked on
    the lowest field; the picture and the text both say how many."""
    ref = Referee(E, 3, {**E.default_options(3), "max_turns": 50}, seed=4)
    rng = random.Random(4)
    for _ in range(40):
        ref.step(random_chooser(rng))
    view = E.view(ref.state, 0, ref.knowledge[0])
    assert not any(view["market"]["overflow"])
    plain_svg, plain_text = R.svg(view, NAMES[:3]), R.text(view, NAMES[:3])
    assert "stacked" not in plain_svg and "stacked" not in plain_text
    cap = view["market"]["capacity"]
    view["market"]["animals"][1] = cap + 2
    view["market"]["overflow"][1] = 2
    assert "+2 stacked" in R.svg(view, NAMES[:3])
    line = next(x for x in R.text(view, NAMES[:3]).split("\n") if x.startswith(N.SPECIES[1]))
    assert line.endswith("+2 stacked") and len(line) <= 100


@pytest.mark.parametrize("options", [None, {"short_blue": True, "yellow_tiles": 2}])
def test_the_tiles_waiting_on_the_board_spaces_are_drawn_face_down(options):
    """Issue 24 item 14: each waiting yellow and blue tile is a back on its space, not a count."""
    engine = get("nomads")
    ref = Referee(engine, 4, options, seed=8)
    choose = random_chooser(random.Random(8))
    seen: set = set()
    steps = 0
    while True:
        view = ref.view(0)
        steps += 1
        if (view["yellow_on_board_spaces"], view["blue_tiles_left"]) in seen and steps % 25:
            if ref.step(choose) is None:
                break
            continue                            # draw when the tiles change, and every 25th step
        root = ET.fromstring(R.svg(view, NAMES[:4]))
        classes = Counter(c for el in root.iter() for c in el.attrib.get("class", "").split())
        assert classes["yellow-waiting"] == view["yellow_on_board_spaces"]
        assert classes["blue-waiting"] == view["blue_tiles_left"]
        assert classes["tilespace-empty"] == R.YELLOW_SPACES + R.BLUE_SPACES - (
            view["yellow_on_board_spaces"] + view["blue_tiles_left"])
        seen.add((view["yellow_on_board_spaces"], view["blue_tiles_left"]))
        if ref.step(choose) is None:
            break
    assert len(seen) >= 3                       # tiles left their spaces during the game
