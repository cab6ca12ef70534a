# Two commands do all the set-up: `make test` and `make run` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=

.PHONY: test run system-deps venv elk studio-assets lint explicit bench compare stress clean

system-deps:
	@bash tools/install-system-deps.sh

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: system-deps $(STAMP) elk studio-assets

# elkjs pinned by tools/elk-layout/package-lock.json: an idempotent `npm ci`, skipped when the
# install marker matches the lock file (the same guarded install the provider runs on first use).
elk: $(STAMP)
	@$(BIN)/python -m layouts.providers.elkjs_install

# svg-pan-zoom for the Studio, pinned by tools/studio-assets/package-lock.json (npm ci once).
studio-assets: $(STAMP)
	@$(BIN)/python -m renderer.studio_assets

test: venv
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest --timeout=180 --timeout-method=thread -q $(PYTEST_ARGS)

explicit: venv
	$(BIN)/python -m pytest --timeout=1800 --timeout-method=thread -q -m explicit $(PYTEST_ARGS)

lint: venv
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: venv
	$(BIN)/python -m pytest bench --benchmark-only -q $(PYTEST_ARGS)

compare: venv
	$(BIN)/python bench/compare.py --html bench/results/side-by-side.html

stress: venv
	$(BIN)/python tools/stress.py --iterations 5 --effort best --direction TopToBottom

# The service keeps long-lived node workers for elkjs instead of starting node per request.
# --dev: the workflow API's bearer tokens are signed with a local secret in .wfr/dev.json
# (`wfr token` prints one); production sets WFR_JWT_SECRET, a public key or a JWKS file.
run: venv
	WFR_ELK_MODE=worker $(BIN)/python -m renderer.serve --dev --host $(HOST) --port $(PORT)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .benchmarks
