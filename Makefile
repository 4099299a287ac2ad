# `make test` alone sets everything up on a fresh machine: it creates .venv and
# installs the project with its test extras on first use (and again when
# pyproject.toml changes).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: test bench demo screenshots vectors tab clean

# the example games, each its own package with its own entry points (examples/*/pyproject.toml),
# are installed beside the project so the suite also runs them (issue 37: a game from outside)
EXAMPLES := $(patsubst %/pyproject.toml,%,$(wildcard examples/*/pyproject.toml))

$(STAMP): pyproject.toml $(addsuffix /pyproject.toml,$(EXAMPLES))
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]' $(addprefix -e ,$(EXAMPLES))
	touch $(STAMP)

# the whole suite in parallel (pytest-xdist; tests sharing something that cannot be shared
# are kept on one worker with @pytest.mark.xdist_group), then the 15 tests with the most CPU
# (user+sys of the test and the processes it reaped) with their wall time, and the run's
# total CPU (tests/cpu_report.py; `--cpu-report-file=F` writes every test's). Two
# workers per core: most tests wait on processes and sockets (on 2 cores, 4 workers ran the
# node and relay tests in 77 s and 70 s where 2 took 98 s and 129 s). `make test WORKERS=2`
# picks the number; one file alone: see CONTRIBUTING.md.
WORKERS ?= $(shell echo $$((2 * $$(nproc 2>/dev/null || echo 1))))
test: $(STAMP)
	$(PY) -m pytest -n $(WORKERS) --dist loadgroup

bench: $(STAMP)
	$(PY) -m tests.benchmarks

demo: $(STAMP)
	$(VENV)/bin/caravan demo

# the games' conformance vectors (specs/vectors/README.md): run after any rule change
vectors: $(STAMP)
	$(PY) -m tests.games.vectors_gen

# the browser-tab bundle, build/tab (README "A browser tab"; needs npm, the npm registry and
# PyPI; skipped when its inputs have not changed; tests/web/test_tab.py builds it too)
tab: $(STAMP)
	$(PY) -m node.tab.build

# the README's board pictures (needs Chromium)
screenshots: $(STAMP)
	$(PY) -m clients.screenshots docs/img

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
