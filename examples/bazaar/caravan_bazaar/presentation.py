"""Bazaar for the clients (the `caravan.presentations` entry point): the events and legal moves in
words, the heuristic bot, the search bot's sampler and the RL grammar. Pure functions of views,
so nothing here can tell a seat more than its own view holds. The board picture is `picture`."""

from __future__ import annotations

import random
from typing import Any

from clients.bots.base import Bot
from clients.bots.sampling import World, deal
from clients.games import Presentation
from clients.narrate import seat_name

from .engine import CARDS, ENGINE, leaders, number


def rl_key(action: Any, knowledge: dict[int, Any]) -> tuple | None:
    """A bid (a bare handle) is named by its card, not its handle."""
    return ("card", knowledge.get(action)) if type(action) is int else None


PRESENTATION = Presentation(
    narrate=__name__, render="caravan_bazaar.picture", bots=__name__, sampler=__name__,
    rl_actions=(("=", ("draw", "pass")), ("card", tuple(range(CARDS)))),
    rl_key=rl_key, rl_obs_size=256, screenshot=(3, 14), how_to_play=(
        # RULES.md in short
        ("Goal", "After the last round the most points wins; equal scores share the victory (R6)."),
        ("A round", "Market: in turn, draw the deck's top card (only you see it) or pass; an empty hand "
                    "must draw, a hand of 4 must pass (R3). Bid: everyone secretly picks one card of "
                    "their hand; the picks are revealed together (R4)."),
        ("Score", "The highest revealed card wins the round: 2 points if its player passed in this "
                  "round's market, otherwise 1 (R5)."),
    ), result_labels={"scores": "Points"})


# ------------------------------------------------------------------ words

def _cards(view: dict[str, Any], handles: list[int]) -> list[str]:
    known = dict(map(tuple, view.get("my_hand") or []))
    return [number(known[h]) if known.get(h) is not None else "a card" for h in handles]


def narrate(event: dict[str, Any], before: dict[str, Any], after: dict[str, Any],
            names: list[str]) -> list[str] | None:
    """Sentences for one viewer (`after["seat"]`); None leaves an event to the generic words."""
    kind, me = event["kind"], after["seat"]
    if kind == "deck_shuffled":
        return [f"The deck of {CARDS} cards is shuffled by everyone together"]
    if kind == "deck_shown":
        who, mine = seat_name(names, event["seat"]), event["seat"] == me
        if before["phase"] == "deal":
            return [f"You are dealt {' and '.join(_cards(after, event['handles']))}" if mine
                    else f"{who} is dealt {len(event['handles'])} cards face down"]
        return [f"You draw {_cards(after, event['handles'])[0]}" if mine else f"{who} looks at the drawn card"]
    if kind == "act":
        who = seat_name(names, event["seat"])
        return [f"{who} draws a card" if event["action"] == "draw" else f"{who} passes"]
    if kind == "choices":
        lines = ["Everyone has chosen a card in secret"]
        if me is not None and me in event["seats"]:
            lines.append(f"You bid {_cards(before, [event['values'][event['seats'].index(me)]])[0]}")
        return lines
    if kind == "deck_revealed":
        return _round_words(event["cards"], before, after, names)
    return None


def _round_words(cards: list[int], before: dict[str, Any], after: dict[str, Any], names: list[str]) -> list[str]:
    bids = ", ".join(f"{seat_name(names, s)} {number(c)}" for s, c in enumerate(cards))
    winner = cards.index(max(cards))
    gained = after["scores"][winner] - before["scores"][winner]
    lines = [f"Round {before['round']} bids: {bids}",
             f"{seat_name(names, winner)} wins the round and scores {gained}"]
    if after["phase"] == "over":
        best = max(after["scores"])
        won = [seat_name(names, s) for s in leaders(after["scores"])]
        lines.append(f"Game over: {' and '.join(won)} win{'s' if len(won) == 1 else ''} with {best} "
                     f"point{'' if best == 1 else 's'}")
    return lines


def moves(view: dict[str, Any], legal: list[Any], seat: int) -> list[dict[str, Any]]:
    """Each legal action in words: the market's draw or pass, or the card to bid."""
    out = []
    for a in legal:
        if a == "draw":
            out.append({"text": "Draw the top card", "group": "Market", "target": "deck"})
        elif a == "pass":
            out.append({"text": f"Pass (a round you win scores {2 if view['pass_bonus'] else 1})",
                        "group": "Market", "target": None})
        else:
            out.append({"text": f"Bid {_cards(view, [a])[0]}", "group": "Bid", "target": f"hand-{a}"})
    return out


# ------------------------------------------------------------------ bots

class HeuristicBot(Bot):
    """Draws while its best card is not high; bids its best card when it is high, else its worst."""

    HIGH = 21                      # card ids from here («22» and up) usually win a round

    def choose(self, view: dict[str, Any] | None, legal_actions: list[Any]) -> Any:
        known = {h: c for h, c in (view or {}).get("my_hand") or [] if c is not None}
        if "draw" in legal_actions or "pass" in legal_actions:
            strong = max(known.values(), default=-1) >= self.HIGH
            return "pass" if strong and "pass" in legal_actions else legal_actions[0]
        ranked = sorted(legal_actions, key=lambda h: known.get(h, -1))
        return ranked[-1] if known.get(ranked[-1], -1) >= self.HIGH else ranked[0]


class Sampler:
    """A world consistent with one seat's view: its own cards as it sees them, every other hidden
    card (the deck, the other hands, the bids) dealt from the cards it has not seen."""

    def __init__(self, view: dict[str, Any]):
        self.state = ENGINE.decode(view["state"])
        self.seat: int = view["seat"]
        self.players: int = self.state.n
        own = (view.get("my_hand") or []) + ([view["my_bid"]] if view.get("my_bid") else [])
        self.mine = {h: c for h, c in own if c is not None}

    def sample(self, rng: random.Random) -> World:
        st = ENGINE.clone(self.state)
        seen = set(self.mine.values()) | {c for r in st.played for c in r}
        hidden = [h for h in st.deck + st.bids + [h for hand in st.hands for h in hand] if h not in self.mine]
        truth = {**deal(rng, hidden, [c for c in range(CARDS) if c not in seen]), **self.mine}
        knowledge = [{h: truth[h] for h in hand} for hand in st.hands]
        return World(st, truth, knowledge)
