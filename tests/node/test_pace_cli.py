"""`caravan host --pace turn-based --move-time 24h` (issue 33): the flags are read into the
pace and the time limit the genesis will carry, and a bad combination or value is one line
on stderr, exit 2, before anything starts."""

from __future__ import annotations

import argparse

import pytest

from node.cli import main as cli, checks as check

DECIDE = ["--bot", "random", "--no-discovery", "--port", "0"]


def _pace(*flags: str) -> tuple[str, int]:
    args = cli.build_parser().parse_args(["host", "fixture", "--players", "2", *DECIDE, *flags])
    return cli.table_pace(args)


@pytest.mark.parametrize("text,seconds", [("90m", 5400), ("24h", 86400), ("3d", 259200), ("1h", 3600),
                                          ("14d", 14 * 86400), ("336h", 14 * 86400), (" 2D ", 2 * 86400)])
def test_a_move_time_is_read_with_its_unit(text, seconds):
    assert check.move_time(text) == seconds


@pytest.mark.parametrize("text,why", [("59m", "out of range: 1h to 14d"), ("15d", "out of range: 1h to 14d"),
                                      ("0h", "out of range"), ("24", "write it as 90m, 24h or 3d"),
                                      ("h", "write it as"), ("1.5d", "write it as"), ("-2h", "write it as"),
                                      ("24 hours", "write it as"), ("²h", "write it as")])
def test_a_bad_move_time_says_how_to_write_it(text, why):
    with pytest.raises(argparse.ArgumentTypeError, match=why):
        check.move_time(text)


def test_the_flags_give_the_pace_and_the_limit():
    assert _pace() == ("live", 300)                                 # today's default, unchanged
    assert _pace("--time-limit", "60") == ("live", 60)
    assert _pace("--time-limit", "0") == ("live", 0)
    assert _pace("--pace", "live") == ("live", 300)
    assert _pace("--pace", "turn-based") == ("turn-based", 86400)   # 24 h by default
    assert _pace("--pace", "turn-based", "--move-time", "3d") == ("turn-based", 3 * 86400)


@pytest.mark.parametrize("flags,why", [
    (["--move-time", "24h"], "--move-time is for a turn-based table: add --pace turn-based"),
    (["--pace", "turn-based", "--time-limit", "60"], "--time-limit is for a live table"),
    (["--pace", "turn-based", "--move-time", "30m"], "out of range: 1h to 14d"),
    (["--pace", "turn-based", "--move-time", "24"], "write it as 90m, 24h or 3d"),
    (["--pace", "slow"], "invalid choice: 'slow'"),
    (["--time-limit", "90000"], "--pace turn-based --move-time 24h"),
])
def test_bad_pace_flags_are_one_line_and_exit_2(flags, why, capsys):
    assert cli.main(["host", "fixture", "--players", "2", *DECIDE, *flags]) == 2
    err = capsys.readouterr().err
    assert why in err and err.count("\n") == 1 and "Traceback" not in err, err
