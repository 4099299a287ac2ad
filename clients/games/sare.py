"""Sa-Rê's presentation (clients.games): its modules and per-game client settings."""

from __future__ import annotations

from typing import Any

from . import Presentation

_r = lambda n: tuple(range(n))          # noqa: E731
_WGS, _WGSJ = ("W", "G", "S"), ("W", "G", "S", "J")
_KINDS = ("warehouse", "master_builder", "carpenter", "stonemason", "goldsmith", "temple", "library", "barracks",
          "market", "palace", "gardens", "port", "pyramid")


def rl_key(action: Any, knowledge: dict[int, Any]) -> tuple | None:
    """The Temple's bare handle (which card goes back) is named by its card."""
    if type(action) is int:
        return ("card", knowledge.get(action))
    return None


HOW_TO_PLAY = (
    # a short summary in the rulebook's own terms (the rules as implemented, the rulebook quoted:
    # specs/sa-re.md)
    ("Goal",
     "Be the first to meet your scenario's goal at the end of a Construction Phase: Scribe — built on all "
     "12 spaces of your Construction Site with your Pyramid at least in project with a first step built; "
     "Priest — your two main buildings and at least 3 administrative buildings; Pharaoh — your Port, your "
     "Pyramid and your 6 administrative buildings."),
    ("Setup",
     "Each player places the Warehouse, then the Master Builder, on spaces of their Construction Site (on "
     "the board: click the Warehouse's space, then the Master Builder's)."),
    ("A turn",
     "Phase 1, projects: starting with the first player, each chooses construction projects (launch, move "
     "or give up project tiles). Phase 2, the production season: the active player reveals Season cards "
     "from the shoe onto the Production of the turn; each player decides when to stop and lie down, and "
     "takes from the general reserve the resource tokens matching those in the Production of the turn; "
     "Hoshekh (darkness), Horus and revolts are told in the log as they happen. Phase 3, construction: pay"
     " Wood, Gold and Stone (Jokers and caravans help) to complete projects and Pyramid steps."),
    ("Administrative buildings",
     "Temple, Library, Barracks, Market, Palace and Gardens each give a power in the season or at "
     "construction; the move buttons name what each one does."),
    ("Winning",
     "If several players meet the goal, the most built administrative buildings wins, then the Pyramid "
     "that required the most materials; with the Architect variant the most Pyramid steps. The game also "
     "ends at the turn limit chosen by the host."),
)
"""How to play, on the table page: (heading, paragraph) pairs."""


PRESENTATION = Presentation(
    narrate="clients.narrate.sare",
    render="clients.render.sare",
    bots="clients.bots.sare",
    sampler="clients.bots.sample_sare",
    heuristic_playouts=True,
    rl_actions=(
        ("card", _r(32)),                       # the Temple card put back, by its card (not its handle)
        ("barracks", _r(4)), ("build", _r(24), _WGS + ("-",), _r(2), _r(8)), ("cancel", _r(24)),
        ("charter", _WGS, _WGSJ), ("continue",), ("demolish", _r(24)), ("discard", _WGSJ), ("done",),
        ("gardens",), ("gold",), ("joker", _WGS), ("library",), ("market", _r(4)), ("move", _r(24), _r(12)),
        ("oracle",), ("palace",), ("pass",), ("place", _r(12), _r(12)), ("project", _KINDS, _r(12)),
        ("return", ("top", "bottom")), ("stop",), ("swap", _WGSJ, _WGSJ), ("temple",),
        # added with the rules options of issue 15 (appended: earlier ids keep their meaning)
        ("project", ("pyramid",), _r(12), _r(5)), ("spare", _WGS),
        ("cash", _WGS),                         # issue 24 item 13
    ),
    rl_key=rl_key,
    rl_obs_size=768,
    screenshot=(3, 260),
    how_to_play=HOW_TO_PLAY,
    result_labels={"scores": "Progress toward the goal"},
    tie_break=('', "the most built administrative buildings, then the Pyramid (the rulebook's tie-breaks)"),
    order=0,
)
