"""Open a local page in the person's browser without its token on any command line (a
browser started with the URL as an argument shows it to every local user in `ps`): the
URL goes into a 0600 file of the data dir that redirects to it, and the browser is given
that file's path."""

from __future__ import annotations

import json
import queue
import threading
from html import escape
from pathlib import Path

from ..storage.store import write_private


def redirect_file(url: str, data_dir: Path, name: str = "open.html") -> Path:
    """A page that sends the browser on to `url` (kept readable by the owner only)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / name
    page = (f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0; url={escape(url)}">'
            f'<title>Caravan</title><script>location.replace({json.dumps(url)})</script>'
            f'<a href="{escape(url)}">Open Caravan</a>')
    write_private(path, page.encode())
    return path


def open_page(url: str, data_dir: Path, name: str = "open.html") -> None:
    """Open `url` through a redirect file (blocking: run it in a thread from trio)."""
    import webbrowser
    webbrowser.open(redirect_file(url, data_dir, name).resolve().as_uri())


class BrowserOpener:
    """Opens a page from a thread started before its process lowers its priority (`caravan
    watch`): a browser it starts inherits that thread's normal priority (an unprivileged
    process cannot leave SCHED_IDLE again, so the thread must exist first)."""

    def __init__(self, data_dir: Path, name: str):
        self.data_dir, self.name, self.urls = data_dir, name, queue.SimpleQueue()
        threading.Thread(target=self._open, daemon=True).start()

    def _open(self) -> None:
        open_page(self.urls.get(), self.data_dir, self.name)

    def __call__(self, url: str) -> None:
        self.urls.put(url)
