"""Issue #14's broker faults, with a real Mosquitto behind tests/relay/mqtt_proxy.py:
- a broker that drops, duplicates and delays messages: the game finishes (or ends with an
  abandon record) and every transcript verifies;
- a malicious broker that injects forged, replayed and cross-game messages: every injected
  message is refused, and the game is unaffected (it finishes, all nodes hold one transcript).
Every node is a real `caravan` process; every wait is bounded."""

from __future__ import annotations

import pytest

from node.storage.store import parse_log
from protocol import chain
from tests.games.pick import cli_options, quick, short_game, some_game
from tests.relay.broker import Broker
from tests.relay.mqtt_proxy import Faults, MqttProxy
from tests.relay.nodes import RelayedGame, assert_all_verify, refusals, verify

_QUICK, _OPTIONS = quick(3)
GAME = (_QUICK, 3, _OPTIONS)
DECK_GAME = some_game("deck", players=3)
"""A game whose deck shares a turn-based table seals to one seat's postbox."""


def _play(tmp_path, proxy: MqttProxy, timeout: float = 150) -> tuple[RelayedGame, str, list[int]]:
    """A game through the proxy, its faults armed once every node has started the game."""
    game, players, options = GAME
    g = RelayedGame(tmp_path, proxy.url, game, players, options, host_args=["--time-limit", "20"])
    try:
        game_id = g.wait_started(timeout=60)
        proxy.armed.set()
        codes = g.finish(timeout=timeout)
    finally:
        g.kill()
    return g, game_id, codes


def test_a_lossy_broker_game_finishes_or_is_abandoned_and_verifies(tmp_path, broker):
    faults = Faults(drop=0.01, duplicate=0.05, delay=0.05, delay_s=(0.05, 0.3))
    with MqttProxy(("127.0.0.1", broker.port), faults, seed=11, armed=False) as proxy:
        g, game_id, codes = _play(tmp_path, proxy)
        c = proxy.counters
    assert c.dropped and c.duplicated and c.delayed, c
    logs = [g.log(i) for i in range(GAME[1])]
    assert all("Traceback" not in log for log in logs), logs
    if codes == [0] * GAME[1]:
        assert_all_verify(g, game_id)
        return
    # an abandon record is the only other acceptable end: valid, not complete, naming a seat
    files = [f for f in g.transcripts(game_id) if f.exists()]
    assert files, (codes, [log[-800:] for log in logs])
    report = verify(files[0])
    assert report["valid"] and report.get("abandoned_by"), report


def test_a_malicious_broker_changes_nothing(tmp_path, broker):
    faults = Faults(replay=0.08, forge=0.08, foreign=0.08)
    with MqttProxy(("127.0.0.1", broker.port), faults, seed=12, armed=False) as proxy:
        g, game_id, codes = _play(tmp_path, proxy)
        kinds = dict(proxy.counters.kinds)
    assert kinds.get("replay") and kinds.get("forge") and kinds.get("foreign"), kinds
    logs = [g.log(i) for i in range(GAME[1])]
    assert codes == [0] * GAME[1], [log[-800:] for log in logs]
    assert_all_verify(g, game_id)
    assert all("Traceback" not in log for log in logs)
    refused = sum(refusals(log) for log in logs)
    assert refused >= 1, "no node said it refused an injected frame"


def test_a_turn_based_table_through_a_broker_that_repeats_and_reorders_signs_nothing_contradictory(tmp_path):
    """Issue 33's bad input: a turn-based table's postboxes through a broker that duplicates,
    delays and replays (an old envelope again, later: out of order) what it delivers, and
    whose connections all break mid-game, so that what was sent meanwhile waits in the seats'
    sessions and comes in a burst. Every node drops the copies: the game finishes with one
    transcript, and no seat ever signed two different messages at one place of its chain."""
    broker = Broker(tmp_path, persistent=True).start()
    faults = Faults(duplicate=0.1, delay=0.05, delay_s=(0.05, 0.2), replay=0.1)
    try:
        with MqttProxy((broker.host, broker.port), faults, seed=13, armed=False) as proxy:
            g = RelayedGame(tmp_path, proxy.url, DECK_GAME, 3, cli_options(short_game(DECK_GAME)[1]),
                            host_args=["--pace", "turn-based", "--move-time", "1h"])
            try:
                game_id = g.wait_started(timeout=60)
                proxy.armed.set()
                g.wait_events(g.host, 20)
                proxy.cut()
                codes = g.finish(timeout=240)
            finally:
                g.kill()
            c = proxy.counters
    finally:
        broker.stop()
    assert c.duplicated and c.kinds.get("replay"), c
    logs = [g.log(i) for i in range(3)]
    assert codes == [0, 0, 0], [log[-800:] for log in logs]
    assert_all_verify(g, game_id)
    assert all("Traceback" not in log for log in logs)
    signed: dict[tuple[bytes, int], bytes] = {}
    for folder in g.dirs:
        for raw in parse_log((folder / "games" / game_id / "messages.log").read_bytes())[0]:
            msg = chain.parse(raw)
            assert signed.setdefault((msg.author, msg.seq), raw) == raw, f"two messages at {msg.seq}"
