# The two commands a newcomer runs: `make run` and `make test`.
PY ?= python3
# options for `kortbord run`: `make run ARGS=--lan` lets the players' phones in
ARGS ?=
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench clean

$(BIN)/activate:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/activate
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/activate
	$(BIN)/pip install -q -e '.[dev]'
	touch $(VENV)/.installed $@

run: $(VENV)/.installed
	$(BIN)/kortbord run $(ARGS)

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: lint
	# the web tests drive Debian's chromium; without it (no root) they skip and say so
	-command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
	$(BIN)/pytest -q

bench: $(VENV)/.installed-dev
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build *.egg-info
