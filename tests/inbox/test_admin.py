"""Django admin: the list's read model under the list's filters and parameters, read-only."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.models import ApiToken, ClarificationEvent
from reviewapp.readmodel import sync
from reviewapp.web.api_auth import create_token
from tests import factories
from tests.inbox.helpers import denial, indexed, journal_entry, note, pending, raw_update_context

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:reviewapp_indexeditem_changelist")


def _listed(response) -> set[str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 200
    return set(re.findall(r"/admin/reviewapp/indexeditem/([0-9a-f-]{36})/change/", response.content.decode()))


def test_the_changelist_filters_by_state_under_the_same_parameter(admin_client):
    moved = factories.make_item(channel_context=pending("moved_to_app"))
    factories.make_item(channel_context=denial())
    response = admin_client.get(CHANGELIST, {"state": "needs_answer"})
    assert _listed(response) == {str(moved.id)}
    assert "Needs answer in app" in response.content.decode()


def test_the_changelist_filters_booked_items(admin_client, company):
    booked = factories.make_item(company=company, created_journal_entry_id=journal_entry(company))
    factories.make_item(company=company)
    response = admin_client.get(CHANGELIST, {"state": "booked"})
    assert _listed(response) == {str(booked.id)}
    assert "Booked" in response.content.decode()


def test_the_changelist_filters_by_company_under_the_same_parameter_archived_ones_too(admin_client):
    archived = factories.make_company(name="Nedlagd AB", archived_at=timezone.now())
    wanted = factories.make_item(company=archived)
    factories.make_item()
    response = admin_client.get(CHANGELIST, {"company": str(archived.id)})
    assert _listed(response) == {str(wanted.id)}
    assert "Nedlagd AB" in response.content.decode()


def test_the_changelist_shows_a_plain_sql_change_once_the_index_has_caught_up(admin_client):
    item = factories.make_item(channel_context=note("x"))
    raw_update_context(item.id, pending("moved_to_app"))
    sync.poll()
    assert _listed(admin_client.get(CHANGELIST, {"state": "needs_answer"})) == {str(item.id)}
    assert _listed(admin_client.get(CHANGELIST, {"state": "answered"})) == set()


def test_the_admin_search_uses_the_lists_search(admin_client):
    wanted = factories.make_item(extracted_data={"supplier": {"name": "Restaurang Prinsen"}})
    other = factories.make_item()
    assert _listed(admin_client.get(CHANGELIST, {"q": "PRINSEN"})) == {str(wanted.id)}
    assert _listed(admin_client.get(CHANGELIST, {"q": str(other.id)[:8]})) == {str(other.id)}


def test_the_change_page_shows_the_summary_and_links_to_the_item_page_read_only(admin_client):
    item = factories.make_item(channel_context=note("kontorsmaterial"))
    url = reverse("admin:reviewapp_indexeditem_change", args=[item.id])
    response = admin_client.get(url)
    assert response.status_code == 200
    body = response.content.decode()
    assert "kontorsmaterial" in body
    assert f'href="{reverse("item_detail", args=[item.id])}"' in body
    assert "<textarea" not in body
    assert 'name="_save"' not in body
    before = indexed(item.id)
    assert admin_client.post(url, {"supplier_name": "Forged", "state_answered": ""}).status_code == 403
    after = indexed(item.id)
    assert (after.supplier_name, after.state_answered) == (before.supplier_name, before.state_answered)
    assert InboxItem.objects.get(pk=item.id).channel_context == note("kontorsmaterial")


def test_read_model_rows_cannot_be_added_or_deleted_in_the_admin(admin_client):
    item = factories.make_item()
    assert admin_client.get(reverse("admin:reviewapp_indexeditem_add")).status_code == 403
    delete = reverse("admin:reviewapp_indexeditem_delete", args=[item.id])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    assert indexed(item.id)


def test_clarification_events_cannot_be_added_changed_or_deleted_in_the_admin(admin_client):
    item = factories.make_item()
    event = ClarificationEvent.objects.create(
        item_id=item.id, event_type=ClarificationEvent.ASKED, channel="whatsapp", occurred_at=dt.datetime.now(dt.UTC)
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
