"""What the benchmark scripts share: their databases, Django set up on them, a client, the timing.

Imported by bench/list_bench.py, bench/sync_bench.py and bench/overview_bench.py,
which run as scripts with bench/ first on sys.path. Each script creates two
databases of its own (never the test or server databases: ``benchdb``), and
times in one process with Django's test client (whole middleware stack and
templates, no network).
"""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import benchdb

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BASE = "postgres://postgres@127.0.0.1:5432"


def database_urls(base_url: str, review: str, bookkeeping: str) -> tuple[str, str]:
    """The review and bookkeeping databases' URLs on the server ``base_url`` names."""
    base = base_url.rstrip("/")
    return f"{base}/{review}", f"{base}/{bookkeeping}"


@contextlib.contextmanager
def bench_databases(review_url: str, bookkeeping_url: str, *, keep: bool, reuse: bool) -> Iterator[None]:
    """Both databases, created empty unless ``reuse``, dropped at the end unless ``keep``."""
    if not reuse:
        benchdb.recreate_database(review_url)
        benchdb.recreate_database(bookkeeping_url)
    try:
        yield
    finally:
        if "django" in sys.modules:
            from django.db import connections

            connections.close_all()
        if not keep:
            benchdb.recreate_database(review_url, drop_only=True)
            benchdb.recreate_database(bookkeeping_url, drop_only=True)


def setup_django(review_url: str, bookkeeping_url: str, media_root: str | None = None) -> None:
    """Django on the two databases, as a production process (DEBUG off), its files under ``media_root``."""
    os.environ["DATABASE_URL"] = review_url
    os.environ["BOOKKEEPING_DATABASE_URL"] = bookkeeping_url
    os.environ.setdefault("SECRET_KEY", "bench-only-not-a-secret")
    os.environ["DEBUG"] = "0"
    # The fills use devtools' commands (seed_demo, create_bookkeeping_replica), which DEBUG off leaves out.
    os.environ["DEVTOOLS"] = "1"
    os.environ["SECURE_SSL_REDIRECT"] = "0"
    os.environ["ALLOWED_HOSTS"] = "testserver"
    os.environ["MEDIA_ROOT"] = media_root or tempfile.mkdtemp(prefix="bench-media-")
    os.environ.pop("DOCUMENTS_ROOT", None)  # the receipts go under MEDIA_ROOT
    # A fill's INSERTs of a million rows run longer than the app's 15 s per statement.
    os.environ["BOOKKEEPING_STATEMENT_TIMEOUT"] = "0"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewapp.settings")
    sys.path.insert(0, str(ROOT))
    # WhiteNoise looks for collected static files, which one process does not need.
    warnings.filterwarnings("ignore", message="No directory at")
    import django

    django.setup()


def migrate() -> None:
    """The review database migrated (a reused one too: new migrations apply) and the bookkeeping replica built."""
    from django.core.management import call_command
    from django.db import connections

    from reviewapp.bookkeeping import replica

    call_command("migrate", verbosity=0)
    if not replica.has_inbox_table(connections["bookkeeping"]):
        replica.create()


def sql(alias: str, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
    """Run one statement on ``alias`` ("default" or "bookkeeping"); its rows, if it returns any."""
    from django.db import connections

    with connections[alias].cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.fetchall() if cursor.description else []


def plain_storages() -> dict[str, Any]:
    """The STORAGES setting without the collectstatic manifest (one process does not need it)."""
    from django.conf import settings

    return {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


def superuser() -> Any:
    """The benchmark's superuser, ``bench`` (every company, every permission)."""
    from django.contrib.auth.models import User

    user, _ = User.objects.get_or_create(username="bench", defaults={"is_staff": True, "is_superuser": True})
    return user


def client_for(user: Any) -> Any:
    """A test client logged in as ``user``."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client


def superuser_client() -> Any:
    return client_for(superuser())


def time_calls(call: Callable[[], Any], repeat: int) -> list[float]:
    """Milliseconds of ``repeat`` calls, after two that warm caches and connections."""
    for _ in range(2):
        call()
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        timings.append((time.perf_counter() - started) * 1000)
    return timings


def time_round_robin(calls: dict[str, Callable[[], Any]], repeat: int) -> dict[str, list[float]]:
    """Milliseconds of each call, ``repeat`` rounds of all of them in turn.

    On a shared machine speed comes and goes in phases of seconds; taking
    the requests in turn puts each phase on all of them alike, so their
    ratios hold even when the absolute figures wander.
    """
    for _ in range(2):  # warm caches and connections
        for call in calls.values():
            call()
    timings: dict[str, list[float]] = {label: [] for label in calls}
    for _ in range(repeat):
        for label, call in calls.items():
            started = time.perf_counter()
            call()
            timings[label].append((time.perf_counter() - started) * 1000)
    return timings


def p90(timings: list[float]) -> float:
    return statistics.quantiles(timings, n=10)[-1] if len(timings) >= 2 else timings[0]


def load_average() -> str:
    """The machine's load average over 1, 5 and 15 minutes, as uptime prints it."""
    return ", ".join(f"{load:.2f}" for load in os.getloadavg())
