# The README's commands. Each one sets up what it needs on a fresh machine.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint e2e serve bench clean

$(STAMP): requirements.txt
	@test -x $(PY) || "$$(scripts/find-python)" -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	@touch $(STAMP)

## make run: set up, migrate, seed demo data when empty, serve on http://127.0.0.1:8000
run: $(STAMP)
	DEBUG=$${DEBUG:-1} $(PY) manage.py migrate --noinput
	DEBUG=$${DEBUG:-1} $(PY) manage.py seed_demo --if-empty
	DEBUG=$${DEBUG:-1} $(PY) manage.py runserver $(HOST):$(PORT)

## make test: set up and run the whole suite (SQLite, or DATABASE_URL when set)
test: $(STAMP)
	$(PY) -m pytest

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .mypy_cache .ruff_cache
