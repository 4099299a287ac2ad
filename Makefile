# `make test` alone sets everything up on a fresh machine: it creates .venv and
# installs the project with its test extras on first use (and again when
# pyproject.toml changes).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: test bench demo screenshots vectors clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m tests.benchmarks

demo: $(STAMP)
	$(VENV)/bin/caravan demo

# the games' conformance vectors (specs/vectors/README.md): run after any rule change
vectors: $(STAMP)
	$(PY) -m tests.games.vectors_gen

# the README's board pictures (needs Chromium)
screenshots: $(STAMP)
	$(PY) -m clients.screenshots docs/img

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
