"""GET /api/overview: per Stockholm day, the queue now, scoped like every other path.

The expected numbers are counted by hand from the rows each test writes.
"""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from reviewapp.core import roles
from reviewapp.models import CompanyAssignment
from reviewapp.readmodel import sync
from tests import factories
from tests.overview.conftest import APP, CHAT, CRON, app_answer, day_iso, history, item, stockholm_midnight, waiting

pytestmark = pytest.mark.django_db

DENIED_CONTEXT = {
    "channel": "whatsapp",
    "representation": {
        "participants": [],
        "purpose": None,
        "event_date": None,
        "raw_answer": "Nej",
        "answered_at": "2026-11-30T08:00:00.000Z",
        "denied": True,
    },
    "pending_question": {"type": "representation", "asked_at": "2026-11-28T08:00:00.000Z", "status": "answered"},
}


@pytest.fixture
def world(db):  # type: ignore[no-untyped-def]
    ours, theirs = factories.make_company(), factories.make_company()
    a1, a2, a3 = item(ours), item(ours, channel_context=DENIED_CONTEXT), item(ours)
    b1 = item(theirs)
    bea = factories.make_user(roles.BOOKKEEPER, username="bea", first_name="Bea", last_name="Berg")
    CompanyAssignment.objects.create(user=bea, company_id=ours.pk)
    carl = factories.make_user(roles.BOOKKEEPER, username="carl")
    CompanyAssignment.objects.create(user=carl, company_id=ours.pk)
    today, yesterday = stockholm_midnight(0), stockholm_midnight(1)

    # accounted's history: the sweep's moves, the chat's answers, and the app's own events (not the chat's).
    history(a1, "ChannelQuestionExpired", today + dt.timedelta(minutes=1), actor=CRON, question="context")
    # 23:59 in Stockholm is still yesterday there (22:59 UTC).
    history(a2, "ChannelQuestionExpired", today - dt.timedelta(minutes=1), actor=CRON, question="representation")
    history(
        a1, "ChannelQuestionAnswered", stockholm_midnight(2) + dt.timedelta(hours=10), actor=CHAT, question="context"
    )
    history(a2, "ChannelQuestionAnswered", yesterday + dt.timedelta(hours=9), actor=CHAT, question="representation")
    history(a3, "ChannelQuestionAnswered", today + dt.timedelta(minutes=5), actor=APP, question="representation")
    linked = {"type": "user", "id": str(uuid.uuid4())}
    history(a3, "ChannelQuestionAnswered", today + dt.timedelta(minutes=6), actor=linked, question="context")
    history(a1, "ChannelQuestionExpired", stockholm_midnight(10), actor=CRON, question="context")
    history(b1, "ChannelQuestionExpired", today + dt.timedelta(minutes=2), actor=CRON, question="context")
    history(b1, "ChannelQuestionAnswered", today + dt.timedelta(minutes=3), actor=CHAT, question="context")

    # The app's log: answers, one denial, one correction (not counted again), another company's answer.
    app_answer(a3, bea, today + dt.timedelta(minutes=5))
    app_answer(a1, bea, yesterday + dt.timedelta(minutes=1), question="representation", denied=True)
    app_answer(a1, carl, today + dt.timedelta(minutes=7))
    app_answer(a3, bea, today + dt.timedelta(minutes=8), amended=True)
    app_answer(b1, carl, today + dt.timedelta(minutes=9))
    sync.poll()  # as sync_index --follow would a moment later: it copies the question events
    return {"ours": ours, "theirs": theirs, "bea": bea, "carl": carl}


def _client(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def _by_date(body: dict) -> dict[str, dict]:  # type: ignore[type-arg]
    return {day["date"]: day for day in body["days"]}


def _day(moved: int = 0, app: int = 0, chat: int = 0, denied: int = 0) -> dict[str, int]:
    return {"moved_to_app": moved, "answered_in_app": app, "answered_in_chat": chat, "denied": denied}


def test_it_counts_each_stockholm_day_of_the_bookkeepers_own_companies(world) -> None:  # type: ignore[no-untyped-def]
    response = _client(world["bea"]).get(reverse("api_overview"), {"days": 7})

    assert response.status_code == 200
    body = response.json()
    assert [day["date"] for day in body["days"]] == [day_iso(n) for n in range(6, -1, -1)]
    days = {date: {k: v for k, v in day.items() if k != "date"} for date, day in _by_date(body).items()}
    assert days[day_iso(0)] == _day(moved=1, app=2)
    assert days[day_iso(1)] == _day(moved=1, app=1, chat=1, denied=2)
    assert days[day_iso(2)] == _day(chat=1)
    assert all(days[day_iso(n)] == _day() for n in range(3, 7))


def test_it_counts_every_company_for_support(world, support) -> None:  # type: ignore[no-untyped-def]
    body = _client(support).get(reverse("api_overview"), {"days": 7}).json()

    days = _by_date(body)
    assert {k: v for k, v in days[day_iso(0)].items() if k != "date"} == _day(moved=2, app=3, chat=1)
    assert {k: v for k, v in days[day_iso(1)].items() if k != "date"} == _day(moved=1, app=1, chat=1, denied=2)


def test_thirty_days_reach_the_move_ten_days_ago(world) -> None:  # type: ignore[no-untyped-def]
    body = _client(world["bea"]).get(reverse("api_overview"), {"days": 30}).json()

    assert len(body["days"]) == 30
    assert _by_date(body)[day_iso(10)]["moved_to_app"] == 1
    assert len(_client(world["bea"]).get(reverse("api_overview"), {"days": 90}).json()["days"]) == 90


def test_it_measures_the_queue_of_the_users_companies(world, support) -> None:  # type: ignore[no-untyped-def]
    now = dt.datetime.now(dt.UTC)
    for hours in (2, 30, 240):
        waiting(world["ours"], now - dt.timedelta(hours=hours))
    waiting(world["theirs"], now - dt.timedelta(hours=1))

    own = _client(world["bea"]).get(reverse("api_overview")).json()
    everyone = _client(support).get(reverse("api_overview")).json()

    assert (own["waiting"], own["oldest_waiting_hours"], own["median_wait_hours"]) == (3, 240.0, 30.0)
    # Waits of 1, 2, 30 and 240 hours: the median is halfway between 2 and 30.
    assert (everyone["waiting"], everyone["oldest_waiting_hours"], everyone["median_wait_hours"]) == (4, 240.0, 16.0)
    assert len(own["days"]) == 30  # the default period


def test_an_empty_queue_has_no_oldest_or_median(world) -> None:  # type: ignore[no-untyped-def]
    body = _client(world["bea"]).get(reverse("api_overview"), {"days": 7}).json()

    assert (body["waiting"], body["oldest_waiting_hours"], body["median_wait_hours"]) == (0, None, None)


@pytest.mark.parametrize("days", ["8", "abc", "-7", "0", "7.0", "1e9"])
def test_it_refuses_a_period_it_does_not_offer_with_400(world, days: str) -> None:  # type: ignore[no-untyped-def]
    response = _client(world["bea"]).get(reverse("api_overview"), {"days": days})

    assert response.status_code == 400
    assert response.json()["error"] == "days must be one of 7, 30 or 90"
    assert "days" in response.json()["fields"]


def test_it_asks_a_stranger_to_log_in(db) -> None:  # type: ignore[no-untyped-def]
    response = Client().get(reverse("api_overview"))

    assert response.status_code == 401


def test_it_takes_a_personal_token(world) -> None:  # type: ignore[no-untyped-def]
    from reviewapp.web.api_auth import create_token

    token = create_token(world["bea"])
    response = Client().get(reverse("api_overview"), {"days": 7}, HTTP_AUTHORIZATION=f"Bearer {token}")

    assert response.status_code == 200
    assert _by_date(response.json())[day_iso(1)]["denied"] == 2


def test_it_refuses_post_with_405(world) -> None:  # type: ignore[no-untyped-def]
    assert _client(world["bea"]).post(reverse("api_overview")).status_code == 405


def test_a_poll_counts_what_was_appended_since_and_a_second_poll_counts_nothing_twice(world) -> None:  # type: ignore[no-untyped-def]
    client = _client(world["bea"])
    a_item = item(world["ours"])
    history(a_item, "ChannelQuestionExpired", stockholm_midnight(0) + dt.timedelta(hours=1), actor=CRON, question="x")

    before = _by_date(client.get(reverse("api_overview"), {"days": 7}).json())[day_iso(0)]["moved_to_app"]
    sync.poll()
    after = _by_date(client.get(reverse("api_overview"), {"days": 7}).json())[day_iso(0)]["moved_to_app"]
    sync.poll()
    again = _by_date(client.get(reverse("api_overview"), {"days": 7}).json())[day_iso(0)]["moved_to_app"]

    assert (before, after, again) == (1, 2, 2)


def test_an_event_that_commits_after_a_later_one_is_still_counted(world) -> None:  # type: ignore[no-untyped-def]
    from django.db import connections

    from reviewapp.bookkeeping.models import ProcessingHistory
    from reviewapp.models import SyncState

    late = item(world["ours"])
    history(late, "ChannelQuestionExpired", stockholm_midnight(0) + dt.timedelta(hours=2), actor=CRON, question="x")
    newest = ProcessingHistory.objects.order_by("-seq").values_list("seq", flat=True).first()
    # As if the poll had read past it before its transaction committed: its seq lies behind the mark.
    with connections["default"].cursor() as cursor:
        cursor.execute("UPDATE reviewapp_syncstate SET history_seq = %s WHERE id = 1", [newest + 5])
    sync.poll()

    body = _client(world["bea"]).get(reverse("api_overview"), {"days": 7}).json()
    assert _by_date(body)[day_iso(0)]["moved_to_app"] == 2
    assert SyncState.objects.get(pk=1).history_seq >= newest
