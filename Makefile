# Two commands do all the set-up: `make test` and `make run` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=

.PHONY: test run system-deps venv lint typecheck explicit bench stress clean

system-deps:
	@bash tools/install-system-deps.sh

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: system-deps $(STAMP)

test: venv
	$(BIN)/python -m pytest --timeout=180 --timeout-method=thread -q $(PYTEST_ARGS)

explicit: venv
	$(BIN)/python -m pytest --timeout=1800 --timeout-method=thread -q -m explicit $(PYTEST_ARGS)

lint: venv
	$(BIN)/ruff check .
	$(BIN)/mypy

run: venv
	$(BIN)/python -m renderer.serve --host $(HOST) --port $(PORT)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .benchmarks
