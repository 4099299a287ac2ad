"""Sa-Rê state queries shared by the engine and the view: who plays when, what a seat has built,
what a project costs, how far a seat is toward the scenario's goal (specs/sa-re.md). Pure
functions of the state; the engine's moves and checks build on them.
"""

from __future__ import annotations

from .data import ADJ, ADMIN, CARP, COST, GOLDS, MASON, NILE, N_SPACES, PORT, PRODUCES, PYR, PYRAMIDS, WH, WH_CAP
from .state import SareState

TYPES3 = (0, 1, 2)

# sets of board spaces as bit masks (bit s: space s)
ALL_SPACES = (1 << N_SPACES) - 1
NEAR = tuple(1 << s | sum(1 << x for x in ADJ[s]) for s in range(N_SPACES))     # a space and its neighbours
NILE_MASK = sum(1 << s for s in NILE)
SPACES_IN = tuple(tuple(s for s in range(N_SPACES) if m >> s & 1) for m in range(1 << N_SPACES))     # SPACES_IN[mask]: the set bits of a mask


def seat_at(st: SareState, i: int) -> int:
    return st.order[(st.fp + i) % st.n]


def first_player(st: SareState) -> int:
    return st.order[st.fp] if st.order else 0


def built_count(st: SareState, p: int, kind: int) -> int:
    count = 0
    for pc in st.pieces[p]:
        if pc[0] == kind and pc[2]:
            count += 1
    return count


def has_built(st: SareState, p: int, kind: int) -> bool:
    for pc in st.pieces[p]:
        if pc[0] == kind and pc[2]:
            return True
    return False


def built_kinds(st: SareState, p: int) -> int:
    """Bit mask of the kinds the seat has built (bit k: has_built(st, p, k))."""
    mask = 0
    for pc in st.pieces[p]:
        if pc[2]:
            mask |= 1 << pc[0]
    return mask


def can_use(st: SareState, p: int, kind: int) -> bool:
    """The seat owns a built `kind` administrative building still on its day side."""
    return not (st.used[p] >> kind) & 1 and has_built(st, p, kind)


def n_projects(st: SareState, p: int) -> int:
    count = 0
    for pc in st.pieces[p]:
        if not pc[2]:
            count += 1
    return count


def capacity(st: SareState, p: int) -> int:
    return WH_CAP * built_count(st, p, WH)


def admin_built(st: SareState, p: int) -> int:
    count = 0
    for pc in st.pieces[p]:
        if pc[2] and pc[0] in ADMIN:
            count += 1
    return count


def standing(st: SareState) -> list[int]:
    """The seats still pushing their luck, in turn order."""
    order, fp, status = st.order, st.fp, st.status
    return [p for p in order[fp:] + order[:fp] if status[p] == 0]


def pyramid_piece(st: SareState, p: int):
    for pc in st.pieces[p]:
        if pc[0] == PYR:
            return pc
    return None


def projects_stay_placed(st: SareState, p: int, gone: list) -> bool:
    """Architect (4.4): without the built piece `gone`, every project of the seat is still on or
    next to a built building ("while respecting the placement rule")."""
    near = projects = 0
    for pc in st.pieces[p]:
        if not pc[2]:
            projects |= 1 << pc[1]
        elif pc is not gone:
            near |= NEAR[pc[1]]
    return not projects & ~near


def reductions(st: SareState, p: int, space: int) -> list[int]:
    """[W, G, S] reductions from production buildings built before this turn (4.3)."""
    red = [0, 0, 0]
    adj = ADJ[space]
    for pc in st.pieces[p]:
        k = pc[0]
        if pc[2] and pc[5] < st.turn and (k == CARP or k == MASON or k == GOLDS) and (pc[1] == space or pc[1] in adj):
            red[PRODUCES[k]] += 1
    return red


def port_reduces(st: SareState, p: int, space: int) -> bool:
    if space not in NILE:
        return False
    for pc in st.pieces[p]:
        if pc[0] == PORT and pc[2] and pc[5] < st.turn:
            return True
    return False


def base_cost(pc: list) -> tuple:
    if pc[0] == PYR:
        return PYRAMIDS[pc[4]][1]
    return COST[pc[0]]


def project_cost(st: SareState, p: int, pc: list, pt: int) -> list[int] | None:
    """Cost [W,G,S] of building piece `pc` with the Port reduction on type pt (-1: none)."""
    base = base_cost(pc)
    red = reductions(st, p, pc[1])
    cost = [max(0, base[t] - red[t]) for t in TYPES3]
    if pt >= 0:
        if cost[pt] <= 0:
            return None
        cost[pt] -= 1
    return cost


def progress(st: SareState, p: int) -> int:
    """Progress toward the scenario's end condition (the result's score)."""
    port = adm = covered = 0                  # covered: bit mask of the spaces under a building or a Pyramid step
    pyr = None                                # pyramid_piece(st, p)
    for pc in st.pieces[p]:
        k = pc[0]
        if pc[2]:
            covered |= 1 << pc[1]
            if k == PORT:
                port = 1
            elif k in ADMIN:
                adm += 1
        elif k == PYR and pc[3] >= 1:
            covered |= 1 << pc[1]
        if k == PYR and pyr is None:
            pyr = pc
    if st.scenario == "scribe":
        return bin(covered).count("1") + (1 if pyr is not None and pyr[3] >= 1 else 0)
    pyr_done = 1 if pyr is not None and pyr[2] else 0
    if st.scenario == "priest":
        return port + pyr_done + min(adm, 3)
    return port + pyr_done + adm


GOAL = {"scribe": 13, "priest": 5, "pharaoh": 8}     # the progress that ends the game, by scenario


def goal_met(st: SareState, p: int) -> bool:
    return progress(st, p) == GOAL[st.scenario]


def tiebreak_key(st: SareState, p: int) -> tuple:
    """Higher is better (8.2): admin buildings, completed Pyramid (lower number better), steps, Pyramid size."""
    pyr = pyramid_piece(st, p)
    if pyr is None:
        return (admin_built(st, p), 0, 0, 0, 0)
    size = 5 - pyr[4]
    return (admin_built(st, p), 1 if pyr[2] else 0, size if pyr[2] else 0, pyr[3], size)
