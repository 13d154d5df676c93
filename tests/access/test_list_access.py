"""A bookkeeper assigned some companies never meets another company's item on any list path.

Rita is assigned "Vår Klient AB" only. "Hemlig Kund AB" has more items, and
its questions sit between hers in every order, so a path that forgot the
restriction would show one of them (or count it). Each test then tries that
path with the other company's ids: in ``?company=``, typed into the search
(the exact id, its first characters, its document, correlation and WhatsApp
ids), and as the item the neighbours are taken from.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from dataclasses import dataclass

import pytest
from django.http import QueryDict
from django.test import Client
from django.urls import reverse

from reviewapp.bookkeeping.models import Company, InboxItem
from reviewapp.core import roles
from reviewapp.inbox import reservations
from reviewapp.inbox.sorting import neighbours
from reviewapp.models import CompanyAssignment
from tests import factories
from tests.inbox.helpers import indexed, listed, pending
from tests.items.bookkeeping import make_document, whatsapp_item

pytestmark = pytest.mark.django_db

URL = reverse("inbox")
API = reverse("api_items")
CHANGELIST = reverse("admin:reviewapp_indexeditem_changelist")
QUEUE = "state=needs_answer&sort=queue"
DAY = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)
ITEM_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass
class World:
    ours: Company
    theirs: Company
    our_items: list[InboxItem]  # in the queue's order
    their_items: list[InboxItem]  # in the queue's order; the first is a WhatsApp photo with a document
    wamid: str

    @property
    def their_ids(self) -> set[str]:
        return {str(item.pk) for item in self.their_items}

    @property
    def our_ids(self) -> set[str]:
        return {str(item.pk) for item in self.our_items}


def _question(company: Company, days: int, **extra: object) -> InboxItem:
    asked = (DAY + dt.timedelta(days=days)).isoformat()
    return factories.make_item(
        company=company,
        channel_context=pending("moved_to_app", asked_at=asked),
        created_at=DAY + dt.timedelta(days=days),
        extracted_data={"supplier": {"name": f"Leverantör dag {days}"}, "totals": {"total": 100 + days}},
        **extra,
    )


@pytest.fixture
def world() -> World:
    ours = factories.make_company(name="Vår Klient AB")
    theirs = factories.make_company(name="Hemlig Kund AB")
    wamid = "wamid.HBgLNDY3MDk5OTk5OTkVAgASGBQzQUY="
    # The other company's questions come first, last and in between, in every order.
    photo = whatsapp_item(
        theirs,
        when=(DAY - dt.timedelta(days=1)).isoformat(),
        wamid=wamid,
        document=make_document(theirs),
        channel_context=pending("moved_to_app", asked_at=(DAY - dt.timedelta(days=1)).isoformat()),
        created_at=DAY - dt.timedelta(days=1),
        extracted_data={"supplier": {"name": "Leverantör hemlig"}},
    )
    ours_first = _question(ours, 1)
    theirs_middle = _question(theirs, 2)
    ours_second = _question(ours, 3)
    theirs_last = _question(theirs, 4)
    return World(ours, theirs, [ours_first, ours_second], [photo, theirs_middle, theirs_last], wamid)


@pytest.fixture
def rita(world: World):  # type: ignore[no-untyped-def]
    """A bookkeeper (staff, so she may open the admin) assigned only "Vår Klient AB"."""
    user = factories.make_user(roles.BOOKKEEPER, username="rita", is_staff=True)
    CompanyAssignment.objects.create(user=user, company_id=world.ours.pk)
    return user


@pytest.fixture
def rita_client(rita) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(rita)
    return client


def _rows(response) -> set[str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 200
    return set(re.findall(r'class="row-link" href="/items/([0-9a-f-]{36})/', response.content.decode()))


def _facet(body: str, key: str) -> int:
    match = re.search(rf'data-state="{key}">([\d\xa0+]+)<', body)
    assert match, f"no count for {key}"
    return int(match.group(1).replace("\xa0", "").rstrip("+"))


def _every_item_id(body: str) -> set[str]:
    return set(ITEM_ID.findall(body))


def _assert_nothing_of_theirs(body: str, world: World, typed: str = "") -> None:
    """Not one id, name or supplier of the other company, other than what she typed herself."""
    if typed:
        body = body.replace(typed, "")
    assert not _every_item_id(body) & world.their_ids
    assert "Hemlig Kund AB" not in body
    assert str(world.theirs.pk) not in body
    assert "hemlig" not in body.lower()


# --- The list page ----------------------------------------------------------------


def test_the_queue_rita_lands_on_lists_counts_and_offers_only_her_companys_items(rita_client, world):
    response = rita_client.get(URL)
    body = response.content.decode()
    assert _rows(response) == world.our_ids
    assert "<strong>2 left</strong>" in body
    assert _facet(body, "needs_answer") == 2
    assert "Showing 1–2 of 2 items" in body
    start = re.search(r'class="button primary next-free" href="/items/([0-9a-f-]{36})/', body)
    assert start
    assert start.group(1) == str(world.our_items[0].pk)
    _assert_nothing_of_theirs(body, world)


def test_every_item_list_and_its_counts_leave_the_other_company_out(rita_client, world):
    for params in ({"sort": "received"}, {"sort": "oldest", "page_size": "25"}, {"sort": "question_age"}):
        response = rita_client.get(URL, params)
        body = response.content.decode()
        assert _rows(response) == world.our_ids, params
        assert _facet(body, "needs_answer") == 2
        assert "of 2 items" in body
        _assert_nothing_of_theirs(body, world)


def test_counted_row_by_row_a_search_or_a_date_range_counts_only_her_companys_items(rita_client, world):
    # Both companies' suppliers are "Leverantör …": the capped count's path.
    for params in (
        {"q": "leverantör", "sort": "received"},
        {"received_from": "2026-10-01", "received_to": "2026-12-31", "state": "needs_answer"},
    ):
        response = rita_client.get(URL, params)
        body = response.content.decode()
        assert _rows(response) == world.our_ids, params
        assert _facet(body, "needs_answer") == 2, params
        assert "of 2 items" in body
        _assert_nothing_of_theirs(body, world)


def test_the_company_menu_offers_only_her_companies(rita_client, world):
    body = rita_client.get(URL, {"sort": "received"}).content.decode()
    menu = re.search(r'<select name="company".*?</select>', body, re.DOTALL)
    assert menu
    assert re.findall(r'<option value="([0-9a-f-]{36})"', menu.group(0)) == [str(world.ours.pk)]


def test_the_other_companys_id_in_the_company_filter_is_refused_like_one_that_does_not_exist(rita_client, world):
    theirs = rita_client.get(URL, {"company": str(world.theirs.pk), "sort": "received"})
    nowhere = rita_client.get(URL, {"company": str(uuid.uuid4()), "sort": "received"})
    body = theirs.content.decode()
    assert "Select a valid choice. That choice is not one of the available choices." in body
    # Ignored as invalid: her own items, nothing of theirs, and no hint the id exists.
    assert _rows(theirs) == _rows(nowhere) == world.our_ids
    assert _facet(body, "needs_answer") == _facet(nowhere.content.decode(), "needs_answer") == 2
    assert "Hemlig Kund AB" not in body


@pytest.mark.parametrize("which", ["item", "item prefix", "document", "correlation", "whatsapp message", "wamid"])
def test_the_other_companys_ids_typed_into_the_search_find_nothing(rita_client, support_client, world, which):
    photo = world.their_items[0]
    text = {
        "item": str(photo.pk),
        "item prefix": str(photo.pk)[:8],
        "document": str(photo.document_id),
        "correlation": str(photo.correlation_id),
        "whatsapp message": str(photo.whatsapp_message_id),
        "wamid": world.wamid,
    }[which]
    for headers in ({}, {"HX-Request": "true"}):
        response = rita_client.get(URL, {"q": text}, headers=headers)
        assert response.status_code == 200, "no redirect to another company's item"
        assert "HX-Redirect" not in response
        body = response.content.decode()
        assert _rows(response) == set()
        assert _facet(body, "needs_answer") == 0
        _assert_nothing_of_theirs(body, world, typed=text)
    # The same text finds the item for someone who may see every company.
    seen = support_client.get(URL, {"q": text})
    found = seen["Location"] if seen.status_code == 302 else " ".join(_rows(seen))
    assert str(photo.pk) in found


def test_an_htmx_swap_carries_only_her_items_and_counts(rita_client, world):
    response = rita_client.get(URL, {"state": "needs_answer", "sort": "queue"}, headers={"HX-Request": "true"})
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="inbox-results"')
    assert _rows(response) == world.our_ids
    assert "<strong>2 left</strong>" in body
    _assert_nothing_of_theirs(body, world)


def test_a_bookkeeper_assigned_two_companies_sees_both_and_their_sum(world):
    third = factories.make_company(name="Tredje AB")
    extra = _question(third, 5)
    user = factories.make_user(roles.BOOKKEEPER)
    CompanyAssignment.objects.create(user=user, company_id=world.ours.pk)
    CompanyAssignment.objects.create(user=user, company_id=third.pk)
    client = Client()
    client.force_login(user)
    response = client.get(URL)
    assert _rows(response) == world.our_ids | {str(extra.pk)}
    assert "<strong>3 left</strong>" in response.content.decode()
    api = client.get(API, {"state": "needs_answer"}).json()
    assert api["count"] == 3
    assert {row["id"] for row in api["results"]} == world.our_ids | {str(extra.pk)}


def test_a_bookkeeper_assigned_no_company_sees_an_empty_list(world):
    client = Client()
    client.force_login(factories.make_user(roles.BOOKKEEPER))
    response = client.get(URL)
    body = response.content.decode()
    assert _rows(response) == set()
    assert "<strong>0 left</strong>" in body
    assert "The queue is empty" in body
    assert "Answer the next free item" not in body
    assert re.findall(r'<option value="([0-9a-f-]{36})"', body) == []
    assert client.get(API).json()["count"] == 0
    assert _rows(client.get(URL, {"q": "leverantör"})) == set()


def test_support_still_sees_every_company(support_client, world):
    response = support_client.get(URL, {"state": "needs_answer"})
    assert _rows(response) == world.our_ids | world.their_ids
    assert _facet(response.content.decode(), "needs_answer") == 5


# --- The list API -------------------------------------------------------------------


def test_the_api_lists_and_counts_only_her_companys_items(rita_client, world):
    for params in ({}, {"state": "needs_answer"}, {"q": "leverantör"}, {"received_from": "2026-01-01"}):
        data = rita_client.get(API, params).json()
        assert {row["id"] for row in data["results"]} == world.our_ids, params
        assert data["count"] == 2
        assert data["facets"]["needs_answer"] == 2
        assert {row["company"]["id"] for row in data["results"]} == {str(world.ours.pk)}


def test_the_api_refuses_the_other_companys_id_as_it_refuses_an_unknown_one(rita_client, world):
    theirs = rita_client.get(API, {"company": str(world.theirs.pk)})
    nowhere = rita_client.get(API, {"company": str(uuid.uuid4())})
    assert theirs.status_code == nowhere.status_code == 400
    assert theirs.json() == nowhere.json()


def test_the_api_search_for_the_other_companys_id_finds_nothing(rita_client, world):
    for text in (str(world.their_items[0].pk), str(world.their_items[0].pk)[:8], world.wamid):
        data = rita_client.get(API, {"q": text}).json()
        assert (data["count"], data["results"]) == (0, []), text


# --- Neighbours and the queue ----------------------------------------------------------


@pytest.mark.parametrize("query", [QUEUE, "sort=received", "sort=oldest", "sort=question_age", ""])
def test_previous_and_next_skip_the_other_companys_items(rita, world, query):
    first, second = (indexed(item.pk) for item in world.our_items)
    previous, following = neighbours(first, listed(QueryDict(query), rita))
    assert following == second or previous == second
    assert {str(x.pk) for x in (previous, following) if x is not None} <= world.our_ids
    previous, following = neighbours(second, listed(QueryDict(query), rita))
    assert {str(x.pk) for x in (previous, following) if x is not None} <= world.our_ids


def test_the_item_pages_previous_and_next_links_stay_in_her_companies(rita_client, world):
    for item in world.our_items:
        body = rita_client.get(reverse("item_detail", args=[item.pk]) + "?" + QUEUE).content.decode()
        assert not _every_item_id(body) & world.their_ids


def test_next_in_queue_and_claim_next_offer_only_her_companys_items(rita, world):
    walked = []
    current = None
    while (current := reservations.next_in_queue(current, listed(QUEUE, rita), rita)) is not None:
        walked.append(str(current.pk))
    assert walked == [str(item.pk) for item in world.our_items]
    claimed = []
    current = None
    while (current := reservations.claim_next(current, listed(QUEUE, rita), rita)) is not None:
        claimed.append(str(current.pk))
    assert claimed == walked
    # Starting from one of theirs (as if its id were typed in) still offers only hers.
    theirs = indexed(world.their_items[1].pk)
    assert reservations.next_in_queue(theirs, listed(QUEUE, rita), rita) == indexed(world.our_items[1].pk)


# --- The admin --------------------------------------------------------------------------


def _admin_rows(response) -> set[str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 200
    return set(re.findall(r"/admin/reviewapp/indexeditem/([0-9a-f-]{36})/change/", response.content.decode()))


def test_the_admin_changelist_shows_her_only_her_companys_items(rita_client, world):
    for params in ({}, {"state": "needs_answer"}, {"q": "leverantör"}, {"q": str(world.their_items[0].pk)[:8]}):
        response = rita_client.get(CHANGELIST, params)
        expected = set() if "q" in params and params["q"] != "leverantör" else world.our_ids
        assert _admin_rows(response) == expected, params
        body = response.content.decode()
        assert "Hemlig Kund AB" not in body
        assert not _every_item_id(body) & world.their_ids
    counted = rita_client.get(CHANGELIST, {"state": "needs_answer"}).content.decode()
    assert re.search(r"\b2 inbox items\b", counted)


def test_the_admin_filter_by_the_other_company_shows_nothing(rita_client, world):
    response = rita_client.get(CHANGELIST, {"company": str(world.theirs.pk)})
    assert not _admin_rows(response) & world.their_ids


def test_the_admin_change_page_of_the_other_companys_item_is_not_found(rita_client, world):
    theirs = rita_client.get(reverse("admin:reviewapp_indexeditem_change", args=[world.their_items[0].pk]))
    nowhere = rita_client.get(reverse("admin:reviewapp_indexeditem_change", args=[uuid.uuid4()]))
    assert theirs.status_code == nowhere.status_code == 302  # the admin's "does not exist" redirect
    ours = rita_client.get(reverse("admin:reviewapp_indexeditem_change", args=[world.our_items[0].pk]))
    assert ours.status_code == 200


def test_a_superuser_sees_every_company_in_the_admin(admin_client, world):
    assert _admin_rows(admin_client.get(CHANGELIST, {"state": "needs_answer"})) == world.our_ids | world.their_ids
