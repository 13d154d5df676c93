"""The admin's few editable fields: hostile input is a form error, channel_context is never written."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from reviewapp.models import InboxItem
from tests import factories
from tests.robustness.conftest import lenient, moved, snapshot


def _change_data(item: InboxItem, **overrides: Any) -> dict[str, Any]:
    data = {
        "company": str(item.company_id),
        "status": item.status,
        "source": item.source,
        "document_id": "",
        "whatsapp_message_id": item.whatsapp_message_id or "",
        "correlation_id": "",
        "extracted_data": '{"supplier": {"name": "ICA"}}',
        "updated_at_0": "2026-11-20",
        "updated_at_1": "09:00:00",
        "_save": "Save",
    }
    data.update(overrides)
    return data


@pytest.mark.parametrize(
    ("extracted", "message"),
    [
        ('{"supplier": {"name": "a\\u0000b"}}', "NUL character"),
        ('{"supplier": {"name": "half \\ud83d"}}', "lone surrogate"),
        ('{"supplier": ' * 5000 + "1" + "}" * 5000, "nested deeper than"),
        ('{"totals": {"total": NaN}}', "NaN"),
        ("{not json", "Expecting property name enclosed in double quotes"),
    ],
)
def test_hostile_extracted_data_in_the_admin_is_a_form_error_and_writes_nothing(extracted, message, db) -> None:  # type: ignore[no-untyped-def]
    item = moved("context")
    before = snapshot(item)
    staff = lenient(factories.make_user(is_staff=True, is_superuser=True))
    url = reverse("admin:reviewapp_inboxitem_change", args=[item.pk])
    response = staff.post(url, _change_data(item, extracted_data=extracted))
    assert response.status_code == 200
    html = response.content.decode()
    assert "errornote" in html
    assert message in html
    assert snapshot(item) == before


def test_an_ordinary_extracted_data_edit_in_the_admin_is_saved(db) -> None:  # type: ignore[no-untyped-def]
    item = moved("context")
    staff = lenient(factories.make_user(is_staff=True, is_superuser=True))
    url = reverse("admin:reviewapp_inboxitem_change", args=[item.pk])
    response = staff.post(url, _change_data(item, extracted_data='{"supplier": {"name": "Åhléns"}}'))
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.extracted_data == {"supplier": {"name": "Åhléns"}}
    assert "åhléns" in item.search_text


def test_a_forged_channel_context_field_in_the_admin_is_ignored(db) -> None:  # type: ignore[no-untyped-def]
    item = moved("context")
    staff = lenient(factories.make_user(is_staff=True, is_superuser=True))
    url = reverse("admin:reviewapp_inboxitem_change", args=[item.pk])
    response = staff.post(url, _change_data(item, channel_context='{"user_note": "forged"}'))
    assert response.status_code < 500
    item.refresh_from_db()
    assert "user_note" not in item.channel_context
