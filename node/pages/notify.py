"""Telling the person that a game waits for them when no page of it is open: a desktop
notification through freedesktop's `notify-send` (libnotify), where the desktop has it. An
open table page tells its person itself (the page's own notification and sound)."""

from __future__ import annotations

import logging
import shutil
import subprocess

log = logging.getLogger(__name__)

TIMEOUT = 5.0
"""At most this long for `notify-send` (a desktop without a notification daemon can hang it)."""


def desktop_notify(summary: str, body: str) -> bool:
    """Show a desktop notification; False where there is no `notify-send` or it failed (said
    in the log: the game goes on, and the home lists the game as "your move")."""
    exe = shutil.which("notify-send")
    if exe is None:
        log.info("no notify-send here (apt install libnotify-bin): %s", summary)
        return False
    try:
        done = subprocess.run([exe, "--app-name=Caravan", summary, body], capture_output=True, timeout=TIMEOUT,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.warning("notify-send failed: %s", exc)
        return False
    if done.returncode != 0:
        log.warning("notify-send failed: %s", done.stderr.decode(errors="replace").strip())
    return done.returncode == 0
