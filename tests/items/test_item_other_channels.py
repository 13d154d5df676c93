"""Items the mail hunt and Peppol brought in: no questions, never malformed, on the list and the item page.

accounted (``erp-mafia/accounted`` ``types/index.ts``, ``InboxChannelContext``):
``channel`` is ``'whatsapp' | 'mail_hunt' | 'peppol'``; 'mail_hunt' rows carry
``mail_*`` keys (``lib/receipt-hunt/ingest.ts``), 'peppol' rows ``peppol_*``
keys (``lib/invoices/peppol-inbox-delivery.ts``), and only WhatsApp asks questions.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from reviewapp.core import states
from reviewapp.models import IndexedItem
from tests import factories
from tests.html import page_of

pytestmark = pytest.mark.django_db

MAIL_HUNT: dict[str, Any] = {
    "channel": "mail_hunt",
    "mail_message_id": "<0f3a9c@mail.example.se>",
    "mail_mailbox": "ekonomi@kund.se",
    "mail_provider": "gmail",
    "mail_subject": "Kvitto från Taxi Stockholm",
    "mail_from": "kvitto@taxistockholm.se",
    "mail_received_at": "2026-11-02T10:00:00.000Z",
    "caption": None,
}
PEPPOL: dict[str, Any] = {
    "channel": "peppol",
    "peppol_provider": "qvalia",
    "peppol_document_id": "b3c1f0e2-0d7c-4f3e-9d51-0a5b7c1e2f44",
    "peppol_document_type": "Invoice",
    "peppol_sender_endpoint": "0007:5567321707",
    "peppol_xml_document_id": None,
}
CASES = [("mail_hunt", MAIL_HUNT), ("peppol", PEPPOL)]


@pytest.mark.parametrize(("source", "context"), CASES)
def test_the_list_has_it_under_no_answers_and_not_malformed(support_client, source, context):
    item = factories.make_item(source=source, channel_context=context)
    row = IndexedItem.objects.get(pk=item.pk)
    assert row.state_no_answers
    assert not row.state_malformed
    assert row.malformed_reason == ""
    listed = support_client.get("/api/items", {"state": states.MALFORMED}).json()["results"]
    assert str(item.pk) not in [entry["id"] for entry in listed]
    listed = support_client.get("/api/items", {"state": states.NO_ANSWERS}).json()["results"]
    assert str(item.pk) in [entry["id"] for entry in listed]


@pytest.mark.parametrize(("source", "context"), CASES)
def test_the_item_page_shows_no_question_and_no_problem(support_client, source, context):
    item = factories.make_item(source=source, channel_context=context)
    response = support_client.get(reverse("item_detail", args=[item.pk]))
    assert response.status_code == 200
    page = page_of(response)
    assert not page.has("problems")
    assert not page.has("unreadable")
    assert "No open question." in page.text("open-question")
    print(page.words("main") if page.has("main") else "")
