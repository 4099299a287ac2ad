"""Views: only the public state plus the seat's own secrets; JSON-able."""

from __future__ import annotations

import json
import random

from protocol import engine as E
from protocol.games.sare import ENGINE
from protocol.referee import Referee

from .util import Deck, act, add_built, deck_order, double_with, finish_p1, fresh, start_season


def _cards_in(view):
    """Every (handle, card) pair the view resolves."""
    out = []

    def walk(x):
        if isinstance(x, dict):
            if "handle" in x and "card" in x:
                out.append((x["handle"], x["card"]["id"]))
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(view)
    return out


def _check_every_view(ref, n):
    for seat in range(n):
        v = ref.view(seat)
        json.dumps(v)
        for h, c in _cards_in(v):
            assert ref.knowledge[seat].get(h) == c
        # a face-down card of another seat is never resolved
        for other in range(n):
            if other != seat:
                st = ref.state
                for h in st.kept[other] + (st.temple_hand if st.temple_owner == other else []):
                    assert all(hh != h for hh, _ in _cards_in(v))
    spect = ENGINE.view(ref.state, None, None)
    assert _cards_in(spect) == []


def test_views_never_leak_in_random_games():
    """Every seat owns a Temple from the first season (placed after the setup placement, which would
    otherwise replace it), so Temple draws, oracle peeks and face-down returns happen at every seat;
    every seat's view is checked right after each of those private steps and on a sample of others."""
    rng = random.Random(7)
    checked = 0
    private: dict[tuple[str, int], int] = {}
    for g in range(60):
        n = 2 + g % 3
        ref = Referee(ENGINE, n, {"scenario": "priest", "architect": False, "turn_limit": 6}, seed=g)
        ENGINE.apply(ref.state, E.Rolled((tuple(range(n)),)))
        for p in range(n):
            ENGINE.apply(ref.state, E.Act(p, ["place", 5, 6]))
        for p in range(n):
            add_built(ref.state, p, "temple", 0)
            add_built(ref.state, p, "palace", 1)
        while True:
            step = ENGINE.expected(ref.state)
            kind = {E.DeckShow: "show", E.DeckReturn: "return"}.get(type(step))
            if kind:
                key = ("oracle" if ref.state.stage == "oracle_show" else kind, step.seat)
                private[key] = private.get(key, 0) + 1
            if ref.step(lambda s, legal, r: legal[rng.randrange(len(legal))]) is None:
                break
            if kind or rng.random() < 0.2:
                _check_every_view(ref, n)
                checked += 1
    assert checked > 100
    for seat in range(4):                                # every seat drew, peeked and returned
        assert private.get(("show", seat)) and private.get(("oracle", seat)) and private.get(("return", seat))


def test_temple_kept_card_visible_only_to_owner():
    st = fresh(2)
    add_built(st, 0, "temple", 0)
    finish_p1(st)
    deck = Deck()
    start_season(st, deck, deck_order("G", "W"), double=double_with(True))
    act(st, 0, ["temple"])
    hand = list(ENGINE.expected(st).handles)
    ENGINE.apply(st, E.DeckShown(0, tuple(hand)))
    k0 = {h: deck.truth[h] for h in hand}
    v0 = ENGINE.view(st, 0, k0)
    assert sorted(c for _, c in _cards_in(v0)) == sorted(k0.values())
    v1 = ENGINE.view(st, 1, {})
    assert _cards_in(v1) == [] and [x["handle"] for x in v1["temple_hand"]] == hand
    act(st, 0, ["return", "top"])
    new = deck.handles(2)
    ENGINE.apply(st, E.DeckReturned(0, "season", "top", new[0], (new[1],)))
    k0 = {new[0]: deck.truth[hand[1]], new[1]: deck.truth[hand[0]]}
    v0 = ENGINE.view(st, 0, k0)
    assert v0["players"][0]["temple_kept"][0]["card"]["kind"] == "G"
    assert v0["shoe"][0]["card"]["kind"] == "W"                      # the owner knows the top card
    # even if seat 1's knowledge map were (wrongly) given the handle, a foreign kept card stays hidden
    v1 = ENGINE.view(st, 1, {new[1]: deck.truth[hand[0]]})
    assert "card" not in v1["players"][0]["temple_kept"][0]
    assert ENGINE.view(st, 1, {})["players"][0]["temple_kept"] == [{"handle": new[1]}]
