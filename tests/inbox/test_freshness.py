"""The list says how fresh it is: the read model is as old as the last poll."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from reviewapp import index
from reviewapp.models import SyncState
from tests import factories

pytestmark = pytest.mark.django_db

URL = reverse("inbox")
API = reverse("api_items")


def _polled(ago: dt.timedelta) -> dt.datetime:
    at = timezone.now() - ago
    SyncState.objects.update_or_create(pk=1, defaults={"last_poll_at": at})
    return at


def test_before_the_first_sync_the_page_says_the_index_is_not_built_and_how_to_build_it(bookkeeper_client):
    factories.make_item()  # indexed by itself, as after an answer, but no sync has run
    body = bookkeeper_client.get(URL).content.decode()
    assert "The list's index has not been built yet, so items may be missing." in body
    assert "<code>python manage.py sync_index</code>" in body
    assert "Updated" not in body


def test_before_the_first_sync_the_api_has_no_indexed_at(qa_client):
    assert qa_client.get(API).json()["indexed_at"] is None


def test_after_a_poll_the_page_says_how_many_seconds_ago_it_was_updated(bookkeeper_client):
    at = _polled(dt.timedelta(seconds=3, milliseconds=200))
    body = bookkeeper_client.get(URL).content.decode()
    assert "Updated 3 s ago" in body
    [stamp] = re.findall(r'<time datetime="([^"]+)">\s*Updated', body)
    assert dt.datetime.fromisoformat(stamp) == at
    assert "has not been built" not in body
    assert "may be out of date" not in body


def test_a_real_poll_makes_the_page_fresh(bookkeeper_client):
    factories.make_item()
    index.poll()
    body = bookkeeper_client.get(URL).content.decode()
    assert re.search(r"Updated [0-4] s ago", body)


def test_up_to_a_minute_old_the_page_counts_seconds_without_a_warning(bookkeeper_client):
    _polled(dt.timedelta(seconds=59))
    body = bookkeeper_client.get(URL).content.decode()
    assert "Updated 59 s ago" in body
    assert "may be out of date" not in body


def test_a_sync_that_stopped_is_a_warning_naming_the_command(bookkeeper_client):
    _polled(dt.timedelta(minutes=10, seconds=5))
    body = bookkeeper_client.get(URL).content.decode()
    assert "The list may be out of date: it was last updated 10\xa0minutes ago." in body
    assert "<code>python manage.py sync_index --follow</code>" in body


def test_the_api_returns_when_the_index_was_last_updated(qa_client):
    at = _polled(dt.timedelta(seconds=3))
    data = qa_client.get(API).json()
    assert dt.datetime.fromisoformat(data["indexed_at"]) == at


def test_htmx_swaps_refresh_the_freshness_line_too(bookkeeper_client):
    _polled(dt.timedelta(seconds=7))
    body = bookkeeper_client.get(URL, headers={"HX-Request": "true"}).content.decode()
    assert body.lstrip().startswith('<div id="inbox-results"')
    assert "Updated 7 s ago" in body
