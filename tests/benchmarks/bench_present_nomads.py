"""Nomads of Arabia pictures: `svg`, `text` and the narration of one event per call, against
the engine's own `view` of the same position (measured in the same run); target ≤ 20 ms a
picture on one core (issue #12)."""

from __future__ import annotations

import random

from clients.narrate import nomads as N
from clients.render import nomads as R
from protocol.games import get
from protocol.referee import Referee, random_chooser
from tests.benchmarks.common import interleaved

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Flo"]


def _position(n: int, steps: int):
    ref = Referee(get("nomads"), n, seed=n)
    rng = random.Random(n)
    for _ in range(steps):
        if ref.step(random_chooser(rng)) is None:
            break
    return ref


def run() -> list[str]:
    lines = []
    eng = get("nomads")
    for n in (3, 6):
        ref = _position(n, 400)
        view = ref.view(0)
        event = {"kind": "act", "seat": view["active"], "action": ["stay"]}
        t_view, t_svg, t_text, t_say = interleaved([
            lambda: eng.view(ref.state, 0, ref.knowledge[0]), lambda: R.svg(view, NAMES),
            lambda: R.text(view, NAMES), lambda: N.narrate(event, view, view, NAMES)], n=50, rounds=7)
        lines.append(f"{n} players: svg {t_svg * 1e3:.2f} ms ({t_svg / t_view:.0f}x view, target ≤ 20 ms), "
                     f"text {t_text * 1e3:.2f} ms ({t_text / t_view:.0f}x view), "
                     f"narrate {t_say * 1e6:.0f} µs, view {t_view * 1e6:.0f} µs")
    return lines
