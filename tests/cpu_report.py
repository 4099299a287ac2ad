"""The suite's CPU report (issue 31): per test, wall time and CPU time (user + sys) of the
test process and of every child process it started and reaped (`os.times()`, which counts
reaped children, recursively), over setup, call and teardown. At the end of the session a
table lists the 15 tests with the most CPU and the suite's total CPU, also under xdist: each
worker sends its numbers in `report.user_properties` (xdist forwards them to the
controller) and its whole process's CPU in `workeroutput`.

Loaded from tests/conftest.py. `--cpu-report=N` picks the number of rows (0: no table).
`--cpu-report-file=PATH` also writes every test's numbers as tab-separated lines
(nodeid, cpu seconds, wall seconds), to group them by directory or by cause."""

from __future__ import annotations

import os
import time

import pytest

KEY = "cpu_report"            # the user_properties entry: (KEY, (cpu seconds, wall seconds))


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cpu report")
    group.addoption("--cpu-report", type=int, default=15, metavar="N",
                    help="list the N tests with the most CPU (self + reaped children) at the end")
    group.addoption("--cpu-report-file", default=None, metavar="PATH",
                    help="write every test's CPU and wall seconds there (tab-separated)")


class CpuReport:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.rows: dict[str, list[float]] = {}       # nodeid -> [cpu, wall]
        self.workers: dict[str, float] = {}          # worker id -> its whole process's CPU
        self.start_wall = time.monotonic()
        self._t: dict[str, list[float]] = {}         # nodeid -> [cpu, wall] accumulated here

    # --- in the process running the tests (an xdist worker, or pytest alone) ---------------
    def _phase(self, item: pytest.Item):
        c0, w0 = _cpu(), time.monotonic()
        yield
        acc = self._t.setdefault(item.nodeid, [0.0, 0.0])
        acc[0] += _cpu() - c0
        acc[1] += time.monotonic() - w0

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item):
        yield from self._phase(item)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item):
        yield from self._phase(item)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item):
        yield from self._phase(item)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call):
        outcome = yield
        report = outcome.get_result()
        if report.when == "teardown" and item.nodeid in self._t:
            cpu, wall = self._t.pop(item.nodeid)
            report.user_properties.append((KEY, (round(cpu, 4), round(wall, 4))))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[KEY] = _cpu()
            workeroutput[KEY + "_worker"] = self.config.workerinput.get("workerid", "")

    # --- in the controller (or pytest alone) ------------------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "teardown":
            return
        for name, value in report.user_properties:
            if name == KEY:
                self.rows[report.nodeid] = list(value)

    def pytest_testnodedown(self, node, error) -> None:
        out = getattr(node, "workeroutput", None) or {}
        if KEY in out:
            self.workers[out.get(KEY + "_worker") or str(len(self.workers))] = out[KEY]

    def pytest_terminal_summary(self, terminalreporter, exitstatus, config) -> None:
        if getattr(config, "workerinput", None) is not None:
            return
        path = config.getoption("cpu_report_file")
        if path:
            with open(path, "w") as f:
                for nodeid, (cpu, wall) in sorted(self.rows.items(), key=lambda r: -r[1][0]):
                    f.write(f"{nodeid}\t{cpu:.3f}\t{wall:.3f}\n")
        n = config.getoption("cpu_report")
        if n <= 0 or not self.rows:
            return
        tr = terminalreporter
        tests_cpu = sum(r[0] for r in self.rows.values())
        tests_wall = sum(r[1] for r in self.rows.values())
        tr.write_sep("=", f"{n} tests with the most CPU (user+sys, self + reaped children)")
        tr.write_line(f"{'cpu s':>8} {'wall s':>8}  test")
        for nodeid, (cpu, wall) in sorted(self.rows.items(), key=lambda r: -r[1][0])[:n]:
            tr.write_line(f"{cpu:8.2f} {wall:8.2f}  {nodeid}")
        if self.workers:      # reaped workers are in this process's children: count them once
            t = os.times()
            total = t.user + t.system + sum(self.workers.values())
        else:                 # from this process's start, with its imports and the collection
            total = _cpu()
        tr.write_line(
            f"{len(self.rows)} tests: {tests_cpu:.1f} s CPU in the tests (setup, call, teardown), "
            f"{tests_wall:.1f} s wall summed; the whole run: {total:.1f} s CPU"
            + (f" ({len(self.workers)} workers and the controller)" if self.workers else "")
            + f", {time.monotonic() - self.start_wall:.1f} s wall")
        tr.write_line(
            "A test's CPU counts the child processes reaped while it ran. A process left running "
            "is counted when it is reaped: the shared Chromium (one per worker, tests/web) and a "
            "Ray cluster go to the test whose teardown stops them, a leftover process to whichever "
            "test reaps it (CPU far above wall), or only to the run's total.")


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(CpuReport(config), "caravan_cpu_report")
