"""The browser-tab bundle (issue 32, first slice): `make tab`'s build/tab in headless Chromium.

Python runs in the tab's Web Worker (Pyodide) with libsodium.js behind the `nacl` shim; there
the project's crypto checks pass with CPython's very answers, the specs/vectors/cli
transcripts get their pinned verdicts, a one-byte-tampered file stops the page, nothing is
fetched from another origin, `caravan tab --check` tells a fresh build from a tampered
copy, and the page is an installable app that opens offline once loaded (its service worker
keeping only checked files). The bundle is built once (node/tab/build.py skips an up-to-date build); building needs
npm and PyPI: locally these tests skip without them, with CI=true they fail."""

from __future__ import annotations

import base64
import functools
import gzip
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import msgpack
import pytest

from node.tab import build as tab_build
from protocol.deck.group import clear_cache
from protocol.identity import SigningKey, fingerprint
from protocol.link.framing import TcpFraming
from protocol.link.handshake import Handshake, hello_signed
from protocol.verify import verify_bytes
from tests.helpers import timeout as scaled
from tests.node.procs import ROOT, env
from tests.security import cli_vectors
from tests.web.tab_fixtures import bundle, driver, server, tab  # noqa: F401 - fixtures
from tests.web.tab_page import CALL, OFFLINE, READY, call, forget_offline_copy, open_tab, tab_module

pytestmark = pytest.mark.xdist_group("tab")


def cpython_checks() -> list[dict]:
    """clients/tab/py/tab_checks.py run by CPython."""
    return tab_module("tab_checks").run(ROOT / "specs" / "vectors" / "deck")


def test_the_bundle_is_hashed_small_and_shows_its_hash(bundle, tab):
    driver, ready = tab
    raw = (bundle.out / tab_build.MANIFEST).read_bytes()
    manifest = json.loads(raw)
    assert ready["bundle"] == bundle.bundle_hash == tab_build.sha256(raw)
    assert driver.find_element("id", "bundle-hash").text == bundle.bundle_hash
    for name, entry in manifest["files"].items():
        data = (bundle.out / entry["path"]).read_bytes()
        assert tab_build.sha256(data) == entry["sha256"], name
        if name != "index.html":
            assert entry["sha256"][:12] in entry["path"], f"{name}: not a content-hashed name"
    assert sorted(n for n in manifest["files"] if n.startswith("pyodide/")) == sorted(
        f"pyodide/{f}" for f in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                                 "pyodide-lock.json"))
    total = sum(len(gzip.compress((bundle.out / e["path"]).read_bytes())) for e in manifest["files"].values())
    assert total <= 8 * 1024 * 1024, f"{total / 1e6:.1f} MB gzip"
    assert ready["info"]["python"].startswith("3.") and ready["info"]["msgpack_c"]
    print(f"tab cold load {ready['loadMs'] / 1000:.1f} s, bundle {total / 1e6:.2f} MB gzip")


def test_the_crypto_checks_pass_inside_the_tab_with_cpythons_answers(tab):
    driver, _ = tab
    answer = call(driver, "selftest")
    tab_checks = answer["result"]["checks"]
    assert [c for c in tab_checks if not c["ok"]] == []
    desktop = cpython_checks()
    assert [c for c in desktop if not c["ok"]] == []
    assert tab_checks == desktop                   # same checks, same signatures, same proofs
    assert {c["name"] for c in tab_checks} >= {"strict keys", "forged signatures refused", "deck proofs accepted",
                                                "tampered deck proofs refused"}
    # Python ran in the worker: the page's own timers kept firing while it worked
    assert answer["ms"] > 50 and answer["ticks"] >= 3, answer


def test_the_self_test_fails_on_a_lax_library(monkeypatch, tmp_path):
    """The checks check something: a library that accepts any signature, one that also takes
    small-order points for keys, or deck vectors with a bad proof, fail them (run by CPython,
    on the same module the tab runs)."""
    import nacl.bindings
    monkeypatch.setattr(nacl.bindings, "crypto_sign_open", lambda signed, pk: signed[64:])
    failed = {c["name"] for c in cpython_checks() if not c["ok"]}
    assert failed == {"signatures"}                 # weak keys are still refused before the check
    monkeypatch.setattr(nacl.bindings, "crypto_core_ed25519_is_valid_point", lambda p: True)
    failed = {c["name"] for c in cpython_checks() if not c["ok"]}
    assert {"strict keys", "forged signatures refused", "signatures"} <= failed
    monkeypatch.undo()
    clear_cache()                                   # the lax library's "valid" points are forgotten
    vectors = json.loads((ROOT / "specs" / "vectors" / "deck" / "deck-v1.json").read_text())
    proof = vectors["shuffles"][0]["proof"]
    proof[3] = proof[4]
    (tmp_path / "deck-v1.json").write_text(json.dumps(vectors))
    failed = {c["name"] for c in tab_module("tab_checks").run(tmp_path) if not c["ok"]}
    assert failed == {"deck proofs accepted"}


@pytest.mark.parametrize("name", sorted(cli_vectors.PINNED) if hasattr(cli_vectors, "PINNED")
                         else sorted(json.loads(cli_vectors.VERDICTS.read_text())))
def test_cli_vectors_get_their_pinned_verdicts_in_the_tab(tab, name):
    driver, _ = tab
    data = (cli_vectors.DIR / name).read_bytes()
    report = call(driver, "verify", data)["result"]["report"]
    assert report == verify_bytes(data).to_json()                   # identical to CPython's, all of it
    pinned = json.loads(cli_vectors.VERDICTS.read_text())[name]
    assert {k: report[k] for k in cli_vectors.KEEP} == pinned


def test_bad_input_is_a_clear_error_not_a_traceback(tab):
    driver, _ = tab
    answer = driver.execute_async_script(CALL, "nonsense", None)
    assert not answer["ok"] and "unknown op 'nonsense'" in answer["error"] and "Traceback" not in answer["error"]
    report = call(driver, "verify", b"not a transcript")["result"]["report"]
    assert report["valid"] is False and report["error"]["code"] == "unreadable"


def test_the_tab_completes_a_handshake_with_a_desktop_state_machine(tab):
    """The transport-free link core (protocol/link) runs in the tab's Pyodide on libsodium.js:
    a desktop-side Handshake, fed the very bytes the tab sends, proves the tab's fresh key and
    is proven to it; sealed frames then go both ways. A tampered sealed frame and a forged
    hello are refused in the tab, each naming its cause (and the key the hello claims)."""
    driver, _ = tab
    scope, link = os.urandom(32), b"desk/tab/1"
    desk = Handshake(SigningKey.generate(), scope, dialer=True, now=0.0, timeout=30.0, link=link)
    wire = TcpFraming()
    started = call(driver, "link_start", msgpack.packb({"scope": scope, "link": link}))["result"]
    answer = call(driver, "link_feed", wire.frame(desk.hello))["result"]
    wire.feed(bytes.fromhex(started["send"]) + bytes.fromhex(answer["send"]))   # the tab's hello, then its auth
    [auth] = desk.receive(wire.next(), 1.0)
    assert desk.receive(wire.next(), 2.0) == [] and desk.peer_key.hex() == started["key"]
    sent = wire.frame(auth)
    wire.seal(desk.push, desk.pull)
    answer = call(driver, "link_feed", sent + wire.frame({"n": 1}) + wire.frame({"n": [2, b"x"]}))["result"]
    assert answer["step"] == "done" and answer["peer"] == fingerprint(desk.key.public)
    wire.feed(bytes.fromhex(answer["send"]))
    assert [wire.next(), wire.next()] == [{"echo": {"n": 1}}, {"echo": {"n": [2, b"x"]}}]
    tampered = bytearray(wire.frame({"n": 3}))
    tampered[-1] ^= 1
    refused = driver.execute_async_script(CALL, "link_feed", base64.b64encode(bytes(tampered)).decode())
    assert not refused["ok"] and "fails authentication" in refused["error"], refused
    assert "Traceback" not in refused["error"]

    call(driver, "link_start", msgpack.packb({"scope": scope, "link": link}))
    claimed, signer = SigningKey.generate(), SigningKey.generate()
    hello = dict(desk.hello, key=claimed.public)
    hello["sig"] = signer.sign(hello_signed("dialer", scope, link, hello))
    refused = driver.execute_async_script(CALL, "link_feed", base64.b64encode(TcpFraming().frame(hello)).decode())
    assert not refused["ok"] and f"not signed by its key {fingerprint(claimed.public)}" in refused["error"], refused


def test_the_tab_fetches_only_from_its_own_origin(tab, server):
    driver, _ = tab
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    urls += call(driver, "resources")["result"]                        # the worker's own fetches
    assert any(u.endswith(".asm.wasm") for u in urls) and any(u.endswith(".whl") for u in urls), urls
    assert [u for u in urls if not u.startswith((server, "blob:", "data:"))] == []
    # and the page's Content-Security-Policy refuses another origin (here: the same server by
    # another name), for the page and so for the worker made from it ("no-cors": CORS alone
    # would let this request go out)
    other = server.replace("127.0.0.1", "localhost") + "manifest.json"
    refused = driver.execute_async_script("""const done = arguments[arguments.length - 1];
        fetch(arguments[0], {mode: "no-cors"}).then(() => done("fetched"), (e) => done("refused: " + e));""", other)
    assert refused.startswith("refused"), refused


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@dataclass
class Copy:
    folder: Path
    url: str
    tamper: Callable[[str], str]           # one byte of the file the manifest names: its path
    stop: Callable[[], None]               # the server goes away (a browser that is offline)


@pytest.fixture
def tampered(bundle, tmp_path):
    """A copy of the bundle, served by a plain static server that the test may stop, and a
    function changing one byte of one file (manifest untouched)."""
    copy = tmp_path / "tab"
    shutil.copytree(bundle.out, copy)
    files = json.loads((copy / tab_build.MANIFEST).read_text())["files"]

    def tamper(name: str) -> str:
        path = copy / files[name]["path"]
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0x20
        path.write_bytes(bytes(data))
        return files[name]["path"]

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(copy)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()

    def stop() -> None:
        if httpd.socket.fileno() != -1:
            httpd.shutdown()
            httpd.server_close()
    try:
        yield Copy(copy, f"http://127.0.0.1:{httpd.server_address[1]}/", tamper, stop)
    finally:
        stop()


@pytest.mark.parametrize("name", ["worker.js", "pyodide/pyodide.asm.wasm", "python/caravan.zip"])
def test_the_page_refuses_a_tampered_file(driver, tampered, name):
    path = tampered.tamper(name)
    driver.get(tampered.url)
    ready = driver.execute_async_script(READY)
    assert not ready["ok"] and f"{path} was tampered with" in ready["error"], ready
    assert "Refused" in driver.find_element("id", "status").text and path in driver.find_element("id", "status").text


def test_the_tab_is_an_installable_app(bundle, driver, server):
    files = json.loads((bundle.out / tab_build.MANIFEST).read_text())["files"]
    app = json.loads((bundle.out / files["app.webmanifest"]["path"]).read_text())
    sizes = {icon["sizes"]: icon["src"] for icon in app["icons"]}
    assert sizes == {"192x192": files["icon-192.png"]["path"], "512x512": files["icon-512.png"]["path"]}
    for size, src in sizes.items():
        png = (bundle.out / src).read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and f"{int.from_bytes(png[16:20], 'big')}x{int.from_bytes(png[20:24], 'big')}" == size
    assert app["start_url"] == "./" and app["display"] == "standalone"
    assert open_tab(driver, server)["ok"]
    offline = driver.execute_async_script(OFFLINE)                       # its service worker is active
    assert offline["ok"], offline
    errors = driver.execute_cdp_cmd("Page.getInstallabilityErrors", {})["installabilityErrors"]
    assert errors == []                                                   # Chromium would offer to install it


def test_the_tab_opens_offline_once_loaded(driver, tampered):
    """Loaded once, the server gone: the page still loads, shows the same bundle and runs Python."""
    first = open_tab(driver, tampered.url)
    assert first["ok"], first
    try:
        offline = driver.execute_async_script(OFFLINE)
        assert offline == {"ok": True, "bundle": first["bundle"]}, offline
        assert "Kept for offline use" in driver.find_element("id", "offline").text
        tampered.stop()
        again = open_tab(driver, tampered.url)
        assert again["ok"], again
        assert again["bundle"] == first["bundle"] == driver.find_element("id", "bundle-hash").text
        assert driver.execute_script("return navigator.serviceWorker.controller !== null")   # served by its copy
        report = call(driver, "verify", (cli_vectors.DIR / "sabbat-2p.caravan").read_bytes())["result"]["report"]
        assert report["valid"] and report["complete"]
        assert "Kept for offline use" in driver.find_element("id", "offline").text
    finally:
        forget_offline_copy(driver)


def test_the_offline_copy_refuses_a_tampered_file(driver, tampered):
    path = tampered.tamper("pyodide/python_stdlib.zip")
    driver.get(tampered.url)
    try:
        offline = driver.execute_async_script(OFFLINE)
        assert not offline["ok"] and f"{path} was tampered with" in offline["error"], offline
        assert path in driver.find_element("id", "offline").text
        kept = driver.execute_async_script("caches.keys().then(arguments[arguments.length - 1]);")
        assert [k for k in kept if k.startswith("caravan-tab-")] == []          # nothing kept of it
    finally:
        forget_offline_copy(driver)


def caravan_tab(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "node", "tab", *args], capture_output=True, text=True, env=env(),
                          cwd=ROOT, timeout=scaled(120))


def test_caravan_tab_check_accepts_a_fresh_build(bundle, server):
    for target in (str(bundle.out), server):
        done = caravan_tab("--check", target)
        assert done.returncode == 0, done.stderr
        assert f"IDENTICAL: {target} is the local build, bundle {bundle.bundle_hash}" in done.stdout


def test_caravan_tab_check_refuses_a_tampered_copy_naming_the_file(tampered):
    path = tampered.tamper("pyodide/python_stdlib.zip")
    for target in (str(tampered.folder), tampered.url):
        done = caravan_tab("--check", target)
        assert done.returncode == 1, done.stderr
        assert "DIFFERENT" in done.stdout and path in done.stdout and "pyodide/python_stdlib.zip" in done.stdout
    report = json.loads(caravan_tab("--check", str(tampered.folder), "--json").stdout)
    assert not report["ok"] and [d["path"] for d in report["differs"]] == [path]


def test_caravan_tab_check_of_nothing_is_one_clear_line(bundle, tmp_path):
    done = caravan_tab("--check", str(tmp_path / "nowhere"))
    assert done.returncode == 2 and "neither a folder nor an http(s) URL" in done.stderr
    assert "Traceback" not in done.stderr
    done = caravan_tab("--check", "http://127.0.0.1:9/")
    assert done.returncode == 2 and "cannot reach http://127.0.0.1:9/" in done.stderr and "Traceback" not in done.stderr


def test_caravan_tab_serve_on_a_busy_port_is_one_clear_line(bundle):
    import socket
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        done = caravan_tab("--serve", "--port", str(busy.getsockname()[1]), "--json")
    assert done.returncode == 2 and "cannot serve on 127.0.0.1:" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
