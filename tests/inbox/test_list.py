"""The inbox list page: what a person sees, filters, htmx swaps, queries per page.

Items are written to accounted's tables and indexed (``tests/factories``);
the page reads the read model only.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connections
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from reviewapp.bookkeeping.routers import BOOKKEEPING_DB
from tests import factories
from tests.inbox.helpers import denial, journal_entry, note, participants_only, pending, supplier_invoice

pytestmark = pytest.mark.django_db

URL = reverse("inbox")
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def _ids_shown(response) -> list[str]:  # type: ignore[no-untyped-def]
    """The items of the table's rows, in order (not other links to items, like the queue's next)."""
    return re.findall(r'class="row-link" href="/items/([0-9a-f-]{36})/', response.content.decode())


def _facet(response, key: str) -> int:  # type: ignore[no-untyped-def]
    match = re.search(rf'data-state="{key}">(\d+)<', response.content.decode())
    assert match, f"no count shown for {key}"
    return int(match.group(1))


def test_it_lists_items_newest_first_with_their_state_badges(support_client):
    old = factories.make_item(channel_context=denial(), created_at=timezone.now() - dt.timedelta(days=2))
    new = factories.make_item(channel_context=pending("moved_to_app"))
    response = support_client.get(URL, **EN)
    assert response.status_code == 200
    assert _ids_shown(response) == [str(new.id), str(old.id)]
    body = response.content.decode()
    assert '<span class="badge badge-needs_answer">Needs answer in app</span>' in body
    assert '<span class="badge badge-denied">Not representation</span>' in body


def test_a_booked_item_shows_the_booked_badge_and_is_counted_under_booked(bookkeeper_client, company):
    booked = factories.make_item(
        company=company, channel_context=pending("moved_to_app"), created_journal_entry_id=journal_entry(company)
    )
    also_booked = factories.make_item(company=company, created_supplier_invoice_id=supplier_invoice(company))
    factories.make_item(company=company, channel_context=pending("moved_to_app"))
    response = bookkeeper_client.get(URL, {"state": "booked"}, **EN)
    assert sorted(_ids_shown(response)) == sorted([str(booked.id), str(also_booked.id)])
    body = response.content.decode()
    assert '<span class="badge badge-booked">Booked</span>' in body
    assert '<label for="facet-booked"><span class="badge badge-booked">Booked</span>' in body
    unfiltered = bookkeeper_client.get(URL, {"sort": "received"})
    assert _facet(unfiltered, "booked") == 2
    # A booked item's question no longer needs an answer: it cannot reach the verifikat.
    assert _facet(unfiltered, "needs_answer") == 1


def test_the_rows_show_supplier_and_total_in_swedish_number_format(qa_client, company):
    factories.make_item(
        company=company,
        extracted_data={"supplier": {"name": "Restaurang Prinsen"}, "totals": {"total": 1234.5}},
    )
    # A Swedish browser (the suite's default is English: tests/conftest.py).
    body = qa_client.get(URL, HTTP_ACCEPT_LANGUAGE="sv-SE").content.decode()
    assert "Restaurang Prinsen" in body
    assert company.name in body
    assert "1\xa0234,50 SEK" in body


def test_each_row_links_to_the_item_page_with_the_lists_query_string(bookkeeper_client):
    item = factories.make_item(channel_context=pending("moved_to_app"))
    response = bookkeeper_client.get(URL, {"state": "needs_answer", "sort": "question_age", "q": ""})
    expected = reverse("item_detail", args=[item.id]) + "?state=needs_answer&amp;sort=question_age"
    assert f'href="{expected}"' in response.content.decode()


def test_a_question_waiting_in_whatsapp_shows_the_time_left_of_the_48_hour_window(qa_client):
    asked = (timezone.now() - dt.timedelta(hours=10, minutes=1)).isoformat()
    factories.make_item(channel_context=pending("open", asked_at=asked))
    body = qa_client.get(URL, **EN).content.decode()
    assert '<span class="question-owner owner-whatsapp">WhatsApp owns it · 1\xa0day, 13\xa0hours left</span>' in body


def test_each_rows_question_says_who_owns_it_or_that_the_chats_window_closed(qa_client):
    factories.make_item(channel_context=pending("open", asked_at=(timezone.now() - dt.timedelta(days=3)).isoformat()))
    factories.make_item(channel_context={**pending("answered"), "user_note": "klart"})
    factories.make_item(channel_context=pending("moved_to_app", type_="photo"))
    body = qa_client.get(URL, **EN).content.decode()
    assert '<span class="question-owner owner-whatsapp">WhatsApp owns it · window closed</span>' in body
    assert '<span class="question-owner owner-answered">Answered</span>' in body
    assert '<span class="question-type">Unknown question type</span>' in body


def test_a_question_moved_to_the_app_says_the_app_owns_it(bookkeeper_client):
    factories.make_item(channel_context=pending("moved_to_app", type_="representation"))
    body = bookkeeper_client.get(URL, **EN).content.decode()
    assert "The app owns it" in body
    assert "Representation (participants and purpose)" in body


def test_the_state_filter_shows_only_items_in_that_state_and_counts_beside_each(bookkeeper_client):
    moved = [factories.make_item(channel_context=pending("moved_to_app")) for _ in range(2)]
    factories.make_item(channel_context=pending("open"))
    factories.make_item(channel_context=denial())
    response = bookkeeper_client.get(URL, {"state": "needs_answer"})
    assert sorted(_ids_shown(response)) == sorted(str(i.id) for i in moved)
    assert _facet(response, "needs_answer") == 2
    # Unticked: how many items ticking it would add to the two shown.
    assert _facet(response, "waiting_in_chat") == 1
    unfiltered = bookkeeper_client.get(URL, {"sort": "received"})
    assert [_facet(unfiltered, k) for k in ("needs_answer", "waiting_in_chat", "denied", "answered")] == [2, 1, 1, 1]


def test_filters_by_question_type_company_and_received_date(bookkeeper_client):
    acme = factories.make_company(name="Acme AB")
    day = dt.datetime(2026, 11, 10, 12, 0, tzinfo=dt.UTC)
    wanted = factories.make_item(company=acme, channel_context=pending("moved_to_app", type_="resend"), created_at=day)
    factories.make_item(company=acme, channel_context=pending("moved_to_app", type_="context"), created_at=day)
    factories.make_item(channel_context=pending("moved_to_app", type_="resend"), created_at=day)
    factories.make_item(
        company=acme, channel_context=pending("moved_to_app", type_="resend"), created_at=day + dt.timedelta(days=3)
    )
    response = bookkeeper_client.get(
        URL,
        {"type": "resend", "company": str(acme.id), "received_from": "2026-11-10", "received_to": "2026-11-10"},
    )
    assert _ids_shown(response) == [str(wanted.id)]


def test_the_company_menu_lists_accounteds_companies_by_name_archived_ones_too(bookkeeper_client):
    cirkus = factories.make_company(name="Cirkus AB")
    acme = factories.make_company(name="Acme AB")
    bageri = factories.make_company(name="Bageri AB", archived_at=timezone.now())
    body = bookkeeper_client.get(URL, **EN).content.decode()
    options = re.findall(r'<option value="([0-9a-f-]{36})"[^>]*>([^<]*)</option>', body)
    ours = [(value, label) for value, label in options if value in {str(c.id) for c in (cirkus, acme, bageri)}]
    assert ours == [(str(acme.id), "Acme AB"), (str(bageri.id), "Bageri AB (archived)"), (str(cirkus.id), "Cirkus AB")]


def test_an_archived_company_still_filters_the_list(bookkeeper_client):
    archived = factories.make_company(name="Nedlagd AB", archived_at=timezone.now())
    wanted = factories.make_item(company=archived)
    factories.make_item()
    response = bookkeeper_client.get(URL, {"company": str(archived.id)}, **EN)
    assert _ids_shown(response) == [str(wanted.id)]
    assert "Nedlagd AB" in response.content.decode()


def test_a_company_that_does_not_exist_is_an_error_and_the_list_shows_everything(bookkeeper_client):
    item = factories.make_item()
    response = bookkeeper_client.get(URL, {"company": "00000000-0000-0000-0000-000000000000"}, **EN)
    assert response.status_code == 200
    assert "Select a valid choice. That choice is not one of the available choices." in response.content.decode()
    assert _ids_shown(response) == [str(item.id)]


@pytest.mark.parametrize(
    ("context", "extracted", "query"),
    [
        (note("x"), {"supplier": {"name": "Restaurang Prinsen"}}, "prinsen"),
        (participants_only("Anna Berg"), None, "anna BERG"),
        (note("Kontorsmaterial till Göteborg"), None, "göteborg"),
        (
            {"channel": "whatsapp", "representation": {"participants": [], "purpose": "Kundmöte om avtal"}},
            None,
            "kundmöte",
        ),
    ],
)
def test_search_finds_supplier_participant_note_and_purpose(bookkeeper_client, context, extracted, query):
    wanted = factories.make_item(channel_context=context, extracted_data=extracted)
    factories.make_item(channel_context=note("något annat"), extracted_data={"supplier": {"name": "Taxi Kurir"}})
    response = bookkeeper_client.get(URL, {"q": query})
    assert _ids_shown(response) == [str(wanted.id)]


def test_search_by_the_start_of_an_id_opens_the_one_item_it_names(bookkeeper_client):
    wanted, other = factories.make_item(), factories.make_item()
    assert str(wanted.id)[:8] != str(other.id)[:8]
    # The short id the list shows, or more of it, opens the item (issue 37: it is what people copy from the list).
    for start in (str(wanted.id)[:8], str(wanted.id)[:13].upper()):
        response = bookkeeper_client.get(URL, {"q": start})
        assert response.status_code == 302
        assert response["Location"] == reverse("item_detail", args=[wanted.id])
    # The whole id opens the item itself (tests/inbox/test_exact_id.py).
    response = bookkeeper_client.get(URL, {"q": str(wanted.id).upper()})
    assert response.status_code == 302
    assert response["Location"] == reverse("item_detail", args=[wanted.id])


def test_search_never_looks_at_the_caption_nobody_reviewed(bookkeeper_client):
    factories.make_item(channel_context={"channel": "whatsapp", "caption": "hemlig bildtext"})
    assert _ids_shown(bookkeeper_client.get(URL, {"q": "hemlig"})) == []


def test_question_age_sort_puts_the_oldest_open_question_first(bookkeeper_client):
    received = timezone.now() - dt.timedelta(days=1)
    young = factories.make_item(
        channel_context=pending("moved_to_app", asked_at="2026-11-20T09:00:00Z"), created_at=received
    )
    old = factories.make_item(
        channel_context=pending("moved_to_app", asked_at="2026-10-01T09:00:00Z"),
        created_at=received + dt.timedelta(minutes=1),
    )
    none = factories.make_item(channel_context=note("x"), created_at=received + dt.timedelta(minutes=2))
    response = bookkeeper_client.get(URL, {"sort": "question_age"})
    assert _ids_shown(response) == [str(old.id), str(young.id), str(none.id)]
    assert _ids_shown(bookkeeper_client.get(URL, {"sort": "oldest"})) == [str(young.id), str(old.id), str(none.id)]


def test_pages_split_the_list_and_a_page_past_the_end_shows_the_last(bookkeeper_client):
    items = [factories.make_item(created_at=timezone.now() - dt.timedelta(minutes=n)) for n in range(5)]
    newest_first = [str(i.id) for i in items]
    page2 = bookkeeper_client.get(URL, {"page_size": "25", "page": "1"})
    assert _ids_shown(page2) == newest_first
    api = bookkeeper_client.get(reverse("api_items"), {"page_size": "2", "page": "2"}).json()
    assert [r["id"] for r in api["results"]] == newest_first[2:4]
    past = bookkeeper_client.get(reverse("api_items"), {"page_size": "2", "page": "99"}).json()
    assert [r["id"] for r in past["results"]] == newest_first[4:]


def test_pagination_links_keep_the_filters(bookkeeper_client):
    for _ in range(30):
        factories.make_item(channel_context=pending("moved_to_app"))
    body = bookkeeper_client.get(URL, {"state": "needs_answer", "page_size": "25"}, **EN).content.decode()
    assert 'href="/?state=needs_answer&amp;page_size=25&amp;page=2"' in body
    assert "Page 1 of 2" in body
    # From page 2, with the page number first in the URL: "First" and "Previous"
    # lead to page 1 without a page number, and the rows' links carry page 2.
    body = bookkeeper_client.get("/?page=2&state=needs_answer&page_size=25&q=", **EN).content.decode()
    assert "Page 2 of 2" in body
    first = re.search(r'<a href="([^"]*)" hx-get="[^"]*">First</a>', body)
    previous = re.search(r'<a href="([^"]*)" hx-get="[^"]*" rel="prev">Previous</a>', body)
    assert first
    assert previous
    assert first.group(1) == previous.group(1) == "/?state=needs_answer&amp;page_size=25"
    row_link = re.search(r'class="row-link" href="([^"]*)"', body)
    assert row_link
    assert row_link.group(1).endswith("?state=needs_answer&amp;page_size=25&amp;page=2")


def test_invalid_filters_are_shown_as_errors_and_the_valid_ones_still_apply(bookkeeper_client):
    wanted = factories.make_item(channel_context=note("kontorsmaterial"))
    factories.make_item(channel_context=note("annat"))
    response = bookkeeper_client.get(
        URL, {"state": "bogus", "q": "kontors", "company": "not-a-uuid", "page": "zero", "sort": "x"}, **EN
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert "“bogus” is not a state. The states are: needs_answer," in body
    assert "Select a valid choice. That choice is not one of the available choices." in body
    assert "Enter a whole number." in body
    assert _ids_shown(response) == [str(wanted.id)]


def test_a_date_range_ending_before_it_starts_is_an_error_under_the_end_date(bookkeeper_client):
    response = bookkeeper_client.get(URL, {"received_from": "2026-11-10", "received_to": "2026-11-01"}, **EN)
    assert response.status_code == 200
    assert "The end date is before the start date." in response.content.decode()


def test_htmx_requests_get_only_the_results_fragment(bookkeeper_client):
    item = factories.make_item(channel_context=pending("moved_to_app"))
    response = bookkeeper_client.get(URL, {"state": "needs_answer"}, headers={"HX-Request": "true"})
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith('<div id="inbox-results"')
    assert "<html" not in body
    assert 'id="id_q"' not in body  # the search box keeps its focus: it is not swapped
    assert str(item.id) in body
    assert 'data-state="needs_answer">1<' in body
    assert "HX-Request" in response["Vary"]


def test_a_history_restore_gets_the_whole_page(bookkeeper_client):
    response = bookkeeper_client.get(URL, headers={"HX-Request": "true", "HX-History-Restore-Request": "true"})
    assert "<html" in response.content.decode()


def test_the_page_works_without_javascript_as_a_plain_get_form(bookkeeper_client):
    body = bookkeeper_client.get(URL).content.decode()
    assert re.search(r'<form id="inbox-filters"[^>]*method="get" action="/"', body)
    assert '<script src="/static/js/inbox.js" defer></script>' in body


@pytest.mark.parametrize("client_fixture", ["bookkeeper_client", "support_client", "qa_client"])
def test_every_role_may_see_the_list(request, client_fixture):
    assert request.getfixturevalue(client_fixture).get(URL).status_code == 200


def test_it_refuses_a_user_without_a_role(client):
    client.force_login(factories.make_user(None))
    assert client.get(URL).status_code == 403


def test_it_refuses_post(bookkeeper_client):
    assert bookkeeper_client.post(URL).status_code == 405


def _queries_for(client, query: dict[str, str], url: str = URL) -> tuple[int, list[str]]:  # type: ignore[no-untyped-def]
    """How many queries one request makes in the review database, and the SQL it sends to accounted's."""
    with (
        CaptureQueriesContext(connections["default"]) as review,
        CaptureQueriesContext(connections[BOOKKEEPING_DB]) as bookkeeping,
    ):
        response = client.get(url, query)
    assert response.status_code == 200
    # Server-side cursors are numbered per connection: the name is not the query.
    return len(review), [re.sub(r'"_django_curs_\w+"', "CURSOR", q["sql"]) for q in bookkeeping.captured_queries]


def test_the_number_of_queries_does_not_grow_with_the_page_size(bookkeeper_client):
    companies = [factories.make_company() for _ in range(3)]
    for n in range(60):
        factories.make_item(company=companies[n % 3], channel_context=pending("moved_to_app") if n % 2 else denial())
    review, bookkeeping = _queries_for(bookkeeper_client, {"page_size": "25"})
    # Session, user, permissions, freshness, the company menu, the counts, the
    # rows: a handful, whatever the page shows; nothing from accounted's database.
    assert review <= 8
    assert bookkeeping == []
    assert _queries_for(bookkeeper_client, {"page_size": "500"}) == (review, bookkeeping)

    api_small = _queries_for(bookkeeper_client, {"page_size": "1"}, reverse("api_items"))
    assert api_small[1] == []  # the API reads the review database only
    # The company menu costs the page no query: it comes with the freshness line's.
    assert review == api_small[0]
    assert _queries_for(bookkeeper_client, {"page_size": "500"}, reverse("api_items")) == api_small

    filtered = {"page_size": "25", "company": str(companies[0].id)}
    small = _queries_for(bookkeeper_client, filtered)
    assert _queries_for(bookkeeper_client, {**filtered, "page_size": "500", "state": "denied"}) == small


def test_the_list_never_reads_accounteds_items_table(bookkeeper_client, company):
    for _ in range(3):
        factories.make_item(company=company, channel_context=pending("moved_to_app"))
    for url, query in [
        (URL, {}),
        (URL, {"company": str(company.id), "state": "needs_answer", "q": "leverantör", "sort": "question_age"}),
        (reverse("api_items"), {"company": str(company.id), "received_from": "2020-01-01"}),
    ]:
        _review, bookkeeping = _queries_for(bookkeeper_client, query, url)
        assert not [sql for sql in bookkeeping if "invoice_inbox_items" in sql], (url, query)
