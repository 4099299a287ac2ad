"""`caravan app --install-autostart`: start `caravan app --background` when the person logs
in, so their node answers for their turn-based tables with no terminal and no page open.

Two files, both plain text the person can read and remove: an XDG autostart entry (started
by any freedesktop desktop session at login, which also gives the notifications a desktop
to show on) and a systemd user unit for a machine without a desktop session (installed,
enabled only by the person: `systemctl --user enable --now caravan.service`)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from ..storage.files import write_atomic

UNIT = "caravan.service"
ENTRY = "caravan.desktop"


def _quoted(arg: str) -> str:
    """One argument as both a .desktop Exec line and a systemd ExecStart line read it."""
    if re.fullmatch(r"[A-Za-z0-9_./:=@+-]+", arg):
        return arg
    return '"' + re.sub(r'([\\"`$])', r"\\\1", arg) + '"'


def command(data_dir: Path | None) -> list[str]:
    """The background home, as this Python runs Caravan now."""
    cmd = [sys.executable, "-m", "node", "app", "--background"]
    return cmd + (["--data-dir", str(data_dir.resolve())] if data_dir is not None else [])


def config_home() -> Path:
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")


def install(data_dir: Path | None) -> list[Path]:
    """Write (or rewrite) both files; returns their paths."""
    line = " ".join(_quoted(a) for a in command(data_dir))
    entry = config_home() / "autostart" / ENTRY
    unit = config_home() / "systemd" / "user" / UNIT
    texts = {
        entry: ("[Desktop Entry]\nType=Application\nName=Caravan (background)\n"
                "Comment=Answers for your turn-based Caravan games and tells you when it is your move\n"
                f"Exec={line}\nTerminal=false\nNoDisplay=true\nX-GNOME-Autostart-enabled=true\n"),
        unit: ("[Unit]\nDescription=Caravan: answer for your turn-based games\n\n"
               f"[Service]\nExecStart={line}\nRestart=on-failure\n\n[Install]\nWantedBy=default.target\n"),
    }
    for path, text in texts.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text.encode(), 0o644)
    return list(texts)
