"""The app's answers in the overview: copied by the sync poll, once, to their company and Stockholm day.

Answers are written through the answer API (the app's own write) or as the
app logs them (``conftest.app_answer``); every expected number is counted by
hand from those rows.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.urls import reverse

from reviewapp.bookkeeping.models import Company
from reviewapp.core import roles
from reviewapp.models import ClarificationEvent, CompanyAssignment
from reviewapp.readmodel import sync
from tests import factories
from tests.answers.conftest import moved_item
from tests.html import page_of
from tests.overview.conftest import app_answer, day_iso, item, stockholm_midnight

pytestmark = pytest.mark.django_db


def _bookkeeper(username: str, *companies: Company, team: bool = False, **names: str) -> User:
    user = factories.make_user(roles.BOOKKEEPER, username=username, **names)
    for company in companies:
        CompanyAssignment.objects.create(user=user, company_id=company.pk)
    if team:
        user.user_permissions.add(Permission.objects.get(codename="view_team_overview"))
    return User.objects.get(pk=user.pk)


def _client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _today(client: Client) -> dict[str, int]:
    days = client.get(reverse("api_overview"), {"days": 7}).json()["days"]
    return {k: v for k, v in days[-1].items() if k != "date"}


def _answer(client: Client, company: Company, body: dict[str, object]) -> None:
    answered = moved_item(body["question"], company=company)  # type: ignore[arg-type]
    response = client.post(
        reverse("api_item_answer", args=[answered.pk]), json.dumps(body), content_type="application/json"
    )
    assert response.status_code == 200, response.content


def test_an_answer_written_in_the_app_is_counted_after_the_next_poll_and_only_once() -> None:
    ours = factories.make_company()
    bea = _bookkeeper("bea", ours)
    client = _client(bea)
    sync.poll()

    _answer(client, ours, {"question": "context", "text": "Taxi till kundmötet"})
    before = _today(client)["answered_in_app"]
    sync.poll()
    after = _today(client)["answered_in_app"]
    sync.poll()
    again = _today(client)["answered_in_app"]

    assert (before, after, again) == (0, 1, 1)
    people = page_of(client.get(reverse("overview"), {"days": 7})).table("people-table")
    assert people[1] == [day_iso(0), "1"]


def test_a_denial_written_in_the_app_counts_as_an_answer_and_a_denial() -> None:
    ours = factories.make_company()
    client = _client(_bookkeeper("bea", ours))

    _answer(client, ours, {"question": "representation", "denied": True})
    _answer(client, ours, {"question": "representation", "participants": [{"name": "Anna Berg"}], "purpose": "Avtal"})
    sync.poll()

    assert _today(client) == {"moved_to_app": 0, "answered_in_app": 2, "answered_in_chat": 0, "denied": 1}


def test_an_answer_counts_on_its_stockholm_day_not_its_utc_one() -> None:
    ours = factories.make_company()
    bea = _bookkeeper("bea", ours)
    one = item(ours)
    midnight = stockholm_midnight(0)
    # One minute either side of midnight in Stockholm: one UTC date, two Stockholm days.
    app_answer(one, bea, midnight - dt.timedelta(minutes=1))
    app_answer(one, bea, midnight + dt.timedelta(minutes=1))
    app_answer(one, bea, midnight + dt.timedelta(minutes=2))
    sync.poll()

    days = _client(bea).get(reverse("api_overview"), {"days": 7}).json()["days"]

    assert (midnight - dt.timedelta(minutes=1)).astimezone(dt.UTC).date() == midnight.astimezone(dt.UTC).date()
    assert {day["date"]: day["answered_in_app"] for day in days[-2:]} == {day_iso(1): 1, day_iso(0): 2}


def test_a_bookkeeper_never_sees_another_companys_answers() -> None:
    ours, theirs = factories.make_company(), factories.make_company()
    lead = _bookkeeper("lena", ours, team=True, first_name="Lena", last_name="Lind")
    carl = _bookkeeper("carl", ours, theirs, first_name="Carl", last_name="Ek")
    dora = _bookkeeper("dora", theirs, first_name="Dora", last_name="Dahl")
    at = stockholm_midnight(0) + dt.timedelta(minutes=5)
    app_answer(item(ours), carl, at)
    app_answer(item(theirs), carl, at)
    app_answer(item(theirs), carl, at, question="representation", denied=True)
    app_answer(item(theirs), dora, at)
    sync.poll()

    lead_client = _client(lead)
    page = page_of(lead_client.get(reverse("overview"), {"days": 7}))

    assert _today(lead_client) == {"moved_to_app": 0, "answered_in_app": 1, "answered_in_chat": 0, "denied": 0}
    # The team's table: Carl's one answer in Lena's company, no one of theirs.
    assert page.table("people-table")[0] == ["Day", "Carl Ek"]
    assert page.table("people-table")[1] == [day_iso(0), "1"]
    assert _today(_client(dora)) == {"moved_to_app": 0, "answered_in_app": 3, "answered_in_chat": 0, "denied": 1}


def test_an_answer_logged_after_a_later_one_was_copied_is_still_counted() -> None:
    ours = factories.make_company()
    bea = _bookkeeper("bea", ours)
    one = item(ours)
    later = app_answer(one, bea, stockholm_midnight(0) + dt.timedelta(minutes=2))
    sync.poll()
    # As a transaction that took its id before ``later``'s and committed after the poll copied it.
    ClarificationEvent.objects.create(
        pk=later.pk - 1,
        item_id=one.pk,
        event_type=ClarificationEvent.ANSWERED,
        question_type="context",
        actor=bea,
        actor_label="bea",
        channel=ClarificationEvent.Channel.APP,
        payload={"answer": {"text": "Taxi"}, "amended": False},
        occurred_at=stockholm_midnight(0) + dt.timedelta(minutes=1),
    )
    sync.poll()

    assert _today(_client(bea))["answered_in_app"] == 2


def test_a_deleted_persons_answers_keep_the_name_they_were_logged_with(support) -> None:  # type: ignore[no-untyped-def]
    ours = factories.make_company()
    gone_before = factories.make_user(roles.BOOKKEEPER, username="gustav")
    gone_after = factories.make_user(roles.BOOKKEEPER, username="hedda")
    at = stockholm_midnight(0) + dt.timedelta(minutes=5)
    app_answer(item(ours), gone_before, at)
    app_answer(item(ours), gone_after, at)
    app_answer(item(ours), gone_after, at)
    gone_before.delete()  # before the poll copied the answer: the log has only the name
    sync.poll()
    gone_after.delete()  # after: the copy forgets the user, keeps the name

    page = page_of(_client(support).get(reverse("overview"), {"days": 7}))

    assert page.table("people-table")[0] == ["Day", "hedda", "gustav"]
    assert page.table("people-table")[1] == [day_iso(0), "2", "1"]
