"""An event date in the future, or more than a year before the receipt's date, is warned about before saving.

The live preview (``item_answer_preview``, posted as the bookkeeper types)
says so as soon as the date is on screen, whatever else the form still gets
wrong; the JSON API's answer lists it in ``warnings``. It is a warning: the
answer is saved as typed. The factory's receipt is dated 2026-11-20
(``tests.factories.make_item``).
"""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.answers.conftest import HTMX, item_url, moved_item, preview_url, representation_post, stored_context
from tests.html import Page

pytestmark = pytest.mark.django_db

THIRTEEN_MONTHS_BEFORE = "2025-10-20"
NORMAL = "2026-11-19"
TOO_LONG = "x" * 2001


def _future() -> str:
    return (timezone.localdate() + dt.timedelta(days=30)).isoformat()


def _preview_warning(client, item, event_date: str) -> str | None:  # type: ignore[no-untyped-def]
    # A purpose over its limit: the preview cannot be built, the date is still warned about.
    data = representation_post([("Anna Berg", "Volvo")], purpose=TOO_LONG, event_date=event_date)
    page = Page(client.post(preview_url(item), data, **HTMX).content.decode())
    return page.text("event-date-warning") if page.has("event-date-warning") else None


def test_the_live_preview_warns_about_a_future_date_while_another_field_is_still_wrong(bookkeeper_client):
    item = moved_item("representation")
    future = _future()
    warning = _preview_warning(bookkeeper_client, item, future)
    assert warning is not None
    assert f"The event date {future} is in the future" in warning
    # Typed on a phone's number pad, without dashes: the same date.
    assert _preview_warning(bookkeeper_client, item, future.replace("-", "")) is not None
    # Corrected to a normal date: the warning goes.
    assert _preview_warning(bookkeeper_client, item, NORMAL) is None


def test_the_live_preview_warns_about_a_date_thirteen_months_before_the_receipt(bookkeeper_client):
    item = moved_item("representation")
    warning = _preview_warning(bookkeeper_client, item, THIRTEEN_MONTHS_BEFORE)
    assert warning is not None
    assert "more than a year before the receipt's date (2026-11-20)" in warning


def test_a_half_answer_holding_a_future_date_is_warned_about_when_the_page_opens(bookkeeper_client):
    future = _future()
    half = {"participants": [], "purpose": None, "event_date": future, "answered_at": "2026-11-21T10:00:00Z"}
    item = moved_item("representation", representation=half)
    page = Page(bookkeeper_client.get(item_url(item)).content.decode())
    assert f"The event date {future} is in the future" in page.text("event-date-warning")


# --- The JSON API ----------------------------------------------------------------------


def _api(client, item, event_date: str):  # type: ignore[no-untyped-def]
    body = {"question": "representation", "participants": [{"name": "A"}], "purpose": "M", "event_date": event_date}
    url = reverse("api_item_answer", args=[item.pk])
    return client.post(url, json.dumps(body), content_type="application/json")


@pytest.mark.parametrize(
    ("event_date", "expected"),
    [
        (None, "is in the future. It is saved as typed: check it."),
        (THIRTEEN_MONTHS_BEFORE, "more than a year before the receipt's date (2026-11-20)"),
        (NORMAL, None),
    ],
)
def test_the_api_answer_lists_the_date_warning_and_saves_as_typed(bookkeeper_client, event_date, expected):
    item = moved_item("representation")
    date = event_date or _future()
    response = _api(bookkeeper_client, item, date)
    assert response.status_code == 200
    warnings = response.json()["warnings"]
    if expected is None:
        assert warnings == []
    else:
        assert [w["field"] for w in warnings] == ["event_date"]
        assert expected in warnings[0]["message"]
    assert stored_context(item)["representation"]["event_date"] == date
