"""Sabbat Magica pictures: svg() and text() per view against the 20 ms target, as ratios to
the engine's own view() measured in the same run (issue #12, "Render time per view")."""

from __future__ import annotations

import random

from clients.render import sabbat as R
from protocol.games.sabbat import ENGINE
from protocol.referee import Referee, random_chooser
from tests.benchmarks.common import interleaved

TARGET_MS = 20.0


def _late_view(players: int) -> tuple[object, dict, dict]:
    """A POWER game some 250 steps in, with its state and the view of seat 1."""
    ref = Referee(ENGINE, players, {"powers": True, "peoples": list(range(players)), "leftovers": "keep"}, seed=9)
    chooser = random_chooser(random.Random(9))
    for _ in range(250):
        if ref.step(chooser) is None:
            break
    return ref.state, ref.knowledge[1], ref.view(1)


def run() -> list[str]:
    lines = []
    names = ["Ann", "Bob", "Cy", "Di"]
    for n in (2, 4):
        st, know, view = _late_view(n)
        t_view, t_svg, t_text = interleaved([lambda: ENGINE.view(st, 1, know), lambda: R.svg(view, names[:n]),
                                             lambda: R.text(view, names[:n])], n=20, rounds=10)
        lines.append(f"{n} players: svg {t_svg * 1000:.2f} ms/view ({t_svg / t_view:.0f}× view(), "
                     f"target {TARGET_MS:.0f} ms), text {t_text * 1000:.2f} ms ({t_text / t_view:.0f}× view())")
    return lines
