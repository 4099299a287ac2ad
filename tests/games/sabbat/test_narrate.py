"""Sabbat Magica narration, moves and pictures over whole random games, for every seat and a
spectator: pictures parse and show every seat's pieces, every clickable move has its place in
the picture, sentences tell the draws and the end, and no sealed POWER card ever shows to a
viewer who may not know it."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from clients.narrate import Table
from clients.narrate import sabbat as N
from clients.render import sabbat as R
from protocol import engine as E
from protocol.games.sabbat import ENGINE
from protocol.games.sabbat import data as D
from protocol.referee import Referee, random_chooser

NAMES = ["Ann", "Bob", "Cy", "Di"]
SAMPLE = 9          # render the pictures at every SAMPLE-th step (and at the end)


def _svg_facts(doc: str) -> tuple[set[str], set[str]]:
    """(the data-target ids, the class names) of a picture; parsing fails on bad XML."""
    root = ET.fromstring(doc)
    targets, classes = set(), set()
    for el in root.iter():
        if "data-target" in el.attrib:
            targets.add(el.attrib["data-target"])
        classes.update(el.attrib.get("class", "").split())
    return targets, classes


def hidden_titles(ref: Referee, viewer: int | None) -> list[str]:
    """The titles of the POWER cards `viewer` may not know now (other seats', still sealed)."""
    st = ref.state
    if not st.powers or st.stage == "setup":
        return []
    return [D.POWER_TITLES[ref.truth[st.phandle[o]]] for o in range(st.n)
            if o != viewer and st.pcard[o] is None and st.phandle[o] in ref.truth]


def _check_pictures(ref: Referee, viewer: int | None, view: dict, names: list[str]) -> None:
    doc = R.svg(view, names)
    targets, classes = _svg_facts(doc)
    for s in range(ref.players):
        assert f"seat{s}" in classes, f"seat {s} has no pieces in the picture"
    txt = R.text(view, names)
    lines = txt.splitlines()
    assert len(lines) <= 40 and max(len(x) for x in lines) <= 100
    for title in hidden_titles(ref, viewer):
        assert title not in doc and title not in txt, f"{title} shown to viewer {viewer}"
    for m in _check_moves(ref, viewer, view):
        assert m["target"] is None or m["target"] in targets, f"{m} has no place in the picture"


def _check_moves(ref: Referee, viewer: int | None, view: dict) -> list[dict]:
    """The viewer's moves in words when it has a decision now (one per legal action)."""
    step = ENGINE.expected(ref.state)
    deciding = (step.seat,) if isinstance(step, E.Decide) else getattr(step, "seats", ())
    if viewer is None or viewer not in deciding:
        return []
    legal = ref.legal(viewer)
    ms = N.moves(view, legal, viewer)
    assert len(ms) == len(legal)
    for m in ms:
        assert isinstance(m["text"], str) and m["text"] and isinstance(m["group"], str) and m["group"]
    return ms


def play(n: int, seed: int, options: dict) -> dict:
    """One random game with a Table per seat and one for a spectator; checks as it goes and
    returns what the end needs."""
    ref = Referee(ENGINE, n, options, seed=seed)
    names = NAMES[:n]
    viewers: list[int | None] = [*range(n), None]
    tables = {v: Table(ENGINE, options, n, v, names) for v in viewers}
    rng = random.Random(seed)
    chooser = random_chooser(rng)
    last: dict = {}
    owner_told = set()
    steps = 0
    while True:
        stage = ref.state.stage
        event = ref.step(chooser)
        if event is None:
            break
        steps += 1
        assert steps < 5000
        for v in viewers:
            info, sentences = tables[v].apply(event, ref.knowledge[v] if v is not None else None)
            said = " ".join(sentences)
            assert sentences and all(isinstance(x, str) and x for x in sentences)
            for title in hidden_titles(ref, v):
                assert title not in said, f"{title} told to viewer {v}: {said}"
            if info["kind"] == "rolled":
                if stage == "setup":      # the draw's faces: play order, tiles, gates
                    assert ", ".join(f"{nm} (seat {s})" for nm, s in
                                     ((names[s], s) for s in ref.state.order)) in said
                    assert N.gate_word(D.GATE_NAMES[ref.state.aside[0]]) in said
                else:                     # the time card drawn
                    assert D.TIME_NAMES[ref.state.time_card] in said
            if info["kind"] == "committed" and v is not None:
                mine = D.POWER_TITLES[ref.truth[ref.state.phandle[v]]]
                assert mine in said
                owner_told.add(v)
            if info["kind"] == "choices":
                for s, k in zip(info["seats"], info["values"]):
                    assert f"{names[s]} (seat {s}) {k}" in said
            last[v] = sentences
        for v in viewers:
            if steps % SAMPLE == 0:
                _check_pictures(ref, v, tables[v].view, names)
            else:
                _check_moves(ref, v, tables[v].view)
    for v in viewers:
        assert tables[v].view == ref.view(v)
        _check_pictures(ref, v, tables[v].view, names)
    if options.get("powers"):
        assert owner_told == set(range(n))
    return {"result": ENGINE.result(ref.state), "last": last, "names": names}


@pytest.mark.parametrize("n,seed,options", [
    (2, 1, {"powers": True, "peoples": [0, 1], "leftovers": "keep"}),
    (2, 2, {"powers": False, "peoples": [2, 3], "leftovers": "discard"}),
    (3, 3, {"powers": True, "peoples": [3, 1, 2], "leftovers": "keep"}),
    (3, 4, {"powers": False, "peoples": [0, 1, 2], "leftovers": "keep"}),
    (4, 5, {"powers": True, "peoples": [0, 1, 2, 3], "leftovers": "discard"}),
    (4, 6, {"powers": True, "peoples": [3, 2, 1, 0], "leftovers": "keep"}),
])
def test_whole_random_games(n, seed, options):
    out = play(n, seed, options)
    res = out["result"]
    for v, sentences in out["last"].items():
        said = " ".join(sentences)
        assert "Game over" in said
        for s in range(n):
            assert f"{out['names'][s]} (seat {s}) {res['scores'][s]}" in said
        winners = said[said.index("inner" if len(res["winners"]) == 1 else "victory"):]
        for s in res["winners"]:
            assert f"{out['names'][s]} (seat {s})" in winners


def _spectator_after_commit(card_for_seat0: int) -> tuple[str, str, list[str], str]:
    """Play to the first invocation with seat 0 sealing the given card; what seat 1 and a
    spectator see then."""
    options = {"powers": True, "peoples": [0, 1, 2], "leftovers": "keep"}
    ref = Referee(ENGINE, 3, options, seed=11)
    rng = random.Random(11)

    def chooser(seat, legal, r):
        if r.state.stage == "commit" and seat == 0:
            return legal[card_for_seat0]
        return legal[rng.randrange(len(legal))]

    spectator = Table(ENGINE, options, 3, None, NAMES[:3])
    other = Table(ENGINE, options, 3, 1, NAMES[:3])
    said: list[str] = []
    while ref.state.stage != "invoke":
        ev = ref.step(chooser)
        said += spectator.apply(ev)[1] + other.apply(ev, ref.knowledge[1])[1]
    return (R.svg(spectator.view, NAMES[:3]) + R.svg(other.view, NAMES[:3]),
            R.text(spectator.view, NAMES[:3]) + R.text(other.view, NAMES[:3]), said,
            R.svg(ref.view(0), NAMES[:3]))


def test_a_sealed_card_changes_nothing_another_viewer_sees():
    a, b = _spectator_after_commit(0), _spectator_after_commit(1)
    assert a[:3] == b[:3]
    # while its owner's own picture shows it
    assert D.POWER_TITLES[D.PEOPLE_POWERS[0][0]] in a[3] and D.POWER_TITLES[D.PEOPLE_POWERS[0][1]] in b[3]


def test_moves_are_grouped_and_clickable_at_the_first_decisions():
    ref = Referee(ENGINE, 4, None, seed=3)
    chooser = random_chooser(random.Random(3))
    while ref.state.stage != "turn":
        ref.step(chooser)
    seat = ref.state.actor
    view = ref.view(seat)
    ms = N.moves(view, ref.legal(seat), seat)
    groups = {m["group"] for m in ms}
    assert {"Pass", "Place magician"} <= groups
    assert len(groups) <= 6 < len(ms)       # a few kinds, then the options
    squares = [m for m in ms if m["group"] == "Place magician"]
    assert len(squares) == 16 - sum(p["magician"] >= 0 for p in view["players"])
    assert all(m["target"].startswith("square-") for m in squares)
    # a tile's words, not engine ids
    assert all("_" not in m["text"] for m in ms)


def test_a_fight_is_told_with_its_winner_and_cost():
    from tests.games.sabbat import util as U
    st, _ = U.at_actions(3, invoke=[3, 3, 3])
    U.place(st, U.REG["turgapel"], [1])
    U.set_turn(st, 0)
    st.h1[0] = [1, 1, 1, 1]
    before = ENGINE.view(st, None)
    fight = [a for a in ENGINE.legal_actions(st, 0) if isinstance(a, list) and a[0] == "move"
             and a[3] == U.REG["turgapel"] and a[4] == "fight"]
    assert fight
    ENGINE.apply(st, E.Act(0, fight[0]))
    while st.sub == "pay":
        ENGINE.apply(st, E.Act(0, ENGINE.legal_actions(st, 0)[0]))
    after = ENGINE.view(st, None)
    said = " ".join(N.narrate({"kind": "act", "seat": 0, "action": fight[0]}, before, after, NAMES[:3]))
    assert "Turgapel" in said and "wins the fight against Bob (seat 1)" in said
    assert "+2 VP" in said and "terror" in said


def test_odd_player_names_are_escaped_and_cut():
    ref = Referee(ENGINE, 4, {"powers": True, "peoples": [0, 1, 2, 3], "leftovers": "keep"}, seed=4)
    chooser = random_chooser(random.Random(4))
    while ref.step(chooser) is not None:
        pass
    for names in ([], ['<b>"&amp;</b>', "x" * 150, "Cy", "Di"]):
        for v in (None, 0):
            view = ref.view(v)
            root = ET.fromstring(R.svg(view, names))          # parses: markup in a name is escaped
            assert not [el for el in root.iter() if el.tag.endswith("}b")]
            lines = R.text(view, names).splitlines()
            assert len(lines) <= 40 and max(map(len, lines)) <= 100
            assert "Final scores" in lines[-1]


# ------------------------------------------------------------------ issue 24: faithful words
def _said(st, seat: int, action, knowledge=None) -> str:
    """Apply one legal action and return its sentences for a spectator."""
    before = ENGINE.view(st, None)
    assert action in ENGINE.legal_actions(st, seat, knowledge), action
    ENGINE.apply(st, E.Act(seat, action))
    return " ".join(N.narrate({"kind": "act", "seat": seat, "action": action}, before,
                              ENGINE.view(st, None), NAMES[:st.n]))


def test_a_fight_that_pushes_out_the_attackers_own_ghost_tells_its_full_cost():
    from tests.games.sabbat import util as U
    st, _ = U.at_actions(2, invoke=[3, 3])
    T = U.REG["turgapel"]
    U.place(st, T, [1, 0])                           # Bob first, Ann last:, Ann's ghost last: the one pushed out
    U.place(st, U.REG["grisa"], [0])
    U.set_turn(st, 0)
    st.order = [1, 0]                                # Bob ahead of Ann: beating him costs 2
    st.terror[0] = 6
    said = _said(st, 0, ["move", U.REG["grisa"], 0, T, "fight"])
    assert st.terror[0] == 5 and st.grave[0] == 2 + 1      # −2 for the fight, +1 compensation
    assert "wins the fight against Bob (seat 1): −2 terror (now 4)" in said
    assert "Ann (seat 0)'s own ghost is pushed out of Turgapel to the graveyard: +1 terror (now 5)" in said


def test_a_displaced_immortal_minion_is_not_sent_to_the_graveyard_before_its_owner_decides():
    from tests.games.sabbat import util as U
    st, k = U.at_actions(2, invoke=[3, 3], peoples=[0, 1], powers=[D.BOOSTER, D.IMMORTALITY])
    T = U.REG["turgapel"]
    U.place(st, T, [1, 1])
    U.place(st, U.REG["grisa"], [0])
    U.set_turn(st, 0)
    said = _said(st, 0, ["move", U.REG["grisa"], 0, T, "fight"])
    assert st.sub == "immortal" and st.actor == 1
    assert "to the graveyard" not in said and "Bob (seat 1)'s minion is pushed out of Turgapel" in said
    where = next(a for a in ENGINE.legal_actions(st, 1, k[1]) if a[0] == "power")
    said = _said(st, 1, where, k[1])
    assert f"reappears in {D.LOC_NAMES[where[2]]}" in said and "to the graveyard" not in said


def test_a_doppelganger_reuse_names_the_effect_used_again():
    from tests.games.sabbat import util as U
    st, k = U.at_actions(2, invoke=[3, 3], peoples=[2, 1], powers=[D.DOPPELGANGER, D.BATS])
    U.set_turn(st, 0)
    st.mag[0] = 5
    square = next(a for a in ENGINE.legal_actions(st, 0) if a[0] == "magician"
                  and D.TILE_KIND[st.tiles[a[1]]] == D.STANDARD)
    U.act(st, 0, square)
    U.act(st, 0, ["tile"])
    said = _said(st, 0, ["power", D.DOPPELGANGER], k[0])
    assert "tile effect step" not in said
    assert f"may use the {N.tile_word(D.TILE_NAMES[st.tiles[square[1]]])} again" in said


def test_the_terminal_labels_each_event_with_the_round_it_happened_in():
    """node/app/runner.py: the last action of a round and its stewardship are round r's, not r+1's."""
    from types import SimpleNamespace

    from node.app import output, runner

    lines: list[str] = []

    class Recorder(output.Status):
        def __call__(self, text: str, kind: str = "status", **fields) -> None:
            lines.append(text)

    status = Recorder()
    ref = Referee(ENGINE, 2, None, seed=7)
    narrator = runner.Narrator(ENGINE, SimpleNamespace(seats=[0, 1], options=ref.options), 0, NAMES[:2],
                               status, None, lambda: ref.knowledge[0])
    session = SimpleNamespace(waiting_for=lambda: [], need=None, state=ref.state)
    chooser = random_chooser(random.Random(7))
    told = []
    while True:
        rnd = ref.state.rnd
        del lines[:]
        event = ref.step(chooser)
        if event is None:
            break
        narrator(event, session)
        told += [(rnd, line) for line in lines]
    stewardship = [(rnd, line) for rnd, line in told if "Stewardship" in line]
    assert len(stewardship) >= D.ROUNDS - 1
    for rnd, line in told:
        assert line.startswith(f"round {rnd}: "), line


def _last_round_view(seed: int = 2) -> dict:
    ref = Referee(ENGINE, 3, {"powers": False, "peoples": [2, 1, 0], "leftovers": "keep"}, seed=seed)
    chooser = random_chooser(random.Random(seed))
    while not (ref.state.rnd == D.ROUNDS and ref.state.stage == "turn"):
        ref.step(chooser)
    ref.state.curse[0] = 1
    return ref.view(None)


def test_the_last_round_shows_an_empty_time_pile_and_a_curse_that_costs_nothing():
    view = _last_round_view()
    doc = R.svg(view, NAMES[:3])
    assert "0 cards in the pile" in doc
    assert "−5 VP next round" not in doc and "curse: yes (no next round: no VP lost)" in doc
    first = R.svg(Referee(ENGINE, 3, None, seed=1).view(None), NAMES[:3])
    assert f"{D.ROUNDS - 1} cards in the pile" in first       # round 1: the 5 cards of rounds 2-6


def test_pieces_show_each_peoples_printed_colour_besides_the_seat_colour():
    view = _last_round_view()
    root = ET.fromstring(R.svg(view, NAMES[:3]))
    printed = {p["name"]: p["colour"] for p in D.PEOPLES}
    for s, p in enumerate(view["players"]):
        pieces = [el for el in root.iter() if f"seat{s}" in el.attrib.get("class", "").split()
                  and {"ghost", "magician"} & set(el.attrib["class"].split())]
        assert pieces
        for el in pieces:
            assert f"people-{printed[p['people']]}" in el.attrib["class"]
            assert el.attrib["stroke"] == R.PEOPLE_COLOURS[printed[p["people"]]]
    doc = R.svg(view, NAMES[:3])
    assert "Sanagal (yellow)" in doc and R.PEOPLE_COLOURS["yellow"] in doc
