"""Every option the Nomads of Arabia engine accepts, in words, for `caravan options nomads`
(specs/nomads-of-arabia.md N.12 and the ambiguity register)."""

from __future__ import annotations

from . import data as D

OPTION_HELP: dict[str, dict] = {
    "yellow_tiles": {"values": f"a whole number 0-{D.YELLOW_BOARD_SPACES} (default {D.YELLOW_BOARD_SPACES})",
                     "help": "yellow city tiles on the board's spaces; fewer gives a shorter game (N.12)"},
    "short_blue": {"values": "false (default) or true",
                   "help": "short game: Mecca shuffled with only 2 of the other 4 blue tiles (N.12)"},
    "max_turns": {"values": f"a whole number 1 or more (default {D.MAX_TURNS})",
                  "help": "the game ends as Mecca would after this many turns (AN-X4, not in the rulebook)"},
    "full_market": {"values": "stack (default) or gamebox",
                    "help": "animals returned to a full market stay there (stack) or go to the game box (AN-X1)"},
    "lost_turns": {"values": "2 (default) or 1",
                   "help": "turns a nomad lost in the desert needs: to the pilgrim then placed, or placed at once (AN-23)"},
    "second_sale": {"values": "false (default) or true",
                        "help": "after an Abdul sale before moving, a city reached in the same turn may buy too "
                                "(AN-X13; the rulebook's 'not twice in one turn' forbids it)"},
}
