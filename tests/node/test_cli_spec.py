"""specs/cli.md against the real commands: every exit-code row with an example is run
(offline, loopback only) and must exit as documented; every command is in the table and
accepts --json; the JSON lines the quick commands print are documented types with their
documented fields."""

import json
import shlex
import shutil
import subprocess
import sys

from node.cli.main import build_parser
from protocol import transcript
from tests.helpers import communicate, free_udp_port
from tests.node.cli_spec import exit_rows, json_types
from tests.node.procs import ROOT, env

FIXTURE = ROOT / "specs" / "vectors" / "fixture-2p.caravan"


def _files(tmp_path) -> dict[str, str]:
    finished = tmp_path / "finished.caravan"
    shutil.copyfile(FIXTURE, finished)
    genesis, messages = transcript.load(FIXTURE.read_bytes())     # cut between two frames: a torn
    unfinished = transcript.dump(genesis, messages[:len(messages) * 2 // 3])   # frame is `unreadable`
    (tmp_path / "unfinished.caravan").write_bytes(unfinished)
    (tmp_path / "junk.caravan").write_bytes(b"PK\x03\x04 certainly not a transcript")
    (tmp_path / "data").mkdir()
    return {"finished": str(finished), "unfinished": str(tmp_path / "unfinished.caravan"),
            "junk": str(tmp_path / "junk.caravan"), "missing": str(tmp_path / "missing.caravan"),
            "data": str(tmp_path / "data")}


def _start(command_line: str) -> subprocess.Popen:
    argv = shlex.split(command_line)
    assert argv[0] == "caravan"
    return subprocess.Popen([sys.executable, "-m", "node", *argv[1:]], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)


def _run_all(command_lines: list[str], at_once: int = 4) -> list[tuple[str, str, int]]:
    """(stdout, stderr, exit code) of each, a few processes at a time (the machine is shared)."""
    results = []
    for i in range(0, len(command_lines), at_once):
        procs = [_start(c) for c in command_lines[i:i + at_once]]
        for proc in procs:
            out, err = communicate(proc, 120, " ".join(proc.args))
            results.append((out, err, proc.returncode))
    return results


def test_every_documented_exit_code_with_an_example(tmp_path):
    files = _files(tmp_path)
    rows = [r for r in exit_rows() if r.example]
    assert len(rows) >= 20
    for row, (out, err, code) in zip(rows, _run_all([r.example.format(**files) for r in rows])):
        assert code == row.code, (row, out[-500:], err[-500:])
        assert "Traceback" not in err, (row, err)
        if row.code == 2:
            assert len(err.strip().splitlines()) == 1, (row, err)        # one line naming the problem
        if row.code == 1:
            assert len(err.strip().splitlines()) <= 1, (row, err)
        if "--json" in row.example:
            for line in out.splitlines():
                assert json.loads(line)["type"] in json_types(), (row, line)


def test_every_command_is_documented_and_accepts_json():
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    documented = {r.command for r in exit_rows()}
    assert set(commands) <= documented, set(commands) - documented
    for name, sub in commands.items():
        assert any("--json" in a.option_strings for a in sub._actions), name
        codes = {r.code for r in exit_rows() if r.command == name}
        assert {0, 2} <= codes, (name, codes)


def test_json_lines_are_documented_with_their_fields(tmp_path):
    files = _files(tmp_path)
    types = json_types()
    commands = ["caravan simulate fixture --players 2 --games 2 --json",
                    "caravan options sabbat --json",
                    f"caravan verify {files['finished']} --json",
                    f"caravan verify {files['unfinished']} --json",
                    f"caravan record --data-dir {files['data']} --json",
                    "caravan discover --wait 0.2 --via udp --discovery-bind 127.0.0.1 --discovery-port "
                    f"{free_udp_port()} --json"]
    lines = []
    for command, (out, err, code) in zip(commands, _run_all(commands)):
        assert code in (0, 1), (command, err)
        lines += [json.loads(line) for line in out.splitlines()]
    assert {m["type"] for m in lines} == {"simulation", "option", "verify", "discover", "record"}
    for m in lines:
        missing = set(types[m["type"]]) - set(m)
        assert not missing, (m["type"], missing)
