"""Sa-Rê rules engine (specs/sa-re.md). Section numbers in IllegalAction refer to that spec.
The state record is in state.py, the queries the view shares in rules.py."""

from __future__ import annotations

from itertools import compress
from typing import Any

from ...engine import (Act, BadOptions, check_options, Decide, DeckReturn, DeckReturned, DeckReveal, DeckRevealed,
                       DeckShow, DeckShown, DeckShuffle, DeckShuffled, Finished, IllegalAction, Random,
                       Rolled)
from .data import (ADMIN, ARCH_START, BARR, CARAVAN_MAX, CARD_KIND, CARP, COST, DOUBLE, GARDENS, GOLDS,
                   HORUS, KINDS, KIND_INDEX, LIB, MARKET, MASON, MB, N_CARDS, N_SPACES, PALACE, PORT,
                   PRODUCES, PRODUCTION, PYR, PYRAMIDS, RED, RES, RES_INDEX, SUPPLY, TEMPLE, TR1, TURN_LIMIT,
                   WH, WH_CAP)
from .rules import (ALL_SPACES, GOAL, NEAR, NILE_MASK, SPACES_IN, TYPES3, built_count, built_kinds, capacity,
                    progress, project_cost, projects_stay_placed, seat_at, standing, tiebreak_key)
from .rules import first_player, goal_met, port_reduces  # noqa: F401  (re-exported: bots and tests read them here)
from .state import FIELDS, SareState, copy_lists
from .view import build_view

from .options import OPTIONS, PYRAMID_PICKS, SCENARIOS, SHOE_FACES  # noqa: F401  (re-exported)

PYR_STARTED = 1 << 13          # done-mask bit: a Pyramid step was ever built (no second Pyramid)
ADMIN_MASK = sum(1 << k for k in ADMIN)


def _ill(msg: str, rule: str) -> IllegalAction:
    return IllegalAction(msg, rule)


# ------------------------------------------------------------------ small queries

def _built_mask(st: SareState, p: int) -> int:
    """built_kinds(st, p), cached per seat while `ver` has not moved (apply carries it over the
    steps that build nothing): the poll, Palace and Gardens/Library checks ask it at every step."""
    if st._bkv != st.ver:
        st._bk = [-1] * st.n
        st._bkv = st.ver
    mask = st._bk[p]
    if mask < 0:
        mask = st._bk[p] = built_kinds(st, p)
    return mask


def _can_use(st: SareState, p: int, kind: int) -> bool:
    """can_use(st, p, kind), from the cached built kinds."""
    return not st.used[p] >> kind & 1 and _built_mask(st, p) >> kind & 1 == 1


def _seek(st, wanted) -> bool:
    """Advance st.cur (in turn order, from where it is) to the next seat for which
    wanted(seat) holds; False when no seat is left."""
    order, fp, n = st.order, st.fp, st.n
    cur = st.cur
    while cur < n:
        if wanted(order[(fp + cur) % n]):
            st.cur = cur
            return True
        cur += 1
    st.cur = cur
    return False


# ------------------------------------------------------------------ token movement

def take(st: SareState, t: int, k: int = 1) -> bool:
    """Take k tokens of type t from the general reserve, all or nothing (SR-26)."""
    if st.reserve[t] >= k:
        st.reserve[t] -= k
        return True
    return False


def _pay_types(st: SareState, p: int, t: int, k: int, use_slots: bool = True) -> None:
    """Return k tokens of type t to the reserve, production-card tokens first, then the hold."""
    if use_slots:
        s = min(k, st.slots[p][t])
        st.slots[p][t] -= s
        k -= s
        st.reserve[t] += s
    st.res[p][t] -= k
    st.reserve[t] += k


# ------------------------------------------------------------------ the engine

class SareEngine:
    name = "sare"
    title = "Sa-Rê"
    min_players = 2
    max_players = 4

    # -------------------------------------------------------------- creation
    def default_options(self, players: int) -> dict[str, Any]:
        return {"scenario": "priest", "architect": False, "turn_limit": TURN_LIMIT, "pyramid_pick": "top",
                "shoe": "down"}

    def new_game(self, options: dict[str, Any], players: int) -> SareState:
        if not isinstance(players, int) or not 2 <= players <= 4:
            raise BadOptions("Sa-Rê is for 2 to 4 players")
        opts = check_options(OPTIONS, self.default_options(players), options or {}, players)
        n = players
        st = SareState()
        st.n = n
        st.scenario = opts["scenario"]
        st.architect = opts["architect"]
        st.turn_limit = opts["turn_limit"]
        st.pyramid_pick = opts["pyramid_pick"]
        st.shoe_face = opts["shoe"]
        st.top = []                    # face-up shoe: [top handle, its card] once public, card -1 if face down
        st.order = []
        st.fp = 0
        st.turn = 1
        st.phase = "order"
        st.stage = "order"
        st.cur = 0
        st.board = [n] * 12            # the starting Warehouse/Master Builder come from the box (2.1)
        st.pyr_avail = list(range(1, n + 1))
        st.reserve = list(SUPPLY)
        st.pieces = [[] for _ in range(n)]
        st.res = [[0, 0, 0, 0] for _ in range(n)]
        for p in range(n):
            for t in TYPES3:
                st.reserve[t] -= 1
                st.res[p][t] = 1
        st.gain = [[0, 0, 0, 0] for _ in range(n)]
        st.slots = [[0, 0, 0, 0] for _ in range(n)]
        st.ptok = [0] * n
        st.rev = [0] * n
        st.black = [0] * n
        st.car = [0] * n
        st.car_use = [0] * n
        st.spare = [[0, 0, 0] for _ in range(n)]   # phase 3: typed tokens kept out of payments
        st.done_mask = [0] * n
        st.used = [0] * n
        st.growth = [0] * n
        st.status = [0] * n
        st.p1_new = [0] * n
        st.charter = [0] * n
        st.oracle = [0] * n
        st.lib_j = [0] * n
        st.palace_cards = [[] for _ in range(n)]
        st.kept = [[] for _ in range(n)]
        st.kept_cards = [[] for _ in range(n)]
        st.dbl_pile = list(range(len(DOUBLE)))
        st.dbl = -1
        st.dbl_first = -1
        st.down = []
        st.display = [0, 0, 0]
        st.shoe = []
        st.aside = 0
        st.discard = []
        st.dark = []
        st.removed = []
        st.hosh = []
        st.temple_hand = []
        st.temple_owner = -1
        st.temple_pos = ""
        st.reveal_q = []
        st.card = -1
        st.horus = 0
        st.in_horus = False
        st.lone = False
        st.taken = False
        st.tlev = []
        st.poll_gold = False
        st.sub = []
        st.winners = []
        st.scores = []
        st.end_reason = ""
        st.ver = 0
        st._lc = None
        st._ev = -1
        st._bkv = -1
        return st

    # -------------------------------------------------------------- steps
    def expected(self, st: SareState):
        if st._ev == st.ver:
            return st._es
        stg = st.stage
        if stg in _LEGAL_AT and not st.reveal_q:       # a decision stage (the common case): _expected, inlined
            step = _DECIDE[st.sub[1] if stg == "market" else st.order[(st.fp + st.cur) % st.n]]
        else:
            step = self._expected(st)
        st._ev = st.ver
        st._es = step
        return step

    def _expected(self, st: SareState):
        if st.reveal_q:
            return DeckReveal(tuple(st.reveal_q))
        stg = st.stage
        if stg in _LEGAL_AT:                           # a decision stage (the common case)
            return _DECIDE[st.sub[1] if stg == "market" else st.order[(st.fp + st.cur) % st.n]]
        if stg == "order":
            return Random((("perm", st.n),))
        if stg == "dbl":
            return _DRAW_DOUBLE[len(st.dbl_pile)]
        if stg == "shuffle":
            return DeckShuffle("season", tuple(self._gather(st)))
        if stg == "dark_shuffle":
            return DeckShuffle("dark", tuple(self._dark_items(st)))
        if stg == "draw":
            top = () if self._top_public(st) else (st.shoe[0],)
            return DeckReveal((st.dark[0],) + top if st.dark else top)
        if stg == "temple_show":
            return DeckShow(st.temple_owner, tuple(st.temple_hand))
        if stg == "oracle_show":
            return DeckShow(st.sub[1], (st.aside,))
        if stg == "temple_ret":
            return DeckReturn(st.temple_owner, "season", tuple(st.temple_hand), st.temple_pos)
        if stg == "temple_pos":
            return _DECIDE[st.temple_owner]
        if stg == "over":
            return _FINISHED
        return _DECIDE[self._actor(st)]

    def _actor(self, st: SareState) -> int:
        if st.stage == "market":
            return st.sub[1]
        return st.order[(st.fp + st.cur) % st.n]

    def _gather(self, st: SareState) -> list:
        """Every non-double Season card, for the shuffle that starts the season (5.2, SR-14)."""
        if st.turn == 1:
            return list(range(N_CARDS))
        items: list = []
        items.extend(st.discard)
        items.extend(st.removed)
        items.extend(st.hosh)
        for p in range(st.n):
            items.extend(st.palace_cards[p])
            items.extend(st.kept_cards[p])
        items += [["h", h] for h in st.shoe]
        items += [["h", h] for h in st.dark]
        if st.aside:
            items.append(["h", st.aside])
        for p in range(st.n):
            items += [["h", h] for h in st.kept[p]]
        return items

    def _dark_items(self, st: SareState) -> list:
        return [["h", h] for h in st.dark] + list(st.discard)

    # -------------------------------------------------------------- legal actions
    def legal_actions(self, st: SareState, seat: int, knowledge: dict | None = None) -> list:
        lc = st._lc                                    # _cached_legal, inlined
        if lc is not None and lc[0] == st.ver and lc[1] == seat:
            return list(lc[2])                         # a copy: callers may sort or shuffle it
        step = st._es if st._ev == st.ver else self.expected(st)
        legal = _LEGAL_AT.get(st.stage)                # _legal's common case, inlined: the seat's decision
        if legal is not None and step.__class__ is Decide and step.seat == seat:
            out = legal(self, st, seat)
        else:
            out = self._legal(st, seat)
        st._lc = (st.ver, seat, out)
        return list(out)

    def _cached_legal(self, st: SareState, seat: int) -> list:
        lc = st._lc
        if lc is not None and lc[0] == st.ver and lc[1] == seat:
            return lc[2]
        out = self._legal(st, seat)
        st._lc = (st.ver, seat, out)
        return out

    def _legal(self, st: SareState, seat: int) -> list:
        if st.reveal_q:
            return []
        stg = st.stage
        legal = _LEGAL_AT.get(stg)         # a decision stage: expected() is Decide(self._actor(st))
        if legal is not None:
            if (st.sub[1] if stg == "market" else st.order[(st.fp + st.cur) % st.n]) != seat:
                return []
            return legal(self, st, seat)
        if stg == "temple_ret":
            return list(st.temple_hand) if seat == st.temple_owner else []
        if stg == "temple_pos":
            return [["return", "top"], ["return", "bottom"]] if seat == st.temple_owner else []
        return []

    def _legal_palace(self, st: SareState, seat: int) -> list:
        return [["palace"], ["pass"]]

    def _legal_tw(self, st: SareState, seat: int) -> list:
        out = []
        lev = st.tlev[seat]
        if lev == 2 and _can_use(st, seat, GARDENS):
            out.append(["gardens"])
        if lev == 1 and _can_use(st, seat, LIB):
            out.append(["library"])
        out.append(["pass"])
        return out

    def _legal_market_final(self, st: SareState, seat: int) -> list:
        return [["market", t] for t in range(st.n) if t != seat] + [["pass"]]

    def _legal_setup(self, st: SareState, seat: int) -> list:
        return list(_PLACES)

    def _legal_p1(self, st: SareState, p: int) -> list:
        out: list = [_DONE]
        pcs = st.pieces[p]
        n_proj = m = wh = 0
        present = prod1 = prod2 = other = near = 0    # bit masks: kinds owned; spaces by what lies there
        for k, s, built, _steps, _no, _turn, _fresh in pcs:
            bit = 1 << s
            present |= 1 << k
            if k < _N_PRODUCTION:                    # k in PRODUCTION
                if prod1 & bit:
                    prod2 |= bit
                else:
                    prod1 |= bit
            else:
                other |= bit
            if built:
                near |= NEAR[s]
                if k == MB:
                    m += 1
                elif k == WH:
                    wh += 1
            else:
                n_proj += 1
        # spaces open to a new production project, to an administrative/main project, to the Port (4.4)
        prod_ok = ALL_SPACES & ~prod2 & ~other
        if st.architect:
            prod_ok &= near
        empty = prod_ok & ~prod1
        port_ok = empty & NILE_MASK
        if n_proj + 1 <= 2 * m:
            self._p1_projects(st, p, out, present, prod_ok, empty, port_ok)
        self._p1_piece_actions(st, p, out, m, wh, n_proj, prod_ok, empty, port_ok)
        return out

    @staticmethod
    def _p1_projects(st: SareState, p: int, out: list, present: int, prod_ok: int, empty: int, port_ok: int) -> None:
        """4.1: the new projects open to seat p (which has a Master Builder free for one)."""
        mask = st.done_mask[p]
        board = st.board
        # the kinds open to a new project, as a bit mask: production kinds not launched this phase,
        # administrative kinds and the Port never built nor owned (4.1), while tiles are left
        blocked = st.p1_new[p] | ((mask | present) & _NON_PRODUCTION)
        kinds = sum(compress(_KIND_BITS, map(_POSITIVE, board))) & ~blocked
        if kinds:                              # in kind order, each in space order
            lo, hi = prod_ok & _LOW, prod_ok >> _HALF
            for k in SPACES_IN[kinds & _PRODUCTION_KINDS]:      # SPACES_IN[mask]: the set bits of a mask
                at_lo, at_hi = _PROJECT_AT[k]
                out += at_lo[lo]
                out += at_hi[hi]
            lo, hi = empty & _LOW, empty >> _HALF
            for k in SPACES_IN[kinds & _NON_PRODUCTION]:
                at_lo, at_hi = _PROJECT_AT[k]
                if k == PORT:
                    out += at_lo[port_ok & _LOW]
                    out += at_hi[port_ok >> _HALF]
                else:
                    out += at_lo[lo]
                    out += at_hi[hi]
        if st.pyr_avail and not mask & ((1 << PYR) | PYR_STARTED) and not present >> PYR & 1:
            if st.pyramid_pick == "free":     # any Pyramid left (option, R-09)
                out.extend(["project", KINDS[PYR], s, no] for s in SPACES_IN[empty] for no in st.pyr_avail)
            else:
                at_lo, at_hi = _PROJECT_AT[PYR]
                out += at_lo[empty & _LOW]
                out += at_hi[empty >> _HALF]

    @staticmethod
    def _p1_piece_actions(st: SareState, p: int, out: list, m: int, wh: int, n_proj: int,
                          prod_ok: int, empty: int, port_ok: int) -> None:
        """4.3-4.4: the demolitions, cancellations and moves of seat p's pieces, in piece order."""
        pcs = st.pieces[p]
        arch = st.architect
        lone = None
        i = -1
        for k, s, built, steps, _no, _turn, fresh in pcs:
            i += 1
            if built:                                # _can_demolish, with the seat's facts gathered once
                if k == MB:
                    if m <= 1 or n_proj > 2 * (m - 1):
                        continue
                elif k == WH:
                    if sum(st.res[p][:3]) > WH_CAP * (wh - 1):
                        continue
                if arch:
                    if lone is None:
                        lone = _lone_near(pcs)
                    if lone >> s & 1:
                        continue
                out.append(_DEMOLISH[i])
            elif not fresh:
                out.append(_CANCEL[i])
                if not (k == PYR and steps > 0):
                    # an unbuilt piece only matters on its own space, which is never a target
                    spaces = (prod_ok if k < _N_PRODUCTION else (port_ok if k == PORT else empty)) & ~(1 << s)
                    at_lo, at_hi = _MOVE_AT[i]
                    out += at_lo[spaces & _LOW]
                    out += at_hi[spaces >> _HALF]

    def _can_demolish(self, st: SareState, p: int, pc: list, m: int, n_proj: int, placement: bool = True) -> bool:
        """4.4: the last Master Builders keep their projects, the other warehouses hold the stored
        tokens, and (Architect) every project stays next to a built building."""
        if pc[0] == MB and (m <= 1 or n_proj > 2 * (m - 1)):
            return False
        if pc[0] == WH and sum(st.res[p][:3]) > WH_CAP * (built_count(st, p, WH) - 1):
            return False
        return not (placement and st.architect) or projects_stay_placed(st, p, pc)

    def _legal_poll(self, st: SareState, p: int) -> list:
        built = _built_mask(st, p)
        usable = built & ~st.used[p]                # can_use, for every kind at once
        oracle = st.aside and not st.oracle[p] and built >> TEMPLE & 1      # _oracle_open
        if st.status[p] != 0:                       # a laid-down Market or Temple owner's slot (SR-24, R-05)
            out = list(_MARKETS[st.n][p]) if usable >> MARKET & 1 else []
            if oracle:
                out.append(_ORACLE)
            out.append(_PASS)
            return out
        out: list = [_CONTINUE, _STOP]
        if not st.poll_gold and st.res[p][1] > 0 and st.rev[p] > st.black[p]:
            out.append(_GOLD)
        if usable >> BARR & 1:
            status, rev = st.status, st.rev
            for t in range(st.n):
                if t != p and status[t] == 0 and rev[t] + 1 < RED:
                    out.append(_BARRACKS[t])
        if usable >> MARKET & 1:
            out += _MARKETS[st.n][p]
        if usable >> TEMPLE & 1 and st.shoe:
            out.append(_TEMPLE)
        if oracle:
            out.append(_ORACLE)
        return out

    def _oracle_open(self, st: SareState, p: int) -> bool:
        """RB Temple "may also, at any time, consult the oracles": once a season (the card does not
        change), in any of the owner's poll slots, standing or lying down (R-05)."""
        return bool(st.aside) and not st.oracle[p] and _built_mask(st, p) >> TEMPLE & 1 == 1

    def _legal_market(self, st: SareState, p: int) -> list:
        t = st.sub[2]
        out: list = [["done"]]
        if st.sub[3] > 0:
            mine, theirs = st.res[p], st.res[t]
            for a in TYPES3:
                if mine[a] > 0:
                    for b in TYPES3:
                        if b != a and theirs[b] > 0:
                            out.append(["swap", RES[a], RES[b]])
        return out

    def _legal_p3(self, st: SareState, p: int) -> list:
        out: list = [_DONE]
        revolt = st.status[p] == 2
        res = st.res[p]
        if not revolt and not st.charter[p]:
            self._p3_builds(st, p, out)
        elif revolt and not st.charter[p] and st.car_use[p]:
            reserve = st.reserve                     # receiving a caravan's resource is not constructing (7.5, R-10)
            out += _CASHES[(reserve[0] > 0) | (reserve[1] > 0) << 1 | (reserve[2] > 0) << 2]
        if st.car[p] < CARAVAN_MAX:
            if revolt:
                w, g, s, j = res
            else:
                slots = st.slots[p]
                w, g, s, j = res[0] + slots[0], res[1] + slots[1], res[2] + slots[2], res[3] + slots[3]
            # the pairs of tokens the seat can pay: by how many of each type it has, counting to 2
            out += _CHARTERS[(w if w < 2 else 2) * 27 + (g if g < 2 else 2) * 9 + (s if s < 2 else 2) * 3
                             + (j if j < 2 else 2)]
        if st.architect:                 # RB Architect "demolish buildings during your construction phase"
            _p3_demolitions(st.pieces[p], res, out)
        return out

    def _p3_builds(self, st: SareState, p: int, out: list) -> None:
        """7.2-7.4: seat p's spare and cash actions and every way to pay for building each of its
        projects (the seat is not in revolt and has chartered no caravan)."""
        slots, res = st.slots[p], st.res[p]
        pcs = st.pieces[p]
        spare = st.spare[p]
        w, g, s = slots[0] + res[0] - spare[0], slots[1] + res[1] - spare[1], slots[2] + res[2] - spare[2]
        jok = slots[3] + res[3]
        cu = st.car_use[p]
        if cu or jok:                            # keep a typed token: Jokers / caravans pay instead
            out += _SPARES[(w > 0) | (g > 0) << 1 | (s > 0) << 2]
        if cu:                                   # a caravan cashed into a held token of choice
            reserve = st.reserve
            out += _CASHES[(reserve[0] > 0) | (reserve[1] > 0) << 1 | (reserve[2] > 0) << 2]
        sources = []                             # production buildings and the Port built before this turn
        port = False
        todo = []
        turn = st.turn
        i = -1
        for k, space, built, _steps, _no, built_turn, fresh in pcs:
            i += 1
            if built:
                if built_turn < turn:
                    if k == CARP or k == MASON or k == GOLDS:
                        sources.append((NEAR[space], PRODUCES[k]))
                    elif k == PORT:
                        port = True
            elif not (k == PYR and fresh == 2):     # one Pyramid step per turn (7.4)
                todo.append(i)
        for i in todo:
            self._piece_pay_ways(out, i, pcs[i], sources, port, w, g, s, jok, cu)

    def _piece_pay_ways(self, out: list, i: int, pc: list, sources: list, port: bool,
                        w: int, g: int, s: int, jok: int, cu: int) -> None:
        """Every way to pay for building piece i (project_cost and port_reduces, with the reducing
        buildings gathered once), holding w, g, s typed tokens, jok Jokers and cu caravan credits."""
        space = pc[1]
        bit = 1 << space
        cw, cg, cs = PYRAMIDS[pc[4]][1] if pc[0] == PYR else COST[pc[0]]
        for near, t in sources:
            if near & bit:
                if t == 0:
                    if cw > 0:
                        cw -= 1
                elif t == 1:
                    if cg > 0:
                        cg -= 1
                elif cs > 0:
                    cs -= 1
        gw, gg, gs = cw - w, cg - g, cs - s          # tokens missing per type
        missing = (gw if gw > 0 else 0) + (gg if gg > 0 else 0) + (gs if gs > 0 else 0)
        if port and bit & NILE_MASK and (cw > 0 or cg > 0 or cs > 0):
            # the Port's -1 on a type the cost still has: one token fewer missing when that type was short
            for pt, c, gap in ((0, cw, gw), (1, cg, gg), (2, cs, gs)):
                if c > 0:
                    self._pay_ways(out, i, RES[pt], missing - 1 if gap > 0 else missing, jok, cu)
        elif missing <= jok + cu:                 # else no way to pay (the common case)
            self._pay_ways(out, i, "-", missing, jok, cu)

    @staticmethod
    def _pay_ways(out: list, i: int, port_type: str, short: int, jok: int, cu: int) -> None:
        """Append the build actions for piece i: every split of the `short` missing tokens between
        Jokers and caravan credits the seat has (§7.2, R-02), the most Jokers first."""
        if short > jok + cu:
            return
        for j in range(short if short < jok else jok, -1, -1):
            c = short - j
            if c > cu:
                break
            out.append(["build", i, port_type, j, c])

    def _legal_store(self, st: SareState, p: int) -> list:
        res = st.res[p]
        if res[3] > 0:                               # a Joker: turned into a type the reserve has, or discarded
            r = st.reserve
            return list(_JOKERS[(r[0] > 0) | (r[1] > 0) << 1 | (r[2] > 0) << 2])
        return list(_DISCARDS[(res[0] > 0) | (res[1] > 0) << 1 | (res[2] > 0) << 2])

    # -------------------------------------------------------------- apply
    def apply(self, st: SareState, event) -> None:
        ver, stage = st.ver, st.stage
        step = st._es if st._ev == ver else self.expected(st)
        if step.__class__ is Decide:
            if not isinstance(event, Act):
                raise _ill(f"expected a decision by seat {step.seat}, got {type(event).__name__}", "3.1")
            seat = step.seat
            if event.seat != seat:
                raise _ill(f"it is seat {seat}'s decision, not seat {event.seat}'s", "3.1")
            a = event.action
            if type(a) is not list:
                a = _norm(a)
            lc = st._lc                              # legal_actions was asked first: its cached list
            legal = lc[2] if lc is not None and lc[0] == ver and lc[1] == seat else self._cached_legal(st, seat)
            if a is None or a not in legal:
                raise _ill(f"{event.action!r} is not legal now ({self._rule_hint(st)})", self._rule_hint(st))
            _ACT_AT[stage](self, st, seat, a)
        else:
            self._apply_event(st, step, event)
        st.ver = ver + 1
        if st._bkv == ver and stage not in _BUILDING:       # nothing built or demolished: still valid
            st._bkv = ver + 1
        if not st.reveal_q and st.stage in _ADVANCING:      # else _advance has nothing to do
            self._advance(st)

    def _apply_event(self, st: SareState, step: Any, event) -> None:
        """apply, for the steps that are not a decision: checks the event, then carries it out."""
        if isinstance(step, Random):
            if not isinstance(event, Rolled) or not isinstance(event.values, (list, tuple)) or len(event.values) != 1:
                raise _ill("expected the joint random draw", "3.1")
            self._rolled(st, event.values[0])
        elif isinstance(step, DeckShuffle):
            self._apply_shuffled(st, step, event)
        elif isinstance(step, DeckReveal):
            self._apply_revealed(st, step, event)
        elif isinstance(step, DeckShow):
            if not isinstance(event, DeckShown) or event.seat != step.seat or tuple(event.handles) != step.handles:
                raise _ill(f"expected the private show of {list(step.handles)} to seat {step.seat}", "3.1")
            self._shown(st)
        elif isinstance(step, DeckReturn):
            self._apply_returned(st, step, event)
        else:
            raise _ill("the game is over", "8.1")

    def _apply_shuffled(self, st: SareState, step: DeckShuffle, event) -> None:
        if (not isinstance(event, DeckShuffled) or event.deck != step.deck
                or not isinstance(event.handles, (list, tuple))
                or len(event.handles) != len(step.cards) or not _fresh_ints(event.handles)):
            raise _ill(f"expected the shuffle of deck {step.deck!r} ({len(step.cards)} cards)", "3.1")
        self._shuffled(st, list(event.handles))

    def _apply_revealed(self, st: SareState, step: DeckReveal, event) -> None:
        if (not isinstance(event, DeckRevealed) or not isinstance(event.cards, (list, tuple))
                or tuple(event.handles) != step.handles or len(event.cards) != len(step.handles)
                or not _card_ids(event.cards)):
            raise _ill(f"expected the reveal of handles {list(step.handles)}", "3.1")
        self._revealed(st, list(event.cards))

    def _apply_returned(self, st: SareState, step: DeckReturn, event) -> None:
        if (not isinstance(event, DeckReturned) or event.seat != step.seat or event.deck != step.deck
                or event.position != step.position or len(event.kept) != len(step.handles) - 1
                or not _fresh_ints((event.returned, *event.kept))):
            raise _ill("expected the Temple's face-down return", "6.1")
        self._returned(st, event.returned, list(event.kept))

    def _rule_hint(self, st: SareState) -> str:
        return {"setup": "2.2", "p1": "4", "poll": "5.3", "market": "6.4", "palace": "5.5", "tw": "5.5",
                "market_final": "6.4", "p3": "7", "store": "7.5", "temple_pos": "6.1"}.get(st.stage, "3.1")

    # -------------------------------------------------------------- chance / deck events
    def _rolled(self, st: SareState, v: Any) -> None:
        if st.stage == "order":
            if (not isinstance(v, (list, tuple)) or any(type(x) is not int for x in v)
                    or sorted(v) != list(range(st.n))):
                raise _ill("seat order must be a permutation", "2.1")
            st.order = list(v)
            if st.architect:                         # Warehouse and Master Builder on the top-left space
                for p in range(st.n):
                    st.pieces[p] = [[WH, ARCH_START, 1, 0, 0, 0, 0], [MB, ARCH_START, 1, 0, 0, 0, 0]]
                st.stage = "p1_next"
                st.phase = "p1"
            else:
                st.phase = "setup"
                st.stage = "setup"
            st.cur = 0
        else:
            if type(v) is not int or not 0 <= v < len(st.dbl_pile):
                raise _ill("double-resource draw out of range", "5.1")
            st.dbl = st.dbl_pile.pop(v)
            st.stage = "shuffle"

    def _shuffled(self, st: SareState, handles: list) -> None:
        if st.stage == "shuffle":
            for p in range(st.n):
                st.palace_cards[p] = []
                st.kept_cards[p] = []
                st.kept[p] = []
            st.discard, st.removed, st.hosh, st.dark = [], [], [], []
            st.aside = handles[0]                    # set aside unseen (5.2)
            st.shoe = handles[1:]
            st.top = []
            st.stage = "poll_start"
        else:                                        # darkness pile (5.7)
            st.dark = handles
            st.discard = []
            st.stage = "after_card"

    def _revealed(self, st: SareState, cards: list) -> None:
        if st.reveal_q:                              # Temple kept cards shown when the season ends (6.1)
            for h, c in zip(st.reveal_q, cards):
                if st.shoe and h == st.shoe[0]:      # the top of a face-up shoe (SR-14)
                    st.top = [h, c]
                    continue
                for p in range(st.n):
                    if h in st.kept[p]:
                        st.kept[p].remove(h)
                        st.kept_cards[p].append(c)
                        k = CARD_KIND[c]
                        if st.status[p] == 1 and k <= 2 and take(st, k):
                            st.gain[p][k] += 1
            st.reveal_q = []
            return
        # a draw from the shoe (5.4), with the darkness loss first (5.7)
        if st.dark:
            st.dark.pop(0)
            dc = cards[0]
            k = CARD_KIND[dc]
            if k <= 2 and st.display[k] > 0:
                st.display[k] -= 1
                st.reserve[k] += 1
            st.removed.append(dc)
            cards = cards[1:]
        self._draw(st, st.top[1] if self._top_public(st) else cards[0])

    def _top_public(self, st: SareState) -> bool:
        return bool(st.top) and bool(st.shoe) and st.top[0] == st.shoe[0] and st.top[1] >= 0

    def _show_top(self, st: SareState) -> None:
        """Face-up shoe (SR-14): the top card is public unless the Temple put a card face down on it."""
        if st.shoe_face == "up" and st.shoe and not (st.top and st.top[0] == st.shoe[0]):
            st.reveal_q.append(st.shoe[0])

    def _draw(self, st: SareState, card: int) -> None:
        st.shoe.pop(0)
        st.top = []
        st.card = card
        st.lone = st.status.count(0) == 1              # len(standing(st)) == 1
        st.taken = False
        st.cur = 0
        st.stage = "palace_next"

    def _shown(self, st: SareState) -> None:
        if st.stage == "oracle_show":
            st.oracle[st.sub[1]] = 1
            st.sub = []
            st.stage = "poll"
        elif len(st.temple_hand) == 2:
            st.stage = "temple_pos"
        else:
            st.kept[st.temple_owner] = list(st.temple_hand)
            st.temple_hand = []
            st.temple_owner = -1
            st.stage = "poll"

    def _returned(self, st: SareState, returned: int, kept: list) -> None:
        if st.temple_pos == "top":
            st.shoe.insert(0, returned)
            st.top = [returned, -1]                  # "place the other face down on the top"
        else:
            st.shoe.append(returned)
            self._show_top(st)
        st.kept[st.temple_owner] = kept
        st.temple_hand = []
        st.temple_owner = -1
        st.temple_pos = ""
        st.stage = "poll"

    # -------------------------------------------------------------- decisions
    def _act_setup(self, st: SareState, p: int, a: list) -> None:
        st.pieces[p] = [[WH, a[1], 1, 0, 0, 0, 0], [MB, a[2], 1, 0, 0, 0, 0]]
        st.cur += 1
        if st.cur >= st.n:
            st.phase = "p1"
            st.stage = "p1_next"
            st.cur = 0

    def _act_market(self, st: SareState, p: int, a: list) -> None:
        if a[0] == "done":
            st.stage = st.sub[4]
            if st.stage == "poll" and st.status[p] != 0:   # a laid-down owner's Market-only slot
                st.stage = "poll_next"
                st.cur += 1
            elif st.stage == "market_final":
                st.stage = "mf_next"
                st.cur += 1
            st.sub = []
        else:
            t = st.sub[2]
            x, y = RES_INDEX[a[1]], RES_INDEX[a[2]]
            st.res[p][x] -= 1
            st.res[t][x] += 1
            st.res[t][y] -= 1
            st.res[p][y] += 1
            st.sub[3] -= 1

    def _act_palace(self, st: SareState, p: int, a: list) -> None:
        if a[0] == "palace":
            st.used[p] |= 1 << PALACE
            st.palace_cards[p].append(st.card)
            st.taken = True
            st.stage = "resolve"
        else:
            st.cur += 1
            st.stage = "palace_next"

    def _act_tw(self, st: SareState, p: int, a: list) -> None:
        op = a[0]
        if op == "gardens":
            st.used[p] |= 1 << GARDENS
            st.tlev[p] = 1
        elif op == "library":
            st.used[p] |= 1 << LIB
            st.tlev[p] = 0
            if take(st, 3):
                st.lib_j[p] += 1
        else:
            st.cur += 1
            st.stage = "tw_next"

    def _act_market_final(self, st: SareState, p: int, a: list) -> None:
        if a[0] == "market":
            self._start_market(st, p, a[1], "market_final")
        else:
            st.cur += 1
            st.stage = "mf_next"

    def _act_temple_pos(self, st: SareState, p: int, a: list) -> None:
        st.temple_pos = a[1]
        st.stage = "temple_ret"

    def _act_store(self, st: SareState, p: int, a: list) -> None:
        t = RES_INDEX[a[1]]
        if a[0] == "joker":
            st.res[p][3] -= 1
            st.reserve[3] += 1
            st.reserve[t] -= 1
            st.res[p][t] += 1
        else:
            st.res[p][t] -= 1
            st.reserve[t] += 1

    def _start_market(self, st: SareState, p: int, t: int, back: str) -> None:
        st.used[p] |= 1 << MARKET
        st.sub = ["market", p, t, sum(st.res[p][:3]), back]
        st.stage = "market"

    def _act_p1(self, st: SareState, p: int, a: list) -> None:
        op = a[0]
        pcs = st.pieces[p]
        if op == "done":
            st.cur += 1
            st.stage = "p1_next"
        elif op == "project":
            k = KIND_INDEX[a[1]]
            if k == PYR:
                no = st.pyr_avail.pop(0) if len(a) == 3 else st.pyr_avail.pop(st.pyr_avail.index(a[3]))
                pcs.append([PYR, a[2], 0, 0, no, 0, 1])
            else:
                st.board[k] -= 1
                pcs.append([k, a[2], 0, 0, 0, 0, 1])
                if k in PRODUCTION:
                    st.p1_new[p] |= 1 << k
        elif op == "move":
            pc = pcs[a[1]]
            pc[1] = a[2]
            pc[6] = 1
        else:
            self._remove_piece(st, p, a[1])

    def _remove_piece(self, st: SareState, p: int, i: int) -> None:
        """Cancel or demolish: the tile goes back (4.4)."""
        pc = st.pieces[p].pop(i)
        k = pc[0]
        if k == PYR:
            st.pyr_avail.append(pc[4])
            st.pyr_avail.sort()
            st.reserve[3] += st.ptok[p]
            st.ptok[p] = 0
        else:
            st.board[k] += 1
        if k in PRODUCES:                        # tokens lying on a demolished card are lost (SR-07)
            t = PRODUCES[k]
            extra = st.slots[p][t] - self._producers(st, p, t)
            if extra > 0:
                st.slots[p][t] -= extra
                st.reserve[t] += extra

    def _producers(self, st: SareState, p: int, t: int) -> int:
        count = 0
        for pc in st.pieces[p]:
            if pc[2] and PRODUCES.get(pc[0], -1) == t:
                count += 1
        return count

    def _act_poll(self, st: SareState, p: int, a: list) -> None:
        op = a[0]
        if op == "continue" or op == "pass":
            st.cur += 1
            st.stage = "poll_next"
        elif op == "stop":
            self._stop(st, p)
            st.cur += 1
            st.stage = "poll_next"
        elif op == "gold":
            st.res[p][1] -= 1
            st.reserve[1] += 1
            st.rev[p] -= 1
            st.poll_gold = True
        elif op == "barracks":
            st.used[p] |= 1 << BARR
            if st.rev[p] > st.black[p]:
                st.rev[p] -= 1
            st.rev[a[1]] += 1
        elif op == "market":
            self._start_market(st, p, a[1], "poll")
        elif op == "temple":
            st.used[p] |= 1 << TEMPLE
            k = min(2, len(st.shoe))
            st.temple_hand = st.shoe[:k]
            del st.shoe[:k]
            st.temple_owner = p
            st.stage = "temple_show"
        elif op == "oracle":
            st.sub = ["oracle", p]
            st.stage = "oracle_show"

    def _act_p3(self, st: SareState, p: int, a: list) -> None:
        op = a[0]
        if op == "done":
            st.stage = "store"
            return
        if op == "demolish":
            self._remove_piece(st, p, a[1])
            return
        if op == "spare":
            st.spare[p][RES_INDEX[a[1]]] += 1
            return
        if op == "cash":                              # "one resource of your choice" (7.5, R-10)
            t = RES_INDEX[a[1]]
            take(st, t)
            st.res[p][t] += 1
            st.car[p] -= 1
            st.car_use[p] -= 1
            return
        if op == "charter":
            st.charter[p] = 1
            revolt = st.status[p] == 2
            for name in a[1:]:
                t = RES_INDEX[name]
                _pay_types(st, p, t, 1, use_slots=not revolt)
            st.car[p] += 1
            return
        # build: ["build", idx, port_type, jokers, caravans]
        pc = st.pieces[p][a[1]]
        pt = RES_INDEX[a[2]] if a[2] != "-" else -1
        cost = project_cost(st, p, pc, pt)
        slots, res, spare = st.slots[p], st.res[p], st.spare[p]
        for t in TYPES3:
            use = min(cost[t], slots[t] + res[t] - spare[t])
            if use:
                _pay_types(st, p, t, use)
        j = a[3]
        if j:
            _pay_types(st, p, 3, j)
        if a[4]:
            st.car[p] -= a[4]
            st.car_use[p] -= a[4]
        if pc[0] == PYR:
            pc[3] += 1
            pc[6] = 2
            st.done_mask[p] |= PYR_STARTED
            if take(st, 3):                           # a Joker token marks the step (7.4)
                st.ptok[p] += 1
            if pc[3] >= PYRAMIDS[pc[4]][0]:
                pc[2] = 1
                pc[5] = st.turn
                st.done_mask[p] |= 1 << PYR
        else:
            pc[2] = 1
            pc[5] = st.turn
            if pc[0] not in PRODUCTION:
                st.done_mask[p] |= 1 << pc[0]
        self._growth(st, p)

    def _growth(self, st: SareState, p: int) -> None:
        g = st.growth[p]
        if not g & 1 and st.done_mask[p] & ((1 << PORT) | (1 << PYR)):
            g |= 1
            st.black[p] += 1
        if not g & 2 and bin(st.done_mask[p] & ADMIN_MASK).count("1") >= 2:
            g |= 2
            st.black[p] += 1
        st.growth[p] = g
        if st.rev[p] < st.black[p]:
            st.rev[p] = st.black[p]

    # -------------------------------------------------------------- season helpers
    def _stop(self, st: SareState, p: int) -> None:
        """The seat lays down its Obelisk and collects (5.6)."""
        st.status[p] = 1
        st.down.append(p)
        g = st.gain[p]
        for t in TYPES3:
            d = st.display[t]
            if d and take(st, t, d):
                g[t] += d
        for c in st.palace_cards[p]:
            k = CARD_KIND[c]
            if k <= 2 and take(st, k):
                g[k] += 1
        g[3] += st.lib_j[p]
        st.lib_j[p] = 0
        if st.dbl_first < 0 and not _dbl_has_gold(st.dbl):
            st.dbl_first = p
            self._award_double(st, p)

    def _award_double(self, st: SareState, p: int) -> None:
        a, b = DOUBLE[st.dbl]
        if a == b:
            if take(st, a, 2):
                st.gain[p][a] += 2
        else:
            for t in (a, b):
                if take(st, t):
                    st.gain[p][t] += 1

    def _revolt(self, st: SareState, p: int) -> None:
        """The cube reached the red space (5.9)."""
        st.status[p] = 2
        st.rev[p] = RED
        cap = capacity(st, p)
        for t in TYPES3:
            if take(st, t):
                if sum(st.res[p][:3]) < cap:
                    st.res[p][t] += 1
                else:
                    st.gain[p][t] += 1
        st.reserve[3] += st.lib_j[p]
        st.lib_j[p] = 0

    def _resolve(self, st: SareState) -> None:
        c = st.card
        k = CARD_KIND[c]
        if st.taken:                                   # requisitioned by a Palace: no effect (6.5)
            if k >= TR1 and st.lone:
                self._lone_stop(st)
            st.stage = "after_card"
        elif k <= 2:
            if take(st, k):
                st.display[k] += 1
            st.discard.append(c)
            st.stage = "after_card"
        elif k >= TR1:
            lev = 1 if k == TR1 else 2
            st.tlev = [lev] * st.n
            if st.in_horus:
                self._apply_troubles(st)
            else:
                st.cur = 0
                st.stage = "tw_next"
        elif k == HORUS:
            st.discard.append(c)
            st.horus += 2
            st.stage = "after_card"
        else:                                          # Hoshekh: darkness (5.7)
            st.hosh.append(c)
            if st.dark or st.discard:
                st.stage = "dark_shuffle"
            else:
                st.stage = "after_card"

    def _apply_troubles(self, st: SareState) -> None:
        for i in range(st.n):
            p = seat_at(st, i)
            if st.status[p] == 0 and st.tlev[p]:
                st.rev[p] += st.tlev[p]
                if st.rev[p] >= RED:
                    self._revolt(st, p)
        st.discard.append(st.card)
        st.tlev = []
        if st.lone:
            self._lone_stop(st)
        st.stage = "after_card"

    def _lone_stop(self, st: SareState) -> None:
        for p in standing(st):
            self._stop(st, p)

    # -------------------------------------------------------------- automatic transitions
    def _advance(self, st: SareState) -> None:
        """Move on through the stages that need no decision nor event, up to the next that does.
        Each stage's step (_ADVANCE_AT) returns True where the game waits."""
        steps = _ADVANCE_AT
        while not st.reveal_q:
            step = steps.get(st.stage)
            if step is None or step(self, st):
                return

    def _adv_poll_next(self, st: SareState) -> bool:
        st.poll_gold = False
        n = st.n
        order, fp, status = st.order, st.fp, st.status
        cur = st.cur
        while cur < n:                          # the next seat polled: standing, or lying down with
            p = order[(fp + cur) % n]           # a Market or the oracle still to use (SR-24, R-05)
            if status[p] == 0 or (status[p] == 1 and (_can_use(st, p, MARKET) or self._oracle_open(st, p))):
                break
            cur += 1
        st.cur = cur
        if cur < n:
            st.stage = "poll"
            return True
        if 0 in status:                         # someone still stands
            st.in_horus = False
            st.stage = "draw"
        else:
            st.stage = "season_end"
        return False

    def _adv_store(self, st: SareState) -> bool:
        p = st.order[(st.fp + st.cur) % st.n]
        res = st.res[p]
        if res[3] > 0 or res[0] + res[1] + res[2] > capacity(st, p):
            return True
        st.cur += 1
        st.stage = "p3_next"
        return False

    def _adv_p1_next(self, st: SareState) -> bool:
        if st.cur >= st.n:
            self._start_p2(st)
            return False
        st.stage = "p1"
        return True

    def _adv_p3_next(self, st: SareState) -> bool:
        if st.cur >= st.n:
            self._end_turn(st)
            return False
        st.stage = "p3"
        return True

    def _adv_poll_start(self, st: SareState) -> bool:
        st.cur = 0
        st.stage = "poll_next"
        self._show_top(st)
        return False

    def _adv_draw(self, st: SareState) -> bool:
        if not st.shoe:                         # empty shoe: everyone still standing stops (SR-27)
            st.horus = 0
            self._lone_stop(st)
            st.stage = "season_end"
        elif self._top_public(st) and not st.dark:   # face-up top: drawn without a reveal
            self._draw(st, st.top[1])
        else:
            return True
        return False

    def _adv_palace_next(self, st: SareState) -> bool:
        n = st.n
        order, fp, status = st.order, st.fp, st.status
        cur = st.cur
        used = st.used
        while cur < n:                          # the next standing seat with a Palace on its day side
            p = order[(fp + cur) % n]
            if status[p] == 0 and not used[p] >> PALACE & 1 and _built_mask(st, p) >> PALACE & 1:
                break
            cur += 1
        st.cur = cur
        if cur < n:
            st.stage = "palace"
            return True
        st.stage = "resolve"
        return False

    def _adv_resolve(self, st: SareState) -> bool:
        self._resolve(st)
        return False

    def _adv_after_card(self, st: SareState) -> bool:
        st.card = -1
        if 0 not in st.status:                  # nobody stands
            st.horus = 0
            st.in_horus = False
            st.stage = "season_end"
        elif st.horus > 0 and st.shoe:
            st.horus -= 1
            st.in_horus = True
            st.stage = "draw"
        else:
            st.horus = 0
            st.in_horus = False
            st.stage = "poll_start"
        return False

    def _adv_season_end(self, st: SareState) -> bool:
        st.cur = 0
        st.stage = "mf_next"
        # Temple kept cards stay secret while anyone pushes their luck; revealed (and a
        # Resource credited to a lying-down owner) once nobody stands (6.1)
        for i in range(st.n):
            st.reveal_q.extend(st.kept[seat_at(st, i)])
        return False

    def _adv_mf_next(self, st: SareState) -> bool:
        if _seek(st, lambda p: st.status[p] == 1 and _can_use(st, p, MARKET)):
            st.stage = "market_final"
            return True
        self._finish_season(st)
        return False

    def _adv_tw_next(self, st: SareState) -> bool:
        if _seek(st, lambda p: st.status[p] == 0 and ((st.tlev[p] == 2 and _can_use(st, p, GARDENS))
                                                  or (st.tlev[p] == 1 and _can_use(st, p, LIB)))):
            st.stage = "tw"
            return True
        self._apply_troubles(st)
        return False

    def _adv_tw(self, st: SareState) -> bool:
        p = seat_at(st, st.cur)                 # after Gardens, the same seat may add the Library
        if (st.tlev[p] == 1 and _can_use(st, p, LIB)):
            return True
        st.cur += 1
        st.stage = "tw_next"
        return False

    def _start_p2(self, st: SareState) -> None:
        st.phase = "p2"
        order, fp, n = st.order, st.fp, st.n
        rev, black, status = st.rev, st.black, st.status
        for i in range(n):                             # Master Builder grumbling (4.2), in turn order
            p = order[(fp + i) % n]
            pen = 0                                    # projects beyond the built Master Builders
            for pc in st.pieces[p]:
                if not pc[2]:
                    pen += 1
                elif pc[0] == MB:
                    pen -= 1
            r = black[p] + pen if pen > 0 else black[p]
            rev[p] = r if r < RED else RED
            status[p] = 0
            if r >= RED:
                self._revolt(st, p)
        if not st.dbl_pile:
            st.dbl_pile = list(range(len(DOUBLE)))
        st.dbl = -1
        st.dbl_first = -1
        st.down = []
        st.display = [0, 0, 0]
        st.oracle = [0] * st.n
        st.stage = "dbl"

    def _finish_season(self, st: SareState) -> None:
        if _dbl_has_gold(st.dbl) and st.down:          # the last to lie down wins a Gold double card (5.1)
            self._award_double(st, st.down[-1])
        reserve, display = st.reserve, st.display
        reserve[0] += display[0]
        reserve[1] += display[1]
        reserve[2] += display[2]
        st.display = [0, 0, 0]
        st.phase = "p3"
        for p in range(st.n):
            g = st.gain[p]
            r = st.res[p]
            r[0] += g[0]
            r[1] += g[1]
            r[2] += g[2]
            r[3] += g[3]
            st.gain[p] = [0, 0, 0, 0]
            st.car_use[p] = st.car[p]
            st.charter[p] = 0
            st.spare[p] = [0, 0, 0]
        st.cur = 0
        st.stage = "p3_next"

    def _end_turn(self, st: SareState) -> None:
        n = st.n
        goal = GOAL[st.scenario]
        met = [p for p in range(n) if progress(st, p) == goal]      # goal_met (the refill below moves no progress)
        over = bool(met) or st.turn >= st.turn_limit
        _refill_slots(st, over)
        if over:
            self._end_game(st, met)
            return
        st.turn += 1
        st.fp = (st.fp + 1) % n                        # the shoe passes to the left (8.3)
        for p in range(n):
            st.status[p] = 0
            st.rev[p] = st.black[p]
            st.used[p] = 0
            st.p1_new[p] = 0
        st.phase = "p1"
        st.cur = 0
        st.stage = "p1_next"

    def _end_game(self, st: SareState, met: list) -> None:
        """8.1: the game ends; the winners are the seats that met the goal, else (the turn limit)
        the seats furthest along, each by the tie-breaks."""
        n = st.n
        cands = met or list(range(n))
        if met:
            keys = {p: tiebreak_key(st, p) for p in cands}
            st.end_reason = "goal"
        else:
            keys = {p: (progress(st, p),) + tiebreak_key(st, p) for p in cands}
            st.end_reason = "turn_limit"
        best = max(keys.values())
        st.winners = sorted(p for p in cands if keys[p] == best)
        st.scores = [progress(st, p) for p in range(n)]
        st.phase = "over"
        st.stage = "over"

    # -------------------------------------------------------------- the rest of the interface
    def reveals(self, st: SareState, seat: int, action: Any) -> list:
        return []

    def result(self, st: SareState) -> dict | None:
        if st.phase != "over":
            return None
        return {"winners": list(st.winners), "scores": list(st.scores), "reason": st.end_reason,
                "turns": st.turn, "scenario": st.scenario}

    def clone(self, st: SareState) -> SareState:
        new = SareState.__new__(SareState)
        for f in FIELDS:
            v = getattr(st, f)
            setattr(new, f, copy_lists(v) if type(v) is list else v)
        new.ver = st.ver
        new._lc = None
        new._ev = -1
        new._bkv = -1
        return new

    def encode(self, st: SareState) -> dict:
        return {f: copy_lists(getattr(st, f)) for f in FIELDS}

    def decode(self, value: dict) -> SareState:
        if not isinstance(value, dict) or set(value) != set(FIELDS):
            raise ValueError("not an encoded Sa-Rê state")
        st = SareState.__new__(SareState)
        for f in FIELDS:
            setattr(st, f, copy_lists(value[f]))
        st.ver = 0
        st._lc = None
        st._ev = -1
        st._bkv = -1
        return st

    def view(self, st: SareState, seat: int | None, knowledge: dict | None = None) -> dict:
        return build_view(self, st, seat, knowledge or {})


def _dbl_has_gold(d: int) -> bool:
    return d >= 0 and 1 in DOUBLE[d]


def _fresh_ints(hs) -> bool:
    """Distinct positive ints (new deck handles)."""
    return not hs or (set(map(type, hs)) == _INT and min(hs) > 0 and len(set(hs)) == len(hs))


def _card_ids(cards) -> bool:
    """Season card ids (ints 0..N_CARDS-1); one or two at a time, so a plain loop."""
    for c in cards:
        if type(c) is not int or not 0 <= c < N_CARDS:
            return False
    return True


_INT = {int}


def _norm(action: Any) -> Any:
    """Actions arrive as lists (msgpack) or tuples (Python callers): compare as lists."""
    if isinstance(action, tuple):
        action = list(action)
    return action if isinstance(action, list) else None


_BUILDING = frozenset(("order", "setup", "p1", "p3"))
"""The stages whose steps can change which kinds a seat has built (the Architect's start, the setup,
builds and demolitions): _built_mask's cache is not carried over them."""
_ADVANCING = frozenset(("p1_next", "poll_start", "poll_next", "draw", "palace_next", "resolve", "tw_next", "tw",
                        "after_card", "season_end", "mf_next", "p3_next", "store"))
"""The stages _advance moves on from by itself (at every other stage it waits for an event)."""

def _refill_slots(st: SareState, over: bool) -> None:
    """7.6, SR-11: every seat's production cards refilled from the reserve, and this turn's marks
    on the pieces cleared (a placed or moved mark stays on the final state when the game ends)."""
    reserve = st.reserve
    for p in range(st.n):
        producers = [0, 0, 0, 0]                   # _producers(st, p, t) for every t
        for pc in st.pieces[p]:
            mark = pc[6]                           # 2: this turn's Pyramid step; 1: placed or moved this turn,
            if mark and (mark == 2 or not over):   # which stays on the final state when the game ends here
                pc[6] = 0
            if pc[2] and pc[0] in PRODUCES:
                producers[PRODUCES[pc[0]]] += 1
        slots = st.slots[p]
        for t in range(4):
            need = producers[t] - slots[t]
            if need > 0:                           # one token at a time while the reserve has one
                if need > reserve[t]:
                    need = reserve[t]
                slots[t] += need
                reserve[t] -= need


def _lone_near(pcs: list) -> int:
    """Architect (projects_stay_placed for every built piece at once): the spaces whose built piece
    must stay, because a project has no other built piece on or next to it; every space when a
    project is already stranded."""
    once = twice = projects = 0              # spaces on or next to at least one / two built pieces
    for pc in pcs:
        if pc[2]:
            near = NEAR[pc[1]]
            twice |= once & near
            once |= near
        else:
            projects |= 1 << pc[1]
    if projects & ~once:
        return ALL_SPACES
    lone = 0
    for s in SPACES_IN[projects & ~twice]:     # near exactly one built piece: the one on a space near it
        lone |= NEAR[s]
    return lone

def _p3_demolitions(pcs: list, res: list, out: list) -> None:
    """Architect: the built pieces a seat may demolish in its construction phase (R-04):
    _can_demolish for every built piece, its facts gathered once."""
    m = wh = n_proj = 0
    for pc in pcs:
        if not pc[2]:
            n_proj += 1
        elif pc[0] == MB:
            m += 1
        elif pc[0] == WH:
            wh += 1
    lone = _lone_near(pcs)
    mb_ok = m > 1 and n_proj <= 2 * (m - 1)
    wh_ok = res[0] + res[1] + res[2] <= WH_CAP * (wh - 1)
    for i, pc in enumerate(pcs):
        if pc[2] and not lone >> pc[1] & 1 and (mb_ok if pc[0] == MB else wh_ok if pc[0] == WH else True):
            out.append(_DEMOLISH[i])


_DECIDE = tuple(Decide(seat) for seat in range(4))       # steps are frozen: one instance per seat
_DRAW_DOUBLE = tuple(Random((("int", k),)) for k in range(len(DOUBLE) + 1))     # by the double cards left
_FINISHED = Finished()

# shared, never mutated action lists (legal_actions is called on every decision)
_DONE = ["done"]
_SPARE = [["spare", RES[t]] for t in range(3)]
_CASH = [["cash", RES[t]] for t in range(3)]
_PLACES = tuple(["place", a, b] for a in range(N_SPACES) for b in range(N_SPACES))
_CONTINUE, _STOP, _GOLD, _TEMPLE, _ORACLE, _PASS = ["continue"], ["stop"], ["gold"], ["temple"], ["oracle"], ["pass"]
_BARRACKS = [["barracks", t] for t in range(4)]
_MARKETS = [[tuple(["market", t] for t in range(n) if t != p) for p in range(n)] for n in range(5)]   # [n][seat]
_JOKERS = tuple(tuple(["joker", RES[t]] for t in range(3) if m >> t & 1) + (["discard", "J"],) for m in range(8))
_DISCARDS = tuple(tuple(["discard", RES[t]] for t in range(3) if m >> t & 1) for m in range(8))
_SPARES = tuple(tuple(_SPARE[t] for t in range(3) if m >> t & 1) for m in range(8))     # by a mask of types
_CASHES = tuple(tuple(_CASH[t] for t in range(3) if m >> t & 1) for m in range(8))
_CHARTER = [[["charter", RES[a], RES[b]] for b in range(4)] for a in range(4)]


def _charters(have: tuple) -> tuple:
    """The caravan charters payable with `have` tokens of each type ([W, G, S, J], counted to 2)."""
    return tuple(_CHARTER[a][b] for a in range(4) if have[a] for b in range(a, 4) if have[b] - (a == b) > 0)


_CHARTERS = tuple(_charters((w, g, s, j)) for w in range(3) for g in range(3) for s in range(3) for j in range(3))
_NO_PORT = (-1,)
_PROJECT = [[["project", KINDS[k], s] for s in range(N_SPACES)] for k in range(13)]
_MAX_PIECES = 64          # a seat's pieces: at most 4 tiles of each of 12 kinds, a Pyramid, the 2 starting ones
_MOVE = [[["move", i, s] for s in range(N_SPACES)] for i in range(_MAX_PIECES)]
_CANCEL = [["cancel", i] for i in range(_MAX_PIECES)]
_DEMOLISH = [["demolish", i] for i in range(_MAX_PIECES)]
_HALF = (N_SPACES + 1) // 2
_LOW = (1 << _HALF) - 1


def _at_spaces(actions: list) -> tuple[tuple, tuple]:
    """Tables of the actions (one per space) at the spaces of a mask, in space order, by half masks:
    lo[mask & _LOW] + hi[mask >> _HALF] == [actions[s] for s in SPACES_IN[mask]] (two look-ups and two
    tuple concatenations instead of one step per space)."""
    lo = tuple(tuple(actions[s] for s in range(_HALF) if m >> s & 1) for m in range(1 << _HALF))
    hi = tuple(tuple(actions[_HALF + s] for s in range(N_SPACES - _HALF) if m >> s & 1)
               for m in range(1 << (N_SPACES - _HALF)))
    return lo, hi


_PROJECT_AT = [_at_spaces(actions) for actions in _PROJECT]
_MOVE_AT = [_at_spaces(actions) for actions in _MOVE]

_KIND_BITS = tuple(1 << k for k in range(12))        # the kinds with tiles on the board (st.board)
_POSITIVE = (0).__lt__
_PRODUCTION_KINDS = sum(1 << k for k in PRODUCTION)
_N_PRODUCTION = len(PRODUCTION)
assert PRODUCTION == frozenset(range(_N_PRODUCTION)), "the production kinds come first: k in PRODUCTION is k < 5"
_NON_PRODUCTION = sum(1 << k for k in range(13) if k not in PRODUCTION)


ENGINE = SareEngine()

_LEGAL_AT = {"setup": SareEngine._legal_setup, "p1": SareEngine._legal_p1, "poll": SareEngine._legal_poll,
             "market": SareEngine._legal_market, "palace": SareEngine._legal_palace, "tw": SareEngine._legal_tw,
             "market_final": SareEngine._legal_market_final, "p3": SareEngine._legal_p3,
             "store": SareEngine._legal_store}
"""The decision stages and their legal-action generators."""

_ADVANCE_AT = {"poll_next": SareEngine._adv_poll_next, "store": SareEngine._adv_store,
               "p1_next": SareEngine._adv_p1_next, "p3_next": SareEngine._adv_p3_next,
               "poll_start": SareEngine._adv_poll_start, "draw": SareEngine._adv_draw,
               "palace_next": SareEngine._adv_palace_next, "resolve": SareEngine._adv_resolve,
               "after_card": SareEngine._adv_after_card, "season_end": SareEngine._adv_season_end,
               "mf_next": SareEngine._adv_mf_next, "tw_next": SareEngine._adv_tw_next, "tw": SareEngine._adv_tw}
"""A stage that may need no decision nor event → its step in _advance (True: the game waits there)."""
_ACT_AT = {"setup": SareEngine._act_setup, "p1": SareEngine._act_p1, "poll": SareEngine._act_poll,
           "market": SareEngine._act_market, "palace": SareEngine._act_palace, "tw": SareEngine._act_tw,
           "market_final": SareEngine._act_market_final, "p3": SareEngine._act_p3, "store": SareEngine._act_store,
           "temple_pos": SareEngine._act_temple_pos}
"""The decision stages and what a legal action does there."""
