"""Every option the Sabbat Magica engine accepts, in words, for `caravan options sabbat`
(specs/sabbat-magica.md and its ambiguity register)."""

from __future__ import annotations

from . import data as D

OPTION_HELP: dict[str, dict] = {
    "powers": {"values": "false (default) or true",
               "help": "the POWER cards variant: each seat secretly commits to one of its people's 3 cards (7.2)"},
    "peoples": {"values": "a list of different people numbers, one per seat (default seat i plays people i): "
                          + ", ".join(f"{i} {name}" for i, name in enumerate(D.PEOPLE_NAMES)),
                "help": "which people each seat plays (R-8)"},
    "leftovers": {"values": "keep (default) or discard",
                  "help": "resources left on the approval square after the chimaeras are made stay or go (SM-29)"},
    "magician_move": {"values": "king (default) or literal",
                      "help": "a magician step goes to any of the 8 neighbours, or only diagonally or horizontally (C-7)"},
    "power_limit": {"values": "round (default) or trigger",
                    "help": "a POWER card is used at most once per round, or once at each of its triggers (R-9)"},
}
