"""Scenario helpers for the Sabbat Magica tests: build a game at a chosen point, set up
the public state a worked example needs, and apply actions through the engine."""

from __future__ import annotations

from typing import Any

from protocol import engine as E
from protocol.games.sabbat import ENGINE
from protocol.games.sabbat import data as D

SP, RT, GE, MA = range(4)            # spider, rat tail, gemstone, mask
REG = {r["id"]: i for i, r in enumerate(D.REGIONS)}
GAR = {g["id"]: D.NREG + i for i, g in enumerate(D.GARDENS)}
BRIDGE = D.BRIDGE


def res(*types: int) -> list[int]:
    out = [0] * D.NRES
    for t in types:
        out[t] += 1
    return out


def new(n: int = 3, peoples: list[int] | None = None, order: list[int] | None = None,
        tiles: list[int] | None = None, gates: list[int] | None = None, powers: list[int] | None = None,
        leftovers: str = "keep"):
    """A game after setup (and the POWER commitments, when `powers` lists each seat's card).
    Returns (state, knowledge per seat)."""
    opts = {"powers": powers is not None, "peoples": peoples or list(range(n)), "leftovers": leftovers}
    st = ENGINE.new_game(opts, n)
    ENGINE.apply(st, E.Rolled((tuple(order or range(n)), tuple(tiles or range(D.NTILES)),
                               tuple(gates or range(D.NGATES)))))
    knowledge: list[dict[int, Any]] = [{} for _ in range(n)]
    if powers is not None:
        handles = tuple(range(101, 101 + n))
        ENGINE.apply(st, E.Committed("power", handles))
        for s in range(n):
            knowledge[s][handles[s]] = powers[s]
    return st, knowledge


def at_actions(n: int = 3, invoke: list[int] | None = None, **kw):
    """A round-1 game in phase B: each seat invoked invoke[s] ghosts (default 3)."""
    st, k = new(n, **kw)
    ENGINE.apply(st, E.Choices(tuple(invoke or [3] * n)))
    assert st.stage == "turn"
    return st, k


def place(st, loc: int, seats: list[int]) -> None:
    """Put ghosts of these seats (in position order) at a location, taken from the graveyard."""
    for s in seats:
        st.locs[loc].append(s)
        st.grave[s] -= 1


def act(st, seat: int, action: Any, knowledge: dict | None = None) -> None:
    """Apply one action, first checking it is listed as legal (as a node would)."""
    legal = ENGINE.legal_actions(st, seat, knowledge)
    assert action in legal, f"{action!r} not in {legal!r}"
    ENGINE.apply(st, E.Act(seat, action))


def illegal(st, seat: int, action: Any) -> E.IllegalAction:
    """Apply an action that must be rejected; check the state did not change."""
    before = ENGINE.encode(st)
    try:
        ENGINE.apply(st, E.Act(seat, action))
    except E.IllegalAction as exc:
        assert ENGINE.encode(st) == before
        assert exc.rule
        return exc
    raise AssertionError(f"{action!r} was accepted")


def set_turn(st, seat: int) -> None:
    """Make it `seat`'s action (first action round, top level)."""
    st.turn = st.order.index(seat)
    st.actor = seat
    st.sub = ""
    st.args = []
    st._cache = None


def to_stewardship(st) -> None:
    """Jump to the last action of phase B and pass it: C.1, C.2 and C.3 follow."""
    st.turn = D.TIME_ACTIONS[st.time_card] * st.n - 1
    st.actor = st.order[-1]
    st.sub = ""
    st.args = []
    st._cache = None
    ENGINE.apply(st, E.Act(st.actor, "pass"))


def finish_round(st) -> None:
    """Pass every remaining decision of the round (food, approval choices: first legal)."""
    r = st.rnd
    while st.rnd == r and st.stage != "end":
        step = ENGINE.expected(st)
        if isinstance(step, E.Decide):
            legal = ENGINE.legal_actions(st, step.seat)
            a = "pass" if "pass" in legal else "done" if "done" in legal else legal[0]
            ENGINE.apply(st, E.Act(step.seat, a))
        elif isinstance(step, E.Simultaneous):
            ENGINE.apply(st, E.Choices(tuple(0 for _ in step.seats)))
        elif isinstance(step, E.Random):
            ENGINE.apply(st, E.Rolled(tuple(0 for _ in step.draws)))
        else:
            raise AssertionError(f"unexpected step {step}")
