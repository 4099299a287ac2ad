"""A heuristic bot for Nomads of Arabia: catches where the odds are good, sells in cities
(all of a kind at once, Silver Tongue first), keeps away from the desert edge (row 4),
moves the desert when it leads, and uses its yellow tiles when they pay.

It sees only its view (public state + its own tiles) and the legal actions.
"""

from __future__ import annotations

from typing import Any

from .base import Bot
from . import best_of

EDGE = 4          # the row the desert removes next
_TRADER_HIT = 0.5  # chance a trader die shows its animal (data: 3 of 6 faces)


class HeuristicBot(Bot):
    wants_view = True

    def choose(self, view: dict[str, Any] | None, legal: list[Any]) -> Any:
        if len(legal) == 1 or view is None:
            return legal[0]
        try:
            pick = self._choose(view, legal)
        except (KeyError, IndexError, TypeError, ValueError):
            pick = None
        return pick if pick in legal else legal[self.rng.randrange(len(legal))]

    # ------------------------------------------------------------------ helpers
    def _me(self, v):
        return v["players"][v["you"]]

    def _prices(self, v):
        return v["market"]["prices"]

    def _tile(self, v, legal, key):
        for t in self._me(v).get("my_tiles", []):
            if t["tile"] == key:
                for a in legal:
                    if a[0] == "tile" and a[1] == t["handle"]:
                        return a
        return None

    def _field(self, v, r, c):
        row = v["rows"][r]
        return row["fields"][c] if row else "mountain"

    def _sale_value(self, v, r=None):
        me = self._me(v)
        prices = self._prices(v)
        bonus = [0, 0, 0, 0]
        if r is not None and v["rows"][r] and v["rows"][r]["blue_tile"]:
            key = v["rows"][r]["blue_tile"]
            if key != "mecca":
                bonus[v["species"].index(key.split("+")[0])] = 1
        return sum(n * (prices[sp] + bonus[sp]) for sp, n in enumerate(me["animals"]))

    def _catch_value(self, v, landscape, traders):
        box = v["boxes"][v["landscapes"].index(landscape)]
        prices = self._prices(v)
        val = sum(_TRADER_HIT * n * prices[sp] for sp, n in enumerate(traders) if box[sp] > 0)
        if sum(traders) and any(box):
            val += (0.5 ** sum(traders)) * max(prices[sp] for sp in range(4) if box[sp])
        return val

    def _score_field(self, v, r, c, cost=0):
        me = self._me(v)
        kind = self._field(v, r, c)
        score = -cost
        if r == EDGE:
            score -= 60
        elif r == EDGE - 1:
            score -= 3
        animals = sum(me["animals"])
        traders = me["traders"]
        if kind == "city":
            score += 0.9 * self._sale_value(v, r)
            if v["rows"][r]["yellow_tile"]:
                score += 8
            if not sum(traders) and not animals:
                score += 4                     # get traders there
            score -= 2 if sum(traders) and animals < 2 else 0
        elif kind in v["landscapes"]:
            score += self._catch_value(v, kind, traders)
        elif kind == "desert":
            score += 0.5
        score -= 0.15 * animals * (r >= 3)
        return score

    # ------------------------------------------------------------------ decisions
    def _choose(self, v, legal):
        ph = v["phase"]
        me = self._me(v)
        prices = self._prices(v)
        kinds = {a[0] for a in legal}

        if ph == "window":
            a = self._tile(v, legal, "sands")
            return a if a else ["pass"]
        if ph == "keep":
            return best_of(self.rng, legal, lambda a: prices[a[1]] + prices[a[2]])
        if ph in ("catch_pick",):
            return best_of(self.rng, legal, lambda a: prices[a[1]])
        if ph == "expert":
            return best_of(self.rng, legal, lambda a: prices[a[2]])
        if ph == "tie":
            return legal[0]
        if ph == "hire":
            return self._hire(v, legal)
        if ph == "move":
            if "place" in kinds:
                return best_of(self.rng, legal, lambda a: self._score_field(v, a[1], a[2]) + (4 if a[1] <= 1 else 0))
            pos = me["position"]
            r0, c0 = pos
            here = self._field(v, r0, c0)
            if here == "city":
                # nothing left to sell here: leave (traders come with leaving)
                # (a tile on this city cannot be taken by staying; leaving hires traders)
                stay_s = -5 if not sum(me["animals"]) else 5 + self._sale_value(v, r0)
                best, best_s = ["stay"], stay_s
            else:
                best, best_s = ["stay"], self._score_field(v, r0, c0)
            if "depart" in kinds:
                s = 1 + (60 if r0 == EDGE else 0)
                if s > best_s:
                    best, best_s = ["depart"], s
            for a in legal:
                if a[0] == "move":
                    d = abs(a[1] - r0) + abs(a[2] - c0)
                    cost = sum(me["animals"]) + (3 if sum(me["traders"]) >= 3 else 0) if d >= 2 else 0
                    s = self._score_field(v, a[1], a[2], cost)
                    if s > best_s:
                        best, best_s = a, s
            winds = self._tile(v, legal, "winds")
            if winds and r0 >= EDGE - 1 and best_s < 0:
                return winds
            if best == ["stay"] and r0 == EDGE and "pilgrim" in kinds and best_s < -40:
                return ["pilgrim"]
            return best
        if ph in ("dest",):
            r0, c0 = me["position"]
            return best_of(self.rng, legal, lambda a: self._score_field(
                v, a[1], a[2], (sum(me["animals"]) + (3 if sum(me["traders"]) >= 3 else 0))
                if abs(a[1] - r0) + abs(a[2] - c0) >= 2 else 0))
        if ph == "winds":
            return best_of(self.rng, legal, lambda a: self._score_field(v, a[1], a[2]) + (2 if a[1] <= 1 else 0))
        if ph in ("action", "abdul"):                       # "abdul": a sale before moving
            return self._action(v, legal, kinds)
        return legal[0]

    def _hire(self, v, legal):
        me = self._me(v)
        n = sum(me["traders"])
        hires = [a for a in legal if a[0] == "hire"]
        if not hires or (n >= 2 and (n >= 3 or me["money"] < 12)):
            return ["done"] if ["done"] in legal else hires[0]
        prices = self._prices(v)
        wild = [sum(box[sp] for box in v["boxes"]) for sp in range(4)]
        return best_of(self.rng, hires, lambda a: wild[a[1]] * prices[a[1]] - 3 * me["traders"][a[1]])

    def _action(self, v, legal, kinds):
        me = self._me(v)
        prices = self._prices(v)
        if "sell" in kinds:
            silver = self._tile(v, legal, "silver")
            if silver:
                return silver
            sells = [a for a in legal if a[0] == "sell" and a[2] == me["animals"][a[1]]]
            return best_of(self.rng, sells, lambda a: a[2] * prices[a[1]])
        if "catch" in kinds:
            r, c = me["position"]
            kind = self._field(v, r, c)
            box = v["boxes"][v["landscapes"].index(kind)]
            if any(box[sp] for sp in range(4) if me["traders"][sp]) or sum(box) >= 2:
                return ["catch"]
            return ["lure"]
        expert = self._tile(v, legal, "expert")
        if expert and any(any(b) for b in v["boxes"]):
            return expert
        abdul = self._tile(v, legal, "abdul")
        if abdul and self._sale_value(v) >= 10:
            return abdul
        if "walk" in kinds:
            r = me["position"][0]
            leader = me["money"] >= max(p["money"] for p in v["players"])
            if r <= EDGE - 2 and leader:
                return ["walk"]
        return ["done"]
