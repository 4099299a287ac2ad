# `make test` alone sets everything up on a fresh machine: it creates .venv and
# installs the project with its test extras on first use (and again when
# pyproject.toml changes).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: test bench demo screenshots clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# the whole suite on every core (pytest-xdist; tests sharing something that cannot be shared
# are kept on one worker with @pytest.mark.xdist_group), then the 15 slowest tests.
# `make test WORKERS=4` picks the number of workers; one file alone: see CONTRIBUTING.md.
WORKERS ?= auto
test: $(STAMP)
	$(PY) -m pytest -n $(WORKERS) --dist loadgroup --durations=15

bench: $(STAMP)
	$(PY) -m tests.benchmarks

demo: $(STAMP)
	$(VENV)/bin/caravan demo

# the README's board pictures (needs Chromium)
screenshots: $(STAMP)
	$(PY) -m clients.screenshots docs/img

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
