"""Save and next counts from where the answered item stood; the API's state names the items it replaces."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.urls import reverse

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.readmodel import sync
from tests.answers.conftest import item_url, moved_item

pytestmark = pytest.mark.django_db

QUERY = "type=context&sort=oldest"


def _received(item: InboxItem, when: str) -> InboxItem:
    InboxItem.objects.filter(pk=item.pk).update(created_at=dt.datetime.fromisoformat(when))
    sync.index_items([item.pk])
    item.refresh_from_db()
    return item


def test_save_and_next_goes_on_from_the_middle_of_the_list_not_back_to_its_top(bookkeeper_client):
    _received(moved_item("context"), "2026-11-01T09:00:00+00:00")
    middle = _received(moved_item("context"), "2026-11-02T09:00:00+00:00")
    last = _received(moved_item("context"), "2026-11-03T09:00:00+00:00")
    response = bookkeeper_client.post(
        reverse("item_answer", args=[middle.pk]), {"question": "context", "text": "Taxi", "list_query": QUERY}
    )
    assert response["Location"] == item_url(last, QUERY)


def _api_answer(client, item: InboxItem, body: dict) -> dict:  # type: ignore[no-untyped-def]
    response = client.post(
        reverse("api_item_answer", args=[item.pk]), json.dumps(body), content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return response.json()


def test_answering_the_new_photo_reports_the_item_it_replaces(bookkeeper_client):
    old = moved_item("resend")
    new = moved_item("context", company=old.company)
    # The same receipt again, as accounted read it: a sharply different one would ask for confirmation first.
    InboxItem.objects.filter(pk=new.pk).update(
        created_at=old.created_at + dt.timedelta(minutes=1), extracted_data=old.extracted_data
    )
    assert _api_answer(bookkeeper_client, old, {"question": "resend", "replaced_by": str(new.pk)})[
        "replaced_by_item"
    ] == str(new.pk)
    state = _api_answer(bookkeeper_client, new, {"question": "context", "text": "Taxi till kund"})
    assert state["replaces_items"] == [str(old.pk)]
    assert state["replaced_by_item"] is None
