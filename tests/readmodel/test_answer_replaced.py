"""``answer_replaced``: an app answer another program overwrote is a state the list filters on."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.urls import reverse

from devtools import intake_simulator as intake
from reviewapp.models import IndexedItem
from reviewapp.readmodel import sync
from tests import factories

ASKED = dt.datetime(2026, 11, 20, 9, 0, tzinfo=dt.UTC)


@pytest.fixture
def answered_in_app(bookkeeper_client: Client):  # type: ignore[no-untyped-def]
    item = factories.make_item()
    intake.ask(item.pk, "context", now=ASKED)
    intake.expire(item.pk, now=ASKED + dt.timedelta(hours=48))
    response = bookkeeper_client.post(reverse("item_answer", args=[item.pk]), {"question": "context", "text": "Taxi"})
    assert response.status_code in (200, 302)
    return item


def test_an_answer_that_still_stands_is_not_replaced(answered_in_app) -> None:  # type: ignore[no-untyped-def]
    row = IndexedItem.objects.get(pk=answered_in_app.pk)

    assert row.state_answered
    assert not row.state_answer_replaced


def test_an_answer_the_intake_overwrote_is_listed_as_replaced(answered_in_app, support_client: Client) -> None:  # type: ignore[no-untyped-def]
    # The intake's own write (read-modify-write, no lock) replaces the note.
    intake.write_key(answered_in_app.pk, "user_note", "nej, lunch")
    sync.index_items([answered_in_app.pk])

    assert IndexedItem.objects.get(pk=answered_in_app.pk).state_answer_replaced
    listed = support_client.get("/api/items", {"state": "answer_replaced"}).json()["results"]
    assert [row["id"] for row in listed] == [str(answered_in_app.pk)]


def test_an_item_the_app_never_answered_is_never_replaced(db) -> None:  # type: ignore[no-untyped-def]
    item = factories.make_item(channel_context={"channel": "whatsapp", "user_note": "lunch"})

    assert not IndexedItem.objects.get(pk=item.pk).state_answer_replaced
