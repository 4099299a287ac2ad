"""`make tab`: build the browser-tab bundle, build/tab/, from registry packages only (issue 32).

What goes in: the npm packages pinned in clients/tab/package-lock.json (Pyodide, the files it
needs to start and no others; libsodium.js; mqtt.js), the msgpack wheel for Pyodide's ABI from
PyPI (pinned version and SHA-256, fetched with pip), one zip of `protocol/` with the tab's
Python (clients/tab/py: the `nacl` shim over libsodium.js, the worker's ops, the self-test), the
pure parts of clients/ the table page needs (the games' presentations, narration, pictures, the
page's lines) and the deck vectors, and the pages (clients/tab; table.html is the desktop table
page, clients/web, run by the worker: its markup, app.js, style.css and games.js). Every file but index.html gets a content-hashed
name; manifest.json gives each file's SHA-256, and its own SHA-256 is the bundle hash the page
shows and `caravan tab --check` compares.

The build is skipped when its inputs have not changed (their digest is kept in build/tab), so
tests can call `ensure_built()` freely. It does I/O (npm, pip, files), hence it lives in node/.
Run it as `python -m node.tab.build` (what `make tab` does).
"""

from __future__ import annotations

import base64
import fcntl
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "clients" / "tab"
PYPROJECT = ROOT / "pyproject.toml"
OUT = ROOT / "build" / "tab"
CACHE = ROOT / "build" / "tab-cache"
MANIFEST = "manifest.json"
FORMAT = "caravan-tab/1"
LIMIT_GZIP = 8 * 1024 * 1024

# the msgpack wheel built for the pinned Pyodide's ABI (pyodide-lock.json: python 3.14,
# abi 2026_0): pyodide 314.0.8 needs cp314 / pyemscripten_2026_0_wasm32
WHEEL = "msgpack-1.2.4-cp314-cp314-pyemscripten_2026_0_wasm32.whl"
WHEEL_REQUIREMENT = "msgpack==1.2.4"
WHEEL_SHA256 = "06a0657a4110d563255006b7cb7147432f67827144e429c2cdb1c967548d1817"
WHEEL_PIP_TAGS = ["--platform", "pyemscripten_2026_0_wasm32", "--python-version", "3.14",
                  "--implementation", "cp", "--abi", "cp314"]

# logical name in the bundle -> file in node_modules (only what Pyodide needs to start)
NPM_FILES = {
    "pyodide/pyodide.mjs": "pyodide/pyodide.mjs",
    "pyodide/pyodide.asm.mjs": "pyodide/pyodide.asm.mjs",
    "pyodide/pyodide.asm.wasm": "pyodide/pyodide.asm.wasm",
    "pyodide/python_stdlib.zip": "pyodide/python_stdlib.zip",
    "pyodide/pyodide-lock.json": "pyodide/pyodide-lock.json",
    "libsodium/libsodium-sumo.mjs": "libsodium-sumo/dist/modules-sumo-esm/libsodium-sumo.mjs",
    "libsodium/libsodium-wrappers.mjs": "libsodium-wrappers-sumo/dist/modules-sumo-esm/libsodium-wrappers.mjs",
    "mqtt/mqtt.esm.js": "mqtt/dist/mqtt.esm.js",
}
PAGE_FILES = ("tab.js", "tab.css", "python.js", "table.js", "worker.js", "broker.js", "sw.js", "app.webmanifest",
              "icon-192.png", "icon-512.png")
WEB = ROOT / "clients" / "web"
WEB_FILES = ("app.js", "style.css")    # the desktop table page's, as they are (table.html holds its markup)
FILLED = ("app.webmanifest", "table.html")   # name other files by their hashed names, so are hashed after them
TABLE_BODY = "<!--@table-body@"
CLIENTS = ("__init__.py", "api_json.py", "table_lines.py", "replay.py", "games", "narrate", "render")
"""The pure parts of clients/ the table page needs: its lines (clients/table_lines.py imports)
and the game-over box's verdict and replay page (clients/replay.py)."""
CODE = "python/caravan.zip"
DECK_VECTORS = ROOT / "specs" / "vectors" / "deck" / "deck-v1.json"
ZIP_TIME = (2020, 1, 1, 0, 0, 0)
PLACEHOLDER = re.compile(r"@[\w./-]+(:sri)?@")


class BuildError(Exception):
    """The bundle cannot be built; the message says why and what to do (one line)."""


@dataclass
class Built:
    out: Path
    bundle_hash: str
    gzip_bytes: int
    files: int
    rebuilt: bool


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _say(progress: Callable[[str], None] | None, line: str) -> None:
    if progress:
        progress(line)


def _python_sources() -> list[tuple[str, Path]]:
    """(name in the zip, file): protocol/ (code and its data files), the clients/ parts of
    CLIENTS and clients/tab/py."""
    found = []
    tops = [(ROOT / "protocol", "protocol"), *((ROOT / "clients" / part, f"clients/{part}") for part in CLIENTS),
            (SOURCES / "py", "")]
    for top, prefix in tops:
        if top.is_file():
            found.append((prefix, top))
            continue
        for path in sorted(top.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".json", ".toml"):
                rel = path.relative_to(top).as_posix()
                found.append((f"{prefix}/{rel}" if prefix else rel, path))
    found.append(("tab_vectors/deck-v1.json", DECK_VECTORS))
    return found


def inputs_digest() -> str:
    """One digest of everything the bundle is made from (the builder's own code included)."""
    h = hashlib.sha256()
    paths = [SOURCES / "package.json", SOURCES / "package-lock.json", SOURCES / "index.html", SOURCES / "table.html",
             WEB / "index.html", Path(__file__), PYPROJECT, *(SOURCES / name for name in PAGE_FILES),
             *(WEB / name for name in WEB_FILES)]
    items = [(p.relative_to(ROOT).as_posix(), p) for p in paths] + _python_sources()
    for name, path in items:
        h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    h.update(WHEEL_SHA256.encode())
    return h.hexdigest()


def _run(cmd: list[str], cwd: Path, what: str, hint: str) -> None:
    try:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=900)
    except FileNotFoundError:
        raise BuildError(f"{what}: {cmd[0]} is not installed ({hint})") from None
    except subprocess.TimeoutExpired:
        raise BuildError(f"{what}: no answer in 15 minutes ({hint})") from None
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        errors = [line.strip() for line in lines if "error" in line.lower() and not any(
            noise in line for noise in ("complete log", "behind a proxy", "npm help"))]
        raise BuildError(f"{what} failed ({hint}): {' | '.join((errors or lines[-3:])[:3])}")


def npm_install(progress: Callable[[str], None] | None) -> Path:
    """node_modules for the locked packages, in build/tab-cache (again only when the lock changes)."""
    if shutil.which("npm") is None:
        raise BuildError("npm is not installed: install Node.js 18 or later (apt-get install nodejs npm)")
    work = CACHE / "npm"
    lock = (SOURCES / "package-lock.json").read_bytes()
    stamp = work / ".lock-sha256"
    if stamp.exists() and stamp.read_text() == sha256(lock) and (work / "node_modules").is_dir():
        _say(progress, "npm packages: up to date")
        return work / "node_modules"
    _say(progress, "npm packages: installing pyodide, libsodium-wrappers-sumo, mqtt from the npm registry (npm ci)")
    work.mkdir(parents=True, exist_ok=True)
    shutil.copy(SOURCES / "package.json", work / "package.json")
    (work / "package-lock.json").write_bytes(lock)
    _run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], work,
         "npm ci", "is the npm registry reachable? see `npm config get registry`")
    stamp.write_text(sha256(lock))
    return work / "node_modules"


def msgpack_wheel(progress: Callable[[str], None] | None) -> bytes:
    """The pinned msgpack wheel for Pyodide, from PyPI through pip, its SHA-256 checked."""
    path = CACHE / WHEEL
    if path.exists() and sha256(path.read_bytes()) == WHEEL_SHA256:
        _say(progress, f"{WHEEL}: cached")
        return path.read_bytes()
    _say(progress, f"{WHEEL}: downloading from PyPI (pip download, hash pinned)")
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        req = Path(tmp) / "requirements.txt"
        req.write_text(f"{WHEEL_REQUIREMENT} --hash=sha256:{WHEEL_SHA256}\n")
        _run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
              "--only-binary=:all:", *WHEEL_PIP_TAGS, "--require-hashes", "-r", str(req), "-d", tmp], ROOT,
             "pip download msgpack", "is PyPI reachable? see `pip config list`")
        got = Path(tmp) / WHEEL
        if not got.exists():
            raise BuildError(f"pip did not download {WHEEL}")
        data = got.read_bytes()
    if sha256(data) != WHEEL_SHA256:                  # pip checked it too; a second look costs nothing
        raise BuildError(f"{WHEEL}: SHA-256 {sha256(data)} is not the pinned {WHEEL_SHA256}")
    path.write_bytes(data)
    return data


def _dist_info() -> list[tuple[str, bytes]]:
    """The installed-package metadata the tab's Python finds games by: the `caravan.games`
    (and `caravan.presentations`) entry points of pyproject.toml (protocol.games reads them with importlib.metadata, which
    looks for a *.dist-info folder on sys.path, as on the desktop)."""
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    entries = ""
    for group in ("caravan.games", "caravan.presentations"):      # the rules, and the table page's words and pictures
        found = project.get("entry-points", {}).get(group, {})
        entries += f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in sorted(found.items()))
    folder = f"caravan_tab-{project['version']}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: caravan-tab\nVersion: {project['version']}\n"
    return [(f"{folder}/METADATA", meta.encode()), (f"{folder}/entry_points.txt", entries.encode())]


def code_zip() -> bytes:
    """protocol/ and the tab's Python as one zip, byte-identical for identical sources."""
    files = [(name, path.read_bytes()) for name, path in _python_sources()] + _dist_info()
    with tempfile.SpooledTemporaryFile() as buf:
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
            for name, data in files:
                info = zipfile.ZipInfo(name, ZIP_TIME)
                info.external_attr = 0o644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, data)
        buf.seek(0)
        return buf.read()


def bundled_games() -> list[str]:
    """The games of the bundle: pyproject.toml's `caravan.games` (what the tab's Python finds)."""
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    return sorted(project.get("entry-points", {}).get("caravan.games", {}))


def table_page() -> dict[str, bytes]:
    """The table page's files: table.html (clients/tab's head around the desktop page's body),
    the desktop page's app.js and style.css, and games.js for the bundle's games."""
    from clients.table_lines import games_js

    template = (SOURCES / "table.html").read_text()
    desktop = (WEB / "index.html").read_text()
    body = desktop[desktop.index("<body>"):desktop.index("</body>") + len("</body>")]
    start = template.index(TABLE_BODY)
    html = template[:start] + body + template[template.index("-->", start) + 3:]
    return {"table.html": html.encode(), "games.js": games_js(bundled_games()).encode(),
            **{name: (WEB / name).read_bytes() for name in WEB_FILES}}


def hashed_name(name: str, data: bytes) -> str:
    """`dir/stem.ext` -> `dir/stem.<12 hex of SHA-256>.ext` (the first dot splits stem)."""
    folder, _, base = name.rpartition("/")
    stem, dot, ext = base.partition(".")
    named = f"{stem}.{sha256(data)[:12]}{dot}{ext}"
    return f"{folder}/{named}" if folder else named


def _sri(data: bytes) -> str:
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode()


def _npm_sources(node_modules: Path) -> dict[str, str]:
    lock = json.loads((SOURCES / "package-lock.json").read_text())["packages"]
    names = ("pyodide", "libsodium-sumo", "libsodium-wrappers-sumo", "mqtt")
    return {n: f"npm {n}@{lock[f'node_modules/{n}']['version']} {lock[f'node_modules/{n}']['integrity']}"
            for n in names}


def _fill(name: str, text: str, files: dict[str, bytes], entries: dict[str, dict[str, Any]]) -> bytes:
    """`text` with each `@file@` replaced by that file's hashed path and `@file:sri@` by its
    subresource-integrity hash."""
    for other, entry in entries.items():
        if f"@{other}:sri@" in text:
            text = text.replace(f"@{other}:sri@", _sri(files[other]))
        text = text.replace(f"@{other}@", entry["path"])
    left = PLACEHOLDER.search(text)
    if left:
        raise BuildError(f"{name} has a placeholder the builder does not know: {left.group()}")
    return text.encode()


def assemble(files: dict[str, bytes], sources: dict[str, str]) -> tuple[dict[str, bytes], bytes]:
    """(path in build/tab -> bytes, manifest bytes): hashed names, then the files that name
    others (the web app manifest, then index.html) pointing at them."""
    out: dict[str, bytes] = {}
    entries: dict[str, dict[str, Any]] = {}

    def add(name: str, data: bytes, path: str) -> None:
        out[path] = data
        entries[name] = {"path": path, "sha256": sha256(data), "size": len(data)}

    for name in sorted(set(files) - set(FILLED)):
        add(name, files[name], hashed_name(name, files[name]))
    for name in FILLED:
        data = _fill(name, files[name].decode(), files, entries)
        add(name, data, hashed_name(name, data))
    add("index.html", _fill("index.html", (SOURCES / "index.html").read_text(), files, entries), "index.html")
    manifest = {"format": FORMAT, "files": dict(sorted(entries.items())),
                "python": {"wheels": [f"python/{WHEEL}"], "code": CODE}, "sources": sources}
    return out, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode()


def gzip_size(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=6, mtime=0))


def build(progress: Callable[[str], None] | None = print, force: bool = False) -> Built:
    """Build build/tab unless it is up to date; one builder at a time (a lock file)."""
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with open(OUT.parent / ".tab-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        digest = inputs_digest()
        stamp = OUT / ".inputs-sha256"
        if not force and stamp.exists() and stamp.read_text() == digest and (OUT / MANIFEST).exists():
            raw = (OUT / MANIFEST).read_bytes()
            entries = json.loads(raw)["files"].values()
            gz = sum(gzip_size((OUT / e["path"]).read_bytes()) for e in entries) + gzip_size(raw)
            _say(progress, f"build/tab is up to date: {len(entries)} files, {gz / 1e6:.2f} MB gzip; bundle {sha256(raw)}")
            return Built(OUT, sha256(raw), gz, len(entries), False)
        node_modules = npm_install(progress)
        files: dict[str, bytes] = {}
        for name, rel in NPM_FILES.items():
            path = node_modules / rel
            if not path.is_file():
                raise BuildError(f"{rel} is missing from the npm packages (a changed package layout?)")
            files[name] = path.read_bytes()
        files[f"python/{WHEEL}"] = msgpack_wheel(progress)
        _say(progress, "protocol/ and the tab's Python: zipping")
        files[CODE] = code_zip()
        for name in PAGE_FILES:
            files[name] = (SOURCES / name).read_bytes()
        files.update(table_page())
        out, manifest = assemble(files, {**_npm_sources(node_modules), "msgpack": f"PyPI {WHEEL} sha256:{WHEEL_SHA256}"})
        gz = sum(gzip_size(d) for d in out.values()) + gzip_size(manifest)
        if gz > LIMIT_GZIP:
            raise BuildError(f"the bundle is {gz / 1e6:.1f} MB gzip, over the {LIMIT_GZIP / 2**20:.0f} MB limit")
        _write(out, manifest, digest)
        bundle = sha256(manifest)
        _say(progress, f"built build/tab: {len(out)} files, {gz / 1e6:.2f} MB gzip; bundle {bundle}")
        return Built(OUT, bundle, gz, len(out), True)


def _write(out: dict[str, bytes], manifest: bytes, digest: str) -> None:
    """Write into a fresh folder, then swap it in, so a reader never sees half a bundle."""
    fresh = Path(tempfile.mkdtemp(prefix="tab-", dir=OUT.parent))
    fresh.chmod(0o755)                                # mkdtemp's 0700 would hide it from a web server
    for path, data in out.items():
        (fresh / path).parent.mkdir(parents=True, exist_ok=True)
        (fresh / path).write_bytes(data)
    (fresh / MANIFEST).write_bytes(manifest)
    (fresh / ".inputs-sha256").write_text(digest)
    old = OUT.with_name("tab.old")
    shutil.rmtree(old, ignore_errors=True)
    if OUT.exists():
        OUT.rename(old)
    fresh.rename(OUT)
    shutil.rmtree(old, ignore_errors=True)


def ensure_built() -> Built:
    """The bundle, built first if needed, quietly (for tests and `caravan tab --serve`)."""
    return build(progress=None)


def main(argv: Iterable[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        build(progress=lambda line: print(f"make tab: {line}", flush=True), force="--force" in args)
    except BuildError as exc:
        print(f"make tab: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
