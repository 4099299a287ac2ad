"""Every option the Sa-Rê engine accepts, in words, for `caravan options sare` (specs/sa-re.md §12)."""

from __future__ import annotations

OPTION_HELP: dict[str, dict] = {
    "scenario": {"values": "priest (default), scribe or pharaoh",
                 "help": "the end-of-game goal (RB End of Game: Priest, Scribe or Pharaoh mode)"},
    "architect": {"values": "false (default) or true",
                  "help": "Architect variant: start on the top-left space, projects only next to a built building"},
    "turn_limit": {"values": "a whole number 1-200 (default 30)",
                   "help": "the game ends after this many turns if nobody met the goal (R-01, not in the rulebook)"},
    "shoe": {"values": "down (default) or up",
             "help": "the Season cards in the shoe lie face down, or face up so everyone sees the next card (SR-14)"},
    "pyramid_pick": {"values": "top (default) or free",
                     "help": "a Pyramid project takes the top card of the sorted stack, or any Pyramid left (R-09)"},
}
