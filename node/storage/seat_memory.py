"""How a stored game's seat was decided (client kind, bot kind and settings, where it listens,
the bot nodes seated with it), kept in the game's folder so that `caravan resume ID` works
exactly as printed: nothing given again, and a flag given on the command line wins.

The page's port and token are kept by node.web (web.json) next to this file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .store import write_private

SEAT_FILE = "seat.json"

DECIDERS = ("client", "bot", "bot_cmd")
"""One of them decides the seat; giving any one on the command line replaces all three."""

SETTINGS = {"think": 1.0, "iterations": None, "bot_delay": 0.0, "name": None, "seed": None,
            "no_browser": False, "bind": "0.0.0.0"}
"""Remembered settings and the command line's defaults (a value equal to its default was not given)."""


KEPT = ("bots", "bot_kinds", "role")
"""Kept from the first session: the bot nodes' data dirs and kinds, and whether this seat hosted."""


def remember(game_dir: Path, seat: Any) -> None:
    """Write the seat's settings (0600: the file may name a local program to run)."""
    memory = {key: getattr(seat, key, None) for key in (*DECIDERS, *SETTINGS)}
    before = recall(game_dir)
    for key, value in (("bots", seat.bot_homes), ("bot_kinds", seat.bot_kinds), ("role", seat.role)):
        memory[key] = value or before.get(key)
    write_private(game_dir / SEAT_FILE, json.dumps(memory).encode())


def recall(game_dir: Path) -> dict[str, Any]:
    """The remembered settings ({} when none are kept or the file is unreadable)."""
    try:
        data = json.loads((game_dir / SEAT_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def fill_args(args: argparse.Namespace, memory: dict[str, Any]) -> None:
    """Take the remembered decider unless one was given, and each remembered setting the
    command line left at its default."""
    if not any(getattr(args, key, None) for key in DECIDERS):
        for key in DECIDERS:
            if isinstance(memory.get(key), str):
                setattr(args, key, memory[key])
    for key, default in SETTINGS.items():
        if getattr(args, key, default) == default and memory.get(key) is not None:
            setattr(args, key, memory[key])
