"""Sa-Rê over real nodes: the Temple's private draws and face-down returns."""

from protocol import games
from protocol.verify import verify_bytes
from tests.node.conftest import Cluster


async def test_sare_temple_over_the_node(tmp_path):
    """Bots that build the Temple first: private draws of two, face-down returns and the kept
    card's reveal all run over the network, and the transcript verifies."""
    from clients.bots.sare import HeuristicBot
    from node.app.client_api import BotDecider
    from protocol import chain, transcript

    class TempleFirst(HeuristicBot):
        plan = {k: ["temple"] + [b for b in v if b != "temple"] for k, v in HeuristicBot.plan.items()}

    c = Cluster(tmp_path, 3, engine=games.get("sare"), seed=1, decider=lambda i: BotDecider(TempleFirst(i)))
    file = await c.play_to_the_end(300)
    report = verify_bytes(file)
    assert report.ok, report.error
    kinds = [chain.parse(m).kind for m in transcript.load(file)[1]]
    assert kinds.count("return") >= 1, "the Temple was never used"
    assert report.hidden_cards, "published deck keys let the verifier decode the cards that stayed hidden"
