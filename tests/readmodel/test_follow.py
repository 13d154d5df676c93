"""``sync_index --follow``: a plain-SQL change by another program is in the list within 5 s."""

from __future__ import annotations

import threading
import time

import pytest
from django.core.management import call_command
from django.db import connections
from django.test import Client

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from tests import factories


@pytest.mark.django_db(transaction=True)
def test_a_row_inserted_with_plain_sql_is_listed_within_five_seconds(support) -> None:  # type: ignore[no-untyped-def]
    company = factories.make_company()

    def follow() -> None:
        try:
            call_command("sync_index", "--follow", "--interval", "0.5", "--max-seconds", "8")
        finally:
            connections.close_all()  # this thread's own connections

    loop = threading.Thread(target=follow, daemon=True)
    loop.start()
    try:
        client = Client()
        client.force_login(support)
        with connections[BOOKKEEPING_DB].cursor() as cursor:
            cursor.execute(
                """INSERT INTO public.invoice_inbox_items (user_id, company_id, source, extracted_data, channel_context)
                   VALUES (%s, %s, 'whatsapp', '{"supplier": {"name": "Sjöbaren"}}'::jsonb,
                           '{"channel": "whatsapp", "pending_question": {"type": "context",
                             "asked_at": "2026-11-01T10:00:00.000Z", "status": "moved_to_app"}}'::jsonb)
                   RETURNING id""",
                [company.created_by, company.id],
            )
            item_id = str(cursor.fetchone()[0])
        written = time.monotonic()
        seen_after = None
        while time.monotonic() - written < 7:
            listed = client.get("/api/items", {"state": "needs_answer"}).json()["results"]
            if any(row["id"] == item_id for row in listed):
                seen_after = time.monotonic() - written
                break
            time.sleep(0.2)
    finally:
        loop.join(timeout=15)
    assert seen_after is not None, "the item never reached the list"
    assert seen_after < 5
