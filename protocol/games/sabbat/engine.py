"""Sabbat Magica rules engine (specs/sabbat-magica.md is its prose; section names there
are the `rule` of every IllegalAction raised here).

State layout (all public; hidden things are handles):
  * locations 0..7 are regions, 8..13 gardens (data.py); each is an ordered list of
    ghost entries, position 0 first. An entry is an int: owner seat (bits 0-1), "moved
    in this action" (bit 2), "protected by Secret area this round" (bit 3).
  * the drawbridge and the graveyard are counts per seat; `locked` counts the seat's
    drawbridge ghosts that arrived during the current action (they cannot move again).
  * resources are count lists [spider, rat tail, gemstone, mask] per store (h1, h2, the
    approval square); the cursed square holds 0 or 1 curse; chimaeras are a count.
"""

from __future__ import annotations

from typing import Any

from ... import engine as E
from . import data as D

MOVED = 4
PROT = 8
OWNER = 3

_DECIDING = frozenset(("turn", "bonus", "food", "alch", "secret", "canteen"))
_DECIDE = {s: E.Decide(s) for s in range(-1, 4)}        # steps are frozen: made once, shared
_INVOKE = {n: E.Simultaneous(tuple(range(n))) for n in range(2, 5)}
_FINISHED = E.Finished()

_PLACE = ("place",)
_PLACE_FIGHT = ("place", "fight")
_FIGHT_RETREAT = ("fight", "retreat")
_RETREAT = ("retreat",)


from .options import OPTIONS, POWER_LIMITS  # noqa: F401  (re-exported)
TILE_USED = -2                     # B.1 effect marker: the manor tile was used (a mirror m is m >= 0)
_STAGE_MARK = {"secret": 901, "bonus": 902, "food": 903, "alch": 904, "canteen": 905}


def _use_mark(st: "State") -> int:
    """What a POWER use is stamped with: the round (option power_limit "round", register R-9), or
    the round and the action (or the non-B stage) it was used in ("trigger")."""
    if st.power_limit == "round":
        return st.rnd
    return st.rnd * 1000 + (st.turn if st.stage == "turn" else _STAGE_MARK.get(st.stage, 999))


def _spent(st: "State", s: int) -> bool:
    if st.power_limit == "trigger" and st.sub == "immortal":
        return False               # each destroyed minion is a trigger of its own (RB 7.2 Gift of immortality)
    return st.pround[s] == _use_mark(st)


def _cap(x: int) -> int:
    return D.TERROR_MAX if x > D.TERROR_MAX else x


class State:
    __slots__ = ("n", "powers", "discard_leftovers", "magician_move", "power_limit", "people", "caps", "stage", "rnd", "order",
                 "time_card", "time_pile", "tiles", "gates", "aside", "mirrors", "mag", "vp",
                 "terror", "curse", "chim", "h1", "h2", "appr", "grave", "bridge", "locked",
                 "locs", "bonus_left", "idx", "turn", "sub", "args", "actor", "phandle", "pcard",
                 "pround", "boosted", "final", "_cache", "_fees")

    FIELDS = ("n", "powers", "discard_leftovers", "magician_move", "power_limit", "people", "stage", "rnd", "order",
              "time_card", "time_pile", "tiles", "gates", "aside", "mirrors", "mag", "vp",
              "terror", "curse", "chim", "h1", "h2", "appr", "grave", "bridge", "locked",
              "locs", "bonus_left", "idx", "turn", "sub", "args", "actor", "phandle", "pcard",
              "pround", "boosted", "final")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and all(getattr(self, f) == getattr(other, f) for f in self.FIELDS)

    def __repr__(self) -> str:
        return f"<sabbat State round {self.rnd} stage {self.stage}/{self.sub}>"


def _own_counts(st: State, s: int) -> list[int]:
    cnt = [0] * D.NLOC
    for l, L in enumerate(st.locs):
        for e in L:
            if e & OWNER == s:
                cnt[l] += 1
    return cnt


def _on_board(st: State, s: int) -> bool:
    """Whether seat s has a ghost in a region or garden."""
    for L in st.locs:
        for e in L:
            if e & OWNER == s:
                return True
    return False


def _holder(st: State, garden: int) -> tuple[int, int]:
    """(major seat, minor seat) of a garden, -1 where empty. A seat holding both gets only the major."""
    L = st.locs[garden]
    a = L[0] & OWNER if L else -1
    b = L[1] & OWNER if len(L) > 1 else -1
    if b == a:
        b = -1
    return a, b


def _garden_level(st: State, garden: int, s: int) -> int:
    """2 = major (position 1), 1 = minor (position 2), 0 = nothing (SM-23)."""
    a, b = _holder(st, garden)
    return 2 if a == s else 1 if b == s else 0


def _adjacent_adversaries(st: State, s: int) -> list[int]:
    p = st.mag[s]
    if p < 0:
        return []
    near = D.KING[p]
    return [o for o in range(st.n) if o != s and st.mag[o] in near]


_BRIDGE = D.BRIDGE
_NLOC = D.NLOC
_NEIGHBOURS = D.NEIGHBOURS
assert D.NRES == 4                  # _moves spells out the four resource types
_LOC_RANGE = range(D.NLOC)


def _check_types(a: list) -> None:
    for x in a:
        if type(x) is not int and type(x) is not str:
            raise E.IllegalAction(f"{a!r}: an action is a list of ints and strings", "flow")


def _region_fees(gates: list[int]) -> tuple[int, ...]:
    """Each location's gate fee as a bit set of resource types (0 for the gardens; empty before
    the set-up)."""
    if not gates:
        return ()
    return tuple(D.GATE_MASK[gates[D.REGION_GATE[r]]] for r in range(D.NREG)) + (0,) * D.NGAR


def _fight_costs(st: State, s: int) -> list[int]:
    """Terror seat s pays to beat one ghost of each seat: 2 for a seat ahead of it in the
    play order, 1 for one behind (The Fight)."""
    fc = [1, 1, 1, 1]
    for o in st.order:
        if o == s:
            break
        fc[o] = 2
    return fc


def _arrival(L: list[int], s: int, cap: int, fc: list[int], terror: int) -> tuple[str, ...]:
    """The arrival modes open to a ghost of seat s entering a location holding L (empty when
    it may not enter: the two-ghost limit). B.2 and The Fight."""
    if not L:
        return _PLACE
    own = cost = 0
    prot = False
    for e in L:
        o = e & OWNER
        if o == s:
            own += 1
        else:
            cost += fc[o]
        if e & PROT:
            prot = True
    if own >= D.MAX_OWN:
        return ()
    fight = cost and not prot and cost <= terror         # cost > 0: somebody to fight
    if len(L) < cap:
        return _PLACE_FIGHT if fight else _PLACE
    return _FIGHT_RETREAT if fight else _RETREAT


def _bridge_moves(st: State, s: int, out: list, arr: list, fc: list[int], terror: int) -> None:
    """B.2: the drawbridge ghost's moves (to each location whose gate fee seat s can pay, in
    order), noting each arrival worked out in arr."""
    locs = st.locs
    caps = st.caps
    h1, h2 = st.h1[s], st.h2[s]
    lacking = ((0 if h1[0] or h2[0] else 1) | (0 if h1[1] or h2[1] else 2)     # the resource types the
               | (0 if h1[2] or h2[2] else 4) | (0 if h1[3] or h2[3] else 8))  # seat holds none of
    for dst, fee in enumerate(st._fees):
        if fee & lacking:
            continue
        L = locs[dst]
        a = arr[dst] = _arrival(L, s, caps[dst], fc, terror) if L else _PLACE
        for m in a:
            out.append(["move", _BRIDGE, 0, dst, m])


class SabbatEngine:
    name = "sabbat"
    title = "Sabbat Magica"
    min_players = 2
    max_players = 4

    # ------------------------------------------------------------------ setup
    def default_options(self, players: int) -> dict[str, Any]:
        return {"powers": False, "peoples": list(range(players)), "leftovers": "keep",
                "magician_move": "literal", "power_limit": "trigger"}

    def new_game(self, options: dict[str, Any], players: int) -> State:
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            raise E.BadOptions(f"Sabbat Magica is for 2-4 players, not {players!r}")
        opts = E.check_options(OPTIONS, self.default_options(players), options, players)
        n = players
        st = State()
        st.n = n
        st.powers = opts["powers"]
        st.discard_leftovers = opts["leftovers"] == "discard"
        st.magician_move = opts["magician_move"]
        st.power_limit = opts["power_limit"]
        st.people = list(opts["peoples"])
        st.caps = D.capacities(n)
        st.stage = "setup"
        st.rnd = 1
        st.order = list(range(n))
        st.time_card = D.FULL_MOON
        st.time_pile = [c for c in range(len(D.TIME_NAMES)) if c != D.FULL_MOON]
        st.tiles = []
        st.gates = []
        st.aside = []
        st.mirrors = [0] * D.NMIRRORS
        st.mag = [-1] * n
        st.vp = [D.START_VP] * n
        st.terror = [D.START_TERROR] * n
        st.curse = [0] * n
        st.chim = [0] * n
        st.h1 = [[0] * D.NRES for _ in range(n)]
        st.h2 = [[0] * D.NRES for _ in range(n)]
        st.appr = [[0] * D.NRES for _ in range(n)]
        st.grave = [D.GHOSTS] * n
        st.bridge = [0] * n
        st.locked = [0] * n
        st.locs = [[] for _ in range(D.NLOC)]
        st.bonus_left = []
        st.idx = 0
        st.turn = 0
        st.sub = ""
        st.args = []
        st.actor = -1
        st.phandle = [0] * n
        st.pcard = [None] * n
        st.pround = [0] * n
        st.boosted = False
        st.final = None
        st._cache = None
        st._fees = ()
        return st

    # ------------------------------------------------------------------ steps
    def expected(self, st: State) -> E.Step:
        stage = st.stage
        if stage in _DECIDING:
            step = _DECIDE.get(st.actor)
            return step if step is not None else E.Decide(st.actor)
        if stage == "invoke":
            return _INVOKE[st.n]
        if stage == "time":
            return E.Random((("int", len(st.time_pile)),))
        if stage == "setup":
            return E.Random((("perm", st.n), ("perm", D.NTILES), ("perm", D.NGATES)))
        if stage == "commit":
            return E.Commit(tuple(range(st.n)), "power")
        return _FINISHED

    # ------------------------------------------------------------------ legal actions
    def _card(self, st: State, seat: int, knowledge: E.Knowledge | None) -> int | None:
        """The POWER card the seat may use now (revealed, or known privately), else None."""
        if not st.powers or _spent(st, seat):
            return None
        c = st.pcard[seat]
        if c is None and knowledge:
            c = knowledge.get(st.phandle[seat])
        return c

    def legal_actions(self, st: State, seat: int, knowledge: E.Knowledge | None = None) -> list[Any]:
        stage = st.stage
        if stage in _DECIDING:
            if seat != st.actor:
                return []
            return list(self._legal(st, seat, self._card(st, seat, knowledge) if st.powers else None))
        if stage == "invoke":
            if 0 <= seat < st.n:
                return list(range(st.grave[seat] + st.bridge[seat] + 1))
            return []
        if stage == "commit":
            return list(D.PEOPLE_POWERS[st.people[seat]]) if 0 <= seat < st.n else []
        return []

    def _legal(self, st: State, s: int, card: int | None) -> list[Any]:
        c = st._cache
        if c is not None and c[0] == s and c[1] == card:
            return c[2]
        out: list[Any] = []
        stage = st.stage
        if stage == "turn":
            _LEGAL_TURN[st.sub](self, st, s, card, out)
            if card == LUX_ and st.sub != "":
                _luxuriance(out)         # "At any time": at every decision of the seat
        else:
            _LEGAL_STAGE[stage](self, st, s, card, out)
            if card == LUX_:
                _luxuriance(out)
        st._cache = (s, card, out)
        return out

    # one method per B sub-step (st.sub) and per other deciding stage, found in _LEGAL_TURN and
    # _LEGAL_STAGE; each appends the legal actions, in their order, to `out`
    def _legal_b2(self, st: State, s: int, card: int | None, out: list) -> None:
        out.append("done")
        self._moves(st, s, out)
        if card == FRENZY_:
            out.append(["power", FRENZY_])
        if card == TELEPORT_:
            self._teleports(st, s, out)

    def _legal_pay(self, st: State, s: int, card: int | None, out: list) -> None:
        t = st.args[4]
        out.append(["pay", 1, t])
        out.append(["pay", 2, t])

    def _legal_b1(self, st: State, s: int, card: int | None, out: list) -> None:
        self._effect_actions(st, s, out)

    def _legal_tt(self, st: State, s: int, card: int | None, out: list) -> None:
        dopp, t, g1, g2, taking = st.args
        if taking:
            out.extend(["take", r] for r in range(D.NRES))
            return
        if g1 + g2:
            out.append("done")
        if st.h1[s][t]:
            out.append(["give", 1])
        if st.h2[s][t]:
            out.append(["give", 2])

    def _legal_b1end(self, st: State, s: int, card: int | None, out: list) -> None:
        out.append("done")
        if card is None or card not in D.B1_END_POWERS:
            return
        if card == SEDUCTION_:
            adv = _adjacent_adversaries(st, s)
            if any(st.h1[o][2] or st.h2[o][2] for o in adv):
                out.remove("done")          # "you must steal"
                out.append(["power", card])
        elif self._b1end_power_open(st, s, card):
            out.append(["power", card])

    def _b1end_power_open(self, st: State, s: int, card: int) -> bool:
        """Whether a POWER of the end of B.1 other than Seduction has something to work on."""
        if card == DOPP_:
            used = st.args[1]            # the effect to reuse
            return used == TILE_USED or (used >= 0 and st.mirrors[used] < 2)
        adv = _adjacent_adversaries(st, s)
        if card == SPELL_:
            return any(st.terror[o] for o in adv)
        if card == FIREBALL_:
            return any(st.bridge[o] for o in adv)
        if card == APPARITION_:
            return bool(adv)
        return False

    def _legal_victims(self, st: State, s: int, card: int | None, out: list) -> None:
        which, v = st.args[0], st.args[1]
        if which == APPARITION_:
            out.extend(["give", r] for r in range(D.NRES))
            return
        if st.h1[v][2]:
            out.append(["steal", 1])
        if st.h2[v][2]:
            out.append(["steal", 2])

    def _legal_immortal(self, st: State, s: int, card: int | None, out: list) -> None:
        out.append("pass")
        if card != IMMORTAL_:
            return
        board = st.args[0]
        cnt = _own_counts(st, s)
        rng = range(D.NREG) if board == 0 else range(D.NREG, D.NLOC)
        for l in rng:
            if len(st.locs[l]) < st.caps[l] and cnt[l] < D.MAX_OWN:
                out.append(["power", IMMORTAL_, l])

    def _legal_bonus(self, st: State, s: int, card: int | None, out: list) -> None:
        seen = set()
        bon = D.TIME_BONUSES[st.time_card]
        for i in st.bonus_left:
            b = bon[i]
            if b in seen:
                continue
            seen.add(b)
            if b[0] == "any":
                out.extend(["bonus", i, r] for r in range(D.NRES))
            else:
                out.append(["bonus", i])

    def _legal_food(self, st: State, s: int, card: int | None, out: list) -> None:
        if st.bridge[s]:
            out.append(["unfed", D.BRIDGE, 0])
        hidden = []
        for l, L in enumerate(st.locs):
            for p, e in enumerate(L):
                if e & OWNER == s:
                    (hidden if e & PROT else out).append(["unfed", l, p])
        # Secret area: the wisp "cannot be moved" this round; it starves only if nothing else can
        if st.bridge[s] + len(out) - (1 if st.bridge[s] else 0) < st.args[0]:
            out.extend(hidden)

    def _legal_alch(self, st: State, s: int, card: int | None, out: list) -> None:
        limit, batches = st.args[0], st.args[1]
        kept = st.args[2:]
        out.append("done")
        if sum(kept) < limit:
            out.extend(["keep", r] for r in range(D.NRES) if kept[r] < batches)

    def _legal_canteen(self, st: State, s: int, card: int | None, out: list) -> None:
        out.append(["canteen", 1])
        out.append(["canteen", 0])

    def _legal_secret(self, st: State, s: int, card: int | None, out: list) -> None:
        out.append("pass")
        if card == SECRET_:
            for l, L in enumerate(st.locs):
                for p, e in enumerate(L):
                    if e & OWNER == s:
                        out.append(["power", SECRET_, l, p])

    def _top_actions(self, st: State, s: int, card: int | None, out: list) -> None:
        out.append("pass")
        occupied = st.mag
        p = occupied[s]
        near = range(D.NTILES) if p < 0 else D.MAGICIAN_STEPS[st.magician_move][p]
        for q in near:
            if q not in occupied:
                out.append(["magician", q])
        self._moves(st, s, out)
        if card is None:
            return
        if card == BATS_ and p >= 0:
            for q in range(D.NTILES):
                if q not in occupied and q not in near:
                    out.append(["power", BATS_, q])
        elif card == BOOSTER_:
            out.append(["power", card])
        elif card == TELEPORT_:
            self._teleports(st, s, out)
        elif card == LUX_:
            _luxuriance(out)

    def _moves(self, st: State, s: int, out: list) -> None:
        """B.2: every ghost move open to seat s, the drawbridge's first (to each location in
        order), then each unmoved ghost's (to the drawbridge, its neighbours, Booster's second
        steps). Arrivals are worked out only for the locations some ghost can reach."""
        locs = st.locs
        caps = st.caps
        fc = _fight_costs(st, s)
        terror = st.terror[s]
        arr: list[tuple[str, ...] | None] = [None] * _NLOC
        if st.bridge[s] > st.locked[s]:
            _bridge_moves(st, s, out, arr, fc, terror)
        boost = st.boosted and st.people[s] == D.ARGOSOLA
        for l in _LOC_RANGE:
            L = locs[l]
            if s not in L:                  # an own ghost neither moved nor protected is the bare seat
                continue
            for p, e in enumerate(L):
                if e != s:
                    continue
                out.append(["move", l, p, _BRIDGE, "place"])
                for dst in _NEIGHBOURS[l]:
                    a = arr[dst]
                    if a is None:
                        a = arr[dst] = _arrival(locs[dst], s, caps[dst], fc, terror)
                    for m in a:
                        out.append(["move", l, p, dst, m])
                if boost:
                    for dst, mids in D.TWO_STEPS[l].items():
                        a = arr[dst]
                        if a is None:
                            a = arr[dst] = _arrival(locs[dst], s, caps[dst], fc, terror)
                        if a and any(len(locs[x]) < caps[x] for x in mids):
                            for m in a:
                                out.append(["move", l, p, dst, m])

    def _can_pay(self, st: State, s: int, region: int) -> bool:
        h1, h2 = st.h1[s], st.h2[s]
        for t in D.GATE_FEES[st.gates[D.REGION_GATE[region]]]:
            if not (h1[t] or h2[t]):
                return False
        return True

    def _teleports(self, st: State, s: int, out: list) -> None:
        if st.people[s] != D.SANAGAL or st.bridge[s] <= st.locked[s]:
            return
        fc = _fight_costs(st, s)
        terror = st.terror[s]
        for dst in range(D.NREG):
            for m in _arrival(st.locs[dst], s, st.caps[dst], fc, terror):
                out.append(["power", TELEPORT_, dst, m])

    def _effect_actions(self, st: State, s: int, out: list) -> None:
        out.append("done")
        pos = st.mag[s]
        kind = D.TILE_KIND[st.tiles[pos]]
        h1, h2 = st.h1[s], st.h2[s]
        if kind == D.STANDARD:
            out.append(["tile"])
        elif kind == D.GRIMOIRE:
            if st.curse[s]:
                out.append(["tile"])
        elif kind == D.CLOCK:
            if any(h1):
                out.append(["tile"])
        elif kind == D.TERRORISER:
            out.extend(["tile", 1, r] for r in range(D.NRES) if h1[r])
            out.extend(["tile", 2, r] for r in range(D.NRES) if h2[r])
        else:  # test tube
            out.extend(["tile", r] for r in range(D.NRES) if h1[r] or h2[r])
        for m in D.MIRRORS_OF[pos]:
            if st.mirrors[m] < 2:
                out.append(["mirror", m])
        if st.args[0]:                   # Doppelganger "reuses the effect": the same tile or mirror
            used = st.args[1]
            out[1:] = [a for a in out[1:] if (a[0] == "tile") == (used == TILE_USED)
                       and (a[0] == "tile" or a[1] == used)]

    # ------------------------------------------------------------------ apply
    def apply(self, st: State, event: E.Event) -> None:
        stage = st.stage
        if stage not in _DECIDING:
            self._apply_event(st, stage, event)
            return
        if not isinstance(event, E.Act):
            raise E.IllegalAction(f"expected an action from seat {st.actor}, got {type(event).__name__}", "flow")
        s, a = event.seat, event.action
        if s != st.actor:
            raise E.IllegalAction(f"it is seat {st.actor}'s decision, not seat {s}'s", "flow")
        cache = st._cache
        if isinstance(a, list) and a and a[0] == "power":
            _check_types(a)
            legal = self._legal(st, s, self._claimed(st, s, a))
        elif cache is not None and cache[0] == s:
            legal = cache[2]        # the actions that are not POWER uses do not depend on the card
        else:
            legal = self._legal(st, s, None)
        if isinstance(a, list):
            try:
                listed = legal[legal.index(a)] is a     # the very object legal_actions made
            except ValueError:
                listed = False
            if not listed:                              # from elsewhere: 1.0 or True equal 1 too
                _check_types(a)
                if a not in legal:
                    raise E.IllegalAction(self._why(st, s, a), self._rule(st))
        elif a not in legal:
            raise E.IllegalAction(self._why(st, s, a), self._rule(st))
        st._cache = None
        self._do(st, s, a)

    def _apply_event(self, st: State, stage: str, event: E.Event) -> None:
        """apply, for the steps that are not a decision."""
        if stage == "invoke":
            self._apply_invoke(st, event)
        elif stage == "time":
            self._apply_time(st, event)
        elif stage == "setup":
            self._apply_setup(st, event)
        elif stage == "commit":
            self._apply_commit(st, event)
        else:
            raise E.IllegalAction("the game is over", "5")

    def _apply_time(self, st: State, event: E.Event) -> None:
        if not isinstance(event, E.Rolled) or len(event.values) != 1 or type(event.values[0]) is not int \
                or not 0 <= event.values[0] < len(st.time_pile):
            raise E.IllegalAction("expected one beacon draw for the time card", "A.2")
        st._cache = None
        st.time_card = st.time_pile.pop(event.values[0])
        st.stage = "invoke"

    def _apply_commit(self, st: State, event: E.Event) -> None:
        if not isinstance(event, E.Committed) or event.tag != "power" or len(event.handles) != st.n \
                or any(type(h) is not int or h <= 0 for h in event.handles):
            raise E.IllegalAction("expected one POWER commitment per seat", "7.2")
        st._cache = None
        st.phandle = list(event.handles)
        self._start_round(st)

    def _claimed(self, st: State, s: int, a: list) -> int:
        if not st.powers:
            raise E.IllegalAction("POWER cards are not in play in this game", "7.2")
        c = a[1] if len(a) > 1 else None
        if type(c) is not int or c not in D.PEOPLE_POWERS[st.people[s]]:
            raise E.IllegalAction(f"{c!r} is not one of {D.PEOPLE_NAMES[st.people[s]]}'s POWER cards", "7.2")
        if st.pcard[s] is not None and st.pcard[s] != c:
            raise E.IllegalAction(f"seat {s} already revealed {D.POWER_TITLES[st.pcard[s]]}; only one POWER card "
                                  "may be used in a game", "7.2")
        if _spent(st, s):
            raise E.IllegalAction("this POWER was already used " + (
                "this round" if st.power_limit == "round" else "in this action"), "7.2")
        return c

    def _rule(self, st: State) -> str:
        if st.stage != "turn":
            return {"bonus": "A.3", "food": "C.1", "alch": "C.3", "secret": "7.2", "canteen": "A.2"}[st.stage]
        return {"": "B", "b2": "B.2", "pay": "B.2", "b1": "B.1", "tt": "6.1", "b1end": "7.2",
                "victims": "7.2", "immortal": "7.2"}[st.sub]

    def _why(self, st: State, s: int, a: Any) -> str:
        """A readable reason an action is not legal (the rule name comes from _rule)."""
        if st.stage == "turn" and isinstance(a, list) and a:
            k = a[0]
            if k == "move" and len(a) == 5 and all(type(x) is int for x in a[1:4]):
                return self._why_move(st, s, a)
            if k == "magician":
                if st.magician_move == "king":
                    return "the magician moves one square (any of the 8 neighbours) to an empty manor tile"
                return ("the magician moves one square diagonally or horizontally (not straight up or down: "
                        "that takes two diagonal steps) to an empty manor tile")
            if k == "mirror":
                return "that mirror is not next to your tile, is broken, or was already worked in this action"
        if st.stage == "turn" and st.sub == "" and a == "done":
            return "nothing to finish: choose an action or pass"
        return f"{a!r} is not one of the legal actions now"

    def _why_move(self, st: State, s: int, a: list) -> str:
        """Why a well-formed ghost move ["move", l, p, dst, mode] is not legal."""
        l, p, dst = a[1], a[2], a[3]
        if not 0 <= dst <= D.BRIDGE:
            return f"there is no location {dst}"
        if l == D.BRIDGE:
            if st.bridge[s] <= st.locked[s]:
                return "you have no ghost on the drawbridge that may move in this action"
            if dst < D.NREG and not self._can_pay(st, s, dst):
                return f"you cannot pay the gate fee of {D.LOC_NAMES[dst]}"
        elif not (0 <= l < D.NLOC and 0 <= p < len(st.locs[l]) and st.locs[l][p] & OWNER == s):
            return "you have no ghost there"
        elif st.locs[l][p] & MOVED:
            return "each ghost moves once per action"
        elif st.locs[l][p] & PROT:
            return "that will-o'-the-wisp is under Secret area this round"
        elif dst != D.BRIDGE and dst not in D.NEIGHBOURS[l]:
            return (f"{D.LOC_NAMES[dst]} is not a neighbour of {D.LOC_NAMES[l]} (and a ghost never goes "
                    "straight from the regions to the manor)")
        if dst < D.NLOC and _own_counts(st, s)[dst] >= D.MAX_OWN:
            return "never more than 2 ghosts of one colour in a region or garden"
        return f"arrival '{a[4]}' is not possible there (no free space, nobody to fight, or not enough terror)"

    # ------------------------------------------------------------------ the effects
    def _do(self, st: State, s: int, a: Any) -> None:
        if type(a) is not str and a[0] == "power" and a[1] == LUX_:   # at any decision: nothing else changes
            self._use_power(st, s, a)
            return
        stage = st.stage
        if stage != "turn":
            _DO_STAGE[stage](self, st, s, a)
        elif type(a) is str:
            self._do_word(st, s, a)
        else:
            _DO_TURN[a[0]](self, st, s, a)

    # one method per kind of B action (a[0]) and per other deciding stage, found in _DO_TURN and
    # _DO_STAGE; the action is a legal one
    def _do_word(self, st: State, s: int, a: str) -> None:
        """"pass" or "done" during B."""
        sub = st.sub
        if a == "pass":
            if sub == "immortal":
                st.terror[s] = _cap(st.terror[s] + 1)
                self._back_to_mover(st)
            else:
                self._end_action(st)
        elif sub == "b2" or sub == "b1end":     # "done"
            self._end_action(st)
        elif sub == "b1":
            self._after_effect(st, s)
        elif sub == "tt":
            st.args[4] = 1

    def _do_move(self, st: State, s: int, a: list) -> None:
        l, dst = a[1], a[3]
        if l == _BRIDGE and dst < D.NREG:
            self._declare_move(st, s, l, a[2], dst, a[4], fee=True)
        else:
            st.sub = "b2"
            self._move(st, s, l, a[2], dst, a[4])

    def _do_magician(self, st: State, s: int, a: list) -> None:
        st.mag[s] = a[1]
        st.sub = "b1"
        st.args = [0, -1]

    def _do_pay(self, st: State, s: int, a: list) -> None:
        t = st.args[4]
        store = st.h1[s] if a[1] == 1 else st.h2[s]
        store[t] -= 1
        st.appr[s][t] += 1
        del st.args[4]
        if len(st.args) == 4:
            l, p, dst, mode = st.args
            st.sub = "b2"
            st.args = []
            self._move(st, s, l, p, dst, mode)

    def _do_mirror(self, st: State, s: int, a: list) -> None:
        self._mirror(st, s, a[1])

    def _do_give(self, st: State, s: int, a: list) -> None:
        if st.sub == "tt":
            t = st.args[1]
            if a[1] == 1:
                st.h1[s][t] -= 1
                st.args[2] += 1
            else:
                st.h2[s][t] -= 1
                st.args[3] += 1
        else:  # Apparition: a resource appears in the victim's 1H store
            v = st.args[1]
            st.h1[v][a[1]] += 1
            self._next_victim(st, s)

    def _do_take(self, st: State, s: int, a: list) -> None:
        if st.args[2]:
            st.h1[s][a[1]] += 1
            st.args[2] -= 1
        else:
            st.h2[s][a[1]] += 1
            st.args[3] -= 1
        if not (st.args[2] or st.args[3]):
            self._after_effect(st, s)

    def _do_steal(self, st: State, s: int, a: list) -> None:
        v = st.args[1]
        store = st.h1[v] if a[1] == 1 else st.h2[v]
        st.h2[s][2] += store[2]
        store[2] = 0
        self._next_victim(st, s)

    def _do_bonus(self, st: State, s: int, a: list) -> None:
        kind, amount = D.TIME_BONUSES[st.time_card][a[1]]
        st.bonus_left.remove(a[1])
        if kind == "vp":
            st.vp[s] += amount
        elif kind == "terror":
            st.terror[s] = _cap(st.terror[s] + amount)
        elif kind == "res":
            st.h2[s][amount] += 1
        else:
            st.h2[s][a[2]] += 1
        st.idx += 1
        if st.idx < st.n:
            st.actor = st.order[st.idx]
        else:
            self._start_b(st)

    def _do_food(self, st: State, s: int, a: list) -> None:
        self._remove_ghost(st, s, a[1], a[2])
        st.grave[s] += 1
        st.vp[s] -= 1
        st.args[0] -= 1
        if not st.args[0]:
            st.idx += 1
            self._food(st)

    def _do_alch(self, st: State, s: int, a: Any) -> None:
        if a == "done":
            for r in range(D.NRES):
                st.h2[s][r] += st.args[2 + r]
            st.idx += 1
            self._approval(st)
        else:
            st.args[2 + a[1]] += 1

    def _do_canteen(self, st: State, s: int, a: list) -> None:
        i = 0 if st.args[0] == s else 3
        st.args[i + 2] = a[1]
        self._canteen(st)

    def _do_secret(self, st: State, s: int, a: Any) -> None:
        if a != "pass":
            st.pcard[s] = SECRET_
            st.pround[s] = _use_mark(st)
            st.locs[a[2]][a[3]] |= PROT
        self._next_secret(st)

    def _remove_ghost(self, st: State, s: int, l: int, p: int) -> None:
        if l == D.BRIDGE:
            st.bridge[s] -= 1
            if st.locked[s] > st.bridge[s]:
                st.locked[s] = st.bridge[s]
        else:
            del st.locs[l][p]

    def _declare_move(self, st: State, s: int, l: int, p: int, dst: int, mode: str, fee: bool) -> None:
        if fee and l == D.BRIDGE and dst < D.NREG:
            h1, h2, ap = st.h1[s], st.h2[s], st.appr[s]
            ask = []
            for t in D.GATE_FEES[st.gates[D.REGION_GATE[dst]]]:
                if h1[t] and h2[t]:
                    ask.append(t)
                elif h1[t]:
                    h1[t] -= 1
                    ap[t] += 1
                else:
                    h2[t] -= 1
                    ap[t] += 1
            if ask:
                st.sub = "pay"
                st.args = [l, p, dst, mode] + ask
                return
        st.sub = "b2"
        self._move(st, s, l, p, dst, mode)

    def _move(self, st: State, s: int, l: int, p: int, dst: int, mode: str) -> None:
        if l == _BRIDGE:
            self._remove_ghost(st, s, l, p)
        else:
            del st.locs[l][p]
        if dst == _BRIDGE:
            st.bridge[s] += 1
            st.locked[s] += 1
            gain = 1 + D.ZEN_TERROR[_garden_level(st, D.ZEN, s)]
            t = st.terror[s] + gain
            st.terror[s] = t if t < D.TERROR_MAX else D.TERROR_MAX
            return
        L = st.locs[dst]
        if mode == "place":
            L.append(s | MOVED)
        elif mode == "retreat":
            st.grave[s] += 1
            for o in {e & OWNER for e in L}:
                if o != s:
                    st.vp[o] += 2
            st.terror[s] = _cap(st.terror[s] + 1)
        else:
            pos = st.order.index(s)
            cost = 0
            beaten = 0
            for e in L:
                o = e & OWNER
                if o != s:
                    beaten += 1
                    cost += 2 if st.order.index(o) < pos else 1
            bonus, regions_only = D.TRAINING_VP[_garden_level(st, D.TRAINING, s)]
            if regions_only and dst >= D.NREG:
                bonus = 0
            st.terror[s] -= cost
            st.vp[s] += 2 * beaten + bonus
            L.insert(0, s | MOVED)
            if len(L) > st.caps[dst]:
                out = L.pop()
                o = out & OWNER
                st.grave[o] += 1
                if (st.powers and st.people[o] == D.ZUGRIGA and st.pcard[o] in (None, IMMORTAL_)
                        and (st.power_limit == "trigger" or not _spent(st, o))):   # trigger: every minion
                    st.sub = "immortal"
                    # the board, and the minion's moved mark: "Each ghost can move once"
                    st.args = [0 if dst < D.NREG else 1, out & MOVED]
                    st.actor = o
                else:
                    st.terror[o] = _cap(st.terror[o] + 1)

    def _back_to_mover(self, st: State) -> None:
        st.actor = st.order[st.turn % st.n]
        st.sub = "b2"
        st.args = []

    def _tile(self, st: State, s: int, a: list) -> None:
        kind = D.TILE_KIND[st.tiles[st.mag[s]]]
        h1, h2 = st.h1[s], st.h2[s]
        if kind == D.STANDARD:
            h2[D.TILE_RES[st.tiles[st.mag[s]]]] += 2
        elif kind == D.GRIMOIRE:
            st.curse[s] = 0
        elif kind == D.CLOCK:
            for r in range(D.NRES):
                h2[r] += h1[r]
                h1[r] = 0
        elif kind == D.TERRORISER:
            if a[1] == 1:
                h1[a[2]] -= 1
                st.terror[s] = _cap(st.terror[s] + 2)
            else:
                h2[a[2]] -= 1
                st.terror[s] = _cap(st.terror[s] + 4)
        else:
            st.sub = "tt"
            st.args = [st.args[0], a[1], 0, 0, 0]
            return
        st.args[1] = TILE_USED
        self._after_effect(st, s)

    def _mirror(self, st: State, s: int, m: int) -> None:
        level = _garden_level(st, D.GLASS, s)
        if st.mirrors[m] == 0:
            gain = D.MIRROR_CRACK + (D.GLASS_MAJOR if level == 2 else 0)
        else:
            gain = D.MIRROR_BREAK + (D.GLASS_MAJOR if level == 2 else D.GLASS_MINOR if level == 1 else 0)
        st.mirrors[m] += 1
        st.terror[s] = _cap(st.terror[s] + gain)
        st.args[1] = m
        self._after_effect(st, s)

    def _after_effect(self, st: State, s: int) -> None:
        dopp = st.args[0]
        if dopp or not st.powers or _spent(st, s) or (
                st.pcard[s] is not None and st.pcard[s] not in D.B1_END_POWERS):
            self._end_action(st)
            return
        used = st.args[1] if st.sub == "b1" else TILE_USED      # "tt": the Test tube was the effect
        st.sub = "b1end"
        st.args = [0, used]

    def _use_power(self, st: State, s: int, a: list) -> None:
        c = a[1]
        st.pcard[s] = c
        st.pround[s] = _use_mark(st)
        if c == LUX_:
            st.h2[s][a[2]] += 1
            st.h2[s][a[3]] += 1
        elif c == BATS_:
            st.mag[s] = a[2]
            st.sub = "b1"
            st.args = [0, -1]
        elif c == BOOSTER_:
            st.boosted = True
            st.sub = "b2"
        elif c == FRENZY_:
            st.terror[s] = _cap(st.terror[s] + 3)
            st.sub = "b2"
        elif c == TELEPORT_:
            self._declare_move(st, s, D.BRIDGE, 0, a[2], a[3], fee=False)
        elif c == IMMORTAL_:
            st.grave[s] -= 1
            st.locs[a[2]].append(s | (st.args[1] if len(st.args) > 1 else 0))
            self._back_to_mover(st)
        elif c == DOPP_:
            st.sub = "b1"
            st.args = [1, st.args[1]]
        elif c == SPELL_:
            for o in _adjacent_adversaries(st, s):
                if st.terror[o]:
                    st.terror[o] -= 1
                    st.terror[s] = _cap(st.terror[s] + 1)
            self._end_action(st)
        elif c == FIREBALL_:
            for o in _adjacent_adversaries(st, s):
                if st.bridge[o]:
                    st.bridge[o] -= 1
                    if st.locked[o] > st.bridge[o]:
                        st.locked[o] = st.bridge[o]
                    st.grave[o] += 1
            self._end_action(st)
        elif c == APPARITION_:
            st.sub = "victims"
            st.args = [c] + _adjacent_adversaries(st, s)
        elif c == SEDUCTION_:
            st.sub = "victims"
            st.args = [c] + [o for o in _adjacent_adversaries(st, s) if st.h1[o][2] or st.h2[o][2]]

    def _next_victim(self, st: State, s: int) -> None:
        del st.args[1]
        if len(st.args) == 1:
            self._end_action(st)

    # ------------------------------------------------------------------ flow
    def _apply_setup(self, st: State, ev: E.Event) -> None:
        if not isinstance(ev, E.Rolled) or len(ev.values) != 3:
            raise E.IllegalAction("expected the three setup draws (play order, manor tiles, gates)", "Set Up")
        for v, n in zip(ev.values, (st.n, D.NTILES, D.NGATES)):
            if not isinstance(v, (list, tuple)) or sorted(v) != list(range(n)) or any(type(x) is not int for x in v):
                raise E.IllegalAction(f"{v!r} is not a permutation of {n}", "Set Up")
        st._cache = None
        st.order = list(ev.values[0])
        st.tiles = list(ev.values[1])
        g = list(ev.values[2])
        st.gates, st.aside = g[:D.NREG], g[D.NREG:]
        st._fees = _region_fees(st.gates)
        if st.powers:
            st.stage = "commit"
        else:
            self._start_round(st)

    def _start_round(self, st: State) -> None:
        n = st.n
        if st.rnd > 1:  # A.1 curse
            for s in range(n):
                if st.curse[s]:
                    st.curse[s] = 0
                    st.vp[s] -= D.CURSE_VP
                if any(st.h1[s]):
                    st.curse[s] = 1
                st.h1[s] = st.h2[s]
                st.h2[s] = [0] * D.NRES
        for L in st.locs:
            for i, e in enumerate(L):
                if e & PROT:
                    L[i] = e & ~PROT
        st.idx = 0
        st.stage = "secret"
        self._next_secret(st, first=True)

    def _next_secret(self, st: State, first: bool = False) -> None:
        if not first:
            st.idx += 1
        while st.powers and st.rnd > 1 and st.idx < st.n:
            s = st.order[st.idx]
            if (st.people[s] == D.LUSERNA and st.pcard[s] in (None, SECRET_)
                    and _on_board(st, s)):
                st.actor = s
                return
            st.idx += 1
        st.stage = "time" if st.rnd > 1 else "invoke"

    def _apply_invoke(self, st: State, ev: E.Event) -> None:
        if not isinstance(ev, E.Choices) or len(ev.values) != st.n:
            raise E.IllegalAction("expected every seat's revealed ghost count", "A.2")
        for s, k in enumerate(ev.values):
            if type(k) is not int or not 0 <= k <= st.grave[s] + st.bridge[s]:
                raise E.IllegalAction(f"seat {s} invoked {k!r} ghosts; it has {st.grave[s] + st.bridge[s]} available",
                                      "A.2")
        st._cache = None
        for s, k in enumerate(ev.values):
            avail = st.grave[s] + st.bridge[s]
            st.bridge[s] = k
            st.grave[s] = avail - k
            st.locked[s] = 0
        major, minor = _holder(st, D.CANTEEN)
        st.args = [x for s, level in ((major, 2), (minor, 1)) if s >= 0 for x in (s, level, -1)]
        self._canteen(st)

    def _order_key(self, st: State, bonus: dict[int, int]) -> list[int]:
        """A.2 play order: most ghosts in the graveyard first, plus a canteen bonus taken."""
        return sorted(st.order, key=lambda s: -(st.grave[s] + bonus.get(s, 0)))  # stable: ties keep the order

    def _canteen(self, st: State) -> None:
        """The canteen's order bonus is optional ("can place", RB A.2, register R-1): each holder, major
        first, decides whether to take it. A holder is asked when taking it changes the order for some
        choice of the holders not yet asked (a later holder may decline); when it changes nothing
        whatever they choose, it is taken without a step."""
        a = st.args
        for i in range(0, len(a), 3):
            if a[i + 2] >= 0:
                continue
            others = [j for j in range(0, len(a), 3) if j != i and a[j + 2] < 0]
            matters = False
            for mask in range(1 << len(others)):
                bonus = {a[j]: D.CANTEEN_ORDER[a[j + 1]] for j in range(0, len(a), 3)
                         if j != i and (a[j + 2] > 0 or (a[j + 2] < 0 and mask >> others.index(j) & 1))}
                without = self._order_key(st, bonus)
                bonus[a[i]] = D.CANTEEN_ORDER[a[i + 1]]
                if self._order_key(st, bonus) != without:
                    matters = True
                    break
            if not matters:
                a[i + 2] = 1                     # nothing to decide: the order is the same either way
                continue
            st.stage = "canteen"
            st.actor = a[i]
            return
        st.order = self._order_key(st, {a[j]: D.CANTEEN_ORDER[a[j + 1]] for j in range(0, len(a), 3) if a[j + 2]})
        st.args = []
        if st.rnd > 1:
            st.stage = "bonus"
            st.bonus_left = list(range(len(D.TIME_BONUSES[st.time_card])))
            st.idx = 0
            st.actor = st.order[0]
        else:
            self._start_b(st)

    def _start_b(self, st: State) -> None:
        st.stage = "turn"
        st.bonus_left = []
        st.turn = 0
        st.sub = ""
        st.args = []
        st.actor = st.order[0]

    def _end_action(self, st: State) -> None:
        s = st.order[st.turn % st.n]
        st.locked[s] = 0
        for L in st.locs:
            for e in L:
                if e & MOVED:
                    L[:] = [x & ~MOVED for x in L]
                    break
        st.boosted = False
        st.sub = ""
        st.args = []
        st.turn += 1
        if st.turn < D.TIME_ACTIONS[st.time_card] * st.n:
            st.actor = st.order[st.turn % st.n]
        else:
            st.stage = "food"
            st.idx = 0
            self._food(st)

    def _food(self, st: State) -> None:
        while st.idx < st.n:
            s = st.order[st.idx]
            cost = D.GHOSTS - st.grave[s] - D.CANTEEN_FOOD[_garden_level(st, D.CANTEEN, s)]
            if cost <= st.terror[s]:
                if cost > 0:
                    st.terror[s] -= cost
            else:
                unfed = cost - st.terror[s]
                st.terror[s] = 0
                if st.bridge[s] >= unfed and not _on_board(st, s):
                    st.bridge[s] -= unfed
                    st.grave[s] += unfed
                    st.vp[s] -= unfed
                else:
                    st.actor = s
                    st.args = [unfed]
                    return
            st.idx += 1
        # C.2 region VPs
        crystal = [D.CRYSTAL_BONUS.get(_garden_level(st, D.CRYSTAL, s), (0, ())) for s in range(st.n)]
        for r in range(D.NREG):
            L = st.locs[r]
            if L:
                v = D.REGION_VP[r]
                for s in {e & OWNER for e in L}:
                    extra, worth = crystal[s]
                    st.vp[s] += v + (extra if v in worth else 0)
        st.stage = "alch"
        st.idx = 0
        self._approval(st)

    def _approval(self, st: State) -> None:
        while st.idx < st.n:
            s = st.order[st.idx]
            ap = st.appr[s]
            batches = min(ap)
            if batches:
                for r in range(D.NRES):
                    ap[r] -= batches
                st.chim[s] += batches
            if st.discard_leftovers:
                st.appr[s] = [0] * D.NRES
            keep = D.ALCHEMIST_KEEP[_garden_level(st, D.ALCHEMIST, s)]
            if batches and keep:
                st.actor = s
                st.args = [batches * keep, batches, 0, 0, 0, 0]
                return
            st.idx += 1
        st.args = []
        if st.rnd == D.ROUNDS:
            st.stage = "end"
            st.final = [st.vp[s] + D.CHIMAERA_VP * st.chim[s] for s in range(st.n)]
            st.actor = -1
            return
        st.rnd += 1
        self._start_round(st)

    # ------------------------------------------------------------------ hidden claims, views, results
    def reveals(self, st: State, seat: int, action: Any) -> list[tuple[int, Any]]:
        if (st.powers and isinstance(action, list) and len(action) > 1 and action[0] == "power"
                and 0 <= seat < st.n and st.pcard[seat] is None and st.stage != "commit"):
            return [(st.phandle[seat], action[1])]
        return []

    def result(self, st: State) -> dict[str, Any] | None:
        if st.final is None:
            return None
        best = max(st.final)
        return {"winners": [s for s in range(st.n) if st.final[s] == best], "scores": list(st.final),
                "vp": list(st.vp), "chimaeras": list(st.chim)}

    def view(self, st: State, seat: int | None, knowledge: E.Knowledge | None = None) -> dict[str, Any]:
        v: dict[str, Any] = {
            "game": self.name, "seat": seat, "round": st.rnd, "stage": st.stage, "sub": st.sub,
            "actor": st.actor, "order": list(st.order),
            "time_card": D.TIME_NAMES[st.time_card], "actions": D.TIME_ACTIONS[st.time_card],
            "time_pile_left": len(st.time_pile),
            "bonuses_left": [list(D.TIME_BONUSES[st.time_card][i]) for i in st.bonus_left],
            "players": [{
                "people": D.PEOPLE_NAMES[st.people[s]], "vp": st.vp[s], "terror": st.terror[s],
                "h1": list(st.h1[s]), "h2": list(st.h2[s]), "curse": st.curse[s],
                "approval": list(st.appr[s]), "chimaeras": st.chim[s], "graveyard": st.grave[s],
                "drawbridge": st.bridge[s], "magician": st.mag[s],
                "power": None if st.pcard[s] is None else D.POWER_IDS[st.pcard[s]],
            } for s in range(st.n)],
            "locations": {D.LOC_IDS[l]: [e & OWNER for e in L] for l, L in enumerate(st.locs)},
            "manor": [D.TILE_NAMES[t] for t in st.tiles],
            "gates": {D.LOC_IDS[r]: D.GATE_NAMES[st.gates[D.REGION_GATE[r]]] for r in range(D.NREG)} if st.gates else {},
            "gates_aside": [D.GATE_NAMES[g] for g in st.aside],
            "mirrors": list(st.mirrors),
            "state": self.encode(st),
        }
        if st.final is not None:
            v["result"] = self.result(st)
        if seat is not None and 0 <= seat < st.n and knowledge and st.powers:
            c = knowledge.get(st.phandle[seat])
            v["my_power"] = D.POWER_IDS[c] if isinstance(c, int) and 0 <= c < len(D.POWER_IDS) else None
        return v

    # ------------------------------------------------------------------ copies
    def clone(self, st: State) -> State:
        c = State()
        c.n, c.powers, c.discard_leftovers, c.caps = st.n, st.powers, st.discard_leftovers, st.caps
        c.magician_move, c.power_limit = st.magician_move, st.power_limit
        c.people, c.stage, c.rnd, c.order = st.people, st.stage, st.rnd, st.order[:]
        c.time_card, c.time_pile, c.tiles = st.time_card, st.time_pile[:], st.tiles
        c.gates, c.aside, c.mirrors, c.mag = st.gates, st.aside, st.mirrors[:], st.mag[:]
        c.vp, c.terror, c.curse, c.chim = st.vp[:], st.terror[:], st.curse[:], st.chim[:]
        c.h1 = [x[:] for x in st.h1]
        c.h2 = [x[:] for x in st.h2]
        c.appr = [x[:] for x in st.appr]
        c.grave, c.bridge, c.locked = st.grave[:], st.bridge[:], st.locked[:]
        c.locs = [L[:] for L in st.locs]
        c.bonus_left, c.idx, c.turn, c.sub, c.args = st.bonus_left[:], st.idx, st.turn, st.sub, st.args[:]
        c.actor, c.phandle, c.pcard, c.pround = st.actor, st.phandle[:], st.pcard[:], st.pround[:]
        c.boosted, c.final = st.boosted, None if st.final is None else st.final[:]
        c._cache = None
        c._fees = st._fees
        return c

    def encode(self, st: State) -> dict[str, Any]:
        return {
            "n": st.n, "powers": st.powers, "discard_leftovers": st.discard_leftovers, "people": st.people[:],
            "magician_move": st.magician_move, "power_limit": st.power_limit,
            "stage": st.stage, "rnd": st.rnd, "order": st.order[:], "time_card": st.time_card,
            "time_pile": st.time_pile[:], "tiles": st.tiles[:], "gates": st.gates[:], "aside": st.aside[:],
            "mirrors": st.mirrors[:], "mag": st.mag[:], "vp": st.vp[:], "terror": st.terror[:],
            "curse": st.curse[:], "chim": st.chim[:], "h1": [x[:] for x in st.h1], "h2": [x[:] for x in st.h2],
            "appr": [x[:] for x in st.appr], "grave": st.grave[:], "bridge": st.bridge[:],
            "locked": st.locked[:], "locs": [x[:] for x in st.locs], "bonus_left": st.bonus_left[:],
            "idx": st.idx, "turn": st.turn, "sub": st.sub, "args": st.args[:], "actor": st.actor,
            "phandle": st.phandle[:], "pcard": st.pcard[:], "pround": st.pround[:], "boosted": st.boosted,
            "final": None if st.final is None else st.final[:],
        }

    def decode(self, value: Any) -> State:
        if not isinstance(value, dict) or set(value) != set(State.FIELDS):
            raise ValueError("not an encoded Sabbat Magica state")
        st = State()
        for f in State.FIELDS:
            v = value[f]
            setattr(st, f, [x[:] if isinstance(x, list) else x for x in v] if isinstance(v, list) else v)
        st.caps = D.capacities(st.n)
        st._cache = None
        st._fees = _region_fees(st.gates)
        return st


def _luxuriance(out: list) -> None:
    for a in range(D.NRES):
        for b in range(a, D.NRES):
            out.append(["power", LUX_, a, b])


# short aliases for the power card ids used above
BOOSTER_, SPELL_, FRENZY_, BATS_, SEDUCTION_, IMMORTAL_ = D.BOOSTER, D.SPELL, D.FRENZY, D.BATS, D.SEDUCTION, D.IMMORTALITY
DOPP_, TELEPORT_, FIREBALL_, LUX_, APPARITION_, SECRET_ = (D.DOPPELGANGER, D.TELEPORTATION, D.FIREBALL,
                                                            D.LUXURIANCE, D.APPARITION, D.SECRET_AREA)

_LEGAL_TURN = {"": SabbatEngine._top_actions, "b2": SabbatEngine._legal_b2, "pay": SabbatEngine._legal_pay,
               "b1": SabbatEngine._legal_b1, "tt": SabbatEngine._legal_tt, "b1end": SabbatEngine._legal_b1end,
               "victims": SabbatEngine._legal_victims, "immortal": SabbatEngine._legal_immortal}
"""B's sub-step (State.sub) → the method listing its legal actions."""
_LEGAL_STAGE = {"bonus": SabbatEngine._legal_bonus, "food": SabbatEngine._legal_food, "alch": SabbatEngine._legal_alch,
                "canteen": SabbatEngine._legal_canteen, "secret": SabbatEngine._legal_secret}
"""A deciding stage other than B → the method listing its legal actions."""
_DO_TURN = {"move": SabbatEngine._do_move, "power": SabbatEngine._use_power, "magician": SabbatEngine._do_magician,
            "pay": SabbatEngine._do_pay, "tile": SabbatEngine._tile, "mirror": SabbatEngine._do_mirror,
            "give": SabbatEngine._do_give, "take": SabbatEngine._do_take, "steal": SabbatEngine._do_steal}
"""The kind of a B action (its first item) → the method carrying it out."""
_DO_STAGE = {"bonus": SabbatEngine._do_bonus, "food": SabbatEngine._do_food, "alch": SabbatEngine._do_alch,
             "canteen": SabbatEngine._do_canteen, "secret": SabbatEngine._do_secret}
"""A deciding stage other than B → the method carrying out its action."""

ENGINE = SabbatEngine()
