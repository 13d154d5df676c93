"""/overview/: the charts with their tables, who sees whose answers, Swedish numbers, the header link."""

from __future__ import annotations

import datetime as dt
import re
import uuid

import pytest
from django.contrib.auth.models import Permission
from django.db import connections
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from reviewapp.core import roles
from reviewapp.models import CompanyAssignment, IndexedItem
from reviewapp.readmodel import sync
from tests import factories
from tests.html import Page, page_of
from tests.overview.conftest import app_answer, day_iso, item, stockholm_midnight

pytestmark = pytest.mark.django_db


@pytest.fixture
def team(db):  # type: ignore[no-untyped-def]
    ours = factories.make_company()
    bea = factories.make_user(roles.BOOKKEEPER, username="bea", first_name="Bea", last_name="Berg")
    carl = factories.make_user(roles.BOOKKEEPER, username="carl", first_name="Carl", last_name="Ek")
    for user in (bea, carl):
        CompanyAssignment.objects.create(user=user, company_id=ours.pk)
    one = item(ours)
    today = stockholm_midnight(0)
    app_answer(one, bea, today + dt.timedelta(minutes=1))
    for minutes in (2, 3, 4):
        app_answer(one, carl, today + dt.timedelta(minutes=minutes))
    app_answer(one, carl, stockholm_midnight(1) + dt.timedelta(hours=12))
    sync.poll()  # as sync_index --follow would a moment later: it copies the answers the overview counts
    return {"ours": ours, "bea": bea, "carl": carl}


def _client(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def _people_table(html: str) -> list[list[str]]:
    return Page(html).table("people-table")


def test_a_bookkeeper_sees_their_own_answers_and_the_others_unnamed(team) -> None:  # type: ignore[no-untyped-def]
    response = _client(team["bea"]).get(reverse("overview"), {"days": 7})

    assert response.status_code == 200
    rows = _people_table(response.content.decode())
    # Carl's answers as "everyone else", so the lines add up to the day's answers in the app (issue 37).
    assert rows[0] == ["Day", "Bea Berg", "Everyone else"]
    assert rows[1] == [day_iso(0), "1", "3"]
    assert rows[2] == [day_iso(1), "0", "1"]
    assert "Carl Ek" not in response.content.decode()


def test_the_team_permission_shows_every_persons_answers_per_day(team) -> None:  # type: ignore[no-untyped-def]
    lead = team["bea"]
    lead.user_permissions.add(Permission.objects.get(codename="view_team_overview"))

    rows = _people_table(_client(lead).get(reverse("overview"), {"days": 7}).content.decode())

    # Most answers first: Carl 4, Bea 1.
    assert rows[0] == ["Day", "Carl Ek", "Bea Berg"]
    assert rows[1] == [day_iso(0), "3", "1"]
    assert rows[2] == [day_iso(1), "1", "0"]


def test_support_holds_the_team_permission(support) -> None:  # type: ignore[no-untyped-def]
    assert support.has_perm(roles.VIEW_TEAM_OVERVIEW)
    assert not factories.make_user(roles.BOOKKEEPER).has_perm(roles.VIEW_TEAM_OVERVIEW)


def test_someone_without_answers_sees_their_own_row_of_zeros(team) -> None:  # type: ignore[no-untyped-def]
    dana = factories.make_user(roles.BOOKKEEPER, username="dana")

    rows = _people_table(_client(dana).get(reverse("overview"), {"days": 7}).content.decode())

    assert rows[0] == ["Day", "dana"]
    assert [row[1] for row in rows[1:]] == ["0"] * 7


def test_each_chart_is_an_image_with_a_title_a_description_and_no_inline_style(team) -> None:  # type: ignore[no-untyped-def]
    html = _client(team["bea"]).get(reverse("overview"), {"days": 30}).content.decode()

    page = Page(html)
    svgs = page.tags("svg")
    assert len(svgs) == 3
    for svg in svgs:
        title_id, desc_id = str(svg["aria-labelledby"]).split()
        assert svg["role"] == "img"
        assert page.text(title_id).strip()
        assert page.text(desc_id).strip()
        assert title_id.endswith("-title")
        assert desc_id.endswith("-desc")
    assert "style=" not in html
    assert "<script>" not in html
    assert "<style" not in html


def test_the_description_sums_the_period(team) -> None:  # type: ignore[no-untyped-def]
    html = _client(team["bea"]).get(reverse("overview"), {"days": 7}).content.decode()

    desc = Page(html).text("chart-daily-desc")
    assert f"From {day_iso(6)} to {day_iso(0)}" in desc
    # Five answers in the app over the two days (one by Bea, four by Carl).
    assert "Answered in the app: 5" in desc


def test_swedish_pages_group_digits_and_use_a_decimal_comma(team, settings) -> None:  # type: ignore[no-untyped-def]
    settings.LANGUAGE_CODE = "sv"
    now = dt.datetime.now(dt.UTC)
    IndexedItem.objects.bulk_create(
        IndexedItem(
            id=uuid.uuid4(),
            company_id=team["ours"].pk,
            created_at=now,
            source_updated_at=now,
            state_needs_answer=True,
            moved_to_app_at=now - dt.timedelta(minutes=90),
        )
        for _ in range(1234)
    )

    html = _client(team["bea"]).get(reverse("overview"), {"days": 7}).content.decode()

    page = Page(html)
    assert page.text("figure-waiting") == "1\xa0234"
    assert page.text("figure-oldest") == "1,5"
    assert page.text("figure-median") == "1,5"
    assert "<h1>Översikt</h1>" in html
    assert "1\xa0234 frågor väntar i appen" in page.text("chart-waits-desc")


def test_the_header_links_to_the_overview(team) -> None:  # type: ignore[no-untyped-def]
    html = _client(team["bea"]).get(reverse("inbox")).content.decode()

    links = [a for a in Page(html).tags("a") if a.get("href") == reverse("overview")]
    assert len(links) == 1
    current = page_of(_client(team["bea"]).get(reverse("overview"))).with_attribute("aria-current")
    assert [a["href"] for a in current] == [reverse("overview")]


def test_an_invalid_period_says_so_and_shows_thirty_days(team) -> None:  # type: ignore[no-untyped-def]
    response = _client(team["bea"]).get(reverse("overview"), {"days": "365"})

    assert response.status_code == 200
    page = page_of(response)
    assert "Choose 7, 30 or 90 days." in page.text("id_days_error")
    assert page.tags("select")[0]["aria-describedby"] == "id_days_error"
    assert len(page.table("people-table")) == 1 + 30


def test_it_refuses_post_with_405(team) -> None:  # type: ignore[no-untyped-def]
    assert _client(team["bea"]).post(reverse("overview")).status_code == 405


def test_a_user_without_a_role_is_refused(db) -> None:  # type: ignore[no-untyped-def]
    assert _client(factories.make_user()).get(reverse("overview")).status_code == 403


def test_its_statements_do_not_grow_with_the_period(team) -> None:  # type: ignore[no-untyped-def]
    client = _client(team["bea"])
    client.get(reverse("overview"), {"days": 7})  # the session and the user

    counts = []
    for days in (7, 90):
        with (
            CaptureQueriesContext(connections["default"]) as review,
            CaptureQueriesContext(connections["bookkeeping"]) as bookkeeping,
        ):
            client.get(reverse("overview"), {"days": days})
        counts.append((len(review), len(bookkeeping)))

    assert counts[0] == counts[1]
    # The page reads nothing from accounted's database: the sync copied what it counts.
    assert counts[0][1] == 0
    assert any(re.search(r"reviewapp_overviewevent", q["sql"]) for q in review.captured_queries)


def test_the_waits_fall_into_their_buckets(team) -> None:  # type: ignore[no-untyped-def]
    from tests.overview.conftest import waiting

    now = dt.datetime.now(dt.UTC)
    for hours in (2, 30, 240, 1000):
        waiting(team["ours"], now - dt.timedelta(hours=hours))
    waiting(team["ours"], None)  # no time recorded: waiting, in no bucket
    waiting(factories.make_company(), now - dt.timedelta(hours=5))  # not Bea's company

    page = page_of(_client(team["bea"]).get(reverse("overview")))

    assert page.table("wait-table")[1:] == [
        ["under 1 day", "1"],
        ["1–3 days", "1"],
        ["3–7 days", "0"],
        ["7–14 days", "1"],
        ["14–30 days", "0"],
        ["30 days or more", "1"],
    ]
    assert page.text("figure-waiting") == "5"
