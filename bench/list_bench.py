"""Benchmark of the inbox list at 100 000 and 1 000 000 items on PostgreSQL.

    .venv/bin/python bench/list_bench.py [--sizes 100000 1000000] [--repeat 15]
        [--database-url postgres://postgres@127.0.0.1:5432/bench_list] [--keep] [--explain]

Creates its own database (``bench_list`` unless told otherwise; never the
test database), migrates it, seeds it with ``seed_demo`` up to each size in
turn (the second size adds to the first), runs VACUUM ANALYZE as autovacuum
would after a load, and times each request in one process with Django's test
client and a logged-in superuser. It prints medians (and the 90th
percentile) per request, the SQL query count per request, and with
``--explain`` the EXPLAIN ANALYZE plan of every query the filtered requests
make. The database is dropped at the end unless ``--keep``.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import benchdb

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/bench_list"

# Requests timed at each size: (label, path). The same filter for ours and the admin's.
REQUESTS = [
    ("list: needs answer in app", "/?state=needs_answer"),
    ("list: needs answer, queue order", "/?state=needs_answer&sort=question_age"),
    ("list: page 200, unfiltered", "/?page=200"),
    ("list: search 'lindqvist'", "/?q=lindqvist"),
    ("api: needs answer, 500 rows", "/api/items?state=needs_answer&page_size=500"),
    ("admin: changelist needs answer", "/admin/reviewapp/inboxitem/?state=needs_answer"),
]
# Requests whose queries are EXPLAINed (the filtered paths).
EXPLAINED = {
    "/?state=needs_answer",
    "/?state=needs_answer&sort=question_age",
    "/?page=200",
    "/?q=lindqvist",
    "/admin/reviewapp/inboxitem/?state=needs_answer",
}


def _setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("SECRET_KEY", "bench-only-not-a-secret")
    os.environ["DEBUG"] = "0"
    os.environ["SECURE_SSL_REDIRECT"] = "0"
    os.environ["ALLOWED_HOSTS"] = "testserver"
    os.environ["MEDIA_ROOT"] = tempfile.mkdtemp(prefix="bench-list-media-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewapp.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def _time(call: Callable[[], Any], repeat: int) -> list[float]:
    for _ in range(2):  # warm caches and connections
        call()
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        timings.append((time.perf_counter() - started) * 1000)
    return timings


def _seed_to(size: int) -> float:
    from django.core.management import call_command
    from django.db import connection

    from reviewapp.models import InboxItem

    have = InboxItem.objects.count()
    started = time.monotonic()
    if size > have:
        # A new seed per step: different rows, five more companies.
        call_command("seed_demo", items=size - have, seed=size, no_users=True, verbosity=1)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return time.monotonic() - started


def _explain(sql: str, settings: list[str]) -> str:
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        for setting in settings:
            cursor.execute(setting)
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + sql)
        return "\n".join(row[0] for row in cursor.fetchall())


def _run_size(size: int, repeat: int, explain: bool) -> dict[str, Any]:
    from django.contrib.auth.models import User
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, override_settings

    from reviewapp import inbox

    seconds = _seed_to(size)
    print(f"\n## {size:,} items (seeded/vacuumed in {seconds:.0f} s)\n", flush=True)
    user, _ = User.objects.get_or_create(username="bench", defaults={"is_staff": True, "is_superuser": True})
    client = Client()
    client.force_login(user)
    results: dict[str, Any] = {}
    plans: list[str] = []
    with override_settings(
        STORAGES={
            "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
            "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
        }
    ):
        for label, path in REQUESTS:
            reset_queries()  # the log is a bounded deque: start it empty
            with CaptureQueriesContext(connection) as captured:
                response = client.get(path)
            assert response.status_code == 200, (path, response.status_code)
            # Copy now: the next request clears the connection's query log.
            queries = list(captured.captured_queries)
            timings = _time(lambda path=path: client.get(path), repeat)
            results[label] = (statistics.median(timings), _p90(timings), len(queries))
            if explain and path in EXPLAINED:
                # Replay the planner settings the request set around a query
                # (SET LOCAL ... / TO DEFAULT), so the plan shown is the one used.
                in_effect: list[str] = []
                for query in queries:
                    sql = query["sql"]
                    upper = sql.lstrip().upper()
                    if upper.startswith("SET LOCAL"):
                        if upper.endswith("TO DEFAULT"):
                            in_effect.clear()
                        else:
                            in_effect.append(sql)
                    elif upper.startswith("COMMIT"):
                        in_effect.clear()
                    touches = "invoice_inbox_items" in sql or "inbox_state_tally" in sql
                    if touches and upper.startswith("SELECT"):
                        shown = "\n".join([*in_effect, sql])
                        plans.append(f"### {label}: {path}\n\n{shown}\n\n{_explain(sql, in_effect)}\n")
        counts = _time(lambda: inbox.facet_counts(inbox.ListQuery()), repeat)
        results["facet counts, unfiltered"] = (statistics.median(counts), _p90(counts), 1)
        counts = _time(lambda: inbox.facet_counts(inbox.ListQuery(states=("needs_answer",))), repeat)
        results["facet counts, needs answer"] = (statistics.median(counts), _p90(counts), 1)
    print("| request | median ms | p90 ms | SQL queries |")
    print("|---|---:|---:|---:|")
    for label, (median, p90, queries) in results.items():
        print(f"| {label} | {median:.1f} | {p90:.1f} | {queries} |")
    sequential = [p for p in plans if re.search(r"Seq Scan on invoice_inbox_items", p)]
    print(f"\nSequential scans of invoice_inbox_items on the filtered paths: {len(sequential)}")
    if explain:
        print("\n".join(plans))
    sys.stdout.flush()
    return results


def _p90(timings: list[float]) -> float:
    return statistics.quantiles(timings, n=10)[-1] if len(timings) >= 2 else timings[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--reuse", action="store_true", help="reuse an existing database (do not recreate it)")
    parser.add_argument("--explain", action="store_true", help="print EXPLAIN ANALYZE of the filtered paths")
    args = parser.parse_args()
    benchdb.database_name(args.database_url)
    if not args.reuse:
        benchdb.recreate_database(args.database_url)
    _setup_django(args.database_url)
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", verbosity=0)
    all_results = {}
    try:
        for size in sorted(args.sizes):
            all_results[size] = _run_size(size, args.repeat, args.explain)
    finally:
        connections.close_all()
        if not args.keep:
            benchdb.recreate_database(args.database_url, drop_only=True)
    if len(all_results) > 1:
        small, large = min(all_results), max(all_results)
        print(f"\n## Ratio {large:,} / {small:,} items (median)\n")
        print("| request | ratio |")
        print("|---|---:|")
        for label, (median, _, _) in all_results[large].items():
            print(f"| {label} | {median / all_results[small][label][0]:.2f}× |")


if __name__ == "__main__":
    main()
