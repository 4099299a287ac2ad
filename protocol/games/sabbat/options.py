"""Every option the Sabbat Magica engine accepts, described once (kind, allowed values, help,
rule): the engine checks options against OPTIONS, `caravan options sabbat` prints them and the
home draws one control per option (specs/sabbat-magica.md and its ambiguity register)."""

from __future__ import annotations

from typing import Any

from ...engine import Option
from . import data as D

POWER_LIMITS = ("round", "trigger")

OPTIONS: dict[str, Option] = {
    "powers": Option("yesno", "the POWER cards variant: each seat secretly commits to one of its people's 3 "
                              "cards (7.2)", "RB 7 POWER Cards (Variation)"),
    "peoples": Option("seats", "which people each seat plays (default seat i plays people i; R-8)", "R-8",
                      choices=tuple(range(len(D.PEOPLE_NAMES))), labels=tuple(D.PEOPLE_NAMES)),
    "leftovers": Option("choice", "resources left on the approval square after the chimaeras are made stay or "
                                  "go (SM-29)", "SM-29", choices=("keep", "discard")),
    "magician_move": Option("choice", "a magician step goes only diagonally or horizontally, as printed "
                                      "(literal), or to any of the 8 neighbours (king) (C-7)", "C-7",
                            choices=("literal", "king")),
    "power_limit": Option("choice", "a POWER card is used once at each of its triggers (every destroyed minion "
                                    "for Gift of immortality), or at most once per round (R-9)", "R-9",
                          choices=("trigger", "round")),
}
assert set(OPTIONS["magician_move"].choices) == set(D.MAGICIAN_MOVES)

OPTION_HELP: dict[str, dict] = {k: {"values": o.words(), "help": o.help} for k, o in OPTIONS.items()}
"""The words `caravan options sabbat` prints, made from OPTIONS."""

PRESETS: dict[str, dict[str, Any]] = {
    "Standard game": {"powers": False},
    "POWER cards variant": {"powers": True},
}
"""Named fillings of the controls over the engine's defaults: the rulebook's game and its POWER
cards variation (RB 7; specs/sabbat-magica.md 7.2)."""
