"""Benchmark of the read model: sync costs, and the list served from it against a naive JSONB list.

    .venv/bin/python bench/sync_bench.py [--sizes 200000 1000000] [--repeat 15]
        [--base-url postgres://postgres@127.0.0.1:5432] [--name bench_sync] [--keep]

Creates two databases of its own on the server (``<name>_review`` and
``<name>_bookkeeping``; never the test or server databases), builds the
bookkeeping replica and migrates the review database, then for each size in
turn (the second adds to the first) fills accounted's table with plain SQL
(``generate_series``: one row in ten waits for an answer in the app, the rest
spread over every other state), runs VACUUM ANALYZE as autovacuum would, and
measures in one process:

- the COPY read floor: the columns the sync reads (``rows.SELECT``) with
  ``COPY .. TO STDOUT``, bytes only, nothing decoded (median of 3);
- the initial sync: ``manage.py sync_index`` in a child process on an empty
  read model, its wall time, its ratio to the floor, the peak resident
  memory of its largest process (``os.wait4``'s ``ru_maxrss``) and of all its
  processes together (its ``SYNC_WORKERS`` helpers too, sampled from /proc);
- a full re-index (the first poll after ``RULES_VERSION`` changed), in
  process, while the list keeps serving the old rows;
- one idle poll (nothing changed) without an index on ``updated_at``, as
  accounted has it, and with one (created on the benchmark's own replica only);
- a poll after 1 000 rows changed, and a full reconcile;
- after one statement changed every row (a migration or backfill of
  accounted's: one transaction, one ``now()``): the poll that reads it, the
  idle polls after it (median), and the same idle polls as they were before
  polls kept their snapshot (``SyncState.poll_snapshot`` cleared before
  each: the overlap read again), with the rows each read
  (``--bulk-only``: only these, after an initial sync in this process);
- the list page and the list API for "needs an answer", with Django's test
  client as a logged-in superuser;
- a naive list: the same page's rows and count straight from accounted's
  table with a JSONB predicate on ``channel_context``.

Medians of ``--repeat`` runs. Both databases are dropped at the end unless ``--keep``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import (
    DEFAULT_BASE,
    ROOT,
    bench_databases,
    database_urls,
    migrate,
    plain_storages,
    setup_django,
    sql,
    superuser_client,
    time_calls,
)

# What one row in ten .. ten in ten look like (i % 10), as the intake writes them.
CONTEXTS = [
    """'{"channel": "whatsapp", "pending_question": {"type": "representation",
        "asked_at": "2026-11-01T10:00:00.000Z", "status": "moved_to_app"}}'""",
    """'{"channel": "whatsapp"}'""",
    """'{"channel": "whatsapp", "caption": "lunch"}'""",
    """'{"channel": "whatsapp", "pending_question": {"type": "context",
        "asked_at": "2026-11-29T10:00:00.000Z", "status": "open"}}'""",
    """'{"channel": "whatsapp", "user_note": "Fika till kundmötet", "context_answer": {"raw_answer":
        "fika till kundmötet", "answered_at": "2026-11-02T10:00:00.000Z"}, "pending_question": {"type": "context",
        "asked_at": "2026-11-01T10:00:00.000Z", "status": "answered"}}'""",
    """'{"channel": "whatsapp", "representation": {"participants": [{"name": "Anna Berg", "company": "Kund AB"}],
        "purpose": "Projektmöte", "event_date": null, "raw_answer": "Anna Berg, Kund AB. Projektmöte",
        "answered_at": "2026-11-02T10:00:00.000Z"}, "pending_question": {"type": "representation",
        "asked_at": "2026-11-01T10:00:00.000Z", "status": "answered"}}'""",
    """'{"channel": "whatsapp", "representation": {"participants": [], "purpose": null, "event_date": null,
        "raw_answer": "Nej", "answered_at": "2026-11-02T10:00:00.000Z", "denied": true},
        "pending_question": {"type": "representation", "asked_at": "2026-11-01T10:00:00.000Z",
        "status": "answered"}}'""",
    """'{"channel": "whatsapp", "representation": {"participants": [{"name": "Jakob W", "company": null}],
        "purpose": null, "event_date": null, "raw_answer": "Jakob W", "answered_at": "2026-11-02T10:00:00.000Z"},
        "pending_question": {"type": "representation", "asked_at": "2026-11-01T10:00:00.000Z", "status": "open"}}'""",
    """NULL""",
    """'{"channel": "whatsapp", "quality": {"resend_requested_at": "2026-11-01T10:00:00.000Z"},
        "pending_question": {"type": "resend", "asked_at": "2026-11-01T10:00:00.000Z", "status": "answered"}}'""",
]
SUPPLIERS = ["Restaurang Prinsen", "Sjöbaren", "Clas Ohlson", "Lindqvists Bageri", "Taxi Stockholm", "SJ"]

NAIVE_ROWS = """
    SELECT i.id, i.created_at, c.name, i.extracted_data, i.channel_context
    FROM public.invoice_inbox_items i JOIN public.companies c ON c.id = i.company_id
    WHERE i.channel_context->'pending_question'->>'status' = 'moved_to_app'
      AND i.created_supplier_invoice_id IS NULL AND i.created_journal_entry_id IS NULL
    ORDER BY i.created_at DESC, i.id DESC LIMIT 50
"""
NAIVE_COUNT = """
    SELECT count(*) FROM public.invoice_inbox_items i
    WHERE i.channel_context->'pending_question'->>'status' = 'moved_to_app'
      AND i.created_supplier_invoice_id IS NULL AND i.created_journal_entry_id IS NULL
"""


def _median(call: Callable[[], Any], repeat: int) -> float:
    return statistics.median(time_calls(call, repeat))


def _once(call: Callable[[], Any]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def _bookkeeping(statement: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    return sql("bookkeeping", statement, params)


def _fill_to(size: int) -> float:
    """Insert rows until accounted's table holds ``size``; the seconds it took."""
    have = _bookkeeping("SELECT count(*) FROM public.invoice_inbox_items")[0][0]
    if have >= size:
        return 0.0
    started = time.perf_counter()
    # The app's connection has BOOKKEEPING_STATEMENT_TIMEOUT (15 s) for requests; a fill takes longer.
    _bookkeeping("SET statement_timeout = 0")
    if not _bookkeeping("SELECT 1 FROM public.companies LIMIT 1"):
        owner = _bookkeeping("INSERT INTO auth.users (email) VALUES ('bench@example.se') RETURNING id")[0][0]
        _bookkeeping(
            """INSERT INTO public.companies (name, entity_type, created_by)
               SELECT 'Företag ' || n || ' AB', 'aktiebolag', %s FROM generate_series(1, 20) n""",
            [owner],
        )
    contexts = ", ".join(f"({n}, {ctx}::jsonb)" for n, ctx in enumerate(CONTEXTS))
    suppliers = "ARRAY[" + ", ".join(f"'{name}'" for name in SUPPLIERS) + "]"
    _bookkeeping(
        f"""
        WITH companies AS (SELECT array_agg(id ORDER BY id) AS ids, min(created_by::text)::uuid AS owner
                           FROM public.companies),
             contexts(n, ctx) AS (VALUES {contexts})
        INSERT INTO public.invoice_inbox_items
            (user_id, company_id, source, extracted_data, channel_context, correlation_id, created_at, updated_at)
        SELECT companies.owner, companies.ids[1 + g %% 20], 'whatsapp',
               jsonb_build_object('supplier', jsonb_build_object('name', ({suppliers})[1 + g %% 6]),
                                  'invoice', jsonb_build_object('currency', 'SEK', 'invoiceDate', '2026-11-20'),
                                  'totals', jsonb_build_object('total', 100 + g %% 900, 'vatAmount', 12)),
               contexts.ctx, gen_random_uuid(), now() - (g || ' seconds')::interval - interval '1 hour',
               now() - (g || ' seconds')::interval - interval '1 hour'
        FROM generate_series(%s, %s) g, companies, contexts WHERE contexts.n = g %% 10
        """,  # noqa: S608 - constants of this script
        [have + 1, size],
    )
    _bookkeeping("VACUUM ANALYZE public.invoice_inbox_items")  # as autovacuum would after a load
    return time.perf_counter() - started


def _reset_read_model() -> None:
    from django.db import connections

    from reviewapp.models import SyncState

    with connections["default"].cursor() as cursor:
        cursor.execute("TRUNCATE reviewapp_indexeditem")
    SyncState.objects.all().delete()


def _copy_floor() -> float:
    """Seconds to read the sync's columns with COPY, bytes only (the fastest any sync can read them)."""
    from django.db import connections

    from reviewapp.readmodel import rows

    def read() -> None:
        with connections["bookkeeping"].cursor() as cursor, cursor.copy(f"COPY ({rows.SELECT}) TO STDOUT") as copy:
            for _block in copy:
                pass

    return _median(read, 3) / 1000


def _tree_rss_mb(pid: int) -> float:
    """The resident memory of ``pid`` and every process under it, now (Linux's /proc), in MB."""
    total_kb, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(child) for child in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue  # it ended meanwhile
        total_kb += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return total_kb / 1024


def _sync_in_child() -> tuple[float, float, float]:
    """``manage.py sync_index`` on an empty read model.

    (seconds, the largest peak RSS of one of its processes in MB (``wait4``),
    the largest sum over it and its helper processes, sampled every 0.1 s, in MB).
    """
    log = ROOT / "bench" / "results" / "sync-index-child.log"
    log.parent.mkdir(exist_ok=True)
    started = time.perf_counter()
    tree_peak = 0.0
    with log.open("w") as out:
        child = subprocess.Popen(
            [sys.executable, str(ROOT / "manage.py"), "sync_index"], stdout=out, stderr=subprocess.STDOUT
        )
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            tree_peak = max(tree_peak, _tree_rss_mb(child.pid))
            time.sleep(0.1)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"sync_index failed: see {log}")
    return seconds, usage.ru_maxrss / 1024, tree_peak  # ru_maxrss: kilobytes on Linux


def measure(size: int, repeat: int) -> dict[str, Any]:
    from django.db import connections
    from django.test import override_settings

    from reviewapp.models import SyncState
    from reviewapp.readmodel import sync

    figures: dict[str, Any] = {"size": size, "fill_s": _fill_to(size), "load_before": os.getloadavg()[0]}
    figures["copy_floor_s"] = _copy_floor()
    _reset_read_model()
    connections.close_all()  # the child's swap drops the table this process may have cached plans for
    figures["initial_sync_s"], figures["peak_rss_mb"], figures["tree_rss_mb"] = _sync_in_child()
    figures["ratio"] = figures["initial_sync_s"] / figures["copy_floor_s"]
    SyncState.objects.update(rules_version=sync.RULES_VERSION - 1)
    figures["reindex_s"] = _once(sync.poll) / 1000
    with connections["default"].cursor() as cursor:
        cursor.execute("VACUUM ANALYZE reviewapp_indexeditem")
    figures["idle_poll_ms"] = _median(sync.poll, repeat)
    _bookkeeping("CREATE INDEX bench_updated_at_idx ON public.invoice_inbox_items (updated_at)")
    _bookkeeping("ANALYZE public.invoice_inbox_items")
    figures["idle_poll_indexed_ms"] = _median(sync.poll, repeat)
    _bookkeeping("DROP INDEX bench_updated_at_idx")
    ids = [row[0] for row in _bookkeeping("SELECT id FROM public.invoice_inbox_items ORDER BY random() LIMIT 1000")]
    _bookkeeping(
        "UPDATE public.invoice_inbox_items SET channel_context = jsonb_set(coalesce(channel_context, '{}'),"
        " '{user_note}', '\"bench\"') WHERE id = ANY(%s)",
        [ids],
    )
    figures["poll_1000_changed_ms"] = _once(sync.poll)
    figures["reconcile_s"] = _once(sync.reconcile) / 1000

    client = superuser_client()
    with override_settings(STORAGES=plain_storages()):
        for label, path in (("list_ms", "/?state=needs_answer"), ("api_ms", "/api/items?state=needs_answer")):
            assert client.get(path).status_code == 200, path
            figures[label] = _median(lambda path=path: client.get(path), repeat)  # type: ignore[misc]
    figures["naive_rows_ms"] = _median(lambda: _bookkeeping(NAIVE_ROWS), repeat)
    figures["naive_count_ms"] = _median(lambda: _bookkeeping(NAIVE_COUNT), repeat)
    figures["naive_ms"] = figures["naive_rows_ms"] + figures["naive_count_ms"]
    figures["needs_answer"] = _bookkeeping(NAIVE_COUNT)[0][0]
    figures["load_after"] = os.getloadavg()[0]
    return figures


def bulk_change(repeat: int) -> dict[str, Any]:
    """One UPDATE of every row, then: the poll that reads it, the idle polls after it, and them without a snapshot."""
    from reviewapp.models import SyncState
    from reviewapp.readmodel import sync

    figures: dict[str, Any] = {}
    _bookkeeping(
        "UPDATE public.invoice_inbox_items"
        " SET channel_context = jsonb_set(coalesce(channel_context, '{}'), '{user_note}', '\"bulk\"')"
    )
    reads: list[int] = []

    def poll() -> None:
        reads.append(sync.poll().read)

    figures["bulk_first_poll_ms"] = _once(poll)
    figures["bulk_first_poll_read"] = reads[-1]
    reads.clear()
    figures["bulk_idle_poll_ms"] = _median(poll, repeat)
    figures["bulk_idle_poll_read"] = max(reads)
    reads.clear()

    def poll_as_before() -> None:
        SyncState.objects.update(poll_snapshot=None)
        poll()

    figures["bulk_idle_poll_before_ms"] = _median(poll_as_before, repeat)
    figures["bulk_idle_poll_before_read"] = max(reads)
    return figures


def _table(results: list[dict[str, Any]]) -> str:
    rows = [
        ("rows in accounted's table", "size", "{:,}"),
        ("fill with plain SQL (s)", "fill_s", "{:.1f}"),
        ("COPY read floor (s)", "copy_floor_s", "{:.2f}"),
        ("initial sync, `manage.py sync_index` (s)", "initial_sync_s", "{:.1f}"),
        ("initial sync / COPY floor", "ratio", "{:.1f}×"),
        ("initial sync: rows/s", "rows_per_s", "{:,.0f}"),
        ("initial sync: peak RSS of its largest process (MB)", "peak_rss_mb", "{:.0f}"),
        ("initial sync: peak RSS of all its processes together (MB, sampled)", "tree_rss_mb", "{:.0f}"),
        ("full re-index after a RULES_VERSION change (s)", "reindex_s", "{:.1f}"),
        ("idle poll, no index on updated_at (ms)", "idle_poll_ms", "{:.1f}"),
        ("idle poll, with an index on updated_at (ms)", "idle_poll_indexed_ms", "{:.1f}"),
        ("poll after 1 000 rows changed (ms)", "poll_1000_changed_ms", "{:.1f}"),
        ("full reconcile (s)", "reconcile_s", "{:.1f}"),
        ("list page, needs answer (ms)", "list_ms", "{:.1f}"),
        ("list API, needs answer (ms)", "api_ms", "{:.1f}"),
        ("naive list: JSONB predicate, rows + count (ms)", "naive_ms", "{:.1f}"),
        ("load average (1 min) before / after", "load", "{}"),
    ]
    for r in results:
        r["rows_per_s"] = r["size"] / r["initial_sync_s"]
        r["load"] = f"{r['load_before']:.1f} / {r['load_after']:.1f}"
    lines = ["| | " + " | ".join(f"{r['size']:,}" for r in results) + " |", "| --- |" + " ---: |" * len(results)]
    for label, key, fmt in rows[1:]:
        lines.append(f"| {label} | " + " | ".join(fmt.format(r[key]) for r in results) + " |")
    for r in results:
        lines.append(
            f"\n{r['size']:,} rows: naive / API = {r['naive_ms'] / r['api_ms']:.1f}×, "
            f"naive / list page = {r['naive_ms'] / r['list_ms']:.1f}× ({r['needs_answer']:,} need an answer)"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[200_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--base-url", default=DEFAULT_BASE)
    parser.add_argument("--name", default="bench_sync", help="prefix of the two databases (default bench_sync)")
    parser.add_argument("--keep", action="store_true", help="keep the benchmark databases")
    parser.add_argument("--bulk-only", action="store_true", help="only the polls after a bulk change")
    args = parser.parse_args()
    review_url, bookkeeping_url = database_urls(args.base_url, f"{args.name}_review", f"{args.name}_bookkeeping")
    with bench_databases(review_url, bookkeeping_url, keep=args.keep, reuse=False):
        setup_django(review_url, bookkeeping_url)
        migrate()
        results = []
        for size in sorted(args.sizes):
            if args.bulk_only:
                from reviewapp.readmodel import sync

                _fill_to(size)
                sync.poll()  # the initial sync, in this process
                print(f"{size:,} rows: {bulk_change(args.repeat)}", flush=True)
                continue
            results.append(measure(size, args.repeat))
            print(f"done: {size:,} rows {results[-1]}", file=sys.stderr, flush=True)
        if results:
            print(_table(results))


if __name__ == "__main__":
    main()
