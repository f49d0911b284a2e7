# dialbox: the two commands a newcomer runs are `make demo` and `make test`.
# Both create .venv (if missing or older than pyproject.toml) and install everything Python needs.

VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PYTEST_ARGS ?=
# pytest-xdist worker processes: 2 by default (about 7 minutes of pytest on 2 cores, against
# about 12 in one process). `make test PYTEST_WORKERS=0` runs everything in one process, in
# file order (docs/host.md, "Tests").
PYTEST_WORKERS ?= 2

.PHONY: demo test lint typecheck mpy unit bench clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/dialbox demo

test: lint typecheck mpy unit

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache

typecheck: $(STAMP)
	$(VENV)/bin/mypy host protocol

mpy: $(STAMP)
	$(PY) -m dialbox.firmware_tools.compile_check

unit: $(STAMP)
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) -m bench

clean:
	rm -rf $(VENV) build .pytest_cache .mypy_cache .ruff_cache
