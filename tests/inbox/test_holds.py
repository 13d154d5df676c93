"""On hold (issue 38 part 1): a question parked until a date leaves the queue, next and the counts,
comes back in its old place, is released early, and ends when the question stops waiting in the app."""

from __future__ import annotations

import datetime as dt
import threading
import uuid
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import Permission, User
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import roles
from reviewapp.inbox import holds, reservations
from reviewapp.models import Hold, IndexedItem
from reviewapp.readmodel import sync
from reviewapp.web.forms.holds import HoldForm
from tests import factories
from tests.inbox.helpers import indexed, journal_entry, listed, note, pending, raw_update_context

QUEUE = "state=needs_answer&sort=queue"
DAY = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)
STOCKHOLM = ZoneInfo("Europe/Stockholm")


def _bookkeeper(username: str) -> User:
    user = factories.make_user(roles.BOOKKEEPER, username=username)
    user.user_permissions.add(Permission.objects.get(codename="view_all_companies"))
    return user


def _client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def anna(db):  # type: ignore[no-untyped-def]
    return _bookkeeper("anna")


@pytest.fixture
def bea(db):  # type: ignore[no-untyped-def]
    return _bookkeeper("bea")


def _queue_of(company, count: int) -> list[IndexedItem]:  # type: ignore[no-untyped-def]
    """``count`` questions moved to the app a day apart, oldest first."""
    items = [
        factories.make_item(
            company=company,
            channel_context=pending("moved_to_app", asked_at=(DAY + dt.timedelta(days=n)).isoformat()),
            created_at=DAY - dt.timedelta(days=n),
        )
        for n in range(count)
    ]
    return [indexed(item.id) for item in items]


def _tomorrow() -> str:
    return (holds.stockholm_today() + dt.timedelta(days=1)).isoformat()


def _hold(client: Client, item_id: uuid.UUID, **body: str):  # type: ignore[no-untyped-def]
    payload = {"until": _tomorrow(), "reason": "called", "note": "", **body}
    return client.post(reverse("api_item_hold", args=[item_id]), payload, content_type="application/json")


def _queue_ids(client: Client, query: str = "state=needs_answer&sort=queue") -> list[str]:
    return [row["id"] for row in client.get(reverse("api_items") + "?" + query).json()["results"]]


def _run_out(item_id: uuid.UUID) -> None:
    """Time passes: the hold's Stockholm midnight is now behind us."""
    Hold.objects.filter(item_id=item_id).update(until_at=timezone.now() - dt.timedelta(seconds=1))


@pytest.mark.django_db
def test_a_held_question_leaves_the_queue_and_every_next_until_its_date_then_comes_back_in_its_place(
    anna, bea, company
):
    first, second, third = _queue_of(company, 3)
    client = _client(anna)
    response = _hold(client, first.pk, reason="colleague", note="Lisa vet vilka som var med")
    assert response.status_code == 200
    assert response.json()["hold"] == {
        "until": _tomorrow(),
        "until_at": response.json()["hold"]["until_at"],
        "reason": "colleague",
        "note": "Lisa vet vilka som var med",
        "by": "anna",
        "at": response.json()["hold"]["at"],
    }

    # Gone from the queue, listed as on hold, and skipped by n, /next/ and Ctrl+Enter's next-free, for everyone.
    assert _queue_ids(client) == [str(second.pk), str(third.pk)]
    assert _queue_ids(client, "state=on_hold") == [str(first.pk)]
    assert _queue_ids(_client(bea), "state=on_hold&state=needs_answer&sort=queue") == [
        str(first.pk),
        str(second.pk),
        str(third.pk),
    ]
    assert reservations.next_in_queue(None, listed(QUEUE, bea), bea, waiting_only=True) == second
    assert reservations.next_in_queue(None, listed("", bea), bea) != first
    assert _client(anna).get(reverse("next_free"))["Location"].startswith(reverse("item_detail", args=[second.pk]))
    assert reservations.claim_next(None, listed(QUEUE, bea), bea, waiting_only=True) == second
    data = client.get(reverse("api_items") + "?state=needs_answer").json()
    assert (data["count"], data["facets"]["on_hold"], data["facets"]["needs_answer"]) == (2, 1, 2)

    # Anyone who can see it sees who held it, why and until when.
    detail = _client(bea).get(reverse("api_item", args=[first.pk])).json()
    assert (detail["hold"]["by"], detail["hold"]["reason"]) == ("anna", "colleague")
    page = _client(bea).get(reverse("item_detail", args=[first.pk])).content.decode()
    assert f"On hold until {_tomorrow()} by anna: Waiting for a colleague" in page

    # Stockholm midnight passes: first in the queue again, marked as back from hold, with the reason.
    _run_out(first.pk)
    assert _queue_ids(client) == [str(first.pk), str(second.pk), str(third.pk)]
    assert client.get(reverse("api_item", args=[first.pk])).json()["hold"] is None
    body = client.get(reverse("inbox") + "?" + QUEUE).content.decode()
    assert "Back from hold: Waiting for a colleague" in body
    history = client.get(reverse("item_detail", args=[first.pk])).content.decode()
    assert "Back from hold (Waiting for a colleague)" in history


@pytest.mark.django_db
def test_a_hold_runs_out_at_stockholm_midnight_of_its_date(anna, company):
    (item,) = _queue_of(company, 1)
    friday = dt.datetime(2026, 12, 4, 15, 0, tzinfo=STOCKHOLM)
    hold = holds.put_hold(item, anna, until=dt.date(2026, 12, 7), reason="emailed", note="", now=friday)
    # Winter time: midnight in Stockholm is 23:00 UTC the day before.
    assert hold.until_at == dt.datetime(2026, 12, 6, 23, 0, tzinfo=dt.UTC)
    assert holds.active_hold(item, now=hold.until_at - dt.timedelta(seconds=1)) == hold
    assert holds.active_hold(item, now=hold.until_at) is None


def test_the_date_defaults_to_the_next_working_day_and_stays_within_30_days_ahead():
    friday_evening = dt.datetime(2026, 12, 4, 22, 30, tzinfo=STOCKHOLM)
    assert holds.default_until(friday_evening) == dt.date(2026, 12, 7)  # Monday
    assert holds.default_until(dt.datetime(2026, 12, 1, 23, 30, tzinfo=dt.UTC)) == dt.date(2026, 12, 3)
    assert HoldForm().fields["until"].initial == holds.default_until()

    def errors(until: str) -> list[str]:
        form = HoldForm({"until": until, "reason": "called"}, now=friday_evening)
        form.is_valid()
        return form.errors.get("until", [])

    assert errors("2026-12-05") == []
    assert errors("2027-01-03") == []
    assert errors("2027-01-04") == ["Choose a day at most 30 days ahead."]
    assert errors("2026-12-04") == ["Choose a day after today."]


@pytest.mark.django_db
def test_bad_holds_are_refused_field_by_field(anna, company):
    (item,) = _queue_of(company, 1)
    client = _client(anna)
    too_far = (holds.stockholm_today() + dt.timedelta(days=31)).isoformat()
    response = _hold(client, item.pk, until=too_far, reason="bored", note="x" * 2001)
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"until", "reason", "note"}
    response = _hold(client, item.pk, until="2020-01-01", note="ring \u202eigen")
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"until", "note"}
    assert "text direction control" in response.json()["errors"]["note"][0]
    assert not Hold.objects.exists()


@pytest.mark.django_db
def test_only_a_question_waiting_in_the_app_can_be_held_and_only_in_ones_companies(company):
    answered = factories.make_item(company=company, channel_context=note("klart"))
    (waiting,) = _queue_of(company, 1)
    assigned_elsewhere = factories.make_user(roles.BOOKKEEPER, username="cecilia")
    refused = _hold(_client(_bookkeeper("anna")), answered.pk)
    assert refused.status_code == 409
    assert refused.json() == {
        "error": "Only a question waiting for an answer in the app can be put on hold.",
        "code": "not_waiting",
    }
    assert _hold(_client(assigned_elsewhere), waiting.pk).status_code == 404
    assert _client(assigned_elsewhere).delete(reverse("api_item_hold", args=[waiting.pk])).status_code == 404
    support = factories.make_user(roles.SUPPORT, username="sven")
    assert _hold(_client(support), waiting.pk).status_code == 403
    assert not Hold.objects.exists()


@pytest.mark.django_db
def test_anyone_who_sees_it_can_release_a_hold_early(anna, bea, company):
    first, second = _queue_of(company, 2)
    assert _hold(_client(anna), first.pk).status_code == 200
    response = _client(bea).delete(reverse("api_item_hold", args=[first.pk]))
    assert response.status_code == 200
    assert _queue_ids(_client(anna)) == [str(first.pk), str(second.pk)]
    history = _client(anna).get(reverse("item_detail", args=[first.pk])).content.decode()
    assert "Released from hold" in history
    # Each step is a history entry of its own kind (its class, and the API's event_type "Hold-put"/"Hold-released").
    assert '<li class="event event-hold-put">' in history
    assert '<li class="event event-hold-released">' in history
    # And the item page's form, without JavaScript, puts it on hold again.
    response = _client(bea).post(
        reverse("item_hold", args=[first.pk]), {"until": _tomorrow(), "reason": "other", "note": "<b>x</b>"}
    )
    assert response.status_code == 302
    page = _client(anna).get(reverse("item_detail", args=[first.pk])).content.decode()
    assert "&lt;b&gt;x&lt;/b&gt;" in page
    assert "<b>x</b>" not in page
    assert _queue_ids(_client(anna)) == [str(second.pk)]


@pytest.mark.django_db
def test_the_item_page_form_shows_errors_under_its_fields(anna, company):
    (item,) = _queue_of(company, 1)
    response = _client(anna).post(
        reverse("item_hold", args=[item.pk]), {"until": "2020-01-01", "reason": "called"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert 'id="team"' in body
    assert "Choose a day after today." in body
    assert "<html" not in body


@pytest.mark.django_db
def test_a_late_chat_answer_ends_the_hold_and_the_history_says_why(anna, company):
    first, _second = _queue_of(company, 2)
    assert _hold(_client(anna), first.pk).status_code == 200
    raw_update_context(first.pk, note("svar i chatten"))
    sync.poll()
    client = _client(anna)
    assert client.get(reverse("api_item", args=[first.pk])).json()["hold"] is None
    assert _queue_ids(client, "state=on_hold") == []
    history = client.get(reverse("item_detail", args=[first.pk])).content.decode()
    assert "The hold ended: the question was answered." in history


@pytest.mark.django_db
def test_booking_ends_the_hold_and_the_history_says_why(anna, company):
    (item,) = _queue_of(company, 1)
    assert _hold(_client(anna), item.pk).status_code == 200
    InboxItem.objects.filter(pk=item.pk).update(created_journal_entry_id=journal_entry(company))
    sync.index_items([item.pk])
    client = _client(anna)
    assert client.get(reverse("api_item", args=[item.pk])).json()["hold"] is None
    assert "The hold ended: the item was booked." in client.get(reverse("item_detail", args=[item.pk])).content.decode()


@pytest.mark.django_db
def test_held_by_me_lists_only_ones_own_holds(anna, bea, company):
    first, second, _third = _queue_of(company, 3)
    _hold(_client(anna), first.pk)
    _hold(_client(bea), second.pk)
    assert _queue_ids(_client(anna), "held_by_me=on") == [str(first.pk)]
    assert _client(anna).get(reverse("api_items") + "?held_by_me=on").json()["count"] == 1


@pytest.mark.django_db(transaction=True)
def test_two_bookkeepers_holding_at_once_get_exactly_one_hold(anna, bea, company):
    (item,) = _queue_of(company, 1)
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def put(user: User) -> None:
        try:
            start.wait()
            holds.put_hold(item, user, until=holds.default_until(), reason="called", note="")
            outcomes.append("held")
        except holds.HoldRefused as refused:
            outcomes.append(refused.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=put, args=(user,)) for user in (anna, bea)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["already_held", "held"]
    assert Hold.objects.filter(item_id=item.pk).count() == 1
    assert _hold(_client(anna), item.pk).status_code == 409


@pytest.mark.django_db
def test_the_overview_counts_holds_apart_from_the_waiting_queue(anna, company):
    first, _second, _third = _queue_of(company, 3)
    _hold(_client(anna), first.pk)
    data = _client(anna).get(reverse("api_overview")).json()
    assert (data["waiting"], data["on_hold"]) == (2, 1)


@pytest.mark.django_db
def test_the_hold_key_is_in_the_queues_help_and_the_item_page_has_the_form(anna, company):
    (item,) = _queue_of(company, 1)
    client = _client(anna)
    assert "<dt><kbd>h</kbd></dt>" in client.get(reverse("inbox") + "?" + QUEUE).content.decode()
    page = client.get(reverse("item_detail", args=[item.pk])).content.decode()
    assert 'id="hold-form"' in page
    assert f'action="{reverse("item_hold", args=[item.pk])}"' in page


@pytest.mark.django_db
def test_the_answer_page_offers_the_hold_too(anna, company):
    (item,) = _queue_of(company, 1)
    page = _client(anna).get(reverse("item_answer", args=[item.pk])).content.decode()
    assert f'action="{reverse("item_hold", args=[item.pk])}"' in page


@pytest.mark.django_db
def test_a_question_taken_back_by_the_chat_or_an_item_gone_ends_the_hold_with_its_own_reason(anna, company):
    (item,) = _queue_of(company, 1)
    assert _hold(_client(anna), item.pk).status_code == 200
    raw_update_context(item.pk, pending("asked"))
    sync.index_items([item.pk])

    ended = [event.text for event in holds.hold_story(indexed(item.pk), item.pk) if event.kind == "ended"]
    assert ended == ["The hold ended: the question no longer waits for an answer in the app."]
    ended = [event.text for event in holds.hold_story(None, item.pk) if event.kind == "ended"]
    assert ended == ["The hold ended: the item is no longer in the list."]


@pytest.mark.django_db
def test_the_holds_note_stays_in_the_history_after_the_hold_ran_out(anna, company):
    (item,) = _queue_of(company, 1)
    client = _client(anna)
    assert _hold(client, item.pk, reason="colleague", note="Lisa vet vilka som var med").status_code == 200
    _run_out(item.pk)

    # The hold's own status line (which also shows the note) is gone; only the history keeps it.
    page = client.get(reverse("item_detail", args=[item.pk])).content.decode()
    assert 'id="hold-status"' not in page
    assert '<span class="event-detail">Lisa vet vilka som var med</span>' in page


@pytest.mark.django_db
def test_a_hold_lost_to_a_colleague_at_the_same_moment_says_so(anna, bea, company, monkeypatch):
    (item,) = _queue_of(company, 1)
    assert _hold(_client(bea), item.pk).status_code == 200
    # The race, made deterministic: anna's check for an active hold ran just before bea's hold was
    # committed, so the database's one-open-hold constraint is what refuses anna's.
    monkeypatch.setattr(holds, "active_hold", lambda item, now=None: None)

    response = _hold(_client(anna), item.pk)

    assert response.status_code == 409
    assert (response.json()["code"], response.json()["error"]) == (
        "already_held",
        "Someone else put this item on hold just now.",
    )
    assert list(Hold.objects.filter(item_id=item.pk).values_list("by__username", flat=True)) == ["bea"]
