"""The Sa-Rê game state: one record of plain ints, strings and lists, so clone/encode are trivial.

Layout of the per-seat lists:
  pieces[p] : list of [kind, space, built, steps, pyramid_no, built_turn, fresh]
  res[p]    : [W, G, S, J] tokens in the warehouses (J only transiently in phase 3)
  gain[p]   : [W, G, S, J] tokens gained this season, beside the site
  slots[p]  : [W, G, S, J] tokens lying on production cards (worker / Port production)
Resources are indexed 0 W, 1 G, 2 S, 3 J (Joker).
"""

from __future__ import annotations

from typing import Any

FIELDS = (
    "n", "scenario", "architect", "turn_limit", "pyramid_pick", "shoe_face", "top",
    "order", "fp", "turn", "phase", "stage", "cur",
    "board", "pyr_avail", "reserve",
    "pieces", "res", "gain", "slots", "ptok", "rev", "black", "car", "car_use", "done_mask", "used", "spare",
    "growth", "status", "p1_new", "charter", "oracle", "lib_j", "palace_cards", "kept", "kept_cards",
    "dbl_pile", "dbl", "dbl_first", "down", "display",
    "shoe", "aside", "discard", "dark", "removed", "hosh",
    "temple_hand", "temple_owner", "temple_pos", "reveal_q",
    "card", "horus", "in_horus", "lone", "taken", "tlev", "poll_gold", "sub",
    "winners", "scores", "end_reason",
)


class SareState:
    """`ver` counts applied steps; `_lc` (legal actions), `_ev`/`_es` (the expected step) and
    `_bkv`/`_bk` (each seat's built kinds) are caches valid while `ver` has not moved (a test that
    edits a state by hand bumps `ver`); the engine carries `_bk` over the steps that build nothing."""
    __slots__ = FIELDS + ("ver", "_lc", "_ev", "_es", "_bkv", "_bk")

    def __eq__(self, other: object) -> bool:
        """Equal when every field is (what comparing the encoded states tells)."""
        return isinstance(other, SareState) and all(getattr(self, f) == getattr(other, f) for f in FIELDS)


def copy_lists(v: Any) -> Any:
    """A copy of a field's value, its nested lists copied too (clone, encode, decode)."""
    if type(v) is list:
        return [copy_lists(x) if type(x) is list else x for x in v]
    return v
