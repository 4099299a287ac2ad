"""A malicious broker, or anyone publishing on its topics: forged frames, genuine frames
replayed onto other links, frames from another scope (the lobby) and bogus opens, published
straight onto a running game's topics. Every one is refused (and logged); the game finishes
and its transcript verifies."""

import os
import struct

from node.net.relay_link import PRESEAL
from tests.games.pick import quick
from tests.relay.nodes import Outsider, RelayedGame, assert_all_verify, refusals


def test_forged_replayed_and_cross_scope_frames_are_refused(tmp_path, broker):
    outsider = Outsider(broker.url)
    game, options = quick(3)
    g = RelayedGame(tmp_path, broker.url, game, 3, options, bot_delay=0.03)
    try:
        game_id = g.wait_started()
        g.wait_events(g.host, 5)
        scope = game_id[:32]
        lobby = [(t, p) for t, p in list(outsider.seen) if t.split("/")[2] == g.lobby["lobby"]]
        injected = 0
        for _ in range(3):
            links = {}
            for t, p in list(outsider.seen):
                if t.count("/") == 5 and t.split("/")[2] == scope:
                    seq = struct.unpack_from(">Q", p)[0]
                    if not seq & PRESEAL:                        # a sealed frame
                        links[t] = max(links.get(t, 0), seq)
            assert len(links) >= 6, links                     # 3 links, both ways
            genuine = [p for t, p in outsider.seen if t.split("/")[2] == scope][-50:]
            for topic, seq in links.items():
                for ahead in (1, 2, 3, 40):
                    outsider.publish(topic, struct.pack(">Q", seq + ahead) + os.urandom(60))       # forged
                    body = genuine[(seq + ahead) % len(genuine)][8:]
                    outsider.publish(topic, struct.pack(">Q", seq + ahead) + body)                 # replayed elsewhere
                    body = lobby[(seq + ahead) % len(lobby)][1][8:]
                    outsider.publish(topic, struct.pack(">Q", seq + ahead) + body)                 # from the lobby
                    injected += 3
                outsider.publish(topic, struct.pack(">Q", 0) + b"O")                               # a bogus open
            g.wait_events(g.host, 3)             # the game moves on: the next round aims at newer frames
        assert g.finish(timeout=120) == [0, 0, 0], [g.log(i)[-800:] for i in range(3)]
    finally:
        g.kill()
        outsider.close()
    assert_all_verify(g, game_id)
    refused = sum(refusals(g.log(i)) for i in range(3))
    assert refused >= 20, (refused, injected)
