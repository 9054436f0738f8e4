# Two commands: `make demo` serves a seeded demo store, `make test` runs the whole suite.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
CHROMIUM := /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
export OMP_NUM_THREADS ?= 1

.PHONY: demo test lint bench clean

$(BIN)/scope-recall: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

demo: $(BIN)/scope-recall
	$(BIN)/scope-recall demo

test: $(BIN)/scope-recall $(CHROMIUM) lint
	$(BIN)/python -m pytest -q

# Style and the layer contracts of docs/architecture.md: a broken contract fails `make test` and so CI.
lint: $(BIN)/scope-recall
	$(BIN)/ruff check .
	$(BIN)/lint-imports

# The console's browser test drives Debian's Chromium (never a browser downloaded at test time).
$(CHROMIUM):
	$(SUDO) apt-get update -q && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium

bench: $(BIN)/scope-recall
	$(BIN)/python -m pytest -q -m slow

clean:
	rm -rf $(VENV) .pytest_cache
