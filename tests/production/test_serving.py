"""`make serve` and the gunicorn settings it uses."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys

import pytest
from django.conf import settings

CONF = settings.BASE_DIR / "gunicorn.conf.py"


def _make_serve(**env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SECRET_KEY", "ALLOWED_HOSTS"}}
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
    assert "postgres://" in result.stderr


def test_make_serve_refuses_sqlite():
    result = _make_serve(DATABASE_URL="sqlite:///db.sqlite3", SECRET_KEY="k" * 50, ALLOWED_HOSTS="localhost")
    assert result.returncode != 0
    assert "must be a postgres:// URL" in result.stderr


def test_make_serve_without_a_secret_key_says_so():
    result = _make_serve(DATABASE_URL="postgres://postgres@127.0.0.1:5432/x", ALLOWED_HOSTS="localhost")
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
    assert 3 <= conf["workers"] <= 9  # type: ignore[operator]
    assert conf["control_socket_disable"] is True


def test_web_concurrency_sets_the_worker_count(monkeypatch):
    assert _gunicorn_settings(monkeypatch, WEB_CONCURRENCY="4")["workers"] == 4


def test_the_access_log_carries_the_request_id(monkeypatch):
    assert "%({x-request-id}o)s" in _gunicorn_settings(monkeypatch)["access_log_format"]  # type: ignore[operator]


def test_production_serves_hashed_compressed_static_files():
    code = "import reviewapp.settings as s; print(s.STORAGES['staticfiles']['BACKEND'])"
    env = {"PATH": os.environ["PATH"], "DEBUG": "0", "SECRET_KEY": "k" * 50, "ALLOWED_HOSTS": "x"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=settings.BASE_DIR, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "whitenoise.storage.CompressedManifestStaticFilesStorage"
