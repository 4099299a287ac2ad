"""Conformance vectors for an independent rules engine (issue 23; specs/vectors/README.md).

For every game: a few recorded random games (every player count, every option value at least
once, POWER cards included), each step with the expected step, every deciding seat's legal
actions in canonical order, the event that answered it, what each seat learned, and the state
encoding with its SHA-256; then perft-style counts from a dozen fixed positions.

Regenerate after any rule change (and commit the vectors with the change):
    make vectors            (= .venv/bin/python -m tests.games.vectors_gen)
It also rewrites the mechanical parts of the specs (data files' SHA-256, the initial state
block, the default options in specs/protocol.md §14 P5).
tests/games/test_vectors_gen.py regenerates them in memory and compares byte for byte.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import io
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

import msgpack

from protocol import engine as E
from protocol import games, wire
from protocol.hashing import tagged_hash
from protocol.referee import Referee
from tests.games import conformance as H
from tests.games import vectors_coverage as C

ROOT = Path(__file__).parents[2] / "specs" / "vectors"
GAME_ID = hashlib.sha256(b"caravan conformance vectors").digest()
"""The game id the vectors' final state hashes are made with (any 32 bytes would do)."""

GAMES: dict[str, list[tuple[int, dict[str, Any], int]]] = {
    game: list(H.hook(game, "VECTOR_GAMES")) for game in games.names() if H.hook(game, "VECTOR_GAMES")}
"""Per game with vectors (its hooks' VECTOR_GAMES, tests/games/<game>/conformance.py): the recorded
games as (players, options on top of the defaults, seed)."""
PERFT_POSITIONS = 12
PERFT_NODES = 3_000
PERFT_DEPTH = 5
"""Perft goes one level deeper (up to PERFT_DEPTH) while that level has at most PERFT_NODES sequences."""


def canonical_order(actions: list[Any]) -> list[Any]:
    """Legal actions sorted by their canonical msgpack bytes: an order any engine can make."""
    return sorted(actions, key=wire.encode)


def state_sha256(engine: Any, state: Any) -> str:
    return hashlib.sha256(wire.encode(engine.encode(state))).hexdigest()


def plain(value: Any) -> Any:
    """A step or event as JSON: ["Kind", {field: value}], tuples as lists."""
    if dataclasses.is_dataclass(value):
        return [type(value).__name__, {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}]
    if isinstance(value, (list, tuple)):
        return [plain(x) for x in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def _deciders(step: Any) -> tuple[int, ...]:
    if isinstance(step, (E.Decide, E.DeckReturn)):
        return (step.seat,)
    if isinstance(step, (E.Simultaneous, E.Commit)):
        return tuple(step.seats)
    return ()


def record_game(game: str, players: int, options: dict[str, Any], seed: int) -> tuple[list[dict], list]:
    """(JSON lines of one game, the positions (state, knowledge) before each decision step)."""
    engine = games.get(game)
    rng = random.Random(seed)
    opts = {**engine.default_options(players), **options}
    ref = Referee(engine, players, opts, seed=seed)
    lines: list[dict] = [{"game": game, "players": players, "options": opts, "seed": seed,
                          "state": engine.encode(ref.state), "state_sha256": state_sha256(engine, ref.state)}]
    positions = []
    i = 0
    while True:
        step = engine.expected(ref.state)
        line: dict[str, Any] = {"i": i, "step": plain(step)}
        seats = _deciders(step)
        if seats:
            line["legal"] = {str(s): canonical_order(ref.legal(s)) for s in seats}
        if isinstance(step, E.Decide):
            positions.append((i, engine.clone(ref.state), [dict(k) for k in ref.knowledge]))
        before = [dict(k) for k in ref.knowledge]
        event = ref.step(lambda seat, legal, _ref: _pick(rng, legal))
        if event is None:
            line["result"] = engine.result(ref.state)
            line["final_hash"] = tagged_hash("caravan/state/v1", GAME_ID, engine.encode(ref.state)).hex()
            lines.append(line)
            return lines, positions
        line["event"] = plain(event)
        learned = {str(s): sorted([h, v] for h, v in k.items() if before[s].get(h, _NONE) != v)
                   for s, k in enumerate(ref.knowledge)}
        learned = {s: v for s, v in learned.items() if v}
        if learned:
            line["learned"] = learned
        line["state"] = engine.encode(ref.state)
        line["state_sha256"] = state_sha256(engine, ref.state)
        lines.append(line)
        i += 1


_NONE = object()


def _pick(rng: random.Random, legal: list[Any]) -> Any:
    """A uniform pick, except that a POWER use, when offered, is taken half the time (uniform
    play would seldom show one)."""
    powers = [a for a in legal if type(a) is list and a and a[0] == "power"]
    if powers and rng.random() < 0.5:
        return powers[rng.randrange(len(powers))]
    return legal[rng.randrange(len(legal))]


def perft(engine: Any, state: Any, knowledge: list[dict], depth: int) -> int:
    """Distinct action sequences of length `depth` over Decide steps; a sequence that reaches a
    step that is not a Decide (chance, simultaneous, commit, deck, the end) stops there and counts once."""
    if depth == 0:
        return 1
    step = engine.expected(state)
    if not isinstance(step, E.Decide):
        return 1
    total = 0
    for action in engine.legal_actions(state, step.seat, knowledge[step.seat]):
        child = engine.clone(state)
        engine.apply(child, E.Act(step.seat, action))
        total += perft(engine, child, knowledge, depth - 1)
    return total


def perft_counts(game: str, records: list[tuple[int, list]]) -> list[dict]:
    """From PERFT_POSITIONS decision positions spread evenly over the recorded games: the counts
    for depth 1, 2, ... while a level has at most PERFT_NODES leaves."""
    engine = games.get(game)
    pool = [(g, i, st, k) for g, positions in records for i, st, k in positions]
    out = []
    for j in range(PERFT_POSITIONS):
        g, i, st, k = pool[(2 * j + 1) * len(pool) // (2 * PERFT_POSITIONS)]
        counts: list[int] = []
        while len(counts) < PERFT_DEPTH:
            c = perft(engine, st, k, len(counts) + 1)
            if counts and c > PERFT_NODES:
                break
            counts.append(c)
        out.append({"game_index": g, "i": i, "counts": counts})
    return out


def _jsonl(lines: list[dict]) -> bytes:
    return "".join(json.dumps(x, separators=(",", ":"), sort_keys=True, ensure_ascii=False) + "\n"
                   for x in lines).encode()


def gzipped(raw: bytes) -> bytes:
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as f:
        f.write(raw)
    return buf.getvalue()


def stored(path: Path) -> bytes:
    """A vector file's content: uncompressed for .gz files (zlib versions may compress the same
    bytes differently, so the content is what is compared)."""
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


SEARCH_BUDGET = 160
"""Candidate games `make vectors` records, at most, per game while something is not covered."""


def _extras_path(game: str) -> Path:
    return ROOT / game / "games.json"


def searched_games(game: str) -> list[tuple[int, dict[str, Any], int]]:
    """The games the coverage search added to GAMES (specs/vectors/<game>/games.json)."""
    path = _extras_path(game)
    if not path.exists():
        return []
    return [(p, o, s) for p, o, s in json.loads(path.read_text())]


def games_for(game: str) -> list[tuple[int, dict[str, Any], int]]:
    return list(GAMES[game]) + searched_games(game)


def _candidates(game: str):
    """Candidate (players, options, seed) for the coverage search, in a fixed order: every
    player count and every combination of the enumerated option values, seeds from 5000."""
    import itertools
    engine = games.get(game)
    opts = H.hook(game, "VECTOR_OPTIONS")
    combos = [dict(zip(opts, vs)) for vs in itertools.product(*opts.values())]
    counts = list(range(engine.min_players, engine.max_players + 1))
    k = 0
    while True:
        yield counts[k % len(counts)], combos[k % len(combos)], 5000 + k
        k += 1


def search(game: str, budget: int = SEARCH_BUDGET) -> tuple[list[tuple[int, dict[str, Any], int]], list[str]]:
    """Keep the searched games already chosen, then record candidates and keep each one that
    covers something not yet covered, until nothing is missing or the budget is spent. Returns
    (the searched games, what is still missing)."""
    chosen = games_for(game)
    parts = [C.covered(game, record_game(game, p, o, s)[0]) for p, o, s in chosen]
    extras = searched_games(game)
    cov = C.merge(parts)
    gen = _candidates(game)
    tried = 0
    while any(C.missing(game, cov).values()) and tried < budget:
        p, o, s = next(gen)
        tried += 1
        got = C.covered(game, record_game(game, p, o, s)[0])
        if any(got[k] - cov.get(k, set()) for k in got):
            extras.append((p, o, s))
            cov = C.merge([cov, got])
    still = [f"{k} {x}" for k, xs in C.missing(game, cov).items() for x in xs]
    return extras, still


def build(game: str) -> dict[str, bytes]:
    """The vector files of one game: file name -> content (uncompressed; .gz files are written
    compressed). The games are GAMES[game] and the searched ones (games.json); coverage.md is
    the measured coverage table."""
    files: dict[str, bytes] = {}
    records = []
    parts = []
    for g, (players, options, seed) in enumerate(games_for(game)):
        lines, positions = record_game(game, players, options, seed)
        files[f"game-{g}-{players}p.jsonl.gz"] = _jsonl(lines)
        records.append((g, positions))
        parts.append(C.covered(game, lines))
    perfts = perft_counts(game, records)
    files["perft.json"] = (json.dumps(perfts, indent=0, separators=(",", ":")) + "\n").encode()
    files["games.json"] = (json.dumps([list(x) for x in searched_games(game)], separators=(",", ":"))
                           + "\n").encode()
    files["coverage.md"] = (C.table(game, parts) + "\n").encode()
    return files


SPECS = {game: H.hook(game, "SPEC") for game in GAMES}
"""Each game's spec under specs/ (its hooks' SPEC)."""
_SHA_ROW = re.compile(r"^\| `(protocol/games/[\w/]+\.json)` \| `[0-9a-f]{64}` \|$", re.M)
_INITIAL = re.compile(r"(The initial state\n.*?```json\n)(.*?)(\n```)", re.S)


def initial_state(game: str) -> dict[str, Any]:
    """encode(new_game(defaults)) for the smallest player count, as read back from its canonical
    bytes (so its keys are in canonical order)."""
    engine = games.get(game)
    n = engine.min_players
    return msgpack.unpackb(wire.encode(engine.encode(engine.new_game(engine.default_options(n), n))), raw=False)


def initial_state_json(game: str) -> str:
    """The initial state, one key per line, as the game spec shows it."""
    return "{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}"
                               for k, v in initial_state(game).items()) + "\n}"


def data_copies(game: str) -> list[tuple[Path, Path]]:
    """(engine data file, its copy under specs/data/<game>/) for every data file of the game."""
    root = ROOT.parents[1]
    base = root / "protocol" / "games" / game
    return [(src, root / "specs" / "data" / game / src.relative_to(base).name)
            for src in sorted(base.rglob("*.json"))]


def refresh_specs(game: str) -> list[str]:
    """Rewrite the mechanical parts of the specs from the code: the data files' SHA-256 rows
    and the initial state block of the game spec, the game's default options in
    specs/protocol.md §14 P5. Returns the files changed (the meaning of a new state field or
    action is words: tests/games/test_spec_data.py says when one is missing)."""
    root = ROOT.parents[1]
    changed = []
    path = root / "specs" / SPECS[game]
    text = path.read_text(encoding="utf-8")
    new = _SHA_ROW.sub(lambda m: f"| `{m[1]}` | `{hashlib.sha256((root / m[1]).read_bytes()).hexdigest()}` |", text)
    new = _INITIAL.sub(lambda m: m[1] + initial_state_json(game) + m[3], new, count=1)
    if new != text:
        path.write_text(new, encoding="utf-8")
        changed.append(str(path.relative_to(root)))
    for src, copy in data_copies(game):             # the normative data files, shipped under specs/data/
        if not copy.exists() or copy.read_bytes() != src.read_bytes():
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(src.read_bytes())
            changed.append(str(copy.relative_to(root)))
    path = root / "specs" / "protocol.md"
    text = path.read_text(encoding="utf-8")
    engine = games.get(game)
    defaults = json.dumps(engine.default_options(engine.min_players), ensure_ascii=False)
    new = re.sub(rf"^(\| `{game}` \| `)\{{.*?\}}(`)", lambda m: m[1] + defaults + m[2], text, count=1, flags=re.M)
    if new != text:
        path.write_text(new, encoding="utf-8")
        changed.append(str(path.relative_to(root)))
    return changed


def main(argv: list[str]) -> int:
    names = argv or list(GAMES)
    unknown = [g for g in names if g not in GAMES]
    if unknown:
        print(f"vectors_gen: unknown game {', '.join(unknown)}; choose from {', '.join(GAMES)}", file=sys.stderr)
        return 2
    for game in names:
        folder = ROOT / game
        folder.mkdir(parents=True, exist_ok=True)
        extras, still = search(game)
        _extras_path(game).write_text(json.dumps([list(x) for x in extras], separators=(",", ":")) + "\n")
        files = build(game)
        for old in folder.iterdir():
            if old.name not in files:
                old.unlink()
        for name, data in files.items():
            path = folder / name
            if not path.exists() or stored(path) != data:      # an unchanged file keeps its bytes
                path.write_bytes(gzipped(data) if name.endswith(".gz") else data)
        size = sum(p.stat().st_size for p in folder.iterdir())
        print(f"{game}: {len(files)} files, {size:,} bytes in {folder}")
        for name in refresh_specs(game):
            print(f"{game}: updated {name} (data SHA-256, initial state or default options): review and commit it")
        print(files["coverage.md"].decode())
        if still:
            print(f"{game}: NOT COVERED after {SEARCH_BUDGET} searched candidates: {', '.join(still)}")
        if _refresh_readme(game, files["coverage.md"].decode(), still):
            print(f"{game}: updated specs/vectors/README.md (coverage table): review and commit it")
    return 0


def _refresh_readme(game: str, table: str, still: list[str]) -> bool:
    """Put the measured coverage table of the game into specs/vectors/README.md, between its
    `<!-- coverage:game -->` markers."""
    path = ROOT / "README.md"
    text = path.read_text(encoding="utf-8")
    note = ("Everything listed is covered." if not still else
            "Not covered (the search found no game for it): " + ", ".join(f"`{x}`" for x in still) + ".")
    block = f"<!-- coverage:{game} -->\n{table}\n\n{note}\n<!-- /coverage:{game} -->"
    new = re.sub(rf"<!-- coverage:{game} -->.*?<!-- /coverage:{game} -->", lambda m: block, text, flags=re.S)
    if new != text:
        path.write_text(new, encoding="utf-8")
        return True
    return False


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
