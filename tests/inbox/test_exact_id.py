"""An exact id pasted into the list's search opens that item; anything else is searched as before."""

from __future__ import annotations

import re
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from reviewapp.core import roles
from reviewapp.inbox import lookup
from reviewapp.models import CompanyAssignment, IndexedItem
from tests import factories
from tests.items.bookkeeping import make_document, make_message, whatsapp_item

pytestmark = pytest.mark.django_db

URL = reverse("inbox")
WAMID = "wamid.HBgLNDY3MDEyMzQ1NjcVAgASGBQzQUY="


@pytest.fixture
def photo(company):  # type: ignore[no-untyped-def]
    return whatsapp_item(company, when="2026-11-02T08:59:00Z", wamid=WAMID, document=make_document(company))


def _ids_shown(response) -> list[str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 200
    return re.findall(r'class="row-link" href="/items/([0-9a-f-]{36})/', response.content.decode())


@pytest.mark.parametrize("which", ["item", "document", "correlation", "whatsapp message", "wamid"])
def test_a_full_id_opens_the_item_it_names(bookkeeper_client, photo, which):
    factories.make_item(photo.company)  # another item of the same company, never opened
    text = {
        "item": str(photo.pk),
        "document": str(photo.document_id),
        "correlation": str(photo.correlation_id),
        "whatsapp message": str(photo.whatsapp_message_id),
        "wamid": WAMID,
    }[which]
    response = bookkeeper_client.get(URL, {"q": text, "state": "needs_answer"})
    assert response.status_code == 302
    assert response["Location"] == f"/items/{photo.pk}/"


def test_an_id_pasted_with_spaces_and_in_capitals_opens_the_item(support_client, photo):
    response = support_client.get(URL, {"q": f"  {str(photo.pk).upper()} "})
    assert response["Location"] == f"/items/{photo.pk}/"


def test_htmx_search_for_an_id_tells_htmx_to_go_to_the_item(bookkeeper_client, photo):
    response = bookkeeper_client.get(URL, {"q": str(photo.document_id)}, headers={"HX-Request": "true"})
    assert response.status_code == 200  # htmx 2 follows HX-Redirect on a 2xx only
    assert response["HX-Redirect"] == f"/items/{photo.pk}/"
    assert response.content == b""


def test_a_wamid_whose_item_is_not_indexed_yet_still_opens_it(bookkeeper_client, photo):
    IndexedItem.objects.filter(pk=photo.pk).delete()
    response = bookkeeper_client.get(URL, {"q": WAMID})
    assert response["Location"] == f"/items/{photo.pk}/"


def test_an_id_two_items_share_is_searched_as_text(bookkeeper_client, company):
    document = make_document(company)
    factories.make_item(company, document=document)
    factories.make_item(company, document=document)
    response = bookkeeper_client.get(URL, {"q": str(document.pk)})
    assert response.status_code == 200
    assert "Location" not in response
    # The words of the search match neither item (it never looks at document ids).
    assert _ids_shown(response) == []


def test_an_id_that_names_nothing_is_searched_as_text(bookkeeper_client, photo):
    response = bookkeeper_client.get(URL, {"q": str(uuid.uuid4())})
    assert response.status_code == 200
    assert _ids_shown(response) == []
    assert "No items match these filters." in response.content.decode()


def test_the_start_of_an_id_opens_the_item_and_words_still_list_matches(bookkeeper_client, photo):
    assert bookkeeper_client.get(URL, {"q": str(photo.pk)[:8]})["Location"] == f"/items/{photo.pk}/"
    supplier = IndexedItem.objects.get(pk=photo.pk).supplier_name
    assert _ids_shown(bookkeeper_client.get(URL, {"q": supplier})) == [str(photo.pk)]


def test_a_wamid_of_a_message_about_no_item_is_searched_as_text(bookkeeper_client, photo):
    make_message(item_id=None, when="2026-11-02T09:05:00Z", body="Hej", wamid="wamid.LONELY=")
    response = bookkeeper_client.get(URL, {"q": "wamid.LONELY="})
    assert response.status_code == 200
    assert _ids_shown(response) == []


def test_the_api_lists_the_item_instead_of_redirecting(support_client, photo):
    response = support_client.get(reverse("api_items"), {"q": str(photo.pk)})
    assert response.status_code == 200
    assert [row["id"] for row in response.json()["results"]] == [str(photo.pk)]


def test_an_item_of_a_company_the_user_is_not_assigned_is_not_opened(photo):
    other = factories.make_company()
    user = factories.make_user(roles.BOOKKEEPER)
    CompanyAssignment.objects.create(user=user, company_id=other.pk)
    client = Client()
    client.force_login(user)
    for text in (str(photo.pk), WAMID):
        response = client.get(URL, {"q": text})
        assert response.status_code == 200
        assert _ids_shown(response) == []
    # Assigned the item's company, the same text opens it.
    CompanyAssignment.objects.create(user=user, company_id=photo.company_id)
    assert client.get(URL, {"q": WAMID})["Location"] == f"/items/{photo.pk}/"
    # Even before the read model has the item (its company then read from accounted's row).
    IndexedItem.objects.filter(pk=photo.pk).delete()
    assert client.get(URL, {"q": WAMID})["Location"] == f"/items/{photo.pk}/"


def test_a_short_id_another_companys_item_shares_still_opens_ones_own(photo):
    # The other company's item starts with the same eight characters: for a bookkeeper who sees only
    # photo's company, the eight characters name one item.
    other = factories.make_company()
    factories.make_item(company=other, id=uuid.UUID(str(photo.pk)[:8] + "-0000-4000-8000-000000000000"))
    user = factories.make_user(roles.BOOKKEEPER)
    CompanyAssignment.objects.create(user=user, company_id=photo.company_id)
    client = Client()
    client.force_login(user)
    assert client.get(URL, {"q": str(photo.pk)[:8]})["Location"] == f"/items/{photo.pk}/"


def test_an_outbound_messages_wamid_opens_nothing(bookkeeper_client, photo):
    # Only inbound wamids are looked up (accounted's unique index covers those alone).
    make_message(item_id=photo.pk, when="2026-11-02T09:01:00Z", direction="outbound", body="Tack", wamid="wamid.OUT=")
    response = bookkeeper_client.get(URL, {"q": "wamid.OUT="})
    assert response.status_code == 200
    assert "Location" not in response
    assert lookup.item_for_wamid("wamid.OUT=") is None


def test_a_wamid_lookup_limited_to_companies_finds_only_their_items(photo):
    assert lookup.item_for_wamid(WAMID, company_ids=[photo.company_id]) == photo.pk
    other = factories.make_company()
    factories.make_item(other)  # a company with items of its own, none of them this message's
    assert lookup.item_for_wamid(WAMID, company_ids=[other.pk]) is None
