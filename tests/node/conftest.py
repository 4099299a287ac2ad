import random

import trio

from clients.bot import RandomBot
from node.app.game import GameNode
from node.storage.store import GameStore
from protocol import games, wire
from tests.fixture_game import ENGINE
from tests.helpers import make_genesis
from tests.helpers import timeout as scaled

games.register(ENGINE)


def bot_decider(seed: int, delay: float = 0.0):
    bot = RandomBot(seed)

    async def decide(view, legal, kind):
        await trio.sleep(delay)            # stays (CONTRIBUTING): the bot's think time, the pace of play
        return bot.choose(view, legal)
    return decide


class Cluster:
    """n nodes of one game on loopback, each with its own data dir."""

    def __init__(self, tmp_path, n: int, engine=ENGINE, options=None, seed: int = 0, delay: float = 0.0,
                 decider=None, time_limit: int = 0, pace: str = "live", threads: bool = True):
        self.delay = delay
        self.threads = threads      # False on trio's autojump clock (GameNode.in_threads)
        self.decider = decider or (lambda i: bot_decider(i, delay))
        rng = random.Random(seed)
        options = engine.default_options(n) if options is None else options
        self.keys, self.secrets, self.genesis = make_genesis(engine.name, options, n, rng, beacon_length=512,
                                                             time_limit=time_limit, pace=pace)
        self.n = n
        self.dirs = [tmp_path / f"seat{i}" for i in range(n)]
        self.ports: dict[int, tuple[str, int]] = {}
        for i in range(n):
            GameStore.create(self.dirs[i], self.genesis.to_wire(), self.genesis.game_id,
                             {"secret": self.secrets[i], "committed": wire.encode([])}, {})
        self.nodes: list[GameNode | None] = [None] * n

    def make(self, i: int, port: int = 0) -> GameNode:
        store = GameStore(self.dirs[i], self.genesis.game_id)
        node = GameNode(store, self.keys[i], self.decider(i), ("127.0.0.1", port), self.ports)
        node.in_threads = self.threads
        self.nodes[i] = node
        return node

    async def start(self, nursery, i: int, port: int = 0, dial_all: bool = False) -> GameNode:
        node = self.make(i, port)
        bound = await nursery.start(lambda task_status: node.run(task_status=task_status, dial_all=dial_all))
        self.ports[i] = ("127.0.0.1", bound)
        return node

    async def play_to_the_end(self, within: float) -> bytes:
        """Start every node and let them play to the end (at most `within` s, scaled); the
        transcript, which must be the same on every node."""
        with trio.fail_after(scaled(within)):
            async with trio.open_nursery() as nursery:
                for i in range(self.n):
                    await self.start(nursery, i)
        files = {(d / "games" / self.genesis.game_id.hex() / "transcript.caravan").read_bytes() for d in self.dirs}
        assert len(files) == 1, "the nodes' transcripts differ"
        return files.pop()
