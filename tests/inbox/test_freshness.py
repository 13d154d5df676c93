"""The list says how fresh it is: the read model is as old as the last poll."""

from __future__ import annotations

import datetime as dt
import re
import socket
from zoneinfo import ZoneInfo

import pytest
from django.db import connections
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.formats import date_format

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from reviewapp.models import SyncState
from reviewapp.readmodel import sync
from tests import factories
from tests.inbox.helpers import pending

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
    sync.poll()
    body = bookkeeper_client.get(URL).content.decode()
    assert re.search(r"Updated [0-4] s ago", body)


def test_up_to_a_minute_old_the_page_counts_seconds_without_a_warning(bookkeeper_client):
    _polled(dt.timedelta(seconds=59))
    body = bookkeeper_client.get(URL).content.decode()
    assert "Updated 59 s ago" in body
    assert "may be out of date" not in body


def _banner(body: str) -> str:
    found = re.search(r'<div class="callout warn stale-banner index-freshness" role="alert">(.*?)</div>', body, re.S)
    assert found, "no stale banner on the page"
    return re.sub(r"[ \t\n]+", " ", found.group(1)).strip()  # not str.split(): it splits at no-break spaces


def test_a_sync_that_stopped_is_a_banner_saying_since_when_the_data_is_stale(bookkeeper_client, settings):
    settings.TIME_ZONE = "Europe/Stockholm"
    at = _polled(dt.timedelta(minutes=10, seconds=5))
    banner = _banner(bookkeeper_client.get(URL).content.decode())
    local = timezone.localtime(at, ZoneInfo("Europe/Stockholm"))
    stamp = local.isoformat(timespec="microseconds") if local.microsecond else local.isoformat()
    with translation.override("en"):
        when = date_format(local, "DATETIME_FORMAT")  # "Dec. 1, 2026, 3:58 p.m."
    assert f'Data as of <time datetime="{stamp}">{when}</time>' in banner
    assert "The list has not been updated for 10\xa0minutes" in banner
    assert "<code>python manage.py sync_index --follow</code>" in banner


def test_sync_stale_after_sets_when_the_banner_appears(bookkeeper_client, settings):
    settings.SYNC_STALE_AFTER = 15 * 60
    _polled(dt.timedelta(minutes=10))
    body = bookkeeper_client.get(URL).content.decode()
    assert "stale-banner" not in body
    assert "Updated 10\xa0minutes ago" in body
    settings.SYNC_STALE_AFTER = 5 * 60
    assert "Data as of" in _banner(bookkeeper_client.get(URL).content.decode())


def test_the_banner_is_swedish_by_default(bookkeeper_client, settings):
    settings.LANGUAGE_CODE = "sv"
    _polled(dt.timedelta(minutes=10))
    banner = _banner(bookkeeper_client.get(URL, headers={"Accept-Language": "sv"}).content.decode())
    assert "Uppgifterna är från <time" in banner
    assert "Listan har inte uppdaterats på 10\xa0minuter" in banner


@pytest.mark.django_db(transaction=True)
def test_with_accounteds_database_unreachable_the_list_shows_its_rows_under_the_banner(bookkeeper, monkeypatch):
    item = factories.make_item(channel_context=pending("moved_to_app"))  # on the bookkeeper's queue
    _polled(dt.timedelta(minutes=3))
    connection = connections[BOOKKEEPING_DB]
    connection.close()
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setitem(connection.settings_dict, "HOST", "127.0.0.1")
    monkeypatch.setitem(connection.settings_dict, "PORT", str(port))
    try:
        client = Client()
        client.force_login(bookkeeper)
        response = client.get(URL)
        assert response.status_code == 200
        body = response.content.decode()
        assert "The list has not been updated for 3\xa0minutes" in _banner(body)
        assert f"/items/{item.id}/" in body
    finally:
        monkeypatch.undo()
        connection.close()


def test_the_api_returns_when_the_index_was_last_updated(qa_client):
    at = _polled(dt.timedelta(seconds=3))
    data = qa_client.get(API).json()
    assert dt.datetime.fromisoformat(data["indexed_at"]) == at


def test_htmx_swaps_refresh_the_freshness_line_too(bookkeeper_client):
    _polled(dt.timedelta(seconds=7))
    body = bookkeeper_client.get(URL, headers={"HX-Request": "true"}).content.decode()
    assert body.lstrip().startswith('<div id="inbox-results"')
    assert "Updated 7 s ago" in body
