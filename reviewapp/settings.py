"""Settings for the clarification review app.

Everything that differs between a laptop and production comes from the
environment, read through the tiny helpers below so that a typo such as
``DEBUG=ture`` stops the process instead of silently meaning "off".
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from reviewapp.core import env

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    value = env.flag(raw, default)
    if value is None:
        raise ImproperlyConfigured(f"{name} must be one of {env.SPELLINGS}, got {raw!r}")
    return value


def envint(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, got {raw!r}") from None


def envlist(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [part.strip() for part in raw.split(",") if part.strip()]


DEBUG = envbool("DEBUG", False)

# A development key only while DEBUG is on: a production process without a
# real key must not start, because sessions signed with a known key are forgeable.
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "django-insecure-development-only-key-do-not-use-in-production"  # noqa: S105

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.forms",
    "django_htmx",
    "reviewapp",
    "reviewapp.bookkeeping",
]
# The development tools (seed_demo, simulate_intake, create_bookkeeping_replica) write demo rows into a
# replica of accounted's tables. They are installed where DEBUG is on (make run) or DEVTOOLS says so
# (the test run), never by default in production: there they would be one mistyped command away from
# writing made-up rows into the firm's record.
DEVTOOLS = envbool("DEVTOOLS", DEBUG)
if DEVTOOLS:
    INSTALLED_APPS.append("devtools")

MIDDLEWARE = [
    # First, so every response (redirects and errors too) and every log line carries the id.
    "reviewapp.web.middleware.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # 413 for an oversized body before anything reads it (reviewapp/web/body_limits.py).
    "reviewapp.web.middleware.BodyLimitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Login on every page by default; the few public views opt out explicitly.
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "reviewapp.web.middleware.VaryOnHtmxMiddleware",
    # An open list's unchanged poll: 304 in one statement in place of the view (reviewapp/web/unchanged_poll.py).
    "reviewapp.web.middleware.UnchangedPollMiddleware",
    # Last: a view meeting a database that does not answer gets a 503 (reviewapp/web/outages.py).
    "reviewapp.web.middleware.DatabaseOutageMiddleware",
]

ROOT_URLCONF = "reviewapp.urls"
WSGI_APPLICATION = "reviewapp.wsgi.application"

_CONTEXT_PROCESSORS = [
    "django.template.context_processors.request",
    "django.template.context_processors.i18n",
    "django.template.context_processors.csp",
    "django.contrib.auth.context_processors.auth",
    "django.contrib.messages.context_processors.messages",
    "reviewapp.web.context_processors.user_roles",
]
# A name a page's template is not given fails the page under DEBUG and in the
# tests (tests/envdefaults.py sets STRICT_TEMPLATES=1), where every template is
# rendered through its views (tests/test_templates.py): a misspelled name is
# found where it was made. In production it prints nothing, as in Django's
# templates: a blank in a rarely seen branch is better than a 500 to the person
# who needed the page.
STRICT_TEMPLATES = envbool("STRICT_TEMPLATES", DEBUG)
# Which engine renders a file is decided by where the file is, never by the
# order below: the two engines find disjoint sets of names (tests/test_templates.py
# checks that no file under templates/ is one the Django engine also finds).
TEMPLATES = [
    # The app's pages, its refusals and error pages, and the field template of
    # every form (forms/field.html, FORM_RENDERER): Jinja2 from templates/ and
    # nowhere else. See reviewapp/web/jinja.py for why and what it offers.
    {
        "NAME": "jinja2",
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": False,
        "OPTIONS": {
            "environment": "reviewapp.web.jinja.environment",
            "undefined": "jinja2.StrictUndefined" if STRICT_TEMPLATES else "jinja2.ChainableUndefined",
            "context_processors": _CONTEXT_PROCESSORS,
        },
    },
    # The admin's templates and Django's form widgets, forms and error lists
    # (django/forms/...): Django's engine, from the installed apps only.
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {"context_processors": _CONTEXT_PROCESSORS},
    },
]
FORM_RENDERER = "reviewapp.web.forms.renderer.FormRenderer"

# Two PostgreSQL databases. ``default`` is the review app's own (users,
# sessions, tokens, golden cases, the list's read model, its answer log);
# Django's migrations create it. ``bookkeeping`` is accounted's, whose tables
# the app reads through unmanaged models and never migrates
# (reviewapp/bookkeeping/routers.py). The settings only read the two URLs; they never start
# a server. On a laptop and in the tests, where neither is set, manage.py,
# make and tests/envdefaults.py start a private embedded PostgreSQL first and
# set both (reviewapp/dev/embedded_pg.py).
_CONN_MAX_AGE = envint("CONN_MAX_AGE", 60)
_REVIEW_URL = os.environ.get("DATABASE_URL", "")
_BOOKKEEPING_URL = os.environ.get("BOOKKEEPING_DATABASE_URL", "")
DATABASES: dict[str, Any]
if _REVIEW_URL and _BOOKKEEPING_URL:
    DATABASES = {
        "default": dj_database_url.parse(_REVIEW_URL, conn_max_age=_CONN_MAX_AGE, conn_health_checks=True),
        "bookkeeping": dj_database_url.parse(_BOOKKEEPING_URL, conn_max_age=_CONN_MAX_AGE, conn_health_checks=True),
    }
    for _engine in {db["ENGINE"] for db in DATABASES.values()}:
        if _engine != "django.db.backends.postgresql":
            raise ImproperlyConfigured(f"Both databases must be PostgreSQL (postgres:// URLs), got {_engine}.")
elif _REVIEW_URL or _BOOKKEEPING_URL:
    raise ImproperlyConfigured(
        "Set both DATABASE_URL (the review app's own database) and BOOKKEEPING_DATABASE_URL "
        "(accounted's), or neither for the embedded PostgreSQL."
    )
elif DEBUG:
    # Imported without a database (mypy's django-stubs does): a placeholder
    # whose first use says what to set (reviewapp/dev/no_database/base.py).
    DATABASES = {alias: {"ENGINE": "reviewapp.dev.no_database"} for alias in ("default", "bookkeeping")}
else:
    raise ImproperlyConfigured(
        "DATABASE_URL and BOOKKEEPING_DATABASE_URL must be set when DEBUG is off "
        "(manage.py, make and the tests start a private embedded server for them with "
        "DEBUG=1 or EMBEDDED_POSTGRES=1)."
    )
# The test run never migrates accounted's database: the tests build the
# replica there from the contract (tests/conftest.py), as accounted would.
DATABASES["bookkeeping"]["TEST"] = {"MIGRATE": False}
DATABASE_ROUTERS = ["reviewapp.bookkeeping.routers.BookkeepingRouter"]
# accounted's database may accept a connection and then never answer: these
# bound how long a request waits for it (seconds; 0 waits forever), so such a
# server cannot hold every worker thread. The page then answers 503
# (reviewapp/web/outages.py). The statement timeout is per statement, and the
# answer's longest is its write under a row lock, well under a second.
BOOKKEEPING_CONNECT_TIMEOUT = envint("BOOKKEEPING_CONNECT_TIMEOUT", 5)
BOOKKEEPING_STATEMENT_TIMEOUT = envint("BOOKKEEPING_STATEMENT_TIMEOUT", 15)
# The review database gets a connect timeout too (a hung one would hold every
# request at its session lookup), but no statement timeout: migrations and
# sync_index's rebuilds run long statements there.
DATABASE_CONNECT_TIMEOUT = envint("DATABASE_CONNECT_TIMEOUT", 5)
if DATABASE_CONNECT_TIMEOUT > 0:
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = DATABASE_CONNECT_TIMEOUT
# psycopg prepares a statement only when asked to (Django's default, None,
# would refuse even then): the open list's poll asks for its one statement
# (reviewapp/web/unchanged_poll.py). Django's own cursors bind values on the
# client and are never prepared, whatever this says.
DATABASES["default"].setdefault("OPTIONS", {}).setdefault("prepare_threshold", 2**31 - 1)
_bookkeeping_options = DATABASES["bookkeeping"].setdefault("OPTIONS", {})
if BOOKKEEPING_CONNECT_TIMEOUT > 0:
    _bookkeeping_options["connect_timeout"] = BOOKKEEPING_CONNECT_TIMEOUT
if BOOKKEEPING_STATEMENT_TIMEOUT > 0:
    # libpq's "options": a server setting for every session of this connection, after any from the URL.
    _bookkeeping_options["options"] = " ".join(
        part
        for part in (_bookkeeping_options.get("options", ""), f"-c statement_timeout={BOOKKEEPING_STATEMENT_TIMEOUT}s")
        if part
    )
# A server that stops answering on a connection that is already open is not
# bounded by either timeout above: psycopg enforces connect_timeout only while
# connecting, and statement_timeout is enforced by that very server. So the
# bookkeeping alias runs on reviewapp.bookkeeping.bounded_pg, which limits every wait
# itself (docs/operations.md, "accounted's database down or hung"):
# - BOOKKEEPING_QUERY_DEADLINE: seconds one wait (a query, a fetch, a commit)
#   may last; the statement timeout + 2 by default, so the server's own error
#   comes first when it can still give one. 0: no deadline (not advised).
# - BOOKKEEPING_UNBOUNDED_DEADLINE: the same for code that lifts the
#   statement timeout on purpose (the sync's whole-table pass, the export).
# - BOOKKEEPING_HEALTH_CHECK_TIMEOUT: Django's SELECT 1 on a kept connection
#   (CONN_HEALTH_CHECKS) and /healthz's check of accounted.
# - BOOKKEEPING_MAX_CONCURRENT: threads of one process in accounted's
#   database at once; the next is refused with 503 at once, so the other
#   threads keep serving the pages that need only the review database.
#   Default: one less than gunicorn's threads (GUNICORN_THREADS, 4).
BOOKKEEPING_QUERY_DEADLINE = envint(
    "BOOKKEEPING_QUERY_DEADLINE", BOOKKEEPING_STATEMENT_TIMEOUT + 2 if BOOKKEEPING_STATEMENT_TIMEOUT > 0 else 30
)
BOOKKEEPING_UNBOUNDED_DEADLINE = envint("BOOKKEEPING_UNBOUNDED_DEADLINE", 600)
BOOKKEEPING_HEALTH_CHECK_TIMEOUT = envint("BOOKKEEPING_HEALTH_CHECK_TIMEOUT", 2)
BOOKKEEPING_MAX_CONCURRENT = envint("BOOKKEEPING_MAX_CONCURRENT", max(1, envint("GUNICORN_THREADS", 4) - 1))
for _name in ("BOOKKEEPING_QUERY_DEADLINE", "BOOKKEEPING_UNBOUNDED_DEADLINE", "BOOKKEEPING_MAX_CONCURRENT"):
    if globals()[_name] < 0:
        raise ImproperlyConfigured(f"{_name} must be 0 (no limit) or more, got {globals()[_name]}")
if BOOKKEEPING_HEALTH_CHECK_TIMEOUT < 1:
    raise ImproperlyConfigured(
        f"BOOKKEEPING_HEALTH_CHECK_TIMEOUT must be at least 1 (seconds), got {BOOKKEEPING_HEALTH_CHECK_TIMEOUT}"
    )
if DATABASES["bookkeeping"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["bookkeeping"]["ENGINE"] = "reviewapp.bookkeeping.bounded_pg"
    DATABASES["bookkeeping"]["LIMITS"] = {
        "query_deadline": BOOKKEEPING_QUERY_DEADLINE,
        "unbounded_deadline": BOOKKEEPING_UNBOUNDED_DEADLINE,
        "margin": 2,
        "health_check": BOOKKEEPING_HEALTH_CHECK_TIMEOUT,
        # A cancel request is a new connection, which a hung server may leave unanswered too.
        "cancel_timeout": 1,
        "max_concurrent": BOOKKEEPING_MAX_CONCURRENT,
        # A healthy query takes milliseconds: a short wait for a slot is no
        # refusal under a burst, and costs little while accounted hangs.
        "slot_wait": 0.05,
    }
    # Keepalives and tcp_user_timeout end a connection whose packets vanish (a
    # dead host, a silent network path); against a server or proxy whose
    # kernel still acknowledges them they do nothing (measured), which the
    # deadline above covers.
    _bookkeeping_options.update(
        keepalives=1, keepalives_idle=10, keepalives_interval=5, keepalives_count=3, tcp_user_timeout=20_000
    )
# DB_POOL=1 uses psycopg's connection pool instead of persistent connections;
# worth it with threaded workers or many processes.
if envbool("DB_POOL", False):
    for _db in DATABASES.values():
        _db["CONN_MAX_AGE"] = 0  # the pool replaces persistent connections
        _db.setdefault("OPTIONS", {})["pool"] = {
            "min_size": envint("DB_POOL_MIN_SIZE", 1),
            "max_size": envint("DB_POOL_MAX_SIZE", 4),
            "timeout": envint("DB_POOL_TIMEOUT", 10),
        }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# ModelBackend, with the user's roles and permissions loaded in the user's own query (measured: bench/speed_layers.py).
AUTHENTICATION_BACKENDS = ["reviewapp.web.auth_backend.UserWithRolesBackend"]
LOGIN_URL = "login"
# After this many failed logins for one username from one address within the
# window (seconds), further attempts are refused until the window ends.
LOGIN_THROTTLE_ATTEMPTS = envint("LOGIN_THROTTLE_ATTEMPTS", 5)
LOGIN_THROTTLE_WINDOW = envint("LOGIN_THROTTLE_WINDOW", 15 * 60)
# Behind a proxy: the META key of the header it puts the client address in
# (e.g. HTTP_X_REAL_IP); empty means REMOTE_ADDR.
LOGIN_THROTTLE_IP_HEADER = os.environ.get("LOGIN_THROTTLE_IP_HEADER", "")
LOGIN_REDIRECT_URL = "inbox"
LOGOUT_REDIRECT_URL = "login"

# Swedish bookkeepers are the users: Swedish by default, English selectable.
LANGUAGE_CODE = "sv"
LANGUAGES = [("sv", "Svenska"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Europe/Stockholm"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "media/"
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", BASE_DIR / "media"))
# accounted's private Storage bucket ``documents``: a document's
# ``storage_path`` is its key. A local folder here; in production the same
# alias names an S3-compatible backend (django-storages' S3Storage with the
# bucket's endpoint), a settings change only.
DOCUMENTS_ROOT = Path(os.environ.get("DOCUMENTS_ROOT", MEDIA_ROOT / "bucket-documents"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "documents": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": DOCUMENTS_ROOT, "base_url": None},
    },
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Content Security Policy through Django's built-in support: only our own
# scripts and styles, never inline ones (htmx is configured not to need them).
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "object-src": [CSP.NONE],
    "frame-src": [CSP.SELF],
    "frame-ancestors": [CSP.SELF],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
}
X_FRAME_OPTIONS = "SAMEORIGIN"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = envbool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = envbool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", False)
if envbool("SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# `check --deploy` must report nothing; these two warnings are decisions, not oversights:
# - W019: X-Frame-Options is SAMEORIGIN (not DENY) because the item page embeds
#   the receipt PDF from our own origin; other origins still cannot frame us.
# - W021: HSTS preload commits the whole domain and its subdomains to the
#   browsers' preload list; that is the company's call (SECURE_HSTS_PRELOAD=1).
SILENCED_SYSTEM_CHECKS = ["security.W019", "security.W021"]

# Upload and body limits: a receipt photo fits, a runaway client does not.
DATA_UPLOAD_MAX_MEMORY_SIZE = envint("DATA_UPLOAD_MAX_MEMORY_SIZE", 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
RECEIPT_UPLOAD_MAX_BYTES = envint("RECEIPT_UPLOAD_MAX_BYTES", 10 * 1024 * 1024)
# The largest request body, files included, refused with 413 before it is read
# (reviewapp/web/body_limits.py); the answer form and its preview accept
# RECEIPT_UPLOAD_MAX_BYTES more.
REQUEST_BODY_MAX_BYTES = envint("REQUEST_BODY_MAX_BYTES", 1024 * 1024)

# accounted's web address (e.g. https://app.example.se), for links into accounted: an uploaded
# photo accounted has not read is read by "Tolka om" in accounted's document inbox
# (reviewapp.answers.unread). Empty: no link, the pages only name where to go.
ACCOUNTED_BASE_URL = os.environ.get("ACCOUNTED_BASE_URL", "").strip().rstrip("/")
if ACCOUNTED_BASE_URL and not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", ACCOUNTED_BASE_URL):
    raise ImproperlyConfigured(
        "ACCOUNTED_BASE_URL must be an http(s) address without query, e.g. https://app.example.se"
    )

# Every line carries the request id (also sent back in X-Request-ID and shown
# on the 500 page), so a user's report leads to the traceback in the log.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "reviewapp.web.request_id.RequestIdFilter"}},
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s [%(request_id)s] %(name)s %(message)s"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["request_id"]},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # The embedded server logs every start and handle at INFO.
    "loggers": {"embedded_postgres": {"level": "WARNING"}},
}

# The list's read model is as old as sync_index's last successful poll (every
# 2 s by default). Past this many seconds the list shows "data as of …",
# /healthz says "stale" (still 200: an old list is no reason to take a host
# out) and each poll that finds it so old logs a warning.
SYNC_STALE_AFTER = envint("SYNC_STALE_AFTER", 60)
# How often an open list asks whether its rows changed (issue 38 part 3; a 304 while they did not).
INBOX_POLL_SECONDS = envint("INBOX_POLL_SECONDS", 10)
if INBOX_POLL_SECONDS < 1:
    raise ImproperlyConfigured(f"INBOX_POLL_SECONDS must be at least 1 (seconds), got {INBOX_POLL_SECONDS}")
if SYNC_STALE_AFTER < 1:
    raise ImproperlyConfigured(f"SYNC_STALE_AFTER must be at least 1 (seconds), got {SYNC_STALE_AFTER}")

# Where the read model learns what changed in accounted (reviewapp/readmodel/replication.py):
# "poll" (the default) asks accounted's table every few seconds; "replication"
# subscribes the review database to a publication on accounted's database
# (docs/operations.md) and reads only its local copy. REPLICATION_CONNINFO is the
# libpq connection string the subscription uses (the replication role's; by
# default BOOKKEEPING_DATABASE_URL), REPLICATION_NAME the publication's name on
# accounted's side and the subscription's and slot's on ours.
SYNC_SOURCE = os.environ.get("SYNC_SOURCE", "poll")
if SYNC_SOURCE not in ("poll", "replication"):
    raise ImproperlyConfigured(f"SYNC_SOURCE must be poll or replication, got {SYNC_SOURCE!r}")
REPLICATION_CONNINFO = os.environ.get("REPLICATION_CONNINFO") or os.environ.get("BOOKKEEPING_DATABASE_URL", "")
REPLICATION_NAME = os.environ.get("REPLICATION_NAME", "review_app")
if not REPLICATION_NAME.isidentifier() or REPLICATION_NAME.lower() != REPLICATION_NAME:
    raise ImproperlyConfigured(f"REPLICATION_NAME must be a lower-case identifier, got {REPLICATION_NAME!r}")

# Processes a whole-table pass of sync_index (the first poll, a re-index after
# a release) derives its rows in, one share of the table each
# (reviewapp/readmodel/workers.py). 1: all in the sync_index process.
SYNC_WORKERS = envint("SYNC_WORKERS", 2)
if SYNC_WORKERS < 1:
    raise ImproperlyConfigured(f"SYNC_WORKERS must be at least 1, got {SYNC_WORKERS}")

# --- Hardening: login throttle, API tokens, health check -------------------
# Login throttling (reviewapp/web/throttle.py), counted in its own table: at most
# LOGIN_THROTTLE_ATTEMPTS failures per username and address per window (above),
# LOGIN_THROTTLE_ADDRESS_ATTEMPTS per address whatever the username, and past
# LOGIN_THROTTLE_USER_ATTEMPTS failures for one username from all addresses,
# a new address waits LOGIN_THROTTLE_NEW_ADDRESS_WAIT seconds before its
# password is checked. Addresses a user logged in from are remembered this many days.
LOGIN_THROTTLE_ADDRESS_ATTEMPTS = envint("LOGIN_THROTTLE_ADDRESS_ATTEMPTS", 30)
LOGIN_THROTTLE_USER_ATTEMPTS = envint("LOGIN_THROTTLE_USER_ATTEMPTS", 10)
LOGIN_THROTTLE_NEW_ADDRESS_WAIT = envint("LOGIN_THROTTLE_NEW_ADDRESS_WAIT", 30)
LOGIN_THROTTLE_KNOWN_ADDRESS_DAYS = envint("LOGIN_THROTTLE_KNOWN_ADDRESS_DAYS", 90)
# At most this many known addresses per user (the least recently used go first).
LOGIN_THROTTLE_KNOWN_ADDRESSES = envint("LOGIN_THROTTLE_KNOWN_ADDRESSES", 20)
_ip_header = LOGIN_THROTTLE_IP_HEADER
if _ip_header and not (
    _ip_header == "REMOTE_ADDR"
    or (_ip_header.startswith("HTTP_") and _ip_header.isupper() and _ip_header.replace("_", "").isalnum())
):
    raise ImproperlyConfigured(
        "LOGIN_THROTTLE_IP_HEADER must name a request.META key such as HTTP_X_REAL_IP "
        f"(the header X-Real-IP), got {LOGIN_THROTTLE_IP_HEADER!r}."
    )
if globals().get("SECURE_PROXY_SSL_HEADER") and not LOGIN_THROTTLE_IP_HEADER:
    # Behind the proxy every request comes from the proxy's address: one
    # person's failures would throttle everyone.
    raise ImproperlyConfigured(
        "SECURE_PROXY_SSL_HEADER is on, so requests come through a proxy: set LOGIN_THROTTLE_IP_HEADER "
        "to the request.META key of the header the proxy puts the client address in "
        "(HTTP_X_REAL_IP with docs/deploy/nginx.conf)."
    )
# API tokens expire: the default and the longest lifetime, in days.
API_TOKEN_DEFAULT_DAYS = envint("API_TOKEN_DEFAULT_DAYS", 90)
API_TOKEN_MAX_DAYS = envint("API_TOKEN_MAX_DAYS", 365)
# A load balancer's health check speaks plain HTTP to the host.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
# --- end of hardening ------------------------------------------------------
