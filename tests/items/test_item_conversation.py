"""The conversation on the item page: accounted's whatsapp_messages about the item, as each role may see it."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import pytest
from django.db import connections
from django.urls import reverse

from reviewapp.items import transcript
from reviewapp.items.transcript import TRANSCRIPT_LIMIT
from tests import factories
from tests.html import page_of
from tests.items.bookkeeping import DEEP_JSON, make_message, make_phone_link, whatsapp_item

# The page's clock, so whether a body counts as purged does not depend on the day the tests run.
NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
PHONE = "+46 70*** **12"
PHONE_HASH = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"


@pytest.fixture(autouse=True)
def _clock(monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(transcript, "timezone", SimpleNamespace(now=lambda: NOW))


def url(item) -> str:  # type: ignore[no-untyped-def]
    return reverse("item_detail", args=[item.pk])


def words(text: str) -> str:
    return " ".join(text.split())


def conversation(item, *, phone_link_id=None):  # type: ignore[no-untyped-def]
    """A receipt photo, the question sent about it and the customer's reply."""
    make_message(
        item_id=item.pk,
        when="2026-11-02T09:00:00Z",
        direction="outbound",
        message_type="template",
        raw_payload={"template": "representation_question"},
        body="Vilka var med, och varför?",
    )
    make_message(
        item_id=item.pk,
        when="2026-11-02T09:05:00Z",
        body="Nej, det var inte representation",
        phone_link_id=phone_link_id,
        wamid="wamid.REPLY1",
    )


def test_support_sees_the_whole_conversation_in_time_order(support_client, company):
    phone = make_phone_link(company, masked=PHONE, phone_hash=PHONE_HASH)
    item = whatsapp_item(company, when="2026-11-02T08:59:00Z", wamid="wamid.PHOTO1", phone_link_id=phone)
    conversation(item, phone_link_id=phone)

    page = page_of(support_client.get(url(item)))

    assert words(page.text("conversation-title")) == "Conversation"
    # Shown in Stockholm time (CET in November), oldest first.
    assert [words(page.text(f"message-{message_id}")) for message_id in _message_ids(support_client, item)] == [
        "2026-11-02 09:59 Message received +46 70*** **12 image: kvitto.jpg "
        "Media (not shown here): image/jpeg kvitto.jpg wamid wamid.PHOTO1",
        "2026-11-02 10:00 Question sent template representation_question Vilka var med, och varför?",
        "2026-11-02 10:05 Message received +46 70*** **12 text Nej, det var inte representation wamid wamid.REPLY1",
    ]


def test_the_phone_is_shown_masked_and_never_by_its_hash(support_client, company):
    phone = make_phone_link(company, masked=PHONE, phone_hash=PHONE_HASH)
    item = whatsapp_item(company, when="2026-11-02T08:59:00Z", wamid="wamid.PHOTO2", phone_link_id=phone)
    conversation(item, phone_link_id=phone)

    html = support_client.get(url(item)).content.decode()
    api = support_client.get(reverse("api_item", args=[item.pk])).content.decode()

    assert PHONE in html
    for body in (html, api):
        assert PHONE_HASH not in body
        assert "secret-phone-hash" not in body  # the message's own sender_phone_hash


def test_a_body_older_than_90_days_shows_as_purged(support_client, company):
    item = factories.make_item(company)
    make_message(item_id=item.pk, when=NOW - dt.timedelta(days=91), body=None)
    make_message(item_id=item.pk, when=NOW - dt.timedelta(days=91), message_type="image", media_mime="image/png")
    make_message(item_id=item.pk, when=NOW - dt.timedelta(days=89), body="Kaffe")

    page = page_of(support_client.get(url(item)))

    purged = [words(page.text(f"message-{message_id}")) for message_id in _message_ids(support_client, item)]
    assert ["Text purged after 90 days (accounted's retention)." in text for text in purged] == [True, True, False]
    assert purged[2].endswith("Kaffe")


def test_a_recent_text_message_without_a_body_says_it_has_no_text(support_client, company):
    item = factories.make_item(company)
    make_message(item_id=item.pk, when=NOW - dt.timedelta(days=2), body=None)
    make_message(item_id=item.pk, when=NOW - dt.timedelta(days=1), message_type="image", media_mime="image/png")

    text = words(page_of(support_client.get(url(item))).text("conversation"))

    assert text.count("No text.") == 1  # the photo without a caption is not "no text"
    assert "purged" not in text


def test_messages_about_another_item_do_not_appear(support_client, company):
    phone = make_phone_link(company)
    item = factories.make_item(company)
    other = factories.make_item(company)
    make_message(item_id=item.pk, when="2026-11-02T09:05:00Z", body="Kaffe med Anna", phone_link_id=phone)
    # The same phone, the same hour: about another receipt, and about none.
    make_message(item_id=other.pk, when="2026-11-02T09:06:00Z", body="Lunch med Bo", phone_link_id=phone)
    make_message(item_id=None, when="2026-11-02T09:07:00Z", body="Hej!", phone_link_id=phone)

    text = words(page_of(support_client.get(url(item))).text("conversation"))
    api = support_client.get(reverse("api_item", args=[item.pk])).json()

    assert "Kaffe med Anna" in text
    assert "Lunch med Bo" not in text
    assert "Hej!" not in text
    assert [m["body"] for m in api["conversation"]["messages"]] == ["Kaffe med Anna"]


def test_a_bookkeeper_sees_only_the_customers_replies(bookkeeper_client, company):
    phone = make_phone_link(company, masked=PHONE)
    item = whatsapp_item(company, when="2026-11-02T08:59:00Z", wamid="wamid.PHOTO3", phone_link_id=phone)
    conversation(item, phone_link_id=phone)

    page = page_of(bookkeeper_client.get(url(item)))
    text = words(page.text("conversation"))
    api = bookkeeper_client.get(reverse("api_item", args=[item.pk])).json()

    assert text.startswith("The customer's replies")
    assert "Nej, det var inte representation" in text
    assert "kvitto.jpg" not in text
    assert "Vilka var med" not in text
    assert "wamid.REPLY1" not in text
    assert api["conversation"]["scope"] == "replies"
    assert [(m["direction"], m["message_type"]) for m in api["conversation"]["messages"]] == [("inbound", "text")]
    # The history follows the same rule: the reply, not the photo or the question sent.
    history = words(page.text("history"))
    assert "Message received: text" in history
    assert "Question sent" not in history
    assert "image" not in history


def test_the_api_gives_support_the_whole_conversation(support_client, company):
    phone = make_phone_link(company, masked=PHONE)
    item = whatsapp_item(company, when="2026-11-02T08:59:00Z", wamid="wamid.PHOTO4", phone_link_id=phone)
    conversation(item, phone_link_id=phone)

    data = support_client.get(reverse("api_item", args=[item.pk])).json()["conversation"]

    assert data["scope"] == "all"
    assert [(m["direction"], m["message_type"], m["template"]) for m in data["messages"]] == [
        ("inbound", "image", None),
        ("outbound", "template", "representation_question"),
        ("inbound", "text", None),
    ]
    assert data["messages"][0]["media"] == {"mime": "image/jpeg", "filename": "kvitto.jpg"}
    assert data["messages"][0]["phone_masked"] == PHONE
    assert data["messages"][2]["created_at"] == "2026-11-02T09:05:00Z"


def test_message_text_is_escaped(support_client, company):
    item = factories.make_item(company)
    make_message(item_id=item.pk, when="2026-11-02T09:05:00Z", body="<script>alert(1)</script>")

    html = support_client.get(url(item)).content.decode()

    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_payload_python_cannot_decode_does_not_break_the_conversation(support_client, company):
    item = factories.make_item(company)
    make_message(item_id=item.pk, when="2026-11-02T09:00:00Z", direction="outbound", body="Fråga", raw_payload=None)
    with connections["bookkeeping"].cursor() as cursor:
        cursor.execute(
            "UPDATE public.whatsapp_messages SET raw_payload = %s::jsonb WHERE inbox_item_id = %s", [DEEP_JSON, item.pk]
        )

    response = support_client.get(url(item))

    assert response.status_code == 200
    assert "2026-11-02 10:00 Message sent" in words(page_of(response).text("conversation"))


def test_only_the_most_recent_messages_are_shown(support_client, company):
    item = factories.make_item(company)
    start = dt.datetime(2026, 11, 1, 8, 0, tzinfo=dt.UTC)
    for n in range(TRANSCRIPT_LIMIT + 5):
        make_message(item_id=item.pk, when=start + dt.timedelta(minutes=n), body=f"meddelande {n:03d}")

    page = page_of(support_client.get(url(item)))
    data = support_client.get(reverse("api_item", args=[item.pk])).json()["conversation"]["messages"]

    assert len(data) == TRANSCRIPT_LIMIT
    assert data[0]["body"] == "meddelande 005"
    assert data[-1]["body"] == f"meddelande {TRANSCRIPT_LIMIT + 4:03d}"
    assert "Only the most recent 200 messages are shown." in page.text("conversation")


def test_no_messages_says_so(support_client, bookkeeper_client, company):
    item = factories.make_item(company)

    assert "No WhatsApp messages are recorded about this item." in page_of(support_client.get(url(item))).text(
        "conversation"
    )
    assert "No replies from the customer are recorded about this item." in page_of(
        bookkeeper_client.get(url(item))
    ).text("conversation")


def _message_ids(client, item) -> list[str]:  # type: ignore[no-untyped-def]
    return [m["id"] for m in client.get(reverse("api_item", args=[item.pk])).json()["conversation"]["messages"]]
