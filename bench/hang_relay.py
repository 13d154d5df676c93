"""Which client-side limit ends a wait on a PostgreSQL that stops answering (issue 35)? Measured, not assumed.

    .venv/bin/python bench/hang_relay.py

Two ways a server can stop, behind a relay on loopback (tests/relay.py):
(a) it accepts the query and never answers; (b) it stops in the middle of
a large result. For each: plain psycopg with connect_timeout, a statement
timeout, TCP keepalives and tcp_user_timeout (what the settings gave before),
and the BoundedConnection of reviewapp.bookkeeping.bounded_pg. Each attempt is cut
after CAP seconds by the bench itself, so "hung" means "still waiting".
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg

from reviewapp.bookkeeping.bounded_pg import BoundedConnection, Limits, WaitState
from tests.relay import Relay

CAP = 20.0
DSN = os.environ.get("BENCH_DSN", "postgres://postgres@127.0.0.1:5432/postgres")
OPTIONS: dict[str, Any] = {
    "connect_timeout": 5,
    "options": "-c statement_timeout=3s",
    "keepalives": 1,
    "keepalives_idle": 1,
    "keepalives_interval": 1,
    "keepalives_count": 2,
    "tcp_user_timeout": 2000,
}
LIMITS = Limits(
    query_deadline=5, unbounded_deadline=60, margin=2, health_check=2, cancel_timeout=1, max_concurrent=0, slot_wait=0
)
QUERY = {"a": "SELECT 1", "b": "SELECT repeat('x', 1000) FROM generate_series(1, 200000)"}


def attempt(kind: str, bounded: bool) -> str:
    with Relay() as relay:
        outcome: list[str] = []
        ready = threading.Event()
        start = 0.0

        def run() -> None:
            nonlocal start
            # One thread opens, binds and uses the connection, as each of gunicorn's threads does.
            conn = psycopg.connect(DSN.replace(":5432", f":{relay.port}"), autocommit=True, **OPTIONS)
            if bounded:
                conn.__class__ = BoundedConnection
                conn.bind(WaitState("bench", LIMITS))  # type: ignore[attr-defined]
            conn.execute("SELECT 1")  # established and answering
            relay.hang(after=0 if kind == "a" else 300_000)
            start = time.monotonic()
            ready.set()
            try:
                conn.execute(QUERY[kind]).fetchall()
                outcome.append("answered")
            except psycopg.Error as error:
                outcome.append(f"{type(error).__name__}: {str(error)[:70]}")

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        ready.wait(10)
        thread.join(CAP)
        took = time.monotonic() - start
        return f"{took:5.1f} s  " + (outcome[0] if outcome else f"still waiting after {CAP:g} s (hung)")


def main() -> None:
    for kind, what in (("a", "accepts, never answers"), ("b", "stops mid-result")):
        for bounded in (False, True):
            label = "BoundedConnection (deadline 5 s)" if bounded else "keepalives + tcp_user_timeout + timeouts"
            print(f"({kind}) {what:24} {label:42} {attempt(kind, bounded)}", flush=True)


if __name__ == "__main__":
    main()
