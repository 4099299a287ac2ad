"""The heuristic bot: always legal, beats random bots, flees the desert edge, sells in cities."""

from __future__ import annotations

from clients import narrate
from clients.bot import RandomBot, make_bot
from clients.bots.nomads import HeuristicBot
from clients.simulate import simulate

from .util import C0, C1, D0, D1, D2, E, act, give_animals, put, set_layout, started


def test_make_bot_finds_the_heuristic_bot():
    assert isinstance(make_bot("heuristic", "nomads", 1), HeuristicBot)
    assert isinstance(make_bot("random", "nomads", 1), RandomBot)


def test_heuristic_beats_random_bots():
    stats = simulate("nomads", 4, 40, ["heuristic", "random", "random", "random"], seed=3)
    assert stats.wins["heuristic#0"] / stats.games >= 0.6


def test_heuristic_leaves_the_edge_and_sells():
    ref = started(4, 1)
    st = ref.state
    set_layout(st, [D0, C0, D1, C1, D2])
    bot = HeuristicBot(0)
    put(st, 0, 4, 3)                       # on the card the desert removes next
    st.active = 0
    a = bot.choose(E.view(st, 0, {}), E.legal_actions(st, 0, {}))
    assert a[0] == "move" and a[1] < 4
    put(st, 0, 3, 3)                       # in a city with animals: stays and sells them all
    give_animals(st, 0, [0, 0, 2, 1])
    a = bot.choose(E.view(st, 0, {}), E.legal_actions(st, 0, {}))
    assert a == ["stay"]
    act(st, 0, "stay")
    a = bot.choose(E.view(st, 0, {}), E.legal_actions(st, 0, {}))
    assert a[0] == "sell" and a[2] == st.animals[a[1]]


def test_every_action_kind_has_words():
    ref = started(4, 2)
    view = E.view(ref.state, 0, {})
    for a in (["move", 1, 2], ["place", 0, 0], ["goto", 2, 2], ["hire", 3], ["sell", 2, 2], ["keep", 0, 1],
              ["take", 0, 2], ["box", 4], ["tile", 5, 6], ["stay"], ["depart"], ["pilgrim"],
              ["catch"], ["lure"], ["walk"], ["done"], ["pass"]):
        text = narrate.words("nomads", view, a, 0)
        assert isinstance(text, str) and text and not text.startswith("[")
    assert narrate.words("nomads", view, ["tile", 5, 6], 0) == "Play Sands of Time"
    assert narrate.words("nomads", view, ["sell", 2, 2], 0).startswith("2 horses for ")
