"""Sabbat Magica's presentation (clients.games): its modules and per-game client settings."""

from __future__ import annotations

from . import Presentation

_r = lambda n: tuple(range(n))          # noqa: E731
_MODES = ("fight", "place", "retreat")

HOW_TO_PLAY = (
    # a short summary in the rulebook's own terms (the rules as implemented, the rulebook quoted:
    # specs/sabbat-magica.md)
    ("Goal",
     "After 6 rounds the highest score wins: victory points plus 5 per chimaera. A tie shares the victory."),
    ("A round",
     "A. Curse (rounds 2–6): a curse on the cursed square costs 5 VP; the 1H store becomes one curse; 2H "
     "moves to 1H. Invocation: each player secretly chooses how many available ghosts go on the drawbridge"
     " (revealed together); the play order follows the ghosts left in the graveyard. Bonus: in play order "
     "each takes one bonus of the time card. B. Skulduggery: in turn, each player takes as many actions as"
     " the time card says (4, 3 or 2). C. Stewardship: feed your ghosts with terror (7 less the ghosts in "
     "the graveyard), score each region where you have a ghost, and turn each set of the 4 resources on "
     "the approval square into a chimaera."),
    ("Actions",
     "Move the magician in the Manor (its tiles and mirrors: see the board's notes). Move ghosts: a ghost "
     "enters a region from the drawbridge by paying its gate fee, or walks to a neighbouring region; "
     "gardens are entered freely and give their major (position 1) or minor (position 2) bonus; a ghost "
     "may have to fight the ghosts already there. Pass uses the action."),
    ("Resources",
     "What you gain goes to the 2H store; at the next round it moves to 1H, and anything still in 1H after"
     " that becomes a curse."),
)
"""How to play, on the table page: (heading, paragraph) pairs."""


PRESENTATION = Presentation(
    narrate="clients.narrate.sabbat",
    render="clients.render.sabbat",
    bots="clients.bots.sabbat",
    sampler="clients.bots.sample_sabbat",
    rl_actions=(
        ("=", _r(41) + ("done", "pass")),
        ("bonus", _r(4)), ("bonus", _r(4), _r(4)), ("give", _r(4)), ("keep", _r(4)), ("magician", _r(16)),
        ("mirror", _r(16)),
        ("move", _r(15), _r(8), _r(15), _MODES), ("pay", _r(4), _r(4)), ("power", _r(12)),
        ("power", _r(12), _r(16)), ("power", _r(12), _r(16), _r(16) + _MODES), ("steal", _r(4)),
        ("take", _r(4)), ("tile",), ("tile", _r(4)), ("tile", _r(4), _r(4)), ("unfed", _r(15), _r(8)),
        # added with issue 24 (appended: earlier ids keep their meaning)
        ("canteen", _r(2)),
    ),
    rl_obs_size=512,
    screenshot=(3, 160),
    how_to_play=HOW_TO_PLAY,
    result_labels={"scores": "Score (VP + 5 per chimaera)", "vp": "Victory points",
                   "chimaeras": "Chimaeras (5 VP each)"},
    order=1,
)
