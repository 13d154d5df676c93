"""docs/deploy/nginx.conf in front of gunicorn, for real (``make e2e``).

gunicorn runs with gunicorn.conf.py against the test databases and
production settings behind a proxy (HTTPS redirect on, SECURE_PROXY_SSL_HEADER,
LOGIN_THROTTLE_IP_HEADER=HTTP_X_REAL_IP); nginx runs the documented file with
only its host-specific values replaced (ports, certificate, log, pid and temp
paths, user), both on 127.0.0.1, nginx under a temporary prefix.

Debian's nginx is installed here when it is missing and we are root (CI is);
otherwise the tests are skipped, saying why.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import secrets
import shutil
import socket
import ssl
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connections

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.core import roles
from reviewapp.web.api_auth import create_token
from tests import factories

pytestmark = pytest.mark.e2e

CONF = settings.BASE_DIR / "docs" / "deploy" / "nginx.conf"
SITE = "review.example.com"
START_TIMEOUT = 30.0
SLOW_CLIENTS = 8


def _nginx() -> str:
    """The nginx binary, installing Debian's package when missing and allowed; else skip."""
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
    if found:
        return found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        pytest.skip("nginx is not installed and cannot be installed here (needs root and apt-get)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update"], ["apt-get", "install", "-y", "nginx", "openssl"]):
        result = subprocess.run(command, env=env, capture_output=True, text=True, check=False, timeout=900)
        if result.returncode != 0:
            pytest.skip(f"nginx is not installed and `{' '.join(command)}` failed: {result.stderr[-500:]}")
    found = shutil.which("nginx", path="/usr/sbin:/usr/local/sbin:" + os.environ.get("PATH", ""))
    if not found:
        pytest.skip("nginx is still missing after apt-get install nginx")
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _database_url(alias: str) -> str:
    params = connections[alias].settings_dict
    user = quote(params.get("USER") or "postgres", safe="")
    password = params.get("PASSWORD") or ""
    auth = f"{user}:{quote(password, safe='')}" if password else user
    host = quote(params.get("HOST") or "127.0.0.1", safe="")  # a socket directory is a path
    return f"postgres://{auth}@{host}:{params.get('PORT') or 5432}/{quote(params['NAME'], safe='')}"


def _replace(text: str, old: str, new: str) -> str:
    # The documented file must still contain what this test replaces, once:
    # otherwise the test would be running some other configuration.
    assert text.count(old) == 1, f"docs/deploy/nginx.conf no longer has exactly one {old!r}"
    return text.replace(old, new)


def _wait_until(check: object, what: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"{what} exited with {process.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
        try:
            if check():  # type: ignore[operator]
                return
        except OSError:
            pass
        time.sleep(0.2)
    pytest.fail(f"{what} did not come up in {START_TIMEOUT} s:\n{log.read_text(errors='replace')[-3000:]}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


@dataclass
class Stack:
    http_port: int
    https_port: int
    app_port: int
    gunicorn_log: Path
    tls: ssl.SSLContext

    def https(self, method: str, path: str, *, body: bytes | None = None, headers: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
        conn = http.client.HTTPSConnection("127.0.0.1", self.https_port, context=self.tls, timeout=10)
        try:
            conn.request(method, path, body=body, headers={"Host": SITE, **(headers or {})})
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def plain(self, path: str):  # type: ignore[no-untyped-def]
        conn = http.client.HTTPConnection("127.0.0.1", self.http_port, timeout=10)
        try:
            conn.request("GET", path, headers={"Host": f"127.0.0.1:{self.http_port}"})
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def reached_django(self, marker: str, *, wait: float = 0.0) -> bool:
        # gunicorn writes its access line just after the answer has gone out.
        deadline = time.monotonic() + wait
        while True:
            if marker in self.gunicorn_log.read_text(errors="replace"):
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)


_OPENSSL_REQ = ("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj")


def _certificate(directory: Path) -> tuple[Path, Path]:
    cert, key = directory / "cert.pem", directory / "key.pem"
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is needed for the proxy's test certificate: apt-get install openssl")
    subprocess.run(
        [openssl, *_OPENSSL_REQ, f"/CN={SITE}", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    return cert, key


def _start_gunicorn(
    django_db_blocker: Any, port: int, log: Path, *, host: str = "127.0.0.1", **settings_env: str
) -> tuple[subprocess.Popen[bytes], Path]:
    """gunicorn with gunicorn.conf.py on the test databases, production settings plus ``settings_env``.

    Returns once ``/healthz`` answers 200 (asked with ``Host: host``); the caller stops it with ``_stop``.
    """
    with django_db_blocker.unblock():
        review_url, bookkeeping_url = _database_url("default"), _database_url(BOOKKEEPING_DB)
    unset = {"DATABASE_URL", "BOOKKEEPING_DATABASE_URL", "EMBEDDED_POSTGRES", "WEB_CONCURRENCY"}
    env = {k: v for k, v in os.environ.items() if k not in unset and not k.startswith(("GUNICORN_", "SECURE_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="reviewapp.settings",
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        SECURE_SSL_REDIRECT="0",
        DATABASE_URL=review_url,
        BOOKKEEPING_DATABASE_URL=bookkeeping_url,
        GUNICORN_BIND=f"127.0.0.1:{port}",
    )
    env.update(settings_env)
    with log.open("wb") as out:
        gunicorn = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "reviewapp.wsgi", "-c", "gunicorn.conf.py"],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )

    def healthy() -> bool:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        try:
            conn.request("GET", "/healthz", headers={"Host": host})
            return conn.getresponse().status == 200
        finally:
            conn.close()

    try:
        _wait_until(healthy, "gunicorn", gunicorn, log)
    except BaseException:
        _stop(gunicorn)
        raise
    return gunicorn, log


@pytest.fixture(scope="module")
def stack(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[Stack]:  # type: ignore[no-untyped-def]
    nginx = _nginx()
    root = tmp_path_factory.mktemp("proxy")
    prefix = root / "nginx"
    (prefix / "logs").mkdir(parents=True)
    cert, key = _certificate(root)
    http_port, https_port, app_port = _free_port(), _free_port(), _free_port()

    gunicorn, gunicorn_log = _start_gunicorn(
        django_db_blocker,
        app_port,
        root / "gunicorn.log",
        host=SITE,
        ALLOWED_HOSTS=f"{SITE},127.0.0.1",
        SECURE_SSL_REDIRECT="1",
        SECURE_PROXY_SSL_HEADER="1",
        LOGIN_THROTTLE_IP_HEADER="HTTP_X_REAL_IP",
        # Eight threads in all: as many as the slow clients below.
        WEB_CONCURRENCY="2",
        GUNICORN_THREADS="4",
    )

    nginx_process = None
    try:
        text = CONF.read_text(encoding="utf-8")
        text = _replace(text, "user www-data;", "user root;" if os.geteuid() == 0 else "")
        text = _replace(text, "pid /run/nginx.pid;", f"pid {prefix}/nginx.pid;")
        text = _replace(text, "/var/log/nginx/error.log", f"{prefix}/logs/error.log")
        text = _replace(text, "/var/log/nginx/access.log", f"{prefix}/logs/access.log")
        temp_paths = "".join(
            f"    {kind}_temp_path {prefix}/{kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        text = _replace(text, "http {\n", "http {\n" + temp_paths)
        text = _replace(text, "server 127.0.0.1:8000;", f"server 127.0.0.1:{app_port};")
        text = _replace(text, "listen 80;", f"listen 127.0.0.1:{http_port};")
        text = _replace(text, "listen 443 ssl;", f"listen 127.0.0.1:{https_port} ssl;")
        text = _replace(text, "/etc/ssl/review/fullchain.pem", str(cert))
        text = _replace(text, "/etc/ssl/review/privkey.pem", str(key))
        conf = prefix / "nginx.conf"
        conf.write_text(text, encoding="utf-8")

        base = [nginx, "-p", f"{prefix}/", "-c", str(conf), "-e", f"{prefix}/logs/error.log"]
        checked = subprocess.run([*base, "-t"], capture_output=True, text=True, check=False)
        assert checked.returncode == 0, f"nginx -t refuses docs/deploy/nginx.conf:\n{checked.stderr}"
        nginx_log = prefix / "logs" / "error.log"
        nginx_process = subprocess.Popen(
            [*base, "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

        tls = ssl.create_default_context()
        tls.check_hostname = False
        tls.verify_mode = ssl.CERT_NONE
        stack = Stack(http_port, https_port, app_port, gunicorn_log, tls)
        _wait_until(lambda: stack.plain("/healthz")[0] == 200, "nginx", nginx_process, nginx_log)
        yield stack
    finally:
        if nginx_process is not None:
            _stop(nginx_process)
        _stop(gunicorn)


@pytest.fixture
def token(transactional_db) -> str:  # type: ignore[no-untyped-def]
    # Committed (transactional_db), so gunicorn's own connections see it.
    return create_token(factories.make_user(roles.BOOKKEEPER))


def test_healthz_answers_through_nginx_over_plain_http_and_https(stack):
    status, headers, body = stack.plain("/healthz")
    assert status == 200, body
    assert json.loads(body)["status"] == "ok"
    status, _, body = stack.https("GET", "/healthz")
    assert status == 200, body
    # Everything else on plain HTTP is sent to HTTPS by nginx ...
    status, headers, _ = stack.plain("/")
    assert status == 301
    assert headers["Location"] == "https://127.0.0.1/"
    # ... and over HTTPS the app sees X-Forwarded-Proto: no redirect loop, the login redirect.
    status, headers, _ = stack.https("GET", "/")
    assert status == 302
    assert headers["Location"].startswith("/accounts/login/")


def _declared_body(stack: Stack, path: str, size: int) -> tuple[int, bytes]:
    """Send only the headers of a POST announcing ``size`` bytes; nginx answers before any body."""
    raw = socket.create_connection(("127.0.0.1", stack.https_port), timeout=10)
    with stack.tls.wrap_socket(raw, server_hostname=SITE) as conn:
        conn.sendall(
            f"POST {path} HTTP/1.1\r\nHost: {SITE}\r\nContent-Type: application/octet-stream\r\n"
            f"Content-Length: {size}\r\n\r\n".encode()
        )
        response = http.client.HTTPResponse(conn)  # type: ignore[arg-type]
        response.begin()
        return response.status, response.read()


def test_a_body_over_the_cap_gets_413_from_nginx_without_reaching_django(stack):
    api_probe = f"/api/preview?probe=big-{uuid.uuid4().hex}"
    status, body = _declared_body(stack, api_probe, 2 * 1024 * 1024)
    assert status == 413
    assert b"413 Request Entity Too Large" in body
    # The answer form (a receipt upload) is allowed more, but not without bound.
    item = uuid.uuid4()
    answer_probe = f"/items/{item}/answer/?probe=big-{uuid.uuid4().hex}"
    status, _ = _declared_body(stack, answer_probe, 12 * 1024 * 1024)
    assert status == 413
    # A 2 MiB receipt fits through to Django (which then wants a login and a CSRF token).
    fits = f"/items/{item}/answer/?probe=fits-{uuid.uuid4().hex}"
    status, _, _ = stack.https("POST", fits, body=b"x" * (2 * 1024 * 1024))
    assert status in (302, 403)
    # Logged, so the log would show the refused ones too, had they got through (they came first).
    assert stack.reached_django(fits.split("?")[1], wait=5)
    assert not stack.reached_django(api_probe.split("?")[1])
    assert not stack.reached_django(answer_probe.split("?")[1])


def test_slow_header_clients_do_not_hold_up_a_normal_request(stack, token):
    slow = []
    try:
        for _ in range(SLOW_CLIENTS):
            raw = socket.create_connection(("127.0.0.1", stack.https_port), timeout=10)
            conn = stack.tls.wrap_socket(raw, server_hostname=SITE)
            conn.sendall(b"GET /api/items HTTP/1.1\r\nHo")  # half a request, then nothing
            slow.append(conn)
        opened = time.monotonic()
        time.sleep(0.5)
        latencies = []
        for _ in range(20):
            started = time.monotonic()
            status, _, body = stack.https("GET", "/api/items", headers={"Authorization": f"Bearer {token}"})
            latencies.append(time.monotonic() - started)
            assert status == 200, body
            assert json.loads(body)["results"] == []
        # The slow clients are still there, still waiting: nginx holds them, not gunicorn.
        for conn in slow:
            conn.setblocking(False)
            with pytest.raises((ssl.SSLWantReadError, BlockingIOError)):
                conn.recv(1)
        print(  # the figure docs/deploy/README.md quotes (pytest -s shows it)
            f"\n{SLOW_CLIENTS} slow-header clients held open; normal request through nginx: "
            f"median {statistics.median(latencies) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms"
        )
        assert max(latencies) < 2.0
        # nginx drops them when client_header_timeout (10 s) has passed.
        for conn in slow:
            conn.settimeout(15)
            with contextlib.suppress(ssl.SSLError, ConnectionResetError):  # a reset is a drop too
                assert conn.recv(1024) == b""
        assert 9 <= time.monotonic() - opened < 15
    finally:
        for conn in slow:
            conn.close()
