"""SYNC_SOURCE=replication: the read model follows accounted's commits through a subscription.

On the private server of conftest.py (wal_level = logical). Each test writes
in accounted's database as its intake would, waits until the subscription
copied it, runs one ``sync_index`` pass in a child process (the replication
mode drains the queue) and reads the read model. The held-open transaction
is held 5 s, not the issue's 90 s, to keep the file under two minutes: the
stream orders by commit, so the length of the hold does not matter to it.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from typing import Any

import pytest

from .conftest import Server, subscribed, wait_until  # noqa: F401 - the fixture

HOLD_SECONDS = 5


def _one(server: Server, database: str, query: str, params: list[Any] | None = None) -> Any:
    with server.connect(database) as conn:
        row = conn.execute(query, params or []).fetchone()
        return row[0] if row else None


def _company(server: Server, name: str) -> uuid.UUID:
    with server.connect("publisher") as conn:
        user = conn.execute("INSERT INTO auth.users (email) VALUES ('intake@example.com') RETURNING id").fetchone()
        assert user is not None
        row = conn.execute(
            "INSERT INTO public.companies (name, entity_type, created_by) VALUES (%s, 'aktiebolag', %s) RETURNING id",
            [name, user[0]],
        ).fetchone()
        assert row is not None
        return uuid.UUID(str(row[0]))


def _item(conn: Any, company: uuid.UUID, supplier: str) -> uuid.UUID:
    row = conn.execute(
        """INSERT INTO public.invoice_inbox_items (user_id, company_id, source, extracted_data)
           SELECT created_by, id, 'whatsapp', %s::jsonb FROM public.companies WHERE id = %s RETURNING id""",
        [json.dumps({"supplier": {"name": supplier}}), company],
    ).fetchone()
    return uuid.UUID(str(row[0]))


def _copied(server: Server, item: uuid.UUID, supplier: str | None) -> bool:
    """Whether the subscription's copy holds ``item`` with this supplier (None: the row is gone)."""
    found = _one(
        server,
        "subscriber",
        "SELECT extracted_data #>> '{supplier,name}' FROM public.invoice_inbox_items WHERE id = %s",
        [item],
    )
    return found == supplier


def _indexed_supplier(server: Server, item: uuid.UUID) -> str | None:
    return _one(server, "subscriber", "SELECT supplier_name FROM reviewapp_indexeditem WHERE id = %s", [item])


def _is_indexed(server: Server, item: uuid.UUID) -> bool:
    return bool(_one(server, "subscriber", "SELECT count(*) FROM reviewapp_indexeditem WHERE id = %s", [item]))


def _sync(server: Server) -> tuple[int, int]:
    """One ``sync_index`` pass: (indexed, removed) as it reports them."""
    out = server.manage("sync_index")
    found = re.search(r"poll: (\d+) indexed, (\d+) removed", out)
    assert found, out
    return int(found[1]), int(found[2])


def _inbox_reads(server: Server) -> int:
    """How often accounted's inbox table was scanned or looked up, as its server counts it."""
    return int(
        _one(
            server,
            "publisher",
            """SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0) FROM pg_stat_user_tables
               WHERE relid = 'public.invoice_inbox_items'::regclass""",
        )
    )


def test_a_committed_change_reaches_the_read_model_without_reading_accounteds_table(subscribed: Server) -> None:
    company = _company(subscribed, "Replikerade AB")
    with subscribed.connect("publisher") as conn:
        item = _item(conn, company, "Alfa Bygg")
    wait_until(lambda: _copied(subscribed, item, "Alfa Bygg"), what="the insert in the copy")
    _sync(subscribed)
    assert _indexed_supplier(subscribed, item) == "Alfa Bygg"
    assert _one(subscribed, "subscriber", "SELECT company_name FROM reviewapp_indexeditem WHERE id = %s", [item]) == (
        "Replikerade AB"
    )

    with subscribed.connect("publisher") as conn:
        conn.execute(
            "UPDATE public.invoice_inbox_items SET extracted_data = %s::jsonb WHERE id = %s",
            [json.dumps({"supplier": {"name": "Beta Måleri"}}), item],
        )
    wait_until(lambda: _copied(subscribed, item, "Beta Måleri"), what="the update in the copy")
    before = _inbox_reads(subscribed)
    _sync(subscribed)
    assert _indexed_supplier(subscribed, item) == "Beta Måleri"
    assert _inbox_reads(subscribed) == before  # the pass read the copy, not accounted's table


def test_a_transaction_held_open_before_its_commit_is_not_missed(subscribed: Server) -> None:
    company = _company(subscribed, "Sena AB")
    with subscribed.connect("publisher") as conn:
        late = _item(conn, company, "Före")
        early = _item(conn, company, "Tidig")
    wait_until(lambda: _copied(subscribed, early, "Tidig"), what="the inserts in the copy")
    _sync(subscribed)

    with subscribed.connect("publisher") as held:
        held.execute("BEGIN")
        # updated_at is this transaction's now(): older than everything committed meanwhile.
        held.execute(
            "UPDATE public.invoice_inbox_items SET extracted_data = %s::jsonb WHERE id = %s",
            [json.dumps({"supplier": {"name": "Sen"}}), late],
        )
        with subscribed.connect("publisher") as other:
            other.execute(
                "UPDATE public.invoice_inbox_items SET extracted_data = %s::jsonb WHERE id = %s",
                [json.dumps({"supplier": {"name": "Senare"}}), early],
            )
        wait_until(lambda: _copied(subscribed, early, "Senare"), what="the other commit in the copy")
        _sync(subscribed)
        assert _indexed_supplier(subscribed, early) == "Senare"
        time.sleep(HOLD_SECONDS)
        held.execute("COMMIT")
    wait_until(lambda: _copied(subscribed, late, "Sen"), what="the late commit in the copy")
    _sync(subscribed)
    assert _indexed_supplier(subscribed, late) == "Sen"


def test_a_bulk_update_is_derived_once(subscribed: Server) -> None:
    company = _company(subscribed, "Massor AB")
    rows = 20_000
    with subscribed.connect("publisher") as conn:
        conn.execute(
            """INSERT INTO public.invoice_inbox_items (user_id, company_id, source, extracted_data)
               SELECT c.created_by, c.id, 'upload', '{"supplier": {"name": "Före"}}'::jsonb
               FROM public.companies c, generate_series(1, %s) WHERE c.id = %s""",
            [rows, company],
        )
    count_copied = (
        "SELECT count(*) FROM public.invoice_inbox_items"
        " WHERE company_id = %s AND extracted_data #>> '{supplier,name}' = %s"
    )
    wait_until(lambda: _one(subscribed, "subscriber", count_copied, [company, "Före"]) == rows, 60, "the inserts")
    assert _sync(subscribed) == (rows, 0)

    with subscribed.connect("publisher") as conn:
        conn.execute(
            """UPDATE public.invoice_inbox_items SET extracted_data = '{"supplier": {"name": "Efter"}}'::jsonb
               WHERE company_id = %s""",
            [company],
        )
    wait_until(lambda: _one(subscribed, "subscriber", count_copied, [company, "Efter"]) == rows, 60, "the update")
    assert _sync(subscribed) == (rows, 0)
    assert _sync(subscribed) == (0, 0)
    indexed = "SELECT count(*) FROM reviewapp_indexeditem WHERE company_id = %s AND supplier_name = 'Efter'"
    assert _one(subscribed, "subscriber", indexed, [company]) == rows


def test_a_deleted_row_leaves_the_read_model(subscribed: Server) -> None:
    company = _company(subscribed, "Borta AB")
    with subscribed.connect("publisher") as conn:
        item = _item(conn, company, "Kvar")
    wait_until(lambda: _copied(subscribed, item, "Kvar"), what="the insert in the copy")
    _sync(subscribed)
    assert _is_indexed(subscribed, item)

    with subscribed.connect("publisher") as conn:
        conn.execute("DELETE FROM public.invoice_inbox_items WHERE id = %s", [item])
    wait_until(lambda: _copied(subscribed, item, None), what="the delete in the copy")
    assert _sync(subscribed) == (0, 1)
    assert not _is_indexed(subscribed, item)


def test_the_server_restarted_mid_stream_resumes_where_it_stopped(subscribed: Server) -> None:
    company = _company(subscribed, "Omstart AB")
    _sync(subscribed)
    with subscribed.connect("publisher") as conn:
        for batch in range(3):
            conn.execute(
                """INSERT INTO public.invoice_inbox_items (user_id, company_id, source, extracted_data)
                   SELECT c.created_by, c.id, 'upload', jsonb_build_object('supplier', jsonb_build_object('name', %s::text))
                   FROM public.companies c, generate_series(1, 2000) WHERE c.id = %s""",
                [f"Parti {batch}", company],
            )
    # Stopped hard while the subscription applies what was just committed.
    subscribed.pg_ctl("-m", "immediate", "-w", "restart")
    count_copied = "SELECT count(*) FROM public.invoice_inbox_items WHERE company_id = %s"
    wait_until(lambda: _one(subscribed, "subscriber", count_copied, [company]) == 6000, 60, "the copy after restart")
    assert _sync(subscribed) == (6000, 0)
    indexed = "SELECT count(DISTINCT supplier_name) FROM reviewapp_indexeditem WHERE company_id = %s"
    assert _one(subscribed, "subscriber", indexed, [company]) == 3


def test_check_reports_a_streaming_subscription(subscribed: Server) -> None:
    report = json.loads(subscribed.manage("replication", "check"))
    assert report["state"] == "streaming"
    assert report["tables_ready"] == report["tables"] == 2


pytestmark = pytest.mark.postgres
