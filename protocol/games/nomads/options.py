"""Every option the Nomads of Arabia engine accepts, described once (kind, allowed values, help,
rule): the engine checks options against OPTIONS, `caravan options nomads` prints them and the
home draws one control per option (specs/nomads-of-arabia.md N.12 and the ambiguity register)."""

from __future__ import annotations

from typing import Any

from ...engine import Option
from . import data as D

FULL_MARKET = ("stack", "gamebox")

OPTIONS: dict[str, Option] = {
    "yellow_tiles": Option("number", "yellow city tiles on the board's spaces; fewer gives a shorter game (N.12)",
                           "N.12", min=0, max=D.YELLOW_BOARD_SPACES),
    "short_blue": Option("yesno", "short game: Mecca shuffled with only 2 of the other 4 blue tiles (N.12)",
                         "N.12"),
    "max_turns": Option("number", "the game ends as Mecca would after this many turns (AN-X4, not in the "
                                  "rulebook)", "AN-X4", min=1),
    "full_market": Option("choice", "animals returned to a full market stay there (stack) or go to the game box "
                                    "(AN-X1)", "AN-X1", choices=FULL_MARKET),
    "lost_turns": Option("choice", "turns a nomad lost in the desert needs: to the pilgrim then placed (2), or "
                                   "placed at once (1) (AN-23)", "AN-23", choices=(2, 1)),
    "second_sale": Option("yesno", "after an Abdul sale before moving, a city reached in the same turn may buy "
                                   "too (AN-X13; the rulebook's 'not twice in one turn' forbids it)", "AN-X13"),
}

OPTION_HELP: dict[str, dict] = {k: {"values": o.words(), "help": o.help} for k, o in OPTIONS.items()}
"""The words `caravan options nomads` prints, made from OPTIONS."""

PRESETS: dict[str, dict[str, Any]] = {
    "Full game": {"yellow_tiles": D.YELLOW_BOARD_SPACES, "short_blue": False},
    "Short game": {"yellow_tiles": 2, "short_blue": True},
}
"""Named fillings of the controls over the engine's defaults: the rulebook's game and its shorter
game (pg 3, N.12); how many yellow tiles the short game removes is Caravan's choice (AN-26)."""
