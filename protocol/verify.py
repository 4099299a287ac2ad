"""Replay a transcript through the same session code every node runs, and report.

Valid and complete: every signature, chain link, commitment, beacon preimage, rule and
final signature checks out and the game reached its end. Otherwise the report names the
first bad message (its position, its signer's seat and fingerprint, and why), or, for
an unfinished game, whom it was waiting for.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Collection, Iterable, Iterator

from . import abandon, chain, games, genesis as G
from .engine import Engine
from .errors import Rejected
from .identity import Checked, already_checked, fingerprint, verify
from .need import EngineFault
from .session import PROOF_KINDS, Session
from .transcript import TranscriptError, load


@dataclass
class Report:
    valid: bool
    complete: bool
    game: str | None = None
    game_id: str | None = None
    seats: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    messages: int = 0
    error: dict[str, Any] | None = None
    waiting_for: list[int] = field(default_factory=list)
    hidden_cards: dict[int, int] = field(default_factory=dict)   # deck handle -> card, from published keys
    abandoned_by: list[int] = field(default_factory=list)        # stalled seats named in an abandon record
    pace: str | None = None                                      # the genesis's: live or turn-based
    time_limit: int = 0                                          # its silence limit (turn-based: per move)

    @property
    def ok(self) -> bool:
        return self.valid and self.complete

    def to_json(self) -> dict[str, Any]:
        return {"valid": self.valid, "complete": self.complete, "game": self.game,
                "game_id": self.game_id, "seats": self.seats, "result": self.result,
                "messages": self.messages, "error": self.error, "waiting_for": self.waiting_for,
                "hidden_cards": {str(h): c for h, c in sorted(self.hidden_cards.items())},
                "abandoned_by": self.abandoned_by, "pace": self.pace, "time_limit": self.time_limit}


def seats_in_words(seats: Any) -> str:
    """"seat 2" or "seats 0, 1": how a report names seats for people."""
    numbers = sorted(seats)
    return f"seat {numbers[0]}" if len(numbers) == 1 else f"seats {', '.join(map(str, numbers))}"


def error_report(position: int, exc: Exception) -> dict[str, Any]:
    """A failure as a report names it: where, the code, why, and the signer when there is one."""
    err: dict[str, Any] = {"position": position, "code": getattr(exc, "code", "unreadable"),
                           "reason": getattr(exc, "reason", str(exc)), "seat": None, "fingerprint": None}
    if isinstance(exc, Rejected) and exc.author is not None:
        err["seat"] = exc.seat
        err["fingerprint"] = fingerprint(exc.author)
    return err


SignatureChecks = Callable[[list[bytes]], Iterable[tuple[int, Collection[Checked]]]]
"""Given the messages, yields (n, checked): `checked` holds signatures, of any of the
messages, that `check_signatures` accepted (an empty batch when none is ready yet). The
replay takes a batch every `POLL` messages and never waits for one: it checks itself
every signature not reported yet. A generator is sent the replay's position (how many
messages it has done), so that it can drop work the replay has passed. Lets a caller check
signatures elsewhere (in other processes) while the replay runs."""

POLL = 16
"""Messages replayed between two looks at the signature checker's results."""

ProofChecks = Callable[[Callable[[], bool]], Callable[[], bool]]
"""Given one message's deck proof checks (a `ProofJob.run`), has them run elsewhere (in
another process) and returns a function that tells whether all passed, running them itself
if they have not started yet. The replay then does not wait for a message's proofs: it goes
on as if they passed, and its report stands only if every one did (asked last first, so that
this process takes the checks from the end while the others work from the front); if one
failed, the transcript is replayed again with each proof checked in turn, so the report (the
first bad message, its signer, why) is the one given without it."""


_HEAD = b"\x98\x01\xc4\x20"
"""How an envelope starts: [1, game id, author, ...] (the author at bytes 38..70)."""


def check_signatures(messages: list[bytes]) -> list[Checked]:
    """The signatures of these messages that verify (strictly, by `identity.verify`), as the
    replay's `Message.signature_ok` will ask for them; a message whose author and signature
    cannot be found is left out, to be checked or refused by the replay.

    The envelope is not decoded (the replay decodes and checks it): the author is read where
    a well-formed envelope holds it. That is sound whatever the bytes: the replay skips only
    a (key, signature, signed bytes) triple that `verify` accepted here."""
    ok = []
    for raw in messages:
        try:
            env, sig = chain.split_outer(raw)
        except (chain.ParseError, TypeError, IndexError):
            continue
        if len(env) < 70 or env[:4] != _HEAD or env[36:38] != b"\xc4\x20":
            continue
        checked = (env[38:70], sig, chain.SIG_TAG + chain.message_id(env))   # as Message.signature_ok
        if verify(*checked):
            ok.append(checked)
    return ok


def verify_bytes(data: bytes, lookup: Callable[[str], Engine] = games.get,
                 progress: Callable[[int, int], None] | None = None,
                 signatures: SignatureChecks | None = None, proofs: ProofChecks | None = None) -> Report:
    """Check a whole transcript; never raises for bad content. `progress(done, total)` is
    called as messages are checked (for long transcripts). `signatures` (optional) checks
    the messages' signatures ahead of the replay; the replay then skips only the ones it
    reported valid, and makes every other check itself, so the verdict is the same.
    `proofs` (optional) checks deck proofs while the replay goes on (see ProofChecks)."""
    try:
        genesis_raw, messages = load(data)
    except TranscriptError as exc:
        return Report(False, False, error=error_report(exc.position or 0, exc))
    try:
        genesis = G.parse(genesis_raw)
    except Rejected as exc:
        return Report(False, False, error=error_report(0, exc))
    report = Report(True, False, game=genesis.game, game_id=genesis.game_id.hex(),
                    seats=[{"seat": i, "fingerprint": fingerprint(k)} for i, k in enumerate(genesis.seats)],
                    messages=len(messages), pace=genesis.pace, time_limit=genesis.time_limit)
    try:
        engine = lookup(genesis.game)
    except KeyError as exc:
        report.valid = False
        report.error = {"position": 0, "code": "unknown-game", "reason": str(exc), "seat": None,
                        "fingerprint": None}
        return report
    try:
        session = Session(genesis, engine, strict=True)
    except Rejected as exc:
        report.valid = False
        report.error = error_report(0, exc)
        return report
    except EngineFault as exc:
        report.valid = False
        report.error = {"position": 0, "code": "engine-fault", "seat": None, "fingerprint": None,
                        "reason": f"the rules engine failed at the start (a bug in Caravan): {exc}"}
        return report
    record = None
    try:
        record = abandon.parse_record(messages[-1]) if messages else None
    except Rejected as exc:
        report.valid = False
        report.error = error_report(len(messages), exc)
        return report
    if record is not None:
        messages = messages[:-1]
        report.messages = len(messages)
    waits: list[Callable[[], bool]] = []
    crash: Exception | None = None
    try:
        replayed = _replay(session, messages, report, progress, signatures, proofs, waits)
    except Exception as exc:    # past a proof taken as passed that failed, the replay may go astray
        if not waits:
            raise
        crash, replayed = exc, False
    if not all([wait() for wait in reversed(waits)]):     # every one asked: none left running
        return verify_bytes(data, lookup, progress, signatures)
    if crash is not None:
        raise crash             # as the replay without `proofs` would
    if not replayed:
        return report
    if record is not None:
        stalled, length, sigs = record
        try:
            abandon.check(session, stalled, length, sigs)
        except Rejected as exc:
            report.valid = False
            report.error = error_report(len(messages) + 1, exc)
            return report
        report.abandoned_by = sorted(stalled)
        report.waiting_for = session.waiting_for()
        report.error = {"position": len(messages) + 1, "code": "abandoned", "seat": None, "fingerprint": None,
                        "reason": f"abandoned: {seats_in_words(stalled)} sent nothing in time; "
                                  f"{seats_in_words(sigs)} co-signed the record"}
        return report
    report.complete = session.complete
    report.result = session.result() if session.complete else None
    report.waiting_for = session.waiting_for()
    if session.complete:
        report.hidden_cards = session.audit()
    if not session.complete:
        report.error = {"position": len(messages) + 1, "code": "incomplete", "seat": None,
                        "fingerprint": None,
                        "reason": f"the game is unfinished: waiting for {session.describe_need()}"}
    return report


def _replay(session: Session, messages: list[bytes], report: Report,
            progress: Callable[[int, int], None] | None, signatures: SignatureChecks | None,
            proofs: ProofChecks | None, waits: list[Callable[[], bool]]) -> bool:
    """Feed every message to the session; on the first refusal, note it in the report and
    return False. With `proofs`, a message's deck proofs are handed to it and taken as
    passed; `waits` collects how to learn whether they did."""
    checked: set[Checked] = set()
    ahead: Iterator[tuple[int, Collection[Checked]]] | None = None
    if signatures is not None:
        ahead = iter(signatures(messages))
    checker = ahead
    try:
        with already_checked(checked):
            for position, raw in enumerate(messages, start=1):
                if ahead is not None and position % POLL == 1:
                    batch = _next_checks(ahead, position - 1)
                    if batch is None:
                        ahead = None
                    else:
                        checked.update(batch)
                if progress is not None and position % 50 == 0:
                    progress(position, len(messages))
                try:
                    need = session.need     # proof_checks authenticates: only where proofs may come
                    job = session.proof_checks(raw) if proofs and need and need.kind in PROOF_KINDS else None
                    if job is not None:
                        waits.append(proofs(job.run))
                        job = replace(job, passed=True)     # for now: verify_bytes waits for them
                    session.receive(raw, job)
                except Rejected as exc:
                    report.valid = False
                    report.error = error_report(position, exc)
                    return False
                except EngineFault as exc:
                    report.valid = False
                    report.error = {"position": position, "code": "engine-fault", "seat": None, "fingerprint": None,
                                    "reason": f"the rules engine failed here (a bug in Caravan, not proof of "
                                              f"cheating): {exc}"}
                    return False
    finally:
        close = getattr(checker, "close", None)
        if close is not None:
            close()     # stop checking the rest after a refusal
    return True


def _next_checks(ahead: Iterator[tuple[int, Collection[Checked]]], done: int) -> Collection[Checked] | None:
    """The next batch of checked signatures (telling a generator how far the replay is);
    None once the checker has ended or failed (a worker process died): then nothing more is
    taken as checked and the replay checks the rest itself."""
    try:
        send = getattr(ahead, "send", None)
        return (send(done) if send is not None and done else next(ahead))[1]
    except Exception:
        return None
