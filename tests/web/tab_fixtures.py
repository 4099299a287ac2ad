"""The browser tab's fixtures, shared by tests/web/test_tab.py and test_tab_mail.py: the bundle
built once, `caravan tab --serve` on a free port, a Chromium of its own and the page loaded
once with Python ready in its worker. A test module imports the ones it uses."""

from __future__ import annotations

import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from node.net.relay_url import RelayUrl
from node.tab import build as tab_build
from tests.helpers import missing_system_package, timeout as scaled
from tests.relay.broker import Broker
from tests.relay.netns import forward, namespace
from tests.web.conftest import new_chromium
from tests.web.tab_page import INSTALL, open_tab, tab_server


TCP_PORT, WS_PORT = 1883, 9001
"""A namespaced broker's listeners, inside the test's own namespace: nothing else listens there."""


@contextmanager
def namespaced_broker(work: Path, tag: str, **options) -> Iterator[tuple[RelayUrl, str, Broker]]:
    """Mosquitto in a network namespace of its own (Broker's `options`: users, persistent), as
    (its TCP URL, its ws:// URL, both on the machine's 127.0.0.1, and the broker, to restart). Mosquitto 2.0 binds its
    websockets listener on every address whatever the configuration says (tests/relay/netns.py):
    in the namespace only forwarders on the machine's 127.0.0.1 reach it."""
    with namespace(tag) as prefix:
        b = Broker(work, host="127.0.0.1", port=TCP_PORT, prefix=prefix, websockets_port=WS_PORT, **options).start()
        try:
            with forward(prefix, TCP_PORT) as tcp, forward(prefix, WS_PORT) as ws:
                yield RelayUrl("127.0.0.1", tcp), f"ws://127.0.0.1:{ws}/mqtt", b
        finally:
            b.stop()


@pytest.fixture(scope="session")
def bundle() -> tab_build.Built:
    if shutil.which("npm") is None:
        missing_system_package("npm", INSTALL)
    try:
        return tab_build.ensure_built()
    except tab_build.BuildError as exc:
        missing_system_package(f"the tab bundle ({exc})", INSTALL)


@pytest.fixture(scope="module")
def server(bundle):
    """`caravan tab --serve` on a free port: its URL."""
    with tab_server(bundle.bundle_hash) as url:
        yield url


def _chromium():
    """A Chromium that logs its network requests, with a profile of its own: chromedriver
    gives each session a fresh user-data dir, so two never share IndexedDB or a Web Lock."""
    from tests.web.conftest import find_chromium, INSTALL as CHROMIUM
    if find_chromium() is None:
        missing_system_package("Chromium or its driver", CHROMIUM)
    d = new_chromium(performance=True)
    d.set_script_timeout(scaled(180))
    return d


@pytest.fixture(scope="module")
def driver(bundle):
    """A Chromium of its own (loading Python takes seconds: one page serves every test here)."""
    d = _chromium()
    yield d
    d.quit()


@pytest.fixture(scope="module")
def second_driver(bundle):
    """Another Chromium, for a second tab (a second player): its own profile, as a friend's."""
    d = _chromium()
    yield d
    d.quit()


@pytest.fixture(scope="module")
def tab(driver, server):
    """The tab page loaded once, Python ready in its worker: (driver, what `ready` gave)."""
    ready = open_tab(driver, server)
    assert ready["ok"], ready
    return driver, ready


@pytest.fixture(scope="module")
def second_tab(second_driver, server):
    """The tab page in the second Chromium, Python ready: (driver, what `ready` gave)."""
    ready = open_tab(second_driver, server)
    assert ready["ok"], ready
    return second_driver, ready
