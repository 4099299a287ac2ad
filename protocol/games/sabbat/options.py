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
    "magician_move": {"values": "literal (default) or king",
                      "help": "a magician step goes only diagonally or horizontally, as printed, or to any of the 8 "
                              "neighbours (C-7)"},
    "power_limit": {"values": "trigger (default) or round",
                    "help": "a POWER card is used once at each of its triggers (every destroyed minion for Gift of "
                            "immortality), or at most once per round (R-9)"},
}
