"""Argument checks for the command line, run before anything starts: each failure is a
UsageError whose message is one line naming the problem (the CLI prints it and exits 2)."""

from __future__ import annotations

import argparse
import ipaddress
import shlex
import shutil
from typing import Any

from clients import game_options
from protocol import engine as E, games

DISCOVERY_PORT = 47474
"""The UDP port of lobby announcements (node.discovery's, without importing trio here)."""


class UsageError(ValueError):
    """A bad argument: one line, exit 2."""


def port_number(text: str) -> int:
    """argparse type for a TCP/UDP port: 0-65535 (0: any free port)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0-65535)") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is out of range (0-65535)")
    return port


def udp_port(text: str) -> int:
    """argparse type for the discovery port: 1-65535 (announcements need a fixed port)."""
    port = port_number(text)
    if port == 0:
        raise argparse.ArgumentTypeError("the discovery port must be 1-65535, not 0")
    return port


def _number(text: str, convert, minimum: float, what: str):
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
    if not minimum <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} must be {what} >= {minimum:g}")
    return value


def seconds(text: str) -> float:
    """argparse type for a duration: a number >= 0."""
    return _number(text, float, 0, "a number of seconds")


def whole_seconds(text: str) -> int:
    """argparse type for a whole number of seconds >= 0."""
    return _number(text, int, 0, "a whole number of seconds")


MIN_MOVE_TIME, MAX_MOVE_TIME = 3600, 14 * 86400
"""A turn-based table's time per move, as a person may set it (the protocol allows shorter, for tests)."""
DEFAULT_MOVE_TIME = 86400
_UNITS = {"m": 60, "h": 3600, "d": 86400}


def move_time(text: str) -> int:
    """argparse type for --move-time: a whole number and a unit, 90m, 24h or 3d (1h to 14d),
    in seconds."""
    raw = str(text).strip().lower()
    number, unit = raw[:-1], raw[-1:]
    if unit not in _UNITS or not number.isdigit() or not number.isascii():
        raise argparse.ArgumentTypeError(f"{str(text)[:20]!r} is not a time per move: write it as 90m, 24h or 3d")
    seconds = int(number) * _UNITS[unit]
    if not MIN_MOVE_TIME <= seconds <= MAX_MOVE_TIME:
        raise argparse.ArgumentTypeError(f"a time per move of {raw} is out of range: 1h to 14d")
    return seconds


def count(text: str) -> int:
    """argparse type for a count >= 1."""
    return _number(text, int, 1, "a whole number")


def ipv4(text: str) -> str:
    """argparse type for an IPv4 address (where announcements go)."""
    try:
        return str(ipaddress.IPv4Address(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an IPv4 address") from None


def host_port(text: str) -> tuple[str, int]:
    """HOST:PORT or [IPv6]:PORT -> (host, port); raises UsageError."""
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep or not rest.startswith(":"):
            raise UsageError(f"{text!r}: write an IPv6 address as [ADDRESS]:PORT")
        port_s = rest[1:]
        try:
            ipaddress.IPv6Address(host.split("%")[0])
        except ValueError:
            raise UsageError(f"{text!r}: {host!r} is not an IPv6 address") from None
    else:
        host, _, port_s = text.rpartition(":")
        if ":" in host:
            raise UsageError(f"{text!r}: write an IPv6 address as [ADDRESS]:PORT")
    if not host:
        raise UsageError(f"{text!r}: HOST:PORT needs a host")
    if not port_s.isdigit() or not 1 <= int(port_s) <= 65535:
        raise UsageError(f"{text!r}: the port must be a number 1-65535, not {port_s!r}")
    return host, int(port_s)


def relay(url: str | None, auth_file: str | None) -> Any:
    """--relay mqtt[s]://[USER:PASSWORD@]HOST[:PORT] with --relay-auth FILE's credentials: a
    relay_url.RelayUrl, or None without --relay."""
    from ..net.relay_url import parse_relay_url, read_auth_file, with_auth

    try:
        if auth_file is not None:
            read_auth_file(auth_file)            # checked now, also for join and resume
        return None if url is None else with_auth(parse_relay_url(url), auth_file)
    except ValueError as exc:
        raise UsageError(str(exc) if str(exc).startswith("--") else f"--relay {exc}") from None


def tab(url: str | None, relay: Any) -> str | None:
    """--tab URL: the browser tab's address, checked now (an http(s) URL; a broker a tab
    reaches: --relay ws:// or wss://); None without --tab."""
    from protocol.link.relay_url import tab_address

    if url is None:
        return None
    if relay is None or not relay.websockets:
        raise UsageError("--tab needs --relay ws://HOST:PORT or wss://... (a tab reaches a broker by its websockets "
                         "listener only)")
    try:
        return tab_address(url)
    except ValueError as exc:
        raise UsageError(f"--tab: {exc}") from None


def invite(text: str, auth_file: str | None) -> Any:
    """A join target that is an invite (caravan+mqtt://HOST:PORT/LOBBY_ID/HOST_KEY): its broker, with
    --relay-auth FILE's credentials."""
    from ..net.relay_url import parse_invite, with_auth

    try:
        return with_auth(parse_invite(text).url, auth_file)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def join_target(text: str | None) -> str | None:
    """A join target: HOST:PORT (checked, returned as host:port for the runner), an invite
    (caravan+mqtt://..., checked by `invite`), a lobby id prefix (hex), or None for the only
    open lobby; the first and the last may end with /KEY (the host's key pin, checked)."""
    if text is None:
        return None
    if text.startswith("caravan+") or "://" in text:
        from ..net.relay_url import parse_invite
        try:
            parse_invite(text)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        return text
    from ..app.lobby import split_host_key
    try:
        text, pin = split_host_key(text)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    key = f"/{pin.hex()}" if pin is not None else ""
    if ":" in text:
        host, port = host_port(text)
        return (f"[{host}]:{port}" if ":" in host else f"{host}:{port}") + key
    try:
        bytes.fromhex(text if len(text) % 2 == 0 else text + "0")
    except ValueError:
        raise UsageError(f"{text!r} is neither HOST:PORT nor a lobby id (hex) from caravan discover") from None
    return text.lower() + key


def game_id_prefix(text: str) -> str:
    try:
        bytes.fromhex(text if len(text) % 2 == 0 else text + "0")
    except ValueError:
        raise UsageError(f"{text!r} is not a game id (hex; caravan games lists them)") from None
    if not text:
        raise UsageError("give a game id (caravan games lists them)")
    return text.lower()


def client(text: str | None) -> str | None:
    """--client terminal | web | stdio | tcp:PORT."""
    if text is None or text in ("terminal", "web", "stdio"):
        return text
    kind, sep, port = text.partition(":")
    if kind != "tcp" or not sep:
        raise UsageError(f"--client {text!r}: choose terminal, web, stdio or tcp:PORT")
    try:
        port_number(port)
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"--client {text!r}: {exc}") from None
    return text


def bot_command(text: str | None) -> str | None:
    """--bot-cmd: a command line whose program exists and is executable."""
    if text is None:
        return None
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise UsageError(f"--bot-cmd {text!r}: {exc}") from None
    if not argv:
        raise UsageError("--bot-cmd is empty")
    if shutil.which(argv[0]) is None:
        raise UsageError(f"--bot-cmd: program {argv[0]!r} not found or not executable")
    return text


def decider(args: argparse.Namespace) -> None:
    chosen = [x for x in (args.bot, args.bot_cmd, args.client) if x]
    if len(chosen) != 1:
        raise UsageError("choose exactly one way to decide for this seat: --bot random|heuristic|search, "
                         "--bot-cmd COMMAND, or --client web|terminal|stdio|tcp:PORT")
    client(args.client)
    bot_command(args.bot_cmd)


def engine(name: str) -> E.Engine:
    try:
        return games.get(name)
    except KeyError:
        raise UsageError(f"unknown game {name!r}; choose one of: {', '.join(games.names())}") from None


def players(eng: E.Engine, n: int) -> int:
    if not eng.min_players <= n <= eng.max_players:
        raise UsageError(f"{eng.title} is for {eng.min_players}-{eng.max_players} players, not {n}")
    return n


def options(eng: E.Engine, pairs: list[str], n: int) -> dict[str, Any]:
    """The engine's defaults overridden by KEY=VALUE, checked by the engine (clients.game_options)."""
    try:
        return game_options.parse(eng, pairs, n)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def typed_options(eng: E.Engine, values: dict[str, Any], n: int) -> dict[str, Any]:
    """The engine's defaults overridden by typed values (the home's controls), checked by the
    engine (clients.game_options.typed)."""
    try:
        return game_options.typed(eng, values, n)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
