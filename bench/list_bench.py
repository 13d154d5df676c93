"""Benchmark of the inbox list, the item page and the preview at 100 000 and 1 000 000 items.

    .venv/bin/python bench/list_bench.py [--sizes 100000 1000000] [--repeat 15]
        [--base-url postgres://postgres@127.0.0.1:5432] [--keep] [--reuse] [--explain]
        [--profile [RENDERS]]

Creates two databases of its own on the server (``bench_list_review`` and
``bench_list_bookkeeping``; never the test or server databases), migrates the
review database and builds the bookkeeping replica there from the contract,
then for each size in turn (the second adds to the first):

- fills the replica with ``seed_demo --items N --no-users`` (COPY, as
  accounted's intake writes the rows; a new ``--seed`` per step), brings the
  list's read model up to date with ``sync.poll()``, and runs VACUUM ANALYZE
  on both databases as autovacuum would after a load;
- times each request in one process with Django's test client as a logged-in
  superuser (whole middleware stack and template rendering, no network): the
  list, the list API, the item page and the preview page of a needs-answer
  item, and the Django admin's changelist of the read model for the same
  filter; medians and 90th percentiles of ``--repeat`` rounds after two warm-up
  rounds, each round taking every request in turn (so a slow phase of a
  shared machine falls on all of them alike), and the SQL statements each
  request sends to each database;
- with ``--explain``, the EXPLAIN ANALYZE plan of every SELECT the filtered
  requests send to the read model (the review database), and of the item
  page's statements on both databases;
- with ``--profile``, cProfile over RENDERS renders (50 unless given) of the
  list page, the item page and the preview page: the top 25 functions by
  cumulative time, and the share of the time spent rendering templates
  (Jinja2 for the pages, Django's engine for form widgets; per-row template
  work once cost more than the page's queries).

Both databases (and the receipt files, under the temporary directory's
``bench_list_media``) are removed at the end unless ``--keep``; ``--reuse``
measures what an earlier ``--keep`` run left (topping it up to each size).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import re
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from typing import Any

# The names other scripts import from here stay: the set-up and the timing are common's.
from common import DEFAULT_BASE, ROOT, bench_databases, database_urls, migrate
from common import p90 as _p90
from common import plain_storages as _plain_storages
from common import setup_django as _setup_django
from common import sql as _execute
from common import superuser_client as _client
from common import time_calls as _time
from common import time_round_robin as _time_round_robin

REVIEW_DB = "bench_list_review"
BOOKKEEPING_DB_NAME = "bench_list_bookkeeping"
READ_MODEL_TABLES = ("reviewapp_indexeditem", "inbox_state_tally")

# Requests timed at each size: (label, path). "{item}" is a needs-answer item.
# The same filter for the list and the admin.
REQUESTS = [
    ("list: needs answer in app", "/?state=needs_answer"),
    ("list: bookkeeper's queue", "/?state=needs_answer&sort=queue"),
    ("list: needs answer, question age", "/?state=needs_answer&sort=question_age"),
    ("list: page 200, unfiltered", "/?page=200"),
    ("list: search 'lindqvist'", "/?q=lindqvist"),
    ("api: needs answer, the list's 50 rows", "/api/items?state=needs_answer"),
    ("api: needs answer, 500 rows", "/api/items?state=needs_answer&page_size=500"),
    ("item page: needs answer", "/items/{item}/"),
    ("preview page: that item", "/preview/?item={item}"),
    ("admin: changelist needs answer", "/admin/reviewapp/indexeditem/?state=needs_answer"),
]
# Requests whose read-model statements are EXPLAINed (the filtered paths).
EXPLAINED = {
    "/?state=needs_answer",
    "/?state=needs_answer&sort=queue",
    "/?state=needs_answer&sort=question_age",
    "/?page=200",
    "/?q=lindqvist",
    "/admin/reviewapp/indexeditem/?state=needs_answer",
}
# Requests whose statements are EXPLAINed on both databases, whatever they touch.
EXPLAINED_EVERYWHERE = {"/items/{item}/"}
# Pages profiled with --profile: (label, path).
PROFILED = [
    ("list page", "/?state=needs_answer"),
    ("item page", "/items/{item}/"),
    ("preview page", "/preview/?item={item}"),
]
PROFILE_TOP = 25


def _seed_to(size: int) -> tuple[float, float]:
    """Top the replica up to ``size`` items and sync the read model; (seconds seeding, seconds polling)."""
    from django.core.management import call_command

    from devtools import demo
    from reviewapp.bookkeeping.models import InboxItem
    from reviewapp.readmodel import sync

    have = InboxItem.objects.count()
    started = time.monotonic()
    if size > have:
        # A new seed per step: other rows (a seed's rows can go in only once).
        call_command(
            "seed_demo",
            items=size - have,
            seed=size,
            no_users=True,
            receipt_files=demo.BENCH_RECEIPT_FILES,
            verbosity=1,
        )
    seeded = time.monotonic()
    sync.poll()  # seed_demo indexes what it wrote; this shows the read model is current
    polled = time.monotonic()
    _execute("bookkeeping", "VACUUM ANALYZE")
    _execute("default", "VACUUM ANALYZE")
    return seeded - started, polled - seeded


def _needs_answer_item() -> str:
    """The newest item whose question waits in the app (the list's first row), as the list shows it."""
    from reviewapp.models import IndexedItem

    item = IndexedItem.objects.filter(state_needs_answer=True).order_by("-created_at", "-id").first()
    if item is None:
        raise SystemExit("the demo data has no item needing an answer: seed more items")
    return str(item.pk)


def _explain(alias: str, sql: str, settings: list[str]) -> str:
    from django.db import connections, transaction

    with transaction.atomic(using=alias), connections[alias].cursor() as cursor:
        for setting in settings:
            cursor.execute(setting)
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + sql)
        return "\n".join(row[0] for row in cursor.fetchall())


def _plans(label: str, path: str, alias: str, queries: list[dict[str, Any]], everything: bool) -> list[str]:
    """EXPLAIN ANALYZE of the request's SELECTs on ``alias``, each with the planner settings it ran under."""
    plans = []
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
        elif upper.startswith(("COMMIT", "ROLLBACK")):
            in_effect.clear()
        touches = everything or any(table in sql for table in READ_MODEL_TABLES)
        if touches and upper.startswith("SELECT") and "FOR UPDATE" not in upper:
            shown = "\n".join([*in_effect, sql])
            plans.append(f"### {label}: {path} ({alias})\n\n{shown}\n\n{_explain(alias, sql, in_effect)}\n")
    return plans


def _run_size(size: int, repeat: int, explain: bool, profile: int) -> dict[str, Any]:
    from django.db import connections, reset_queries
    from django.test.utils import CaptureQueriesContext, override_settings

    from reviewapp.bookkeeping.models import InboxItem
    from reviewapp.inbox.counts import facet_counts
    from reviewapp.inbox.query import ListQuery
    from reviewapp.models import IndexedItem

    seeded, polled = _seed_to(size)
    indexed = IndexedItem.objects.count()
    live = InboxItem.objects.count()
    print(
        f"\n## {size:,} items (seeded in {seeded:.0f} s, poll {polled:.1f} s, {indexed:,} indexed of {live:,})\n",
        flush=True,
    )
    item = _needs_answer_item()
    client = _client()
    results: dict[str, Any] = {}
    plans: list[str] = []
    with override_settings(STORAGES=_plain_storages()):
        paths = {label: template.format(item=item) for label, template in REQUESTS}
        queries: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for label, template in REQUESTS:
            path = paths[label]
            reset_queries()  # the logs are bounded deques: start them empty
            with (
                CaptureQueriesContext(connections["default"]) as review,
                CaptureQueriesContext(connections["bookkeeping"]) as bookkeeping,
            ):
                response = client.get(path)
            assert response.status_code == 200, (path, response.status_code)
            # Copy now: the next request clears the connections' query logs.
            queries[label] = {
                "default": list(review.captured_queries),
                "bookkeeping": list(bookkeeping.captured_queries),
            }
            if explain and (template in EXPLAINED or template in EXPLAINED_EVERYWHERE):
                everywhere = template in EXPLAINED_EVERYWHERE
                for alias in ("default", "bookkeeping") if everywhere else ("default",):
                    plans += _plans(label, path, alias, queries[label][alias], everywhere)
        timings = _time_round_robin(
            {label: (lambda path=path: client.get(path)) for label, path in paths.items()}, repeat
        )
        for label, _template in REQUESTS:
            results[label] = (
                statistics.median(timings[label]),
                _p90(timings[label]),
                len(queries[label]["default"]),
                len(queries[label]["bookkeeping"]),
            )
        counts = _time(lambda: facet_counts(ListQuery()), repeat)
        results["facet counts, unfiltered"] = (statistics.median(counts), _p90(counts), 1, 0)
        counts = _time(lambda: facet_counts(ListQuery(states=("needs_answer",))), repeat)
        results["facet counts, needs answer"] = (statistics.median(counts), _p90(counts), 1, 0)
        print("| request | median ms | p90 ms | SQL review | SQL bookkeeping |")
        print("|---|---:|---:|---:|---:|")
        for label, (median, p90, review_queries, bookkeeping_queries) in results.items():
            print(f"| {label} | {median:.1f} | {p90:.1f} | {review_queries} | {bookkeeping_queries} |")
        list_ms = results["list: needs answer in app"][0]
        api_ms = results["api: needs answer, the list's 50 rows"][0]
        print(
            f"\nlist page / API for the same 50 rows: {list_ms / api_ms:.2f}×; "
            f"list page / admin changelist: {list_ms / results['admin: changelist needs answer'][0]:.2f}×"
        )
        sequential = [p for p in plans if re.search(r"Seq Scan on (reviewapp_indexeditem|invoice_inbox_items)", p)]
        print(f"\nSequential scans of the read model or accounted's items in the plans shown: {len(sequential)}")
        if explain:
            print("\n".join(plans))
        if profile:
            for label, template in PROFILED:
                print(_profile(client, label, template.format(item=item), profile))
    sys.stdout.flush()
    return results


# --- cProfile -------------------------------------------------------------------


def _shorten(text: str) -> str:
    """pstats output with the venv's site-packages and the project's path left out."""
    for prefix in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["stdlib"], str(ROOT)}:
        text = text.replace(prefix + os.sep, "")
    return text


def _calls(stats: pstats.Stats, function: Callable[..., Any]) -> tuple[float, int]:
    """Cumulative seconds and number of calls (recursive ones included) of ``function``."""
    code = function.__code__
    for (filename, line, name), (_, calls, _, cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
        if (filename, line, name) == (code.co_filename, code.co_firstlineno, code.co_name):
            return cumulative, calls
    return 0.0, 0


def _profile(client: Any, label: str, path: str, renders: int) -> str:
    import jinja2
    from django.forms.boundfield import BoundField
    from django.template.base import Node

    from reviewapp.web.jinja import render_block

    for _ in range(2):  # warm the template cache and the connections, as the timings do
        assert client.get(path).status_code == 200, path
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    for _ in range(renders):
        client.get(path)
    profiler.disable()
    wall = time.perf_counter() - started
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    total = stats.total_tt  # type: ignore[attr-defined]
    # A page is one Jinja2 render: the whole page, or one block of it for htmx.
    # Its form fields render inside it (the form renderer) and cProfile counts a
    # nested call once, at the outermost: that call's cumulative time is all
    # template rendering.
    page, _ = _calls(stats, jinja2.Template.render)
    block, _ = _calls(stats, render_block)
    template = block or page
    # Django's engine is left for the widgets of forms rendered whole.
    _, nodes = _calls(stats, Node.render_annotated)
    _, field_groups = _calls(stats, BoundField.as_field_group)
    stats.sort_stats("cumulative").print_stats(PROFILE_TOP)
    listing = _shorten(out.getvalue())
    # Drop pstats' own header lines down to the table.
    listing = listing[listing.find("   ncalls") :] if "   ncalls" in listing else listing
    return (
        f"\n### Profile: {label} `{path}`, {renders} renders\n\n"
        f"{wall / renders * 1000:.1f} ms a render under the profiler; "
        f"template rendering {template / total:.0%} of the time "
        f"({template / renders * 1000:.1f} ms a render); "
        f"{nodes / renders:,.0f} Django template node renders (form widgets) and {field_groups / renders:.0f} "
        f"as_field_group calls a render.\n\n```\n{listing.rstrip()}\n```\n"
    )


# --- Main -----------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--base-url", default=DEFAULT_BASE, help="the PostgreSQL server, without a database name")
    parser.add_argument("--keep", action="store_true", help="keep the benchmark databases afterwards")
    parser.add_argument("--reuse", action="store_true", help="measure the databases a --keep run left")
    parser.add_argument("--explain", action="store_true", help="print EXPLAIN ANALYZE of the filtered paths")
    parser.add_argument(
        "--profile",
        type=int,
        nargs="?",
        const=50,
        default=0,
        metavar="RENDERS",
        help="profile the list, item and preview pages over RENDERS renders each (default 50)",
    )
    args = parser.parse_args()
    if args.repeat < 2:
        parser.error("--repeat must be 2 or more (a median and a 90th percentile)")
    review_url, bookkeeping_url = database_urls(args.base_url, REVIEW_DB, BOOKKEEPING_DB_NAME)
    # The receipts seed_demo writes: beside the databases, kept and dropped with them.
    media_root = os.path.join(tempfile.gettempdir(), "bench_list_media")
    if not args.reuse:
        shutil.rmtree(media_root, ignore_errors=True)
    all_results = {}
    try:
        with bench_databases(review_url, bookkeeping_url, keep=args.keep, reuse=args.reuse):
            _setup_django(review_url, bookkeeping_url, media_root)
            migrate()
            for size in sorted(args.sizes):
                all_results[size] = _run_size(size, args.repeat, args.explain, args.profile)
    finally:
        if not args.keep:
            shutil.rmtree(media_root, ignore_errors=True)
    if len(all_results) > 1:
        small, large = min(all_results), max(all_results)
        print(f"\n## Ratio {large:,} / {small:,} items (median)\n")
        print("| request | ratio |")
        print("|---|---:|")
        for label, (median, *_) in all_results[large].items():
            print(f"| {label} | {median / all_results[small][label][0]:.2f}× |")


if __name__ == "__main__":
    main()
