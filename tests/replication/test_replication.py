"""SYNC_SOURCE=replication: the read model follows accounted's commits through a subscription.

On the private server of conftest.py (wal_level = logical). Each test writes
in accounted's database as its intake would, and ``sync_index --follow`` (in
replication mode: it drains the subscription's queue) brings it into the read
model; its own report of each pass counts the derivations. The transaction
held open is held 90 s, longer than the polls' 60 s overlap that such a hold
defeats, and the bulk update is 200 000 rows, as issue 39 asks: together
about two minutes of this file, mostly waiting.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest

from .conftest import FOLLOW_INTERVAL, ROWS_BEFORE, Follower, Server, following, wait_until

pytestmark = pytest.mark.postgres

HOLD_SECONDS = 90
BULK_ROWS = 200_000


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


def _set_supplier(conn: Any, item: uuid.UUID, supplier: str) -> None:
    conn.execute(
        "UPDATE public.invoice_inbox_items SET extracted_data = %s::jsonb WHERE id = %s",
        [json.dumps({"supplier": {"name": supplier}}), item],
    )


def _indexed_supplier(server: Server, item: uuid.UUID) -> str | None:
    return _one(server, "subscriber", "SELECT supplier_name FROM reviewapp_indexeditem WHERE id = %s", [item])


def _shows(server: Server, item: uuid.UUID, supplier: str | None, timeout: float = 30.0) -> None:
    """Wait until the read model shows ``item`` with this supplier (None: not at all)."""
    if supplier is None:
        query = "SELECT count(*) = 0 FROM reviewapp_indexeditem WHERE id = %s"
        wait_until(lambda: _one(server, "subscriber", query, [item]), timeout, f"{item} to leave the read model")
    else:
        wait_until(lambda: _indexed_supplier(server, item) == supplier, timeout, f"{item} as {supplier}")


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


def test_the_rows_accounted_held_before_the_subscription_come_with_its_first_copy(
    subscribed: Server, follower: Follower
) -> None:
    shown = "SELECT count(*) FROM reviewapp_indexeditem WHERE company_name = 'Före AB'"
    wait_until(lambda: _one(subscribed, "subscriber", shown) == ROWS_BEFORE, 30, "the first copy in the read model")


def test_a_rules_change_rederives_every_row_while_the_list_keeps_them(subscribed: Server, follower: Follower) -> None:
    """A release whose RULES_VERSION differs re-derives from the copy in place: no row leaves the list meanwhile."""
    shown = "SELECT count(*) FROM reviewapp_indexeditem"
    version = "SELECT rules_version FROM reviewapp_syncstate WHERE id = 1"
    rows_before, current = _one(subscribed, "subscriber", shown), _one(subscribed, "subscriber", version)
    started = _one(subscribed, "subscriber", "SELECT now()")
    with subscribed.connect("subscriber") as conn:  # the read model as an older release derived it
        conn.execute("UPDATE reviewapp_syncstate SET rules_version = rules_version - 1 WHERE id = 1")
    older = "SELECT count(*) FROM reviewapp_indexeditem WHERE indexed_at < %s"
    fewest = rows_before

    def rederived() -> bool:
        nonlocal fewest
        fewest = min(fewest, _one(subscribed, "subscriber", shown))
        return _one(subscribed, "subscriber", older, [started]) == 0

    # No commit wakes the drain: its timed pass (FOLLOW_INTERVAL) finds the version changed.
    wait_until(rederived, 120, "every row derived again")
    assert rows_before > 0
    assert fewest == rows_before  # the list served every row while they were rewritten
    assert _one(subscribed, "subscriber", version) == current


def test_a_row_python_cannot_decode_is_one_malformed_item(subscribed: Server, follower: Follower) -> None:
    company = _company(subscribed, "Trasig AB")
    with subscribed.connect("publisher") as conn:
        good = _item(conn, company, "Hel")
        bad = _item(conn, company, "Trasig")
        # Valid for PostgreSQL's jsonb, too deep for Python's json: the poll mode's poison row.
        conn.execute(
            "UPDATE public.invoice_inbox_items SET channel_context = %s::jsonb WHERE id = %s",
            ["[" * 10_000 + "]" * 10_000, bad],
        )
    flagged = "SELECT state_malformed FROM reviewapp_indexeditem WHERE id = %s"
    wait_until(lambda: _one(subscribed, "subscriber", flagged, [bad]) is True, 30, "the bad row as malformed")
    state = "SELECT state_malformed, malformed_reason FROM reviewapp_indexeditem WHERE id = %s"
    with subscribed.connect("subscriber") as conn:
        malformed, reason = conn.execute(state, [bad]).fetchone()
        good_malformed, _ = conn.execute(state, [good]).fetchone()
    assert malformed
    assert reason.startswith("channel_context: ")
    assert "nested too deep" in reason
    assert not good_malformed
    _shows(subscribed, good, "Hel")


def test_a_committed_change_reaches_the_read_model_without_reading_accounteds_table(
    subscribed: Server, follower: Follower
) -> None:
    company = _company(subscribed, "Replikerade AB")
    with subscribed.connect("publisher") as conn:
        item = _item(conn, company, "Alfa Bygg")
    _shows(subscribed, item, "Alfa Bygg")
    company_name = "SELECT company_name FROM reviewapp_indexeditem WHERE id = %s"
    assert _one(subscribed, "subscriber", company_name, [item]) == "Replikerade AB"

    with subscribed.connect("publisher") as conn:
        _set_supplier(conn, item, "Beta Måleri")
        conn.execute("SELECT pg_stat_force_next_flush()")  # the write's own lookup counted now
        conn.execute("SELECT 1")
    before = _inbox_reads(subscribed)
    _shows(subscribed, item, "Beta Måleri")
    # More passes of the follower, idle ones; a backend reports its counts at least every second.
    time.sleep(2)
    assert _inbox_reads(subscribed) == before  # they read the copy, never accounted's table


def test_a_change_wakes_the_drain_at_once(subscribed: Server, follower: Follower) -> None:
    """The follower's timed passes are FOLLOW_INTERVAL (10 s) apart; the queue's notification wakes it.

    Five changes one after another, each shown within 2 s of its commit: by the
    timed passes alone each would have a one-in-five chance, all five 1 in 3 125.
    """
    company = _company(subscribed, "Vaken AB")
    with subscribed.connect("publisher") as conn:
        item = _item(conn, company, "Väckt 0")
    _shows(subscribed, item, "Väckt 0")
    for n in range(1, 6):
        time.sleep(0.5)  # the follower is back in its wait
        with subscribed.connect("publisher") as conn:
            _set_supplier(conn, item, f"Väckt {n}")
        committed = time.monotonic()
        _shows(subscribed, item, f"Väckt {n}", timeout=FOLLOW_INTERVAL * 2)
        assert time.monotonic() - committed < 2.0, f"change {n} waited for a timed pass"


def test_two_hosts_following_derive_each_change_once(subscribed: Server, follower: Follower) -> None:
    """A second host's sync_index --follow: both are woken by every change, only the lock's holder drains."""
    reconciled = "SELECT extract(epoch FROM last_reconcile_at) FROM reviewapp_syncstate WHERE id = 1"
    before = _one(subscribed, "subscriber", reconciled)
    log = subscribed.data.parent / "sync_index_second_host.log"
    with following(subscribed, "subscriber", subscribed.env(), log) as second:
        # Its first pass is a reconcile with the copy, which may queue what is in flight: over first.
        wait_until(lambda: _one(subscribed, "subscriber", reconciled) > before, 30, "the second host's reconcile")
        company = _company(subscribed, "Två värdar AB")
        marks = follower.mark(), second.mark()
        changes = 40
        with subscribed.connect("publisher") as conn:
            for n in range(changes):
                _item(conn, company, f"Värd {n}")
                time.sleep(0.05)
        shown = "SELECT count(*) FROM reviewapp_indexeditem WHERE company_id = %s"
        wait_until(lambda: _one(subscribed, "subscriber", shown, [company]) == changes, 30, "every change")
        time.sleep(1)  # a second derivation by the other host would be reported by now
        first, other = follower.since(marks[0])[0], second.since(marks[1])[0]
        assert first + other == changes


def test_a_transaction_held_open_before_its_commit_is_not_missed(subscribed: Server, follower: Follower) -> None:
    company = _company(subscribed, "Sena AB")
    with subscribed.connect("publisher") as conn:
        late = _item(conn, company, "Före")
        early = _item(conn, company, "Tidig")
    _shows(subscribed, late, "Före")

    with subscribed.connect("publisher") as held:
        held.execute("BEGIN")
        # Its updated_at is this transaction's now(): older than what commits meanwhile.
        _set_supplier(held, late, "Sen")
        with subscribed.connect("publisher") as other:
            _set_supplier(other, early, "Senare")
        _shows(subscribed, early, "Senare")
        time.sleep(HOLD_SECONDS)
        held.execute("COMMIT")
    _shows(subscribed, late, "Sen")


def test_a_bulk_update_is_derived_once(subscribed: Server, follower: Follower) -> None:
    company = _company(subscribed, "Massor AB")
    inserted = follower.mark()
    with subscribed.connect("publisher") as conn:
        conn.execute(
            """INSERT INTO public.invoice_inbox_items (user_id, company_id, source, extracted_data)
               SELECT c.created_by, c.id, 'upload', '{"supplier": {"name": "Före"}}'::jsonb
               FROM public.companies c, generate_series(1, %s) WHERE c.id = %s""",
            [BULK_ROWS, company],
        )
    wait_until(lambda: follower.since(inserted)[0] >= BULK_ROWS, 600, "the inserts derived")

    updated = follower.mark()
    with subscribed.connect("publisher") as conn:
        conn.execute(
            """UPDATE public.invoice_inbox_items SET extracted_data = '{"supplier": {"name": "Efter"}}'::jsonb
               WHERE company_id = %s""",
            [company],
        )
    wait_until(lambda: follower.since(updated)[0] >= BULK_ROWS, 600, "the update derived")
    time.sleep(1)  # later passes would show a second derivation here
    assert follower.since(updated) == (BULK_ROWS, 0)
    shown = "SELECT count(*) FROM reviewapp_indexeditem WHERE company_id = %s AND supplier_name = 'Efter'"
    assert _one(subscribed, "subscriber", shown, [company]) == BULK_ROWS


def test_a_deleted_row_leaves_the_read_model(subscribed: Server, follower: Follower) -> None:
    company = _company(subscribed, "Borta AB")
    with subscribed.connect("publisher") as conn:
        item = _item(conn, company, "Kvar")
    _shows(subscribed, item, "Kvar")

    with subscribed.connect("publisher") as conn:
        conn.execute("DELETE FROM public.invoice_inbox_items WHERE id = %s", [item])
    _shows(subscribed, item, None)


def test_the_server_restarted_mid_stream_resumes_where_it_stopped(subscribed: Server, follower: Follower) -> None:
    company = _company(subscribed, "Omstart AB")
    batches, rows = 3, 2000
    before = follower.mark()
    with subscribed.connect("publisher") as conn:
        for batch in range(batches):
            conn.execute(
                """INSERT INTO public.invoice_inbox_items (user_id, company_id, source, extracted_data)
                   SELECT c.created_by, c.id, 'upload',
                          jsonb_build_object('supplier', jsonb_build_object('name', %s::text))
                   FROM public.companies c, generate_series(1, %s) WHERE c.id = %s""",
                [f"Parti {batch}", rows, company],
            )
    # Stopped hard while the subscription applies what was just committed, and the sync drains it.
    subscribed.pg_ctl("-m", "immediate", "-w", "restart")
    shown = "SELECT count(*) FROM reviewapp_indexeditem WHERE company_id = %s"
    wait_until(lambda: _one(subscribed, "subscriber", shown, [company]) == batches * rows, 90, "all rows after restart")
    time.sleep(1)
    # Each row derived once: none lost, none applied twice by a replay from an old position.
    assert follower.since(before)[0] == batches * rows
    suppliers = "SELECT count(DISTINCT supplier_name) FROM reviewapp_indexeditem WHERE company_id = %s"
    assert _one(subscribed, "subscriber", suppliers, [company]) == batches

    # The follower listens again after the restart: a change is drained at once, not at its next
    # timed pass (FOLLOW_INTERVAL, 10 s away).
    with subscribed.connect("publisher") as conn:
        item = _item(conn, company, "Efter omstarten")
    committed = time.monotonic()
    _shows(subscribed, item, "Efter omstarten", timeout=FOLLOW_INTERVAL * 2)
    assert time.monotonic() - committed < 2.0


HEALTH = "from django.test import Client; print(Client().get('/healthz').content.decode())"


def test_a_stopped_stream_makes_the_read_model_stale_and_healthz_says_why(
    subscribed: Server, follower: Follower
) -> None:
    age = "SELECT extract(epoch FROM now() - last_poll_at) FROM reviewapp_syncstate WHERE id = 1"
    # This database's subscription: the split fixture's database has one of the same name on this server.
    worker = """SELECT count(w.pid) FROM pg_stat_subscription w JOIN pg_subscription s ON s.oid = w.subid
                WHERE s.subname = 'review_app' AND w.relid IS NULL
                  AND s.subdbid = (SELECT oid FROM pg_database WHERE datname = current_database())"""
    with subscribed.connect("subscriber") as conn:
        conn.execute("ALTER SUBSCRIPTION review_app DISABLE")
    try:
        wait_until(lambda: _one(subscribed, "subscriber", worker) == 0, 30, "the apply worker to stop")
        time.sleep(3)
        assert _one(subscribed, "subscriber", age) > 2.5  # the follower still runs, but the stream does not
        out = subscribed.manage("shell", "-c", HEALTH, SYNC_STALE_AFTER="2")
        health = json.loads(out.strip().splitlines()[-1])
        assert health["read_model"]["stale"] is True
        assert health["read_model"]["replication"]["state"] == "disabled"
    finally:
        with subscribed.connect("subscriber") as conn:
            conn.execute("ALTER SUBSCRIPTION review_app ENABLE")
    wait_until(lambda: _one(subscribed, "subscriber", age) < 1, 30, "the read model fresh again")


def test_check_reports_a_streaming_subscription(subscribed: Server) -> None:
    report = json.loads(subscribed.manage("replication", "check"))
    assert report["state"] == "streaming"
    assert report["tables_ready"] == report["tables"] == 2
