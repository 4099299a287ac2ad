"""Table talk without I/O: the one copy of its rules, which the desktop node (node/app/chat.py:
its file, its logging, its clock) and the browser tab (clients/tab/py/tab_seat.py) both shell.

A line is `{"t": "chat", "b": body, "s": sig}`: `body` = wire.encode([DOMAIN, game id, author
key, n, text]) signed with the author's game key, `n` its sender's clock in ms (kept
increasing). `Lines` checks a line as every seat checks it (a seat of this game, this game,
not a replay, the rate rule on the signed times, not dated too far ahead, the signature, one
line of printable text) and keeps the last KEEP; given the seat's key it also signs this
seat's lines under the same rule. Where the kept lines go beyond memory is the shell's
(`_keep`; `load` reads them back from the records' JSON lines). The clock is the caller's:
nothing here reads time, files or the environment (specs/node.md "Chat")."""

from __future__ import annotations

import itertools
import json
from collections import deque
from typing import Any, Callable

from protocol import wire
from protocol.identity import SigningKey, fingerprint, verify

MAX_TEXT = 400
"""Characters in one line."""
MAX_BODY = 4096
"""Bytes of a signed line (text in UTF-8 plus its envelope)."""
RATE_LINES, RATE_WINDOW = 5, 10.0
"""A seat may send this many lines per window of their signed times (`n`, the sender's clock in
ms); more are refused (sender) or dropped (receiver): the same rule on the same numbers, so a
line its sender's window allowed is never dropped by a receiver's."""
AHEAD = 30.0
"""Seconds a seat's signed times may run ahead of this node's clock, counted from the first
line it received from that seat in this run: a peer cannot forge times to get around the rate
(an honest sender's times advance with its clock; this leaves 30 s for delays)."""
KEEP = 200
"""Lines held in memory (and sent to a page that connects)."""
MAX_FILE = 1 << 20
"""Bytes of the kept lines (chat.jsonl); past this, its oldest lines are dropped (it is rewritten
with the newest lines, about half of this), so a restarted node shows the recent talk."""
DOMAIN = "caravan-chat-v1"


def newest_lines(data: bytes, limit: int) -> bytes:
    """The last whole lines of `data` that fit in `limit` bytes."""
    if len(data) <= limit:
        return data
    cut = data.find(b"\n", len(data) - limit - 1)
    return data[cut + 1:] if cut >= 0 else b""


class ChatError(ValueError):
    """A line that is refused: the message says why, in one line."""


class Repeated(ChatError):
    """A line at or below the last `n` taken from its seat: a replay, or (for a spectator whose
    link was dialled again) a line it already has."""


def clean(text: Any) -> str:
    """What a person typed, as one line of printable characters (line breaks become spaces)."""
    if type(text) is not str:
        raise ChatError("a chat line must be text")
    text = " ".join(text.splitlines())
    text = "".join(c for c in text if c.isprintable()).strip()
    if not text:
        raise ChatError("an empty chat line is not sent")
    if len(text) > MAX_TEXT:
        raise ChatError(f"a chat line holds at most {MAX_TEXT} characters (this one has {len(text)})")
    return text


class RateLimit:
    """At most `lines` lines per `window` seconds of their signed times `n` (ms; a sliding
    window bounded by `lines`): the sender checks it before signing a line, every receiver
    checks the same `n`s, so both judge alike whatever the links' delays."""

    def __init__(self, lines: int = RATE_LINES, window: float = RATE_WINDOW):
        self.lines, self.window = lines, window
        self.times: deque[int] = deque(maxlen=lines)

    def allows(self, n: int) -> bool:
        return len(self.times) < self.lines or n - self.times[0] >= self.window * 1000

    def add(self, n: int) -> None:
        self.times.append(n)


def record_line(record: dict[str, Any]) -> bytes:
    """One kept line as a JSON line (seat, n, at, text, body and sig in hex)."""
    return (json.dumps(record, ensure_ascii=False) + "\n").encode()


def frame_of(body: Any, sig: Any) -> dict[str, Any] | None:
    """The `chat` frame of a kept line (its hex `body` and `sig`), None when they are missing
    or not hex: passed on as it was signed, so its readers check it themselves."""
    try:
        return {"t": "chat", "b": bytes.fromhex(body), "s": bytes.fromhex(sig)}
    except (TypeError, ValueError):
        return None


class Lines:
    """One game's signed lines as a seat (with `key`) or a reader (a spectator) checks and keeps
    them. Memory is bounded: the last KEEP lines (`lines`, shown; `signed`, their `chat`
    frames, which a player's node passes on to its spectators) and a count of every line taken
    (`count`), so that a spectator's feed is one more counter, never a queue. `clock()` gives
    the Unix time in seconds; `window` the rate window's seconds."""

    def __init__(self, game_id: bytes, seats: list[bytes], names: list[str], clock: Callable[[], float],
                 window: float = RATE_WINDOW, key: SigningKey | None = None):
        self.game_id, self.seats, self.names, self.clock = game_id, seats, names, clock
        self.key = key
        self.seat = seats.index(key.public) if key is not None else None
        self.lines: deque[dict[str, Any]] = deque(maxlen=KEEP)
        self.signed: deque[dict[str, Any] | None] = deque(maxlen=KEEP)
        """The `chat` frame of each line in `lines` (None: a line kept without a valid
        signature, shown to this seat but passed on to no one)."""
        self.count = 0
        """Lines taken since this node started (loaded ones included): `signed` holds the last ones."""
        self.refused = 0
        """Lines from peers refused by `receive`."""
        self.last_n: dict[int, int] = {}
        self.window = window
        self.limits = {s: RateLimit(window=window) for s in range(len(seats))}
        self.ahead: dict[int, float] = {}
        """Per seat, how far its first signed time this run was ahead of this node's clock (s)."""
        self.listeners: list[Callable[[dict[str, Any]], None]] = []

    def since(self, taken: int, most: int = KEEP) -> tuple[list[dict[str, Any]], int]:
        """The `chat` frames of at most `most` lines after the first `taken` that are still
        held (older ones are gone: a reader that fell KEEP lines behind misses them), and the
        count they reach (what to ask from next time)."""
        oldest = self.count - len(self.signed)          # the count of the first line held
        first = max(taken, oldest)
        upto = min(self.count, first + most)
        frames = itertools.islice(self.signed, first - oldest, upto - oldest)
        return [f for f in frames if f is not None], upto

    def _check_rate(self, seat: int, n: int) -> None:
        """The sender's rule on the line's signed time, and that time not running ahead of
        this node's clock by more than AHEAD since that seat's first line (forged times).
        Checked before the signature (a flood costs no verification) and changing nothing:
        only an accepted line moves the window (`_accept`)."""
        ahead = n / 1000 - self.clock()
        first = self.ahead.get(seat, ahead)
        if ahead > first + AHEAD:
            raise ChatError(f"seat {seat}'s line is dated {ahead - first:.0f} s ahead of its earlier lines")
        if not self.limits[seat].allows(n):
            raise ChatError(f"seat {seat} sent more than {RATE_LINES} lines in {self.window:g} s")

    def _check(self, frame: dict[str, Any]) -> tuple[int, int, str, bytes, bytes]:
        body, sig = frame.get("b"), frame.get("s")
        if type(body) is not bytes or type(sig) is not bytes or len(body) > MAX_BODY or len(sig) != 64:
            raise ChatError("not a chat line")
        try:
            domain, game_id, author, n, text = wire.decode(body)
        except (wire.WireError, ValueError, TypeError):
            raise ChatError("not a chat line") from None
        if domain != DOMAIN or game_id != self.game_id:
            raise ChatError("a chat line of another game")
        if type(author) is not bytes or author not in self.seats:
            raise ChatError("the line's key holds no seat in this game")
        seat = self.seats.index(author)
        if type(n) is not int:
            raise ChatError(f"seat {seat}'s line has no time")
        if n <= self.last_n.get(seat, 0):
            raise Repeated(f"seat {seat}'s line is old or repeated")
        self._check_rate(seat, n)
        if not verify(author, sig, body):
            raise ChatError(f"the signature of seat {seat}'s line does not verify (key {fingerprint(author)})")
        if type(text) is not str or clean(text) != text:
            raise ChatError(f"seat {seat}'s line is not one line of printable text")
        return seat, n, text, body, sig

    def _accept(self, seat: int, n: int, text: str, body: bytes, sig: bytes, now: float) -> dict[str, Any]:
        self.last_n[seat] = n
        self.limits[seat].add(n)
        self.ahead.setdefault(seat, n / 1000 - now)
        line = {"type": "chat", "seat": seat, "name": self.names[seat], "text": text, "at": now}
        self.lines.append(line)
        self.signed.append({"t": "chat", "b": body, "s": sig})
        self.count += 1
        self._keep({"seat": seat, "n": n, "at": now, "text": text, "body": body.hex(), "sig": sig.hex()})
        for listener in list(self.listeners):
            listener(line)
        return line

    def _keep(self, record: dict[str, Any]) -> None:
        """Keep an accepted line beyond memory (a shell's file); a reader keeps none."""

    def _refused(self, link_seat: int, error: ChatError) -> None:
        """Told the 1st, 2nd, 4th, 8th… line `receive` refused (a flood cannot flood a log)."""

    def take(self, frame: dict[str, Any]) -> dict[str, Any]:
        """A `chat` frame checked as every seat checks it (ChatError says why it is refused;
        Repeated for a line already taken): the shown line."""
        seat, n, text, body, sig = self._check(frame)
        return self._accept(seat, n, text, body, sig, self.clock())

    def receive(self, link_seat: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        """A `chat` frame from the peer at `link_seat`: the shown line, or None when refused
        (counted in `refused`; the link stays up: chat never stops a game)."""
        try:
            return self.take(frame)
        except ChatError as exc:
            self.refused += 1
            if self.refused & (self.refused - 1) == 0:
                self._refused(link_seat, exc)
            return None

    def sign(self, text: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """One line typed at this seat, cleaned, checked against the rate rule, signed and kept:
        (the shown line, the `chat` frame to send to every seat). ChatError when refused."""
        if self.key is None or self.seat is None:
            raise ChatError("spectators read the table talk; only the players write it")
        text = clean(text)
        now = self.clock()
        n = max(self.last_n.get(self.seat, 0) + 1, int(now * 1000))
        if not self.limits[self.seat].allows(n):
            raise ChatError(f"slow down: at most {RATE_LINES} chat lines per {self.window:g} s")
        body = wire.encode([DOMAIN, self.game_id, self.key.public, n, text])
        frame = {"t": "chat", "b": body, "s": self.key.sign(body)}
        return self._accept(self.seat, n, text, body, frame["s"], now), frame

    def load(self, data: bytes) -> None:
        """The kept lines of an earlier session (JSON lines, as `_keep` was given them): the
        last KEEP are shown again, and this seat's next `n` goes on after them. A damaged
        record is skipped."""
        try:
            records = data.decode("utf-8").splitlines()
        except UnicodeDecodeError:
            return
        for raw in records:
            try:
                r = json.loads(raw)
                seat, n, text, at = int(r["seat"]), int(r["n"]), clean(r["text"]), float(r["at"])
                self.names[seat]
            except (ValueError, KeyError, TypeError, IndexError, ChatError):
                continue
            self.last_n[seat] = max(self.last_n.get(seat, 0), n)
            self.lines.append({"type": "chat", "seat": seat, "name": self.names[seat], "text": text, "at": at})
            self.signed.append(frame_of(r.get("body"), r.get("sig")))
            self.count += 1
