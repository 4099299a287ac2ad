"""Run a Bot as a separate process speaking the client API on stdin/stdout.

    python -m clients.stdio_bot random          # or: heuristic
    caravan join HOST:PORT --bot-cmd "python -m clients.stdio_bot random"

Write your own: subclass clients.bot.Bot, then call `run(MyBot())`. The bot sees the
view and the legal actions as JSON (bytes as hex strings) and returns one of the actions.
"""

from __future__ import annotations

import json
import sys
from typing import IO

from .bot import Bot, make_bot


def run(bot: Bot | str, stdin: IO[str] = sys.stdin, stdout: IO[str] = sys.stdout) -> dict | None:
    """Answer every decision until the node sends the result (returned) or closes.

    `bot` is a Bot, or a kind ("random", "heuristic") made for the game the node names."""
    for line in stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello" and isinstance(bot, str):
            bot = make_bot(bot, msg.get("game", ""), seed=msg.get("seat"))
        elif kind == "decide":
            if isinstance(bot, str):
                bot = make_bot(bot, "")
            actions = msg["actions"]
            chosen = bot.choose(msg.get("view"), [a["action"] for a in actions])
            index = next(a["id"] for a in actions if a["action"] == chosen)
            stdout.write(json.dumps({"type": "act", "decision": msg["decision"], "action": index}) + "\n")
            stdout.flush()
        elif kind == "error":
            print(f"bot: node says: {msg.get('message')}", file=sys.stderr)
        elif kind == "result":
            return msg.get("result")
    return None


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    run(args[0] if args else "random")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
