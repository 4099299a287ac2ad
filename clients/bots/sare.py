"""Sa-Rê heuristic bot: plans affordable projects next to its producers, stops the season before
a revolt becomes likely, and uses its buildings. It reads only its view and the legal actions."""

from __future__ import annotations

from typing import Any

from .base import Bot
from . import best_of
from protocol.games.sare.data import ADJ, BUILDINGS, NILE, PYRAMIDS, RED

RES = ("W", "G", "S")
COST = {k: v for k, v in BUILDINGS["cost"].items()}
WORKER = {"carpenter": "W", "stonemason": "S", "goldsmith": "G"}

# what to build, in order, per scenario (the first ones that are still possible are launched)
PLAN = {
    "priest": ["stonemason", "library", "port", "gardens", "goldsmith", "pyramid", "palace", "barracks",
               "temple", "market", "warehouse", "carpenter"],
    "pharaoh": ["stonemason", "library", "port", "gardens", "goldsmith", "palace", "barracks", "temple",
                "market", "pyramid", "warehouse", "carpenter"],
    "scribe": ["stonemason", "goldsmith", "carpenter", "pyramid", "library", "gardens", "warehouse", "port",
               "palace", "barracks", "temple", "market", "stonemason", "goldsmith", "carpenter",
               "master_builder"],
}
ADMIN = {"temple", "library", "barracks", "market", "palace", "gardens"}


class HeuristicBot(Bot):
    wants_view = True
    plan = PLAN
    """What to build, per scenario; a subclass may change the order (tests use a Temple-first plan)."""

    def choose(self, view: dict[str, Any] | None, legal_actions: list[Any]) -> Any:
        if not legal_actions:
            raise ValueError("no legal action")
        if len(legal_actions) == 1:
            return legal_actions[0]
        first = legal_actions[0]
        if isinstance(first, int):                          # Temple: which card goes back face down
            return self._return_card(view, legal_actions)
        stage = view["stage"]
        me = view["players"][view["seat"]]
        handler = getattr(self, "_" + stage, None)
        if handler is not None:
            choice = handler(view, me, legal_actions)
            if choice is not None and choice in legal_actions:
                return choice
        for pref in (["done"], ["pass"], ["continue"]):
            if pref in legal_actions:
                return pref
        return legal_actions[0]

    # ---------------------------------------------------------------- setup and projects
    def _setup(self, view, me, legal):
        # both on one corner (a random one): the other spaces stay free
        corners = [a for a in legal if a[1] == a[2] and len(ADJ[a[1]]) == 2]
        return corners[self.rng.randrange(len(corners))] if corners else legal[0]

    def _p1(self, view, me, legal):
        pcs = me["pieces"]
        mbs = sum(1 for p in pcs if p["kind"] == "master_builder" and p["built"])
        projects = sum(1 for p in pcs if not p["built"])
        if projects >= mbs:                                  # one project per Master Builder: no grumbling
            return ["done"]
        owned = [p["kind"] for p in pcs]
        plan = self.plan[view["scenario"]]
        options: dict[str, list[int]] = {}
        for a in legal:
            if a[0] == "project":
                options.setdefault(a[1], []).append(a[2])
        counts: dict[str, int] = {}
        for kind in plan:
            counts[kind] = counts.get(kind, 0) + 1
            if owned.count(kind) >= counts[kind] + (1 if kind in ("warehouse", "master_builder") else 0):
                continue
            if kind in options:
                space = self._best_space(me, kind, options[kind])
                numbered = [x for x in legal if x[:3] == ["project", kind, space] and len(x) > 3]
                if numbered:                                 # free Pyramid choice: the largest left
                    return min(numbered, key=lambda x: x[3])
                return ["project", kind, space]
        return ["done"]

    def _best_space(self, me, kind, spaces):
        workers = [(p["space"], p["kind"]) for p in me["pieces"] if p["kind"] in WORKER]
        port = any(p["kind"] == "port" for p in me["pieces"])

        def score(s):
            near = sum(1 for sp, _ in workers if sp == s or sp in ADJ[s])
            if kind in WORKER:                               # producers spread out, next to free spaces
                return len(ADJ[s]) - near
            return near + (1 if port and s in NILE else 0)
        return best_of(self.rng, spaces, score)

    # ---------------------------------------------------------------- the season
    def _need(self, view, me):
        """Resources still missing for this turn's projects (roughly, ignoring reductions)."""
        need = [0, 0, 0]
        for p in me["pieces"]:
            if p["built"]:
                continue
            cost = PYRAMIDS[p["pyramid"]][1] if p["kind"] == "pyramid" else COST[p["kind"]]
            for t in range(3):
                need[t] += cost[t]
        have = [me["warehouse"][r] + me["gains"][r] + me["production_cards"][r] for r in RES]
        jokers = me["production_cards"]["J"] + me["library_jokers"] + me["caravans"]
        short = sum(max(0, need[t] - have[t]) for t in range(3)) - jokers
        return need, max(0, short)

    def _poll(self, view, me, legal):
        if ["continue"] not in legal:                        # a laid-down Market or Temple slot
            return ["oracle"] if ["oracle"] in legal else ["pass"]
        danger = RED - me["revolt"]
        if ["gold"] in legal and danger <= 3:
            return ["gold"]
        if ["oracle"] in legal:
            return ["oracle"]
        if ["temple"] in legal:
            return ["temple"]
        barracks = [a for a in legal if a[0] == "barracks"]
        if barracks and me["revolt"] > me["revolt_bottom"]:
            return max(barracks, key=lambda a: view["players"][a[1]]["revolt"])
        _, short = self._need(view, me)
        display = sum(view["display"].values())
        standing = [p for p in view["players"] if p["obelisk"] == "standing"]
        if danger <= 2:
            return ["stop"]
        if short - display <= 0 and display >= 2:
            return ["stop"]
        if len(standing) == 1 and danger >= 3:
            return ["continue"]
        if len(view["shoe"]) < 3:
            return ["stop"]
        return ["continue"]

    def _palace(self, view, me, legal):
        card = view["current_card"]["kind"]
        danger = RED - me["revolt"]
        if card == "troubles2" or (card == "troubles1" and danger <= 2):
            return ["palace"]
        if card in ("W", "G", "S") and view["horus_pending"] == 0 and danger <= 2:
            return ["palace"]
        return ["pass"]

    def _tw(self, view, me, legal):
        for a in (["gardens"], ["library"]):
            if a in legal:
                return a
        return ["pass"]

    def _market(self, view, me, legal):
        return ["done"]

    def _market_final(self, view, me, legal):
        return ["pass"]

    def _temple_pos(self, view, me, legal):
        ret = self._temple_choice(view)
        kind = ret.get("card", {}).get("kind", "")
        return ["return", "bottom" if kind.startswith("troubles") else "top"]

    def _temple_choice(self, view) -> dict:
        hand = view["temple_hand"]

        def value(h):
            kind = h.get("card", {}).get("kind", "")
            return {"G": 4, "S": 3, "W": 3, "horus": 1, "hoshekh": 1}.get(kind, 0)
        return min(hand, key=value)                          # the card that goes back

    def _return_card(self, view, legal):
        ret = self._temple_choice(view)
        return ret["handle"] if ret["handle"] in legal else legal[0]

    # ---------------------------------------------------------------- construction
    def _p3(self, view, me, legal):
        builds = [a for a in legal if a[0] == "build"]
        if builds:
            order = {k: i for i, k in enumerate(self.plan[view["scenario"]])}
            pcs = me["pieces"]

            def key(a):
                kind = pcs[a[1]]["kind"]
                return (a[4], a[3], order.get(kind, 99))     # fewest caravans, then Jokers, then the plan
            return best_of(self.rng, builds, key, lowest=True)
        charters = [a for a in legal if a[0] == "charter"]
        if charters:
            cap = 3 * sum(1 for p in me["pieces"] if p["kind"] == "warehouse" and p["built"])
            held = me["warehouse"]
            total = sum(held.values())
            if total - cap >= 2 or (held["J"] and total - cap >= 1):
                by_count = sorted(("W", "G", "S", "J"), key=lambda r: -held[r])
                for a in charters:
                    if "J" in a[1:] and held["J"]:
                        return a
                for a in charters:
                    if a[1] == by_count[0] or a[2] == by_count[0]:
                        return a
        return ["done"]

    def _store(self, view, me, legal):
        held = me["warehouse"]
        jokers = [a for a in legal if a[0] == "joker"]
        if jokers:
            return best_of(self.rng, jokers, lambda a: held[a[1]], lowest=True)
        return best_of(self.rng, legal, lambda a: held[a[1]])
