import pytest

from tests.relay.broker import Broker


@pytest.fixture
def broker(tmp_path):
    """A fresh Mosquitto on a free loopback port; `broker.url` is mqtt://127.0.0.1:PORT."""
    b = Broker(tmp_path).start()
    try:
        yield b
    finally:
        b.stop()
