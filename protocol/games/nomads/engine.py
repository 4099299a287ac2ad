"""Nomads of Arabia (Arabiens nomader, Kris Gould): the rules engine.

specs/nomads-of-arabia.md is the prose version: every rule below names its section
(N.x) and IllegalAction errors carry that section. The engine is a deterministic state
machine (specs/engine.md): it asks for dice and board-card draws with `Random`, for the
yellow city tiles with mental-deck steps (`DeckShuffle`, `DeckShow`, `DeckReveal`), and
for player decisions with `Decide`. Nothing random is drawn here.

State layout (all plain ints, strings, bools and flat lists, so `clone` is a handful of
list copies and `encode` is a dict of them):

* rows[0..4]: the board cards in play, row 0 next to the pilgrim, row 4 farthest;
  a field is pos = row * WIDTH + col.
* boxes: flat [box * 4 + species] animal counts of the five landscape boxes.
* market[species]: animals on the market (they lie on the lowest fields);
  gamebox[species]: animals put back in the game box (out of play).
* per seat: money, animals (flat seat*4+sp), traders (flat seat*4+sp), pos
  (-1 = on the pilgrim's field, -2 = lost in the desert, off the board), status.
* yellow tiles are handles: yspaces (face down on the board's four spaces),
  row_yellow (face down on a city), held[seat], yburned (set aside unseen), ygone
  (left the game with their card), used_h/used_t (revealed: handle, tile id).
"""

from __future__ import annotations

from typing import Any

from ...engine import (Act, BadOptions, check_options, Decide, DeckReveal, DeckRevealed, DeckShow, DeckShown,
                       DeckShuffle, DeckShuffled, Finished, IllegalAction, Random, Rolled)
from . import data as D

W = D.WIDTH
NSP = D.NSP
NBOX = D.NBOX
DESERT, CITY, MOUNTAIN = D.DESERT, D.CITY, D.MOUNTAIN
CARDS = D.CARDS
IS_CITY_CARD = D.IS_CITY_CARD
SP = range(NSP)
assert NSP == 4 and NBOX == 5, "the refill check below is unrolled for 4 species and 5 boxes"

# status of a nomad
NORMAL, LOST, PILGRIM = 0, 1, 2
POS_PILGRIM, POS_LOST = -1, -2
from .options import FULL_MARKET, OPTIONS  # noqa: F401  (re-exported)

_R1 = Random((("int", D.LAND_DIE_FACES),))
_R_THROW = Random((("int", D.ANIMAL_DIE_FACES), ("int", D.ANIMAL_DIE_FACES)))
_R_RANDOM = Random((("int", D.ANIMAL_DIE_FACES), ("int", D.ANIMAL_DIE_FACES), ("int", D.LAND_DIE_FACES)))
_FINISHED = Finished()
_DECIDE = tuple(Decide(s) for s in range(D.MAX_PLAYERS))
_R_TRADERS = tuple(Random((("int", D.TRADER_FACES),) * k) for k in range(4))
_R_PILE = tuple(Random((("int", k),)) for k in range(max(D.N_DESERT, D.N_CITY, D.MAX_PLAYERS) + 1))
_FIXED_STEPS = {
    "r_land": _R_THROW, "s_lthrow": _R_THROW, "r_random": _R_RANDOM, "s_rthrow": _R_RANDOM,
    "r_animal": _R1, "s_ldie": _R1, "s_reroll": _R1,
    "s_layout": Random((("int", D.N_DESERT), ("int", D.N_CITY), ("int", D.N_DESERT - 1),
                        ("int", D.N_CITY - 1), ("int", D.N_DESERT - 2))),
    "s_shuffle": DeckShuffle("yellow", tuple(range(D.N_YELLOW))),
}
"""The steps that depend on the phase alone, built once."""
_DONE = ["done"]
_PASS = ["pass"]
_TILE_PHASES = frozenset(("move", "action", "abdul"))

_SLOTS = (
    "n", "yellow_n", "short_blue", "max_turns", "full_market", "lost_turns", "second_sale", "tile_back",
    "phase", "sub", "sub2", "carry", "tie", "tie_ctx",
    "rows", "row_yellow", "row_blue", "d_unknown", "d_bottom", "c_unknown", "c_bottom",
    "yspaces", "yburned", "ygone", "held", "used_h", "used_t", "sands_used",
    "blue_slots", "blue_plus",
    "boxes", "market", "cap", "gamebox", "reserve",
    "money", "animals", "traders", "pos", "status",
    "active", "resume", "extra", "turn_no", "start_seat",
    "acted", "selling", "pending", "silver", "sold", "placed", "refilled", "after_hire",
    "rctx", "wctx", "newtype", "keepq", "keep_ctx", "window", "last_roll", "last_roll_kind",
    "last_roll_seat", "last_roll_traders", "ended", "result",
)
_LIST_SLOTS = ("carry", "tie", "rows", "row_yellow", "row_blue", "d_unknown", "d_bottom", "c_unknown",
               "c_bottom", "yspaces", "yburned", "ygone", "used_h", "used_t", "blue_plus", "boxes",
               "market", "gamebox", "reserve", "money", "animals", "traders", "pos", "status",
               "pending", "keepq", "window", "last_roll", "last_roll_traders")


_RAW = {"rows": "_rows"}
_STORED_SLOTS = tuple(_RAW.get(s, s) for s in _SLOTS)
_STORED_LIST_SLOTS = tuple(_RAW.get(s, s) for s in _LIST_SLOTS)


class NomadsState:
    """`rows` is a property: assigning it refreshes the derived layout key and field kinds
    (code outside the engine may assign it; only the engine changes it in place, and then
    calls _set_layout itself). track, layout, kinds and openmask are derived, never encoded."""
    __slots__ = _STORED_SLOTS + ("track", "layout", "kinds", "openmask")

    @property
    def rows(self) -> list[int]:
        return self._rows

    @rows.setter
    def rows(self, value: list[int]) -> None:
        self._rows = value
        _set_layout(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NomadsState) and _encode(self) == _encode(other)

    def __repr__(self) -> str:
        return f"<NomadsState phase={self.phase} turn={self.turn_no} active={self.active}>"


# ----------------------------------------------------------------------------- helpers

def _ints(a: list) -> bool:
    for x in a[1:]:
        if type(x) is not int:
            return False
    return True


def _kind(st: NomadsState, p: int) -> int:
    return st.kinds[p]


_OPEN_MASK = tuple(sum(1 << c for c, k in enumerate(card) if k != MOUNTAIN) for card in CARDS)
"""Per card, the bit mask of its non-mountain fields (bit c = column c)."""
_FULL = (1 << (5 * W)) - 1
_HAS_LEFT = sum(1 << q for q in range(5 * W) if q % W > 0)
_HAS_RIGHT = sum(1 << q for q in range(5 * W) if q % W < W - 1)
_MOVE = tuple(["move", q // W, q % W] for q in range(5 * W))
_PLACE = tuple(["place", q // W, q % W] for q in range(5 * W))
_STAY, _PILGRIM = ["stay"], ["pilgrim"]
_REACH_CACHE: dict = {}


def _layout_key(rows: list[int]) -> int:
    """The five cards in play as one int, shifted to leave 6 bits for a field (see _reach)."""
    k = 0
    for card in rows:
        k = k * 17 + card + 1
    return k << 6


_KINDS_CACHE: dict = {}


def _set_layout(st: NomadsState) -> None:
    """Refresh the derived layout key, field kinds and open-field mask; called wherever
    st.rows changes. (A row without a card, -1, indexes the last card as the rows list
    always did: no decision looks at that row before a card is drawn for it.)"""
    rows = st.rows
    key = st.layout = _layout_key(rows)
    hit = _KINDS_CACHE.get(key)
    if hit is None:
        if len(_KINDS_CACHE) > 100_000:
            _KINDS_CACHE.clear()
        kinds = tuple(k for r in range(5) for k in CARDS[rows[r]])
        open_ = sum(_OPEN_MASK[rows[r]] << (r * W) for r in range(5))
        hit = _KINDS_CACHE[key] = (kinds, open_)
    st.kinds, st.openmask = hit


def _around(m: int) -> int:
    """Every field orthogonally next to a field of the bit set m (N.6.1)."""
    return ((m >> W) | (m << W) | ((m & _HAS_LEFT) >> 1) | ((m & _HAS_RIGHT) << 1)) & _FULL


def _reach(st: NomadsState, p: int) -> tuple[int, int, list, list, list, list]:
    """Fields one step away and fields exactly two steps away (N.6.1), as bit masks and as
    ["move", row, col] actions in field order, then the move phase's legal list off a city
    (N.6) without and with the two-step moves. Cached per layout and field (a pure function
    of the five cards in play)."""
    hit = _REACH_CACHE.get(st.layout | p)
    if hit is not None:
        return hit
    open_ = st.openmask
    bit = 1 << p
    d1 = _around(bit) & open_
    d2 = _around(d1) & open_ & ~d1 & ~bit
    masks = d1 << (5 * W) | d2
    hit = _BY_MASKS.get(masks)           # few distinct (d1, d2) pairs: share their lists
    if hit is None:
        m1, m2 = _moves(d1), _moves(d2)
        hit = _BY_MASKS[masks] = (d1, d2, m1, m2, [_STAY] + m1 + [_PILGRIM], [_STAY] + m1 + m2 + [_PILGRIM])
    if len(_REACH_CACHE) > 200_000:
        _REACH_CACHE.clear()
    _REACH_CACHE[st.layout | p] = hit
    return hit


_BY_MASKS: dict = {}


def _moves(m: int) -> list:
    out = []
    while m:
        low = m & -m
        out.append(_MOVE[low.bit_length() - 1])
        m ^= low
    return out


def _n_animals(st: NomadsState, seat: int) -> int:
    a = st.animals
    b = seat * NSP
    return a[b] + a[b + 1] + a[b + 2] + a[b + 3]


def _n_traders(st: NomadsState, seat: int) -> int:
    t = st.traders
    b = seat * NSP
    return t[b] + t[b + 1] + t[b + 2] + t[b + 3]


def move_cost(st: NomadsState, seat: int, steps: int) -> int:
    """Provisions for a move (N.6.2): one step free; two steps 1 per animal + 3 with three traders."""
    if steps < 2:
        return 0
    b = seat * NSP
    a = st.animals
    t = st.traders
    cost = D.PROVISIONS_PER_ANIMAL * (a[b] + a[b + 1] + a[b + 2] + a[b + 3])
    if t[b] + t[b + 1] + t[b + 2] + t[b + 3] >= 3:
        cost += D.PROVISIONS_THREE_TRADERS
    return cost


def price(st: NomadsState, sp: int) -> int:
    """The lowest visible number on the species' market (N.4)."""
    track = st.track[sp]
    k = st.market[sp]
    return track[k] if k < len(track) else track[-1]


def _take_market(st: NomadsState, sp: int, n: int) -> int:
    k = st.market[sp]
    t = n if n < k else k
    st.market[sp] = k - t
    return t


def _return_market(st: NomadsState, sp: int, n: int) -> None:
    """Animals come back on the lowest fields (AN-X1): on a full market the surplus stays on the
    market, stacked on the lowest field (option full_market "stack"), or goes to the game box
    ("gamebox")."""
    k = st.market[sp] + n
    if k > st.cap and st.full_market == "gamebox":
        st.gamebox[sp] += k - st.cap
        k = st.cap
    st.market[sp] = k


def throw_counts(a: int, b: int) -> list[int]:
    """Animals a landscape throw (or a random throw's animal dice) brings (N.3.1)."""
    fa, fb = D.ANIMAL_DIE[a], D.ANIMAL_DIE[b]
    out = [0] * NSP
    if fa < 0 and fb < 0:
        return [1] * NSP
    if fa >= 0 and fb >= 0 and fa != fb:
        out[fa] = 2
        out[fb] = 2
    else:
        out[fa if fa >= 0 else fb] = 4
    return out


def _place(st: NomadsState, box: int, counts: list[int]) -> None:
    base = box * NSP
    for sp in SP:
        if counts[sp]:
            st.boxes[base + sp] += _take_market(st, sp, counts[sp])


def _box_total(st: NomadsState, box: int) -> int:
    b = st.boxes
    i = box * NSP
    return b[i] + b[i + 1] + b[i + 2] + b[i + 3]


def fewest_boxes(st: NomadsState) -> list[int]:
    totals = [_box_total(st, b) for b in range(NBOX)]
    m = min(totals)
    return [b for b in range(NBOX) if totals[b] == m]


def _return_traders(st: NomadsState, seat: int) -> None:
    b = seat * NSP
    for sp in SP:
        st.reserve[sp] += st.traders[b + sp]
        st.traders[b + sp] = 0


def _keep_options(st: NomadsState, seat: int) -> list[list]:
    b = seat * NSP
    a = st.animals
    out = []
    for x in SP:
        if a[b + x] == 0:
            continue
        for y in range(x, NSP):
            if (x == y and a[b + x] >= 2) or (x != y and a[b + y] > 0):
                out.append(["keep", x, y])
    return out


def _tile_id(st: NomadsState, handle: int) -> int | None:
    try:
        return st.used_t[st.used_h.index(handle)]
    except ValueError:
        return None


def animal_total(st: NomadsState) -> int:
    """Every animal of the game: landscape boxes, markets, game box, players, a sale's animals
    not yet back on the market, and (before the first landscape die) the four setup animals."""
    t = sum(st.boxes) + sum(st.market) + sum(st.gamebox) + sum(st.animals) + sum(st.pending)
    if st.phase in ("s_layout", "s_shuffle", "s_ldie"):
        t += sum(st.carry)
    return t


def on_row4(st: NomadsState) -> bool:
    lim = 4 * W
    for s in range(st.n):
        if st.status[s] == NORMAL and st.pos[s] >= lim:
            return True
    return False


# ----------------------------------------------------------------------------- the engine

class NomadsEngine:
    name = "nomads"
    title = "Nomads of Arabia"
    min_players = D.MIN_PLAYERS
    max_players = D.MAX_PLAYERS

    # ------------------------------------------------------------- options and setup
    def default_options(self, players: int) -> dict[str, Any]:
        return {"yellow_tiles": D.YELLOW_BOARD_SPACES, "short_blue": False, "max_turns": D.MAX_TURNS,
                "full_market": "stack", "lost_turns": 2, "second_sale": False}

    def new_game(self, options: dict[str, Any], players: int) -> NomadsState:
        if not isinstance(players, int) or not D.MIN_PLAYERS <= players <= D.MAX_PLAYERS:
            raise BadOptions(f"Nomads of Arabia is for {D.MIN_PLAYERS}-{D.MAX_PLAYERS} players, not {players!r}")
        opts = check_options(OPTIONS, self.default_options(players), options or {}, players)
        st = NomadsState()
        n = players
        st.n = n
        st.yellow_n, st.short_blue, st.max_turns = opts["yellow_tiles"], opts["short_blue"], opts["max_turns"]
        st.full_market, st.lost_turns = opts["full_market"], opts["lost_turns"]
        st.second_sale = opts["second_sale"]
        st.tile_back = ""           # "move": a tile played before moving returns to the move phase (AN-19)
        st.track = D.price_track(n)
        st.phase = "s_layout"
        st.sub = 0
        st.sub2 = 0
        st.carry = [0] * NSP
        st.tie = []
        st.tie_ctx = ""
        st.rows = [-1] * 5          # no card in play before the layout draw (N.2)
        st.row_yellow = [0] * 5
        st.row_blue = [-1] * 5
        st.d_unknown = list(range(D.N_DESERT))
        st.d_bottom = []
        st.c_unknown = list(range(D.N_DESERT, D.N_DESERT + D.N_CITY))
        st.c_bottom = []
        st.yspaces, st.yburned, st.ygone = [], [], []
        st.held = [[] for _ in range(n)]
        st.used_h, st.used_t = [], []
        st.sands_used = False
        if st.short_blue:          # N.12: Mecca + 2 of the 4 others, placed face down on 3 spaces
            st.blue_slots = 3
        else:
            st.blue_slots = len(D.BLUE)
        st.blue_plus = list(D.BLUE_PLUS)
        cap = (D.COLUMNS - D.COVERED[n]) * D.PER_COLUMN
        st.cap = cap
        st.boxes = [0] * (NBOX * NSP)
        st.market = [cap] * NSP
        st.gamebox = [D.ANIMALS_PER_SPECIES - 1 - cap] * NSP   # 1 per species goes to the first box (N.2)
        st.carry = [1] * NSP                                    # ... held here until the die says where
        st.reserve = [D.TRADERS_PER_SPECIES[n]] * NSP
        st.money = [D.START_MONEY] * n
        st.animals = [0] * (n * NSP)
        st.traders = [0] * (n * NSP)
        st.pos = [0] * n
        st.status = [NORMAL] * n
        st.active = 0
        st.resume = -1
        st.extra = False
        st.turn_no = 0
        st.start_seat = -1
        st.acted = ""
        st.selling = ""
        st.pending = [0] * NSP
        st.silver = False
        st.sold = 0
        st.placed = False
        st.refilled = False
        st.after_hire = ""
        st.rctx = ""
        st.wctx = ""
        st.newtype = 0
        st.keepq = []
        st.keep_ctx = ""
        st.window = []
        st.last_roll = []
        st.last_roll_kind = ""
        st.last_roll_seat = -1
        st.last_roll_traders = []
        st.ended = False
        st.result = None
        return st

    # ------------------------------------------------------------- steps
    def expected(self, st: NomadsState):
        ph = st.phase
        if ph in _ACTIVE_DECIDES:
            return _DECIDE[st.active]
        if ph == "window":
            return _DECIDE[st.window[0]]
        step = _FIXED_STEPS.get(ph)
        if step is not None:
            return step
        if ph == "keep":
            return _DECIDE[st.keepq[0]]
        if ph in ("roll_catch", "roll_lure"):
            k = _n_traders(st, st.active)
            return _R_TRADERS[k] if k < len(_R_TRADERS) else Random((("int", D.TRADER_FACES),) * k)
        if ph == "draw_card":
            pile = st.c_unknown if st.newtype else st.d_unknown
            return _R_PILE[len(pile)]
        if ph == "draw_blue":
            return Random((("int", st.blue_slots), ("int", len(st.blue_plus))))
        if ph == "show":
            return DeckShow(st.active, (st.sub,))
        if ph == "final":
            return DeckReveal(tuple(h for s in range(st.n) for h in st.held[s]))
        if ph == "s_start":
            return _R_PILE[st.n]
        return _FINISHED

    # ------------------------------------------------------------- legal actions
    def legal_actions(self, st: NomadsState, seat: int, knowledge: dict | None = None) -> list:
        ph = st.phase
        if ph == "window":
            if seat != st.window[0]:
                return []
            out = [_PASS]
            if knowledge:
                for h in st.held[seat]:
                    if knowledge.get(h) == D.Y_SANDS:
                        out.append(["tile", h, D.Y_SANDS])
            return out
        legal = _LEGAL.get(ph)
        if legal is None:
            if ph != "keep" or seat != st.keepq[0]:
                return []
            return _keep_options(st, seat)
        if seat != st.active:
            return []
        out = legal(st, seat)
        if knowledge and ph in _TILE_PHASES:
            held = st.held[seat]
            if held:
                for h in held:
                    t = knowledge.get(h)
                    if t is not None and _tile_usable(st, seat, t):
                        out.append(["tile", h, t])
        return out

    # ------------------------------------------------------------- apply
    def apply(self, st: NomadsState, event) -> None:
        ph = st.phase
        if ph not in _DECIDE_PHASES:
            self._apply_event(st, ph, event)
            return
        if type(event) is not Act:
            raise IllegalAction(f"expected a decision in phase {ph}, got {type(event).__name__}", "N.5")
        step_seat = st.window[0] if ph == "window" else st.keepq[0] if ph == "keep" else st.active
        if event.seat != step_seat:
            raise IllegalAction(f"it is seat {step_seat}'s decision, not seat {event.seat}'s", "N.5")
        a = event.action
        if type(a) is not list:
            a = list(a) if type(a) is tuple else None
        if not a or (len(a) > 1 and not (len(a) == 3 and type(a[1]) is int and type(a[2]) is int)
                     and not _ints(a)):
            raise IllegalAction(f"an action is a list: a name and ints, not {event.action!r}",
                                _PHASE_RULE.get(ph, "N.5"))
        k = a[0]
        if k == "tile":
            _check_tile(st, step_seat, a)
        else:
            fast = _FAST_OK.get(ph)             # _fast_ok
            if not ((fast is not None and fast(st, step_seat, k, a)) or a in self.legal_actions(st, step_seat)):
                raise IllegalAction(*_why(st, step_seat, a))
        _ACT[ph](st, step_seat, a)

    def _apply_event(self, st: NomadsState, ph: str, event) -> None:
        """apply, for the steps that are not a decision."""
        step = self.expected(st)
        if type(step) is Random:
            _apply_rolled(st, ph, step, event)
        elif type(step) is DeckShuffle:
            _apply_shuffled(st, event)
        elif type(step) is DeckShow:
            if type(event) is not DeckShown or event.seat != step.seat or tuple(event.handles) != step.handles:
                raise IllegalAction(f"expected DeckShown({step.seat}, {step.handles})", "N.9.1")
            st.phase = "action"
        elif type(step) is DeckReveal:
            _apply_revealed(st, step, event)
        else:
            raise IllegalAction("the game is over", "N.11")

    def reveals(self, st: NomadsState, seat: int, action) -> list:
        if type(action) in (list, tuple) and len(action) >= 3 and action[0] == "tile":
            return [(action[1], action[2])]
        return []

    # ------------------------------------------------------------- views and results
    def view(self, st: NomadsState, seat: int | None, knowledge: dict | None = None) -> dict:
        return _view(st, seat, knowledge)

    def result(self, st: NomadsState):
        return st.result

    def clone(self, st: NomadsState) -> NomadsState:
        c = _copy_slots(st)
        if st.result is not None:
            c.result = {k: (v[:] if type(v) is list else v) for k, v in st.result.items()}
        return c

    def encode(self, st: NomadsState) -> dict:
        return _encode(st)

    def decode(self, value: dict) -> NomadsState:
        st = NomadsState()
        for s in _SLOTS:
            v = value[s]
            if s == "held":
                v = [list(h) for h in v]
            elif s in _LIST_SLOTS:
                v = list(v)
            elif s == "result" and v is not None:
                v = {k: (list(x) if type(x) in (list, tuple) else x) for k, x in v.items()}
            setattr(st, s, v)
        st.track = D.price_track(st.n)
        return st


def _apply_rolled(st: NomadsState, ph: str, step: Random, event) -> None:
    if type(event) is not Rolled:
        raise IllegalAction(f"expected dice / draws (Rolled), got {type(event).__name__}", "N.13")
    vals = event.values
    if len(vals) != len(step.draws):
        raise IllegalAction(f"expected {len(step.draws)} random values, got {len(vals)}", "N.13")
    for v, (kind, m) in zip(vals, step.draws):
        if type(v) is not int or not 0 <= v < m:
            raise IllegalAction(f"random value {v!r} is not in 0..{m - 1}", "N.13")
    _ROLL[ph](st, list(vals))


def _apply_shuffled(st: NomadsState, event) -> None:
    if type(event) is not DeckShuffled or event.deck != "yellow" or len(event.handles) != D.N_YELLOW:
        raise IllegalAction("expected the yellow city tiles shuffled (8 handles)", "N.2")
    hs = list(event.handles)
    if any(type(h) is not int or h <= 0 for h in hs) or len(set(hs)) != len(hs):
        raise IllegalAction("deck handles must be distinct positive ints", "N.13")
    _setup_yellow(st, hs)


def _apply_revealed(st: NomadsState, step: DeckReveal, event) -> None:
    if type(event) is not DeckRevealed or tuple(event.handles) != step.handles:
        raise IllegalAction(f"expected DeckRevealed of {step.handles}", "N.11")
    cards = list(event.cards)
    if len(cards) != len(step.handles) or any(type(c) is not int or not 0 <= c < D.N_YELLOW for c in cards):
        raise IllegalAction("revealed tiles must be yellow tile ids", "N.11")
    known = set(st.used_t)
    if len(set(cards)) != len(cards) or known & set(cards):
        raise IllegalAction("a yellow tile cannot be revealed twice", "N.11")
    for h, c in zip(step.handles, cards):
        st.used_h.append(h)
        st.used_t.append(c)
    _score(st)


def _copy_slots_source() -> str:
    """Source of _copy_slots: one assignment per slot (a getattr/setattr loop costs three
    times as much), each flat list copied, the held tiles copied per seat."""
    body = []
    for s in NomadsState.__slots__:
        if s == "held":
            body.append("    c.held = [h[:] for h in st.held]")
        elif s in _STORED_LIST_SLOTS:
            body.append(f"    c.{s} = st.{s}[:]")
        else:
            body.append(f"    c.{s} = st.{s}")
    return "def _copy_slots(st):\n    c = _new(NomadsState)\n" + "\n".join(body) + "\n    return c\n"


_copy_ns: dict = {"_new": object.__new__, "NomadsState": NomadsState}
exec(_copy_slots_source(), _copy_ns)
_copy_slots = _copy_ns["_copy_slots"]


def _encode(st: NomadsState) -> dict:
    out = {}
    for s in _SLOTS:
        v = getattr(st, s)
        if s == "held":
            v = [h[:] for h in v]
        elif s in _LIST_SLOTS:
            v = v[:]
        elif s == "result" and v is not None:
            v = {k: (x[:] if type(x) is list else x) for k, x in v.items()}
        out[s] = v
    return out


# ----------------------------------------------------------------------------- the last roll

# What the last roll was (`last_roll_kind`), in the rulebook's words (N.2, N.3, N.7): the
# landscape die for the first animals, a landscape roll (two animal dice), an animal roll (the
# landscape die), a random roll (two animal dice and the landscape die), the landscape die
# re-rolled alone in a setup random roll (AN-27), or the trader dice of a capture or a lure.
FIRST_ANIMALS, LANDSCAPE_ROLL, ANIMAL_ROLL, RANDOM_ROLL, REROLL = (
    "first_animals", "landscape_roll", "animal_roll", "random_roll", "reroll")
CATCH, LURE = "catch", "lure"
ROLL_KINDS = (FIRST_ANIMALS, LANDSCAPE_ROLL, ANIMAL_ROLL, RANDOM_ROLL, REROLL, CATCH, LURE)


def _rolled(st: NomadsState, v: list[int], kind: str) -> None:
    """Keep a refill or setup roll's values and which dice they were (for the table picture)."""
    st.last_roll = v
    st.last_roll_kind = kind
    st.last_roll_seat = -1
    st.last_roll_traders = []


def _rolled_traders(st: NomadsState, v: list[int], kind: str) -> None:
    """Keep a trader roll with its thrower and the dice per species, which the picture needs
    after the turn has passed on or the thrower's traders have gone back to the reserve."""
    seat = st.active
    st.last_roll = v
    st.last_roll_kind = kind
    st.last_roll_seat = seat
    st.last_roll_traders = st.traders[seat * NSP:(seat + 1) * NSP]


# ----------------------------------------------------------------------------- setup handlers

def _roll_layout(st: NomadsState, v: list[int]) -> None:
    # N.2: desert, city, desert, city, desert from the top (row 0, next to the pilgrim)
    st.rows[0] = st.d_unknown.pop(v[0])
    st.rows[1] = st.c_unknown.pop(v[1])
    st.rows[2] = st.d_unknown.pop(v[2])
    st.rows[3] = st.c_unknown.pop(v[3])
    st.rows[4] = st.d_unknown.pop(v[4])
    _set_layout(st)
    start = 3 * W + D.CITY_COL[st.rows[3]]     # the city farthest from the pilgrim
    for s in range(st.n):
        st.pos[s] = start
    st.phase = "s_shuffle"


def _setup_yellow(st: NomadsState, hs: list[int]) -> None:
    # N.2: four face down on the board's spaces (fewer in the short game, N.12), one on the
    # city nearest the pilgrim, the rest set aside unseen.
    y = st.yellow_n
    st.yspaces = hs[:y]
    st.row_yellow[1] = hs[y]
    st.yburned = hs[y + 1:]
    st.phase = "s_ldie"


def _roll_setup_ldie(st: NomadsState, v: list[int]) -> None:
    box = D.LAND_DIE[v[0]]
    _rolled(st, v, FIRST_ANIMALS)
    if box < 0:
        return                       # N.2: yellow -> roll again
    for sp in SP:
        st.boxes[box * NSP + sp] += st.carry[sp]
    st.carry = [0] * NSP
    st.sub = 0
    _setup_next_lthrow(st)


def _setup_next_lthrow(st: NomadsState) -> None:
    b = st.sub
    while b < NBOX and _box_total(st, b) > 0:
        b += 1
    if b < NBOX:
        st.sub = b
        st.phase = "s_lthrow"
    else:
        st.sub = D.SETUP_RANDOM_THROWS
        st.phase = "s_rthrow"


def _roll_setup_lthrow(st: NomadsState, v: list[int]) -> None:
    _rolled(st, v, LANDSCAPE_ROLL)
    _place(st, st.sub, throw_counts(v[0], v[1]))
    _setup_next_lthrow(st)          # an empty box (impossible with full markets) is thrown again


def _roll_setup_rthrow(st: NomadsState, v: list[int]) -> None:
    _rolled(st, v, RANDOM_ROLL)
    counts = throw_counts(v[0], v[1])
    box = D.LAND_DIE[v[2]]
    if box < 0:                      # N.2 / N.3.3: at setup a yellow landscape die is re-rolled
        st.carry = counts
        st.phase = "s_reroll"
        return
    _place(st, box, counts)
    _setup_after_rthrow(st)


def _roll_setup_reroll(st: NomadsState, v: list[int]) -> None:
    _rolled(st, v, REROLL)
    box = D.LAND_DIE[v[0]]
    if box < 0:
        return
    _place(st, box, st.carry)
    st.carry = [0] * NSP
    _setup_after_rthrow(st)


def _setup_after_rthrow(st: NomadsState) -> None:
    st.sub -= 1
    st.phase = "s_rthrow" if st.sub > 0 else "s_start"


def _roll_start(st: NomadsState, v: list[int]) -> None:
    st.start_seat = v[0]
    st.carry = [0] * NSP
    _start_turn(st, v[0])


# ----------------------------------------------------------------------------- turn flow

def _start_turn(st: NomadsState, seat: int) -> None:
    st.turn_no += 1
    if st.turn_no > st.max_turns:
        _game_end(st)
        return
    st.active = seat
    st.acted = ""
    st.selling = ""
    st.silver = False
    st.sold = 0
    st.placed = False
    st.refilled = False
    st.after_hire = ""
    st.phase = "move"


def _to_action(st: NomadsState) -> None:
    """Enter the action phase (N.5.1). When the only possible decision would be `done` and the
    player holds no yellow tile (so asking reveals nothing), the turn ends without asking."""
    st.phase = "action"
    seat = st.active
    if not st.held[seat] and _only_done(st, seat):
        _end_turn(st)


def _only_done(st: NomadsState, seat: int) -> bool:
    """True when _legal_action would offer nothing but `done` (without building the list)."""
    if (st.selling == "abdul" or _can_city_sell(st, seat)) and _n_animals(st, seat):
        return False
    if not st.acted and not st.placed:
        k = st.kinds[st.pos[seat]]
        if k < NBOX:
            if _n_traders(st, seat):
                return False
        elif k == DESERT and not on_row4(st):
            return False
    return True


def _close_sale(st: NomadsState) -> None:
    if st.selling:
        for sp in SP:
            if st.pending[sp]:
                _return_market(st, sp, st.pending[sp])
                st.pending[sp] = 0
        st.selling = ""


def _end_turn(st: NomadsState) -> None:
    if st.selling:
        _close_sale(st)
    st.rctx = "end"
    _refill(st)


def _refill(st: NomadsState) -> None:
    """N.3.4: landscape throws for empty boxes (lowest first), then animal throws for missing
    species (species order); repeat until nothing is needed."""
    if _refill_throw(st):
        return
    if st.rctx == "expert":
        if st.tile_back == "move":           # the Expert Handler was played before moving (AN-19)
            st.tile_back = ""
            st.phase = "move"
        else:
            _to_action(st)
    elif st.refilled:
        st.phase = "r_random"
    else:
        _after_turn(st)


def _refill_throw(st: NomadsState) -> bool:
    """The next throw of the refill (N.3.4), if the market has animals while a box is empty or a
    species is in no box: set up as the phase; whether there is one."""
    b = st.boxes
    m = st.market
    if not (m[0] or m[1] or m[2] or m[3]) or (_boxes_stocked(b) and _species_stocked(b)):
        return False
    for box in range(NBOX):
        i = box * NSP
        if not (b[i] or b[i + 1] or b[i + 2] or b[i + 3]):
            st.sub = box
            st.phase = "r_land"
            return True
    for sp in SP:
        if m[sp] and not (b[sp] or b[4 + sp] or b[8 + sp] or b[12 + sp] or b[16 + sp]):
            n = min(4, m[sp])
            g1 = min(2, n)
            st.sub = sp
            st.sub2 = 0
            st.carry = [g1, n - g1, 0, 0]
            st.phase = "r_animal"
            return True
    return False


def _boxes_stocked(b: list[int]) -> bool:
    """Whether every landscape box holds an animal (spelt out: the refill asks at every turn's end)."""
    return bool((b[0] or b[1] or b[2] or b[3]) and (b[4] or b[5] or b[6] or b[7])
                and (b[8] or b[9] or b[10] or b[11]) and (b[12] or b[13] or b[14] or b[15])
                and (b[16] or b[17] or b[18] or b[19]))


def _species_stocked(b: list[int]) -> bool:
    """Whether every species is in some landscape box."""
    return bool((b[0] or b[4] or b[8] or b[12] or b[16]) and (b[1] or b[5] or b[9] or b[13] or b[17])
                and (b[2] or b[6] or b[10] or b[14] or b[18]) and (b[3] or b[7] or b[11] or b[15] or b[19]))


def _roll_r_land(st: NomadsState, v: list[int]) -> None:
    _rolled(st, v, LANDSCAPE_ROLL)
    st.refilled = True
    _place(st, st.sub, throw_counts(v[0], v[1]))
    _refill(st)


def _roll_r_animal(st: NomadsState, v: list[int]) -> None:
    _rolled(st, v, ANIMAL_ROLL)
    st.refilled = True
    box = D.LAND_DIE[v[0]]
    counts = [0] * NSP
    counts[st.sub] = st.carry[st.sub2]
    if box < 0:
        few = fewest_boxes(st)
        if len(few) > 1:
            st.tie = few
            st.tie_ctx = "animal"
            st.phase = "tie"
            return
        box = few[0]
    _place(st, box, counts)
    _animal_next(st)


def _animal_next(st: NomadsState) -> None:
    st.sub2 += 1
    if st.sub2 < 2 and st.carry[1] > 0:
        st.phase = "r_animal"
    else:
        st.carry = [0] * NSP
        _refill(st)


def _roll_r_random(st: NomadsState, v: list[int]) -> None:
    _rolled(st, v, RANDOM_ROLL)
    counts = throw_counts(v[0], v[1])
    box = D.LAND_DIE[v[2]]
    if box < 0:
        few = fewest_boxes(st)
        if len(few) > 1:
            st.carry = counts
            st.tie = few
            st.tie_ctx = "random"
            st.phase = "tie"
            return
        box = few[0]
    _place(st, box, counts)
    _walk(st, "end")


def _act_tie(st: NomadsState, seat: int, a: list) -> None:
    box = a[1]
    st.tie = []
    if st.tie_ctx == "animal":
        counts = [0] * NSP
        counts[st.sub] = st.carry[st.sub2]
        _place(st, box, counts)
        _animal_next(st)
    else:
        _place(st, box, st.carry)
        st.carry = [0] * NSP
        _walk(st, "end")


def _after_turn(st: NomadsState) -> None:
    """N.5.2: the Sands of Time window, then the next player."""
    n = st.n
    nxt = st.resume if st.extra else (st.active + 1) % n
    st.extra = False
    st.resume = nxt
    held = st.held
    if not st.sands_used and any(held):
        a = st.active
        st.window = [s % n for s in range(a, a + n) if held[s % n]]
        st.phase = "window"
        return
    st.resume = -1
    _start_turn(st, nxt)


def _act_window(st: NomadsState, seat: int, a: list) -> None:
    if a[0] == "pass":
        st.window.pop(0)
        if not st.window:
            nxt = st.resume
            st.resume = -1
            _start_turn(st, nxt)
        return
    _use_tile(st, seat, a)          # Sands of Time: an extra turn now (N.9.2)
    st.window = []
    resume = st.resume
    _start_turn(st, seat)
    if not st.ended:
        st.extra = True
        st.resume = resume


# ----------------------------------------------------------------------------- desert walk

def _walk(st: NomadsState, ctx: str) -> None:
    """N.8: remove the farthest card, shift, draw a new card of the other kind."""
    st.wctx = ctx
    removed = st.rows[4]
    lim = 4 * W
    st.keepq = []
    for k in range(st.n):
        s = (st.active + k) % st.n
        if st.status[s] == NORMAL and st.pos[s] >= lim:
            _return_traders(st, s)            # N.8.2 lost in the desert
            if st.lost_turns == 1:            # AN-23 option: already travelling with the pilgrim
                st.pos[s] = POS_PILGRIM
                st.status[s] = PILGRIM
            else:
                st.pos[s] = POS_LOST
                st.status[s] = LOST
            if _n_animals(st, s) > 2:
                st.keepq.append(s)
    if st.row_yellow[4]:
        st.ygone.append(st.row_yellow[4])     # AN-14a: out of the game unseen
    city = IS_CITY_CARD[removed]
    (st.c_bottom if city else st.d_bottom).append(removed)
    st.rows[1:] = st.rows[:4]
    st.row_yellow[1:] = st.row_yellow[:4]
    st.row_blue[1:] = st.row_blue[:4]
    st.rows[0] = -1
    _set_layout(st)
    st.row_yellow[0] = 0
    st.row_blue[0] = -1
    for s in range(st.n):
        if st.status[s] == NORMAL and st.pos[s] >= 0:
            st.pos[s] += W
    st.newtype = 0 if city else 1
    if st.keepq:
        st.keep_ctx = "lost"
        st.phase = "keep"
        return
    _draw_card(st)


def _draw_card(st: NomadsState) -> None:
    pile = st.c_unknown if st.newtype else st.d_unknown
    if pile:
        st.phase = "draw_card"
        return
    bottom = st.c_bottom if st.newtype else st.d_bottom
    _place_card(st, bottom.pop(0))


def _roll_draw_card(st: NomadsState, v: list[int]) -> None:
    pile = st.c_unknown if st.newtype else st.d_unknown
    _place_card(st, pile.pop(v[0]))


def _place_card(st: NomadsState, card: int) -> None:
    st.rows[0] = card
    _set_layout(st)
    if IS_CITY_CARD[card]:
        if st.yspaces:                             # N.9: a yellow tile face down on the new city
            st.row_yellow[0] = st.yspaces.pop(0)
        elif st.blue_slots == 1:
            _place_blue(st, D.MECCA)
            return
        else:
            st.phase = "draw_blue"
            return
    _walk_done(st)


def _roll_draw_blue(st: NomadsState, v: list[int]) -> None:
    tile = D.MECCA if v[0] == 0 else st.blue_plus.pop(v[1])
    _place_blue(st, tile)


def _place_blue(st: NomadsState, tile: int) -> None:
    st.blue_slots -= 1
    st.row_blue[0] = tile
    if tile == D.MECCA:                             # N.11: the game ends at once
        _game_end(st)
        return
    _walk_done(st)


def _walk_done(st: NomadsState) -> None:
    if st.wctx == "vol":
        _to_action(st)
    else:
        _after_turn(st)


# ----------------------------------------------------------------------------- end of game

def _game_end(st: NomadsState) -> None:
    st.ended = True
    _close_sale(st)
    st.window = []
    st.keepq = []
    if any(st.held[s] for s in range(st.n)):
        st.phase = "final"
        return
    _score(st)


def _score(st: NomadsState) -> None:
    """N.11: dinars (with dinar tiles cashed), then animals; a remaining tie is shared."""
    n = st.n
    tiles = [0] * n
    for s in range(n):
        for h in st.held[s]:
            t = _tile_id(st, h)
            if t is not None:
                tiles[s] += D.YELLOW_DINARS[t]
    scores = [st.money[s] + tiles[s] for s in range(n)]
    animals = [_n_animals(st, s) for s in range(n)]
    best = max((scores[s], animals[s]) for s in range(n))
    winners = [s for s in range(n) if (scores[s], animals[s]) == best]
    st.result = {"winners": winners, "scores": scores, "animals": animals, "tile_dinars": tiles,
                 "turns": st.turn_no}
    st.phase = "over"


# ----------------------------------------------------------------------------- legal actions per phase

def _legal_move(st: NomadsState, seat: int) -> list:
    status = st.status[seat]
    if status == LOST:
        return [["pilgrim"]]
    if status == PILGRIM:
        return _open_fields(st)[1][:]
    p = st.pos[seat]
    if st.kinds[p] == CITY:
        return [_STAY, ["depart"], _PILGRIM]
    hit = _reach(st, p)
    if hit[1] and st.money[seat] >= move_cost(st, seat, 2):
        return hit[5][:]
    return hit[4][:]


def _dest_list(st: NomadsState, seat: int, p: int) -> list:
    hit = _reach(st, p)
    if hit[1] and st.money[seat] >= move_cost(st, seat, 2):
        return hit[2] + hit[3]
    return hit[2][:]


def _legal_hire(st: NomadsState, seat: int) -> list:
    k = _n_traders(st, seat)
    out = []
    if k < 3 and (k < 2 or st.money[seat] >= D.HIRE_THIRD_COST):
        out = [["hire", sp] for sp in SP if st.reserve[sp]]
    if k >= D.HIRE_FREE or not any(st.reserve):
        out.append(_DONE)
    return out


def _legal_dest(st: NomadsState, seat: int) -> list:
    return _dest_list(st, seat, st.pos[seat])


_OPEN_CACHE: dict = {}


def _open_fields(st: NomadsState) -> tuple[tuple[int, ...], list]:
    """Every non-mountain field of the layout, and the pilgrim's ["place", row, col] actions
    on them (cached per layout)."""
    hit = _OPEN_CACHE.get(st.layout)
    if hit is None:
        if len(_OPEN_CACHE) > 50_000:
            _OPEN_CACHE.clear()
        fields = tuple(q for q in range(5 * W) if st.kinds[q] != MOUNTAIN)
        hit = _OPEN_CACHE[st.layout] = (fields, [_PLACE[q] for q in fields])
    return hit


def _legal_winds(st: NomadsState, seat: int) -> list:
    p = st.pos[seat]
    return [["goto", q // W, q % W] for q in _open_fields(st)[0] if q != p]


def _sell_options(st: NomadsState, seat: int) -> list:
    b = seat * NSP
    out = []
    for sp in SP:
        for k in range(1, st.animals[b + sp] + 1):
            out.append(["sell", sp, k])
    return out


def _can_city_sell(st: NomadsState, seat: int) -> bool:
    """A city sale: one per turn (the action), and (AN-X13) not after an Abdul sale in the same turn
    unless the option second_sale allows it (`sold` > 0 with no city sale open: Abdul sold)."""
    return st.pos[seat] >= 0 and st.kinds[st.pos[seat]] == CITY and (
        st.selling == "city" or (st.acted == "" and (st.sold == 0 or st.second_sale)))


def _legal_action(st: NomadsState, seat: int) -> list:
    out = []
    p = st.pos[seat]
    if st.selling == "abdul" or _can_city_sell(st, seat):
        out.extend(_sell_options(st, seat))
    if not st.acted and not st.placed:
        k = st.kinds[p]
        if k < NBOX:
            if _n_traders(st, seat):
                out.append(["catch"])
                out.append(["lure"])
        elif k == DESERT and not on_row4(st):
            out.append(["walk"])
    out.append(_DONE)
    return out


def _legal_take_catch(st: NomadsState, seat: int) -> list:
    base = st.sub * NSP
    return [["take", sp] for sp in SP if st.boxes[base + sp]]


def _legal_expert(st: NomadsState, seat: int) -> list:
    return [["take", b, sp] for b in range(NBOX) for sp in SP if st.boxes[b * NSP + sp]]


def _legal_tie(st: NomadsState, seat: int) -> list:
    return [["box", b] for b in st.tie]


def _tile_usable(st: NomadsState, seat: int, t: int) -> bool:
    """N.9.2: when a held yellow tile may be played (the window handles Sands of Time)."""
    ph = st.phase
    if t in st.used_t:
        return False
    p = st.pos[seat]
    if ph == "move":                     # before moving: Winds, and Abdul / Expert "i ett speldrag" (AN-19)
        if st.status[seat] != NORMAL:
            return False
        if t == D.Y_ABDUL:
            return _kind(st, p) != CITY and _n_animals(st, seat) > 0
        if t == D.Y_EXPERT:
            return any(st.boxes)
        return t == D.Y_WINDS
    if ph == "abdul":
        return t == D.Y_SILVER and not st.silver
    if ph != "action":
        return False
    if t == D.Y_ABDUL:
        return st.selling != "abdul" and p >= 0 and _kind(st, p) != CITY and _n_animals(st, seat) > 0
    if t == D.Y_SILVER:
        return not st.silver and (st.selling == "abdul" or _can_city_sell(st, seat))
    if t == D.Y_EXPERT:
        return not st.placed and any(st.boxes)
    return False


def _check_tile(st: NomadsState, seat: int, a: list) -> None:
    if len(a) != 3 or type(a[1]) is not int or type(a[2]) is not int:
        raise IllegalAction(f"a tile action is ['tile', handle, tile id], not {a!r}", "N.9.2")
    h, t = a[1], a[2]
    if h not in st.held[seat]:
        raise IllegalAction(f"seat {seat} holds no unused yellow tile with handle {h}", "N.9.1")
    if not 0 <= t < D.N_YELLOW:
        raise IllegalAction(f"{t} is not a yellow tile id", "N.9.2")
    if t in st.used_t:
        raise IllegalAction(f"{D.YELLOW[t]['en']} has already been revealed", "N.9.2")
    if D.YELLOW_DINARS[t]:
        raise IllegalAction("dinar tiles are not played; they are cashed at the end of the game", "N.9.2")
    if st.phase == "window":
        if t != D.Y_SANDS:
            raise IllegalAction(f"only Sands of Time may be played between turns, not {D.YELLOW[t]['en']}", "N.5.2")
        return
    if t == D.Y_SANDS:
        raise IllegalAction("Sands of Time is played between turns, in the window after a turn", "N.5.2")
    if not _tile_usable(st, seat, t):
        raise IllegalAction(f"{D.YELLOW[t]['en']} cannot be played now (phase {st.phase})", "N.9.2")


_LEGAL = {
    "move": _legal_move, "hire": _legal_hire, "dest": _legal_dest, "winds": _legal_winds,
    "action": _legal_action, "catch_pick": _legal_take_catch, "expert": _legal_expert, "tie": _legal_tie,
    "abdul": lambda st, seat: _sell_options(st, seat) + [_DONE],
}
_DECIDE_PHASES = frozenset(("move", "hire", "dest", "winds", "action", "catch_pick", "expert", "tie",
                            "keep", "window", "abdul"))
_ACTIVE_DECIDES = _DECIDE_PHASES - {"keep", "window"}
"""The decision phases where the active player decides."""


def _fast_ok(st: NomadsState, seat: int, ph: str, k: str, a: list) -> bool:
    """Cheap acceptance of the most frequent legal actions; anything it does not accept is
    checked against the full legal list (so a False here is never a rejection by itself)."""
    fast = _FAST_OK.get(ph)
    return fast is not None and fast(st, seat, k, a)


def _fast_window(st: NomadsState, seat: int, k: str, a: list) -> bool:
    return k == "pass" and len(a) == 1


def _fast_action(st: NomadsState, seat: int, k: str, a: list) -> bool:
    if k == "done":
        return len(a) == 1
    if k == "sell":
        return (len(a) == 3 and 0 <= a[1] < NSP and 1 <= a[2] <= st.animals[seat * NSP + a[1]]
                and (st.selling == "abdul" or _can_city_sell(st, seat)))
    return False


def _fast_move(st: NomadsState, seat: int, k: str, a: list) -> bool:
    if len(a) == 1:
        status = st.status[seat]
        if k == "pilgrim":
            return status != PILGRIM
        if status != NORMAL:
            return False
        if k == "stay":
            return True
        return k == "depart" and st.kinds[st.pos[seat]] == CITY
    if k == "move" and len(a) == 3 and st.status[seat] == NORMAL:
        p = st.pos[seat]
        if st.kinds[p] == CITY or not (0 <= a[1] < 5 and 0 <= a[2] < W):
            return False
        return _in_reach(st, seat, p, a)
    return False


def _fast_hire(st: NomadsState, seat: int, k: str, a: list) -> bool:      # as _legal_hire
    t = _n_traders(st, seat)
    if k == "hire":
        return (len(a) == 2 and 0 <= a[1] < NSP and bool(st.reserve[a[1]]) and t < 3
                and (t < 2 or st.money[seat] >= D.HIRE_THIRD_COST))
    return k == "done" and len(a) == 1 and (t >= D.HIRE_FREE or not any(st.reserve))


def _fast_dest(st: NomadsState, seat: int, k: str, a: list) -> bool:      # as _legal_dest
    p = st.pos[seat]
    if k == "move" and len(a) == 3 and p >= 0 and 0 <= a[1] < 5 and 0 <= a[2] < W:
        return _in_reach(st, seat, p, a)
    return False


def _in_reach(st: NomadsState, seat: int, p: int, a: list) -> bool:
    """Whether field (a[1], a[2]), on the board, is one field from p, or two and the seat can pay."""
    d1, d2 = _reach(st, p)[:2]
    q = a[1] * W + a[2]
    return bool((d1 >> q) & 1 or ((d2 >> q) & 1 and st.money[seat] >= move_cost(st, seat, 2)))


_FAST_OK = {"window": _fast_window, "action": _fast_action, "move": _fast_move, "hire": _fast_hire,
            "dest": _fast_dest}
"""A phase → its cheap acceptance check (_fast_ok)."""


def _why(st: NomadsState, seat: int, a) -> tuple[str, str]:
    """A readable reason and the spec section for an action outside the legal list."""
    ph = st.phase
    kind = a[0] if type(a) is list and a else a
    if ph in ("move", "dest") and kind == "move" and type(a) is list and len(a) == 3:
        return _why_move(st, seat, ph, a)
    if ph == "hire" and kind == "hire":
        if _n_traders(st, seat) >= 3:
            return "at most three traders may be hired", "N.6.3"
        if _n_traders(st, seat) == 2 and st.money[seat] < D.HIRE_THIRD_COST:
            return "a third trader costs 3 dinars", "N.6.3"
        return "that trader die is not in the reserve", "N.6.3"
    if ph == "hire" and kind == "done":
        return "leaving a city you must take at least two traders while the reserve has them", "N.6.3"
    if ph == "action":
        why = _why_action(st, kind)
        if why is not None:
            return why
    if ph == "window" and kind != "pass":
        return "between turns the only choices are to pass or to play Sands of Time", "N.5.2"
    return f"{a!r} is not a legal action in phase {ph}", _PHASE_RULE.get(ph, "N.5")


def _why_move(st: NomadsState, seat: int, ph: str, a: list) -> tuple[str, str]:
    """Why a ['move', row, column] is not legal (phase move or dest)."""
    if ph == "move" and st.status[seat] == NORMAL and st.pos[seat] >= 0 and _kind(st, st.pos[seat]) == CITY:
        return "leaving a city starts with hiring traders: play ['depart'] first", "N.6.3"
    try:
        q = a[1] * W + a[2]
        ok = 0 <= a[1] < 5 and 0 <= a[2] < W
    except TypeError:
        ok = False
    if not ok:
        return f"{a!r} is off the board", "N.6.1"
    if _kind(st, q) == MOUNTAIN:
        return "nomads may not enter mountain fields (black)", "N.6.1"
    if st.pos[seat] >= 0 and (_reach(st, st.pos[seat])[1] >> q) & 1:
        cost = move_cost(st, seat, 2)
        return f"a two-field move costs {cost} dinars in provisions; seat {seat} has {st.money[seat]}", "N.6.2"
    return f"field {a[1]},{a[2]} is not one or two fields away", "N.6.1"


def _why_action(st: NomadsState, kind) -> tuple[str, str] | None:
    """Why an action of this kind is not legal in the action phase (None: no particular reason)."""
    if kind == "walk":
        if on_row4(st):
            return "the desert may not be moved while a nomad stands on the farthest card", "N.7.3"
        return "the desert can be moved only from a desert field, as the turn's action", "N.7.3"
    if kind in ("catch", "lure"):
        if st.placed:
            return "after being placed by the pilgrim the only action is selling", "N.10"
        if st.acted:
            return "only one action per turn", "N.5.1"
        return "catching and luring need a landscape field and at least one trader", "N.7.1"
    if kind == "sell":
        return "selling needs a city field (or Abdul), an unused action and animals you hold", "N.7.4"
    return None


_PHASE_RULE = {"move": "N.6", "hire": "N.6.3", "dest": "N.6", "winds": "N.9.2", "action": "N.7",
               "catch_pick": "N.7.1", "expert": "N.9.2", "tie": "N.3.2", "keep": "N.10", "window": "N.5.2",
               "abdul": "N.9.2"}


# ----------------------------------------------------------------------------- action handlers

def _arrive(st: NomadsState, seat: int, p: int, pickup: bool) -> None:
    """N.6.4: arriving on a city returns all traders; N.9.1: the first to reach it takes its tile."""
    st.pos[seat] = p
    if st.kinds[p] == CITY:
        _return_traders(st, seat)
        r = p // W
        h = st.row_yellow[r]
        if pickup and h:
            st.row_yellow[r] = 0
            st.held[seat].append(h)
            st.sub = h
            st.phase = "show"
            return
    _to_action(st)


def _act_move(st: NomadsState, seat: int, a: list) -> None:
    k = a[0]
    if k == "stay":
        _to_action(st)
    elif k == "move":
        q = a[1] * W + a[2]
        if not (_reach(st, st.pos[seat])[0] >> q) & 1:
            st.money[seat] -= move_cost(st, seat, 2)
        _arrive(st, seat, q, True)
    elif k == "depart":
        st.after_hire = "dest"
        st.phase = "hire"
    elif k == "pilgrim":
        _to_pilgrim(st, seat)
    elif k == "place":
        st.status[seat] = NORMAL
        st.placed = True
        _arrive(st, seat, a[1] * W + a[2], False)
    elif k == "tile":
        _use_tile(st, seat, a)


def _to_pilgrim(st: NomadsState, seat: int) -> None:
    """N.10: return traders, keep two animals, go to the pilgrim's field; nothing more this turn."""
    _return_traders(st, seat)
    if _n_animals(st, seat) > 2:
        st.keepq = [seat]
        st.keep_ctx = "pilgrim"
        st.phase = "keep"
        return
    _pilgrim_arrive(st, seat)


def _pilgrim_arrive(st: NomadsState, seat: int) -> None:
    st.pos[seat] = POS_PILGRIM
    st.status[seat] = PILGRIM
    _end_turn(st)


def _act_keep(st: NomadsState, seat: int, a: list) -> None:
    b = seat * NSP
    keep = [0] * NSP
    keep[a[1]] += 1
    keep[a[2]] += 1
    for sp in SP:
        back = st.animals[b + sp] - keep[sp]
        if back:
            _return_market(st, sp, back)
            st.animals[b + sp] = keep[sp]
    st.keepq.pop(0)
    if st.keep_ctx == "pilgrim":
        _pilgrim_arrive(st, seat)
    elif st.keepq:
        st.phase = "keep"
    else:
        _draw_card(st)


def _act_hire(st: NomadsState, seat: int, a: list) -> None:
    if a[0] == "done":
        st.phase = st.after_hire
        return
    sp = a[1]
    if _n_traders(st, seat) == 2:
        st.money[seat] -= D.HIRE_THIRD_COST
    st.reserve[sp] -= 1
    st.traders[seat * NSP + sp] += 1


def _act_dest(st: NomadsState, seat: int, a: list) -> None:
    q = a[1] * W + a[2]
    if not (_reach(st, st.pos[seat])[0] >> q) & 1:
        st.money[seat] -= move_cost(st, seat, 2)
    _arrive(st, seat, q, True)


def _act_winds(st: NomadsState, seat: int, a: list) -> None:
    _arrive(st, seat, a[1] * W + a[2], True)


def _act_action(st: NomadsState, seat: int, a: list) -> None:
    k = a[0]
    if k == "sell":
        sp, cnt = a[1], a[2]
        if not st.selling:
            st.selling = "city"
            st.acted = "sell"
        unit = price(st, sp)
        if st.selling == "city":
            r = st.pos[seat] // W
            if st.row_blue[r] >= 0 and D.BLUE_SPECIES[st.row_blue[r]] == sp:
                unit += 1
        if st.silver:
            unit += 1
        st.money[seat] += unit * cnt
        st.animals[seat * NSP + sp] -= cnt
        st.pending[sp] += cnt
        st.sold += cnt
        return
    if k == "done":
        _end_turn(st)
        return
    if k == "tile":
        _use_tile(st, seat, a)
        return
    _close_sale(st)
    if k == "catch" or k == "lure":
        st.acted = k
        st.sub = _kind(st, st.pos[seat])
        st.phase = "roll_catch" if k == "catch" else "roll_lure"
    elif k == "walk":
        st.acted = "walk"
        _walk(st, "vol")


def _dice_species(st: NomadsState, seat: int) -> list[int]:
    b = seat * NSP
    out = []
    for sp in SP:
        out.extend([sp] * st.traders[b + sp])
    return out


def _roll_catch(st: NomadsState, v: list[int]) -> None:
    """N.7.1: each die showing its animal takes one of that kind from the box (if there)."""
    _rolled_traders(st, v, CATCH)
    seat = st.active
    base = st.sub * NSP
    got = [0] * NSP
    any_animal = False
    for sp, face in zip(_dice_species(st, seat), v):
        if face < D.TRADER_ANIMAL_FACES:
            got[sp] += 1
            any_animal = True
    if not any_animal:
        if any(st.boxes[base:base + NSP]):
            st.phase = "catch_pick"          # all blank: ONE animal of your choice
            return
    for sp in SP:
        t = min(got[sp], st.boxes[base + sp])
        st.boxes[base + sp] -= t
        st.animals[seat * NSP + sp] += t
    _to_action(st)


def _roll_lure(st: NomadsState, v: list[int]) -> None:
    """N.7.2: two of the shown animal from the market per die; one of each kind per blank."""
    _rolled_traders(st, v, LURE)
    seat = st.active
    counts = [0] * NSP
    for sp, face in zip(_dice_species(st, seat), v):
        if face < D.TRADER_ANIMAL_FACES:
            counts[sp] += 2
        else:
            for x in SP:
                counts[x] += 1
    _place(st, st.sub, counts)
    _to_action(st)


def _act_catch_pick(st: NomadsState, seat: int, a: list) -> None:
    sp = a[1]
    st.boxes[st.sub * NSP + sp] -= 1
    st.animals[seat * NSP + sp] += 1
    _to_action(st)


def _act_expert(st: NomadsState, seat: int, a: list) -> None:
    b, sp = a[1], a[2]
    st.boxes[b * NSP + sp] -= 1
    st.animals[seat * NSP + sp] += 1
    st.rctx = "expert"                       # N.9.2: its refill happens at once
    _refill(st)


def _act_abdul(st: NomadsState, seat: int, a: list) -> None:
    """A sale with Abdul the Trader before moving (AN-19): sells and Silver Tongue as in a sale;
    "done" returns the animals to the market and goes back to the move."""
    if a[0] == "done":
        _close_sale(st)
        st.phase = "move"
    else:
        _act_action(st, seat, a)


def _use_tile(st: NomadsState, seat: int, a: list) -> None:
    h, t = a[1], a[2]
    st.held[seat].remove(h)
    st.used_h.append(h)
    st.used_t.append(t)
    if t == D.Y_WINDS:
        if _kind(st, st.pos[seat]) == CITY:
            st.after_hire = "winds"
            st.phase = "hire"
        else:
            st.phase = "winds"
    elif t == D.Y_ABDUL:
        _close_sale(st)
        st.selling = "abdul"
        if st.phase == "move":               # a sale before moving, closed by "done" (AN-19)
            st.phase = "abdul"
    elif t == D.Y_SILVER:
        st.silver = True
        st.money[seat] += st.sold            # +1 for every animal sold this turn
    elif t == D.Y_EXPERT:                    # a sale stays open (issue 35): more may be sold after it
        st.tile_back = "move" if st.phase == "move" else ""
        st.phase = "expert"
    elif t == D.Y_SANDS:
        st.sands_used = True


_ACT = {
    "move": _act_move, "hire": _act_hire, "dest": _act_dest, "winds": _act_winds, "action": _act_action,
    "catch_pick": _act_catch_pick, "expert": _act_expert, "tie": _act_tie, "keep": _act_keep, "abdul": _act_abdul,
    "window": _act_window,
}
_ROLL = {
    "s_layout": _roll_layout, "s_ldie": _roll_setup_ldie, "s_lthrow": _roll_setup_lthrow,
    "s_rthrow": _roll_setup_rthrow, "s_reroll": _roll_setup_reroll, "s_start": _roll_start,
    "r_land": _roll_r_land, "r_animal": _roll_r_animal, "r_random": _roll_r_random,
    "roll_catch": _roll_catch, "roll_lure": _roll_lure, "draw_card": _roll_draw_card,
    "draw_blue": _roll_draw_blue,
}


# ----------------------------------------------------------------------------- view

def _field_name(k: int) -> str:
    return D.KIND_NAMES[k]


def _view(st: NomadsState, seat: int | None, knowledge: dict | None) -> dict:
    n = st.n
    knowledge = knowledge or {}
    rows = []
    for r in range(5):
        card = st.rows[r]
        if card < 0:
            rows.append(None)
            continue
        rows.append({
            "card": card,
            "kind": "city" if IS_CITY_CARD[card] else "desert",
            "fields": [_field_name(k) for k in CARDS[card]],
            "yellow_tile": bool(st.row_yellow[r]),
            "blue_tile": D.BLUE_KEYS[st.row_blue[r]] if st.row_blue[r] >= 0 else None,
        })
    players = []
    for s in range(n):
        p = st.pos[s]
        pl = {
            "seat": s,
            "money": st.money[s],
            "animals": st.animals[s * NSP:(s + 1) * NSP],
            "traders": st.traders[s * NSP:(s + 1) * NSP],
            "position": [p // W, p % W] if p >= 0 else ("pilgrim" if p == POS_PILGRIM else "lost"),
            "status": ("normal", "lost", "pilgrim")[st.status[s]],
            "tiles_held": len(st.held[s]),
        }
        if s == seat:
            pl["my_tiles"] = [{"handle": h, "tile": D.YELLOW_KEYS[knowledge[h]]}
                              for h in st.held[s] if h in knowledge]
        players.append(pl)
    used = [{"handle": h, "tile": D.YELLOW_KEYS[t]} for h, t in zip(st.used_h, st.used_t)]
    v = {
        "game": "nomads",
        "phase": st.phase,
        "active": st.active,
        "turn": st.turn_no,
        "you": seat,
        "species": list(D.SPECIES),
        "landscapes": list(D.LANDSCAPES),
        "rows": rows,
        "boxes": [st.boxes[b * NSP:(b + 1) * NSP] for b in range(NBOX)],
        "market": {"animals": st.market[:], "prices": [price(st, sp) for sp in SP], "capacity": st.cap,
                   "overflow": [max(0, k - st.cap) for k in st.market]},
        "reserve": st.reserve[:],
        "players": players,
        "yellow_on_board_spaces": len(st.yspaces),
        "blue_tiles_left": st.blue_slots,
        "piles": {"desert": len(st.d_unknown) + len(st.d_bottom), "city": len(st.c_unknown) + len(st.c_bottom)},
        "revealed_tiles": used,
        "turn_state": {"acted": st.acted, "selling": st.selling, "silver_tongue": st.silver,
                       "placed_by_pilgrim": st.placed, "refilled": st.refilled},
        "last_roll": st.last_roll[:],
        "last_roll_kind": st.last_roll_kind,
        "last_roll_seat": st.last_roll_seat,
        "last_roll_traders": st.last_roll_traders[:],
        "result": st.result,
        "state": _encode(st),            # the public state (tiles are handles): for search bots
    }
    if st.phase == "tie":
        v["tie_boxes"] = st.tie[:]
    return v


ENGINE = NomadsEngine()
