"""Every option the Sa-Rê engine accepts, described once (kind, allowed values, help, rule):
the engine checks options against OPTIONS, `caravan options sare` prints them and the home
draws one control per option (specs/sa-re.md §12 and §14). PRESETS fill those controls."""

from __future__ import annotations

from typing import Any

from ...engine import Option

SCENARIOS = ("scribe", "priest", "pharaoh")
PYRAMID_PICKS = ("top", "free")      # which Pyramid a project takes: the top of the sorted stack, or any left
SHOE_FACES = ("down", "up")          # SR-14: the Season cards in the shoe face down, or face up (option)

OPTIONS: dict[str, Option] = {
    "scenario": Option("choice", "the end-of-game goal (RB End of Game: Priest, Scribe or Pharaoh mode)",
                       "RB Pharaoh's Directives", choices=SCENARIOS),
    "architect": Option("yesno", "Architect variant: start on the top-left space, projects only next to a "
                                 "built building", "RB Architect Variant"),
    "turn_limit": Option("number", "the game ends after this many turns if nobody met the goal (R-01, not in "
                                   "the rulebook)", "R-01", min=1, max=200),
    "shoe": Option("choice", "the Season cards in the shoe lie face down, or face up so everyone sees the "
                             "next card (SR-14)", "SR-14", choices=SHOE_FACES),
    "pyramid_pick": Option("choice", "a Pyramid project takes the top card of the sorted stack, or any Pyramid "
                                     "left (R-09)", "R-09", choices=PYRAMID_PICKS),
}

OPTION_HELP: dict[str, dict] = {k: {"values": o.words(), "help": o.help} for k, o in OPTIONS.items()}
"""The words `caravan options sare` prints, made from OPTIONS."""

PRESETS: dict[str, dict[str, Any]] = {
    "Priest mode (shortest goal)": {"scenario": "priest"},
    "Pharaoh mode (longest goal)": {"scenario": "pharaoh"},
    "Architect variant": {"scenario": "priest", "architect": True},
}
"""Named fillings of the controls, each over the engine's defaults (specs/sa-re.md §14: the modes
and the Architect variant are the rulebook's; which one is "shortest" is Caravan's reading)."""
