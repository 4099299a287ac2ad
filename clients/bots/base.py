"""The bot base class, apart from `clients.bot.make_bot` so that the bots `make_bot` builds (the
search bot among them) can subclass it without importing the factory back."""

from __future__ import annotations

import random
from typing import Any


class Bot:
    """Subclass and override `choose`. Set `wants_view = False` if `view` is unused (faster)."""

    wants_view = True

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def choose(self, view: dict[str, Any] | None, legal_actions: list[Any]) -> Any:
        raise NotImplementedError
