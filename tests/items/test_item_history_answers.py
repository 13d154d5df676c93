"""The history in the order things happened, each answer saying what was answered (issue 26, support)."""

from __future__ import annotations

from django.urls import reverse

from reviewapp.models import ClarificationEvent
from tests import factories
from tests.html import page_of, texts
from tests.items.bookkeeping import accounted_event, app_event, make_message

ASKED_AT = "2026-08-01T09:00:00Z"


def _events(client, item) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    events = client.get(reverse("api_item", args=[item.pk])).json()["events"]
    return [(e["label"], e["source"]) for e in events]


def test_the_message_that_carried_an_answer_comes_before_the_answer_logged_at_the_same_moment(support_client, company):
    item = factories.make_item(company)
    # Seeded and imported data log the answer at the message's own time.
    accounted_event(item, ClarificationEvent.ANSWERED, "2026-08-02T10:15:00.250Z", question_type="context")
    make_message(item_id=item.pk, when="2026-08-02T10:15:00.250Z", body="Pärmar till kontoret")

    assert _events(support_client, item) == [("Message received", "chat"), ("Question answered", "accounted")]


def test_a_message_stamped_microseconds_after_the_answer_in_the_same_millisecond_still_comes_first(
    support_client, company
):
    item = factories.make_item(company)
    # accounted's log holds whole milliseconds (toISOString); PostgreSQL's now() holds microseconds.
    accounted_event(item, ClarificationEvent.ANSWERED, "2026-08-02T10:15:00.250Z", question_type="context")
    make_message(item_id=item.pk, when="2026-08-02T10:15:00.250731+00:00", body="Pärmar")

    assert _events(support_client, item) == [("Message received", "chat"), ("Question answered", "accounted")]


def test_a_message_a_millisecond_later_stays_after(support_client, company):
    item = factories.make_item(company)
    accounted_event(item, ClarificationEvent.ANSWERED, "2026-08-02T10:15:00.250Z", question_type="context")
    make_message(item_id=item.pk, when="2026-08-02T10:15:00.251Z", body="Tack!")

    assert _events(support_client, item) == [("Question answered", "accounted"), ("Message received", "chat")]


def _answered(item, question: str, after: dict, **payload: object) -> None:  # type: ignore[no-untyped-def]
    app_event(
        item,
        ClarificationEvent.ANSWERED,
        "2026-08-04T07:00:00Z",
        question_type=question,
        payload={"before": {}, "after": after, **payload},
    )


def _answer_line(client, item) -> str:  # type: ignore[no-untyped-def]
    words = page_of(client.get(reverse("item_detail", args=[item.pk]))).words("history")
    return words


def test_an_app_representation_answer_says_who_attended_and_why(support_client, company):
    after = {
        "representation": {
            "participants": [{"name": "Anna Berg", "company": "Kund AB"}, {"name": "Bo Ek", "company": None}],
            "purpose": "Kundmöte om hösten",
            "event_date": None,
            "raw_answer": "x",
            "answered_at": "2026-08-04T07:00:00.000Z",
        }
    }
    item = factories.make_item(company, channel_context=after)
    _answered(item, "representation", after)

    assert (
        "Question answered: Representation (participants and purpose) — Anna Berg (Kund AB), Bo Ek; "
        "purpose: Kundmöte om hösten"
    ) in _answer_line(support_client, item)


def test_an_app_denial_and_a_context_answer_say_what_they_said(support_client, company):
    denial = {"representation": {"participants": [], "purpose": None, "raw_answer": "nej", "denied": True}}
    item = factories.make_item(company, channel_context=denial)
    _answered(item, "representation", denial)
    note = {"user_note": "Pärmar till kontoret", "context_answer": {"raw_answer": "pärmar"}}
    other = factories.make_item(company, channel_context=note)
    _answered(other, "context", note)

    assert "Representation (participants and purpose) — Not representation" in _answer_line(support_client, item)
    assert "What the purchase was for — Pärmar till kontoret" in _answer_line(support_client, other)


def test_an_app_resend_answer_says_how_it_was_settled(support_client, company):
    readable = factories.make_item(company)
    _answered(readable, "resend", {}, resend={"choice": "readable", "new_item_id": None})
    replaced = factories.make_item(company)
    _answered(
        replaced, "resend", {}, resend={"choice": "replaced", "new_item_id": "5f0c2d1e-0000-4000-8000-000000000001"}
    )

    assert "A clearer photo — the photo is readable as it is" in _answer_line(support_client, readable)
    assert "A clearer photo — settled by the newer item 5f0c2d1e" in _answer_line(support_client, replaced)


def test_a_long_answer_is_summarised_in_a_line(support_client, company):
    note = {"user_note": "ord " * 200, "context_answer": {"raw_answer": "x"}}
    item = factories.make_item(company, channel_context=note)
    _answered(item, "context", note)

    html = support_client.get(reverse("item_detail", args=[item.pk])).content.decode()
    (summary,) = texts(html, cls="event-detail")
    assert summary.startswith("ord ord")
    assert summary.endswith("…")
    assert len(summary) <= 160
