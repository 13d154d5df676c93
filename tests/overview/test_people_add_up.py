"""The overview's per-person and per-day counts add up to the app's own log (issue 37, point 4).

The expected numbers are counted here, by plain Python over the ``ClarificationEvent``
rows the test wrote, never by ``reviewapp.overview``: one line a person (by user while
the user exists, whatever they are called now; by the logged name once deleted), one
count a Stockholm day, corrections left out.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import Permission

from reviewapp.core import roles
from reviewapp.models import CompanyAssignment
from reviewapp.overview import numbers
from reviewapp.readmodel import sync
from tests import factories
from tests.overview.conftest import app_answer, expected_from_the_log, item, stockholm_midnight

pytestmark = pytest.mark.django_db


@pytest.fixture
def log(db):  # type: ignore[no-untyped-def]
    company = factories.make_company()
    bea = factories.make_user(roles.BOOKKEEPER, username="bokforare", first_name="Bea", last_name="Bokförare")
    carl = factories.make_user(roles.BOOKKEEPER, username="carl")
    gone = factories.make_user(roles.BOOKKEEPER, username="gunnar", first_name="Gunnar", last_name="Ek")
    for user in (bea, carl, gone):
        CompanyAssignment.objects.create(user=user, company_id=company.pk)
    one, two = item(company), item(company)
    for days_ago, minutes in [(0, 5), (0, 50), (1, 600), (3, 30), (3, 90), (3, 1430)]:
        app_answer(one, bea, stockholm_midnight(days_ago) + dt.timedelta(minutes=minutes))
    app_answer(two, bea, stockholm_midnight(0) + dt.timedelta(minutes=70), amended=True)  # a correction: not counted
    for days_ago in (0, 2, 2):
        app_answer(two, carl, stockholm_midnight(days_ago) + dt.timedelta(hours=9))
    for days_ago in (1, 3):
        app_answer(two, gone, stockholm_midnight(days_ago) + dt.timedelta(hours=15))
    sync.poll()
    # Bea takes her married name and a new username; her earlier answers are still hers.
    bea.last_name, bea.username = "Berg", "bea.berg"
    bea.save()
    app_answer(one, bea, stockholm_midnight(0) + dt.timedelta(hours=2))
    # Gunnar leaves: his answers stay, under the name logged with them.
    gone.delete()
    sync.poll()
    support = factories.make_user(roles.SUPPORT, username="support")
    return {"bea": bea, "carl": carl, "support": support}


def test_the_teams_lines_are_one_per_person_and_match_the_log(log) -> None:  # type: ignore[no-untyped-def]
    data = numbers.overview(log["support"], 7, whole_team=True)
    dates = tuple(day.date for day in data.days)

    shown = {person.name: person.per_day for person in data.people}

    assert shown == expected_from_the_log(dates)
    assert len(shown) == len(data.people), "one person on two lines"
    assert "Bea Berg" in shown
    assert "bokforare" not in shown
    assert "Bea Bokförare" not in shown
    # Each day's answers in the app are the people's lines added up.
    assert [day.answered_in_app for day in data.days] == [sum(col) for col in zip(*shown.values(), strict=True)]


def test_a_bookkeepers_own_line_and_everyone_elses_add_up_to_the_days_total(log) -> None:  # type: ignore[no-untyped-def]
    data = numbers.overview(log["bea"], 7, whole_team=False)
    dates = tuple(day.date for day in data.days)
    expected = expected_from_the_log(dates)

    own, *rest = data.people

    assert own.name == "Bea Berg"
    assert own.per_day == expected["Bea Berg"]
    assert [p.others for p in rest] == [True]
    others = tuple(sum(col) for col in zip(*(v for k, v in expected.items() if k != "Bea Berg"), strict=True))
    assert rest[0].per_day == others
    assert [day.answered_in_app for day in data.days] == [a + b for a, b in zip(own.per_day, others, strict=True)]


def test_the_page_names_the_others_line_without_naming_them(log, client) -> None:  # type: ignore[no-untyped-def]
    client.force_login(log["bea"])
    html = client.get("/overview/", {"days": 7}, HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert "Everyone else" in html
    assert "carl" not in html
    assert "gunnar" not in html


def test_the_team_permission_alone_shows_names(log) -> None:  # type: ignore[no-untyped-def]
    lead = log["carl"]
    lead.user_permissions.add(Permission.objects.get(codename="view_team_overview"))
    data = numbers.overview(lead, 7, whole_team=True)
    assert not any(p.others for p in data.people)
