# The two commands a newcomer runs: `make run` and `make test`.
PY ?= python3
# options for `kortbord run`: `make run ARGS=--lan` lets the players' phones in
ARGS ?=
VENV := .venv
BIN := $(VENV)/bin
# `pip install -e` ends with setuptools' "Editable installation" notice (folders in the working
# directory named like a package may shadow it); here those folders are the packages themselves
PIP_INSTALL := PYTHONWARNINGS='ignore:Editable installation' $(BIN)/pip install -q

.PHONY: run test lint bench clean

$(BIN)/activate:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/activate
	$(PIP_INSTALL) -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/activate
	$(PIP_INSTALL) -e '.[dev]'
	touch $(VENV)/.installed $@

run: $(VENV)/.installed
	$(BIN)/kortbord run $(ARGS)

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	# the web tests drive Debian's chromium; without it (no root) they skip and say so
	-command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
	$(BIN)/pytest -q

bench: $(VENV)/.installed-dev
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build *.egg-info
