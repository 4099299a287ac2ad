"""What the recorded conformance games cover (issue 35, specs/vectors/README.md "Coverage"):
every stage (phase) of each game, every decision point (the stage, and in Sabbat Magica's
stage `turn` its `sub`, where a seat is asked), every POWER card used (Sabbat Magica) and every
enumerated option value. `vectors_gen` measures it from the very lines it writes, adds searched
games until everything is covered (or its search budget is spent) and prints the table."""

from __future__ import annotations

from typing import Any

from protocol.games.sabbat import data as SD

# every value each game's stage field takes between steps (the specs' "stage and the step it
# expects"); Sa-Rê's pass-through stages are left out: no step ever waits in them
STAGES: dict[str, tuple[str, ...]] = {
    "sabbat": ("setup", "commit", "secret", "time", "invoke", "canteen", "bonus", "turn", "food", "alch", "end"),
    "nomads": ("s_layout", "s_shuffle", "s_ldie", "s_lthrow", "s_rthrow", "s_reroll", "s_start", "move", "hire",
               "dest", "winds", "action", "catch_pick", "expert", "tie", "keep", "window", "abdul", "r_land",
               "r_animal", "r_random", "roll_catch", "roll_lure", "draw_card", "draw_blue", "show", "final",
               "over"),
    "sare": ("order", "setup", "dbl", "shuffle", "dark_shuffle", "draw", "temple_show", "oracle_show",
             "temple_ret", "temple_pos", "market", "p1", "poll", "palace", "tw", "market_final", "p3", "store",
             "over"),
}
STAGE_KEY = {"sabbat": "stage", "nomads": "phase", "sare": "stage"}

# where a seat is asked to decide (a Decide step)
DECISIONS: dict[str, tuple[str, ...]] = {
    "sabbat": ("secret", "canteen", "bonus", "turn/", "turn/b1", "turn/tt", "turn/b1end", "turn/victims",
               "turn/b2", "turn/pay", "turn/immortal", "food", "alch"),
    "nomads": ("move", "hire", "dest", "winds", "action", "catch_pick", "expert", "tie", "keep", "window",
               "abdul"),
    "sare": ("setup", "p1", "poll", "palace", "tw", "market", "market_final", "temple_pos", "p3", "store"),
}

# the enumerated option values (the option batteries'); numbers with a range are not enumerated
OPTIONS: dict[str, dict[str, list[Any]]] = {
    "sabbat": {"powers": [False, True], "leftovers": ["keep", "discard"], "magician_move": ["king", "literal"],
               "power_limit": ["round", "trigger"]},
    "nomads": {"short_blue": [False, True], "full_market": ["stack", "gamebox"], "lost_turns": [2, 1],
               "second_sale": [False, True]},
    "sare": {"scenario": ["scribe", "priest", "pharaoh"], "architect": [False, True],
             "pyramid_pick": ["top", "free"], "shoe": ["down", "up"]},
}


def universe(game: str) -> dict[str, list[str]]:
    """Everything that must be covered, by category."""
    out = {"stage": list(STAGES[game]), "decision": list(DECISIONS[game]),
           "option": [f"{k}={v}" for k, vs in OPTIONS[game].items() for v in vs]}
    if game == "sabbat":
        out["POWER card"] = [SD.POWER_TITLES[c] for c in range(len(SD.POWER_IDS))]
    return out


def _point(game: str, state: dict) -> str:
    if game == "sabbat" and state["stage"] == "turn":
        return "turn/" + state["sub"]
    return state[STAGE_KEY[game]]


def covered(game: str, lines: list[dict]) -> dict[str, set[str]]:
    """What one recorded game (its JSON lines, header first) covers."""
    out: dict[str, set[str]] = {k: set() for k in universe(game)}
    header = lines[0]
    for k, vs in OPTIONS[game].items():
        if header["options"].get(k) in vs:
            out["option"].add(f"{k}={header['options'][k]}")
    state = header["state"]
    for line in lines[1:]:
        out["stage"].add(state[STAGE_KEY[game]])
        step = line["step"]
        if step[0] == "Decide" and "event" in line:
            out["decision"].add(_point(game, state))
            action = line["event"][1].get("action")
            if game == "sabbat" and isinstance(action, list) and action and action[0] == "power":
                out["POWER card"].add(SD.POWER_TITLES[action[1]])
        if "state" in line:
            state = line["state"]
    out["stage"].add(state[STAGE_KEY[game]])
    return out


def merge(parts: list[dict[str, set[str]]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for p in parts:
        for k, v in p.items():
            out.setdefault(k, set()).update(v)
    return out


def missing(game: str, cov: dict[str, set[str]]) -> dict[str, list[str]]:
    return {k: [x for x in xs if x not in cov.get(k, set())] for k, xs in universe(game).items()}


def table(game: str, per_game: list[dict[str, set[str]]]) -> str:
    """A Markdown table: each item of each category, and the recorded games (by index) that cover it."""
    rows = [f"| {game} | item | covered by games |", "|---|---|---|"]
    for cat, items in universe(game).items():
        for x in items:
            which = [str(g) for g, c in enumerate(per_game) if x in c.get(cat, set())]
            rows.append(f"| {cat} | `{x}` | {', '.join(which) if which else '**not covered**'} |")
    return "\n".join(rows)
