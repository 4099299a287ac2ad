"""node/tab/build.py (`make tab`) without a browser: clear one-line errors when npm, the npm
registry or PyPI is missing, a deterministic code zip with what the tab needs and nothing
else, and content-hashed names. (The built bundle itself: tests/web/test_tab.py.)"""

from __future__ import annotations

import io
import json
import shutil
import zipfile

import pytest

from node.tab import build as tab_build
from tests.helpers import missing_system_package


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """A builder with nothing cached: its own cache and output folders, npm's cache too."""
    monkeypatch.setattr(tab_build, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(tab_build, "OUT", tmp_path / "out" / "tab")
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    return tmp_path


def test_without_npm_the_build_says_what_to_install(fresh_cache, monkeypatch):
    monkeypatch.setattr(tab_build.shutil, "which", lambda name: None)
    with pytest.raises(tab_build.BuildError, match="npm is not installed: install Node.js"):
        tab_build.build(progress=None)


def test_an_unreachable_npm_registry_is_one_clear_error(fresh_cache, monkeypatch, capsys):
    if shutil.which("npm") is None:
        missing_system_package("npm", "apt-get install nodejs npm")
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    monkeypatch.setenv("npm_config_fetch_timeout", "2000")
    assert tab_build.main([]) == 1
    out, err = capsys.readouterr()
    assert "make tab: npm packages: installing" in out                     # progress lines
    assert len(err.strip().splitlines()) == 1 and "npm ci failed (is the npm registry reachable?" in err


def test_an_unreachable_pypi_is_one_clear_error(fresh_cache, monkeypatch):
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", "")
    monkeypatch.setenv("PIP_FIND_LINKS", "")
    monkeypatch.setenv("PIP_RETRIES", "0")
    monkeypatch.setenv("PIP_TIMEOUT", "2")
    monkeypatch.setenv("PIP_NO_CACHE_DIR", "1")
    with pytest.raises(tab_build.BuildError, match=r"pip download msgpack failed \(is PyPI reachable\?"):
        tab_build.msgpack_wheel(progress=None)


def test_the_code_zip_is_deterministic_and_holds_what_the_tab_imports():
    first, second = tab_build.code_zip(), tab_build.code_zip()
    assert first == second
    names = zipfile.ZipFile(io.BytesIO(first)).namelist()
    for needed in ("protocol/verify.py", "protocol/deck/group.py", "protocol/games/sare/engine.py",
                   "nacl/bindings.py", "nacl/exceptions.py", "tab_worker.py", "tab_checks.py",
                   "tab_vectors/deck-v1.json"):
        assert needed in names
    assert any(n.startswith("protocol/games/") and n.endswith(".json") for n in names)   # the games' data
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)


def test_hashed_names_carry_the_content_hash():
    data = b"x"
    h = tab_build.sha256(data)[:12]
    assert tab_build.hashed_name("pyodide/pyodide.asm.wasm", data) == f"pyodide/pyodide.{h}.asm.wasm"
    assert tab_build.hashed_name("worker.js", data) == f"worker.{h}.js"


def page_files() -> dict[str, bytes]:
    """The bundle's page files as the builder gathers them: clients/tab's and the table page's."""
    return {**{name: (tab_build.SOURCES / name).read_bytes() for name in tab_build.PAGE_FILES}, **tab_build.table_page()}


def test_files_that_name_others_point_at_their_hashed_names():
    files = page_files()
    out, manifest = tab_build.assemble(files, {})
    entries = json.loads(manifest)["files"]
    app = json.loads(out[entries["app.webmanifest"]["path"]])
    assert [icon["src"] for icon in app["icons"]] == [entries["icon-192.png"]["path"], entries["icon-512.png"]["path"]]
    page = out["index.html"].decode()
    for name in ("tab.js", "tab.css", "app.webmanifest", "icon-192.png"):
        assert f'"{entries[name]["path"]}"' in page
    assert tab_build.PLACEHOLDER.search(page) is None
    table = out[entries["table.html"]["path"]].decode()
    for name in ("python.js", "table.js", "style.css"):
        assert f'"{entries[name]["path"]}"' in table
    assert tab_build.PLACEHOLDER.search(table) is None and 'id="board"' in table   # the desktop page's body


def test_an_unknown_placeholder_is_refused():
    files = page_files()
    files["app.webmanifest"] = b'{"icons": [{"src": "@nothing.png@"}]}'
    with pytest.raises(tab_build.BuildError, match="app.webmanifest has a placeholder the builder does not know: @nothing.png@"):
        tab_build.assemble(files, {})
