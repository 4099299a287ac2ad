"""Bazaar's options, described once (RULES.md R2 and R5): the engine checks options against
OPTIONS, `caravan options bazaar` prints them and the home draws one control per option."""

from __future__ import annotations

from typing import Any

from protocol.engine import Option

OPTIONS: dict[str, Option] = {
    "rounds": Option("number", "how many rounds the game lasts", "R2", min=1, max=5),
    "pass_bonus": Option("yesno", "a round won after passing in its market scores 2 points instead of 1", "R5"),
}

DEFAULTS: dict[str, Any] = {"rounds": 3, "pass_bonus": True}

OPTION_HELP: dict[str, dict] = {k: {"values": o.words(), "help": o.help} for k, o in OPTIONS.items()}
"""The words `caravan options bazaar` prints, made from OPTIONS."""

PRESETS: dict[str, dict[str, Any]] = {
    "Quick game": {"rounds": 1},
    "Long game": {"rounds": 5},
    "No pass bonus": {"pass_bonus": False},
}
