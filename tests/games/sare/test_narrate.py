"""Sa-Rê narration, move words and board pictures over whole random games (every player count,
scenario and the Architect variant), checked against the referee's truth: pictures parse and draw
every seat, every move has words and a clickable place that exists, chance and private draws are
told to the right viewers only, and the end names the winners and scores."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from clients.narrate import Table, seat_name
from clients.narrate import sare as N
from clients.render import sare as R
from protocol import engine as E
from protocol.games.sare import ENGINE
from protocol.games.sare.data import CARD_KIND, CARD_KIND_NAME, DOUBLE, KIND_INDEX
from protocol.referee import Referee

NAMES = ["Ann", "Bob", "Cy", "Dee"]
CARD_WORDS = ("Wood", "Gold", "Stone", "Horus", "Hoshekh", "Troubles")
SVG_NS = "{http://www.w3.org/2000/svg}"


def _face(card_id: int) -> str:
    return N.CARD[CARD_KIND_NAME[CARD_KIND[card_id]]]


def _kind(card_id: int) -> str:
    return CARD_KIND_NAME[CARD_KIND[card_id]]


def _chooser(rng: random.Random):
    """Random play that uses the Temple, oracle, Palace and Market often and rarely demolishes,
    so private draws, requisitions and exchanges happen in short games."""
    def choose(seat, legal, ref):
        if not isinstance(legal[0], list):
            return rng.choice(legal)
        for a in legal:
            if a[0] in ("temple", "oracle", "palace", "market", "library", "gardens") and rng.random() < 0.5:
                return a
        keep = [a for a in legal if a[0] not in ("demolish", "cancel", "stop")]
        return rng.choice(keep if keep and rng.random() < 0.75 else legal)
    return choose


def _parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def _targets(root: ET.Element) -> set[str]:
    return {e.get("data-target") for e in root.iter() if e.get("data-target")}


def _classes(root: ET.Element) -> set[str]:
    out: set[str] = set()
    for e in root.iter():
        out.update((e.get("class") or "").split())
    return out


def _by_handle(root: ET.Element) -> dict[int, ET.Element]:
    return {int(e.get("data-handle")): e for e in root.iter() if e.get("data-handle")}


class Game:
    """One random game with a Table per viewer (each seat, then the spectator) and every sentence."""

    def __init__(self, n: int, seed: int, options: dict):
        self.n = n
        self.ref = Referee(ENGINE, n, options, seed=seed)
        self.names = NAMES[:n]
        self.viewers: list[int | None] = list(range(n)) + [None]
        self.tables = [Table(ENGINE, options, n, v, self.names) for v in self.viewers]
        self.rng = random.Random(seed)
        self.choose = _chooser(self.rng)
        self.temples = seed % 2 == 0
        if self.temples:
            self._temple_palace_market()

    def _temple_palace_market(self) -> None:
        """Every seat owns a Temple, Palace and Market from turn 1: play the seat order and setup
        through the referee and the tables, then add the buildings to every replica alike."""
        while self.ref.state.phase in ("order", "setup"):
            self.step()
        for st in [self.ref.state] + [t.state for t in self.tables]:
            for p in range(self.n):
                free = [s for s in range(12) if all(pc[1] != s for pc in st.pieces[p])]
                for kind, space in zip(("temple", "palace", "market"), free):
                    k = KIND_INDEX[kind]
                    st.board[k] -= 1
                    st.pieces[p].append([k, space, 1, 0, 0, 0, 0])
                st.ver += 1
        for t, v in zip(self.tables, self.viewers):
            t.refresh(self.ref.knowledge[v] if v is not None else None)

    def step(self):
        """One referee step; returns (event, [(viewer, before, info, lines, after)]) or None at the end."""
        befores = [t.view for t in self.tables]
        ev = self.ref.step(self.choose)
        if ev is None:
            return None
        out = []
        for t, v, before in zip(self.tables, self.viewers, befores):
            info, lines = t.apply(ev, self.ref.knowledge[v] if v is not None else None)
            out.append((v, before, info, lines, t.view))
        return ev, out


CONFIGS = [(n, seed, {"scenario": sc, "architect": arch, "turn_limit": 3})
           for n, seed, sc, arch in [(2, 10, "priest", False), (2, 11, "scribe", True), (3, 12, "pharaoh", False),
                                     (3, 13, "priest", True), (4, 14, "scribe", False), (4, 15, "pharaoh", False)]]


@pytest.fixture(scope="module", params=CONFIGS, ids=lambda c: f"{c[0]}p-{c[2]['scenario']}-arch{c[2]['architect']}")
def game_log(request):
    """A whole game played once per configuration; every event with every viewer's sentences."""
    n, seed, options = request.param
    g = Game(n, seed, options)
    log = []
    for _ in range(20_000):
        truth_before = dict(g.ref.truth)
        step = g.step()
        if step is None:
            break
        log.append((step[0], step[1], truth_before, ENGINE.clone(g.ref.state), [dict(k) for k in g.ref.knowledge]))
    else:
        pytest.fail("the game did not end")
    return g, log


def test_every_event_has_sentences(game_log):
    g, log = game_log
    for ev, per_viewer, *_ in log:
        for v, before, info, lines, after in per_viewer:
            assert lines and all(isinstance(s, str) and s for s in lines), (info, v)
            assert not any("{" in s or "[" in s for s in lines), lines      # no engine data dumped


def test_rolled_events_name_what_chance_decided(game_log):
    g, log = game_log
    rolled = 0
    for ev, per_viewer, _, st, _ in log:
        if not isinstance(ev, E.Rolled):
            continue
        rolled += 1
        for v, before, info, lines, after in per_viewer:
            text = " ".join(lines)
            if before["phase"] == "order":
                order = ev.values[0]
                assert text.index(seat_name(g.names, order[0])) < text.index(seat_name(g.names, order[-1]))
            else:                                   # the double-resource card: the face the engine drew
                face = " + ".join(N.RESOURCE[("W", "G", "S", "J")[t]] for t in DOUBLE[st.dbl])
                assert f"double-resource card {face}" in text, text
    assert rolled >= 2


def test_private_draws_are_told_to_their_owner_only(game_log):
    g, log = game_log
    seen = 0
    for ev, per_viewer, truth, st, _ in log:
        if isinstance(ev, E.DeckShown):
            faces = {_face(truth[h]) for h in ev.handles}
            owner = ev.seat
        elif isinstance(ev, E.DeckReturned):
            faces = {_face(g.ref.truth[h]) for h in (ev.returned, *ev.kept)}
            owner = ev.seat
        else:
            continue
        seen += 1
        for v, before, info, lines, after in per_viewer:
            text = " ".join(lines)
            if v == owner:
                assert all(f in text for f in faces), (faces, text)
            else:
                assert not any(w in text for w in CARD_WORDS), (v, text)
    if g.temples:
        assert seen


def test_final_sentences_name_winners_and_scores(game_log):
    g, log = game_log
    result = ENGINE.result(g.ref.state)
    for v, before, info, lines, after in log[-1][1]:
        text = " ".join(lines)
        assert "Game over" in text
        for w in result["winners"]:
            assert seat_name(g.names, w) in text.split("Winner")[1].split(".")[0]
        assert "Scores" in text
        for s, sc in enumerate(result["scores"]):
            assert f"{seat_name(g.names, s)} {sc}" in text


def test_moves_words_groups_and_targets(game_log):
    """At every decision: one entry per legal action with words and a kind; every target exists in
    that seat's picture (checked on every distinct decision stage and on a sample of the rest)."""
    g, log = game_log
    rng = random.Random(1)
    stages_seen: set[str] = set()
    checked = 0
    for ev, per_viewer, _, st, knowledge in log:
        step = ENGINE.expected(st)
        seat = getattr(step, "seat", None)
        if not isinstance(step, (E.Decide, E.DeckReturn)):
            continue
        legal = ENGINE.legal_actions(st, seat, knowledge[seat])
        view = per_viewer[seat][4]
        ms = N.moves(view, legal, seat)
        assert len(ms) == len(legal)
        for m in ms:
            assert m["text"] and m["group"] and set(m) - {"group_target"} == {"text", "group", "target"}
        if view["stage"] not in stages_seen or rng.random() < 0.1:
            stages_seen.add(view["stage"])
            targets = _targets(_parse(R.svg(view, g.names)))
            missing = {t for m in ms for t in (m["target"], m.get("group_target")) if t} - targets
            assert not missing, (view["stage"], missing)
            checked += 1
    assert checked >= 4


def test_setup_choice_is_grouped():
    """The first decision (144 placements) is 12 groups of 12 spaces, not a flat list."""
    ref = Referee(ENGINE, 3, None, seed=1)
    ref.step(lambda s, legal, r: legal[0])
    seat = ENGINE.expected(ref.state).seat
    ms = N.moves(ref.view(seat), ref.legal(seat), seat)
    groups = {m["group"] for m in ms}
    assert len(ms) == 144 and len(groups) == 12
    assert all(sum(m["group"] == gr for m in ms) == 12 for gr in groups)


def test_pictures_draw_every_seat_and_hide_what_a_viewer_does_not_know(game_log):
    g, log = game_log
    rng = random.Random(2)
    pictures = 0
    for i, (ev, per_viewer, truth, st, knowledge) in enumerate(log):
        private = isinstance(ev, (E.DeckShown, E.DeckReturned))
        if not (private or i == len(log) - 1 or rng.random() < 0.03):
            continue
        for v, before, info, lines, view in per_viewer:
            root = _parse(R.svg(view, g.names))
            classes = _classes(root)
            for p in range(g.n):
                assert f"seat{p}" in classes
                assert all(f"p{p}-s{s}" in _targets(root) for s in range(12))
                assert all(f"p{p}-pc{pc['index']}" in _targets(root) for pc in view["players"][p]["pieces"])
            drawn = _by_handle(root)
            assert set(drawn) == _face_down(st)
            for h, el in drawn.items():
                if h in _may_see(st, v, knowledge[v] if v is not None else {}):
                    assert el.get("data-card") == _kind(g.ref.truth[h])
                else:
                    assert el.get("data-card") is None and "back" in el.get("class"), (v, h)
            txt = R.text(view, g.names)
            lines = txt.splitlines()
            assert len(lines) <= 40 and max(len(x) for x in lines) <= 100
            pictures += 1
    assert pictures >= 10


def _face_down(st) -> set[int]:
    """The face-down cards the picture draws one by one: set-aside card, Temple draw, kept cards."""
    return ({st.aside} if st.aside else set()) | set(st.temple_hand) | {h for p in st.kept for h in p}


def _may_see(st, viewer: int | None, knowledge: dict) -> set[int]:
    """Which of them the rules let `viewer` see: its own Temple draw once it was shown to it, its
    kept card, the set-aside card once it consulted the oracle."""
    if viewer is None:
        return set()
    drawn = {h for h in st.temple_hand if h in knowledge} if st.temple_owner == viewer else set()
    out = set(st.kept[viewer]) | drawn
    return out | ({st.aside} if st.aside in knowledge else set())


def test_other_seats_and_spectator_pictures_do_not_depend_on_a_hidden_card():
    """Change the truth of the cards one seat holds in secret (its Temple draw): the pictures, the
    texts and the move words of the other seats and of the spectator stay byte-identical, the
    owner's own picture changes (so the check can fail)."""
    for seed in range(40):
        g = Game(3, 2 * seed, {"scenario": "priest", "architect": False, "turn_limit": 4})
        while ENGINE.expected(g.ref.state) != E.Finished():
            g.step()
            st = g.ref.state
            if st.stage == "temple_pos":
                break
        else:
            continue
        owner = st.temple_owner
        hand = list(st.temple_hand)
        real = [g.ref.knowledge[owner][h] for h in hand]
        fake = {h: next(c for c in range(22) if _kind(c) != _kind(r)) for h, r in zip(hand, real)}
        # the other world: the same public state, the owner saw other cards; nobody else knows either
        world = [dict(k) for k in g.ref.knowledge]
        world[owner].update(fake)
        for v in [s for s in range(3) if s != owner] + [None]:
            real_view = ENGINE.view(st, v, g.ref.knowledge[v] if v is not None else None)
            other_view = ENGINE.view(st, v, world[v] if v is not None else None)
            assert R.svg(real_view, g.names) == R.svg(other_view, g.names)
            assert R.text(real_view, g.names) == R.text(other_view, g.names)
            legal = ENGINE.legal_actions(st, owner, g.ref.knowledge[owner])
            assert N.moves(real_view, legal, owner) == N.moves(other_view, legal, owner)
            hand_line = R.text(real_view, g.names).split("Temple draw:")[1].split("\n")[0]
            assert not any(w in hand_line for w in CARD_WORDS)
        mine = ENGINE.view(st, owner, g.ref.knowledge[owner])
        mine_alt = ENGINE.view(st, owner, world[owner])
        assert R.svg(mine, g.names) != R.svg(mine_alt, g.names)
        mine_line = R.text(mine, g.names).split("Temple draw:")[1].split("\n")[0]
        assert all(_face(c).split()[0] in mine_line for c in real)
        return
    pytest.fail("no Temple draw in 40 games")


def _first_view(options: dict, seat: int, wanted) -> dict:
    """Seat's view at the first step of a random 2-player game where wanted(view) holds."""
    rng = random.Random(0)
    ref = Referee(ENGINE, 2, {**ENGINE.default_options(2), **options}, seed=0)
    for _ in range(2000):
        assert ref.step(lambda s, legal, r: legal[rng.randrange(len(legal))]) is not None
        view = ref.view(seat)
        if wanted(view):
            return view
    raise AssertionError("no such state in 2,000 steps")


@pytest.mark.parametrize("seat", [0, None])
def test_a_face_up_shoe_shows_its_top_card_to_everyone(seat):
    """SR-14 (shoe=up): the top card of the shoe lies face up; every viewer's picture and text name it."""
    view = _first_view({"shoe": "up", "turn_limit": 30}, seat, lambda v: v["shoe_top"] is not None)
    word = N.card_name(view["shoe_top"])
    root = _parse(R.svg(view, NAMES[:2]))
    said = " ".join(t.text or "" for t in root.iter(f"{SVG_NS}text"))
    assert f"top, face up: {word}" in said
    assert ", top face up: " in R.text(view, NAMES[:2])
    view["shoe_top"] = None
    assert "face up" not in R.text(view, NAMES[:2])


def test_tokens_set_apart_are_shown():
    """R-02: tokens a player set apart (`spare`) pay no build this phase; the board says so."""
    view = _first_view({"turn_limit": 30}, 0, lambda v: any(any(p["spared"].values()) for p in v["players"]))
    p = next(i for i, pl in enumerate(view["players"]) if any(pl["spared"].values()))
    said = " ".join(t.text or "" for t in _parse(R.svg(view, NAMES[:2])).iter(f"{SVG_NS}text"))
    assert "set apart:" in said
    lines = R.text(view, NAMES[:2]).split("\n")
    head = next(i for i, line in enumerate(lines) if NAMES[p] in line and "goal" in line)
    assert "set apart " in lines[head + 2]


# ------------------------------------------------------------------ issue 24: faithful pictures and words
def _texts(root: ET.Element) -> list[tuple[float, float, float, str]]:
    """(left, right, baseline, text) of every text element, its width estimated at 6 px a character."""
    out = []
    for e in root.iter(f"{SVG_NS}text"):
        s = "".join(e.itertext())
        x, y, w = float(e.get("x")), float(e.get("y")), 6.0 * len(s)
        left = x - w if e.get("text-anchor") == "end" else x - w / 2 if e.get("text-anchor") == "middle" else x
        out.append((left, left + w, y, s))
    return out


def _p3_view_with_full_piles() -> dict:
    ref = Referee(ENGINE, 3, {"turn_limit": 8}, seed=5)
    choose = _chooser(random.Random(5))
    while ref.state.phase != "p3":
        assert ref.step(choose) is not None
    ref.state.discard = list(range(2, 20))      # three lines of names
    ref.state.dark = [98, 99]
    ref.state.res[0] = [2, 3, 2, 1]              # all four kinds, over the capacity: "to store"
    ref.state.ver += 1
    return ref.view(0)


def test_the_discard_list_and_the_darkness_pile_never_overlap():
    texts = _texts(_parse(R.svg(_p3_view_with_full_piles(), NAMES[:3])))
    dark = next(t for t in texts if t[3].startswith("Darkness pile"))
    title = next(t for t in texts if t[3].startswith("Discard ("))
    names = [t for t in texts if t[0] == title[0] and title[2] < t[2] <= title[2] + 40]
    assert len(names) == 3
    for left, right, y, s in names:
        assert abs(y - dark[2]) >= 11 or right <= dark[0] or left >= dark[1], (s, dark)


def test_to_store_stays_inside_the_warehouse_frame_with_four_kinds():
    root = _parse(R.svg(_p3_view_with_full_piles(), NAMES[:3]))
    frame = next(e for e in root.iter(f"{SVG_NS}rect") if e.get("data-target") == "p0-warehouse")
    left, top = float(frame.get("x")), float(frame.get("y"))
    right = left + float(frame.get("width"))
    store = [t for t in _texts(root) if t[3] == "to store" and left < t[0] < right + 60 and abs(t[2] - top) < 40]
    assert store and all(t[1] <= right + 2 for t in store), (store, right)


def test_every_move_has_words_of_its_own():
    """No move falls back to its raw action under "Other" (e.g. Sa-Rê's ["spare", "W"])."""
    view = _p3_view_with_full_piles()
    ms = N.moves(view, [["spare", "W"], ["spare", "J"][:1] + ["G"]], 0)
    assert all(m["group"] != "Other" and "spare" not in m["text"] for m in ms)
    assert "Keep 1 Wood" in ms[0]["text"]


def test_setup_moves_name_the_warehouse_place():
    view = {"players": [{"pieces": []}], "stage": "setup"}
    move = N.moves(view, [["place", 4, 9]], 0)[0]
    assert move["target"] == "p0-s9" and move["group_target"] == "p0-s4"
