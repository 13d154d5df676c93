"""accounted's server restarted alone, mid-stream, while the app's server runs on (issue 39).

The pair of conftest.py's ``split`` fixture: accounted's replica on a private
server of its own, the app's database on the tests' server. The publisher is
stopped hard (``-m immediate``: a crash, as a failover or an OOM kill would
leave it) right after commits the subscription may not have received yet.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from .conftest import Server, Split, wait_until

pytestmark = pytest.mark.postgres

BATCHES, ROWS = 4, 1500


def _one(server: Server, database: str, query: str, params: list[Any] | None = None) -> Any:
    with server.connect(database) as conn:
        row = conn.execute(query, params or []).fetchone()
        return row[0] if row else None


def _insert_batch(conn: Any, company: Any, batch: int) -> None:
    conn.execute(
        """INSERT INTO public.invoice_inbox_items (user_id, company_id, source, extracted_data)
           SELECT c.created_by, c.id, 'upload', jsonb_build_object('supplier', jsonb_build_object('name', %s::text))
           FROM public.companies c, generate_series(1, %s) WHERE c.id = %s""",
        [f"Parti {batch}", ROWS, company],
    )


def test_the_publisher_restarted_alone_loses_nothing_and_repeats_nothing(split: Split) -> None:
    pub, sub, db = split.publisher, split.subscriber, split.database
    with pub.connect("publisher") as conn:
        user = conn.execute("INSERT INTO auth.users (email) VALUES ('restart@example.com') RETURNING id").fetchone()
        assert user is not None
        company = conn.execute(
            """INSERT INTO public.companies (name, entity_type, created_by)
               VALUES ('Utgivaren AB', 'aktiebolag', %s) RETURNING id""",
            [user[0]],
        ).fetchone()[0]
    shown = "SELECT count(*) FROM reviewapp_indexeditem WHERE company_id = %s"
    start = split.follower.mark()
    with pub.connect("publisher") as conn:
        for batch in (0, 1):
            _insert_batch(conn, company, batch)
    wait_until(lambda: _one(sub, db, shown, [company]) == 2 * ROWS, 60, "the first batches")
    # The rows are in the read model when the pass commits; its report line comes after. Marking
    # before that line is written counted a first batch as derived after the crash (a loaded CI).
    wait_until(lambda: split.follower.since(start) >= (2 * ROWS, 0), 30, "the follower's report of them")

    before = split.follower.mark()
    with pub.connect("publisher") as conn:
        conn.execute(
            """UPDATE public.invoice_inbox_items
               SET extracted_data = '{"supplier": {"name": "Parti 0 efter"}}'::jsonb
               WHERE company_id = %s AND extracted_data->'supplier'->>'name' = 'Parti 0'""",
            [company],
        )
        _insert_batch(conn, company, 2)
    # Committed, and at once the publisher crashes: the walsender may not have sent them yet.
    pub.pg_ctl("-m", "immediate", "-w", "restart")
    with pub.connect("publisher") as conn:  # after the restart: the subscription reconnects by itself
        _insert_batch(conn, company, 3)

    wait_until(lambda: _one(sub, db, shown, [company]) == BATCHES * ROWS, 120, "every batch after the restart")
    updated = "SELECT count(*) FROM reviewapp_indexeditem WHERE company_id = %s AND supplier_name = 'Parti 0 efter'"
    wait_until(lambda: _one(sub, db, updated, [company]) == ROWS, 60, "the update before the crash")
    wait_until(lambda: _one(sub, db, "SELECT count(*) = 0 FROM accounted_copy.changes"), 30, "the queue drained")
    # Derived once each: the update and the two later batches. A replay from an old position
    # would queue the update's rows again (an INSERT replayed would stop the apply worker on
    # its primary key instead, and batch 3 would never arrive).
    expected = (3 * ROWS, 0)
    wait_until(lambda: split.follower.since(before) >= expected, 30, "the follower's report")
    time.sleep(2)
    assert split.follower.since(before) == expected
    suppliers = "SELECT count(DISTINCT supplier_name) FROM reviewapp_indexeditem WHERE company_id = %s"
    assert _one(sub, db, suppliers, [company]) == BATCHES
    report = json.loads(sub.manage("replication", "check", **split.env))
    assert report["state"] == "streaming"
    # The lost connection counts as one apply error; a replayed INSERT would be another kind,
    # retried (and logged) until someone intervened: the subscriber's log has none.
    assert "duplicate key" not in (sub.data.parent / "log").read_text(errors="replace")
