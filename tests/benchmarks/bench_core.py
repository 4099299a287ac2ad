"""Protocol core: envelope cost against bare Ed25519, and `caravan verify` throughput against
the signature-verification bound (issue #17 item 4).

The baselines are the bare library calls the code makes: OpenSSL's Ed25519 sign (through
`cryptography`) and libsodium's strict crypto_sign_open, timed interleaved with what they
are compared to. The bound is the same transcript's signatures checked back to back on one
core; the parallel figure is wall time with signatures checked in worker processes. For each
seed game, where one core's verify time goes (parse, the rest of the replay, signatures) and
the wall time of `--jobs` (deck proofs in the workers too) against one process, taken in turn."""

from __future__ import annotations

import os
import random
import time
from typing import Any, Callable

import nacl.bindings as nb
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from node.cli.verify_pool import in_processes, proofs_in, usable_cpus, workers
from protocol import chain, games
from protocol.identity import SigningKey
from protocol.verify import verify_bytes
from tests.benchmarks.common import interleaved
from tests.games.pick import installed, short_game
from tests.fixture_game import ENGINE, DiceDuel, State
from tests.helpers import new_table, play

TARGET_ENVELOPE, TARGET_VERIFY = 1.2, 0.9


class LongDuel(DiceDuel):
    """The fixture game, allowed more rounds: a transcript of thousands of messages."""
    name = "fixture-long"

    def new_game(self, options: dict, players: int) -> State:
        return State(options["rounds"], players)


def _met(ok: bool) -> str:
    return "met" if ok else "MISSED"


def _transcript(engine: DiceDuel, rounds: int) -> tuple[bytes, list[chain.Message]]:
    """A fixture game among 6 players: its transcript and its parsed messages."""
    t = new_table(engine, 6, seed=1, options={"rounds": rounds})
    rng = random.Random(1)
    play(t, lambda seat, legal: rng.choice(legal))
    return t.transcript(), [chain.parse(m) for m in t.sessions[0].log]


def real_games() -> list[tuple[str, int, dict]]:
    """A short game of each installed game for the per-game split (its hooks' SHORT_GAME: a game
    whose deck proofs are slow to make gives a short one)."""
    return [(game, *short_game(game)) for game in installed()]


def _game_line(game: str, players: int, options: dict) -> str:
    """Where a real game's one-core verify time goes, per message: the parse, the rest of the
    replay (chain, rules, commitments, beacon and deck proofs; every signature reported checked
    through the `signatures` hook) and the signatures (the bound)."""
    engine = games.get(game)
    t = new_table(engine, players, seed=1, options={**engine.default_options(players), **options})
    rng = random.Random(1)
    play(t, lambda seat, legal: rng.choice(legal))
    data, raws = t.transcript(), list(t.sessions[0].log)
    msgs = [chain.parse(m) for m in raws]
    checked = [(m.author, m.signature, chain.SIG_TAG + m.id) for m in msgs]
    assert verify_bytes(data).ok
    whole, parse, unsigned, bare = interleaved(
        [lambda: verify_bytes(data), lambda: [chain.parse(m) for m in raws],
         lambda: verify_bytes(data, signatures=lambda _: [(len(checked), checked)]),
         lambda: [m.signature_ok() for m in msgs]], n=1, rounds=5, clock=time.process_time)
    n = len(msgs)
    line = (f"    {engine.title} ({players} players, {n} messages): verify {whole / n * 1e6:,.1f} µs/message = "
            f"parse {parse / n * 1e6:.1f} + rest of the replay {(unsigned - parse) / n * 1e6:,.1f} + "
            f"signatures {(whole - unsigned) / n * 1e6:.1f} (the bound alone {bare / n * 1e6:.1f}); "
            f"ratio to the bound {bare / whole:.2f}")
    cpus = usable_cpus()
    if cpus > 1:
        def jobs() -> None:         # as `caravan verify --jobs N` does
            with workers(cpus) as pool:
                assert verify_bytes(data, signatures=in_processes(cpus, pool), proofs=proofs_in(pool)).ok
        alone, par = interleaved([lambda: verify_bytes(data), jobs], n=1, rounds=3)
        line += (f"; --jobs {cpus} in turn with one process: {par * 1e3:,.0f} against {alone * 1e3:,.0f} ms wall "
                 f"= {alone / par:.2f}× as fast (load average {os.getloadavg()[0]:.1f})")
    return line


def _best_wall(fn: Callable[[], Any], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run() -> list[str]:
    games.register(ENGINE)
    games.register(LongDuel())
    key = SigningKey.from_seed(b"\x01" * 32)
    gid = bytes(32)
    refs = [[1, 40, bytes(32)], [2, 41, bytes(32)], [3, 39, bytes(32)]]
    body = {"a": ["move", 3, "north"], "o": []}
    payload = b"caravan/sig/v1" + bytes(32)
    openssl_key = Ed25519PrivateKey.from_private_bytes(key.seed())   # what SigningKey.sign calls
    sig = key.sign(payload)
    signed = sig + payload
    raw = chain.seal(key, gid, 42, gid, refs, "act", body).raw
    bare_sign, seal = interleaved([lambda: openssl_key.sign(payload),
                                   lambda: chain.seal(key, gid, 42, gid, refs, "act", body)],
                                  n=1000, rounds=21, clock=time.process_time)
    bare_verify, parse_verify = interleaved([lambda: nb.crypto_sign_open(signed, key.public),
                                             lambda: chain.parse(raw).signature_ok()],
                                            n=1000, rounds=21, clock=time.process_time)
    lines = [
        "one-core figures are CPU time (best of interleaved runs); parallel ones wall time",
        f"bare Ed25519: sign {bare_sign * 1e6:.1f} µs, verify {bare_verify * 1e6:.1f} µs",
        f"envelope encode+sign   {seal * 1e6:6.1f} µs = {seal / bare_sign:.2f}× bare sign   "
        f"(target ≤ {TARGET_ENVELOPE}×: {_met(seal / bare_sign <= TARGET_ENVELOPE)})",
        f"envelope decode+verify {parse_verify * 1e6:6.1f} µs = {parse_verify / bare_verify:.2f}× bare verify "
        f"(target ≤ {TARGET_ENVELOPE}×: {_met(parse_verify / bare_verify <= TARGET_ENVELOPE)})",
    ]

    cpus = usable_cpus()
    for engine, rounds in ((ENGINE, 10), (games.get("fixture-long"), 60)):
        data, msgs = _transcript(engine, rounds)
        assert verify_bytes(data).ok
        best, bare_all = interleaved([lambda: verify_bytes(data), lambda: [m.signature_ok() for m in msgs]],
                                     n=1, rounds=7, clock=time.process_time)
        rate, bound = len(msgs) / best, len(msgs) / bare_all
        lines.append(f"caravan verify, one core: {len(msgs)} messages in {best * 1e3:.1f} ms = {rate:,.0f} msg/s; "
                     f"bare signature bound (the same signatures) {bound:,.0f} msg/s; ratio {rate / bound:.2f} "
                     f"(target ≥ {TARGET_VERIFY}: {_met(rate / bound >= TARGET_VERIFY)})")
        if cpus > 1:
            pool = in_processes(cpus)
            assert verify_bytes(data, signatures=pool).ok
            before = os.times()
            wall = _best_wall(lambda: verify_bytes(data, signatures=pool), 5)
            after = os.times()
            replay_cpu = (after.user + after.system - before.user - before.system) / 5
            workers_cpu = (after.children_user + after.children_system
                           - before.children_user - before.children_system) / 5
            # wall against wall, taken in turn, so that a loaded machine slows both alike
            alone, jobs = interleaved([lambda: verify_bytes(data), lambda: verify_bytes(data, signatures=pool)],
                                      n=1, rounds=5)
            prate = len(msgs) / wall
            lines.append(f"    --jobs {cpus} (the replay and {cpus - 1} worker process{'es' if cpus > 2 else ''}): "
                         f"{wall * 1e3:.1f} ms wall = {prate:,.0f} msg/s "
                         f"= {prate / bound:.2f}× the one-core bound (target > 1 for large transcripts: "
                         f"{_met(prate > bound) if len(msgs) >= 1000 else 'n/a, a small transcript'}); "
                         f"in turn with the one-process replay: {jobs * 1e3:.1f} against {alone * 1e3:.1f} ms wall "
                         f"= {alone / jobs:.2f}× as fast; "
                         f"CPU: this process (the replay) {replay_cpu * 1e3:.1f} ms, the workers "
                         f"{workers_cpu * 1e3:.1f} ms in all; load average {os.getloadavg()[0]:.1f} on {cpus} CPUs")
    lines.append("the seed games, one core (the target is the fixture's; rules and deck proofs are the games' own), "
                 "and --jobs (deck proofs in the workers too):")
    lines += [_game_line(*g) for g in real_games()]
    return lines
