"""The app creates nothing in accounted's database: its schema is the same before and after.

pg_dump --schema-only of the bookkeeping database, before and after
``migrate``, a full sync with a reconcile, and a session of answers through
the API. Transactional, so anything the app did to the schema would be
committed and in the second dump.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from django.core.management import call_command
from django.db import connections
from django.test import Client

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.dev import embedded_pg
from reviewapp.readmodel import sync
from tests import factories


def schema_dump() -> str:
    settings = connections[BOOKKEEPING_DB].settings_dict
    env = {"PGPASSWORD": settings.get("PASSWORD") or ""}
    result = subprocess.run(
        [
            str(embedded_pg.bin_dir() / "pg_dump"),
            "--schema-only",
            "--no-owner",
            "--host",
            settings["HOST"] or "127.0.0.1",
            "--port",
            str(settings["PORT"] or 5432),
            "--username",
            settings["USER"],
            settings["NAME"],
        ],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    # pg_dump 17+ writes a random \restrict key per run; it is not schema.
    return "\n".join(line for line in result.stdout.splitlines() if not line.startswith(("\\restrict", "\\unrestrict")))


def moved(question: str) -> dict[str, object]:
    return {
        "channel": "whatsapp",
        "pending_question": {"type": question, "asked_at": "2026-11-01T10:00:00.000Z", "status": "moved_to_app"},
    }


@pytest.mark.django_db(transaction=True)
def test_migrate_a_full_sync_and_answers_leave_the_bookkeeping_schema_as_it_was(bookkeeper) -> None:  # type: ignore[no-untyped-def]
    company = factories.make_company()
    items = [
        factories.make_item(company, indexed=False, channel_context=moved(q)) for q in ("representation", "context")
    ]
    before = schema_dump()
    assert "invoice_inbox_items" in before

    call_command("migrate", verbosity=0)
    sync.poll()
    sync.reconcile()
    client = Client()
    client.force_login(bookkeeper)
    answers = [
        {
            "question": "representation",
            "participants": [{"name": "Anna Berg", "company": "Kund AB"}],
            "purpose": "Projektmöte",
        },
        {"question": "context", "text": "Fika till kundmötet"},
    ]
    for item, body in zip(items, answers, strict=True):
        response = client.post(f"/api/items/{item.id}/answer", json.dumps(body), content_type="application/json")
        assert response.status_code == 200, response.content
    sync.poll()

    assert schema_dump() == before
