"""Sa-Rê pictures: time of `svg` and `text` per view (target ≤ 20 ms on one core, since the web
page re-renders on every event) and of one move list in words, each as a ratio to the time of
the engine's own `view` of the same position, measured interleaved in the same run."""

from __future__ import annotations

from clients.bot import chooser_for, make_bot
from clients.narrate import sare as narrate
from clients.render import sare as render
from protocol.games.sare import ENGINE
from protocol.referee import Referee
from tests.benchmarks.common import interleaved

NAMES = ["Ann", "Bob", "Cy", "Dee"]


def _late_position(n: int) -> Referee:
    """A position late in a heuristic game: full sites, gauges, cards in piles."""
    ref = Referee(ENGINE, n, {"scenario": "pharaoh", "architect": False, "turn_limit": 30}, seed=n)
    choose = chooser_for([make_bot("heuristic", "sare", seed=s) for s in range(n)])
    for _ in range(300 * n):
        if ref.step(choose) is None:
            break
    return ref


def run() -> list[str]:
    lines = []
    for n in (2, 4):
        ref = _late_position(n)
        view = ref.view(0)
        legal = ENGINE.legal_actions(ref.state, 0, ref.knowledge[0]) or [["done"]]
        t_view, t_svg, t_text, t_moves = interleaved([
            lambda: ENGINE.view(ref.state, 0, ref.knowledge[0]),
            lambda: render.svg(view, NAMES[:n]),
            lambda: render.text(view, NAMES[:n]),
            lambda: narrate.moves(view, legal, 0)], n=20, rounds=10)
        lines.append(f"{n} players: view {t_view * 1e3:.2f} ms; svg {t_svg * 1e3:.2f} ms "
                     f"({t_svg / t_view:.0f}× view; target ≤ 20 ms); text {t_text * 1e3:.2f} ms "
                     f"({t_text / t_view:.1f}× view); moves in words ({len(legal)}) {t_moves * 1e3:.3f} ms")
    return lines
