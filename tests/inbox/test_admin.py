"""Django admin: the same state filter under the same parameter, read-only where it must be."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import reverse

from reviewapp.api_auth import create_token
from reviewapp.models import ApiToken, ClarificationEvent
from tests import factories
from tests.inbox.helpers import denial, note, pending
from tests.inbox.test_states_in_db import raw_update_context

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:reviewapp_inboxitem_changelist")


def _listed(response) -> set[str]:  # type: ignore[no-untyped-def]
    return set(re.findall(r"/admin/reviewapp/inboxitem/([0-9a-f-]{36})/change/", response.content.decode()))


def test_the_changelist_filters_by_state_under_the_same_parameter(admin_client):
    moved = factories.make_item(channel_context=pending("moved_to_app"))
    factories.make_item(channel_context=denial())
    response = admin_client.get(CHANGELIST, {"state": "needs_answer"})
    assert response.status_code == 200
    assert _listed(response) == {str(moved.id)}
    assert "Needs answer in app" in response.content.decode()


def test_the_changelist_sees_a_plain_sql_change_at_once(admin_client):
    item = factories.make_item(channel_context=note("x"))
    raw_update_context(str(item.id), pending("moved_to_app"))
    assert _listed(admin_client.get(CHANGELIST, {"state": "needs_answer"})) == {str(item.id)}
    assert _listed(admin_client.get(CHANGELIST, {"state": "answered"})) == set()


def test_the_admin_search_uses_the_lists_search(admin_client):
    wanted = factories.make_item(extracted_data={"supplier": {"name": "Restaurang Prinsen"}})
    factories.make_item()
    assert _listed(admin_client.get(CHANGELIST, {"q": "PRINSEN"})) == {str(wanted.id)}


def test_channel_context_is_read_only_on_the_change_page(admin_client):
    item = factories.make_item(channel_context=note("kontorsmaterial"))
    url = reverse("admin:reviewapp_inboxitem_change", args=[item.id])
    body = admin_client.get(url).content.decode()
    assert "kontorsmaterial" in body
    assert 'name="channel_context"' not in body
    admin_client.post(
        url,
        {
            "company": str(item.company_id),
            "status": "pending",
            "source": "whatsapp",
            "extracted_data": "null",
            "channel_context": '{"user_note": "changed"}',
        },
    )
    item.refresh_from_db()
    assert item.channel_context == note("kontorsmaterial")


def test_clarification_events_cannot_be_added_changed_or_deleted_in_the_admin(admin_client):
    item = factories.make_item()
    event = ClarificationEvent.objects.create(
        item=item, event_type=ClarificationEvent.ASKED, channel="whatsapp", occurred_at=dt.datetime.now(dt.UTC)
    )
    assert admin_client.get(reverse("admin:reviewapp_clarificationevent_add")).status_code == 403
    change = reverse("admin:reviewapp_clarificationevent_change", args=[event.pk])
    assert admin_client.get(change).status_code == 200
    assert admin_client.post(change, {"event_type": "forged"}).status_code == 403
    assert admin_client.post(reverse("admin:reviewapp_clarificationevent_delete", args=[event.pk])).status_code == 403
    assert ClarificationEvent.objects.get(pk=event.pk).event_type == ClarificationEvent.ASKED


def test_api_tokens_are_shown_by_prefix_never_by_hash(admin_client, qa):
    raw = create_token(qa)
    token = ApiToken.objects.get()
    body = admin_client.get(reverse("admin:reviewapp_apitoken_changelist")).content.decode()
    body += admin_client.get(reverse("admin:reviewapp_apitoken_change", args=[token.pk])).content.decode()
    assert token.prefix in body
    assert token.key_hash not in body
    assert raw not in body


def test_the_admin_is_closed_to_non_staff_users(bookkeeper_client):
    response = bookkeeper_client.get(CHANGELIST)
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]
