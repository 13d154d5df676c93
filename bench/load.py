"""Load test: gunicorn (4 workers) on PostgreSQL with 100 000 items, many concurrent users.

    .venv/bin/python bench/load.py [--items 100000] [--users 50] [--duration 60] [--workers 4]
        [--port 8911] [--database-url postgres://postgres@127.0.0.1:5432/bench_load] [--reuse]

What it does, in order:

1. (Re)creates its own database (``bench_load`` unless told otherwise; never
   the test database), migrates it, seeds ``--items`` items with ``seed_demo``
   and runs VACUUM ANALYZE. The database is kept afterwards; ``--reuse`` runs
   again on it without reseeding (answered questions stay answered, so a
   rerun has fewer left to answer). Drop it with ``dropdb bench_load``.
2. Creates the load users (bookkeepers and QA), a session and an API token for
   each, and runs ``collectstatic``.
3. Starts ``gunicorn reviewapp.wsgi -c gunicorn.conf.py`` with ``--workers``
   workers on 127.0.0.1 (production settings: DEBUG off, hashed static files).
4. Runs ``--users`` concurrent virtual users for ``--duration`` seconds. Each
   loops over: the list (filters, pages, search), an item page, a preview
   post (``/api/preview``, QA users) and an answer post
   (``/api/items/<id>/answer``, bookkeepers) to a question moved to the app.
   One answer target in ten is handed to two users at the same moment, so the
   "exactly one answer wins" path runs under load too (the loser gets 409).
5. Stops gunicorn and checks the database: every 200 answer left exactly one
   ``ChannelQuestionAnswered`` event and its own text in ``channel_context``,
   no question was accepted twice, and every 409 lost to a recorded answer.

The client is a small asyncio HTTP/1.1 client from the standard library
(gunicorn's sync workers close each connection, so each request is one
connection). Latencies are measured in the client, so they include queueing
for a free worker. The client runs on the same machine as gunicorn and
PostgreSQL and takes CPU from them.

It prints requests per second, p50/p95/p99 latency per kind of request and
overall, the error count (anything but the expected status: 200 for reads and
previews, 200 or 409 for answers), and the verification. Exit status 1 when
there was any error or the verification failed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import benchdb

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/bench_load"
HOST = "127.0.0.1"
GOLDEN = ROOT.parent / "shared" / "golden" / "clarifications.jsonl"
MARKER = "load-test"

LIST_PATHS = [
    "/",
    "/?state=needs_answer",
    "/?state=needs_answer&sort=question_age",
    "/?state=waiting_in_chat",
    "/?state=denied",
    "/?q=lindqvist",
    "/?page={page}",
]


# --- Set-up -------------------------------------------------------------------


def _server_env(url: str, secret: str, media_root: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=url,
        SECRET_KEY=secret,
        DEBUG="0",
        SECURE_SSL_REDIRECT="0",
        ALLOWED_HOSTS=HOST,
        MEDIA_ROOT=media_root,
        DJANGO_SETTINGS_MODULE="reviewapp.settings",
    )
    return env


def _setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def _seed(items: int, reuse: bool) -> None:
    from django.core.management import call_command
    from django.db import connection

    from reviewapp.models import InboxItem

    call_command("migrate", verbosity=0)
    have = InboxItem.objects.count()
    if reuse and have >= items:
        print(f"reusing {have:,} items")
        return
    started = time.monotonic()
    call_command("seed_demo", items=items - have, seed=items, no_users=True, verbosity=1)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    print(f"seeded to {items:,} items in {time.monotonic() - started:.0f} s", flush=True)


@dataclass
class Identity:
    username: str
    cookie: str  # session cookie header value
    token: str  # API bearer token
    role: str


def _identities(users: int) -> list[Identity]:
    """Load users: 4 in 5 bookkeepers (browse, answer), 1 in 5 QA (browse, preview)."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import Group, User
    from django.contrib.sessions.backends.db import SessionStore

    from reviewapp import roles
    from reviewapp.api_auth import create_token

    made = []
    for n in range(users):
        role = roles.QA if n % 5 == 4 else roles.BOOKKEEPER
        user, _ = User.objects.get_or_create(username=f"load{n:03d}")
        user.set_unusable_password()
        user.save()
        user.groups.set([Group.objects.get(name=role)])
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        cookie = f"{settings.SESSION_COOKIE_NAME}={session.session_key}"
        made.append(Identity(user.username, cookie, create_token(user), role))
    return made


def _answer_targets() -> list[tuple[str, str]]:
    """(item id, question type) of every question moved to the app, in random order."""
    from reviewapp import inbox
    from reviewapp.models import InboxItem

    inbox.refresh_stale_states()
    rows = [
        (str(pk), qtype)
        for pk, qtype in InboxItem.objects.filter(state_needs_answer=True, open_question_type__isnull=False)
        .values_list("pk", "open_question_type")
        .iterator()
    ]
    random.Random(7).shuffle(rows)
    return rows


def _item_ids(n: int) -> list[str]:
    from reviewapp.models import InboxItem

    return [str(pk) for pk in InboxItem.objects.order_by("?").values_list("pk", flat=True)[:n]]


def _preview_inputs() -> list[bytes]:
    inputs = []
    if GOLDEN.exists():
        for line in GOLDEN.read_text(encoding="utf-8").splitlines():
            if line.strip():
                case = json.loads(line)
                if "channel_context" in case["input"]:
                    inputs.append(json.dumps(case["input"]).encode())
    return inputs or [b'{"channel_context": {"channel": "whatsapp", "user_note": "taxi till kund"}}']


# --- The server ---------------------------------------------------------------


def _start_gunicorn(env: dict[str, str], port: int, workers: int) -> subprocess.Popen[bytes]:
    server_env = {**env, "GUNICORN_BIND": f"{HOST}:{port}", "WEB_CONCURRENCY": str(workers)}
    log = open(ROOT / "bench" / "results" / "gunicorn-load.log", "wb")  # noqa: SIM115 - lives as long as the server
    process = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "gunicorn"), "reviewapp.wsgi", "-c", "gunicorn.conf.py"],
        cwd=ROOT,
        env=server_env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            status, _ = asyncio.run(_request(port, "GET", "/accounts/login/", {}))
            if status == 200:
                return process
        except OSError:
            pass
        if process.poll() is not None:
            raise SystemExit(f"gunicorn exited with {process.returncode}; see bench/results/gunicorn-load.log")
        time.sleep(0.5)
    _stop(process)
    raise SystemExit("gunicorn did not answer within 60 s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


# --- The client ---------------------------------------------------------------


async def _request(port: int, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, bytes]:
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{port}", "Connection: close"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        await writer.drain()
        raw = await reader.read()
    finally:
        writer.close()
    head, _, payload = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
    return status, payload


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, Counter[int]] = field(default_factory=lambda: defaultdict(Counter))
    errors: list[str] = field(default_factory=list)
    # item id -> [(status, marker)] for every answer post
    answers: dict[str, list[tuple[int, str]]] = field(default_factory=lambda: defaultdict(list))
    question_types: dict[str, str] = field(default_factory=dict)


def _answer_body(qtype: str, marker: str) -> bytes:
    if qtype == "representation":
        body: dict[str, Any] = {
            "question": "representation",
            "participants": [{"name": "Lasse Last", "company": "Belastning AB"}],
            "purpose": f"Kundmöte {marker}",
        }
    elif qtype == "context":
        body = {"question": "context", "text": f"Kontorsmaterial {marker}"}
    else:
        body = {"question": "resend", "readable": True}
    return json.dumps(body).encode()


class Load:
    def __init__(self, port: int, identities: list[Identity], targets: list[tuple[str, str]], item_ids: list[str]):
        self.port = port
        self.identities = identities
        self.item_ids = item_ids
        self.previews = _preview_inputs()
        self.stats = Stats()
        # Every tenth target twice in a row: two users take it at the same moment.
        self.queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        for n, target in enumerate(targets):
            self.queue.put_nowait(target)
            if n % 10 == 0:
                self.queue.put_nowait(target)

    async def _timed(self, kind: str, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> int:
        started = time.perf_counter()
        try:
            status, payload = await asyncio.wait_for(_request(self.port, method, path, headers, body), 60)
        except (TimeoutError, OSError) as exc:
            self.stats.errors.append(f"{kind} {path}: {type(exc).__name__} {exc}")
            return 0
        self.stats.latencies[kind].append((time.perf_counter() - started) * 1000)
        self.stats.statuses[kind][status] += 1
        expected = {200, 409} if kind == "answer" else {200}
        if status not in expected:
            self.stats.errors.append(f"{kind} {method} {path}: {status} {payload[:200]!r}")
        return status

    async def user(self, who: Identity, deadline: float, rng: random.Random) -> None:
        page_headers = {"Cookie": who.cookie, "Accept-Language": "sv"}
        api_headers = {"Authorization": f"Bearer {who.token}", "Content-Type": "application/json"}
        while time.monotonic() < deadline:
            path = rng.choice(LIST_PATHS).format(page=rng.randint(1, 200))
            await self._timed("list", "GET", path, page_headers)
            await self._timed("item", "GET", f"/items/{rng.choice(self.item_ids)}/", page_headers)
            if who.role == "QA":
                await self._timed("preview", "POST", "/api/preview", api_headers, rng.choice(self.previews))
                continue
            if rng.random() < 0.5 or self.queue.empty():
                continue
            item_id, qtype = self.queue.get_nowait()
            marker = f"{MARKER} {uuid.uuid4().hex[:12]}"
            status = await self._timed(
                "answer", "POST", f"/api/items/{item_id}/answer", api_headers, _answer_body(qtype, marker)
            )
            self.stats.answers[item_id].append((status, marker))
            self.stats.question_types[item_id] = qtype

    async def run(self, users: int, duration: float) -> float:
        deadline = time.monotonic() + duration
        started = time.monotonic()
        await asyncio.gather(
            *(self.user(self.identities[n % len(self.identities)], deadline, random.Random(n)) for n in range(users))
        )
        return time.monotonic() - started


# --- Checks and report --------------------------------------------------------


def _verify(stats: Stats, started_at: Any) -> list[str]:
    """Every accepted answer is stored exactly once with its own text; none was lost."""
    from django.db.models import Count

    from reviewapp import states
    from reviewapp.models import ClarificationEvent, InboxItem

    problems = []
    posted = list(stats.answers)
    events = dict(
        ClarificationEvent.objects.filter(
            item_id__in=posted, event_type=ClarificationEvent.ANSWERED, occurred_at__gte=started_at
        )
        .values_list("item_id")
        .annotate(n=Count("id"))
        .values_list("item_id", "n")
    )
    events = {str(k): v for k, v in events.items()}
    rows = {str(i.pk): i for i in InboxItem.objects.filter(pk__in=posted)}
    for item_id, outcomes in stats.answers.items():
        won = [marker for status, marker in outcomes if status == 200]
        lost = [marker for status, marker in outcomes if status == 409]
        if len(won) > 1:
            problems.append(f"{item_id}: {len(won)} answers accepted for one question")
        if won:
            if events.get(item_id, 0) != 1:
                problems.append(f"{item_id}: accepted, but {events.get(item_id, 0)} answer events")
            item = rows[item_id]
            context = json.dumps(item.channel_context, ensure_ascii=False)
            # A resend answer carries no text; the others must hold the winner's own words.
            if stats.question_types[item_id] != "resend" and won[0] not in context:
                problems.append(f"{item_id}: the accepted answer's text is not in channel_context")
            if states.NEEDS_ANSWER in states.compute(item.channel_context, item.extracted_data).states:
                problems.append(f"{item_id}: accepted, but the question is still open in the app")
        elif lost and events.get(item_id, 0) != 1:
            problems.append(f"{item_id}: refused with 409, but {events.get(item_id, 0)} answer events")
    return problems


def _percentiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) < 2:
        v = values[0] if values else 0.0
        return v, v, v
    q = statistics.quantiles(values, n=100, method="inclusive")
    return statistics.median(values), q[94], q[98]


def _report(stats: Stats, elapsed: float, args: argparse.Namespace, problems: list[str]) -> dict[str, Any]:
    total = sum(len(v) for v in stats.latencies.values())
    print(
        f"\n## Load: {args.users} users, {args.workers} gunicorn workers, {args.items:,} items, "
        f"{elapsed:.0f} s on {HOST}\n"
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
    accepted = sum(1 for o in stats.answers.values() for s, _ in o if s == 200)
    conflicts = sum(1 for o in stats.answers.values() for s, _ in o if s == 409)
    print(f"\nErrors: {len(stats.errors)}")
    for line in stats.errors[:20]:
        print(f"  {line}")
    print(
        f"Answers: {accepted} accepted, {conflicts} refused as already answered (409), "
        f"{len(stats.answers)} questions posted to"
    )
    print(f"Verification: {'OK' if not problems else f'{len(problems)} problem(s)'}")
    for line in problems[:20]:
        print(f"  {line}")
    return {
        "users": args.users,
        "workers": args.workers,
        "items": args.items,
        "seconds": elapsed,
        "requests": total,
        "rps": total / elapsed,
        "p50": p50,
        "p95": p95,
        "p99": p99,
        "errors": len(stats.errors),
        "accepted": accepted,
        "conflicts": conflicts,
        "verification_problems": problems,
        "per_kind": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=50, help="concurrent virtual users")
    parser.add_argument("--duration", type=float, default=60, help="seconds of load")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers")
    parser.add_argument("--port", type=int, default=8911)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--reuse", action="store_true", help="reuse an already seeded database")
    args = parser.parse_args()

    benchdb.database_name(args.database_url)
    (ROOT / "bench" / "results").mkdir(exist_ok=True)
    if not args.reuse:
        benchdb.recreate_database(args.database_url)
    env = _server_env(args.database_url, secrets.token_urlsafe(50), tempfile.mkdtemp(prefix="bench-load-media-"))
    _setup_django(env)
    from django.core.management import call_command
    from django.db import connections
    from django.utils import timezone

    _seed(args.items, args.reuse)
    identities = _identities(max(5, min(args.users, 100)))
    targets = _answer_targets()
    item_ids = _item_ids(5000)
    call_command("collectstatic", interactive=False, verbosity=0)
    connections.close_all()
    print(f"{len(targets):,} questions moved to the app available to answer", flush=True)

    server = _start_gunicorn(env, args.port, args.workers)
    started_at = timezone.now()
    try:
        load = Load(args.port, identities, targets, item_ids)
        elapsed = asyncio.run(load.run(args.users, args.duration))
    finally:
        _stop(server)
    problems = _verify(load.stats, started_at)
    result = _report(load.stats, elapsed, args, problems)
    out = ROOT / "bench" / "results" / f"load-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(result, indent=2))
    print(f"\n(raw figures: {out.relative_to(ROOT)}; gunicorn log: bench/results/gunicorn-load.log)")
    connections.close_all()
    print(f"(database kept for --reuse; drop it with: dropdb {benchdb.database_name(args.database_url)})")
    sys.exit(1 if load.stats.errors or problems else 0)


if __name__ == "__main__":
    main()
