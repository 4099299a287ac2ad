"""Relay URLs and invites: what parses, and a one-line error (exit 2 from the CLI, before
anything starts) for everything that does not."""

import subprocess
import sys
from urllib.parse import unquote

import pytest

from node.net.relay_url import Invite, RelayUrl, parse_invite, parse_relay_url, with_auth
from protocol.link.relay_url import tab_link
from tests.games.pick import some_game
from tests.helpers import timeout
from tests.node.procs import ROOT, env

LOBBY = "0123456789abcdef0123456789abcdef"
GAME = some_game(players=3)
PIN = bytes(range(16))
KEY = PIN.hex()


@pytest.mark.parametrize("text, url", [
    ("mqtt://broker.example", RelayUrl("broker.example", 1883)),
    ("mqtt://10.0.0.7:1999", RelayUrl("10.0.0.7", 1999)),
    ("mqtt://10.0.0.7:1999/", RelayUrl("10.0.0.7", 1999)),
    ("mqtts://broker.example", RelayUrl("broker.example", 8883, tls=True)),
    ("mqtt://ann:s%40cret@127.0.0.1:1883", RelayUrl("127.0.0.1", 1883, False, "ann", "s@cret")),
    ("mqtt://[::1]:1884", RelayUrl("::1", 1884)),
    ("ws://127.0.0.1:9001", RelayUrl("127.0.0.1", 9001, websockets=True)),
    ("ws://127.0.0.1:9001/mqtt", RelayUrl("127.0.0.1", 9001, websockets=True)),
    ("wss://ann:pw@broker.example", RelayUrl("broker.example", 443, True, "ann", "pw", websockets=True)),
    ("ws://broker.example", RelayUrl("broker.example", 80, websockets=True)),
])
def test_good_relay_urls(text, url):
    assert parse_relay_url(text) == url


def test_the_url_text_never_shows_the_password():
    url = parse_relay_url("mqtt://ann:secret@h:1")
    assert "secret" not in str(url) and "secret" not in url.invite(LOBBY, PIN)
    assert parse_relay_url(url.with_credentials()) == url


@pytest.mark.parametrize("text, says", [
    ("http://broker:1883", "must start with mqtt:// or mqtts://"),
    ("broker:1883", "must start with"),
    ("mqtt://", "needs a host"),
    ("mqtt://broker:notaport", "port"),
    ("mqtt://broker:99999", "port"),
    ("mqtt://broker:0", "1-65535"),
    ("mqtt://broker:1883/lobby", "no path"),
    ("mqtt://broker:1883?x=1", "no ?query"),
    ("mqtt://broker:1883/mqtt", "no path"),               # the websockets path is for ws:// only
    ("ws://broker:9001/other", "no path"),
    ("http://broker:9001", "must start with mqtt:// or mqtts:// or ws:// or wss://"),
])
def test_bad_relay_urls(text, says):
    with pytest.raises(ValueError) as exc:
        parse_relay_url(text)
    assert says in str(exc.value) and "\n" not in str(exc.value)


def test_invites_round_trip():
    for url in (RelayUrl("10.1.2.3", 1883), RelayUrl("b.example", 8883, tls=True), RelayUrl("::1", 5),
                RelayUrl("h", 9001, websockets=True), RelayUrl("h", 443, tls=True, websockets=True)):
        assert parse_invite(url.invite(LOBBY, PIN)) == Invite(url, LOBBY, PIN)
    assert RelayUrl("10.1.2.3", 1883).invite(LOBBY, PIN) == f"caravan+mqtt://10.1.2.3:1883/{LOBBY}/{KEY}"
    assert parse_invite(f"caravan+mqtt://h:1/{LOBBY.upper()}/{KEY.upper()}/").host_pin == PIN
    assert RelayUrl("h", 9001, websockets=True).invite(LOBBY, PIN) == f"caravan+ws://h:9001/{LOBBY}/{KEY}"


@pytest.mark.parametrize("text, says", [
    (f"caravan+http://h:1/{LOBBY}", "must start with caravan+mqtt:// or caravan+mqtts:// or caravan+ws://"),
    ("caravan+mqtt://h:1/", "LOBBY_ID"),
    ("caravan+mqtt://h:1/abc", "LOBBY_ID"),
    (f"caravan+mqtt://h:1/{LOBBY[:-1]}z", "LOBBY_ID"),
    (f"caravan+mqtt://h:70000/{LOBBY}/{KEY}", "port"),
    (f"caravan+mqtt://h:1/{LOBBY}", "names no host key (an invite of an older Caravan"),
    (f"caravan+mqtt://h:1/{LOBBY}/{KEY[:-2]}", "the host's key must be 32 hex digits"),
    (f"caravan+mqtt://h:1/{LOBBY}/{KEY[:-1]}g", "the host's key must be 32 hex digits"),
    (f"caravan+mqtt://h:1/{LOBBY}/{KEY}/x", "LOBBY_ID/HOST_KEY"),
])
def test_bad_invites(text, says):
    with pytest.raises(ValueError) as exc:
        parse_invite(text)
    assert says in str(exc.value) and "\n" not in str(exc.value)


def test_a_tab_link_opens_the_tab_with_the_invite_filled_in():
    invite = parse_relay_url("ws://broker.example.org:9001").invite("ab" * 16, bytes(range(16)))
    link = tab_link("https://tab.example.org/", invite)
    assert link == "https://tab.example.org/#invite=" + invite.replace(":", "%3A").replace("/", "%2F").replace("+", "%2B")
    assert parse_invite(unquote(link.split("#invite=", 1)[1])).lobby == "ab" * 16
    with pytest.raises(ValueError, match="websockets listener only"):
        tab_link("https://tab.example.org/", parse_relay_url("mqtt://broker.example.org").invite("ab" * 16, bytes(16)))
    for bad in ("tab.example.org", "ftp://tab.example.org/", "https://tab.example.org/#x", "https://"):
        with pytest.raises(ValueError, match="is not a tab's address"):
            tab_link(bad, invite)


def test_relay_auth_file(tmp_path):
    auth = tmp_path / "auth"
    auth.write_text("bob:pa:ss\n")
    assert with_auth(parse_relay_url("mqtt://h"), str(auth)) == RelayUrl("h", 1883, False, "bob", "pa:ss")
    auth.write_text("no colon here\n")
    with pytest.raises(ValueError, match="USER:PASSWORD"):
        with_auth(parse_relay_url("mqtt://h"), str(auth))


def _caravan(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "node", *args], capture_output=True, text=True, env=env(),
                          cwd=ROOT, timeout=timeout(60))


@pytest.mark.parametrize("args, says", [
    (["host", GAME, "--players", "3", "--bot", "random", "--relay", "http://h:1"], "mqtt://"),
    (["host", GAME, "--players", "3", "--bot", "random", "--relay", "mqtt://h:99999"], "port"),
    (["host", GAME, "--players", "3", "--bot", "random", "--relay", "mqtt://h",
      "--relay-auth", "/no/such/file"], "--relay-auth"),
    (["join", "caravan+mqtt://h:1/abc", "--bot", "random"], "LOBBY_ID"),
    (["join", f"caravan+ftp://h:1/{LOBBY}", "--bot", "random"], "caravan+mqtt://"),
    (["join", f"caravan+mqtt://h:1/{LOBBY}", "--bot", "random"], "names no host key"),
    (["join", "127.0.0.1:4000/abc", "--bot", "random"], "the host's key must be 32 hex digits"),
    (["resume", "abcd", "--bot", "random", "--relay", "mqtt:/h"], "needs a host"),
])
def test_the_cli_refuses_bad_urls_in_one_line_with_exit_2(tmp_path, args, says):
    proc = _caravan(*args, "--data-dir", str(tmp_path))
    assert proc.returncode == 2, proc.stderr
    assert says in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not (tmp_path / "games").exists()


def test_joining_a_broker_that_is_not_there_fails_in_one_line(tmp_path):
    from tests.relay.broker import free_port
    proc = _caravan("join", f"caravan+mqtt://127.0.0.1:{free_port()}/{LOBBY}/{KEY}", "--bot", "random",
                    "--data-dir", str(tmp_path))
    assert proc.returncode == 1, proc.stderr
    assert "cannot reach the broker mqtt://127.0.0.1:" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_joining_a_lobby_that_is_not_there_fails_in_one_line(tmp_path, broker):
    proc = _caravan("join", f"caravan+mqtt://127.0.0.1:{broker.port}/{LOBBY}/{KEY}", "--bot", "random",
                    "--data-dir", str(tmp_path), "--join-timeout", "8")
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    # it said what it waited for while it asked again, then gave up after --join-timeout in one line
    assert any("waiting for the lobby's host" in line and "asking again" in line for line in lines), proc.stderr
    assert "no lobby answered in 8 s" in lines[-1] and "--join-timeout" in lines[-1], proc.stderr
    assert "Traceback" not in proc.stderr
