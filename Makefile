# ragviz — the two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8501
DATA ?= sample_data

.PHONY: run test test-fast lint format install install-dev browser axe bench clean docs

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python requirements.txt pyproject.toml
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install -qq --no-deps -e .  # -qq: errors only, not setuptools' editable-install notice block
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev

## Start the app on the bundled sample data (http://localhost:$(PORT)); the same entry as `ragviz app`.
run: install
	$(BIN)/ragviz app $(DATA) --host localhost --port $(PORT)

## Debian chromium for the browser tests (never `playwright install`).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null; fi; }

## axe-core (npm) for the accessibility browser test, under tests/browser/axe/ (its node_modules is not committed).
AXE := tests/browser/axe/node_modules/axe-core/axe.min.js
axe: $(AXE)

$(AXE): tests/browser/axe/package.json tests/browser/axe/package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq npm >/dev/null; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq npm >/dev/null; fi; }
	npm ci --prefix tests/browser/axe --no-audit --no-fund --silent
	touch $@

## Install test dependencies, lint, and run the whole suite spread over the cores (pytest-xdist; each test module
## stays on one worker, so a module's server is started once). JOBS=0 runs it in one process.
JOBS ?= auto
test: install-dev browser axe lint
	$(BIN)/python -m pytest -n $(JOBS) --dist loadscope $(PYTEST_ARGS)

## The quick loop while working: every test without a browser or PostgreSQL, spread over the cores (no lint); each
## module on one worker, so the 28 modules that build a data set once per module build it once, not once per worker.
test-fast: install-dev
	$(BIN)/python -m pytest -q -n auto --dist loadscope -m "not browser and not slow" -k "not postgresql" $(PYTEST_ARGS)

## ruff (lint + format check) over the repository, mypy over ragviz/; configured in pyproject.toml.
lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

## Apply ruff's formatting and safe fixes.
format: install-dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

## Serve the manual (docs/, MkDocs) at http://localhost:8000; `make test` builds it with --strict.
docs: install-dev
	$(BIN)/mkdocs serve

## Speed guard: issue 38's figures as ratios against their floors in one run (exit 1 when one fails).
bench: install-dev
	$(BIN)/python benchmarks/bench_guard.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache artifacts site
