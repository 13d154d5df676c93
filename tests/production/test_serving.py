"""`make serve` and the gunicorn settings it uses."""

from __future__ import annotations

import json
import os
import re
import runpy
import subprocess
import sys

import pytest
from django.conf import settings

CONF = settings.BASE_DIR / "gunicorn.conf.py"


def _make_serve(**env: str) -> subprocess.CompletedProcess[str]:
    unset = {"DATABASE_URL", "BOOKKEEPING_DATABASE_URL", "SECRET_KEY", "ALLOWED_HOSTS"}
    base = {k: v for k, v in os.environ.items() if k not in unset}
    return subprocess.run(
        ["make", "--no-print-directory", "serve"],
        env={**base, **env},
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_make_serve_without_a_database_url_says_what_to_set():
    result = _make_serve(SECRET_KEY="k" * 50, ALLOWED_HOSTS="localhost")
    assert result.returncode != 0
    assert "DATABASE_URL is not set" in result.stderr
    # It says what each of the two databases is.
    assert "the review app's own database" in result.stderr
    assert "BOOKKEEPING_DATABASE_URL: accounted's" in result.stderr


def test_make_serve_refuses_sqlite():
    result = _make_serve(DATABASE_URL="sqlite:///db.sqlite3", SECRET_KEY="k" * 50, ALLOWED_HOSTS="localhost")
    assert result.returncode != 0
    assert "must be a postgres:// URL" in result.stderr


def test_make_serve_without_a_secret_key_says_so():
    result = _make_serve(
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/x",
        BOOKKEEPING_DATABASE_URL="postgres://postgres@127.0.0.1:5432/y",
        ALLOWED_HOSTS="localhost",
    )
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def _gunicorn_settings(monkeypatch: pytest.MonkeyPatch, **env: str) -> dict[str, object]:
    for name in ("WEB_CONCURRENCY", "GUNICORN_BIND", "GUNICORN_CONTROL_SOCKET"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(CONF))


def test_gunicorn_listens_on_loopback_with_a_capped_worker_count_by_default(monkeypatch):
    conf = _gunicorn_settings(monkeypatch)
    assert conf["bind"] == "127.0.0.1:8000"
    assert 2 <= conf["workers"] <= 4  # type: ignore[operator]
    assert conf["control_socket_disable"] is True


def test_gunicorn_runs_threaded_workers_with_timeouts_and_request_caps(monkeypatch):
    for name in ("GUNICORN_THREADS", "GUNICORN_TIMEOUT", "GUNICORN_GRACEFUL_TIMEOUT", "GUNICORN_KEEPALIVE"):
        monkeypatch.delenv(name, raising=False)
    conf = _gunicorn_settings(monkeypatch)
    # A request waiting on the database holds a thread, not a whole process.
    assert conf["worker_class"] == "gthread"
    assert conf["threads"] == 4
    assert conf["timeout"] == 30
    assert conf["graceful_timeout"] == 30
    assert conf["keepalive"] == 5
    # The caps match nginx's large_client_header_buffers (docs/deploy/nginx.conf).
    assert conf["limit_request_line"] == 8190
    assert conf["limit_request_fields"] == 100
    assert conf["limit_request_field_size"] == 8190


def test_gunicorn_threads_and_timeouts_come_from_the_environment(monkeypatch):
    conf = _gunicorn_settings(monkeypatch, GUNICORN_THREADS="8", GUNICORN_TIMEOUT="60", GUNICORN_KEEPALIVE="2")
    assert (conf["threads"], conf["timeout"], conf["keepalive"]) == (8, 60, 2)


def test_web_concurrency_sets_the_worker_count(monkeypatch):
    assert _gunicorn_settings(monkeypatch, WEB_CONCURRENCY="4")["workers"] == 4


def test_the_access_log_carries_the_request_id(monkeypatch):
    assert "%({x-request-id}o)s" in _gunicorn_settings(monkeypatch)["access_log_format"]  # type: ignore[operator]


def test_production_serves_hashed_compressed_static_files():
    code = "import reviewapp.settings as s; print(s.STORAGES['staticfiles']['BACKEND'])"
    env = {"PATH": os.environ["PATH"], "DEBUG": "0", "SECRET_KEY": "k" * 50, "ALLOWED_HOSTS": "x"}
    # Loading the settings connects to nothing; production settings need both URLs.
    env |= {"DATABASE_URL": "postgres://u@127.0.0.1:1/r", "BOOKKEEPING_DATABASE_URL": "postgres://u@127.0.0.1:1/b"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=settings.BASE_DIR, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "whitenoise.storage.CompressedManifestStaticFilesStorage"


def _installed_apps(**extra: str) -> list[str]:
    code = "import json, reviewapp.settings as s; print(json.dumps(s.INSTALLED_APPS))"
    env = {"PATH": os.environ["PATH"], "SECRET_KEY": "k" * 50, "ALLOWED_HOSTS": "x", **extra}
    env |= {"DATABASE_URL": "postgres://u@127.0.0.1:1/r", "BOOKKEEPING_DATABASE_URL": "postgres://u@127.0.0.1:1/b"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=settings.BASE_DIR, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def test_production_does_not_install_the_development_tools():
    # seed_demo and simulate_intake write made-up rows into accounted's tables: not a command production has.
    assert "devtools" not in _installed_apps(DEBUG="0")
    assert "devtools" in _installed_apps(DEBUG="1")
    assert "devtools" in _installed_apps(DEBUG="0", DEVTOOLS="1")


NGINX = settings.BASE_DIR / "docs" / "deploy" / "nginx.conf"


def _size(value: str) -> int:
    units = {"k": 1024, "m": 1024 * 1024}
    return int(value[:-1]) * units[value[-1]] if value[-1] in units else int(value)


def _directives(text: str, name: str) -> list[str]:
    return re.findall(rf"^\s*{name}\s+([^;{{]+);", text, flags=re.MULTILINE)


def test_the_nginx_body_caps_match_the_apps_upload_limits():
    text = NGINX.read_text(encoding="utf-8")
    general, answer_form = (_size(v) for v in _directives(text, "client_max_body_size"))
    # Room for a form of DATA_UPLOAD_MAX_MEMORY_SIZE, not much more.
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE < general <= 1.2 * settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    # The answer form carries a receipt of RECEIPT_UPLOAD_MAX_BYTES.
    assert "location ~ ^/items/[0-9a-f-]+/answer/ {\n            client_max_body_size" in text
    assert settings.RECEIPT_UPLOAD_MAX_BYTES < answer_form <= 1.2 * settings.RECEIPT_UPLOAD_MAX_BYTES


def test_the_nginx_config_buffers_times_out_slow_clients_and_passes_the_client_address():
    text = NGINX.read_text(encoding="utf-8")
    assert _directives(text, "proxy_buffering") == ["on"]
    assert _directives(text, "proxy_request_buffering") == ["on"]
    assert _directives(text, "client_header_timeout") == ["10s"]
    assert _directives(text, "client_body_timeout") == ["10s"]
    assert "X-Real-IP $remote_addr" in " ".join(_directives(text, "proxy_set_header"))
    assert "X-Forwarded-Proto $scheme" in " ".join(_directives(text, "proxy_set_header"))
    # The upstream is the address `make serve` binds by default.
    assert _directives(text, "server") == ["127.0.0.1:8000"]
