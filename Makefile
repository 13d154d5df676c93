# The README's commands. Each one sets up what it needs on a fresh machine.
VENV := .venv
PY := $(VENV)/bin/python
# What production runs (make serve), and that plus the tools (every other target).
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint golden e2e messages serve serve-env bench clean mutate

$(VENV)/bin/python:
	"$$(scripts/find-python)" -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): requirements.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements.txt
	@touch $(STAMP)

$(DEV_STAMP): requirements.txt requirements-dev.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $(STAMP) $(DEV_STAMP)

## make run: set up, migrate, build the bookkeeping replica and demo data when empty, serve on
## http://127.0.0.1:8000 with the read model's sync running beside the web server. Without
## DATABASE_URL/BOOKKEEPING_DATABASE_URL both databases live on an embedded PostgreSQL (.pgdata/),
## which manage.py starts (reviewapp/dev/embedded_pg.py); `make clean` stops it.
run: $(DEV_STAMP)
	DEBUG=$${DEBUG:-1} $(PY) manage.py migrate --noinput
	DEBUG=$${DEBUG:-1} $(PY) manage.py create_bookkeeping_replica --if-missing
	DEBUG=$${DEBUG:-1} $(PY) manage.py seed_demo --if-empty
	DEBUG=$${DEBUG:-1} $(PY) manage.py sync_index
	DEBUG=$${DEBUG:-1} scripts/with-sync $(PY) manage.py runserver $(HOST):$(PORT)

## make test: set up and run the whole suite (the embedded PostgreSQL, or DATABASE_URL and
## BOOKKEEPING_DATABASE_URL when set) in TEST_WORKERS processes (pytest-xdist; 0 runs it in
## this one). Each worker has its own test databases beside them, test_<name>_gw<n>, and builds
## the bookkeeping replica in its own. On this 2-core machine two workers take 6 min, one 9.
TEST_WORKERS ?= 2
test: $(DEV_STAMP)
	$(PY) -m pytest -n $(TEST_WORKERS)

## make lint: ruff, formatting, mypy and djlint on the templates (django-stubs loads the settings: DEBUG=1 lends them a key
## and, with no database URL, a placeholder database; nothing starts a server)
lint: $(DEV_STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	DEBUG=1 $(PY) -m mypy
	$(PY) -m djlint templates --lint

## make golden: the shared reference cases must render exactly as the TypeScript did
golden: $(DEV_STAMP)
	$(PY) manage.py golden_check --file ../shared/golden/clarifications.jsonl

## make messages: the Swedish catalogue from the code (babel.cfg: Jinja2's extractor for the
## pages' {% trans %} and _(), Python's for reviewapp/): merges into locale/sv/LC_MESSAGES/django.po
## keeping every translation, drops what the code no longer asks for, compiles django.mo, and
## names what is left to translate. tests/test_i18n.py fails while it would change anything.
messages: $(DEV_STAMP)
	$(PY) scripts/messages.py

## make mutate: mutation testing with mutmut (a tool, not a gate; docs/mutation.md has the figures
## and the survivors). Mutates what [tool.mutmut] in pyproject.toml names, runs its tests in a copy
## (mutants/) one mutant at a time (MUTATE_CHILDREN processes; 1 on a shared machine), then lists
## every mutant that survived. `make mutate` again resumes; `rm -rf mutants` starts over.
## One package: make mutate MUTANTS='reviewapp.previews.*' (mutant-name globs; those are run again).
MUTATE_CHILDREN ?= 1
MUTANTS ?=
mutate: $(DEV_STAMP)
	$(VENV)/bin/mutmut run --max-children $(MUTATE_CHILDREN) $(foreach m,$(MUTANTS),'$(m)')
	$(VENV)/bin/mutmut results

clean:
	-$(PY) -m reviewapp.dev.embedded_pg stop
	rm -rf $(VENV) staticfiles .pytest_cache .mypy_cache .ruff_cache .pgdata mutants

## make e2e: every browser test (marked e2e: the journeys in tests/e2e and the screens' own)
## in Debian's Chromium against a live server; installs the chromium package first when it
## is missing and we are root (CI is). Screenshots land in test-artifacts/e2e/;
## E2E_README_SCREENSHOTS=1 make e2e also rewrites docs/screenshots/.
e2e: $(DEV_STAMP)
	@if [ ! -x /usr/sbin/nginx ] && [ "$$(id -u)" = 0 ]; then \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y nginx openssl; \
	fi
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	  else \
	    echo "make e2e needs Debian's Chromium at /usr/bin/chromium: sudo apt-get install -y chromium" >&2; exit 1; \
	  fi; \
	fi
	$(PY) -m pytest -m e2e

## make serve: production-style: installs requirements.txt only, migrates, collects static files,
## gunicorn on PostgreSQL (needs DATABASE_URL and BOOKKEEPING_DATABASE_URL (postgres://...),
## SECRET_KEY and ALLOWED_HOSTS in the environment; it never starts the embedded server)
serve: serve-env $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput --verbosity 0
	GUNICORN_BIND=$${GUNICORN_BIND:-$(HOST):$(PORT)} exec scripts/with-sync $(VENV)/bin/gunicorn reviewapp.wsgi -c gunicorn.conf.py

# Checked before anything is installed or migrated, so the message comes first.
serve-env:
	@for name in DATABASE_URL BOOKKEEPING_DATABASE_URL; do \
	  eval "value=\$$$$name"; \
	  case "$$value" in \
	    postgres://*|postgresql://*) ;; \
	    "") echo "make serve: $$name is not set (DATABASE_URL: the review app's own database; BOOKKEEPING_DATABASE_URL: accounted's)" >&2; exit 1 ;; \
	    *) echo "make serve: $$name must be a postgres:// URL, got $$value" >&2; exit 1 ;; \
	  esac; \
	done
	@test -n "$$SECRET_KEY" || { echo "make serve: SECRET_KEY is not set (a long random string, kept out of the repository)" >&2; exit 1; }
	@test -n "$$ALLOWED_HOSTS" || { echo "make serve: ALLOWED_HOSTS is not set (comma-separated host names the app answers to)" >&2; exit 1; }
