"""`caravan record`: a data directory's transcripts read, verified and counted; the table a
person reads, the one JSON object, and the exit codes (specs/cli.md)."""

from __future__ import annotations

import json

import pytest

from node.cli.main import main
from protocol.identity import fingerprint
from tests.clients.record_games import PEOPLE, data_dir, season


@pytest.fixture(scope="module")
def played():
    return season()


def test_the_table_and_the_json(tmp_path, played, capsys):
    d = data_dir(tmp_path / "ada", played)
    assert main(["record", "--data-dir", str(d)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines[0].startswith(f"you: Ada ({fingerprint(PEOPLE['Ada'].public)}), 5 game(s), 2 won, rating ")
    bea = next(line for line in lines if line.startswith("Bea "))
    assert bea.split()[1:4] == [fingerprint(PEOPLE["Bea"].public), "3", "2-1-0"], bea
    dee = fingerprint(PEOPLE["Dee"].public)
    assert any(line.startswith(f"{dee}  {dee}  1") for line in lines), out      # no name: the fingerprint
    assert "skipped 2 transcript(s), not counted:" in out
    assert "bad-signature" in out and "unfinished" in out
    assert "Traceback" not in out

    assert main(["record", "--data-dir", str(d), "--json"]) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) == 1
    rec = json.loads(out)
    assert rec["type"] == "record" and rec["me"]["name"] == "Ada"
    assert {f["name"]: f["games"] for f in rec["friends"]} == {"Bea": 3, "Cy": 2, dee: 1}
    assert len(rec["games"]) == 6 and len(rec["skipped"]) == 2
    assert any(s["file"].endswith("transcript.caravan") and "bad-signature" in s["reason"] for s in rec["skipped"])
    assert PEOPLE["Ada"].seed().hex() not in out                                # never the private key


def test_exit_codes(tmp_path, capsys):
    assert main(["record", "--data-dir", str(tmp_path / "nobody")]) == 0         # nothing yet: said, exit 0
    out = capsys.readouterr().out
    assert "no identity" in out and "no verified finished games" in out
    assert not (tmp_path / "nobody").exists()                                     # read-only: nothing created
    (tmp_path / "file").write_text("x")
    assert main(["record", "--data-dir", str(tmp_path / "file")]) == 2
    assert capsys.readouterr().err.strip() == f"caravan record: --data-dir {tmp_path / 'file'} is not a directory"
    (tmp_path / "damaged").mkdir()
    (tmp_path / "damaged" / "identity.key").write_bytes(b"short")
    assert main(["record", "--data-dir", str(tmp_path / "damaged"), "--json"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "identity.key is damaged" in err
    assert main(["record", "--bogus"]) == 2
