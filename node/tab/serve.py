"""`caravan tab`: serve the browser-tab bundle on this machine, or check a served copy (issue 32).

`--serve` serves build/tab (built first when needed) on 127.0.0.1 only: for trying the tab and
for tests; the bundle is meant for a neutral static host the players trust, never for an
opponent's machine. `--check DIR|URL` compares a copied or served bundle with the local build,
file by file against the local manifest's SHA-256s, and names every file that differs: the
page's hash shows only what the page itself claims, this check does not rely on the page.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..cli.checks import UsageError, port_number
from ..cli.common import main_exception
from .build import MANIFEST, BuildError, build

EXIT_OK, EXIT_FAILED = 0, 1


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _reader(target: str) -> Callable[[str], bytes | None]:
    """A function from a bundle path to its bytes (None when it is not there)."""
    if target.startswith(("http://", "https://")):
        root = target if target.endswith("/") else target + "/"

        def fetch(path: str) -> bytes | None:
            try:
                with urllib.request.urlopen(root + path, timeout=60) as response:
                    return response.read()
            except urllib.error.HTTPError as exc:
                if exc.code == 404:
                    return None
                raise UsageError(f"{root + path}: HTTP {exc.code}") from None
            except (urllib.error.URLError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                raise UsageError(f"cannot reach {root}: {reason}") from None
        return fetch
    folder = Path(target)
    if not folder.is_dir():
        raise UsageError(f"{target} is neither a folder nor an http(s) URL")

    def read(path: str) -> bytes | None:
        file = folder / path
        return file.read_bytes() if file.is_file() else None
    return read


@dataclass
class CheckResult:
    bundle_hash: str                   # the local build's
    served_hash: str | None            # the checked copy's manifest's (None: it has none)
    differs: list[dict[str, Any]]      # {name, path, problem}

    @property
    def ok(self) -> bool:
        return not self.differs and self.served_hash == self.bundle_hash


def check(get: Callable[[str], bytes | None], local: Path) -> CheckResult:
    """Compare the bundle that `get` reads (see `_reader`) with the build in `local`, file by file."""
    local_raw = (local / MANIFEST).read_bytes()
    entries = json.loads(local_raw)["files"]
    served = get(MANIFEST)
    differs = []
    if served is None:
        differs.append({"name": MANIFEST, "path": MANIFEST, "problem": "missing"})
    elif served != local_raw:
        differs.append({"name": MANIFEST, "path": MANIFEST,
                        "problem": f"differs: bundle {_sha256(served)}, the local build's is {_sha256(local_raw)}"})
    for name, entry in sorted(entries.items()):
        data = get(entry["path"])
        if data is None:
            differs.append({"name": name, "path": entry["path"], "problem": "missing"})
        elif _sha256(data) != entry["sha256"]:
            differs.append({"name": name, "path": entry["path"],
                            "problem": f"SHA-256 {_sha256(data)}, the local build's is {entry['sha256']}"})
    return CheckResult(_sha256(local_raw), _sha256(served) if served is not None else None, differs)


def _local_build(args: argparse.Namespace) -> Path:
    say = None if args.json else (lambda line: print(f"caravan tab: {line}", file=sys.stderr, flush=True))
    try:
        return build(progress=say).out
    except BuildError as exc:
        raise UsageError(f"cannot build the local bundle to compare with: {exc}") from None


def cmd_check(args: argparse.Namespace) -> int:
    get = _reader(args.check)                  # a target that cannot be one: said before any build
    result = check(get, _local_build(args))
    if args.json:
        print(json.dumps({"type": "tab_check", "ok": result.ok, "bundle": result.bundle_hash,
                          "served": result.served_hash, "differs": result.differs}, sort_keys=True), flush=True)
    elif result.ok:
        print(f"IDENTICAL: {args.check} is the local build, bundle {result.bundle_hash}")
    else:
        print(f"DIFFERENT: {args.check} is not the local build (bundle {result.bundle_hash}); "
              f"{len(result.differs)} file(s) differ:")
        for d in result.differs:
            print(f"  {d['path']} ({d['name']}): {d['problem']}")
    return EXIT_OK if result.ok else EXIT_FAILED


def cmd_serve(args: argparse.Namespace) -> int:
    import trio
    from hypercorn.config import Config
    from hypercorn.trio import serve
    from starlette.applications import Starlette
    from starlette.routing import Mount
    from starlette.staticfiles import StaticFiles

    folder = _local_build(args)
    bundle = _sha256((folder / MANIFEST).read_bytes())
    config = Config()
    config.bind = [f"127.0.0.1:{args.port}"]
    config.accesslog = None
    config.errorlog = None
    config.graceful_timeout = 0.5
    app = Starlette(routes=[Mount("/", StaticFiles(directory=folder, html=True))])   # a 404 stays a 404

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(serve, app, config)
            url = binds[0].rstrip("/") + "/"
            if args.json:
                print(json.dumps({"type": "tab_serving", "url": url, "bundle": bundle}), flush=True)
            else:
                print(f"serving the tab bundle {bundle} on this machine only: open {url} in a browser "
                      "(^C stops)", flush=True)

    try:
        trio.run(main)
    except BaseException as exc:             # trio wraps the listener's OSError in a group
        leaf = main_exception(exc)
        if isinstance(leaf, OSError):
            raise UsageError(f"cannot serve on 127.0.0.1:{args.port}: {leaf.strerror or leaf}") from None
        raise
    return EXIT_OK


def cmd_tab(args: argparse.Namespace) -> int:
    return cmd_check(args) if args.check else cmd_serve(args)


def add_parser(sub: Any) -> None:
    t = sub.add_parser("tab", help="the browser-tab node's bundle: serve it on this machine, or check a copy",
                       description="Serve build/tab (made by `make tab`) on 127.0.0.1, or compare a copied "
                                   "or served bundle with the local build.")
    what = t.add_mutually_exclusive_group(required=True)
    what.add_argument("--serve", action="store_true", help="serve the bundle on 127.0.0.1 (for trying it out)")
    what.add_argument("--check", metavar="DIR|URL", help="compare a bundle folder or URL with the local build")
    t.add_argument("--port", type=port_number, default=8032, help="port for --serve (default 8032; 0: any free port)")
    t.add_argument("--json", action="store_true", help="one JSON line instead of text")
    t.set_defaults(func=cmd_tab)
