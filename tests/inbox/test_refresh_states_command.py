from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.db import connection

from reviewapp.models import InboxItem
from tests import factories


@pytest.mark.django_db
def test_it_recomputes_rows_another_program_changed(company):
    item = factories.make_item(company, channel_context={"channel": "whatsapp"})
    moved = {"channel": "whatsapp", "pending_question": {"type": "context", "status": "moved_to_app"}}
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE invoice_inbox_items SET channel_context = %s WHERE id = %s",
            [json.dumps(moved), item.id.hex if connection.vendor == "sqlite" else str(item.id)],
        )
    assert InboxItem.objects.get(pk=item.pk).states_stale

    out = io.StringIO()
    call_command("refresh_states", stdout=out)

    row = InboxItem.objects.get(pk=item.pk)
    assert not row.states_stale
    assert row.state_needs_answer
    assert "Recomputed 1 stale row(s)." in out.getvalue()
