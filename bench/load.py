"""Load test: gunicorn (gthread, gunicorn.conf.py) on the two databases, many concurrent users.

    .venv/bin/python bench/load.py [--items 100000] [--users 50] [--duration 60]
        [--workers 4] [--threads 4] [--port 8911] [--base-url postgres://postgres@127.0.0.1:5432]
        [--via-proxy] [--slow-clients N] [--think S] [--name bench_load] [--keep] [--reuse]

What it does, in order:

1. (Re)creates two databases of its own (``bench_load_review`` and
   ``bench_load_bookkeeping``; never the test or server databases), migrates
   the review database, builds the bookkeeping replica from the contract,
   fills it with ``seed_demo --items N --no-users`` (COPY, as accounted's
   intake writes the rows), brings the list's read model up to date
   (``sync.poll()``) and runs VACUUM ANALYZE on both.
2. Creates the load users (4 in 5 bookkeepers, assigned every company; 1 in 5
   QA), a session and an API token for each, and runs ``collectstatic``.
3. Starts ``gunicorn reviewapp.wsgi -c gunicorn.conf.py`` (gthread) with
   ``--workers`` processes of ``--threads`` threads on 127.0.0.1, production
   settings (DEBUG off, hashed static files).
   With ``--via-proxy``, also nginx with docs/deploy/nginx.conf, only its
   host-specific values replaced as tests/production/test_proxy.py does
   (ports, a throwaway self-signed certificate, log/pid/temp paths, user),
   and the app behind it as in production (SECURE_PROXY_SSL_HEADER,
   LOGIN_THROTTLE_IP_HEADER); the load then goes through nginx over HTTPS.
4. Runs ``--users`` concurrent virtual users for ``--duration`` seconds, each
   on its own kept-alive connection (as a browser). Each loops over: the list
   (filters, pages, search), an item page, a preview post (``/api/preview``,
   QA users) and an answer post (``/api/items/<id>/answer``, bookkeepers, the
   API's JSON body) to a question moved to the app. One answer target in ten
   is handed to two users, so the "exactly one answer wins" path runs under
   load too (the loser gets 409).
   ``--think S`` makes each user wait between two actions as a person does:
   a random time drawn from an exponential distribution averaging S seconds
   (each user from its own seeded generator, so a run can be repeated), and
   before its first one too, so the users arrive spread out as people do
   rather than 50 list requests at the same instant. With
   the default 0 every user sends its next request at once: a saturation run.
   ``--slow-clients N`` (needs ``--via-proxy``; at most 100) keeps N
   slow-header connections open against nginx for the whole run, on
   loopback: each sends half a request, then one header byte a second, and
   reconnects when nginx drops it (``client_header_timeout``); they stop
   with the load.
5. Stops nginx and gunicorn and checks the databases: every 200 answer left
   exactly one ``ClarificationEvent`` (the app's log) and exactly one
   ``ChannelQuestionAnswered`` row in accounted's ``processing_history``, and
   its own text in ``channel_context``; no question was accepted twice; every
   409 lost to a recorded answer; and as many of each log row were written as
   answers were accepted (none lost, none doubled).

``--idle-queues N [--poll-interval S]`` (issue 38 part 3) measures what open,
idle queues cost instead of step 4: N bookkeepers each have their queue open
and poll it as the page does (``HX-Trigger: inbox-live``, ``If-None-Match``
with the tag the first answer gave) every S seconds (default 10), each at its
own phase. The server's CPU (gunicorn's processes and the PostgreSQL backends
of the two databases, from /proc) is read over ``--duration`` seconds with no
request at all, then over ``--duration`` seconds of polling; it prints both as
a share of one core, and the polls' latency and statuses (every poll should be
a 304: nothing changes during the run).

The client is a small asyncio HTTP/1.1 client from the standard library.
Latencies are measured in the client, so they include queueing for a free
thread. The client runs on the same machine as gunicorn, nginx and PostgreSQL
and takes CPU from them.

It prints requests per second, p50/p95/p99 latency per kind of request and
overall, the error count (anything but the expected status: 200 for reads and
previews, 200 or 409 for answers; a timeout or a dropped connection), the
slow clients' fate and the verification; raw figures go to bench/results/.
Exit status 1 when there was any error or the verification failed. Both
databases are dropped at the end unless ``--keep`` (``--reuse`` runs again on
kept ones: answered questions stay answered, so fewer are left to answer).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import benchdb

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DEFAULT_BASE = "postgres://postgres@127.0.0.1:5432"
HOST = "127.0.0.1"  # everything, the slow clients too, stays on loopback
SITE = "review.example.com"  # the name in docs/deploy/nginx.conf
NGINX_CONF = ROOT / "docs" / "deploy" / "nginx.conf"
GOLDEN = ROOT.parent / "shared" / "golden" / "clarifications.jsonl"
MARKER = "load-test"
MAX_SLOW_CLIENTS = 100
SLOWEST_SHOWN = 15
REQUEST_TIMEOUT = 60.0
START_TIMEOUT = 60.0

LIST_PATHS = [
    "/",
    "/?state=needs_answer",
    "/?state=needs_answer&sort=queue",
    "/?state=needs_answer&sort=question_age",
    "/?state=waiting_in_chat",
    "/?state=denied",
    "/?q=lindqvist",
    "/?page={page}",
]


# --- Set-up -------------------------------------------------------------------


def _server_env(review_url: str, bookkeeping_url: str, media_root: str, *, via_proxy: bool) -> dict[str, str]:
    # Nothing inherited that would change the server: its databases, gunicorn's and the HTTPS settings.
    unset = {"DATABASE_URL", "BOOKKEEPING_DATABASE_URL", "EMBEDDED_POSTGRES", "WEB_CONCURRENCY", "DOCUMENTS_ROOT"}
    env = {k: v for k, v in os.environ.items() if k not in unset and not k.startswith(("GUNICORN_", "SECURE_"))}
    env.update(
        DATABASE_URL=review_url,
        BOOKKEEPING_DATABASE_URL=bookkeeping_url,
        SECRET_KEY=secrets.token_urlsafe(50),
        DEBUG="0",
        DEVTOOLS="0",  # served as in production; only this script's own set-up uses devtools
        ALLOWED_HOSTS=f"{SITE},{HOST}",
        MEDIA_ROOT=media_root,
        DJANGO_SETTINGS_MODULE="reviewapp.settings",
        LOG_LEVEL="WARNING",
    )
    if via_proxy:
        # As in production behind docs/deploy/nginx.conf (README, "Production").
        env.update(SECURE_SSL_REDIRECT="1", SECURE_PROXY_SSL_HEADER="1", LOGIN_THROTTLE_IP_HEADER="HTTP_X_REAL_IP")
    else:
        env.update(SECURE_SSL_REDIRECT="0")
    return env


def _setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    os.environ["DEVTOOLS"] = "1"  # the fill runs devtools' seed_demo, which DEBUG off leaves out
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def _execute(alias: str, sql: str) -> Any:
    from django.db import connections

    with connections[alias].cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchall() if cursor.description else None


def _check_connections(workers: int, threads: int) -> None:
    """Refuse a run whose server would need more database connections than are free."""
    needed = workers * threads * 2  # each thread holds one to each database
    limit = int(_execute("default", "SHOW max_connections")[0][0])
    used = int(_execute("default", "SELECT count(*) FROM pg_stat_activity")[0][0])
    if used + needed + 5 > limit:
        raise SystemExit(
            f"{workers} workers x {threads} threads need {needed} database connections; "
            f"PostgreSQL allows {limit} and {used} are in use. Use fewer workers or threads."
        )


def _seed(items: int) -> None:
    from django.core.management import call_command
    from django.db import connections

    from devtools import demo
    from reviewapp.bookkeeping import replica
    from reviewapp.bookkeeping.models import InboxItem
    from reviewapp.readmodel import sync

    call_command("migrate", verbosity=0)
    if not replica.has_inbox_table(connections["bookkeeping"]):
        replica.create()
    have = InboxItem.objects.count()
    started = time.monotonic()
    if have < items:
        call_command(
            "seed_demo",
            items=items - have,
            seed=items,
            no_users=True,
            receipt_files=demo.BENCH_RECEIPT_FILES,
            verbosity=1,
        )
    else:
        print(f"reusing {have:,} items", flush=True)
    sync.poll()
    _execute("bookkeeping", "VACUUM ANALYZE")
    _execute("default", "VACUUM ANALYZE")
    print(f"{items:,} items ready in {time.monotonic() - started:.0f} s", flush=True)


@dataclass
class Identity:
    username: str
    cookie: str  # session cookie header value
    token: str  # API bearer token
    role: str


def _identities(users: int) -> list[Identity]:
    """Load users: 4 in 5 bookkeepers (browse, answer) with every company assigned, 1 in 5 QA (browse, preview)."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import Group, User
    from django.contrib.sessions.backends.db import SessionStore

    from reviewapp.bookkeeping.models import Company
    from reviewapp.core import roles
    from reviewapp.models import CompanyAssignment
    from reviewapp.web.api_auth import create_token

    companies = list(Company.objects.values_list("id", flat=True))
    made = []
    for n in range(users):
        role = roles.QA if n % 5 == 4 else roles.BOOKKEEPER
        user, _ = User.objects.get_or_create(username=f"load{n:03d}")
        user.set_unusable_password()
        user.save()
        user.groups.set([Group.objects.get(name=role)])
        if role == roles.BOOKKEEPER:
            CompanyAssignment.objects.bulk_create(
                [CompanyAssignment(user=user, company_id=company) for company in companies], ignore_conflicts=True
            )
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]  # as login() records it
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        cookie = f"{settings.SESSION_COOKIE_NAME}={session.session_key}"
        made.append(Identity(user.username, cookie, create_token(user), role))
    return made


def _answer_targets() -> list[tuple[str, str]]:
    """(item id, question type) of every question waiting in the app, in random order."""
    from reviewapp.models import IndexedItem

    rows = [
        (str(pk), str(qtype))
        for pk, qtype in IndexedItem.objects.filter(state_needs_answer=True, open_question_type__isnull=False)
        .values_list("pk", "open_question_type")
        .iterator()
    ]
    random.Random(7).shuffle(rows)
    return rows


def _item_ids(n: int) -> list[str]:
    from reviewapp.models import IndexedItem

    return [str(pk) for pk in IndexedItem.objects.order_by("?").values_list("pk", flat=True)[:n]]


def _preview_inputs() -> list[bytes]:
    inputs = []
    if GOLDEN.exists():
        for line in GOLDEN.read_text(encoding="utf-8").splitlines():
            if line.strip():
                case = json.loads(line)
                if "channel_context" in case["input"]:
                    inputs.append(json.dumps(case["input"]).encode())
    return inputs or [b'{"channel_context": {"channel": "whatsapp", "user_note": "taxi till kund"}}']


@dataclass(frozen=True)
class LogMarks:
    """Where both answer logs end before the run: rows past these were written by it."""

    clarification_event_id: int
    history_seq: int


def _log_marks() -> LogMarks:
    from django.db.models import Max

    from reviewapp.bookkeeping.models import ProcessingHistory
    from reviewapp.models import ClarificationEvent

    return LogMarks(
        ClarificationEvent.objects.aggregate(m=Max("id"))["m"] or 0,
        ProcessingHistory.objects.aggregate(m=Max("seq"))["m"] or 0,
    )


# --- The servers --------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _stop(process: subprocess.Popen[bytes] | None) -> None:
    """Stop a server started in its own process group, and everything it started."""
    if process is None or process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _wait_until(check: Any, what: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{what} exited with {process.returncode}; see {log}")
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            if check():
                return
        time.sleep(0.3)
    raise SystemExit(f"{what} did not answer within {START_TIMEOUT:.0f} s; see {log}")


def _start_gunicorn(env: dict[str, str], port: int, workers: int, threads: int) -> subprocess.Popen[bytes]:
    server_env = {**env, "GUNICORN_BIND": f"{HOST}:{port}", "WEB_CONCURRENCY": str(workers)}
    server_env["GUNICORN_THREADS"] = str(threads)
    log_path = RESULTS / "gunicorn-load.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "reviewapp.wsgi", "-c", "gunicorn.conf.py"],
            cwd=ROOT,
            env=server_env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    direct = Target(port, None)
    try:
        _wait_until(lambda: asyncio.run(direct.fetch("/healthz"))[0] == 200, "gunicorn", process, log_path)
    except BaseException:
        _stop(process)
        raise
    return process


def _nginx_binary() -> str:
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
    if not found:
        raise SystemExit("--via-proxy needs nginx (Debian: apt-get install nginx)")
    return found


def _replace(text: str, old: str, new: str) -> str:
    # The documented file must still hold what is replaced, once: else this would run another configuration.
    if text.count(old) != 1:
        raise SystemExit(f"docs/deploy/nginx.conf no longer has exactly one {old!r}; update bench/load.py")
    return text.replace(old, new)


def _nginx_conf(prefix: Path, app_port: int, http_port: int, https_port: int, cert: Path, key: Path) -> Path:
    """docs/deploy/nginx.conf with only its host-specific values replaced (as tests/production/test_proxy.py)."""
    text = NGINX_CONF.read_text(encoding="utf-8")
    text = _replace(text, "user www-data;", "user root;" if os.geteuid() == 0 else "")
    text = _replace(text, "pid /run/nginx.pid;", f"pid {prefix}/nginx.pid;")
    text = _replace(text, "/var/log/nginx/error.log", f"{prefix}/logs/error.log")
    text = _replace(text, "/var/log/nginx/access.log", f"{prefix}/logs/access.log")
    temp_paths = "".join(
        f"    {kind}_temp_path {prefix}/{kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    text = _replace(text, "http {\n", "http {\n" + temp_paths)
    text = _replace(text, "server 127.0.0.1:8000;", f"server {HOST}:{app_port};")
    text = _replace(text, "listen 80;", f"listen {HOST}:{http_port};")
    text = _replace(text, "listen 443 ssl;", f"listen {HOST}:{https_port} ssl;")
    text = _replace(text, "/etc/ssl/review/fullchain.pem", str(cert))
    text = _replace(text, "/etc/ssl/review/privkey.pem", str(key))
    conf = prefix / "nginx.conf"
    conf.write_text(text, encoding="utf-8")
    return conf


def _start_nginx(workdir: Path, app_port: int) -> tuple[subprocess.Popen[bytes], int]:
    """nginx in front of gunicorn under ``workdir``; the process and its HTTPS port."""
    nginx = _nginx_binary()
    openssl = shutil.which("openssl")
    if openssl is None:
        raise SystemExit("--via-proxy needs openssl for the proxy's throwaway certificate")
    prefix = workdir / "nginx"
    (prefix / "logs").mkdir(parents=True)
    cert, key = workdir / "cert.pem", workdir / "key.pem"
    request = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={SITE}"]
    subprocess.run(
        [openssl, *request, "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    http_port, https_port = _free_port(), _free_port()
    conf = _nginx_conf(prefix, app_port, http_port, https_port, cert, key)
    base = [nginx, "-p", f"{prefix}/", "-c", str(conf), "-e", f"{prefix}/logs/error.log"]
    checked = subprocess.run([*base, "-t"], capture_output=True, text=True, check=False)
    if checked.returncode != 0:
        raise SystemExit(f"nginx -t refuses docs/deploy/nginx.conf:\n{checked.stderr}")
    process = subprocess.Popen(
        [*base, "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    proxy = Target(https_port, _client_tls())
    try:
        _wait_until(
            lambda: asyncio.run(proxy.fetch("/healthz"))[0] == 200, "nginx", process, prefix / "logs" / "error.log"
        )
    except BaseException:
        _stop(process)
        raise
    return process, https_port


# --- The client ---------------------------------------------------------------


def _client_tls() -> ssl.SSLContext:
    tls = ssl.create_default_context()
    tls.check_hostname = False  # the proxy's throwaway self-signed certificate
    tls.verify_mode = ssl.CERT_NONE
    return tls


class _Closed(Exception):
    """The server had closed the kept-alive connection before it read anything of this request."""


@dataclass(frozen=True)
class Target:
    """Where the load goes: gunicorn directly (plain HTTP) or nginx (HTTPS)."""

    port: int
    tls: ssl.SSLContext | None

    async def open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self.tls is None:
            return await asyncio.open_connection(HOST, self.port)
        return await asyncio.open_connection(HOST, self.port, ssl=self.tls, server_hostname=SITE)

    async def fetch(self, path: str) -> tuple[int, bytes]:
        connection = Connection(self)
        try:
            status, payload = await asyncio.wait_for(connection.request("GET", path, {}), 5)
        finally:
            connection.close()
        return status, payload


class Connection:
    """One kept-alive HTTP/1.1 connection (as a browser keeps one), reopened when the server closes it."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def request(
        self, method: str, path: str, headers: dict[str, str], body: bytes = b"", *, want_header: str = ""
    ) -> tuple[int, Any]:
        """(status, body); with ``want_header``, (status, that response header's value) instead of the body."""
        self.want_header = want_header
        reused = self.writer is not None and self.reader is not None and not self.reader.at_eof()
        if not reused:
            self.close()
            self.reader, self.writer = await self.target.open()
        try:
            return await self._exchange(method, path, headers, body)
        except _Closed:
            self.close()
            if not reused:
                raise ConnectionResetError("the server closed a new connection without answering") from None
        # The server closed the idle connection as this request went out, before
        # reading any of it (keep-alive timeout, a worker restarting): once more on a new one.
        self.reader, self.writer = await self.target.open()
        try:
            return await self._exchange(method, path, headers, body)
        except _Closed:
            self.close()
            raise ConnectionResetError("the server closed the connection without answering") from None

    async def _exchange(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, bytes]:
        assert self.reader is not None
        assert self.writer is not None
        reader, writer = self.reader, self.writer
        lines = [f"{method} {path} HTTP/1.1", f"Host: {SITE}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        try:
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as exc:
            if not exc.partial:
                raise _Closed from None
            raise
        except (ConnectionResetError, BrokenPipeError):
            raise _Closed from None
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        response_headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            if name:
                response_headers[name.strip().lower()] = value.strip()
        if response_headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers
                        pass
                    break
                parts.append(await reader.readexactly(size))
                await reader.readexactly(2)
            payload = b"".join(parts)
        elif "content-length" in response_headers:
            payload = await reader.readexactly(int(response_headers["content-length"]))
        elif status in (204, 304) or status < 200:
            payload = b""
        else:
            payload = await reader.read()
            self.close()
        if response_headers.get("connection", "").lower() == "close":
            self.close()
        if getattr(self, "want_header", ""):
            return status, response_headers.get(self.want_header, "")
        return status, payload


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, Counter[int]] = field(default_factory=lambda: defaultdict(Counter))
    errors: list[str] = field(default_factory=list)
    # item id -> [(status, marker, reason of a 409)] for every answer post
    answers: dict[str, list[tuple[int, str, str]]] = field(default_factory=lambda: defaultdict(list))
    question_types: dict[str, str] = field(default_factory=dict)
    # The slow clients: connections opened, how long nginx let each live, failures to connect.
    slow_opened: int = 0
    slow_lifetimes: list[float] = field(default_factory=list)
    slow_connect_failures: int = 0
    # Every request: (seconds from the start of the load, ms, kind, method and path), to see
    # whether the slowest ones cluster (a burst, a pass of the sync) or are spread out.
    timeline: list[tuple[float, float, str, str]] = field(default_factory=list)
    began: float = field(default_factory=time.perf_counter)


def _answer_body(qtype: str, marker: str) -> bytes:
    """The answer API's body for the question (reviewapp/answers/from_json.py)."""
    body: dict[str, Any]
    if qtype == "representation":
        body = {
            "question": "representation",
            "participants": [{"name": "Lasse Last", "company": "Belastning AB"}, {"name": "Ada Andersson"}],
            "purpose": f"Kundmöte {marker}",
            "raw_answer": f"Lasse Last från Belastning AB och Ada. Kundmöte {marker}",
            "raw_answer_via": "phone",  # customer's words need their source (reviewapp/answers/evidence.py)
        }
    elif qtype == "context":
        body = {
            "question": "context",
            "text": f"Kontorsmaterial {marker}",
            "raw_answer": f"kontorsgrejer {marker}",
            "raw_answer_via": "email",
        }
    else:
        body = {"question": "resend", "readable": True}
    return json.dumps(body).encode()


def _reason(payload: bytes) -> str:
    try:
        return str(json.loads(payload).get("reason", ""))
    except (ValueError, AttributeError):
        return ""


class Load:
    def __init__(
        self,
        target: Target,
        identities: list[Identity],
        targets: list[tuple[str, str]],
        item_ids: list[str],
        think: float = 0.0,
    ) -> None:
        self.target = target
        self.think = think
        self.identities = identities
        self.item_ids = item_ids
        self.previews = _preview_inputs()
        self.stats = Stats()
        # Every tenth target twice in a row: two users take it at (nearly) the same moment.
        self.queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        for n, answer_target in enumerate(targets):
            self.queue.put_nowait(answer_target)
            if n % 10 == 0:
                self.queue.put_nowait(answer_target)

    async def _timed(
        self, connection: Connection, kind: str, method: str, path: str, headers: dict[str, str], body: bytes = b""
    ) -> tuple[int, bytes]:
        started = time.perf_counter()
        try:
            status, payload = await asyncio.wait_for(connection.request(method, path, headers, body), REQUEST_TIMEOUT)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError, IndexError) as exc:
            connection.close()
            self.stats.errors.append(f"{kind} {method} {path}: {type(exc).__name__} {exc}")
            return 0, b""
        self.stats.latencies[kind].append((time.perf_counter() - started) * 1000)
        self.stats.timeline.append(
            (started - self.stats.began, self.stats.latencies[kind][-1], kind, f"{method} {path.split('?')[0]}")
        )
        self.stats.statuses[kind][status] += 1
        expected = {200, 409} if kind == "answer" else {200}
        if status not in expected:
            self.stats.errors.append(f"{kind} {method} {path}: {status} {payload[:200]!r}")
        return status, payload

    async def _think(self, rng: random.Random, deadline: float) -> bool:
        """A person's pause between two actions (exponential, averaging ``self.think`` seconds); False: time is up.

        A pause cut short by the end of the run sends nothing after it: every
        user doing so at the same instant would be a burst of the harness's making.
        """
        if self.think > 0:
            await asyncio.sleep(max(0.0, min(rng.expovariate(1 / self.think), deadline - time.monotonic())))
        return time.monotonic() < deadline

    async def user(self, who: Identity, deadline: float, rng: random.Random) -> None:
        from reviewapp.core import roles

        connection = Connection(self.target)
        page_headers = {"Cookie": who.cookie, "Accept-Language": "sv"}
        api_headers = {"Authorization": f"Bearer {who.token}", "Content-Type": "application/json"}
        try:
            # People do not all click at the same instant: with a think time each
            # user arrives after a first pause, instead of 50 list requests at t=0.
            if not await self._think(rng, deadline):
                return
            while time.monotonic() < deadline:
                path = rng.choice(LIST_PATHS).format(page=rng.randint(1, 200))
                await self._timed(connection, "list", "GET", path, page_headers)
                if not await self._think(rng, deadline):
                    break
                item_path = f"/items/{rng.choice(self.item_ids)}/"
                await self._timed(connection, "item", "GET", item_path, page_headers)
                if not await self._think(rng, deadline):
                    break
                if who.role == roles.QA:
                    preview = rng.choice(self.previews)
                    await self._timed(connection, "preview", "POST", "/api/preview", api_headers, preview)
                    if not await self._think(rng, deadline):
                        break
                    continue
                if rng.random() < 0.5 or self.queue.empty():
                    continue
                item_id, qtype = self.queue.get_nowait()
                marker = f"{MARKER} {uuid.uuid4().hex[:12]}"
                status, payload = await self._timed(
                    connection,
                    "answer",
                    "POST",
                    f"/api/items/{item_id}/answer",
                    api_headers,
                    _answer_body(qtype, marker),
                )
                self.stats.answers[item_id].append((status, marker, _reason(payload) if status == 409 else ""))
                self.stats.question_types[item_id] = qtype
                if not await self._think(rng, deadline):
                    break
        finally:
            connection.close()

    async def slow_client(self, deadline: float) -> None:
        """Half a request, then a header byte a second, never finished; a new one when nginx drops it."""
        while time.monotonic() < deadline:
            try:
                reader, writer = await asyncio.wait_for(self.target.open(), 10)
            except (TimeoutError, OSError):
                self.stats.slow_connect_failures += 1
                await asyncio.sleep(1)
                continue
            self.stats.slow_opened += 1
            opened = time.monotonic()
            try:
                writer.write(f"GET /api/items HTTP/1.1\r\nHost: {SITE}\r\nX-Slow: ".encode())
                await writer.drain()
                while time.monotonic() < deadline:
                    try:
                        data = await asyncio.wait_for(reader.read(1024), 1.0)
                    except TimeoutError:
                        writer.write(b"a")
                        await writer.drain()
                        continue
                    # The end of the connection, or an error page before it: nginx dropped it.
                    self.stats.slow_lifetimes.append(time.monotonic() - opened)
                    del data
                    break
            except OSError:
                self.stats.slow_lifetimes.append(time.monotonic() - opened)
            finally:
                writer.close()

    async def run(self, users: int, duration: float, slow_clients: int) -> float:
        deadline = time.monotonic() + duration
        self.stats.began = time.perf_counter()
        started = time.monotonic()
        await asyncio.gather(
            *(self.user(self.identities[n % len(self.identities)], deadline, random.Random(n)) for n in range(users)),
            *(self.slow_client(deadline) for _ in range(slow_clients)),
        )
        return time.monotonic() - started


# --- Checks and report --------------------------------------------------------


def _verify(stats: Stats, marks: LogMarks) -> list[str]:
    """Every accepted answer is stored once, with its own text, in both logs; none was lost or doubled."""
    from django.db.models import Count

    from reviewapp.bookkeeping.models import InboxItem, ProcessingHistory
    from reviewapp.core import states
    from reviewapp.models import ClarificationEvent

    answered = ClarificationEvent.ANSWERED
    app_log = ClarificationEvent.objects.filter(id__gt=marks.clarification_event_id, event_type=answered)
    history = ProcessingHistory.objects.filter(seq__gt=marks.history_seq, event_type=answered)
    events = {
        str(item): n for item, n in app_log.values_list("item_id").annotate(n=Count("id")).values_list("item_id", "n")
    }
    per_item = history.values_list("aggregate_id").annotate(n=Count("event_id"))
    entries = {str(item): n for item, n in per_item.values_list("aggregate_id", "n")}
    problems = []
    posted = list(stats.answers)
    rows = {str(i.pk): i for i in InboxItem.objects.filter(pk__in=posted)}
    accepted = 0
    for item_id, outcomes in stats.answers.items():
        won = [marker for status, marker, _ in outcomes if status == 200]
        lost_to_an_answer = [marker for status, marker, reason in outcomes if status == 409 and reason == "not_open"]
        accepted += len(won)
        logged = (events.get(item_id, 0), entries.get(item_id, 0))
        if len(won) > 1:
            problems.append(f"{item_id}: {len(won)} answers accepted for one question")
        if won:
            if logged != (1, 1):
                problems.append(f"{item_id}: accepted, but {logged[0]} ClarificationEvent, {logged[1]} history rows")
            item = rows[item_id]
            context = json.dumps(item.channel_context, ensure_ascii=False)
            # A resend answer carries no text; the others must hold the winner's own words.
            if stats.question_types[item_id] != "resend" and won[0] not in context:
                problems.append(f"{item_id}: the accepted answer's text is not in channel_context")
            computed = states.compute(item.channel_context, item.extracted_data, booked=item.is_booked)
            if states.NEEDS_ANSWER in computed.states:
                problems.append(f"{item_id}: accepted, but the question still waits in the app")
        elif lost_to_an_answer and logged != (1, 1):
            problems.append(f"{item_id}: refused as answered (409), but {logged[0]} events, {logged[1]} history rows")
        elif not lost_to_an_answer and any(status == 409 for status, _, _ in outcomes) and logged != (0, 0):
            problems.append(f"{item_id}: refused (409, nothing written), but {logged} log rows")
    # Rows for items nobody was told were accepted: lost answers, or a log written twice.
    total_events, total_entries = sum(events.values()), sum(entries.values())
    client_errors_on_answers = sum(1 for line in stats.errors if line.startswith("answer "))
    if not client_errors_on_answers and (total_events, total_entries) != (accepted, accepted):
        problems.append(
            f"{accepted} answers accepted, but {total_events} ClarificationEvent and "
            f"{total_entries} ChannelQuestionAnswered rows written during the run"
        )
    return problems


def _percentiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) < 2:
        v = values[0] if values else 0.0
        return v, v, v
    q = statistics.quantiles(values, n=100, method="inclusive")
    return statistics.median(values), q[94], q[98]


def _report(stats: Stats, elapsed: float, args: argparse.Namespace, problems: list[str]) -> dict[str, Any]:
    total = sum(len(v) for v in stats.latencies.values())
    path = "through nginx (HTTPS, docs/deploy/nginx.conf)" if args.via_proxy else "straight to gunicorn (HTTP)"
    print(
        f"\n## Load: {args.users} users, gunicorn {args.workers} workers x {args.threads} threads (gthread), "
        f"{args.items:,} items, {elapsed:.0f} s on {HOST}, {path}"
        + (f", think time {args.think:g} s (exponential)" if args.think else ", no think time")
        + (f", {args.slow_clients} slow-header clients held open" if args.slow_clients else "")
        + "\n"
    )
    print("| request | count | req/s | p50 ms | p95 ms | p99 ms | statuses |")
    print("|---|---:|---:|---:|---:|---:|---|")
    rows = {}
    everything: list[float] = []
    for kind in ("list", "item", "preview", "answer"):
        values = stats.latencies.get(kind, [])
        everything += values
        p50, p95, p99 = _percentiles(values)
        statuses = ", ".join(f"{s}×{n}" for s, n in sorted(stats.statuses[kind].items()))
        print(
            f"| {kind} | {len(values)} | {len(values) / elapsed:.1f} | {p50:.0f} | {p95:.0f} | {p99:.0f} | {statuses} |"
        )
        rows[kind] = {"count": len(values), "p50": p50, "p95": p95, "p99": p99, "statuses": dict(stats.statuses[kind])}
    p50, p95, p99 = _percentiles(everything)
    print(f"| **all** | {total} | {total / elapsed:.1f} | {p50:.0f} | {p95:.0f} | {p99:.0f} | |")
    accepted = sum(1 for o in stats.answers.values() for s, _, _ in o if s == 200)
    reasons = Counter(reason for o in stats.answers.values() for s, _, reason in o if s == 409)
    print(f"\nErrors: {len(stats.errors)}")
    for line in stats.errors[:20]:
        print(f"  {line}")
    refused = ", ".join(f"{n} {reason or '?'}" for reason, n in sorted(reasons.items())) or "none"
    print(f"Answers: {accepted} accepted, refused with 409: {refused}; {len(stats.answers)} questions posted to")
    slow: dict[str, Any] = {}
    if args.slow_clients:
        lifetimes = stats.slow_lifetimes
        slow = {
            "clients": args.slow_clients,
            "connections_opened": stats.slow_opened,
            "dropped_by_nginx": len(lifetimes),
            "median_lifetime_s": statistics.median(lifetimes) if lifetimes else None,
            "connect_failures": stats.slow_connect_failures,
        }
        held = f"median {statistics.median(lifetimes):.1f} s" if lifetimes else "none dropped"
        print(
            f"Slow-header clients: {args.slow_clients} held open for the whole run; {stats.slow_opened} "
            f"connections opened, {len(lifetimes)} dropped by nginx ({held} after opening), "
            f"{stats.slow_connect_failures} failed to connect"
        )
    slowest = sorted(stats.timeline, key=lambda entry: -entry[1])[:SLOWEST_SHOWN]
    print(f"The {len(slowest)} slowest requests (seconds into the load, ms, kind, request):")
    for offset, ms, kind, request in sorted(slowest):
        print(f"  {offset:5.1f} s  {ms:6.0f} ms  {kind:8s} {request}")
    print(f"Verification: {'OK' if not problems else f'{len(problems)} problem(s)'}")
    for line in problems[:20]:
        print(f"  {line}")
    return {
        "users": args.users,
        "workers": args.workers,
        "threads": args.threads,
        "items": args.items,
        "via_proxy": args.via_proxy,
        "think": args.think,
        "load_average": os.getloadavg(),
        "slow_clients": slow,
        "seconds": elapsed,
        "requests": total,
        "rps": total / elapsed,
        "p50": p50,
        "p95": p95,
        "p99": p99,
        "errors": len(stats.errors),
        "accepted": accepted,
        "refused": dict(reasons),
        "verification_problems": problems,
        "per_kind": rows,
        "slowest": [
            {"at_s": offset, "ms": ms, "kind": kind, "request": request} for offset, ms, kind, request in slowest
        ],
    }


# --- Idle open queues (--idle-queues) --------------------------------------------

QUEUE_PATH = "/?state=needs_answer&sort=queue"


def _cpu_of(pid: int) -> float | None:
    """User and system CPU seconds of ``pid`` from /proc; None when it has ended."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def _cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time of ``pids`` (the ones still alive), from /proc."""
    return sum(seconds for pid in pids if (seconds := _cpu_of(pid)) is not None)


def _children(parent: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == parent:
                    found.append(int(entry.name))
    return found


def _backends(databases: tuple[str, ...]) -> list[int]:
    """The PostgreSQL backends connected to ``databases``, by their process titles ("postgres: ... DB host ...")."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                if title.startswith("postgres: ") and any(f" {name} " in title for name in databases):
                    found.append(int(entry.name))
    return found


class CpuMeter:
    """The CPU seconds a group of processes spends over a window, whichever of them start or end in it.

    Sampled from /proc every quarter second in a thread: a process that ends
    in the window (a database connection closed at its CONN_MAX_AGE, then
    opened again) counts up to its last sample, and one that starts counts
    from zero. Reading only the processes alive at the two ends lost the
    first kind: before 2026-12-05 evening, PostgreSQL's share of the idle-queue
    figures could come out too low, or below zero.
    """

    def __init__(self, find: Any, every: float = 0.25) -> None:
        self.find = find
        self.every = every
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self, *, at_start: bool = False) -> None:
        for pid in self.find():
            # Ended since it was listed: its last sample stands (a read of 0 would undo it).
            if (seconds := _cpu_of(pid)) is None:
                continue
            self.first.setdefault(pid, seconds if at_start else 0.0)
            self.last[pid] = seconds

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self._sample()

    def start(self) -> None:
        self._sample(at_start=True)
        self._thread.start()

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        self._sample()
        return sum(self.last[pid] - self.first[pid] for pid in self.last)


class IdleQueues:
    """N open queues, each polling as templates/inbox/list.html and static/js/inbox.js do.

    ``open`` loads each queue's page once, as its bookkeeper did when opening it, and keeps
    the tag it carries; ``run`` only polls. Opening is not idling: a run that loaded the 50
    pages inside its measured minute (before 2026-12-05 evening) counted 50 whole list pages
    in the figure of the polls.
    """

    def __init__(self, target: Target, identities: list[Identity], interval: float) -> None:
        self.target = target
        self.identities = identities
        self.interval = interval
        self.stats = Stats()
        self.tags: dict[str, str] = {}

    @staticmethod
    def _headers(who: Identity) -> dict[str, str]:
        return {"Cookie": who.cookie, "Accept-Language": "sv", "HX-Request": "true", "HX-Trigger": "inbox-live"}

    async def open(self) -> None:
        """Each queue's page once: the tag the open page holds (what the list answers without one)."""
        for who in self.identities:
            connection = Connection(self.target)
            try:
                status, tag = await connection.request("GET", QUEUE_PATH, self._headers(who), want_header="etag")
            finally:
                connection.close()
            if status != 200 or not tag:
                raise RuntimeError(f"the queue answered {status} without an ETag")
            self.tags[who.username] = tag

    async def queue(self, who: Identity, deadline: float, phase: float, interval: float, reconnect: bool) -> None:
        connection = Connection(self.target)
        headers = self._headers(who)
        try:
            await asyncio.sleep(phase)
            while time.monotonic() < deadline:
                started = time.perf_counter()
                tag = self.tags[who.username]
                try:
                    # The answer's tag: a 304 repeats the one held, a 200 brings the new one.
                    status, fresh = await asyncio.wait_for(
                        connection.request("GET", QUEUE_PATH, {**headers, "If-None-Match": tag}, want_header="etag"),
                        REQUEST_TIMEOUT,
                    )
                except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError, IndexError) as exc:
                    connection.close()
                    self.stats.errors.append(f"poll: {type(exc).__name__} {exc}")
                    fresh = tag
                    status = 0
                self.stats.latencies["poll"].append((time.perf_counter() - started) * 1000)
                self.stats.statuses["poll"][status] += 1
                if status not in (200, 304):
                    self.stats.errors.append(f"poll: {status}")
                self.tags[who.username] = fresh or tag
                if reconnect:
                    connection.close()
                await asyncio.sleep(max(0.0, interval - (time.perf_counter() - started)))
        finally:
            connection.close()

    async def run(self, duration: float, interval: float | None = None, *, reconnect: bool = False) -> None:
        """Every queue polls for ``duration`` seconds, every ``interval`` (default: the queues' own).

        ``reconnect``: each poll on a new connection, as every poll is when the interval is longer than
        gunicorn's keep-alive (10 s against 5 s), so that a fast warm-up reaches every worker.
        """
        every = self.interval if interval is None else interval
        deadline = time.monotonic() + duration
        n = len(self.identities)
        await asyncio.gather(
            *(self.queue(who, deadline, every * i / n, every, reconnect) for i, who in enumerate(self.identities))
        )


def _idle_run(
    target: Target, gunicorn: subprocess.Popen[bytes], identities: list[Identity], args: argparse.Namespace
) -> dict[str, Any]:
    databases = (f"{args.name}_review", f"{args.name}_bookkeeping")
    load = IdleQueues(target, identities, args.poll_interval)
    # The bookkeepers open their queues (not measured), then every worker and
    # connection is warmed, so neither phase pays for starting up: 20 polls a
    # queue, each on a new connection as at the real pace, so that every worker
    # has answered each queue once (a worker answers in one statement only a
    # list it answered for that session: reviewapp/web/unchanged_poll.py), as
    # after a queue's first minutes open.
    asyncio.run(load.open())
    asyncio.run(load.run(20, interval=1.0, reconnect=True))
    load.stats = Stats()

    def app() -> list[int]:
        return [gunicorn.pid, *_children(gunicorn.pid)]

    def db() -> list[int]:
        return _backends(databases)

    def measured(phase: Any) -> tuple[float, tuple[float, float]]:
        """Wall seconds of ``phase()`` and the server's CPU share over them (gunicorn, PostgreSQL)."""
        meters = CpuMeter(app), CpuMeter(db)
        for meter in meters:
            meter.start()
        started = time.monotonic()
        phase()
        seconds = time.monotonic() - started
        app_cpu, db_cpu = (meter.stop() for meter in meters)
        return seconds, (app_cpu / seconds, db_cpu / seconds)

    _quiet_seconds, quiet = measured(lambda: time.sleep(args.duration))
    busy_seconds, busy = measured(lambda: asyncio.run(load.run(args.duration)))
    values = load.stats.latencies["poll"]
    p50, p95, p99 = _percentiles(values)
    statuses = dict(load.stats.statuses["poll"])
    print(
        f"\n## {len(identities)} idle open queues polling every {args.poll_interval:g} s, "
        f"{args.items:,} items, gunicorn {args.workers} x {args.threads}, {args.duration:g} s per phase\n"
    )
    print("| phase | server CPU (one core = 100 %): gunicorn + PostgreSQL | polls | p50 ms | p95 ms | p99 ms |", end="")
    print(" statuses |")
    print("|---|---:|---:|---:|---:|---:|---|")
    print(f"| no requests | {sum(quiet):.2%}: {quiet[0]:.2%} + {quiet[1]:.2%} | 0 | | | | |")
    shown = ", ".join(f"{s}×{n}" for s, n in sorted(statuses.items()))
    print(
        f"| polling | {sum(busy):.2%}: {busy[0]:.2%} + {busy[1]:.2%} | {len(values)} | {p50:.1f} | {p95:.1f} "
        f"| {p99:.1f} | {shown} |"
    )
    print(f"CPU per poll: {(sum(busy) - sum(quiet)) * busy_seconds / max(1, len(values)) * 1000:.1f} ms")
    print(f"Errors: {len(load.stats.errors)}")
    for line in load.stats.errors[:20]:
        print(f"  {line}")
    return {
        "idle_queues": len(identities),
        "poll_interval": args.poll_interval,
        "items": args.items,
        "seconds_per_phase": args.duration,
        "cpu_quiet": {"gunicorn": quiet[0], "postgres": quiet[1]},
        "cpu_polling": {"gunicorn": busy[0], "postgres": busy[1]},
        "polls": len(values),
        "p50": p50,
        "p95": p95,
        "p99": p99,
        "statuses": statuses,
        "errors": len(load.stats.errors),
        "load_average": os.getloadavg(),
    }


def _terminate_on_sigterm() -> None:
    """A SIGTERM to this script still stops the servers and drops the databases (the finally blocks)."""

    def stop(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=50, help="concurrent virtual users")
    parser.add_argument("--duration", type=float, default=60, help="seconds of load")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes (WEB_CONCURRENCY)")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker (GUNICORN_THREADS)")
    parser.add_argument("--port", type=int, default=8911, help="gunicorn's port on 127.0.0.1")
    parser.add_argument("--base-url", default=DEFAULT_BASE, help="the PostgreSQL server, without a database name")
    parser.add_argument("--via-proxy", action="store_true", help="send the load through nginx (docs/deploy)")
    parser.add_argument(
        "--slow-clients",
        type=int,
        default=0,
        metavar="N",
        help=f"keep N slow-header connections open against nginx for the whole run (needs --via-proxy; "
        f"at most {MAX_SLOW_CLIENTS})",
    )
    parser.add_argument(
        "--think", type=float, default=0.0, metavar="S", help="each user's mean pause between actions (default 0)"
    )
    parser.add_argument(
        "--name", default="bench_load", help="prefix of the benchmark's two databases (default bench_load)"
    )
    parser.add_argument(
        "--idle-queues", type=int, default=0, metavar="N", help="instead of the load: N open queues polling (issue 38)"
    )
    parser.add_argument(
        "--poll-interval", type=float, default=10.0, metavar="S", help="how often each open queue polls (default 10)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the benchmark databases afterwards")
    parser.add_argument("--reuse", action="store_true", help="run on the databases a --keep run left")
    args = parser.parse_args()
    if args.slow_clients and not args.via_proxy:
        parser.error("--slow-clients is for the proxy: add --via-proxy")
    if not 0 <= args.slow_clients <= MAX_SLOW_CLIENTS:
        parser.error(f"--slow-clients must be 0 to {MAX_SLOW_CLIENTS}")
    if args.users < 1 or args.duration <= 0:
        parser.error("--users and --duration must be positive")
    if args.think < 0:
        parser.error("--think must be 0 or more")
    if not 0 <= args.idle_queues <= 80 or args.poll_interval <= 0:
        parser.error("--idle-queues must be 0 to 80 and --poll-interval positive")
    review_db, bookkeeping_db = f"{args.name}_review", f"{args.name}_bookkeeping"

    _terminate_on_sigterm()
    base = args.base_url.rstrip("/")
    review_url, bookkeeping_url = f"{base}/{review_db}", f"{base}/{bookkeeping_db}"
    RESULTS.mkdir(exist_ok=True)
    # The receipts seed_demo writes, beside the databases: kept and dropped with them.
    media_root = Path(tempfile.gettempdir()) / f"{args.name}_media"
    workdir = Path(tempfile.mkdtemp(prefix="bench-load-"))  # nginx's prefix and certificate
    if not args.reuse:
        benchdb.recreate_database(review_url)
        benchdb.recreate_database(bookkeeping_url)
        shutil.rmtree(media_root, ignore_errors=True)
    gunicorn = nginx = None
    failed = True
    try:
        env = _server_env(review_url, bookkeeping_url, str(media_root), via_proxy=args.via_proxy)
        if args.idle_queues:
            # No sync runs beside this server, so the read model would turn stale a minute after the
            # set-up's pass, and the stale banner (in every list's tag) would change every queue's
            # copy halfway through. In production the sync keeps it fresh.
            env["SYNC_STALE_AFTER"] = str(24 * 3600)
        _setup_django(env)
        from django.core.management import call_command
        from django.db import connections

        _seed(args.items)
        _check_connections(args.workers, args.threads)
        # Only bookkeepers have a queue: 4 in 5 identities are.
        identities = _identities(max(5, min(max(args.users, -(-args.idle_queues * 5 // 4) + 1), 100)))
        targets = _answer_targets()
        item_ids = _item_ids(5000)
        call_command("collectstatic", interactive=False, verbosity=0)
        marks = _log_marks()
        connections.close_all()
        print(f"{len(targets):,} questions waiting in the app to answer", flush=True)

        gunicorn = _start_gunicorn(env, args.port, args.workers, args.threads)
        target = Target(args.port, None)
        if args.via_proxy:
            nginx, https_port = _start_nginx(workdir, args.port)
            target = Target(https_port, _client_tls())
        if args.idle_queues:
            from reviewapp.core import roles

            queues = [who for who in identities if who.role == roles.BOOKKEEPER][: args.idle_queues]
            result = _idle_run(target, gunicorn, queues, args)
            out = RESULTS / f"idle-queues-{time.strftime('%Y%m%d-%H%M%S')}.json"
            out.write_text(json.dumps(result, indent=2))
            print(f"\n(raw figures: {out.relative_to(ROOT)})")
            failed = bool(result["errors"])
            sys.exit(1 if failed else 0)  # after the clean-up below
        load = Load(target, identities, targets, item_ids, think=args.think)
        elapsed = asyncio.run(load.run(args.users, args.duration, args.slow_clients))
        _stop(nginx)
        _stop(gunicorn)
        problems = _verify(load.stats, marks)
        result = _report(load.stats, elapsed, args, problems)
        out = RESULTS / f"load-{time.strftime('%Y%m%d-%H%M%S')}.json"
        out.write_text(json.dumps(result, indent=2))
        print(f"\n(raw figures: {out.relative_to(ROOT)}; gunicorn log: {RESULTS.relative_to(ROOT)}/gunicorn-load.log)")
        failed = bool(load.stats.errors or problems)
    finally:
        _stop(nginx)
        _stop(gunicorn)
        if nginx is not None:
            with contextlib.suppress(OSError):
                shutil.copy(workdir / "nginx" / "logs" / "error.log", RESULTS / "nginx-load-error.log")
        shutil.rmtree(workdir, ignore_errors=True)
        if "django" in sys.modules:
            from django.db import connections

            connections.close_all()
        if args.keep:
            print(f"(databases {review_db} and {bookkeeping_db} kept for --reuse)")
        else:
            benchdb.recreate_database(review_url, drop_only=True)
            benchdb.recreate_database(bookkeeping_url, drop_only=True)
            shutil.rmtree(media_root, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
