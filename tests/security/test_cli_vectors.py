"""The shipped vectors in specs/vectors/cli/ give, through the shipped `caravan verify`, the
verdicts pinned next to them, and the generator reproduces them byte for byte."""

from __future__ import annotations

import json

import pytest

from node.cli.main import main
from tests.security import cli_vectors

PINNED = json.loads(cli_vectors.VERDICTS.read_text())


@pytest.mark.parametrize("name", sorted(PINNED))
def test_caravan_verify_gives_the_pinned_verdict(name, capsys):
    expected = PINNED[name]
    status = main(["verify", str(cli_vectors.DIR / name), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert {k: report[k] for k in cli_vectors.KEEP} == expected
    assert status == (0 if expected["valid"] and expected["complete"] else 1)


def test_the_vectors_are_reproduced():
    files = cli_vectors.compute()
    assert sorted(files) == sorted(PINNED)
    for name, data in files.items():
        assert (cli_vectors.DIR / name).read_bytes() == data, name
