"""What the recorded conformance games cover (issue 35, specs/vectors/README.md "Coverage"):
every stage (phase) of each game, every decision point (the stage, and in Sabbat Magica's
stage `turn` its `sub`, where a seat is asked), every POWER card used (Sabbat Magica) and every
enumerated option value. `vectors_gen` measures it from the very lines it writes, adds searched
games until everything is covered (or its search budget is spent) and prints the table."""

from __future__ import annotations

from tests.games.conformance import hook


def universe(game: str) -> dict[str, list[str]]:
    """Everything that must be covered, by category (the game's hooks: STAGES, DECISIONS,
    VECTOR_OPTIONS, and coverage_extra())."""
    out = {"stage": list(hook(game, "STAGES")), "decision": list(hook(game, "DECISIONS")),
           "option": [f"{k}={v}" for k, vs in hook(game, "VECTOR_OPTIONS").items() for v in vs]}
    extra = hook(game, "coverage_extra")
    if extra is not None:
        out.update(extra())
    return out


def _point(game: str, state: dict) -> str:
    point = hook(game, "decision_point")
    return point(state) if point is not None else state[hook(game, "STAGE_KEY")]


def covered(game: str, lines: list[dict]) -> dict[str, set[str]]:
    """What one recorded game (its JSON lines, header first) covers."""
    out: dict[str, set[str]] = {k: set() for k in universe(game)}
    key = hook(game, "STAGE_KEY")
    by_action = hook(game, "covered_by_action", lambda action: None)
    header = lines[0]
    for k, vs in hook(game, "VECTOR_OPTIONS").items():
        if header["options"].get(k) in vs:
            out["option"].add(f"{k}={header['options'][k]}")
    state = header["state"]
    for line in lines[1:]:
        out["stage"].add(state[key])
        step = line["step"]
        if step[0] == "Decide" and "event" in line:
            out["decision"].add(_point(game, state))
            also = by_action(line["event"][1].get("action"))
            if also is not None:
                out[also[0]].add(also[1])
        if "state" in line:
            state = line["state"]
    out["stage"].add(state[key])
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
